# The boards cran knows: one file each in boards/ (boards/README.md: the schema), its
# id the file's name. This module is the one that lists them and reads their files:
# a command that takes --board reads and checks its board here once (read_board) and
# hands the checked Board on, so that a board file is never read or checked twice.
import json
import os

from host_tools import FIRMWARE_DIR, CommandError

BOARDS_DIR = os.path.join(os.path.dirname(FIRMWARE_DIR), "boards")
# boards_dir None below: BOARDS_DIR, read as each call runs (a test points it elsewhere).


def board_path(board_id, boards_dir=None):
    """Where a board's file is: for the virtual hardware, which reads it as a badge
    reads its own."""
    return os.path.join(boards_dir or BOARDS_DIR, board_id + ".json")


def board_ids(boards_dir=None, runtime="micropython"):
    """The boards of boards_dir: those of one runtime (a board file's "runtime",
    MicroPython's where it says none), or every one with runtime None."""
    ids = sorted(name[:-5] for name in os.listdir(boards_dir or BOARDS_DIR)
                 if name.endswith(".json"))
    if runtime is None:
        return ids
    return [b for b in ids if board_runtime(b, boards_dir) == runtime]


def board_runtime(board_id, boards_dir=None):
    """The runtime a board file names ("micropython" where it names none, or can't be
    read: read_board says what is wrong with it). For lists of boards; a command's own
    board is read_board's, whose .runtime says it."""
    try:
        with open(board_path(board_id, boards_dir), encoding="utf-8") as f:
            data = json.load(f)
    except (OSError, ValueError):
        return "micropython"
    return (data.get("runtime") if isinstance(data, dict) else None) or "micropython"


def unknown_board(board_id, boards_dir=None):
    """-> what to say of a board id that boards/ has no file for, or None when it has."""
    known = board_ids(boards_dir, runtime=None)
    if board_id in known:
        return None
    return "unknown board '%s' (known: %s)" % (board_id, ", ".join(known))


def read_board(board_id, code=2):
    """The board boards/<board_id>.json, read and checked (gamefiles.board) -> Board.
    An unknown id, or a file the checker refuses -> CommandError (exit code `code`)
    naming the file and the field."""
    from gamefiles.board import BoardError, read_board_file
    problem = unknown_board(board_id)
    if problem:
        raise CommandError(problem, code)
    try:
        return read_board_file(board_path(board_id))
    except BoardError as e:
        raise CommandError(str(e), code) from None


def board_file_text(board):
    """A checked Board's file as the badge keeps it (the badge has no checker): every
    part with its optional keys filled in, without the notes and sources."""
    return json.dumps(board.badge_data(), sort_keys=True)
