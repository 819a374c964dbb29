# Every setting of a [choice] of docs/rules.md: its name, the project's default and how
# a settings file or the console spells it (its kind), and the checks. Loaded to make or
# change Settings: at a badge's start (the start lets it go before the app loads), or on
# the host.

from cran.core.vocab import DIGITS, KEYWORDS, SPACES, ParseError, chars, const

_MINUTES_5 = const(300000)

ARMOR_NAMES = {"none": 0, "aucune": 0, "cuir": 1, "leather": 1, "metal": 2}
# P1: armor answers and creature absorptions per combat, at most. A count from outside
# (a config, a scenario) is checked against it before use: the state and its record
# hold no number bigger than the rules need.
MAX_ANSWERS = 99
# A name is a name: what a screen, a journal and a roster show. A longer one is a
# mistake (or an attack: 100,000 characters were a MemoryError on the badge), refused
# in one line on the host and on the badge.
MAX_NAME_CHARS = 64
_YES = const(("yes", "oui", "true", "1", "o", "y"))
_NO = const(("no", "non", "false", "0", "n"))


def said(value, most=40):
    """value as a refusal quotes it: its repr, cut to `most` characters (a value from
    outside may be 100 KB: the refusal stays one short line)."""
    text = repr(value)
    return text if len(text) <= most else text[:most] + "..."


def yes_no(text):
    # The refusal quotes the text as given: str.lower() lowers letters beyond ASCII on
    # CPython and not on MicroPython, and the badge and the desktop say the same.
    low = text.lower()
    if low in _YES:
        return True
    if low in _NO:
        return False
    raise ParseError("expected yes/no (oui/non), got '%s'" % text)


class UnknownWord(ParseError):
    """A ParseError about a word not known, carrying the word (as read) and what it is
    not among, for the host's "did you mean" (host_tools.game.suggest): a tuple of word
    tuples, dicts, cran.core.vocab.lookup() tables, or names of the badge grammar's own
    tables (host_tools.game.suggest.GRAMMAR)."""

    def __init__(self, message, word, among):
        super().__init__(message)
        self.word = word
        self.among = among


# name: (default, kind) -- kind is how a settings file or console spells it.
FIELDS = {
    "agonisant_ms": (_MINUTES_5, "duration"),        # S3
    "coma_ms": (_MINUTES_5, "duration"),             # S4
    "soin_from_down": ("blesse", ("blesse", "pleine-forme")),  # S10
    "creature_per_combat": (True, "bool"),           # A6: absorption comes back each combat
    "effect_ends_on_absorbed": (False, "bool"),      # K1
    "single_effect": (True, "bool"),                 # K2: False lets effects stack
    "blesse_from_agonisant": ("coma", ("coma", "agonisant")),  # K4
    "keyword_state_raises": (False, "bool"),         # K5
    "stop_freezes_timers": (True, "bool"),           # K15
    "timers_run_out_of_game": (True, "bool"),        # K16
    # Power: time a badge spends switched off counts as paused, unless this is on
    # and the badge knows the wall-clock time both when it saved and when it woke.
    "time_off_counts": (False, "bool"),
    "combat_rest_ms": (_MINUTES_5, "duration"),      # C1
    "mitraille_ms": (300, "duration"),               # C2
    "effect_ms": (_MINUTES_5, "duration"),           # K3
    "desarme_ms": (3000, "duration"),                # K8
    "vol_notice_ms": (_MINUTES_5, "duration"),       # K13
    # Power: at full health the LED blinks briefly every 8 s instead of staying lit
    # (a lit LED draws more than the sleeping chip); "steady" keeps it lit.
    "idle_look": ("blink", ("blink", "steady")),
}


def check(name, value):
    """A setting's value from a Python value or its text form. Raises ParseError."""
    if name not in FIELDS:
        raise ParseError("unknown setting %s" % said(name))
    kind = FIELDS[name][1]
    if isinstance(value, str):
        if kind == "duration":
            value = parse_duration(value)
        elif kind == "bool":
            value = yes_no(value)
    if kind == "duration":
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            raise ParseError("%s must be a duration, got %s" % (name, said(value)))
        if value >= 1 << 29:
            raise ParseError("%s is longer than a badge can count (%s ms)" % (name, said(value)))
    elif kind == "bool":
        if not isinstance(value, bool):
            raise ParseError("%s must be yes or no, got %s" % (name, said(value)))
    elif value not in kind:
        raise ParseError("%s must be one of %s, got %s" % (name, "/".join(kind), said(value)))
    return value


# The longest a badge's tick arithmetic counts (cran.core.ticks: differences below 2**29
# ms, about 149 hours).
MAX_DURATION_MS = (1 << 29) - 1
_MAX_DURATION_DIGITS = const(9)    # more than any duration a badge counts


def parse_duration(text):
    """'90', '90s', '500ms', '5m', '1h', '1m30s' -> milliseconds, below 2**29 (what a
    badge counts). Raises ParseError. Here, not with the grammar: a settings file spells
    durations so, and the badge's console never does."""
    units = {"ms": 1, "s": 1000, "m": 60000, "min": 60000, "h": 3600000}
    text = text.strip(SPACES)
    # Read by its bytes: a character taken out of a str (text[j], `for c in text`) is
    # made a name (qstr) on MicroPython, kept for good (cran.core.vocab.chars), and a
    # settings file's durations are read at every boot.
    for c in chars(text):
        if not " " <= c < "\x7f":   # one answer on every runtime: printable ASCII only
            raise ParseError("bad duration: character U+%04X" % ord(c))
    text = text.lower()
    raw = text.encode()   # (ASCII: a byte a character)
    shown = repr(text[:40])   # printable ASCII: the same on every runtime
    total = 0
    i = 0
    n = len(raw)
    if n == 0:
        raise ParseError("empty duration")
    while i < n:
        j = i
        while j < n and 48 <= raw[j] <= 57:   # 0-9
            j += 1
        if j == i or j - i > _MAX_DURATION_DIGITS:
            raise ParseError("bad duration %s" % shown)
        k = j
        while k < n and 97 <= raw[k] <= 122:   # a-z
            k += 1
        unit = text[j:k] or "s"
        if unit not in units or (unit == "s" and k == j and k != n):
            raise ParseError("bad duration %s (use 90, 90s, 500ms, 5m, 1h)" % shown)
        total += int(text[i:j]) * units[unit]
        i = k
    if total > MAX_DURATION_MS:
        raise ParseError("duration %s is longer than a badge can count (149 hours)" % shown)
    return total


# P1: a character's fields (cran.core.rules.Character) and their checks, once for the
# three ways one comes: a badge's config file (Python values), a roster's cells and a
# scenario's `character` line (text). The grammar (cran.core.words) is loaded only for
# text that is not already a canonical word: a badge reading its config never needs it.
_ARMORS = const(("none", "cuir", "metal"))   # the names a fault lists (not the aliases)
CHARACTER_FIELDS = ("name", "armor", "helmet", "creature", "resist", "agonisant_ms",
                    "coma_ms")


def character_value(name, value):
    """A character field's value from a Python value or its text form -> what Character
    holds. Raises ParseError (UnknownWord for a word not known); the message does not
    repeat the field's name: the caller says where it was."""
    if name == "name":
        if not isinstance(value, str):
            raise ParseError("expected a string, got %s" % said(value))
        if len(value) > MAX_NAME_CHARS:
            raise ParseError("a name of %d characters: at most %d" % (len(value),
                                                                    MAX_NAME_CHARS))
        return value
    if name == "armor" and isinstance(value, str):
        if value in ARMOR_NAMES:
            return ARMOR_NAMES[value]
        from cran.core.words import plain
        low = plain(value).strip(SPACES)
        if low in ARMOR_NAMES:
            return ARMOR_NAMES[low]
        if not low or low.strip(DIGITS):
            raise UnknownWord("expected none, cuir, metal or a count from 0 to %d, got %s"
                              % (MAX_ANSWERS, _shown(value)), low, (_ARMORS, ARMOR_NAMES))
        value = low
    if name in ("armor", "creature"):
        return _count(value)
    if name == "helmet":
        if isinstance(value, str):
            value = value.strip(SPACES)
            try:
                return yes_no(value)
            except ParseError as e:
                raise UnknownWord(str(e), value.lower(), (_YES + _NO,)) from None
        if not isinstance(value, bool):
            raise ParseError("expected yes or no (true or false), got %s" % said(value))
        return value
    if name == "resist":
        return _resisted(value)
    if name in ("agonisant_ms", "coma_ms"):
        if value is None:
            return None
        if isinstance(value, str):
            value = parse_duration(value)
        if isinstance(value, bool) or not isinstance(value, int):
            raise ParseError("expected a duration, got %s" % said(value))
        if not 0 < value <= MAX_DURATION_MS:
            raise ParseError("expected a duration above 0 and under 149 hours, got %d ms"
                             % value)
        return value
    raise UnknownWord("unknown character field '%s'" % name, name, (CHARACTER_FIELDS,))


def _count(value):
    # A number from outside is bounded before use: a 5,000-digit text would stop
    # CPython's int(), and the state and its record hold nothing bigger than the rules.
    if isinstance(value, str):
        digits = value.strip(SPACES).lstrip("0") or "0"
        if digits.strip(DIGITS) or len(digits) > 2:
            raise ParseError("expected a whole number from 0 to %d, got %s"
                             % (MAX_ANSWERS, _shown(value)))
        value = int(digits)
    if isinstance(value, bool) or not isinstance(value, int) or not (
            0 <= value <= MAX_ANSWERS):
        raise ParseError("expected a whole number from 0 to %d, got %s"
                         % (MAX_ANSWERS, said(value)))
    return value


def _resisted(value):
    # K12: the keywords a character resists. Nobody resists dissipe (K9) nor resiste
    # itself (K12): the rule is written here only.
    if isinstance(value, str):
        from cran.core.words import plain, words_of
        words = [w for w in words_of(plain(value.replace(";", " ").replace("/", " ")))
                 if w != "-"]
    elif isinstance(value, (list, tuple)):
        words = list(value)
    else:
        raise ParseError("expected a list of keywords, got %s" % said(value))
    out = []
    for word in words:
        if not isinstance(word, str):
            raise ParseError("expected a keyword, got %s" % said(word))
        kw = word if word in KEYWORDS else None
        if kw is None:
            from cran.core.words import keyword, plain
            kw = keyword(plain(word))
        if kw is None:
            raise UnknownWord("unknown keyword %s" % _shown(word), word, (KEYWORDS,))
        if kw in ("dissipe", "resiste"):
            raise ParseError("nobody resists %s (K9, K12)" % kw)
        if kw not in out:
            out.append(kw)
    return tuple(out)


def _shown(text):
    from cran.core.words import shown
    return shown(text)


def as_dict(thing):
    """A Settings' or a Character's (cran.core.rules) fields by name, as a config file
    writes them. The host's tools ask for it; a badge never does, and a method of those
    classes would be bytecode in its heap all day (they are resident)."""
    if not hasattr(thing, "resist"):   # Settings (no import of theirs: no cycle)
        return dict((name, getattr(thing, name)) for name in FIELDS)
    fields = dict((name, getattr(thing, name)) for name in CHARACTER_FIELDS)
    fields["resist"] = list(fields["resist"])
    return fields
