# Every [choice] of RULES.md: its name, the project's default and how a settings file or
# the console spells it (its kind), and the checks. Loaded to make or change Settings: at
# a badge's start (cran.start lets it go before the app loads), or on the host.

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
        raise ParseError("unknown setting '%s'" % name)
    kind = FIELDS[name][1]
    if isinstance(value, str):
        if kind == "duration":
            from cran.core.words import parse_duration  # text: the grammar reads it
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
    return value
