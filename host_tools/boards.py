# The boards cran knows: one file each in boards/ (boards/README.md: the schema), its
# id the file's name. Every command that takes --board, and the firmware's board file
# as cran flash writes it, come through here.
import json
import os

from host_tools import FIRMWARE_DIR, CommandError

BOARDS_DIR = os.path.join(os.path.dirname(FIRMWARE_DIR), "boards")


def board_ids(boards_dir=BOARDS_DIR, runtime="micropython"):
    """The boards of boards_dir: those of one runtime (a board file's "runtime",
    MicroPython's where it says none), or every one with runtime None."""
    ids = sorted(name[:-5] for name in os.listdir(boards_dir) if name.endswith(".json"))
    if runtime is None:
        return ids
    return [b for b in ids if board_runtime(b, boards_dir) == runtime]


def board_runtime(board_id, boards_dir=BOARDS_DIR):
    """The runtime a board file names ("micropython" where it names none, or can't be
    read: its checker says what is wrong with it)."""
    try:
        with open(os.path.join(boards_dir, board_id + ".json"), encoding="utf-8") as f:
            data = json.load(f)
    except (OSError, ValueError):
        return "micropython"
    return (data.get("runtime") if isinstance(data, dict) else None) or "micropython"


def unknown_board(board_id, boards_dir=BOARDS_DIR):
    """-> what to say of a board id that boards/ has no file for, or None when it has."""
    known = board_ids(boards_dir, runtime=None)
    if board_id in known:
        return None
    return "unknown board '%s' (known: %s)" % (board_id, ", ".join(known))


def check_board(board_id):
    problem = unknown_board(board_id)
    if problem:
        raise CommandError(problem)


def board_file_text(board_id):
    """The board file as the badge keeps it: checked here (the badge has no checker),
    every part with its optional keys filled in, without the notes and sources."""
    from gamefiles.board import BoardError, read_board_file
    check_board(board_id)
    try:
        board = read_board_file(os.path.join(BOARDS_DIR, board_id + ".json"))
    except BoardError as e:
        raise CommandError(str(e)) from None
    return json.dumps(board.badge_data(), sort_keys=True)
