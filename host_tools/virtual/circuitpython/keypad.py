# Virtual `keypad` (shared-bindings/keypad): Keys(pins, *, value_when_pressed, pull=True,
# interval=0.020, max_events=64, debounce_threshold=1) holds its pins and scans them in
# the background: each change of a key is an Event(key_number, pressed, timestamp) in
# .events, timestamp being supervisor.ticks_ms() at the scan that saw it (here: the
# first scan after the change, every interval). Keys start released: a key held when
# they are made is a press at the first scan. A full queue drops the new event and sets
# overflowed. A pin that floats (no pull and nothing driving it) is refused.
import microcontroller
import supervisor
import vclock


class Event:
    def __init__(self, key_number=0, pressed=True, timestamp=None):
        self.key_number = key_number
        self.pressed = pressed
        self.timestamp = timestamp

    @property
    def released(self):
        return not self.pressed

    def __eq__(self, other):
        return (isinstance(other, Event) and self.key_number == other.key_number
                and self.pressed == other.pressed)

    def __repr__(self):
        return "<Event: key_number %d %s>" % (self.key_number,
                                               "pressed" if self.pressed else "released")


class EventQueue:
    def __init__(self, max_events):
        self._events = []
        self._max = max_events
        self.overflowed = False

    def _put(self, event):
        if len(self._events) >= self._max:
            self.overflowed = True
            return
        self._events.append(event)

    def get(self):
        return self._events.pop(0) if self._events else None

    def get_into(self, event):
        if not self._events:
            return False
        got = self._events.pop(0)
        event.key_number = got.key_number
        event.pressed = got.pressed
        event.timestamp = got.timestamp
        return True

    def clear(self):
        del self._events[:]
        self.overflowed = False

    def __len__(self):
        return len(self._events)

    def __bool__(self):
        return bool(self._events)


class _Scan:
    # The first scan after a change: an alarm on the virtual clock.
    chip_part = True   # gone with the chip's reset (microcontroller.reboot)

    def __init__(self, keys, number):
        self.keys = keys
        self.number = number
        self.due_ms = None

    def fire(self):
        self.due_ms = None
        vclock.remove_alarm(self)
        self.keys._scan(self.number)


class Keys:
    def __init__(self, pins, *, value_when_pressed, pull=True, interval=0.020,
                 max_events=64, debounce_threshold=1):
        if not 0 < interval <= 65.535:
            raise ValueError("interval must be 0.001-65.535")
        if not 1 <= max_events <= 64:
            raise ValueError("max_events must be 1-64")
        self._pins = tuple(pins)
        self._pressed_level = 1 if value_when_pressed else 0
        # pull=True: the internal resistor against the pressed level.
        self._pull = (1 - self._pressed_level) if pull else None
        self._interval_ms = max(1, int(interval * 1000))
        self.events = EventQueue(max_events)
        self.key_count = len(self._pins)
        self._state = [False] * self.key_count
        self._scans = []
        for p in self._pins:
            microcontroller.claim(p, self)
        for i, p in enumerate(self._pins):
            microcontroller.level(p.number, self._pull)   # FloatingPin if it floats
            scan = _Scan(self, i)
            self._scans.append(scan)
            microcontroller.watch(p.number, self._changed_fn(i))
            self._changed(i)

    def _changed_fn(self, i):
        return lambda: self._changed(i)

    def _changed(self, i):
        scan = self._scans[i]
        if scan.due_ms is None:
            now = vclock.elapsed_ms()
            scan.due_ms = now + self._interval_ms - now % self._interval_ms
            vclock.add_alarm(scan)

    def _scan(self, i):
        pressed = microcontroller.level(self._pins[i].number, self._pull) == \
            self._pressed_level
        if pressed != self._state[i]:
            self._state[i] = pressed
            self.events._put(Event(i, pressed, supervisor.ticks_ms()))

    def reset(self):
        self._state = [False] * self.key_count
        for i in range(self.key_count):
            self._changed(i)

    def deinit(self):
        for scan in self._scans:
            vclock.remove_alarm(scan)
        for p in self._pins:
            microcontroller.release(p)

    def __enter__(self):
        return self

    def __exit__(self, *args):
        self.deinit()
