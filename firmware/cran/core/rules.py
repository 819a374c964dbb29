# Who the wearer is (docs/rules.md P1) and how this game plays every [choice] of
# docs/rules.md that has a setting.
# Plain data; the engine reads them, never changes them. What the choices are, and their
# checks, is cran.core.choices: loaded to make or change Settings, not kept on a badge
# that plays (its table and checks are ~2 KB of the heap).


class Settings:
    """Every setting of docs/rules.md (cran.core.choices.FIELDS), with the project's default.
    One per game."""

    def __init__(self, **values):
        from cran.core.choices import FIELDS
        for name, spec in FIELDS.items():
            setattr(self, name, spec[0])
        for name, value in values.items():
            self.set(name, value)

    def set(self, name, value):
        """Set one setting from a Python value or its text form. Raises ParseError."""
        from cran.core.choices import check
        setattr(self, name, check(name, value))


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

    def set(self, name, value):
        """Set one field (cran.core.choices.CHARACTER_FIELDS) from a Python value or
        its text form. Raises ParseError."""
        from cran.core.choices import character_value
        setattr(self, name, character_value(name, value))
