# The game master's station at work, shared by `cran field`'s screen (field_tui) and its
# --json lines: its radio (a station badge on USB, or a virtual field's air), its
# journal, the commands it makes with the game master's chain, the badges it heard.
import json
import os
import signal
import threading
import time

from cran import radio
from cran.radio.link import HEARTBEAT_MS
from host_tools import CommandError
from host_tools.field import fieldlog, fieldnet
from host_tools.field.station import Station
from host_tools.game import gamekey
from host_tools.game.chains import GM_NAME, radio_id, seed_of, treater_anchors
from host_tools.home import cran_home

EXIT_BAD_INPUT = 2
REFRESH_S = 0.5
TICK_S = 0.002
# Who is there, asked again this often while a badge of the roster is unheard, within a
# badge's first heartbeat period: one that missed the first ask (its window lost on a
# busy radio or a busy laptop) is in the table within seconds, not at its next minute;
# one switched off costs the air nothing after that minute.
ASK_AGAIN_MS = 10000
# What a command word sends: (kind, payload maker)
COMMANDS = {
    "stop": (radio.STOP, None),
    "reprise": (radio.RESUME, None),
    "nuit": (radio.NIGHT, None),
    "clock": (radio.CLOCK, None),   # its time is every command's (Station.command)
}


def names_of(roster_path, secret):
    """The roster's badges -> ({radio id hex: name}, {radio id: [role, 0, anchor]} of its
    healers and smiths): the station then opens their genuine soins and repairs, which
    it does not act on, instead of counting them refused as forged ones are."""
    if roster_path is None:
        return {}, {}
    from host_tools.game.roster import RosterError, badge_configs
    try:
        configs = badge_configs(roster_path, defaults=True)   # its names and roles
    except RosterError as e:
        raise CommandError("\n".join(e.messages), EXIT_BAD_INPUT) from None
    rows = [(info["name"], info["role"]) for info, _ in configs.values()]
    return ({radio_id(name).hex(): name for name, _ in rows},
            {who: [radio.ROLES.index(role), 0, anchor]
             for who, (role, anchor) in treater_anchors(secret, rows).items()})


# What a reset frame has room for after the badge's id: the new character's JSON.
CHARACTER_BYTES = radio.MAX_PAYLOAD - radio._PROOF_BYTES - radio.ID_BYTES


def command(word):
    """A command word -> (kind, payload); CommandError naming what is known."""
    if word.startswith("reset:"):   # one badge, by its radio id (12 hex digits)
        badge_id, _, fields = word[len("reset:"):].partition(" ")
        try:
            target = bytes.fromhex(badge_id)
        except ValueError:
            target = b""
        if len(target) != radio.ID_BYTES:
            raise CommandError("%s: reset:ID, ID a badge's radio id (12 hex digits, as "
                               "the table's \"id\")" % word, EXIT_BAD_INPUT)
        return radio.RESET, target + new_character(word, fields)
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


def new_character(word, fields):
    """A reset's new character, in a scenario's `character` line words ("armor=metal
    helmet=oui name=Aude"; none: the badge's own, fresh) -> its JSON for the frame, only
    the fields given. CommandError naming each wrong field."""
    from cran.core.choices import as_dict
    fields = fields.strip()
    if not fields:
        return b""
    from cran.core.rules import Character
    from cran.core.vocab import ParseError
    from gamefiles.scenario import parse_character
    from host_tools.game.suggest import did_you_mean
    try:
        character = parse_character(fields)
    except ParseError as e:
        each = getattr(e, "each", [e])
        raise CommandError("%s: %s" % (word, "; ".join("%s%s" % (f, did_you_mean(f))
                                                       for f in each)),
                           EXIT_BAD_INPUT) from None
    fresh = as_dict(Character())
    given = dict((k, v) for k, v in as_dict(character).items() if v != fresh[k])
    data = json.dumps(given, separators=(",", ":")).encode()
    if len(data) > CHARACTER_BYTES:
        raise CommandError("%s: the character takes %d bytes, a radio frame has room for "
                           "%d: a shorter name" % (word.partition(" ")[0], len(data),
                                                   CHARACTER_BYTES),
                           EXIT_BAD_INPUT)
    return data


class Field:
    """The station on its air, its clock in ms (monotonic), stepped by step()."""

    def __init__(self, args):
        from host_tools.game.roster import RosterError, read_game_key, read_radio_secret
        try:
            key = read_game_key(args.settings)
            secret = read_radio_secret(args.settings)
        except RosterError as e:
            raise CommandError("\n".join(e.messages), EXIT_BAD_INPUT) from None
        if key is None or secret is None:
            raise CommandError("%s: a game with the radio has a \"game_key\", \"radio\": "
                               "true and a \"radio_secret\" (cran config --settings-template)"
                               % args.settings, EXIT_BAD_INPUT)
        self.names, treaters = names_of(args.roster, secret)
        loss = 0.0 if args.loss is None else args.loss
        if args.port and args.loss is not None:
            raise CommandError("--loss is the virtual air's: a real field loses what it "
                               "loses", EXIT_BAD_INPUT)
        if not 0 <= loss < 1:
            raise CommandError("--loss: from 0 to 1 (excluded), got %s" % loss,
                               EXIT_BAD_INPUT)
        self.hub = self.usb = None
        if args.port:
            from host_tools.field.usbstation import open_station
            air = self.usb = open_station(args.port)
        else:
            self.hub = fieldnet.Hub(args.virtual, loss)
            air = self.hub.radio()
        path = args.journal or fieldlog.default_path()
        self.start = time.monotonic()
        try:
            self.journal = fieldlog.FieldJournal(
                path, self.names, "usb %s" % args.port if args.port
                else "virtual %s" % args.virtual, gamekey.key_id(key), self.now)
        except OSError as e:
            self.journal = None
            self.close()   # the station's line, the field's air: let go
            raise CommandError("--journal %s: cannot write it: %s" % (path, e.strerror),
                               EXIT_BAD_INPUT) from None
        if self.usb is not None:
            self.usb.on_note = self.journal.error
        # Its counter and chain kept per game, so a restarted station gives no token twice.
        saved = os.path.join(cran_home(), "station-%s.json" % gamekey.key_id(key))
        self.station = Station(key, seed_of(secret, GM_NAME), radio_id(GM_NAME), air, saved,
                               treaters)
        self.station.on_heard = self.journal.heard
        self.station.on_doubled = lambda who: self.journal.error(twice_text(
            self.names.get(who.hex(), who.hex())))
        self.station.ask_all(self.now())   # who is there: the table fills at once
        self.asked_at = self.now()
        self.lock = threading.Lock()   # the screen's thread and the stepping one

    def now(self):
        return int((time.monotonic() - self.start) * 1000)

    def step(self):
        with self.lock:
            now = self.now()
            self.station.tick(now)
            repeating = self.station.repeating_until   # a command's copies: not cut short
            if (now - self.asked_at >= ASK_AGAIN_MS and now < HEARTBEAT_MS
                    and (repeating is None or now >= repeating)):
                # Who is unheard, looked at once in ASK_AGAIN_MS, not at every step.
                self.asked_at = now
                if set(self.names) - {badge.hex() for badge in self.station.badges}:
                    self.station.ask_all(now)

    def send(self, word):
        kind, payload = command(word)
        lost = self.usb is not None and self.usb.lost_line
        if lost:   # nothing would go out: no token spent for it, and said
            raise CommandError("%s: not sent: %s" % (word, lost), 1)
        with self.lock:
            self.station.command(kind, payload, self.now())
            self.journal.sent(self._said(kind, payload, word))
            if kind == radio.RESET and len(payload) > radio.ID_BYTES:
                # A new character with a name: its row says it from now on.
                name = json.loads(payload[radio.ID_BYTES:]).get("name")
                if name:
                    self.names[payload[:radio.ID_BYTES].hex()] = name

    def _said(self, kind, payload, word):
        """A command as the journal says it: in the scenario format's words, a reset
        naming whom."""
        if kind == radio.RESET:
            target = payload[:radio.ID_BYTES].hex()
            fields = word.partition(" ")[2].strip()
            return "reset %s%s" % (self.names.get(target, target),
                                   " as: " + fields if fields else "")
        if kind == radio.MASS:
            return "effet %s de masse" % payload.decode()
        return word

    def rows(self):
        with self.lock:
            rows = self.station.rows(self.now())
        for row in rows:
            row["name"] = self.names.get(row["id"], row["id"])
        return rows

    def twice(self):
        """The names two badges (or more) answer to, each with what to do."""
        with self.lock:
            ids = self.station.twice()
        return [twice_text(self.names.get(who.hex(), who.hex())) for who in ids]

    def radio(self):
        """What its radio is and how it fares: a dict, for the screen and --json."""
        if self.usb is not None:
            return {"port": self.usb.port, "station": self.usb.status.get("id"),
                    "refused": self.usb.refused, "garbled": self.usb.garbled,
                    "notes": list(self.usb.notes), "lost": self.usb.lost_line,
                    "journal": self.journal.path}
        return {"virtual": self.hub.name, "members": self.hub.members() - 1,
                "journal": self.journal.path}

    def close(self):
        if self.usb is not None:
            self.usb.close()
        if self.hub is not None:
            self.hub.close()
        if self.journal is not None:
            self.journal.close()


def twice_text(name):
    """What the station says of two badges answering as one: what it is, what to do."""
    return ("TWO BADGES answer as %s (one radio id, two counters: the station sees only "
            "one of them): two badges flashed with that character, or a cran sim or cran "
            "air playing it too. Give each badge a row of its own (cran flash --roster "
            "ROSTER --port P --as NAME) or stop the other one" % name)


def end_on_signals():
    """SIGTERM, and its terminal closed (SIGHUP), end it as Ctrl-C does: a virtual
    field's port file goes with the air (cran air too), the station's line is closed."""
    signal.signal(signal.SIGTERM, _terminated)
    if hasattr(signal, "SIGHUP"):
        signal.signal(signal.SIGHUP, _terminated)


def _terminated(signum, frame):
    raise KeyboardInterrupt
