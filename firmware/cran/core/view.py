# The wearer as a scenario's `expect` reads them (docs/scenarios.md) and the console's
# `status` says them: each field as text. Loaded by what reads (the console, the host's
# tools), not kept by a badge that plays: ~0.3 KB of its heap all day.
from cran.core.steps import COUNTDOWN
from cran.core.vocab import ARMOR_DAMAGED, STATES

# Fields of a scenario's `expect`, in the order traces show them.
FIELDS = ("etat", "armure", ARMOR_DAMAGED, "effets", "brises", "dit", "reste", "combat",
          "jeu", "renommee")


def view(state, now):
    """The wearer as `expect` sees them: field -> text, for every name in FIELDS."""
    left = state.left_ms(COUNTDOWN, now)
    return {
        "etat": STATES[state.etat],
        "armure": str(state.armor_answers()),
        ARMOR_DAMAGED: "oui" if state.armor_damaged else "non",
        "effets": ",".join(state.effects()) or "-",
        "brises": ",".join(sorted(state.broken)) or "-",
        "dit": state.said,
        "reste": "-" if left is None else str((left + 999) // 1000),
        "combat": "oui" if state.in_combat() else "non",
        "jeu": state.play(),
        "renommee": str(state.renown),
    }
