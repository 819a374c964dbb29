# `cran card`: a player's card for a board, drawn to a PNG or a PDF (host_tools/paper/
# card.py draws it).
import os

from host_tools import CommandError
from host_tools.paper.card import EXIT_BAD_INPUT, build, read_board, write
from host_tools.virtual.runtimes import board_ids

HELP = "draw a player's card for a board (French, A6, two sides): PNG or PDF"


def setup(p):
    p.add_argument("--board", default="atom-lite",
                   help="the board (boards/*.json: %s; default atom-lite)"
                        % ", ".join(board_ids(runtime=None)))
    p.add_argument("--out", metavar="FILE.png|FILE.pdf",
                   help="the card: a PNG of its two sides side by side (print, cut or "
                        "fold on the dashed line), or a PDF of two A6 pages (print both "
                        "sides); default card-BOARD.png")
    p.add_argument("--no-screen", action="store_true",
                   help="for a board whose screen is optional: the card without it")


def run(args):
    out = args.out or "card-%s.png" % args.board
    kind = os.path.splitext(out)[1].lower()
    if kind not in (".png", ".pdf"):
        raise CommandError("--out %s: the card is a .png or a .pdf file" % out,
                           EXIT_BAD_INPUT)
    board = read_board(args.board)
    if args.no_screen and not (board["display"] or {}).get("optional"):
        raise CommandError("--no-screen: %s has %s" % (args.board, (
            "no screen to leave off" if board["display"] is None
            else "its screen built in, not optional")), EXIT_BAD_INPUT)
    write(build(board, False if args.no_screen else None), out)
    print("cran: drew %s, the card of %s" % (out, board["name"]))
    return 0
