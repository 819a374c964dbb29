# The badge `cran sim` runs, from its options: the wearer (a config, a character, a
# scenario's character line), the board and the runtime, checked as the firmware checks
# them, and on a virtual field its radio and game key; booted in its driver process
# (driver.py) before any window opens, so a bad file is said at once.
import os

from host_tools import FIRMWARE_DIR, CommandError
from host_tools.boards import read_board
from host_tools.game import scenarios
from host_tools.home import cran_home
from host_tools.virtual.runtimes import runtime_for

DEMO_SCENARIO = os.path.join(os.path.dirname(FIRMWARE_DIR), "examples", "scenarios",
                             "exemple-godefroy.txt")   # the rulebook's example fight
DEFAULT_BOARD = "atom-lite"


def prepare(runtime, board=None, script=None, character=None, asked_runtime=None,
            field=None, at=None, settings=None):
    """The badge `cran sim`'s options ask for (--board, --script, --character, --runtime
    as asked_runtime, --field, --at, --settings), booted -> (BadgeDriver, (script path,
    parsed) or None, its game key or None). runtime: the one to run on unless the
    board says otherwise. A bad file, board or config, a field nobody runs ->
    CommandError naming it, before any window opens."""
    from cran.core.choices import as_dict
    from host_tools.sim.driver import BadgeDriver, DriverError, check_wearer, read_wearer
    played = None
    config, file_board = {}, None
    if script:
        _, parsed = scenarios.load(script)
        played = (script, parsed)
        config = {"character": as_dict(parsed.character)}
    if character:
        config, file_board = read_wearer(character)
    board = board or file_board or DEFAULT_BOARD
    if board == "none":
        raise CommandError("the terminal UI needs a board (--board none is for --headless)")
    board = read_board(board)
    runtime = runtime_for(board, asked_runtime, runtime)
    check_wearer(board, config, character or script or "the default character")
    env = key = kept = None
    if field is not None:
        if runtime == "circuitpython":
            raise CommandError("--field: board %s runs CircuitPython, whose badge has no "
                               "radio (cran.radio.link is MicroPython's espnow)" % board.id)
        env, key, kept = _on_field(field, at, settings, character, config)
    try:
        return BadgeDriver(board.id, config, runtime, field=env, game_key=key,
                           radio_kept=kept), played, key
    except DriverError as e:
        raise CommandError(str(e), 3) from None


def _on_field(field, at, settings, character, config):
    """--field: the badge's radio and key, checked -> (its process's field variables,
    the game key, where its radio.json is kept between runs)."""
    from host_tools.field import fieldnet
    from host_tools.game import gamekey, roster
    how = ("a badge of a game with the radio, as `cran config ROSTER --settings "
           "GAME.json` writes them (the settings with \"radio\": true)")
    if not character:
        raise CommandError("--field needs --character: %s" % how)
    if "radio" not in config:
        raise CommandError("--field: %s has no radio: %s" % (character, how))
    env = fieldnet.member_env(field, at)
    key = roster.game_key_of(settings, character) or gamekey.own_key()
    # Per game and character: a rehearsal's Ali and the game's are two badges (their
    # radio ids are both made from "Ali"), each with its counter.
    kept = os.path.join(cran_home(), "sim", gamekey.key_id(key),
                        "radio-%s.json" % config["radio"].get("id"))
    return env, key, kept
