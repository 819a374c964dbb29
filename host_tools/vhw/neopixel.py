# Virtual `neopixel`: keeps the pixels and what was last sent down the wire.
_strips = {}   # pin id -> the NeoPixel on it, for tests to look at


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

