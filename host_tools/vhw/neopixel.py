# Virtual `neopixel`: keeps the pixels and what was last sent down the wire, and how
# long each frame stayed lit (the LEDs hold a frame until the next write, through a
# light sleep or a reset, as WS2812s do), for the power estimate.
import vclock

_strips = {}   # pin id -> the NeoPixel on it, for tests to look at
_lit = {}      # pin id -> [elapsed ms of the last write, frame, [r, g, b] value x ms]


def _account(pin_id, frame=None):
    """Integrate the frame on pin_id up to now; then frame (a write) shows from now."""
    now = vclock.elapsed_ms()
    entry = _lit.setdefault(pin_id, [now, (), [0, 0, 0]])
    ms = now - entry[0]
    if ms > 0:
        sums = entry[2]
        for pixel in entry[1]:
            for c in range(3):
                sums[c] += pixel[c] * ms
    entry[0] = now
    if frame is not None:
        entry[1] = frame


def lit():
    """pin id -> [r, g, b]: channel value (0-255) x ms, summed over the strip's LEDs,
    since reset_counters(). Divide by 255 x ms for the mean duty of one channel."""
    for pin_id in _lit:
        _account(pin_id)
    return dict((pin_id, list(entry[2])) for pin_id, entry in _lit.items())


def reset_counters():
    """Count from now; what the LEDs show keeps showing."""
    for pin_id in _lit:
        _account(pin_id)
        _lit[pin_id][2] = [0, 0, 0]


class NeoPixel:
    ORDER = (1, 0, 2, 3)

    def __init__(self, pin, n, bpp=3, timing=1):
        self.pin = pin
        self.n = n
        self.bpp = bpp
        self.buf = [(0,) * bpp for _ in range(n)]
        self.writes = 0
        self.last = None   # the frame of the last write(): a tuple of colour tuples
        _strips[getattr(pin, "id", pin)] = self

    def __len__(self):
        return self.n

    def __setitem__(self, i, value):
        value = tuple(value)
        if len(value) != self.bpp:
            raise ValueError("expected %d channels" % self.bpp)
        for c in value:
            if not 0 <= c <= 255:
                raise ValueError("channel out of 0-255: %r" % (value,))
        self.buf[i] = value

    def __getitem__(self, i):
        return self.buf[i]

    def fill(self, value):
        for i in range(self.n):
            self[i] = value

    def write(self):
        self.writes += 1
        self.last = tuple(self.buf)
        _account(getattr(self.pin, "id", self.pin), self.last)

