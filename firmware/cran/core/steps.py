# The steps of the rules that a hit, a timer and an order all take (cran.core.engine's
# act and tick, cran.core.orders' orders and dissipe): the wearer's etat set and said,
# the combat started and ended, a timer set. Pure, as the engine; resident with it.
from cran.core.ticks import ticks_add
from cran.core.vocab import (
    AGONISANT,
    COMA,
    CUE_ARMOR,
    CUE_COMBAT,
    CUE_COUNTDOWN,
    CUE_LOOK,
    CUE_STATE,
    MORT,
    STATES,
    const,
)

COUNTDOWN = "countdown"    # S3/S4: agonisant -> coma -> mort
_COMBAT = const("combat")         # C1
# S7: what the people around see. coma and mort must look alike.
PUBLIC_LOOK = ("debout", "blesse", "au-sol", "inerte", "inerte")


def set_timer(s, name, base, duration_ms):
    s.timers[name] = duration_ms if s.frozen else ticks_add(base, duration_ms)


def announce(old, etat, at, cues):
    """The cues of a change of etat, old -> etat, at tick `at`, added to cues."""
    cues.append((at, CUE_STATE, STATES[etat], etat >= COMA))   # S7: coma and mort are private
    if PUBLIC_LOOK[etat] != PUBLIC_LOOK[old]:             # S7: coma -> mort shows nothing
        cues.append((at, CUE_LOOK, PUBLIC_LOOK[etat], False))


def set_etat(s, etat, base, cues):
    if etat == s.etat:
        return   # (K5 on a wearer already that low, or lower: nothing to say)
    announce(s.etat, etat, base, cues)
    s.etat = etat
    s.answer = None   # the new look shows at once
    if etat in (AGONISANT, COMA):
        set_timer(s, COUNTDOWN, base, s.countdown_ms())
        cues.append((base, CUE_COUNTDOWN, STATES[etat], True))
    else:
        s.timers.pop(COUNTDOWN, None)
    if etat == MORT:
        gone = s.effects()   # (not a for loop: its iterator takes 5 words of the frame)
        while gone:
            del s.timers[gone.pop()]


def end_combat(s, at, cues):
    s.timers.pop(_COMBAT, None)
    cues.append((at, CUE_COMBAT, "fin", True))
    if s.armor_left != s.character.armor:
        s.armor_left = s.character.armor          # A3: answers come back
        if not s.armor_damaged:
            cues.append((at, CUE_ARMOR, "rechargee", True))
    if s.settings.creature_per_combat:
        s.creature_left = s.character.creature   # A6


def start_combat(s, now, cues):
    # s.in_combat() and set_timer() spelled out: every hit comes here.
    timers = s.timers
    if _COMBAT not in timers:
        cues.append((now, CUE_COMBAT, "debut", True))
    rest = s.settings.combat_rest_ms                        # C1
    timers[_COMBAT] = rest if s.frozen else ticks_add(now, rest)
