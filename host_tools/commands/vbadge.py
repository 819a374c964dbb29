# `cran vbadge`: a virtual badge behind a pseudo-terminal, for mpremote and `cran flash`
# (host_tools/virtual/vbadge.py serves it).
import os

from host_tools import CommandError
from host_tools.boards import board_path, read_board
from host_tools.virtual import vbadge
from host_tools.virtual.runtimes import HOW_TO_GET_MICROPYTHON, find_micropython

HELP = "a virtual badge on a pseudo-terminal, for mpremote and `cran flash`"


def setup(p):
    p.add_argument("--image", metavar="FILE",
                   help="the badge's flash (LittleFS image), kept between runs with its "
                        "NVS partition in FILE.nvs; made when missing (default: a "
                        "temporary one, dropped at exit)")
    p.add_argument("--board", default="atom-lite",
                   help="the virtual hardware's wiring (boards/BOARD.json; default "
                        "atom-lite); what the firmware thinks comes from the flashed config. "
                        "A CircuitPython board (atoms3-lite...) runs in CircuitPython")
    p.add_argument("--drive", metavar="DIR",
                   help="a CircuitPython board's CIRCUITPY drive: a folder (made when "
                        "missing; fill it with cran flash --drive DIR), its "
                        "microcontroller.nvm kept in DIR.nvm (default: a temporary one)")
    p.add_argument("--romfs", action="store_true",
                   help="a MicroPython with a ROMFS partition (%d KB, as the ESP32 port's "
                        "ROMFS variant), where cran flash puts the firmware to run it in "
                        "place; kept in FILE.romfs with --image" % (vbadge.ROMFS_BYTES // 1024))
    p.add_argument("--field", metavar="NAME",
                   help="join the virtual field NAME (its station: cran field --virtual "
                        "NAME): the badge's radio hears and is heard there")
    p.add_argument("--at", metavar="X,Y",
                   help="with --field: where the badge stands, in metres (default: a "
                        "random spot on a 30 m square); a healer treats the nearest badge "
                        "within ~3 m")
    p.add_argument("--buttons", action="store_true",
                   help="press its buttons from this terminal, a key a gesture, then "
                        "Enter: a (a short press), A (a long one), d (a double one); b, B, "
                        "D on a second button")
    p.add_argument("--link", metavar="PATH",
                   help="also make PATH a symlink to the port (removed at exit)")
    p.add_argument("--baud", type=int, metavar="RATE",
                   help="the port's bytes reach the chip at this UART rate (115200: a "
                        "badge's pace; default: as fast as they come)")


def run(args):
    board = read_board(args.board)   # unknown or broken: said before the badge starts
    board_file = board_path(board.id)   # the virtual hardware reads it, as a badge does
    if board.runtime == "circuitpython":
        return _run_circuitpython(board_file, args)
    if getattr(args, "drive", None):
        raise CommandError("--drive: board %s runs MicroPython, whose flash is --image FILE"
                           % args.board)
    exe = find_micropython()
    if exe is None:
        raise CommandError(HOW_TO_GET_MICROPYTHON)
    if getattr(args, "field", None):
        from host_tools.field import fieldnet
        os.environ.update(fieldnet.member_env(args.field, args.at))   # the chip's espnow
    elif args.at is not None:
        raise CommandError("--at goes with --field: a place on a virtual field")
    if args.baud is not None and args.baud <= 0:
        raise CommandError("--baud %d: a UART's rate is a positive number of bits a "
                           "second (115200)" % args.baud)
    return vbadge.serve(exe, board_file, args.board, args.image, args.romfs, args.buttons,
                        args.link, args.baud)


def _run_circuitpython(board_file, args):
    for option, given in (("--image", args.image), ("--romfs", args.romfs),
                          ("--field", getattr(args, "field", None)),
                          ("--at", getattr(args, "at", None)),
                          ("--buttons", getattr(args, "buttons", False)),
                          ("--baud", getattr(args, "baud", None))):
        if given:
            raise CommandError("%s: board %s runs CircuitPython: %s" % (
                option, args.board, "its files are a folder, --drive DIR"
                if option == "--image" else "the CircuitPython build has no such thing"))
    return vbadge.serve_circuitpython(board_file, args.board, args.drive, args.link)


