# What the badge shows for a state on its LEDs: the looks' rhythms and colours, the
# frames and when they change. Pure: time comes in as a tick, the drivers cap
# brightness. Loaded on a board with LEDs only (cran.start.parts): which look shows
# and the warning before coma, every board's, are cran.looks; the melodies
# (cran.tunes) and the screen's words (cran.texts) are modules of their own, each
# module being bytecode in RAM.

from cran.core.ticks import ticks_diff
from cran.core.vocab import EFFECTS, const
from cran.looks import SAY_MS, SAYS, SLOT_MS, look, shown_effect, warning_due

_SLOTS = const(32)              # a pattern is 32 steps: 4096 ms
# Steps are read from now & (period - 1). Both periods (4096, 8192 ms) divide the tick
# period 2**30, so a rhythm runs on unbroken across the wrap, with no stored start.
_PERIOD_MS = 2 * _SLOTS * SLOT_MS

_OFF = const((0, 0, 0))
_WHITE = const((255, 255, 255))
_BLUE = const((0, 0, 255))

# Lit cells of the bar: every LED (the look is not a state of the scale).
_ALL_LEDS = const(-1)

# look: (colour, on/off a step, lit cells of the bar). The rhythm and the number of lit
# LEDs tell the looks apart without colour. A rhythm is written as one period of it,
# read repeating (_lit, _next_flip): a steady light is "1", not 32 of them. It must
# divide 64 steps (veille's 8 s). The masks are strings in a badge's heap: the short
# ones are names it has anyway, the others smaller blocks (~0.1 KB in all, 32-bit).
_LOOKS = {
    "debout": ((0, 255, 0), "1", 4),                              # steady
    # Full health with idle_look "blink": one short flash every 8 s. Not every 4 s: one
    # LED shows an effect's code in the second 4 s, and a lone short flash there is
    # already the first effect's code.
    "veille": ((0, 255, 0), "1" + "0" * 63, 4),
    "blesse": ((255, 140, 0), "1" * 8 + "0" * 8, 3),             # slow blink
    "au-sol": ((255, 0, 0), "11001100" + "0" * 8, 2),            # double flash
    "alerte": ((255, 0, 0), "10", 2),                             # fast blink
    # One blip in 4 s, dim: coma and mort last long and say little (both alike, S7).
    "inerte": ((16, 0, 28), "11" + "0" * 30, 1),
    "hors-jeu": ((0, 160, 160), "1" * 24 + "0" * 8, 0),          # long on, short off
    "stop": (_WHITE, "1110", 0),                                  # strobe white/blue
    # État inconnu (a lost state, cran.badge): a 1 s glow then four quick flashes on
    # every LED, a rhythm no state, effect code or menu has; not a state of the scale,
    # so no bar that could read as healthier than anything.
    "inconnu": ((255, 0, 255), "1" * 8 + "00" + "10" * 4 + "0" * 14, _ALL_LEDS),
    # SAYS: a motif of 8 steps, repeated over SAY_MS from the answer (their steps count
    # from it, so a motif starts whole at the hit, wherever the 4 s rhythms stand).
    # Three short flashes: «Armure» (its three beeps); a short then a long one:
    # «Résiste» (its rising pair); one long flash: a creature's shout.
    "armure": (_WHITE, "10101000", _ALL_LEDS),
    "resiste": (_WHITE, "10111000", _ALL_LEDS),
    "cri": (_WHITE, "11111000", _ALL_LEDS),
}

# The looks by number (frame_code finds a look's number by a search, on a hit's path):
# those a hit leads to first, then the rest. Written out, not tuple(_LOOKS): a dict's
# order moves with its keys' hashes on MicroPython, and a literal stays in flash.
_LOOK_NAMES = ("blesse", "au-sol", "inerte", "armure", "resiste", "cri", "alerte", "debout",
               "hors-jeu", "inconnu", "stop", "veille")

# The effects' colours, in the order of EFFECTS (cran.core.vocab). An effect added after
# them takes them again from the first: its flashes (its number) tell it apart.
_EFFECT_RGB = const(((255, 255, 255), (255, 255, 0), (255, 0, 160), (255, 60, 0),
                     (120, 120, 0), (0, 80, 255), (200, 0, 255), (0, 255, 160),
                     (160, 0, 60), (180, 180, 255), (255, 100, 100)))


def _flashes(longs, shorts):
    mask = "11100" * longs + "100" * shorts
    return mask + "0" * (_SLOTS - len(mask))


def _bits(mask):
    # mask's 32 steps as an int: bit i, step i.
    return sum(1 << i for i in range(_SLOTS) if _lit(mask, i))


def _lit(mask, step):
    """1 if the rhythm mask ("1" or "0" a step, repeating) is lit at step, else 0."""
    # startswith(c, i), not mask[i] == c: MicroPython makes mask[i] a new one-character
    # string, looked up among all its interned strings (~10x as long).
    return 1 if mask.startswith("1", step % len(mask)) else 0


# The effects' codes by the effect's number in a frame code (1 + its place in
# EFFECTS; 0: none), as bits (bit i: step i lit): small ints, where 11 strings of 32
# characters took ~700 bytes of a badge's heap.
_EFFECT_MASKS = (0,) + tuple(_bits(_flashes(n // 5, n % 5)) for n in range(1, len(EFFECTS) + 1))


def _step(now):
    return (now & (_PERIOD_MS - 1)) // SLOT_MS   # 0..63


# A frame's key: everything it depends on at one step, as bits of a small int (no
# allocation: the show step computes it at every wake-up). Equal keys, equal frames.
# frame_code() puts it in its KEY_BITS low bits, the effect shown (0: none) in the
# _EFFECT_BITS above them, and the look above those.
KEY_BITS = 4
_EFFECT_BITS = const(4)
_ON = const(1)            # the look's light
_LIT2 = const(2)          # stop: the colours' phase; several LEDs: the effect's light
_SECOND = const(4)        # one LED: the 4 s of effect code (and _ON is then the effect's)
_FAULT = const(8)         # the save error's steps (the two low bits: which of them)

# A save that failed (the flash refused it: the badge would come back older after a
# power cut) shows on every look alike, so on coma and mort the same (S7): every LED
# red, dark, white, dark over the last 4 steps of each 4 s, where no look or effect code
# has its own signal; without colour, two short gaps or flashes each 4 s.
_FAULT_FROM = const(_SLOTS - 4)
_FAULT_RGB = const(((255, 0, 0), _OFF, _WHITE, _OFF))


def _key(seen, e, step, single, fault):
    # e: the effect's number (0 or None: none). A frame on a press's path: within 11
    # words (see cran.core.engine.act), so no local more.
    s = step % _SLOTS
    if fault and s >= _FAULT_FROM:
        return _FAULT | (s - _FAULT_FROM)
    on = _ON if _lit(_LOOKS[seen][1], step) else 0   # its period repeating, over 8 s
    if seen == "stop":
        return on | (_LIT2 if s & 1 else 0)
    if not e:
        return on
    if single:   # one LED: 4 s of state, then 4 s of effect code
        if step >= _SLOTS:
            return _SECOND | (_ON if _EFFECT_MASKS[e] >> s & 1 else 0)
        return on
    return on | (_LIT2 if _EFFECT_MASKS[e] >> s & 1 else 0)


def frame_code(state, now, led_count, layout="strip", fault=False, seen=None):
    """A small int naming led_frame(state, now, ...) among the frames this board can
    show: equal codes, equal frames. The app redraws only when it changes. fault: a
    save failed, shown too. seen: the look to show instead of look(state)
    (UNKNOWN_LOOK)."""
    seen = seen or look(state, now)
    e = shown_effect(state, now, seen)
    e = 0 if e is None else EFFECTS.index(e) + 1   # the effect's number
    # The step: a look's from the clock (0..63), an answer's from the answer (0..23, so
    # a failed save's steps never fall in it). Most hits were asked no answer.
    key = _key(seen, e, _step(now) if state.answer is None or seen not in SAYS
               else ticks_diff(now, state.answer[1]) // SLOT_MS,
               _single(layout, led_count), fault)
    return (((_LOOK_NAMES.index(seen) << _EFFECT_BITS) | e) << KEY_BITS) | key


def _single(layout, led_count):
    return layout == "single" or (layout == "strip" and led_count < 6)


def led_frame(state, now, led_count, layout="strip", seen=None):
    """-> [(r, g, b)] * led_count, uncapped. layout: single, strip or matrix-5x5."""
    return frame_of(frame_code(state, now, led_count, layout, seen=seen), led_count, layout)


def frame_of(code, led_count, layout="strip", cap=None):
    """The frame a frame_code() names: what led_frame() gives, without reading the state
    again (the app has the code already). cap: colour -> colour (the LEDs' brightness
    cap, Leds.cap), applied to each of the frame's few colours: the frame comes ready
    to write, with no pass over every LED to cap it (a hit's new look is drawn at once).
    The off colour is (0, 0, 0) under any cap."""
    e = (code >> KEY_BITS) & ((1 << _EFFECT_BITS) - 1)
    return _paint(_LOOK_NAMES[code >> (KEY_BITS + _EFFECT_BITS)],
                  EFFECTS[e - 1] if e else None, code & ((1 << KEY_BITS) - 1),
                  led_count, layout, cap or (lambda colour: colour))


def _paint(seen, effect, key, n, layout, cap):
    # Runs of cells are filled by slice assignment, in C, not LED by LED (25 on a
    # matrix): the ESP32 ports' builds have it (MICROPY_PY_ARRAY_SLICE_ASSIGN).
    if key & _FAULT:
        return [cap(_FAULT_RGB[key & 3])] * n
    colour, _, bar = _LOOKS[seen]
    frame = [_OFF] * n
    if seen == "stop":
        if key & _ON:
            white, blue = cap(_WHITE), cap(_BLUE)
            phase = 1 if key & _LIT2 else 0
            for i in range(n):   # neighbours in opposite colours, swapping each step
                frame[i] = white if (i + phase) & 1 == 0 else blue
        return frame
    if _single(layout, n):
        if key & _SECOND:
            colour = _EFFECT_RGB[EFFECTS.index(effect) % len(_EFFECT_RGB)]
        if key & _ON:
            frame = [cap(colour)] * n
        return frame
    matrix = layout == "matrix-5x5"
    if key & _ON:
        colour = cap(colour)
        if seen == "hors-jeu":
            for i in ((0, 4, 20, 24) if matrix else (0, n - 1)):   # the corners, the ends
                frame[i] = colour
        elif bar == _ALL_LEDS:                                   # inconnu, an answer
            frame = [colour] * n
        elif matrix:
            frame[25 - 5 * bar:25] = [colour] * (5 * bar)         # rows from the bottom
        else:
            frame[:bar] = [colour] * bar
    if effect is not None and key & _LIT2:
        rgb = cap(_EFFECT_RGB[EFFECTS.index(effect) % len(_EFFECT_RGB)])
        if matrix:
            frame[:5] = [rgb] * 5                               # the top row
        else:
            frame[n - 2:] = [rgb, rgb]                          # the last two
    return frame


def next_change_ms(state, now, led_count=1, layout="single", fault=False, seen=None):
    """ms until led_frame() next changes on its own, or None if it is steady. The app
    also wakes at the engine's next_deadline(): a timer running out changes the state.
    seen: as frame_code's."""
    seen = seen or look(state, now)
    if seen in SAYS:   # an answer: its next flash's edge, or its end (the look is back)
        since = ticks_diff(now, state.answer[1])
        k = _next_flip(_LOOKS[seen][1], since // SLOT_MS)
        left = SAY_MS - since
        return left if k is None else min(left, k * SLOT_MS - since % SLOT_MS)
    effect = shown_effect(state, now, seen)
    step = _step(now)
    if effect is None and seen != "stop" and not fault:
        # The look's own rhythm alone (most wake-ups): its next flip, found by the
        # string search in C, not by stepping through up to 64 keys in Python (on an
        # ESP32 that was ~10-20 ms of every idle wake-up).
        k = _next_flip(_LOOKS[seen][1], step)
    else:
        single = _single(layout, led_count)
        e = EFFECTS.index(effect) + 1 if effect else 0   # its number, as _key takes it
        key = _key(seen, e, step, single, fault)
        k = None
        for i in range(1, 2 * _SLOTS + 1):
            if _key(seen, e, (step + i) % (2 * _SLOTS), single, fault) != key:
                k = i
                break
    best = None if k is None else k * SLOT_MS - (now & (SLOT_MS - 1))
    if seen == "au-sol":
        due = warning_due(state, now)
        if due is not None and (best is None or due < best):
            best = due
    return best


def _next_flip(mask, step):
    """Steps from step until mask (a rhythm of "1"/"0", repeating) changes, or None."""
    n = len(mask)
    s = step % n
    other = "0" if _lit(mask, s) else "1"
    i = mask.find(other, s + 1)
    if i >= 0:
        return i - s
    i = mask.find(other)
    return None if i < 0 else n - s + i
