# Who the wearer is (RULES.md P1) and how this game plays every [choice] of RULES.md.
# Plain data with validation; the engine reads them, never changes them.

from cran.core.vocab import ParseError

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
                # Text comes at the start or on the host: the grammar is loaded then only.
                from cran.core.words import parse_duration
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
