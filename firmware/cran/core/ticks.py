# Wraparound-safe tick arithmetic on the period of the runtime's tick counter, whatever
# runs us. The unix port and CPython wrap much later; doing it here keeps the desktop
# honest.

# MicroPython's time.ticks_ms wraps at 2**30 on an ESP32, and so does every desktop run
# (the virtual hardware's clock). CircuitPython's supervisor.ticks_ms wraps at 2**29:
# its runtime says so (set_period, from cran.hal_cp.runtime.install), once, before any
# tick is read. Module globals, not const()s: mpy-cross can't know which runtime the
# .mpy will run on. The arithmetic takes the period's mask and half, never the period:
# 2**30 is past a 32-bit MicroPython's small ints (31 bits), and every sum with it
# would allocate a long int - at every wake-up (measured: +126 B of garbage each).
TICKS_PERIOD = 1 << 30
_MASK = (1 << 30) - 1
_HALF = 1 << 29


def set_period(period):
    """The runtime's tick period (a power of two): the core's arithmetic wraps there."""
    global TICKS_PERIOD, _MASK, _HALF
    TICKS_PERIOD, _MASK, _HALF = period, period - 1, period >> 1


def ticks_add(ticks, delta_ms):
    return (ticks + delta_ms) & _MASK


def ticks_diff(end, start):
    # Signed distance end - start, valid while |distance| < TICKS_PERIOD / 2 (about 6
    # days on MicroPython, 3 on CircuitPython). One expression, no local: with one, the
    # M5StickC's fight in ROMFS no longer lived in 66 KB (measured; a Python function's
    # frame goes on the heap past 11 words: cran.core.engine.act), and this runs at
    # every wake-up.
    return ((end - start + _HALF) & _MASK) - _HALF
