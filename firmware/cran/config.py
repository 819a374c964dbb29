# The badge's own file, /config.json: which board it is, who wears it, how this game
# plays (Settings), the screen's language. Checked here: a fault names the field.
import json
import os

from cran.compat import forget
from cran.core.choices import CHARACTER_FIELDS, MAX_NAME_CHARS, said
from cran.core.rules import Character, Settings
from cran.core.vocab import ParseError
from cran.storage import join

_KEYS = ("board", "badge", "character", "settings", "lang", "light_sleep", "volume_percent",
         "radio", "orga_code")


ID_CHARS = "abcdefghijklmnopqrstuvwxyz0123456789-"
# The biggest config.json a badge reads: cran config writes 1-3 KB (a radio game's
# authorities ~70 bytes each). Checked before the file is read: a 100 KB one was a
# MemoryError out of the start, and main.py then ended at the REPL.
MAX_CONFIG_BYTES = 8192
# What the badge reads of its board file: `cran flash` checks the file on the host
# (gamefiles.board) and writes every part with its optional keys filled in, so the badge
# never loads the checker (~10 KB of RAM on an ESP32).
BOARD_KEYS = ("id", "chip", "leds", "buzzer", "buttons", "display", "power")


class ConfigError(ValueError):
    pass


# Board and Config have attributes and no methods: a method would keep this module's
# globals (the checker) alive for as long as the app keeps a Board, and the start lets
# the checker go before the app's modules load.
class Board:
    """A checked board file's parts (BOARD_KEYS): each its dict from the file, or None
    when the board has no such part."""
    id: str
    chip: str
    leds: dict | None
    buzzer: dict | None
    buttons: list
    display: dict | None
    power: dict | None
    runtime: str


def read_board(path):
    """The board file cran flash left at `path` -> Board; a missing, damaged or
    unchecked one is a ConfigError naming the file (reflash to mend it)."""
    try:
        with open(path) as f:
            data = json.loads(f.read())
    except OSError as e:
        raise ConfigError("%s: cannot read: %s" % (path, e)) from None
    except ValueError as e:
        raise ConfigError("%s: not valid JSON: %s" % (path, e)) from None
    if not isinstance(data, dict):
        raise ConfigError("%s: expected a JSON object" % path)
    for key in BOARD_KEYS:
        if key not in data:
            raise ConfigError("%s: %s: missing (a board file as cran flash writes it "
                              "has every part)" % (path, key))
    board = Board()
    for key in BOARD_KEYS:
        setattr(board, key, data[key])
    # Which drivers the app takes (cran.start.parts): a file without one is MicroPython's.
    board.runtime = data.get("runtime", "micropython")
    return board


class Config:
    """The checked config (load): board, character, settings, lang, light_sleep,
    volume_percent, badge (the organisers' name for this badge, or None)."""
    board: Board
    character: Character
    settings: Settings
    lang: str
    light_sleep: bool
    volume_percent: int
    badge: str | None
    radio: "object | None"   # cran.radio.config.Radio
    orga_code: str | None


def _fail(path, field, problem):
    # A field's name is a key of the file: cut, as a value is (said), to keep one line.
    if len(field) > MAX_NAME_CHARS:
        field = field[:MAX_NAME_CHARS] + "..."
    raise ConfigError("%s: %s: %s" % (path, field, problem))


def _object_fields(path, field, raw, known):
    """raw, the file's `field`, must be an object of known fields: else ConfigError
    naming the field (the radio section's too)."""
    if not isinstance(raw, dict):
        _fail(path, field, "expected an object")
    for key in sorted(raw):
        if key not in known:
            _fail(path, field + "." + key, "unknown field (known: %s)" % ", ".join(known))


def character_from(path, raw):
    """A character as JSON reads it -> Character; ConfigError naming path and the field
    (the config's, and a game master's reset over the radio, cran.recast)."""
    _object_fields(path, "character", raw, CHARACTER_FIELDS)
    c = Character()
    for name in CHARACTER_FIELDS:
        if name in raw:
            try:
                c.set(name, raw[name])
            except ParseError as e:
                _fail(path, "character." + name, str(e))
    return c


def load(root):
    """root/config.json and root/boards/<board>.json -> Config. Raises ConfigError or
    BoardError (both ValueError) saying which file and field, OSError never."""
    path = join(root, "config.json")
    try:
        size = os.stat(path)[6]
        if size > MAX_CONFIG_BYTES:
            raise ConfigError("%s: %d bytes, at most %d (cran config writes it)"
                              % (path, size, MAX_CONFIG_BYTES))
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise ConfigError("%s: cannot read: %s" % (path, e)) from None
    try:
        text = data.decode()
    except UnicodeError:
        text = None
    if text is not None and len(text) != len(data):
        from cran.utf8 import well_formed
        if not well_formed(data):
            text = None
        forget(("cran.utf8",))
    if text is None:   # a text editor's Latin-1, or a damaged file
        raise ConfigError("%s: not UTF-8 text" % path)
    try:
        raw = json.loads(text)
    except ValueError as e:
        raise ConfigError("%s: not valid JSON: %s" % (path, e)) from None
    return from_dict(raw, path, join(root, "boards"))


def from_dict(raw, path, boards_dir):
    """A config as JSON reads it (raw), and the board file boards_dir/<board>.json ->
    Config. Raises ConfigError or BoardError naming path (where raw came from: the
    badge's file, a roster's row) and the field. The host checks a config so, as the
    badge will read it."""
    if not isinstance(raw, dict):
        raise ConfigError("%s: expected a JSON object" % path)
    for key in sorted(raw):
        if key not in _KEYS:
            _fail(path, key, "unknown field (known: %s)" % ", ".join(_KEYS))
    board_id = raw.get("board")
    # An id's characters checked by strip(), not one by one: a character taken out of a
    # str (`for ch in text`) is made a name (qstr) on MicroPython, kept for good
    # (cran.core.vocab.chars), unseen by the bench's count of a badge's names.
    if not isinstance(board_id, str) or not 0 < len(board_id) <= MAX_NAME_CHARS or (
            board_id.strip(ID_CHARS)):
        _fail(path, "board", "expected a board id such as \"atom-lite\", got %s"
              % said(board_id))
    badge = raw.get("badge")
    if badge is not None and (not isinstance(badge, str) or not 0 < len(badge) <= MAX_NAME_CHARS
                              or badge.lower().strip(ID_CHARS + "_.")):
        _fail(path, "badge", "expected a badge id (letters, digits, '-', '_', '.'; at most "
              "%d), got %s" % (MAX_NAME_CHARS, said(badge)))
    if raw.get("lang", "fr") not in ("fr", "en"):
        _fail(path, "lang", "expected \"fr\" or \"en\"")
    if not isinstance(raw.get("light_sleep", True), bool):
        _fail(path, "light_sleep", "expected true or false")
    volume = raw.get("volume_percent", 100)
    if isinstance(volume, bool) or not isinstance(volume, int) or not 0 <= volume <= 100:
        _fail(path, "volume_percent", "expected a whole number from 0 to 100")
    character = character_from(path, raw.get("character", {}))
    settings = raw.get("settings", {})
    if not isinstance(settings, dict):
        _fail(path, "settings", "expected an object")
    s = Settings()
    for name in sorted(settings):
        try:
            s.set(name, settings[name])
        except ParseError as e:
            _fail(path, "settings." + name, str(e))
    config = Config()
    config.board = read_board(join(boards_dir, "%s.json" % board_id))
    if config.board.runtime == "circuitpython":   # its clock counts less (74 hours)
        from cran.hal_cp.durations import check
        try:
            check(character, s)
        except ValueError as e:   # "FIELD: PROBLEM": the file named here
            raise ConfigError("%s: %s" % (path, e)) from None
    config.character = character
    config.settings = s
    config.lang = raw.get("lang", "fr")
    # On unless the config says no: a badge lives on a small battery. Boards whose
    # buttons can't wake the chip stay awake anyway (App, parts.wake_on_buttons).
    config.light_sleep = raw.get("light_sleep", True)
    config.volume_percent = raw.get("volume_percent", 100)
    config.badge = raw.get("badge")
    config.radio = None
    if raw.get("radio") is not None:   # its checker and names only in a radio game
        from cran.radio.config import FIELDS, read
        _object_fields(path, "radio", raw["radio"], FIELDS)
        try:
            config.radio = read(raw["radio"])
        except ValueError as e:   # "FIELD: PROBLEM": the file named here
            raise ConfigError("%s: %s" % (path, e)) from None
        forget(("cran.radio.config",))
    code = config.orga_code = raw.get("orga_code")
    if code is not None and (not isinstance(code, str) or not 4 <= len(code) <= 12
                             or code.strip("SL")):
        _fail(path, "orga_code", "expected 4 to 12 presses, S (short) or L (long), "
                                 "such as \"SLLSLS\", got %s" % said(code))
    return config
