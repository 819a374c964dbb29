# `cran check --port P`: the first real badge, in an organiser's hand after `cran flash`.
# It reads the chip, its MicroPython, the heap after the badge's start and the flash
# left, and sets the heap beside what `make bench` measured for that board
# (docs/PERFORMANCE.md's figures: host_tools/device/bench_figures.py), saying how far apart and
# what a big gap means. With --hands it walks the organiser through the parts: each LED
# look's colour on every LED, the screen, the buzzer, each button ("press button a now"),
# and writes a one-line verdict a part. The badge is started as its main.py starts it
# (cran.start: config, board, state, drivers), on its REPL, and reset at the end, so its
# firmware runs again as before. A `cran vbadge` is checked the same way.
import sys

from host_tools import CommandError
from host_tools.device import badgeport, check
from host_tools.device.bench_figures import read_figures

HELP = "check a badge after cran flash: chip, MicroPython, heap and flash beside make " \
       "bench's figures; --hands: its LEDs, screen, buzzer and buttons, with you"


def setup(p):
    p.add_argument("--port", required=True, metavar="PORT", help="the badge's serial port")
    p.add_argument("--hands", action="store_true",
                   help="then check its parts with you: each LED look, the screen, the "
                        "buzzer, each button")
    p.add_argument("--settings", metavar="GAME.json",
                   help="the game's settings, whose \"game_key\" unlocks the badge "
                        "(default: the keys this computer flashed badges with)")


def run(args):
    from host_tools.game.roster import settings_keys
    link = badgeport.connect(args.port, settings_keys(args.settings))
    failed = marked = False
    try:
        facts = check.read(link)
        if facts["python"] != "micropython":
            raise CommandError("%s: a %s badge: cran check reads MicroPython ones (its "
                               "state: cran status --port %s)" % (args.port, facts["python"],
                                                                  args.port))
        # Its journal says the boots the check makes are the check's (not a wearer's).
        check.mark(link, "start")
        marked = True
        started = check.start(link)
        for line in check.describe(args.port, facts, started, read_figures()):
            print(line)
        sys.stdout.flush()
        if "error" in started:
            failed = True
        elif args.hands:
            failed = not check.hands(link, started, _ask_person)
    finally:
        if marked:
            check.mark(link, "reset")
        badgeport.reset(link)   # its firmware runs again, as before the check
    return 1 if failed else 0


def _ask_person(question):
    """A yes/no question to the organiser -> True for yes."""
    while True:
        print(question + " [y/n] ", end="", flush=True)
        answer = sys.stdin.readline()
        if not answer:
            return False   # no one to answer: not seen
        answer = answer.strip().lower()
        if answer in ("y", "yes", "o", "oui"):
            return True
        if answer in ("n", "no", "non"):
            return False
