# The `cran` command: a table of subcommands, each do_x(args) with its own parser
# setup, and one CommandError that becomes an exit code (the shape of mpremote).
import argparse
import os
import sys

from host_tools import CommandError, scenario_cmd
from host_tools.runtimes import find_micropython

REPO_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEMO_SCENARIO = os.path.join(REPO_DIR, "examples", "scenarios", "exemple-godefroy.txt")


def argparse_scenario(p):
    p.add_argument("file", help="scenario file (../shared/SCENARIOS.md)")
    p.add_argument("--runtime", choices=("cpython", "micropython"), default=None,
                   help="where it runs (default: cpython; micropython with --badge)")
    p.add_argument("--badge", metavar="BOARD",
                   help="run it through the whole badge app (console, engine, cues, "
                        "storage) on virtual hardware of this board (boards/BOARD.json)")
    p.add_argument("--reboot-every", type=int, default=0, metavar="N",
                   help="with --badge: restart the badge from flash after every N steps")
    p.add_argument("--json", action="store_true",
                   help="one JSON object a line for each action and state change")
    p.add_argument("--start-tick", type=int, default=0, metavar="MS",
                   help="badge tick count at the scenario's 0:00 (tests wraparound)")


def do_scenario(args):
    runtime = args.runtime or ("micropython" if args.badge else "cpython")
    return scenario_cmd.run_file(args.file, runtime, args.json, args.start_tick,
                                 badge=args.badge, reboot_every=args.reboot_every)


def argparse_sim(p):
    p.add_argument("--script", default=DEMO_SCENARIO,
                   help="scenario to play (default: the rulebook's example fight)")
    p.add_argument("--board", default="atom-lite",
                   help="board to simulate (default: atom-lite; 'none': the bare engine)")
    p.add_argument("--runtime", choices=("cpython", "micropython"), default=None,
                   help="default: micropython where it is installed, else cpython")


def do_sim(args):
    # Until the desktop UI exists: the whole badge app on virtual hardware plays a fight,
    # and its timeline is shown, cue by cue.
    runtime = args.runtime or ("micropython" if find_micropython() else "cpython")
    board = None if args.board == "none" else args.board
    print("cran: the rulebook's example fight, as a %s badge lives it (%s)\n"
          % (board or "bare-engine", runtime))
    return scenario_cmd.run_file(args.script, runtime, False, 0, verbose=True, badge=board)


COMMANDS = {
    "scenario": (do_scenario, argparse_scenario,
                 "run a scenario file and check its expect lines"),
    "sim": (do_sim, argparse_sim, "play a fight on a simulated badge"),
}


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="cran", description="Tools for the cran GN effect badge.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for name, (handler, setup, helptext) in COMMANDS.items():
        p = sub.add_parser(name, help=helptext, description=helptext)
        setup(p)
        p.set_defaults(handler=handler)
    args = parser.parse_args(argv)
    try:
        return args.handler(args)
    except CommandError as e:
        print(("cran: %s" if e.prefixed else "%s") % e, file=sys.stderr)
        return e.code
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # The reader (e.g. `| head`) has gone: not an error of ours.
        sys.stderr.close()
        return 0
