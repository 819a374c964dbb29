# Virtual `time` as a CircuitPython board has it (shared-bindings/time): monotonic(),
# monotonic_ns(), sleep(), time(), localtime(), mktime() and struct_time, on the virtual
# clock. No ticks_ms and the like: those are MicroPython's (CircuitPython's ticks are
# supervisor.ticks_ms), and a firmware that reached for them would fail on a board.
import vclock


class struct_time(tuple):
    """(tm_year, tm_mon, tm_mday, tm_hour, tm_min, tm_sec, tm_wday, tm_yday, tm_isdst)"""

    def __new__(cls, fields):
        fields = tuple(fields)
        if len(fields) != 9:
            raise TypeError("time.struct_time() takes a 9-sequence")
        return tuple.__new__(cls, fields)

    tm_year = property(lambda self: self[0])
    tm_mon = property(lambda self: self[1])
    tm_mday = property(lambda self: self[2])
    tm_hour = property(lambda self: self[3])
    tm_min = property(lambda self: self[4])
    tm_sec = property(lambda self: self[5])
    tm_wday = property(lambda self: self[6])
    tm_yday = property(lambda self: self[7])


def monotonic():
    return vclock.elapsed_ms() / 1000


def monotonic_ns():
    return vclock.elapsed_ms() * 1000000


def sleep(seconds):
    if seconds < 0:
        raise ValueError("sleep length must be non-negative")
    vclock.advance(int(seconds * 1000))


def time():
    return vclock.time()


def localtime(secs=None):
    # CircuitPython's RTC keeps no time zone: localtime is UTC.
    if secs is None:
        secs = vclock.time()
    days, rest = divmod(int(secs), 86400)
    y, m, d = vclock.civil_from_days(days)
    yday = days - vclock.days_from_civil(y, 1, 1) + 1
    return struct_time((y, m, d, rest // 3600, rest // 60 % 60, rest % 60, (days + 3) % 7,
                        yday, -1))


def mktime(t):
    return (vclock.days_from_civil(t[0], t[1], t[2]) * 86400 + t[3] * 3600 + t[4] * 60
            + t[5])
