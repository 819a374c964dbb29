# `cran field`: the game master's station. Every badge heard (its private state too:
# the heartbeats are for the game master's eyes, S7), the urgent first, and the game
# master's commands to every badge in range, made with the game master's chain (only
# this computer, with the game settings file, can make them).
import json
import os
import signal
import sys
import threading
import time

from cran import radio
from host_tools import CommandError, fieldnet, gamekey
from host_tools.station import GM_NAME, Station, radio_id, seed_of

HELP = "the game master's station: every badge at a glance, stop / resume the game"
EXIT_BAD_INPUT = 2
REFRESH_S = 0.5
TICK_S = 0.002
# What a command word sends: (kind, payload maker)
COMMANDS = {
    "stop": (radio.STOP, None),
    "reprise": (radio.RESUME, None),
    "nuit": (radio.NIGHT, None),
    "clock": (radio.CLOCK, lambda: int(time.time()).to_bytes(4, "big")),
}


def setup(p):
    p.add_argument("--settings", metavar="GAME.json", required=True,
                   help="the game settings file (its game key and radio secret: "
                        "cran config --settings-template, with \"radio\": true)")
    p.add_argument("--roster", metavar="ROSTER.csv",
                   help="the roster, to show each badge by its name")
    p.add_argument("--virtual", metavar="NAME", required=True,
                   help="a virtual field of `cran vbadge --field NAME` badges, whose air "
                        "this station holds")
    p.add_argument("--loss", type=float, default=0.0,
                   help="the virtual air's frame loss, 0 to 1 (default 0)")
    p.add_argument("--json", action="store_true",
                   help="no screen: one JSON line of every badge heard per second; each "
                        "line on stdin is a command (stop, reprise, nuit, clock, "
                        "masse:KEYWORD, reset:ID)")
    p.add_argument("--command", action="append", default=[],
                   metavar="stop|reprise|nuit|clock|masse:KEYWORD|reset:ID",
                   help="send this command first (with --json; may be repeated)")
    p.add_argument("--for", dest="seconds", type=float, default=None,
                   help="with --json: stop after this many seconds (default: Ctrl-C)")


def _names(roster_path):
    if roster_path is None:
        return {}
    from host_tools.roster import RosterError, badge_configs
    try:
        configs = badge_configs(roster_path)
    except RosterError as e:
        raise CommandError("\n".join(e.messages), EXIT_BAD_INPUT) from None
    return {radio_id(info["name"]).hex(): info["name"] for info, _ in configs.values()}


def _command(word):
    """A command word -> (kind, payload); CommandError naming what is known."""
    if word.startswith("reset:"):   # one badge, by its radio id (12 hex digits)
        try:
            target = bytes.fromhex(word[len("reset:"):])
        except ValueError:
            target = b""
        if len(target) != radio.ID_BYTES:
            raise CommandError("%s: reset:ID, ID a badge's radio id (12 hex digits, as "
                               "the table's \"id\")" % word, EXIT_BAD_INPUT)
        return radio.RESET, target
    if word.startswith("masse:"):
        from cran.core.vocab import KEYWORDS
        keyword = word[len("masse:"):]
        if keyword not in KEYWORDS:
            raise CommandError("masse:%s: not a keyword (%s)" % (keyword, ", ".join(KEYWORDS)),
                               EXIT_BAD_INPUT)
        return radio.MASS, keyword.encode()
    if word not in COMMANDS:
        raise CommandError("%s: not a command (stop, reprise, nuit, clock, masse:KEYWORD, "
                           "reset:ID)" % word, EXIT_BAD_INPUT)
    kind, payload = COMMANDS[word]
    return kind, payload() if payload else b""


class Field:
    """The station on its air, its clock in ms (monotonic), stepped by step()."""

    def __init__(self, args):
        from host_tools.roster import RosterError, read_game_key, read_radio_secret
        try:
            key = read_game_key(args.settings)
            secret = read_radio_secret(args.settings)
        except RosterError as e:
            raise CommandError("\n".join(e.messages), EXIT_BAD_INPUT) from None
        if key is None or secret is None:
            raise CommandError("%s: a game with the radio has a \"game_key\", \"radio\": "
                               "true and a \"radio_secret\" (cran config --settings-template)"
                               % args.settings, EXIT_BAD_INPUT)
        self.names = _names(args.roster)
        if not 0 <= args.loss < 1:
            raise CommandError("--loss: from 0 to 1 (excluded), got %s" % args.loss,
                               EXIT_BAD_INPUT)
        self.hub = fieldnet.Hub(args.virtual, args.loss)
        # Its counter and chain kept per game, so a restarted station gives no token twice.
        saved = os.path.join(gamekey.cran_home(), "station-%s.json" % gamekey.key_id(key))
        self.station = Station(key, seed_of(secret, GM_NAME), radio_id(GM_NAME),
                               self.hub.radio(), saved)
        self.start = time.monotonic()
        self.lock = threading.Lock()   # the screen's thread and the stepping one

    def now(self):
        return int((time.monotonic() - self.start) * 1000)

    def step(self):
        with self.lock:
            self.station.tick(self.now())

    def send(self, word):
        kind, payload = _command(word)
        with self.lock:
            self.station.command(kind, payload, self.now())

    def rows(self):
        with self.lock:
            rows = self.station.rows(self.now())
        for row in rows:
            row["name"] = self.names.get(row["id"], row["id"])
        return rows

    def close(self):
        self.hub.close()


def run(args):
    if args.command and not args.json:
        raise CommandError("--command goes with --json (on the screen, keys send them)",
                           EXIT_BAD_INPUT)
    for word in args.command:
        _command(word)   # checked before anything starts
    # SIGTERM, and its terminal closed (SIGHUP), end it as Ctrl-C does: the field's
    # port file goes with the station.
    signal.signal(signal.SIGTERM, _terminated)
    if hasattr(signal, "SIGHUP"):
        signal.signal(signal.SIGHUP, _terminated)
    field = Field(args)
    try:
        if args.json:
            return _json(field, args)
        from host_tools.field_tui import FieldApp
        FieldApp(field).run()
        return 0
    finally:
        field.close()


def _terminated(signum, frame):
    raise KeyboardInterrupt


def _commands_from(stream, field):
    """Each line of stream a command, sent at once; a wrong one answered on stdout."""
    for line in stream:
        word = line.strip()
        if not word:
            continue
        try:
            field.send(word)
            print(json.dumps({"sent": word}), flush=True)
        except CommandError as e:
            print(json.dumps({"error": str(e)}), flush=True)


def _json(field, args):
    for word in args.command:
        field.send(word)
    threading.Thread(target=_commands_from, args=(sys.stdin, field), daemon=True).start()
    end = None if args.seconds is None else time.monotonic() + args.seconds
    next_print = time.monotonic() + 1
    try:
        while end is None or time.monotonic() < end:
            field.step()
            if time.monotonic() >= next_print:
                next_print += 1
                print(json.dumps({"t_ms": field.now(), "badges": field.rows(),
                                  "dropped": field.station.listener.dropped}), flush=True)
            time.sleep(TICK_S)
    except KeyboardInterrupt:
        pass
    print(json.dumps({"t_ms": field.now(), "badges": field.rows(),
                      "dropped": field.station.listener.dropped}), flush=True)
    return 0

