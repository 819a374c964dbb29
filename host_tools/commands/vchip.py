# `cran vchip`: MicroPython on the virtual ESP32 hardware, for any program, with the
# unix port's own arguments (a file and its arguments, -c CODE, or the program on
# stdin): a game designer's code on the parts a badge has (--board), its radio on a
# virtual field's air (--field, as `cran vbadge --field` joins one); and, as an
# instance of MicroPython's multitest harness (run-multitests.py -t exec:SCRIPT), one
# of the ESP32s its tests want. The process becomes the MicroPython chip
# (host_tools/mp/vchip_boot.py): its output, its exit code and its signals are the
# chip's.
import argparse
import os

from host_tools import MP_DIR, CommandError
from host_tools.vhw import VHW_DIR
from host_tools.virtual.runtimes import (
    BOARDS_DIR,
    HOW_TO_GET_MICROPYTHON,
    board_runtime,
    check_board,
    find_micropython,
)

HELP = "MicroPython on the virtual ESP32 hardware: any program, on a board, on a field"
_BOOT_SCRIPT = os.path.join(MP_DIR, "vchip_boot.py")


def setup(p):
    p.add_argument("--board", default="atom-lite",
                   help="the chip's pins and parts (boards/BOARD.json; default atom-lite)")
    p.add_argument("--field", metavar="NAME",
                   help="its radio on the virtual field NAME's air (cran air --field NAME, "
                        "or cran field --virtual NAME)")
    p.add_argument("--at", metavar="X,Y",
                   help="with --field: where it stands, in metres (default: a random spot)")
    p.add_argument("-X", dest="options", action="append", default=[], metavar="OPTION",
                   help="an option of MicroPython's (-X heapsize=112k: an ESP32's heap)")
    p.add_argument("-c", dest="code", metavar="CODE", help="the program, as text")
    p.add_argument("program", nargs=argparse.REMAINDER, metavar="FILE [ARG ...]",
                   help="the program's file and its arguments (none, nor -c: from stdin)")


def run(args):
    check_board(args.board)
    if board_runtime(args.board) != "micropython":
        raise CommandError("--board %s runs CircuitPython, which has no ESP-NOW nor "
                           "esp32 module: cran vchip is MicroPython's ESP32" % args.board)
    if args.at is not None and args.field is None:
        raise CommandError("--at goes with --field: a place on a virtual field")
    if args.code is not None and args.program:
        raise CommandError("-c CODE or FILE, not both")
    exe = find_micropython()
    if exe is None:
        raise CommandError(HOW_TO_GET_MICROPYTHON)
    env = dict(os.environ)
    env.pop("MICROPYPATH", None)   # the chip's path is its own (vchip_boot.py sets it)
    if args.field is not None:
        from host_tools.field import fieldnet
        env.update(fieldnet.member_env(args.field, args.at))
    if args.program:
        path = args.program[0]
        if not os.path.isfile(path):
            raise CommandError("%s: no such file" % path)
        program = ["file", path] + args.program[1:]
    elif args.code is not None:
        program = ["code"]
        env["CRAN_VCHIP_CODE"] = args.code   # (vchip_boot.py says why not an argument)
    else:
        program = ["stdin"]
    argv = [exe] + ["-X" + o if o.startswith("-") else o
                    for x in args.options for o in ("-X", x)]
    argv += [_BOOT_SCRIPT, os.path.join(BOARDS_DIR, args.board + ".json"), VHW_DIR] + program
    os.execve(exe, argv, env)
