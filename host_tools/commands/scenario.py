# `cran scenario FILE`: parse (exit 2 on a malformed file, nothing run), replay on the
# chosen runtime, check every expect (exit 1 if one failed), print a timeline or JSON.
from host_tools import CommandError
from host_tools.boards import read_board
from host_tools.game.scenarios import run_file
from host_tools.virtual.runtimes import RUNTIMES, runtime_for

HELP = "run a scenario file and check its expect lines"


def setup(p):
    p.add_argument("file", help="scenario file (docs/scenarios.md)")
    p.add_argument("--runtime", choices=RUNTIMES, default=None,
                   help="where it runs (default: cpython; micropython with --badge)")
    p.add_argument("--badge", metavar="BOARD",
                   help="run it through the whole badge app (console, engine, cues, "
                        "storage) on virtual hardware of this board (boards/BOARD.json)")
    p.add_argument("--reboot-every", type=int, default=0, metavar="N",
                   help="with --badge: restart the badge from flash after every N steps")
    p.add_argument("--mpy", action="store_true",
                   help="with --badge: the firmware compiled to .mpy, as cran flash puts it")
    p.add_argument("--romfs", action="store_true",
                   help="with --badge: the .mpy files in a ROMFS image, run in place from "
                        "flash (a MicroPython built with a ROMFS partition): their code "
                        "takes no heap")
    p.add_argument("--heap", type=_heap_kb, metavar="KB",
                   help="with --badge: the badge's own heap in KB (MicroPython's -X "
                        "heapsize, plus what the runner takes, measured)")
    p.add_argument("--json", action="store_true",
                   help="one JSON object a line for each action and state change")
    p.add_argument("--start-tick", type=int, default=0, metavar="MS",
                   help="badge tick count at the scenario's 0:00 (tests wraparound)")


_MAX_HEAP_KB = 4096


def _heap_kb(text):
    """--heap's value: KB, a whole or decimal number from 1 to _MAX_HEAP_KB."""
    import argparse
    try:
        kb = float(text)
    except ValueError:
        kb = None
    if kb is None or not 1 <= kb <= _MAX_HEAP_KB:
        raise argparse.ArgumentTypeError(
            "expected the badge's heap in KB, from 1 to %d (e.g. 64), got '%s'"
            % (_MAX_HEAP_KB, text))
    return int(kb) if kb == int(kb) else kb


def run(args):
    runtime = args.runtime or ("micropython" if args.badge else "cpython")
    board = None
    if args.badge:
        board = read_board(args.badge)
        runtime = runtime_for(board, args.runtime, runtime)
    for flag, given in (("--mpy", args.mpy), ("--romfs", args.romfs),
                        ("--heap", args.heap is not None)):
        if given and not args.badge:
            raise CommandError("%s needs --badge BOARD: it is about the badge's firmware"
                               % flag)
        if given and runtime != "micropython":
            raise CommandError("%s needs --runtime micropython (CPython has no .mpy and "
                               "no heap of its own)" % flag)
    return run_file(args.file, runtime, args.json, args.start_tick,
                    badge=board, reboot_every=args.reboot_every, mpy=args.mpy,
                    heap_kb=args.heap, romfs=args.romfs)
