# Wraparound-safe tick arithmetic with the ESP32's period, whatever runs us.
# The unix port and CPython wrap much later; doing it here keeps the desktop honest.

from cran.core.vocab import const

TICKS_PERIOD = 1 << 30
# Written in place by mpy-cross (const): every action and wake-up does tick arithmetic.
_TICKS_MAX = const((1 << 30) - 1)
_TICKS_HALF = const(1 << 29)


def ticks_add(ticks, delta_ms):
    return (ticks + delta_ms) & _TICKS_MAX


def ticks_diff(end, start):
    # Signed distance end - start, valid while |distance| < 2**29 ms (about 6 days).
    return ((end - start + _TICKS_HALF) & _TICKS_MAX) - _TICKS_HALF
