# The rules engine (docs/rules.md S, A, K, C, P). Pure: time comes in as a tick count,
# nothing is read or shown here. act() and tick() return a new State and the cues:
# what the badge must tell the wearer, each (tick, kind, value, private). The rules of
# what comes rarely beside hits and timers, an order or a dissipe, are cran.core.orders,
# which act() loads for one.

from cran.core.steps import (
    COUNTDOWN,
    PUBLIC_LOOK,
    end_combat,
    set_etat,
    set_timer,
    start_combat,
)
from cran.core.ticks import ticks_add, ticks_diff
from cran.core.vocab import (
    AGONISANT,
    BLESSE,
    COMA,
    CUE_ARMOR,
    CUE_BROKEN,
    CUE_EFFECT,
    CUE_END,
    CUE_IGNORED,
    CUE_LOOK,
    CUE_NOTICED,
    CUE_RESET,
    CUE_SAY,
    CUE_SHOW,
    EFFECTS,
    MORT,
    PLAYS,
    PLEINE_FORME,
    STATES,
    TIMED_EFFECTS,
    const,
)

# Timer names besides the 5-minute effects, which are timers named after themselves.
_COMBAT = const("combat")         # C1 (cran.core.steps's)
_DESARME = const("desarme")       # K8
_VOL = const("vol")               # K13
# Every timer a state can hold, in the order those due at one tick fire (_fire_rank).
# The journal writes the running ones as bits of their places here (summary()): a new
# timer or effect goes at the end, never between (tests/test_effects.py pins them).
TIMER_NAMES = (COUNTDOWN, _DESARME, _VOL, _COMBAT) + TIMED_EFFECTS
# The timers that are effects (State.effects): those shown, and vol (K13), never shown.
EFFECT_TIMERS = EFFECTS + (_VOL,)

# K7: at most this many things broken at once. A target is a word of at most 24
# characters (cran.core.words), kept in the state and in K9's state before it: so the
# state record stays a few KB below its slot (storage.MAX_RECORD_BYTES, tests/
# test_record.py), and one more broken thing is ignored, said privately.
MAX_BROKEN = 16

# The keywords of a state (S2, K4, K5, K6): a normal hit's kind.
_STATE_WORDS = const(("blesse", "agonisant", "coma", "mort", "mort-si-coma"))


class State:
    """Everything the badge remembers about its wearer. Treat as a value: act() and
    tick() return a new one and never change the one given."""

    def __init__(self, character, settings):
        self.character = character
        self.settings = settings
        self.etat = PLEINE_FORME
        # name -> deadline tick while running, or ms left while frozen (K15, K16).
        self.timers = {}
        self.frozen = False
        self.stopped = False       # K15
        self.out_of_game = False   # K16
        self.armor_left = character.armor
        self.armor_damaged = False
        self.creature_left = character.creature
        # A tuple, never changed in place: the copies of a state share it (an action
        # copies the state, and a hit allocates less before its LEDs show it).
        self.broken = ()  # type: tuple
        self.said = "-"
        # The answer the wearer was last asked to say aloud, and its tick: (word, tick),
        # or None. Apart from said, which the next action clears (a hit ignored as
        # mitraille too: C2): the badge shows the answer for a while (cran.looks.saying)
        # through such a hit, and ends it when the etat changes or an order comes.
        # A tick, so never saved: a badge restarted has nothing to show.
        self.answer = None
        self.last_hit = None       # C2: tick of the last normal hit, counted or not
        self.renown = 0
        # K9: the state just before the last Coup/Effet received, and its keyword.
        self.before = None
        self.last_kw = None

    def copy(self, keep_before=True):
        s = object.__new__(State)   # skip __init__: every field is set below
        s.character = self.character
        s.settings = self.settings
        s.etat = self.etat
        s.timers = dict(self.timers)
        s.frozen = self.frozen
        s.stopped = self.stopped
        s.out_of_game = self.out_of_game
        s.armor_left = self.armor_left
        s.armor_damaged = self.armor_damaged
        s.creature_left = self.creature_left
        s.broken = self.broken
        s.said = self.said
        s.answer = self.answer
        s.last_hit = self.last_hit
        s.renown = self.renown
        s.before = self.before if keep_before else None
        s.last_kw = self.last_kw if keep_before else None
        return s

    def countdown_ms(self):
        """S3/S4: what the countdown gives until it is run out; durations as set."""
        c = self.character
        if self.etat == AGONISANT:
            return c.agonisant_ms or self.settings.agonisant_ms
        return c.coma_ms or self.settings.coma_ms

    def left_ms(self, name, now):
        """ms left on a timer, None if it is not running."""
        value = self.timers.get(name)
        if value is None:
            return None
        if self.frozen:
            return value
        return max(0, ticks_diff(value, now))

    def effects(self):
        """The running timers that are effects (EFFECT_TIMERS), sorted."""
        return sorted(n for n in self.timers if n in EFFECT_TIMERS)

    def in_combat(self):
        return _COMBAT in self.timers

    def armor_answers(self):
        return 0 if self.armor_damaged else self.armor_left

    def play(self):
        """A word of PLAYS: the game's stop (K15) over the wearer's own (K16)."""
        return PLAYS[2 if self.stopped else 1 if self.out_of_game else 0]


def new_state(character, settings):
    return State(character, settings)


def next_deadline(state):
    """The tick at which tick() has something to do, or None (nothing runs, or frozen)."""
    if state.frozen or not state.timers:
        return None
    best = None
    for deadline in state.timers.values():
        if best is None or ticks_diff(deadline, best) < 0:
            best = deadline
    return best


def summary(state):
    """The state as the journal keeps it after every change (cran.badge writes it,
    host_tools/debrief/journal.py reads it): [etat, armor answers, armor damaged (1 or 0), its
    place in PLAYS, the running timers as bits (bit i: TIMER_NAMES[i])] and the broken
    targets, sorted. Numbers, not words: the journal is on the badge's flash, and a
    debrief draws what the badge said, never what the rules would have made of it.
    (This, the cues' codes and PLAYS cost ~0.6 KB of a 32-bit heap after boot as
    files, ~0.2-0.4 KB in ROMFS: the price of a debrief that reads the badge's own
    state where it guessed it from the cues, in a sixth fewer bytes an entry.)"""
    timers = 0
    for name in state.timers:
        timers |= 1 << TIMER_NAMES.index(name)
    return [state.etat, state.armor_answers(), 1 if state.armor_damaged else 0,
            PLAYS.index(state.play()), timers] + sorted(state.broken)


# ---- time -------------------------------------------------------------------------

_NO_CUES = const(())


def tick(state, now):
    """Fire every timer due at or before now, in deadline order. -> (state, cues)"""
    if state.frozen or not state.timers or _next_due(state, now) is None:
        return state, _NO_CUES   # an idle tick makes no cue list
    s = state.copy()
    cues = []  # type: list
    while True:
        name = _next_due(s, now)
        if name is None:
            return s, cues
        first = len(cues)
        was_down = s.etat >= COMA
        _fire(s, name, s.timers.pop(name), cues)
        if was_down or s.etat >= COMA:
            # S7, decided at each deadline: the same cues however the ticks fall.
            _keep_private(cues, first)


def _next_due(s, now):
    # Ties go by a fixed order: dict order differs between CPython and MicroPython.
    best = None
    best_late = -1
    for name in s.timers:
        late = ticks_diff(now, s.timers[name])
        if late < 0:
            continue
        if (best is None or late > best_late
                or (late == best_late and _fire_rank(name) < _fire_rank(best))):
            best = name
            best_late = late
    return best


def _fire_rank(name):
    return TIMER_NAMES.index(name)


def _fire(s, name, deadline, cues):
    if name == COUNTDOWN:
        # A countdown that follows another starts at the previous deadline (no drift).
        set_etat(s, COMA if s.etat == AGONISANT else MORT, deadline, cues)
    elif name == _COMBAT:
        end_combat(s, deadline, cues)
    elif name == _VOL:
        cues.append((deadline, CUE_NOTICED, "vol", True))   # K13: the theft is noticed
    else:
        cues.append((deadline, CUE_END, name, False))        # K3, K8: the effect is over


def update_freeze(s, now):
    settings = s.settings
    freeze = ((s.stopped and settings.stop_freezes_timers)
              or (s.out_of_game and not settings.timers_run_out_of_game))
    if freeze and not s.frozen:
        for name in s.timers:
            s.timers[name] = max(0, ticks_diff(s.timers[name], now))
    elif s.frozen and not freeze:
        for name in s.timers:
            s.timers[name] = ticks_add(now, s.timers[name])
    s.frozen = freeze


# ---- actions ----------------------------------------------------------------------

def act(state, action, now, ticked=False):
    """Apply one action at tick now (timers due by then fire first). -> (state, cues)
    ticked: the caller has just run tick() to now, so none is due (Badge.apply: a press
    is shown sooner without a second look over the timers)."""
    # The functions a hit goes through keep their locals and stack within 11 words, so
    # MicroPython gives them a frame on the C stack, not one allocated on the heap.
    if ticked or state.frozen or not state.timers:   # tick()'s own idle test, no call
        cues = []
    else:
        state, cues = tick(state, now)
        cues = list(cues)
    if action.verb in ("coup", "effet") and not (
            action.kw == "statue" and action.divin and action.masse):
        return _receive(state, action, now, cues)
    return _order(state, action, now, cues)


def _order(state, action, now, cues):
    """act() for anything but a Coup or Effet received: cran.core.orders's rules, loaded
    for it (a badge lets them go after: cran.badge), but for a new character."""
    verb = action.verb
    if verb in ("coup", "effet"):
        verb = "stop"   # K15: «Effet Statue Divin de Masse» stops the game
    s = state.copy(keep_before=False)   # K9: only a Coup/Effet just received is dissipated
    s.said = "-"
    s.answer = None
    if verb == "reset":
        s = _reset(s, now, cues)
    else:
        from cran.core.orders import order
        order(s, verb, action, now, cues)
    update_freeze(s, now)
    return s, cues


def _reset(s, now, cues):
    # P3: a fresh character with the same settings; the game's stop or the wearer's
    # being out of game are not the character's and stay.
    fresh = State(s.character, s.settings)
    fresh.stopped = s.stopped
    fresh.out_of_game = s.out_of_game
    cues.append((now, CUE_RESET, "-", False))
    cues.append((now, CUE_LOOK, PUBLIC_LOOK[PLEINE_FORME], False))
    return fresh


def _receive(state, action, now, cues):
    """A Coup or Effet lands on the wearer. -> (state, cues)"""
    first = len(cues)
    s = state.copy()
    s.said = "-"
    if _ignored(s, action, now, cues):
        pass                     # (the cue says why)
    elif action.kw == "dissipe":
        from cran.core.orders import dissipe  # rare: loaded for it, as an order is
        s = dissipe(s, action.target, now, cues, tick)
    else:
        # States are values, so the one given can be kept as is, unless it holds a
        # snapshot itself: then a copy without it keeps the chain one link long.
        s.before = state if state.before is None else state.copy(keep_before=False)
        s.last_kw = action.kw or "coup"
        if action.kw == "resiste":
            s.before = None      # K9: nobody dissipates a «Résiste»
        start_combat(s, now, cues)
        took_hold = not _absorbed(s, action, now, cues) and _take(s, action, now, cues)
        # K1, K2: a harmful action that took hold ends the effects running before it
        # (a repeated effect just starts again); with single_effect off they stack.
        if ((took_hold or s.settings.effect_ends_on_absorbed)
                and (s.settings.single_effect or action.kw not in TIMED_EFFECTS)
                and _end_effects(s, action.kw, now, cues)):
            took_hold = True
        if not took_hold:
            # K9: one that changed nothing (answered by armor, helmet, creature or a
            # resistance, or left as it was) leaves nothing to cancel: a dissipe after
            # it gives no spent answer back, nor cancels what came before it.
            s.before = None
    if state.etat >= COMA or s.etat >= COMA:
        _keep_private(cues, first)
    return s, cues


def _keep_private(cues, first):
    # S7: around a body in coma or dead, only the public look may show; everything
    # else this action caused is for the wearer alone, so both look the same.
    for i in range(first, len(cues)):
        t, kind, value, private = cues[i]
        if kind != CUE_LOOK and not private:
            cues[i] = (t, kind, value, True)


def _ignored(s, action, now, cues):
    """Why this Coup/Effet does nothing at all (said by a cue), or None."""
    why = None
    if s.stopped:
        why = "stop"             # K15
    elif s.out_of_game:
        why = "hors-jeu"         # K16
    elif s.etat == MORT:
        why = "mort"             # S6
    elif action.kw is None:
        # A distance below 0 is a hit more than half the tick period ago (74 hours on
        # CircuitPython) whose tick has come round again, not one still to come.
        if s.last_hit is not None and 0 <= ticks_diff(now, s.last_hit) < \
                s.settings.mitraille_ms:
            why = "mitraille"    # C2
        elif s.etat == COMA:
            why = "coma"         # S5
        s.last_hit = now         # C2: the last normal hit, counted or not
    if why:
        cues.append((now, CUE_IGNORED, why, True))
    return why


def _absorbed(s, action, now, cues):
    """Armor, creature, helmet or resistance answer it (A1, A5, A6, K12)."""
    if action.divin:
        return False             # K10
    c = s.character
    if action.kw is None:
        if not s.armor_damaged and s.armor_left > 0:     # A1, A2
            s.armor_left -= 1
            s.said = "armure"
        elif s.creature_left > 0:                        # A6
            s.creature_left -= 1
            s.said = "cri"
        else:
            return False
    elif action.kw in c.resist:                          # K12
        s.said = "resiste"
    elif action.kw == "assomme" and action.verb == "coup" and c.helmet:   # A5
        s.said = "resiste"
    else:
        return False
    s.answer = (s.said, now)
    cues.append((now, CUE_SAY, s.said, False))
    return True


def _end_effects(s, keep, now, cues):
    # The 5-minute effects running before the action, but keep: read from the timers
    # now, not listed before the action, since all it can add is keep itself (or end
    # them all, on death). Most hits find none: the few timers are looked over, and a
    # list is made only for effects to end, in TIMED_EFFECTS' order (the cues' order).
    # -> whether it ended one.
    for name in s.timers:
        if name != keep and name in TIMED_EFFECTS:
            break
    else:
        return False
    return _end_all(s, keep, now, cues)


def _end_all(s, keep, now, cues):
    # Apart from _end_effects: this loop and its cue would not fit the frame of a hit's
    # path in 11 words (see act), and few hits come here.
    timers = s.timers
    for name in TIMED_EFFECTS:   # in their order: the cues' order
        if name != keep and name in timers:
            del timers[name]
            cues.append((now, CUE_END, name, False))
    return True


def _take(s, action, now, cues):
    """Apply a Coup/Effet nothing answered. -> whether it took hold (K1): one that the
    rules make do nothing (K4 on coma, K5 on a wearer already as low, K6 off coma,
    a «Résiste» received) did not. (action.kw read again and again: a local more and
    the frame would not fit in 11 words, see act.)"""
    if action.kw is None or action.kw in _STATE_WORDS:
        old = s.etat
        if action.kw is None or action.kw == "blesse":       # S2, K4
            if s.etat <= BLESSE or (s.etat == AGONISANT and (
                    action.kw is None or s.settings.blesse_from_agonisant == "coma")):
                set_etat(s, s.etat + 1, now, cues)
        elif action.kw == "mort-si-coma":                    # K6
            if s.etat == COMA:
                set_etat(s, MORT, now, cues)
        elif STATES.index(action.kw) > s.etat or s.settings.keyword_state_raises:   # K5
            set_etat(s, STATES.index(action.kw), now, cues)   # (the same: says nothing)
        if s.etat > old and action.verb == "coup" and s.character.armor and not s.armor_damaged:
            s.armor_damaged = True                   # A4: wounded through the armor
            cues.append((now, CUE_ARMOR, "abimee", False))
        return s.etat != old
    if action.kw in TIMED_EFFECTS:               # K2, K3
        set_timer(s, action.kw, now, s.settings.effect_ms)
        cues.append((now, CUE_EFFECT, action.kw, False))
    elif action.kw == "brise":                   # K7
        if action.target not in s.broken:
            if len(s.broken) >= MAX_BROKEN:
                cues.append((now, CUE_IGNORED, "trop-de-brises", True))
                return False
            s.broken += (action.target,)
        if action.target == "armure" and s.character.armor:
            s.armor_damaged = True               # a broken armor answers nothing
        cues.append((now, CUE_BROKEN, action.target, False))
    elif action.kw == "desarme":                 # K8
        set_timer(s, _DESARME, now, s.settings.desarme_ms)
        cues.append((now, CUE_EFFECT, "desarme", False))
    elif action.kw == "vol":                     # K13: noticed only later
        set_timer(s, _VOL, now, s.settings.vol_notice_ms)
    elif action.kw == "resiste":                 # K12: «your action did nothing»
        return False
    else:                                        # K14: honour system, shown only
        cues.append((now, CUE_SHOW, action.kw, False))
    return True
