# `time` for firmware on the virtual hardware (MicroPython unix port: a time.py first on
# sys.path shadows the built-in). ticks wrap at 2**30 like an ESP32 and move only with the
# virtual clock, so asyncio and the firmware both see virtual time. CPython never loads
# this file as `time` (built in there): see vclock.patch_cpython_time().
from vclock import (  # noqa: F401
    sleep,
    sleep_ms,
    sleep_us,
    ticks_add,
    ticks_diff,
    ticks_ms,
    ticks_us,
    time,
)

ticks_cpu = ticks_us

try:
    # The built-in module under its other name: calendar maths only, no clock.
    from utime import gmtime, localtime, mktime  # noqa: F401
except ImportError:
    pass


def time_ns():
    return time() * 1000000000
