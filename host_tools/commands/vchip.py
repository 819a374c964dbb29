# `cran vchip`: MicroPython on the virtual ESP32 hardware, for any program, with the
# unix port's own arguments (a file and its arguments, -c CODE, the program on stdin, or
# the REPL on a terminal): a game designer's code on the parts a badge has (--board), its
# radio on a virtual field's air (--field, as `cran vbadge --field` joins one); and, as an
# instance of MicroPython's test harnesses (run-tests.py, run-multitests.py -t
# exec:SCRIPT), an ESP32 their tests run on. The process becomes the MicroPython chip
# (host_tools/virtual/scripts/vchip_boot.py): its output, its exit code and its signals are the
# chip's.
import argparse
import os
import re
import sys

from host_tools import CommandError
from host_tools.boards import board_path, read_board
from host_tools.virtual import SCRIPTS_DIR
from host_tools.virtual.micropython import VHW_DIR
from host_tools.virtual.runtimes import (
    HOW_TO_GET_MICROPYTHON,
    find_micropython,
    find_micropython32,
)

HELP = "MicroPython on the virtual ESP32 hardware: any program, on a board, on a field"
_DESCRIPTION = HELP + (
    ". The interpreter is a 32-bit MicroPython (an ESP32's object sizes, ticks wrapping "
    "at 2**30): $CRAN_MICROPYTHON32, else ../shared/tools/micropython32 beside the "
    "repository; without one (a clone elsewhere), the 64-bit `micropython`: objects "
    "bigger than a chip's, in the same heap. Floats are double on both, an ESP32's "
    "single. See docs/vchip.md.")
_BOOT_SCRIPT = os.path.join(SCRIPTS_DIR, "vchip_boot.py")
# An ESP32 without PSRAM gives MicroPython 111,936 bytes of heap (v1.22+), the program's
# unless -X heapsize says another.
_ESP32_HEAP = 111936
# Room for the virtual parts (machine, esp32, network, espnow... compiled into the
# interpreter's heap) beside the program's: what they don't take is held out of its reach.
_PARTS_HEAP = {32: 320 << 10, 64: 640 << 10}


def setup(p):
    p.description = _DESCRIPTION
    p.add_argument("--board", default="atom-lite",
                   help="the chip's pins and parts (boards/BOARD.json; default atom-lite)")
    p.add_argument("--field", metavar="NAME",
                   help="its radio on the virtual field NAME's air (cran air --field NAME, "
                        "or cran field --virtual NAME)")
    p.add_argument("--at", metavar="X,Y",
                   help="with --field: where it stands, in metres (default: a random spot)")
    p.add_argument("--lib", metavar="DIR", default="/lib",
                   help="a host folder where the chip has /lib (its installed packages)")
    p.add_argument("-X", dest="options", action="append", default=[], metavar="OPTION",
                   help="an option of MicroPython's; -X heapsize=N[k|m]: the program's heap "
                        "(default an ESP32's, %d bytes)" % _ESP32_HEAP)
    p.add_argument("-c", dest="code", metavar="CODE", help="the program, as text")
    p.add_argument("program", nargs=argparse.REMAINDER, metavar="FILE [ARG ...]",
                   help="the program's file and its arguments (none, nor -c: from stdin, "
                        "or the REPL on a terminal)")


def _heap_bytes(text, word_bytes):
    """-X heapsize's value as MicroPython reads it (N, Nk, Nm; a w after N: words)."""
    m = re.fullmatch(r"(\d+)(w?)([kKmM]?)", text)
    if m is None:
        raise CommandError("-X heapsize=%s: a number of bytes, with k or m after it" % text)
    n = int(m.group(1)) * (word_bytes if m.group(2) else 1)
    return n << {"": 0, "k": 10, "K": 10, "m": 20, "M": 20}[m.group(3)]


def _interpreter():
    """(the MicroPython to run, its word size in bits): the 32-bit one where there is one."""
    exe = find_micropython32()
    if exe is not None:
        if not os.path.exists(exe):
            raise CommandError("%s: no such MicroPython ($CRAN_MICROPYTHON32)" % exe)
        return exe, 32
    exe = find_micropython()
    if exe is None:
        raise CommandError(HOW_TO_GET_MICROPYTHON)
    return exe, 64


def run(args):
    board = read_board(args.board)   # unknown or broken: said before the chip starts
    if board.runtime != "micropython":
        raise CommandError("--board %s runs CircuitPython, which has no ESP-NOW nor "
                           "esp32 module: cran vchip is MicroPython's ESP32" % args.board)
    if args.at is not None and args.field is None:
        raise CommandError("--at goes with --field: a place on a virtual field")
    if args.code is not None and args.program:
        raise CommandError("-c CODE or FILE, not both")
    exe, bits = _interpreter()
    program_heap = _ESP32_HEAP
    options = []
    for option in args.options:
        if option.startswith("heapsize="):
            program_heap = _heap_bytes(option[len("heapsize="):], bits // 8)
        else:
            options += ["-X", option]
    heap = program_heap + _PARTS_HEAP[bits]
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
    elif sys.stdin.isatty():
        program = ["repl"]
        options.append("-i")
    else:
        program = ["stdin"]
    argv = [exe, "-X", "heapsize=%d" % heap] + options
    argv += [_BOOT_SCRIPT, board_path(board.id), VHW_DIR,
             "%d/%d" % (program_heap, heap), os.path.abspath(args.lib) if args.lib != "/lib"
             else "/lib"] + program
    os.execve(exe, argv, env)
