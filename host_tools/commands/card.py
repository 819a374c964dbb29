# `cran card`: a player's card for a board, drawn to a PNG or a PDF (host_tools/paper/
# card.py draws it); with --url, a third side: the QR code of the wearer's own page on
# the organisers' `cran web` site (host_tools/web/link.py makes its address).
import os

from host_tools import CommandError
from host_tools.boards import board_ids
from host_tools.paper.card import EXIT_BAD_INPUT, build, read_board, write

HELP = "draw a player's card for a board (French, A6, two sides): PNG or PDF"


def setup(p):
    p.add_argument("--board", default=None,
                   help="the board (boards/*.json: %s; default: the --character config's "
                        "board, else atom-lite)" % ", ".join(board_ids(runtime=None)))
    p.add_argument("--out", metavar="FILE.png|FILE.pdf",
                   help="the card: a PNG of its two sides side by side (print, cut or "
                        "fold on the dashed line), or a PDF of two A6 pages (print both "
                        "sides); default card-BOARD.png")
    p.add_argument("--no-screen", action="store_true",
                   help="for a board whose screen is optional: the card without it")
    p.add_argument("--url", metavar="URL",
                   help="where the organisers put `cran web`'s site: a third side with "
                        "the QR code of the wearer's own page there (the board and the "
                        "--character in the address's #fragment, which no server sees)")
    p.add_argument("--character", metavar="FILE",
                   help="with --url: who wears the badge, a badge config from `cran "
                        "config` (its board too), a character object (JSON) or a "
                        "scenario file (its character line)")


def run(args):
    config, file_board = {}, None
    if args.character:
        if not args.url:
            raise CommandError("--character goes with --url: the wearer's page on the "
                               "site of `cran web`", EXIT_BAD_INPUT)
        from host_tools.sim.driver import read_wearer
        config, file_board = read_wearer(args.character)
    board_id = args.board or file_board or "atom-lite"
    out = args.out or "card-%s.png" % board_id
    kind = os.path.splitext(out)[1].lower()
    if kind not in (".png", ".pdf"):
        raise CommandError("--out %s: the card is a .png or a .pdf file" % out,
                           EXIT_BAD_INPUT)
    board = read_board(board_id)
    if args.no_screen and not (board["display"] or {}).get("optional"):
        raise CommandError("--no-screen: %s has %s" % (board_id, (
            "no screen to leave off" if board["display"] is None
            else "its screen built in, not optional")), EXIT_BAD_INPUT)
    link = wearer = None
    if args.url:
        from host_tools.web.link import page_url
        character = config.get("character") or {}
        link, wearer = page_url(args.url, board_id, character), character.get("name", "")
    write(build(board, False if args.no_screen else None, link, wearer or ""), out)
    print("cran: drew %s, the card of %s" % (out, board["name"]))
    if link:
        print("its QR code: %s" % link)
    return 0
