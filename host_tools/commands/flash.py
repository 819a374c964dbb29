# `cran flash`: the firmware, a board file and a config onto badges, found by their
# ports or a roster's rows (host_tools/device/jobs.py matches them, flash.py flashes
# them, drive.py a CircuitPython badge's drive).
import sys
import tempfile
import time

from cran.lock import key_id
from host_tools import CommandError
from host_tools.device import flash, jobs
from host_tools.game import gamekey
from host_tools.game.roster import game_key_of

HELP = "flash the firmware, board and character config onto badges (mpremote, mpy-cross)"


def setup(p):
    p.add_argument("--port", action="append", default=[], metavar="PORT",
                   help="the badge's serial port (repeat for several, flashed in parallel)")
    p.add_argument("--all", action="store_true",
                   help="every USB serial port attached, and every cran vbadge running "
                        "here")
    p.add_argument("--board", help="board id (boards/ID.json); default: the config's")
    p.add_argument("--config", metavar="FILE",
                   help="the badge's config.json (as `cran config` writes them)")
    p.add_argument("--roster", metavar="CSV",
                   help="the game's roster (`cran config`): each badge gets the row with "
                        "its port, or else the row whose badge column names it (its config's "
                        "badge name, or its chip id); without --port/--all, the ports it names")
    p.add_argument("--defaults", action="store_true",
                   help="with --roster: a roster without an armor column is meant (every "
                        "character plays unarmoured), as cran config --defaults")
    p.add_argument("--as", dest="as_badge", metavar="BADGE",
                   help="with --roster and one port: this badge gets the row whose badge "
                        "column is BADGE, whatever it was (a new badge from the box gets "
                        "the next free row by itself)")
    p.add_argument("--settings", metavar="GAME.json",
                   help="the game's settings: with --roster, every badge's; always, the "
                        "game key badges get (its \"game_key\")")
    p.add_argument("--micropython", metavar="IMAGE.bin",
                   help="first install MicroPython itself from this image, with esptool")
    p.add_argument("--station", action="store_true",
                   help="make the badge on --port the game master's station, the radio of "
                        "`cran field --port`: a relay with no character and no key (a "
                        "station flashed again stays one)")
    p.add_argument("--drive", metavar="PATH",
                   help="a CircuitPython badge: its CIRCUITPY drive, mounted (with --board "
                        "or --config)")


def _station_jobs(args):
    """--station: each --port a station; what a station does not take, refused."""
    given = [name for name, value in (("--roster", args.roster), ("--config", args.config),
                                      ("--board", args.board), ("--as", args.as_badge),
                                      ("--all", args.all),
                                      ("--micropython", args.micropython)) if value]
    if given:
        raise CommandError("--station takes no %s: a station is a relay with no board, "
                           "character or key, made by its --port alone (MicroPython first: "
                           "--micropython IMAGE.bin --board ID --port P, then --station)"
                           % given[0])
    if not args.port:
        raise CommandError("--station: which badge? give its --port")
    return {port: None for port in jobs.ports(args.port)}


def run(args):
    if args.drive:
        return _drive(args)
    if args.station:
        todo, find, roster = _station_jobs(args), None, None
    else:
        todo, find, roster = jobs.jobs(args.port, args.all, args.roster, args.settings,
                                       args.defaults, args.as_badge, args.config, args.board)
    # Once, before the badges' threads (and after the roster is checked: a computer's
    # first flash makes its own key).
    key = game_key_of(args.settings, args.config) or gamekey.own_key()
    if roster is not None:   # what it gave out before is this game's, whatever the file
        roster.game = key_id(key)
    if args.micropython:
        for port, job in todo.items():
            if job is None:
                raise CommandError("%s: --micropython needs to know its board: give "
                                   "--board ID (with --roster: its row a port)" % port)
            flash.install_micropython(port, args.micropython, job[0])
            print("%s: MicroPython installed from %s" % (port, args.micropython))
        time.sleep(2)   # the badge boots MicroPython, then formats its flash
    failures = []
    with tempfile.TemporaryDirectory(prefix="cran-build-") as out:
        builds = flash.Builds(out)
        new = []
        interrupted, reports = None, []
        try:
            reports += flash.flash_all(todo, find, builds, failures, key, new, args.station)
            if new:
                reports += flash.flash_new(new, roster, builds, failures, key)
        except flash.Interrupted as e:
            interrupted = e
            reports += e.reports
    if roster is not None:
        roster.remember([r.status for r in reports])
    flash.say_reports(reports)
    for message in (interrupted.lines() if interrupted else []) + failures:
        print("cran: %s" % message, file=sys.stderr)
    if interrupted:
        return 130   # as a shell says of a command Ctrl-C ended
    return 1 if failures else 0


def _drive(args):
    """--drive PATH: the one CircuitPython badge whose drive it is."""
    from host_tools.device import drive
    key = game_key_of(args.settings, args.config) or gamekey.own_key()
    if args.port or args.all or args.roster or args.micropython or args.station:
        raise CommandError("--drive flashes the one CircuitPython badge whose drive it is: "
                           "no --port, --all, --roster, --micropython or --station with it")
    board, config_text = jobs.config(args.config, args.board)
    return drive.update(args.drive, board, config_text, key)
