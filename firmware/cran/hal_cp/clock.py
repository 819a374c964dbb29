# MicroPython's `time` as the firmware uses it, on CircuitPython (runtime.install puts
# it in the place of `time`): ticks from supervisor.ticks_ms, which wraps at 2**29 ms
# ("Return the time in milliseconds since an unspecified reference point, wrapping after
# 2**29ms", docs.circuitpython.org shared-bindings/supervisor), and the calendar from
# CircuitPython's own time module.
import time as _cp_time  # the built-in: this module only takes its place later

import supervisor

TICKS_PERIOD = 1 << 29
_MAX = TICKS_PERIOD - 1
_HALF = TICKS_PERIOD >> 1

ticks_ms = supervisor.ticks_ms
localtime = _cp_time.localtime
gmtime = _cp_time.localtime   # CircuitPython's RTC keeps UTC: no time zone there
mktime = _cp_time.mktime
sleep = _cp_time.sleep
struct_time = _cp_time.struct_time   # machine.RTC (cran.hal_cp.chip) makes one


def ticks_add(ticks, delta_ms):
    return (ticks + delta_ms) & _MAX


def ticks_diff(end, start):
    return ((end - start + _HALF) & _MAX) - _HALF


def time():
    return _cp_time.time()


def sleep_ms(ms):
    _cp_time.sleep(ms / 1000)
