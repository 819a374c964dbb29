# `cran status --port P`: the badge's live state, asked of its running firmware. With
# several ports (or --all), one line a badge: the whole game at a glance.
import json
import sys

from host_tools import CommandError
from host_tools.device import badgeport, status

HELP = "print badges' live state (their console's `status`)"


def setup(p):
    p.add_argument("--port", action="append", default=[], metavar="PORT",
                   help="a badge's serial port (repeat it: one line a badge)")
    p.add_argument("--all", action="store_true",
                   help="every USB serial port attached, and every cran vbadge running here")
    p.add_argument("--json", action="store_true",
                   help="the status line as the badge sent it (several: one JSON object "
                        "a line, with its \"port\")")


def run(args):
    ports = list(dict.fromkeys(args.port + (badgeport.every_port() if args.all else [])))
    if not ports and args.all:
        raise badgeport.BadgeError(badgeport.NONE_FOUND)
    if not ports:
        raise CommandError("which badge? give --port PORT (repeat it) or --all")
    if len(ports) == 1 and not args.all:
        return status.one(ports[0], badgeport.status(ports[0]), args.json)
    answers = status.ask_all(ports)
    if args.json:
        for port, s in zip(ports, answers):
            print(json.dumps(dict(s, port=port), sort_keys=True))
        twice = status.doubles(ports, answers)
        for _, said in twice:   # beside the JSON lines, for the person running it
            print(said, file=sys.stderr)
    else:
        twice = not status.table(ports, answers)
    return 1 if twice or any("error" in s or s.get("save_error") for s in answers) else 0
