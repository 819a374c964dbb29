# `cran sim`: the badge on your desktop. In a terminal, the real firmware app runs on
# virtual hardware and is drawn live (host_tools/sim/tui.py): LEDs, screen, buzzer,
# buttons, a clock you control. Without a terminal (CI, a pipe) or with --headless, it
# plays a scenario through the whole badge app and prints its timeline.
import os
import sys

from host_tools import CommandError
from host_tools.boards import read_board
from host_tools.game import scenarios
from host_tools.sim.start import DEFAULT_BOARD, DEMO_SCENARIO, prepare
from host_tools.virtual.runtimes import RUNTIMES, find_micropython, runtime_for

HELP = "the badge on your desktop: the real firmware app, live in the terminal"


def setup(p):
    p.add_argument("--board", default=None,
                   help="board to simulate (boards/BOARD.json; default: the --character "
                        "config's board, else atom-lite; headless, 'none': the bare engine)")
    p.add_argument("--character", metavar="FILE",
                   help="who wears it: a badge config (`cran config`), a character object "
                        "(JSON) or a scenario file (its character line)")
    p.add_argument("--script", metavar="FILE",
                   help="a scenario to replay on the badge as the clock runs, its expect "
                        "lines checked as they pass (headless default: the rulebook's "
                        "example fight)")
    p.add_argument("--runtime", choices=RUNTIMES, default=None,
                   help="where the firmware runs (default: a CircuitPython board's on "
                        "circuitpython, the others' on micropython where it is installed, "
                        "else cpython)")
    p.add_argument("--paused", action="store_true", help="start with the clock stopped")
    p.add_argument("--bell", action="store_true",
                   help="ring the terminal bell when the buzzer plays (key t)")
    p.add_argument("--field", metavar="NAME",
                   help="join the virtual field NAME (cran field --virtual NAME, or cran "
                        "air --field NAME) in real time: the --character is a badge of the "
                        "game, from `cran config ROSTER --settings GAME.json`")
    p.add_argument("--at", metavar="X,Y",
                   help="with --field: where the badge stands, in metres (default: a "
                        "random spot on a 30 m square)")
    p.add_argument("--settings", metavar="GAME.json",
                   help="with --field: the game's settings, whose key the badge gets "
                        "(default: the game.key beside --character, as cran flash)")
    p.add_argument("--headless", action="store_true",
                   help="no terminal UI: play the script and print its timeline (the "
                        "default when stdout or stdin is not a terminal)")


def run(args):
    runtime = args.runtime or ("micropython" if find_micropython() else "cpython")
    headless = args.headless or not (sys.stdout.isatty() and sys.stdin.isatty())
    if args.field is None:
        for given, name in ((args.at, "--at"), (args.settings, "--settings")):
            if given is not None:
                raise CommandError("%s goes with --field: a badge on a virtual field" % name)
    elif headless:
        raise CommandError("--field needs the terminal UI: a badge on a field lives in real "
                           "time (for a whole field without a terminal: cran air --field)")
    elif args.paused:
        raise CommandError("--paused: on a field the clock is real time, it cannot stop")
    if headless:
        return _headless(args, runtime)
    if not (args.character or args.script):
        # Someone to wear it: the rulebook's example fight's knight, in metal armour, so
        # that a first look shows the armour answer (`: character ...` changes him).
        args.character = DEMO_SCENARIO
    return _live(args, runtime)


def _headless(args, runtime):
    if args.character:
        raise CommandError("--character needs the terminal UI; headless, the script's own "
                           "character line is played")
    board = args.board or DEFAULT_BOARD
    board = None if board == "none" else board
    if board is not None:
        board = read_board(board)
        runtime = runtime_for(board, args.runtime, runtime)
    script = args.script or DEMO_SCENARIO
    title = ("the rulebook's example fight" if script == DEMO_SCENARIO
             else os.path.basename(script))
    print("cran: %s, as a %s badge lives it (%s)\n" % (
        title, board.id if board else "bare-engine", runtime))
    return scenarios.run_file(script, runtime, False, 0, verbose=True, badge=board)


def _live(args, runtime):
    from host_tools.sim.tui import SimApp
    driver, script, key = prepare(runtime, args.board, args.script, args.character,
                                  args.runtime, args.field, args.at, args.settings)
    try:
        app = SimApp(driver, script, paused=args.paused, bell=args.bell, watch_terminal=True,
                     field=args.field, game_key=key)
        app.run()
    finally:
        driver.close()
    return _outcome(app.session)


def _outcome(session):
    """The exit code of a live run that has ended: 3 when the badge process died (said
    on stderr), 1 when a replayed script's expect failed, else 0."""
    if session.dead:
        print("cran: %s" % session.dead, file=sys.stderr)
        return 3
    return 1 if session.script is not None and session.script.failed else 0
