# What every board shows of a state, whatever it shows it with: which look the public
# sees, the answer the wearer says aloud, the effect shown, the warning before coma.
# Pure: time comes in as a tick. The LEDs' patterns of these looks are cran.cues (loaded
# on a board with LEDs), a screen's words cran.texts.

from cran.core.steps import COUNTDOWN, PUBLIC_LOOK
from cran.core.ticks import ticks_diff
from cran.core.vocab import AGONISANT, COMA, CUE_WARNING, EFFECTS, STATES

SLOT_MS = 128            # one step of every LED pattern, and of an answer's motif
WARNING_MS = 60000       # the last minute before coma (or, privately, before death)
UNKNOWN_LOOK = "inconnu"   # the app shows it in place of look() while the state is lost

# The answers the wearer is asked to say aloud (State.answer: armor, a helmet or a
# resistance, a creature's shout): each a look of its own for SAY_MS from the answer
# (on LEDs, every one flashing white: cran.cues), then the state's look comes back. Its
# motif is the answer's melody (cran.tunes) as light, so a board without a buzzer says
# it too.
SAYS = ("armure", "resiste", "cri")
SAY_MS = 3 * 8 * SLOT_MS    # a motif of 8 steps, three times: 3072 ms


def look(state, now):
    """Which look the public sees: a name of cran.cues._LOOKS (an answer of SAYS for
    SAY_MS after the engine asked for it)."""
    if state.stopped:
        return "stop"
    if state.out_of_game:
        return "hors-jeu"
    if state.answer is not None:   # (most hits: no call)
        said = saying(state, now)
        if said is not None:
            return said
    if state.etat == AGONISANT and not state.frozen:
        left = state.left_ms(COUNTDOWN, now)
        if left is not None and left <= WARNING_MS:
            return "alerte"
    seen = PUBLIC_LOOK[state.etat]
    if seen == "debout" and state.settings.idle_look == "blink":
        return "veille"
    return seen


def saying(state, now):
    """The answer (a word of SAYS) the badge shows now, or None: for SAY_MS after the
    engine asked for it (State.answer), and never in coma or mort: there the engine
    tells it to the wearer alone (S7), who reads it on the peek."""
    answer = state.answer
    if answer is None or state.etat >= COMA:
        return None
    if 0 <= ticks_diff(now, answer[1]) < SAY_MS:
        return answer[0]
    return None


def shown_effect(state, now, seen=None):
    """The effect the LEDs show, or None: the one ending first (desarme's 3 s before a
    5-minute one). None in coma and mort: an effect would tell them apart (S7); none
    while an answer shows on every LED."""
    seen = seen or look(state, now)
    # Literals, a constant tuple: the looks that hide effects, SAYS among them.
    if seen in ("stop", "hors-jeu", "inerte", "inconnu", "armure", "resiste", "cri"):
        return None
    # The state's few timers are looked over, not the 11 effects (each a left_ms()
    # call): this runs at every wake-up and at a hit. Most find none; those that do
    # pick in _soonest, whose loop would make this frame too big for the C stack (a
    # hit's path keeps them within 11 words, see cran.core.engine.act).
    for name in state.timers:
        if name in EFFECTS:
            return _soonest(state, now)
    return None


def _soonest(state, now):
    # The effect ending first; ties go to the first of EFFECTS.
    best = None
    best_left = 0
    for name in state.timers:
        if name in EFFECTS:
            left = state.left_ms(name, now)
            if best is None or left < best_left or (
                    left == best_left and EFFECTS.index(name) < EFFECTS.index(best)):
                best = name
                best_left = left
    return best


def warning_due(state, now):
    """ms until the last-minute warning before coma or death (0: it is on now), None
    without a running countdown. The app plays warning_cue() once per countdown."""
    if state.frozen:
        return None
    left = state.left_ms(COUNTDOWN, now)
    if left is None:
        return None
    return max(0, left - WARNING_MS)


def warning_cue(state, now):
    """The warning as a cue for melody_for(): private in coma (S7: a sound a minute
    before death would tell a comatose body from a dead one)."""
    return (now, CUE_WARNING, STATES[state.etat], state.etat >= COMA)
