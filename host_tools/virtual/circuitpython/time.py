# Virtual `time` as a CircuitPython board has it (shared-bindings/time): monotonic(),
# monotonic_ns(), sleep(), time(), localtime(), mktime() and struct_time, on the virtual
# clock. No ticks_ms and the like: those are MicroPython's (CircuitPython's ticks are
# supervisor.ticks_ms), and a firmware that reached for them would fail on a board.
import vclock


class struct_time:
    """(tm_year, tm_mon, tm_mday, tm_hour, tm_min, tm_sec, tm_wday, tm_yday, tm_isdst):
    a named tuple on the board, read by index or by name."""
    _NAMES = ("tm_year", "tm_mon", "tm_mday", "tm_hour", "tm_min", "tm_sec", "tm_wday",
              "tm_yday", "tm_isdst")

    def __init__(self, fields):
        fields = tuple(fields)
        if len(fields) != 9:
            raise TypeError("time.struct_time() takes a 9-sequence")
        self._fields = fields

    def __getitem__(self, index):
        return self._fields[index]

    def __len__(self):
        return 9

    def __iter__(self):
        return iter(self._fields)

    def __eq__(self, other):
        return tuple(self) == tuple(other)

    def __getattr__(self, name):
        if name in self._NAMES:
            return self._fields[self._NAMES.index(name)]
        raise AttributeError(name)


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
