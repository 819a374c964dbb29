# The organisers' roster (CSV, one character a row) -> one checked config.json per badge;
# the game settings file (the [choice]s of docs/rules.md); a badge's config.json checked
# on its own. The badge's own checks (cran.config, cran.core.rules) have the last word:
# every config made here passes through them. `cran config` writes them (commands/config.py),
# `cran flash --roster`, `cran field` and `cran air` read them.
"""Roster and game settings:

badge_configs(roster_path, settings_path=None, boards_dir=BOARDS_DIR)
    -> {key: (row_info, config)} in roster order. key: the row's badge id, else its
    port. row_info: {"row", "key", "file", "name", "board", "port", "badge"} (port and
    badge None when the column is empty). config: the whole /config.json for that badge
    (board, character, settings, lang, light_sleep, volume_percent), already checked by
    cran.config.load. Raises RosterError whose .messages holds every fault, each
    "ROSTER:ROW: column: problem" (or "GAME.json: key: problem").
read_settings(path) -> cran.core.rules.Settings; raises RosterError.
settings_template() -> dict: every setting at its default, with "_about" explaining each.
check_config(path, boards_dir=BOARDS_DIR) -> cran.config.Config; raises RosterError.
"""
import csv
import io
import json
import os

from cran import config as badge_config
from cran.core.choices import (
    FIELDS,
    MAX_DURATION_MS,
    MAX_NAME_CHARS,
    UnknownWord,
    as_dict,
    character_value,
    parse_duration,
    yes_no,
)
from cran.core.rules import Settings
from cran.core.words import (
    ParseError,
    is_digits,
    plain,
)
from cran.tags import to_hex
from gamefiles.board import BoardError
from host_tools import CommandError
from host_tools.boards import BOARDS_DIR, board_ids, unknown_board
from host_tools.game import gamekey
from host_tools.game.suggest import did_you_mean, nearest, offer
from host_tools.game.times import duration_words

EXIT_BAD_INPUT = 2
GAME_KEY = "game_key"      # in the game settings file: the game's key, in hex
RADIO_SECRET = "radio_secret"   # ... and the radio's secret (its chains: game.chains)

# What each setting means, for the template's "_about" (docs/rules.md IDs in front).
ABOUT = {
    "agonisant_ms": "S3: how long agonisant lasts before coma, unless the character's "
                    "own 'agonisant' column says otherwise",
    "coma_ms": "S4: how long coma lasts before mort, unless the character's 'coma' "
               "column says otherwise",
    "soin_from_down": "S10: a soin from agonisant or coma gives 'blesse' or 'pleine-forme'",
    "creature_per_combat": "A6: a creature's absorbed hits come back at each new combat",
    "effect_ends_on_absorbed": "K1: an action answered by armor, helmet, creature or "
                               "resistance still ends the 5-minute effect running",
    "single_effect": "K2: a new 5-minute effect replaces the running one (false: they "
                     "stack)",
    "blesse_from_agonisant": "K4: «Coup : Blessé» on an agonisant wearer gives 'coma', or "
                             "'agonisant' (no change)",
    "keyword_state_raises": "K5: «agonisant»/«coma»/«mort» may also raise a wearer who "
                            "is lower (e.g. coma -> agonisant)",
    "stop_freezes_timers": "K15: a game stop freezes every countdown and effect",
    "timers_run_out_of_game": "K16: countdowns and effects keep running while hors-jeu",
    "time_off_counts": "power: time a badge spends switched off counts (needs the wall "
                       "clock set at both ends); false: it is paused",
    "combat_rest_ms": "C1: a combat ends this long after the last hit or keyword",
    "mitraille_ms": "C2: hits closer than this count once",
    "effect_ms": "K3: how long a 5-minute effect lasts",
    "desarme_ms": "K8: how long desarme lasts",
    "idle_look": "power: at full health the LED gives a short blink every 8 s ('blink') "
                 "or stays lit ('steady', which drains the battery much faster)",
    "vol_notice_ms": "K13: how long until the wearer notices a theft",
}
_ABOUT_FORMATS = ("Durations: \"5min\", \"3:00\", \"300s\", \"500ms\" or a number of ms. "
                  "Yes/no: true or false. A key left out keeps its default.")

# Column -> the names a roster's header may give it (compared without accents or case).
COLUMNS = (
    ("name", ("name", "nom", "character", "personnage")),
    ("armor", ("armor", "armour", "armure")),
    ("helmet", ("helmet", "casque")),
    ("creature", ("creature",)),
    ("resist", ("resist", "resists", "resistances", "resistance", "resiste")),
    ("agonisant", ("agonisant", "dying")),
    ("coma", ("coma",)),
    ("board", ("board", "carte")),
    ("port", ("port",)),
    ("badge", ("badge", "badge-id", "id")),
    ("lang", ("lang", "langue", "language")),
    ("volume", ("volume", "volume-percent")),
    ("light_sleep", ("light-sleep", "veille")),
    ("role", ("role", "metier")),
    ("notes", ("notes", "note", "player", "joueur", "joueuse", "comment")),  # not used
)
# A character column a roster may leave out, and what every character then gets. The
# armour is what the badge counts at every hit: a roster without it would play every
# character unarmoured, so its absence is a fault unless --defaults says it is meant.
# The others are what only some characters have: left out, nobody has them.
OPTIONAL_COLUMNS = (
    ("armor", "armor none"),
    ("helmet", "no helmet"),
    ("creature", "creature 0"),
    ("resist", "no resistance"),
    ("agonisant", "the game's agonisant time"),
    ("coma", "the game's coma time"),
)
NEEDS_DEFAULTS = ("armor",)

# A role cell (radio games): what its badge may offer its neighbours over the radio.
_ROLES = {"badge": "badge", "joueur": "badge", "joueuse": "badge", "player": "badge",
          "-": "badge", "healer": "healer", "soigneur": "healer", "soigneuse": "healer",
          "guerisseur": "healer", "guerisseuse": "healer", "smith": "smith",
          "forgeron": "smith", "forgeronne": "smith"}
RADIO = "radio"             # in the game settings file: true gives the game its radio
ORGA_CODE = "orga_code"     # ... and the press code of the badges' Orga page
_ID_CHARS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_."


class RosterError(ValueError):
    """Every fault found, one message each."""

    def __init__(self, messages):
        ValueError.__init__(self, "\n".join(messages))
        self.messages = list(messages)


# ---- cell values, as organisers write them -------------------------------------------

def duration_ms(text):
    """'5min', '5 mn', '3:00', '1:30:00', '300s', '500ms', '90' (s) -> ms.
    Raises ParseError."""
    t = text.strip().lower().replace(" ", "")
    if ":" in t:
        parts = t.split(":")
        # ASCII digits, and no more of them than a badge's durations need (a 5,000-digit
        # number would stop int()): a longer one is past the limit anyway.
        if len(parts) > 3 or [p for p in parts if not is_digits(p) or len(p) > 6] or [
                p for p in parts[1:] if len(p) != 2 or int(p) > 59]:
            raise ParseError("bad duration '%s' (M:SS or H:MM:SS)" % text.strip()[:40])
        total = 0
        for p in parts:
            total = total * 60 + int(p)
        if total * 1000 > MAX_DURATION_MS:
            raise ParseError("duration '%s' is longer than a badge can count (149 hours)"
                             % text.strip())
        return total * 1000
    if t.endswith("mn"):
        t = t[:-2] + "min"          # the French abbreviation
    try:
        return parse_duration(t)
    except ParseError:
        raise ParseError("bad duration '%s' (e.g. 5min, 3:00, 300s)" % text.strip()[:40]) from None


def _yes_no(text):
    try:
        return yes_no(text.strip())
    except ParseError as e:
        raise UnknownWord(str(e), text.strip().lower(),
                           (("oui", "non", "yes", "no", "true", "false"),)) from None


def _character_cell(name):
    # A character's cell: its text through the badge's own check (Character.set).
    return lambda text: character_value(name, text)


def _competence(name):
    # agonisant, coma: a roster also writes M:SS (duration_ms), then the badge's check.
    return lambda text: character_value(name, duration_ms(text))


def _volume(text):
    t = text.strip().rstrip("%").strip()
    if not is_digits(t) or len(t) > 3 or int(t) > 100:
        raise ParseError("expected a percentage from 0 to 100, got '%s'" % text[:40])
    return int(t)


def _lang(text):
    t = plain(text).strip()
    if t not in ("fr", "en"):
        raise UnknownWord("expected fr or en, got '%s'" % text, t, (("fr", "en"),))
    return t


def _role(text):
    role = _ROLES.get(plain(text).strip())
    if role is None:
        raise ParseError("unknown role %r (player, healer or smith; in French joueur, "
                         "soigneur or forgeron)" % text)
    return role


def _role_or_badge(row):
    # A row's role before its cells are checked (a wrong one is named then).
    try:
        return _role(row.get("role", ("", ""))[1] or "badge")
    except ParseError:
        return "badge"


def _board(text, boards_dir):
    t = plain(text).strip().replace(" ", "-").replace("_", "-")
    known = board_ids(boards_dir, runtime=None)
    if t not in known:
        raise UnknownWord("unknown board '%s' (known: %s)" % (text, ", ".join(known)), t,
                           (known,))
    return t


def _badge_id(text):
    if len(text) > MAX_NAME_CHARS:
        raise ParseError("a badge id of %d characters: at most %d" % (len(text),
                                                                       MAX_NAME_CHARS))
    if [ch for ch in text if ch not in _ID_CHARS] or text.startswith("."):
        raise ParseError("'%s': a badge id is letters, digits, '-', '_' and '.'" % text)
    return text


def file_name(key):
    """The config file's name for a badge key: a port becomes its last part."""
    base = key.replace("\\", "/").rstrip("/").split("/")[-1] or "badge"
    return "".join(ch if ch in _ID_CHARS else "-" for ch in base).lstrip(".") + ".json"


# ---- the roster -------------------------------------------------------------------------

def _read_text(path):
    try:
        with open(path, "rb") as f:
            data = f.read()
    except FileNotFoundError:
        raise RosterError(["%s: no such file" % path]) from None
    except OSError as e:
        raise RosterError(["%s: cannot read: %s" % (path, e)]) from None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        # A spreadsheet on a French Windows saves CSV in this code page.
        return data.decode("cp1252", "replace")


def _delimiter(text):
    # French spreadsheets write ';' (',' is their decimal point): take the header's.
    header = next((line for line in text.splitlines()
                   if line.strip() and not line.lstrip().startswith("#")), "")
    return max((",", ";", "\t"), key=header.count)


def _header(path, number, cells, defaults=False):
    """Header cells -> (column for each cell, problems). defaults: a character column
    of NEEDS_DEFAULTS may be missing (--defaults)."""
    names = {}
    for column, aliases in COLUMNS:
        for alias in aliases:
            names[alias] = column
    columns = []
    problems = []
    meant = []   # the columns an unknown one is offered as
    for cell in cells:
        key = plain(cell).strip().replace(" ", "-").replace("_", "-")
        column = names.get(key)
        if not key:
            columns.append(None)     # spreadsheets add these; a value under one is named
            continue
        if column is None:
            meant.append(names.get(nearest(key, [aliases for _, aliases in COLUMNS])))
            problems.append("%s:%d: %s: unknown column (known: %s)%s" % (
                path, number, cell or "(empty)", ", ".join(c for c, _ in COLUMNS),
                offer(key, [aliases for _, aliases in COLUMNS])))
        elif column in columns:
            problems.append("%s:%d: %s: column given twice" % (path, number, cell))
        columns.append(column)
    for needed in ("name", "board"):
        if needed not in columns:
            problems.append("%s:%d: %s: column missing" % (path, number, needed))
    if "port" not in columns and "badge" not in columns:
        problems.append("%s:%d: port or badge: column missing (which badge each row is for)"
                        % (path, number))
    if "armor" not in columns + meant and not defaults and "name" in columns:
        problems.append("%s:%d: armor: column missing: every character would play "
                        "unarmoured (armor none). Add the column (none, cuir, metal or a "
                        "count), or give --defaults if that is meant" % (path, number))
    return columns, problems


def missing_columns(columns):
    """The roster's header columns -> one sentence of what the character columns it
    leaves out give every character, or None when it has them all."""
    missing = [(c, given) for c, given in OPTIONAL_COLUMNS if c not in columns]
    if not missing:
        return None
    return "no %s column%s: every character has %s" % (
        ", ".join(c for c, _ in missing), "" if len(missing) == 1 else "s",
        ", ".join(given for _, given in missing))


def _rows(path, text, defaults=False):
    """-> (header columns, [(line number, {column: (header text, cell)})], problems)."""
    reader = csv.reader(io.StringIO(text), delimiter=_delimiter(text))
    header = None
    rows = []
    problems = []
    try:
        for cells in reader:
            number = reader.line_num
            if not [c for c in cells if c.strip()] or cells[0].lstrip().startswith("#"):
                continue
            if header is None:
                columns, problems = _header(path, number, cells, defaults)
                if problems:
                    return None, [], problems
                header = (columns, [c.strip() for c in cells])
                continue
            columns, titles = header
            row = {}
            if len(cells) > len(columns) and [c for c in cells[len(columns):] if c.strip()]:
                row["_width"] = "%s:%d: %d cells, the header has %d columns" % (
                    path, number, len(cells), len(columns))
            for i, column in enumerate(columns):
                text = cells[i].strip() if i < len(cells) else ""
                if column is None and text:
                    row["_width"] = "%s:%d: column %d: '%s' under a column with no name" % (
                        path, number, i + 1, text)
                elif column is not None:
                    row[column] = (titles[i], text)
            rows.append((number, row))
    except csv.Error as e:
        problems.append("%s:%d: not readable as CSV: %s" % (path, reader.line_num, e))
    if header is None and not problems:
        problems.append("%s: no header row (name, armor, ..., board, port or badge)" % path)
    return header, rows, problems


def _row_config(path, number, row, settings, boards_dir, problems):
    """One roster row -> (row_info, config dict); row_info is None when the row has no
    port or badge, config None when a cell is wrong (its problems added)."""
    before = len(problems)
    if "_width" in row:
        problems.append(row["_width"])

    def cell(column, parse, default, required=False):
        title, text = row.get(column, (column, ""))
        if not text:
            if required:
                problems.append("%s:%d: %s: empty" % (path, number, title))
            return default
        try:
            return parse(text)
        except ParseError as e:
            problems.append("%s:%d: %s: %s%s" % (path, number, title, e, did_you_mean(e)))
            return default

    character = {
        "name": cell("name", _character_cell("name"), "", required=True),
        "armor": cell("armor", _character_cell("armor"), 0),
        "helmet": cell("helmet", _character_cell("helmet"), False),
        "creature": cell("creature", _character_cell("creature"), 0),
        "resist": list(cell("resist", _character_cell("resist"), ())),
    }
    for column in ("agonisant", "coma"):
        ms = cell(column, _competence(column + "_ms"), None)
        if ms is not None:
            character[column + "_ms"] = ms
    board = cell("board", lambda t: _board(t, boards_dir), None, required=True)
    port = cell("port", str, None)
    badge = cell("badge", _badge_id, None)
    if port is None and badge is None:
        problems.append("%s:%d: port or badge: both empty (which badge is this row for?)"
                        % (path, number))
    role = cell("role", _role, "badge")
    config = {"board": board, "character": character, "settings": as_dict(settings),
              "lang": cell("lang", _lang, "fr"),
              "light_sleep": cell("light_sleep", _yes_no, True),
              "volume_percent": cell("volume", _volume, 100)}
    if badge is not None:
        config["badge"] = badge   # the badge keeps its name: a later flash finds it by it
    key = badge if badge is not None else port
    info = None if key is None else {
        "row": number, "key": key, "file": file_name(key), "name": character["name"],
        "board": board, "port": port, "badge": badge, "role": role}
    return info, (None if len(problems) > before else config)


def badge_configs(roster_path, settings_path=None, boards_dir=BOARDS_DIR,
                  defaults=False):
    """The roster (and game settings file) -> {key: (row_info, config)}, every config
    checked by the firmware's own cran.config; each row_info's "defaulted" says what the
    character columns left out give (missing_columns), or is None. Raises RosterError
    with every fault. defaults: a missing armor column is meant (--defaults)."""
    problems = []
    settings = Settings()
    secret = orga_code = None
    if settings_path is not None:
        try:
            settings = read_settings(settings_path)
            secret = read_radio_secret(settings_path)
            orga_code = read_json(settings_path).get(ORGA_CODE)
        except RosterError as e:
            problems.extend(e.messages)
    try:
        text = _read_text(roster_path)
    except RosterError as e:
        raise RosterError(problems + e.messages) from None
    header, rows, more = _rows(roster_path, text, defaults)
    problems.extend(more)
    if header is None:
        raise RosterError(problems)
    defaulted = missing_columns(header[0])
    out = {}
    seen = {}       # key, and file name (case-blind file systems), -> the row it is from
    radio = None
    if secret is not None:   # every row's radio, from every row's name and role
        from host_tools.game.chains import radio_sections
        named = {}
        for number, row in rows:
            name = row.get("name", ("", ""))[1]
            if name in named:   # a radio id is made from the name
                problems.append("%s:%d: %s: '%s' is also row %d's (in a game with the radio, "
                                "names tell badges apart)" % (roster_path, number,
                                                               row["name"][0], name, named[name]))
            elif name:
                named[name] = number
        radio = radio_sections(secret, [(row["name"][1], _role_or_badge(row))
                                        for _, row in rows if row.get("name", ("", ""))[1]])
    for number, row in rows:
        info, config = _row_config(roster_path, number, row, settings, boards_dir,
                                   problems)
        if config is not None and radio is not None:
            config["radio"] = radio[config["character"]["name"]]
        if config is not None and orga_code is not None:
            config[ORGA_CODE] = orga_code
        if info is not None:
            info["defaulted"] = defaulted
            # Rows with other faults count too: each is named once, at its second use.
            title = row["badge" if info["badge"] is not None else "port"][0]
            clash = seen.get(info["key"]) or seen.get(info["file"].lower())
            if clash is not None:
                problems.append("%s:%d: %s: '%s' is also row %d's (one row a badge)" % (
                    roster_path, number, title, info["key"], clash))
                continue
            seen[info["key"]] = seen[info["file"].lower()] = number
        if config is None:
            continue
        try:
            firmware_check(config, "%s:%d" % (roster_path, number), boards_dir)
        except RosterError as e:
            problems.extend(e.messages)
            continue
        out[info["key"]] = (info, config)
    if not rows and not problems:
        problems.append("%s: no character rows under the header" % roster_path)
    if problems:
        raise RosterError(problems)
    return out


def firmware_check(config, label, boards_dir=BOARDS_DIR):
    """A whole config (dict) through the badge's own check (cran.config.from_dict), as
    the badge will read it -> cran.config.Config. Raises RosterError naming `label`
    (where the config came from) and the field."""
    try:
        checked = badge_config.from_dict(config, label, boards_dir)
    except (badge_config.ConfigError, BoardError) as e:
        raise RosterError([str(e)]) from None
    # As cran config writes it (the larger of its two forms): what the badge will read.
    size = len(json.dumps(config, indent=2, ensure_ascii=False).encode()) + 1
    if size > badge_config.MAX_CONFIG_BYTES:
        raise RosterError(["%s: a config of %d bytes: a badge reads at most %d"
                           % (label, size, badge_config.MAX_CONFIG_BYTES)])
    return checked


# ---- game settings --------------------------------------------------------------------

def read_json(path):
    try:
        with open(path, encoding="utf-8-sig") as f:
            return json.load(f)
    except FileNotFoundError:
        raise RosterError(["%s: no such file" % path]) from None
    except (OSError, ValueError) as e:
        raise RosterError(["%s: not readable as JSON: %s" % (path, e)]) from None
    except RecursionError:   # [[[[... deeper than the JSON reader goes: one line, no trace
        raise RosterError(["%s: not readable as JSON: nested too deep" % path]) from None


def read_settings(path):
    """A game settings file -> Settings. Every key is a Settings field (or "_about");
    a key left out keeps its default. Raises RosterError naming every bad key."""
    raw = read_json(path)
    if not isinstance(raw, dict):
        raise RosterError(["%s: expected a JSON object {\"setting\": value, ...}" % path])
    settings = Settings()
    problems = []
    for key in raw:
        if key in ("_about", GAME_KEY, RADIO, RADIO_SECRET, ORGA_CODE):   # the game's
            continue
        value = raw[key]
        if key not in FIELDS:
            problems.append("%s: %s: unknown setting (known: %s)" % (
                path, key, ", ".join(FIELDS)))
            continue
        try:
            if FIELDS[key][1] == "duration" and isinstance(value, str):
                value = duration_ms(value)
            settings.set(key, value)
        except ParseError as e:
            problems.append("%s: %s: %s" % (path, key, e))
    if problems:
        raise RosterError(problems)
    return settings


def read_game_key(path):
    """The game settings file's "game_key" -> bytes, or None when it has none.
    Raises RosterError when it is not a key."""
    raw = read_json(path)
    text = raw.get(GAME_KEY) if isinstance(raw, dict) else None
    if text is None:
        return None
    try:
        return gamekey.parse_key(text if isinstance(text, str) else "", path + ": " + GAME_KEY)
    except CommandError as e:
        raise RosterError([str(e)]) from None


def read_radio_secret(path):
    """The game's radio secret when its settings turn the radio on ("radio": true), else
    None. Raises RosterError when the file says radio but has no usable secret."""
    raw = read_json(path)
    if not isinstance(raw, dict) or raw.get(RADIO) in (None, False):
        return None
    if raw[RADIO] is not True:
        raise RosterError(["%s: %s: expected true or false" % (path, RADIO)])
    text = raw.get(RADIO_SECRET)
    try:
        return gamekey.parse_key(text if isinstance(text, str) else "",
                                 path + ": " + RADIO_SECRET)
    except CommandError as e:
        raise RosterError([str(e) + " (cran config --settings-template makes one)"]) \
            from None


def new_orga_code():
    """Six presses, short or long: 64 codes, tried three at a time every 5 minutes."""
    import secrets
    return "".join(secrets.choice("SL") for _ in range(6))


def settings_template():
    """Every setting at its default, durations written for people, and "_about"."""
    about = {"values": _ABOUT_FORMATS,
             GAME_KEY: "the game's secret, made fresh by each --settings-template: it "
                       "unlocks every badge of the game (console, Ctrl-C) and signs their "
                       "radio. cran flash installs it; keep this file to the organisers",
             RADIO: "true: the badges listen for the game master's station and healers "
                    "over the radio (ESP-NOW), a few % of the time: an Atom Lite lasts "
                    "~3 days on 500 mAh instead of ~10",
             RADIO_SECRET: "the organisers' alone (no badge gets it): the game master's "
                           "and each healer's and smith's proofs come from it",
             ORGA_CODE: "the presses that open a badge's Orga page (stop, reprise, reset): "
                        "S short, L long, on any button; made fresh by each template, "
                        "null leaves the page open to all. Three wrong codes shut it 5 "
                        "minutes"}
    out = {"_about": about, GAME_KEY: to_hex(gamekey.new_key()), RADIO: False,
           RADIO_SECRET: to_hex(gamekey.new_key()), ORGA_CODE: new_orga_code()}
    for name, (default, kind) in FIELDS.items():
        out[name] = duration_words(default) if kind == "duration" else default
        about[name] = ABOUT.get(name, "")
    return out


# ---- one badge's config -----------------------------------------------------------------

def check_config(path, boards_dir=BOARDS_DIR):
    """A badge's config.json -> cran.config.Config, as the badge would load it.
    Raises RosterError naming the file and field."""
    raw = read_json(path)
    problem = (unknown_board(raw["board"], boards_dir)
               if isinstance(raw, dict) and isinstance(raw.get("board"), str) else None)
    if problem:
        raise RosterError(["%s: board: %s" % (path, problem)])
    checked = firmware_check(raw, path, boards_dir)
    size = os.path.getsize(path)
    if size > badge_config.MAX_CONFIG_BYTES:   # the file cran flash --config copies
        raise RosterError(["%s: %d bytes: a badge reads at most %d"
                           % (path, size, badge_config.MAX_CONFIG_BYTES)])
    return checked


def describe(c):
    """A character (cran.core.choices.as_dict of one) in a few words, for the summary line."""
    words = ["armor %d" % c["armor"]]
    if c["helmet"]:
        words.append("helmet")
    if c["creature"]:
        words.append("creature %d" % c["creature"])
    if c["resist"]:
        words.append("resists " + "/".join(c["resist"]))
    for name in ("agonisant", "coma"):
        if c.get(name + "_ms"):
            seconds = c[name + "_ms"] // 1000
            words.append("%s %d:%02d" % (name, seconds // 60, seconds % 60))
    return ", ".join(words)


def game_key_of(settings, config):
    """The game key badges get: a game settings file's (--settings), else the game.key
    `cran config` wrote beside a badge's config; None when neither gives one (this
    computer's own, then)."""
    if settings:
        try:
            return read_game_key(settings)
        except RosterError as e:
            raise CommandError("\n".join(e.messages), prefixed=False) from None
    if config:
        beside = os.path.join(os.path.dirname(os.path.abspath(config)), gamekey.KEY_FILE)
        if os.path.exists(beside):
            return gamekey.read_key_file(beside)
    return None


def settings_keys(settings):
    """The game key of the settings file given (--settings), to unlock a badge with."""
    if not settings:
        return ()
    try:
        key = read_game_key(settings)
    except RosterError as e:
        raise CommandError("\n".join(e.messages)) from None
    if key is None:
        raise CommandError("%s: no \"game_key\" in it (cran config --settings-template "
                           "makes one)" % settings)
    return (key,)
