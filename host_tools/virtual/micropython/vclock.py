# Virtual clock for the virtual hardware: ESP32 ticks (wrap at 2**30 ms) that move only
# when told, so five minutes of a game pass in a millisecond and every run is the same.
# Runs under CPython and the MicroPython unix port.

TICKS_PERIOD = 1 << 30
_MASK = TICKS_PERIOD - 1
_HALF = TICKS_PERIOD // 2

_start_ms = 0      # ticks_ms() at elapsed 0
_elapsed_ms = 0    # virtual ms since start, never wraps: alarms are kept in it
DEFAULT_EPOCH_S = 1735689600   # 2025-01-01 UTC: a fixed, plausible date
_epoch_s = DEFAULT_EPOCH_S     # time() at elapsed 0
_alarms = []       # objects with .due_ms (elapsed ms or None) and .fire()
_real = None       # (clock_ms, sleep_ms) once time is real (use_real_clock), else None
_real_us = None    # (ticks_us, ticks_diff, sleep_us) of the real clock, when it has them
_real_base = 0     # clock_ms() at elapsed 0, in real time
# Real time, with something outside the chip that acts on its own (`cran vbadge
# --buttons`' finger, a thread): a sleep looks this often whether it woke it. None: a
# sleep waits its whole time (nothing else can end it).
wake_look_ms = None


def start(ticks=0, epoch_s=None):
    """Restart virtual time at `ticks` (e.g. a minute before the wrap); drops alarms."""
    global _start_ms, _elapsed_ms, _epoch_s
    _start_ms = ticks & _MASK
    _elapsed_ms = 0
    if epoch_s is not None:
        _epoch_s = epoch_s
    del _alarms[:]


def ticks_ms():
    # elapsed_ms(): in real time (cran vbadge) the ticks move with it, as a CircuitPython
    # badge's supervisor.ticks_ms, read from here, must.
    return (_start_ms + elapsed_ms()) & _MASK


def ticks_us():
    # Same period as ticks_ms on the ESP32; sub-ms never moves here.
    return ((_start_ms + elapsed_ms()) * 1000) & _MASK


def ticks_add(ticks, delta):
    return (ticks + delta) & _MASK


def ticks_diff(end, start):
    return ((end - start + _HALF) & _MASK) - _HALF


def elapsed_ms():
    if _real is not None:
        return _real[0]() - _real_base
    return _elapsed_ms


def time():
    return _epoch_s + elapsed_ms() // 1000   # elapsed_ms(): real time moves it too


def set_time(epoch_s):
    """Set what time() says now (the RTC set by the firmware)."""
    global _epoch_s
    _epoch_s = epoch_s - elapsed_ms() // 1000


def add_alarm(alarm):
    if alarm not in _alarms:
        _alarms.append(alarm)


def remove_alarm(alarm):
    if alarm in _alarms:
        _alarms.remove(alarm)


def _next_alarm(limit_ms):
    best = None
    for alarm in _alarms:
        due = alarm.due_ms
        if due is not None and due <= limit_ms and (best is None or due < best.due_ms):
            best = alarm
    return best


def advance(ms):
    """Move time forward by ms. An alarm due on the way (the watchdog) fires at its own
    time, with the clock stopped there, as on the part: what it raises propagates."""
    global _elapsed_ms
    if ms < 0:
        raise ValueError("time runs forward: %d ms" % ms)
    if _real is not None:
        _advance_real(ms)
        return
    target = _elapsed_ms + ms
    while True:
        alarm = _next_alarm(target)
        if alarm is None:
            break
        _elapsed_ms = max(_elapsed_ms, alarm.due_ms)
        alarm.fire()
    _elapsed_ms = target
    _run_scheduled()


def advance_until(ms, stop):
    """advance(ms), but ending just after the alarm after which stop() is true (a pin
    that wakes a sleep, a flag an IRQ set). -> ms advanced."""
    global _elapsed_ms
    if _real is not None:
        return _advance_real(ms, stop)
    start = _elapsed_ms
    target = start + ms
    # Each pass of this loop is a backward jump, where MicroPython runs what an alarm's
    # IRQ handler scheduled, before stop() looks.
    while not stop():
        alarm = _next_alarm(target)
        if alarm is None:
            advance(target - _elapsed_ms)
            break
        advance(max(0, alarm.due_ms - _elapsed_ms))
    return _elapsed_ms - start


def use_tasks(tasks):
    """asyncio's task queue and Task taken from module `tasks` (its TaskQueue, Task):
    a virtual select's poll() does it as asyncio.core makes its IOQueue, when the
    built-in C queue would order or stamp tasks on another clock than this one.
    -> asyncio.core, or None when it is not being loaded."""
    import sys
    core = sys.modules.get("asyncio.core")
    if core is not None and core.TaskQueue is not tasks.TaskQueue:
        core.TaskQueue = tasks.TaskQueue
        core.Task = tasks.Task
        # new_event_loop() made its run queue just before its IOQueue: replace it.
        core._task_queue = tasks.TaskQueue()
    return core


def polled(objects, ready):
    """The pollable Python objects (object -> event mask; asyncio.ThreadSafeFlag) that
    answer their ioctl (MP_STREAM_POLL, 3) with events, as (object, events) added to
    ready: a virtual select's look at them. -> ready"""
    for obj, mask in objects.items():
        events = obj.ioctl(3, mask)
        if events:
            ready.append((obj, events))
    return ready


def wait_for(ms, ready):
    """advance_until(ms), ending just after the alarm after which ready() returns
    something (a virtual select's poll: what became ready). -> what it returned, or []
    when ms ran out first."""
    found = []

    def seen():
        found[:] = ready()
        return found
    advance_until(ms, seen)
    return found


def sleep_ms(ms):
    if ms > 0:
        advance(int(ms))


def sleep_us(us):
    if us > 0:
        advance((int(us) + 999) // 1000)


def sleep(s):
    if s > 0:
        advance(int(s * 1000))


_run_pending = False   # micropython.run_pending once looked up; None: there is none


def _run_scheduled():
    # CPython's micropython shim queues micropython.schedule() work until told; the real
    # MicroPython runs it by itself between bytecodes, and has no run_pending. Looked up
    # once: an import on every advance walks sys.path each time.
    global _run_pending
    if _run_pending is False:
        try:
            import micropython
            _run_pending = getattr(micropython, "run_pending", None)
        except ImportError:
            _run_pending = None
    if _run_pending is not None:
        _run_pending()


def patch_cpython_time():
    """CPython's `time` is built in and no time.py on sys.path can shadow it: give it
    MicroPython's tick functions on this clock instead. time.time/sleep stay CPython's
    (its own library needs them)."""
    import cpython_time  # (cpython/: see there why not `import time` here)
    cpython_time.add(ticks_ms=ticks_ms, ticks_us=ticks_us, ticks_add=ticks_add,
                     ticks_diff=ticks_diff, sleep_ms=sleep_ms, sleep_us=sleep_us)


# ---- the calendar (the RTCs: machine.RTC here, circuitpython/'s rtc and time) ------

def days_from_civil(y, m, d):
    # Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's algorithm).
    y -= m <= 2
    era = y // 400
    yoe = y - era * 400
    doy = (153 * (m + (-3 if m > 2 else 9)) + 2) // 5 + d - 1
    return era * 146097 + yoe * 365 + yoe // 4 - yoe // 100 + doy - 719468


def civil_from_days(days):
    days += 719468
    era = days // 146097
    doe = days - era * 146097
    yoe = (doe - doe // 1460 + doe // 36524 - doe // 146096) // 365
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    mp = (5 * doy + 2) // 153
    d = doy - (153 * mp + 2) // 5 + 1
    m = mp + (3 if mp < 10 else -9)
    return yoe + era * 400 + (m <= 2), m, d


# ---- real time (`cran vbadge`) -------------------------------------------------------

def use_real_clock(clock_ms, sleep_ms_fn, us=None):
    """From now on elapsed time is real: `cran vbadge` runs the firmware while mpremote
    and people talk to it live. clock_ms: a real millisecond clock that doesn't wrap in
    a run (the unix port's time.ticks_ms); sleep_ms_fn really waits. The firmware keeps
    its own real `time`; this clock serves the virtual parts (watchdog, lightsleep).
    us: (ticks_us, ticks_diff, sleep_us) of the same real clock (the port's own), for
    the parts that time microseconds (a UART's bytes on the wire): elapsed_us()."""
    global _real, _real_base, _real_us
    _real_base = clock_ms() - _elapsed_ms
    _real = (clock_ms, sleep_ms_fn)
    _real_us = us


def is_real():
    return _real is not None


_us = [None, 0, 0]   # real time's microseconds: [its ticks_us last read, us then, ms then]


def elapsed_us():
    """elapsed_ms() to the microsecond, for a part that times them (a UART's bytes on
    the wire): real time's own microseconds when it gave them (use_real_clock's us), else
    whole ms. The main program's thread only."""
    if _real_us is None:
        return elapsed_ms() * 1000
    now, ms = _real_us[0](), elapsed_ms()
    last = _us[0]
    if last is None or ms - _us[2] > 100000:   # (its ticks wrap: the ms clock doesn't)
        total = ms * 1000
    else:
        total = max(ms * 1000 - 1000, _us[1] + _real_us[1](now, last))
    _us[0], _us[1], _us[2] = now, total, ms
    return total


def wait_us(us):
    """The chip busy for us microseconds: real time really waits them; virtual time
    moves on by them, in whole ms."""
    if us <= 0:
        return
    if _real_us is None:
        sleep_us(us)
        return
    ticks, diff, sleep = _real_us
    start = ticks()
    if us > 2000:   # the host's sleep wakes late: its last 1.5 ms spun, as a chip's wait
        sleep(int(us) - 1500)
    while diff(ticks(), start) < us:
        pass


def catch_up():
    """Real time: fire the alarms already due. Nothing interrupts a program here, so a
    starved watchdog is noticed when the firmware next touches the clock (feed(),
    lightsleep()), and resets then. Virtual time is never late: nothing to do."""
    if _real is None:
        return
    while True:
        alarm = _next_alarm(elapsed_ms())
        if alarm is None:
            return
        alarm.fire()


def _advance_real(ms, stop=None):
    # Really wait, waking for an alarm due on the way so that it fires on time.
    # -> ms waited.
    start = elapsed_ms()
    target = start + ms
    while True:
        catch_up()
        now = elapsed_ms()
        if now >= target or (stop is not None and stop()):
            break
        alarm = _next_alarm(target)
        wait = (target if alarm is None else alarm.due_ms) - now
        if stop is not None and wake_look_ms is not None:
            wait = min(wait, wake_look_ms)
        _real[1](wait)
    _run_scheduled()
    return elapsed_ms() - start
