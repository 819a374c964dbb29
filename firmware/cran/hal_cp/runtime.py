# CircuitPython as the firmware sees MicroPython: the few names of `time` and `machine`
# the app uses, over supervisor, microcontroller and rtc, registered under those names
# before the first firmware import. CircuitPython's built-in modules can be neither
# extended nor shadowed by a file, and the app's code is written against MicroPython's
# API: doing it here keeps that code, and the MicroPython badge's RAM, as they are.
# The core's tick period becomes supervisor.ticks_ms's (2**29) here too, once.
import sys


def install():
    """Before anything of cran but this package is imported (code.py, the tests'
    runner). Idempotent."""
    from cran.core import ticks
    from cran.hal_cp import chip, clock
    sys.modules["time"] = clock
    sys.modules["machine"] = chip
    ticks.set_period(clock.TICKS_PERIOD)
