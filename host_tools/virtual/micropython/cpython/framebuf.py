# `framebuf` for CPython (MicroPython has it built in): the formats the badge's drivers
# use (MONO_VLSB, MONO_HLSB, RGB565), laid out byte for byte like MicroPython's, and its
# 8x8 font, so a driver's buffer here holds what it would hold on the badge.
# The font is MicroPython's font_petme128_8x8 (MIT), read out of the unix port's framebuf.

MONO_VLSB = 0
MVLSB = 0
RGB565 = 1
MONO_HLSB = 3

_FONT = bytes.fromhex(
    "00000000000000000000004f4f000000"
    "0007070000070700147f7f14147f7f14"
    "00242e6b6b3a1200006333180c666300"
    "00327f4d4d7772500000000406030100"
    "00001c3e63410000000041633e1c0000"
    "082a3e1c1c3e2a080008083e3e080800"
    "000080e0600000000008080808080800"
    "000000606000000000406030180c0602"
    "003e7f49457f3e000040447f7f404000"
    "00627351494f460000226349497f3600"
    "00181814167f7f1000276745457d3900"
    "003e7f49497b3200000303797d070300"
    "00367f49497f360000266f49497f3e00"
    "0000002424000000000080e464000000"
    "00081c36634141000014141414141400"
    "00414163361c080000020351590f0600"
    "003e7f414d4f2e00007c7e0b0b7e7c00"
    "007f7f49497f3600003e7f4141632200"
    "007f7f41633e1c00007f7f4949414100"
    "007f7f0909010100003e7f41497b3a00"
    "007f7f08087f7f000000417f7f410000"
    "002060417f3f0100007f7f1c36634100"
    "007f7f4040404000007f7f060c067f7f"
    "007f7f0e1c7f7f00003e7f41417f3e00"
    "007f7f09090f0600001e3f21617f5e00"
    "007f7f19396f460000266f49497b3200"
    "0001017f7f010100003f7f40407f3f00"
    "001f3f60603f1f00007f7f3018307f7f"
    "0063771c1c77630000070f78780f0700"
    "006171594d47430000007f7f41410000"
    "0002060c18306040000041417f7f0000"
    "00080c06060c0800c0c0c0c0c0c0c0c0"
    "000001030604000000207454547c7800"
    "007f7f44447c380000387c44446c2800"
    "00387c44447f7f0000387c54545c5800"
    "00087e7f090302000098bca4a4fc7c00"
    "007f7f04047c78000000007d7d000000"
    "0040c08080fd7d00007f7f30386c4400"
    "0000417f7f400000007c7c1830187c7c"
    "007c7c04047c780000387c44447c3800"
    "00fcfc24243c180000183c2424fcfc00"
    "007c7c04040c080000485c5454742000"
    "04043f7f44642000003c7c40407c3c00"
    "001c3c60603c1c00001c7c3018307c1c"
    "00446c38386c4400009cbca0a0fc7c00"
    "004464745c4c44000008083e77414100"
    "000000ffff000000004141773e080800"
    "0002030103020301aa55aa55aa55aa55"
)


class FrameBuffer:
    def __init__(self, buffer, width, height, format, stride=None):
        if format not in (MONO_VLSB, MONO_HLSB, RGB565):
            raise ValueError("format %d not in this fake" % format)
        self._buf = buffer
        self._w = width
        self._h = height
        self._format = format
        self._stride = width if stride is None else stride
        needed = self._index(width - 1, height - 1)[0] + (2 if format == RGB565 else 1)
        if len(buffer) < needed:
            raise ValueError("buffer too small")

    def _index(self, x, y):
        if self._format == MONO_VLSB:
            return (y >> 3) * self._stride + x, y & 7
        if self._format == MONO_HLSB:
            return y * ((self._stride + 7) >> 3) + (x >> 3), 7 - (x & 7)
        return (y * self._stride + x) * 2, 0

    def _set(self, x, y, c):
        i, bit = self._index(x, y)
        if self._format == RGB565:
            self._buf[i] = c & 0xFF
            self._buf[i + 1] = (c >> 8) & 0xFF
        elif c:
            self._buf[i] |= 1 << bit
        else:
            self._buf[i] &= ~(1 << bit) & 0xFF

    def _get(self, x, y):
        i, bit = self._index(x, y)
        if self._format == RGB565:
            return self._buf[i] | (self._buf[i + 1] << 8)
        return (self._buf[i] >> bit) & 1

    def _whole_bytes(self):
        # No padding bits to leave alone (MicroPython's fill only touches pixels).
        if self._stride != self._w:
            return False
        if self._format == MONO_VLSB:
            return self._h % 8 == 0
        return self._format == MONO_HLSB and self._w % 8 == 0

    def pixel(self, x, y, c=None):
        if not (0 <= x < self._w and 0 <= y < self._h):
            return None
        if c is None:
            return self._get(x, y)
        self._set(x, y, c)

    def fill_rect(self, x, y, w, h, c):
        for yy in range(max(y, 0), min(y + h, self._h)):
            for xx in range(max(x, 0), min(x + w, self._w)):
                self._set(xx, yy, c)

    def fill(self, c):
        if self._whole_bytes():   # whole bytes at once: fast, and the same bytes
            value = 0xFF if c else 0
            for i in range(len(self._buf)):
                self._buf[i] = value
            return
        self.fill_rect(0, 0, self._w, self._h, c)

    def hline(self, x, y, w, c):
        self.fill_rect(x, y, w, 1, c)

    def vline(self, x, y, h, c):
        self.fill_rect(x, y, 1, h, c)

    def rect(self, x, y, w, h, c, f=False):
        if f:
            self.fill_rect(x, y, w, h, c)
            return
        self.hline(x, y, w, c)
        self.hline(x, y + h - 1, w, c)
        self.vline(x, y, h, c)
        self.vline(x + w - 1, y, h, c)

    def text(self, s, x, y, c=1):
        # Like MicroPython: one glyph per byte of the UTF-8 text, unknown bytes as 127.
        for ch in s.encode("utf-8"):
            if ch < 32 or ch > 127:
                ch = 127
            glyph = _FONT[(ch - 32) * 8:(ch - 32) * 8 + 8]
            for col in range(8):
                bits = glyph[col]
                for row in range(8):
                    if bits >> row & 1:
                        self.pixel(x + col, y + row, c)
            x += 8

    def blit(self, fbuf, x, y, key=-1, palette=None):
        # Only the part of the source that lands on this buffer (a band of a screen).
        for sy in range(max(0, -y), min(fbuf._h, self._h - y)):
            for sx in range(max(0, -x), min(fbuf._w, self._w - x)):
                c = fbuf._get(sx, sy)
                if c == key:
                    continue
                if palette is not None:
                    c = palette._get(c, 0)
                self._set(x + sx, y + sy, c)
