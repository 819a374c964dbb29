# Virtual `neopixel`: keeps the pixels and what was last sent down the wire, and how
# long each frame stayed lit (the LEDs hold a frame until the next write, through a
# light sleep or a reset, as WS2812s do), for the power estimate.
import vclock

_strips = {}   # pin id -> the NeoPixel on it, for tests to look at
_lit = {}      # pin id -> [elapsed ms of the last write, frame, [r, g, b] value x ms]


def _account(pin_id, sent=None):
    """Integrate what pin_id shows up to now; then sent (a write's bytes, GRB) shows
    from now."""
    now = vclock.elapsed_ms()
    entry = _lit.setdefault(pin_id, [now, b"", [0, 0, 0]])
    ms = now - entry[0]
    if ms > 0:
        sums = entry[2]
        shown = entry[1]
        for i in range(0, len(shown) - 2, 3):
            sums[0] += shown[i + 1] * ms   # ORDER: r is the second byte, g the first
            sums[1] += shown[i] * ms
            sums[2] += shown[i + 2] * ms
    entry[0] = now
    if sent is not None:
        entry[1] = sent


def shown(pin_id):
    """The frame the strip on pin_id shows (its last write: a tuple of colour tuples),
    or None before any: what a person looking at the LEDs sees."""
    strip = _strips.get(pin_id)
    return None if strip is None else strip.last


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
    """As MicroPython's neopixel.py: the pixels in `buf`, bpp bytes each in ORDER (GRB),
    sent by write(). A buf that is not n x bpp bytes at write() is an error (the strip
    would show garbage)."""
    ORDER = (1, 0, 2, 3)

    def __init__(self, pin, n, bpp=3, timing=1):
        self.pin = pin
        self.n = n
        self.bpp = bpp
        self.buf = bytearray(n * bpp)
        self.writes = 0
        self._sent = None   # the bytes of the last write()
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
        offset = i * self.bpp
        for c in range(self.bpp):
            self.buf[offset + self.ORDER[c]] = value[c]

    def __getitem__(self, i):
        offset = i * self.bpp
        return tuple(self.buf[offset + self.ORDER[c]] for c in range(self.bpp))

    def fill(self, value):
        for i in range(self.n):
            self[i] = value

    def write(self):
        if len(self.buf) != self.n * self.bpp:
            raise ValueError("buf of %d bytes for %d pixels of %d" % (len(self.buf), self.n,
                                                                      self.bpp))
        self.writes += 1
        self._sent = bytes(self.buf)   # one copy: the badge's garbage counts it
        _account(getattr(self.pin, "id", self.pin), self._sent)

    @property
    def last(self):
        """The frame of the last write(): a tuple of colour tuples, or None."""
        sent = self._sent
        if sent is None:
            return None
        order, bpp = self.ORDER, self.bpp
        return tuple(tuple(sent[i * bpp + order[c]] for c in range(bpp))
                     for i in range(self.n))
