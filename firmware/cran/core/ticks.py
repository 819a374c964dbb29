# Wraparound-safe tick arithmetic on the period of the runtime's tick counter, whatever
# runs us. The unix port and CPython wrap much later; doing it here keeps the desktop
# honest.

# MicroPython's time.ticks_ms wraps at 2**30 on an ESP32, and so does every desktop run
# (the virtual hardware's clock). CircuitPython's supervisor.ticks_ms wraps at 2**29:
# its runtime sets TICKS_PERIOD to that (cran.hal_cp.runtime.install), once, before
# any tick is read. A module global, not a const(): mpy-cross can't know which runtime
# the .mpy will run on.
TICKS_PERIOD = 1 << 30


def ticks_add(ticks, delta_ms):
    return (ticks + delta_ms) & (TICKS_PERIOD - 1)


def ticks_diff(end, start):
    # Signed distance end - start, valid while |distance| < TICKS_PERIOD / 2 (about 6
    # days on MicroPython, 3 on CircuitPython). One expression, no local: with one, the
    # M5StickC's fight in ROMFS no longer lived in 66 KB (measured; a Python function's
    # frame goes on the heap past 11 words: cran.core.engine.act), and this runs at
    # every wake-up.
    return ((end - start + (TICKS_PERIOD >> 1)) & (TICKS_PERIOD - 1)) - (TICKS_PERIOD >> 1)
