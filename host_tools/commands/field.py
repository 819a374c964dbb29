# `cran field`: the game master's station. Every badge heard (its private state too:
# the heartbeats are for the game master's eyes, S7), the urgent first, and the game
# master's commands to every badge in range, made with the game master's chain (only
# this computer, with the game settings file, can make them). Its radio: a station
# badge on USB (--port, host_tools/field/usbstation.py), or a virtual field's air (--virtual).
import json
import sys
import threading
import time

from host_tools import CommandError
from host_tools.field.gamemaster import EXIT_BAD_INPUT, TICK_S, Field, command, end_on_signals

HELP = "the game master's station: every badge at a glance, stop / resume the game"


def setup(p):
    p.add_argument("--settings", metavar="GAME.json", required=True,
                   help="the game settings file (its game key and radio secret: "
                        "cran config --settings-template, with \"radio\": true)")
    p.add_argument("--roster", metavar="ROSTER.csv",
                   help="the roster, to show each badge by its name")
    radio = p.add_mutually_exclusive_group(required=True)
    radio.add_argument("--port", metavar="PORT",
                       help="the station badge's serial port (`cran flash --port PORT "
                            "--station` makes one): the radio on a real field")
    radio.add_argument("--virtual", metavar="NAME",
                       help="a virtual field of `cran vbadge --field NAME` badges, whose "
                            "air this station holds")
    p.add_argument("--loss", type=float, default=None,
                   help="with --virtual: the virtual air's frame loss, 0 to 1 (default 0)")
    p.add_argument("--json", action="store_true",
                   help="no screen: one JSON line of every badge heard per second; each "
                        "line on stdin is a command (stop, reprise, nuit, clock, "
                        "masse:KEYWORD, reset:ID, reset:ID FIELD=VALUE...: to a new character, "
                        "in a scenario's character line words)")
    p.add_argument("--command", action="append", default=[],
                   metavar="stop|reprise|nuit|clock|masse:KEYWORD|reset:ID [FIELD=VALUE...]",
                   help="send this command first (with --json; may be repeated)")
    p.add_argument("--journal", metavar="FILE",
                   help="the station's journal: what it sent and heard, for `cran logs "
                        "--file` (default: a new file in the cran folder's field/, named "
                        "on the screen)")
    p.add_argument("--for", dest="seconds", type=float, default=None,
                   help="with --json: stop after this many seconds (default: Ctrl-C)")


def run(args):
    if args.command and not args.json:
        raise CommandError("--command goes with --json (on the screen, keys send them)",
                           EXIT_BAD_INPUT)
    for word in args.command:
        command(word)   # checked before anything starts
    end_on_signals()
    field = Field(args)
    try:
        if args.json:
            return _json(field, args)
        from host_tools.field.tui import FieldApp
        FieldApp(field).run()
        return 0
    finally:
        field.close()


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
                _print_table(field)
                if field.radio().get("lost"):
                    raise CommandError(field.radio()["lost"], 1)
            time.sleep(TICK_S)
    except KeyboardInterrupt:
        pass
    _print_table(field)
    return 0


def _print_table(field):
    print(json.dumps({"t_ms": field.now(), "badges": field.rows(),
                      "dropped": field.station.listener.dropped, "radio": field.radio(),
                      "twice": field.twice()}), flush=True)

