# The badge's own file, /config.json: which board it is, who wears it, how this game
# plays (Settings), the screen's language. Checked here: a fault names the field.
import json

from cran import forget
from cran.core.choices import ARMOR_NAMES, MAX_ANSWERS
from cran.core.rules import Character, Settings
from cran.core.vocab import KEYWORDS, ParseError
from cran.storage import join

_KEYS = ("board", "badge", "character", "settings", "lang", "light_sleep", "volume_percent",
         "radio", "orga_code")
# The radio (cran.link): this badge's role, the anchors of the chains of those who may
# command or treat (cran.radio), and its own chain's seed if it treats.
_RADIO = ("id", "role", "authorities", "seed")
_ROLES = ("badge", "healer", "smith", "gm")
_CHARACTER = ("name", "armor", "helmet", "creature", "resist", "agonisant_ms", "coma_ms")


ID_CHARS = "abcdefghijklmnopqrstuvwxyz0123456789-"
# What the badge reads of its board file: `cran flash` checks the file on the host
# (cran.board) and writes every part with its optional keys filled in, so the badge
# never loads the checker (~10 KB of RAM on an ESP32).
BOARD_KEYS = ("id", "chip", "leds", "buzzer", "buttons", "display", "power")


class ConfigError(ValueError):
    pass


# Board and Config have attributes and no methods: a method would keep this module's
# globals (the checker) alive for as long as the app keeps a Board, and cran.start lets
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
    radio: "Radio | None"
    orga_code: str | None


class Radio:
    """The config's radio: id (6 bytes, made from the roster name by cran config; None:
    the chip's own), role (an index of cran.radio.ROLES), authorities ({6-byte id:
    [role index, 0, 16-byte anchor]}, as cran.radio.Listener takes them), seed (16
    bytes, a healer's or smith's own chain) or None."""
    id: bytes | None
    role: int
    authorities: dict
    seed: bytes | None


def _fail(path, field, problem):
    raise ConfigError("%s: %s: %s" % (path, field, problem))


# The longest countdown a badge's ticks can count (cran.core.ticks: 2**29 ms, about 149 h).
_MAX_MS = (1 << 29) - 1


def _whole(path, field, value, low, high):
    # Every number of the file is checked before use: the badge holds what it needs.
    if (isinstance(value, bool) or not isinstance(value, int) or value < low
            or value > high):
        _fail(path, field, "expected a whole number from %d to %d, got %r"
              % (low, high, value))
    return value


def _character(path, raw):
    if not isinstance(raw, dict):
        _fail(path, "character", "expected an object")
    for key in sorted(raw):
        if key not in _CHARACTER:
            _fail(path, "character." + key, "unknown field (known: %s)" % ", ".join(_CHARACTER))
    c = Character()
    c.name = raw.get("name", "")
    if not isinstance(c.name, str):
        _fail(path, "character.name", "expected a string")
    armor = raw.get("armor", 0)
    if isinstance(armor, str):   # a name, else it is no whole number either: say so
        if armor not in ARMOR_NAMES:
            _fail(path, "character.armor", "unknown armor %r (none, cuir, metal or a whole "
                  "number from 0 to %d)" % (armor, MAX_ANSWERS))
        armor = ARMOR_NAMES[armor]
    c.armor = _whole(path, "character.armor", armor, 0, MAX_ANSWERS)
    c.helmet = raw.get("helmet", False)
    if not isinstance(c.helmet, bool):
        _fail(path, "character.helmet", "expected true or false")
    c.creature = _whole(path, "character.creature", raw.get("creature", 0), 0, MAX_ANSWERS)
    resist = raw.get("resist", [])
    if not isinstance(resist, list):
        _fail(path, "character.resist", "expected a list of keywords")
    for word in resist:
        if word not in KEYWORDS or word in ("dissipe", "resiste"):   # canonical, as written
            _fail(path, "character.resist", "%r is not a keyword one can resist" % (word,))
    c.resist = tuple(resist)
    for name in ("agonisant_ms", "coma_ms"):
        value = raw.get(name)
        if value is not None:
            setattr(c, name, _whole(path, "character." + name, value, 1, _MAX_MS))
    return c


def _hex(path, field, value, size):
    try:
        data = bytes.fromhex(value) if isinstance(value, str) else None
    except ValueError:
        data = None
    if data is None or len(data) != size:
        _fail(path, field, "expected %d hex digits, got %r" % (2 * size, value))
    return data


def _radio(path, raw):
    if not isinstance(raw, dict):
        _fail(path, "radio", "expected an object")
    for key in sorted(raw):
        if key not in _RADIO:
            _fail(path, "radio." + key, "unknown field (known: %s)" % ", ".join(_RADIO))
    r = Radio()
    r.id = None if raw.get("id") is None else _hex(path, "radio.id", raw["id"], 6)
    role = raw.get("role", "badge")
    if role not in _ROLES[:3]:
        _fail(path, "radio.role", "expected badge, healer or smith, got %r" % (role,))
    r.role = _ROLES.index(role)
    authorities = raw.get("authorities", {})
    if not isinstance(authorities, dict):
        _fail(path, "radio.authorities", "expected an object: badge id -> [role, anchor]")
    r.authorities = {}
    for badge_id in sorted(authorities):
        field = "radio.authorities." + badge_id
        entry = authorities[badge_id]
        if (not isinstance(entry, list) or len(entry) != 2
                or entry[0] not in _ROLES[1:]):
            _fail(path, field, "expected [\"gm\", \"healer\" or \"smith\", anchor]")
        who = _hex(path, field, badge_id, 6)
        r.authorities[who] = [_ROLES.index(entry[0]), 0, _hex(path, field, entry[1], 16)]
    seed = raw.get("seed")
    r.seed = None if seed is None else _hex(path, "radio.seed", seed, 16)
    if (r.seed is None) != (r.role == 0):
        _fail(path, "radio.seed", "a healer or smith has a seed, and only they do")
    return r


def load(root):
    """root/config.json and root/boards/<board>.json -> Config. Raises ConfigError or
    BoardError (both ValueError) saying which file and field, OSError never."""
    path = join(root, "config.json")
    try:
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
    if not isinstance(raw, dict):
        raise ConfigError("%s: expected a JSON object" % path)
    for key in sorted(raw):
        if key not in _KEYS:
            _fail(path, key, "unknown field (known: %s)" % ", ".join(_KEYS))
    board_id = raw.get("board")
    if not isinstance(board_id, str) or not board_id or [
            ch for ch in board_id if ch not in ID_CHARS]:
        _fail(path, "board", "expected a board id such as \"atom-lite\", got %r" % (board_id,))
    badge = raw.get("badge")
    if badge is not None and (not isinstance(badge, str) or not badge or [
            ch for ch in badge.lower() if ch not in ID_CHARS + "_."]):
        _fail(path, "badge", "expected a badge id (letters, digits, '-', '_', '.'), got %r"
              % (badge,))
    if raw.get("lang", "fr") not in ("fr", "en"):
        _fail(path, "lang", "expected \"fr\" or \"en\"")
    if not isinstance(raw.get("light_sleep", True), bool):
        _fail(path, "light_sleep", "expected true or false")
    volume = raw.get("volume_percent", 100)
    if isinstance(volume, bool) or not isinstance(volume, int) or not 0 <= volume <= 100:
        _fail(path, "volume_percent", "expected a whole number from 0 to 100")
    character = _character(path, raw.get("character", {}))
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
    config.board = read_board(join(root, "boards/%s.json" % board_id))
    config.character = character
    config.settings = s
    config.lang = raw.get("lang", "fr")
    # On unless the config says no: a badge lives on a small battery. Boards whose
    # buttons can't wake the chip stay awake anyway (App, parts.wake_on_buttons).
    config.light_sleep = raw.get("light_sleep", True)
    config.volume_percent = raw.get("volume_percent", 100)
    config.badge = raw.get("badge")
    config.radio = None if raw.get("radio") is None else _radio(path, raw["radio"])
    code = config.orga_code = raw.get("orga_code")
    if code is not None and (not isinstance(code, str) or not 4 <= len(code) <= 12
                             or code.strip("SL")):
        _fail(path, "orga_code", "expected 4 to 12 presses, S (short) or L (long), "
                                 "such as \"SLLSLS\", got %r" % (code,))
    return config
