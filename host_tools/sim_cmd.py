# `cran sim`: for now the whole badge app on virtual hardware plays a fight, and its
# timeline is shown, cue by cue.
import os

from host_tools import scenario_cmd
from host_tools.runtimes import find_micropython

REPO_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEMO_SCENARIO = os.path.join(REPO_DIR, "examples", "scenarios", "exemple-godefroy.txt")
HELP = "play a fight on a simulated badge"


def setup(p):
    p.add_argument("--script", default=DEMO_SCENARIO,
                   help="scenario to play (default: the rulebook's example fight)")
    p.add_argument("--board", default="atom-lite",
                   help="board to simulate (default: atom-lite; 'none': the bare engine)")
    p.add_argument("--runtime", choices=("cpython", "micropython"), default=None,
                   help="default: micropython where it is installed, else cpython")


def run(args):
    runtime = args.runtime or ("micropython" if find_micropython() else "cpython")
    board = None if args.board == "none" else args.board
    print("cran: the rulebook's example fight, as a %s badge lives it (%s)\n"
          % (board or "bare-engine", runtime))
    return scenario_cmd.run_file(args.script, runtime, False, 0, verbose=True, badge=board)
