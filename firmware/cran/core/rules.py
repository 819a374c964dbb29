# Who the wearer is (RULES.md P1) and how this game plays every [choice] of RULES.md.
# Plain data with validation; the engine reads them, never changes them.

from cran.core.words import ParseError, keyword, parse_duration, plain

_MINUTES_5 = 300000

ARMOR_NAMES = {"none": 0, "aucune": 0, "cuir": 1, "leather": 1, "metal": 2}
_YES = ("yes", "oui", "true", "1", "o", "y")
_NO = ("no", "non", "false", "0", "n")


def yes_no(text):
    text = text.lower()
    if text in _YES:
        return True
    if text in _NO:
        return False
    raise ParseError("expected yes/no (oui/non), got '%s'" % text)


def count(text, what):
    if not text.isdigit():
        raise ParseError("%s must be a whole number, got '%s'" % (what, text))
    return int(text)


class Settings:
    """Every [choice] of RULES.md, with the project's default. One per game."""

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

    def __init__(self, **values):
        for name, spec in self.FIELDS.items():
            setattr(self, name, spec[0])
        for name, value in values.items():
            self.set(name, value)

    def set(self, name, value):
        """Set one setting from a Python value or its text form. Raises ParseError."""
        if name not in self.FIELDS:
            raise ParseError("unknown setting '%s'" % name)
        kind = self.FIELDS[name][1]
        if isinstance(value, str):
            if kind == "duration":
                value = parse_duration(value)
            elif kind == "bool":
                value = yes_no(value)
        if kind == "duration":
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                raise ParseError("%s must be a duration, got %r" % (name, value))
            if value >= 1 << 29:
                raise ParseError("%s is longer than a badge can count (%r ms)" % (name, value))
        elif kind == "bool":
            if not isinstance(value, bool):
                raise ParseError("%s must be yes or no, got %r" % (name, value))
        elif value not in kind:
            raise ParseError("%s must be one of %s, got %r" % (name, "/".join(kind), value))
        setattr(self, name, value)

    def as_dict(self):
        return dict((name, getattr(self, name)) for name in self.FIELDS)


class Character:
    """P1: what an organiser sets for one wearer."""

    def __init__(self, name="", armor=0, helmet=False, creature=0, resist=(),
                 agonisant_ms=None, coma_ms=None):
        self.name = name
        self.armor = armor            # A1: «Armure» answers per combat
        self.helmet = helmet          # A5
        self.creature = creature      # A6: normal hits absorbed per combat
        self.resist = tuple(resist)   # K12
        self.agonisant_ms = agonisant_ms  # S3; None: the game's setting
        self.coma_ms = coma_ms            # S4; None: the game's setting

    def as_dict(self):
        return {"name": self.name, "armor": self.armor, "helmet": self.helmet,
                "creature": self.creature, "resist": list(self.resist),
                "agonisant_ms": self.agonisant_ms, "coma_ms": self.coma_ms}


def split_fields(text):
    """'a=1 name="two words"' -> [('a', '1'), ('name', 'two words')]. Raises ParseError."""
    fields = []
    i = 0
    n = len(text)
    while i < n:
        if text[i] in " \t":
            i += 1
            continue
        eq = text.find("=", i)
        space = text.find(" ", i)
        if eq < 0 or (0 <= space < eq):
            end = space if space >= 0 else n
            raise ParseError("expected FIELD=VALUE, got '%s'" % text[i:end])
        name = text[i:eq].strip().lower()
        i = eq + 1
        if i < n and text[i] in "\"'":
            close = text.find(text[i], i + 1)
            if close < 0:
                raise ParseError("unclosed quote after %s=" % name)
            value = text[i + 1:close]
            i = close + 1
        else:
            end = i
            while end < n and text[end] not in " \t":
                end += 1
            value = text[i:end]
            i = end
        if not name:
            raise ParseError("a field name is missing before '='")
        fields.append((name, value))
    return fields


_CHARACTER_ALIASES = {"nom": "name", "armure": "armor", "armour": "armor", "casque": "helmet",
                      "creature": "creature", "resiste": "resist", "resistances": "resist",
                      "dying": "agonisant"}


def parse_character(text):
    """The fields of a scenario's `character` line (without the word) -> Character."""
    c = Character()
    seen = []
    for name, value in split_fields(text):
        name = _CHARACTER_ALIASES.get(name, name)
        if name in seen:
            raise ParseError("%s is given twice" % name)
        seen.append(name)
        if name == "name":
            c.name = value
        elif name == "armor":
            low = plain(value)
            c.armor = ARMOR_NAMES[low] if low in ARMOR_NAMES else count(
                low, "armor (none, cuir, metal or a count)")
        elif name == "helmet":
            c.helmet = yes_no(value)
        elif name == "creature":
            c.creature = count(value, "creature")
        elif name == "resist":
            c.resist = _resistances(value)
        elif name in ("agonisant", "coma"):
            ms = parse_duration(value)
            if ms <= 0 or ms >= 1 << 29:
                raise ParseError("%s must be a duration above 0, got '%s'" % (name, value))
            setattr(c, name + "_ms", ms)
        else:
            raise ParseError("unknown character field '%s'" % name)
    return c


def _resistances(value):
    out = []
    for word in plain(value.replace(",", " ")).split():
        if word == "-":
            continue
        kw = keyword(word)
        if kw is None:
            raise ParseError("unknown keyword '%s' in resist" % word)
        if kw in ("dissipe", "resiste"):
            raise ParseError("nobody resists %s (K9, K12)" % kw)
        out.append(kw)
    return out
