# Wraparound-safe tick arithmetic with the ESP32's period, whatever runs us.
# The unix port and CPython wrap much later; doing it here keeps the desktop honest.

TICKS_PERIOD = 1 << 30
_TICKS_MAX = TICKS_PERIOD - 1
_TICKS_HALF = TICKS_PERIOD // 2


def ticks_add(ticks, delta_ms):
    return (ticks + delta_ms) & _TICKS_MAX


def ticks_diff(end, start):
    # Signed distance end - start, valid while |distance| < 2**29 ms (about 6 days).
    return ((end - start + _TICKS_HALF) & _TICKS_MAX) - _TICKS_HALF
