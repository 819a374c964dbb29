# ST7789 colour LCD on SPI (M5StickC Plus: 135 x 240), kept minimal: text in two colours.
# No image of the whole screen is kept (4 KB of the badge's heap, in one block, even as
# 1 bit a pixel): fill() and text() are remembered, and show() draws them 4 rows at a
# time into a 1-bit band, turns it into RGB565 with framebuf's palette blit (done in C)
# and sends it. The same calls as a framebuf.FrameBuffer for what cran.hal.panel uses;
# no partial updates, no rotation. Made for each draw (cran.hal.panel); the panel is set
# up once, by init(), at the start.
import time

import framebuf
from micropython import const

_SWRESET = const(0x01)
_SLPOUT = const(0x11)
_NORON = const(0x13)
_INVON = const(0x21)
_DISPON = const(0x29)
_CASET = const(0x2A)
_RASET = const(0x2B)
_RAMWR = const(0x2C)
_MADCTL = const(0x36)
_COLMOD = const(0x3A)
# Rows converted and sent at a time: 135 x 4 x 2 = 1 KB of RAM while a draw lasts (8
# rows took 2 KB, one block of it, in a heap the radio already fills): twice the SPI
# transfers, a draw being rare (a change of state, a peek).
_BAND = const(4)


def _wire(color565):
    # The panel takes each pixel high byte first; framebuf keeps RGB565 low byte first.
    return ((color565 & 0xFF) << 8) | (color565 >> 8)


class ST7789:
    # The M5StickC Plus's 135 x 240 window sits at column 52, row 40 of the 240 x 320 RAM.
    def __init__(self, spi, width, height, dc, cs=None, x_offset=52, y_offset=40,
                 fg=0xFFFF, bg=0x0000):
        self.spi = spi
        self.width = width
        self.height = height
        self.dc = dc
        self.cs = cs
        self.x_offset = x_offset
        self.y_offset = y_offset
        self._fill = 0          # the colour (0 or 1) fill() asked for
        self._texts = []        # (text, x, y, colour) since the last fill()
        self._mono = framebuf.FrameBuffer(bytearray(((width + 7) // 8) * _BAND), width,
                                          _BAND, framebuf.MONO_HLSB)
        self._band = bytearray(width * _BAND * 2)
        self._band_fb = framebuf.FrameBuffer(self._band, width, _BAND, framebuf.RGB565)
        self._palette = framebuf.FrameBuffer(bytearray(4), 2, 1, framebuf.RGB565)
        self.colors(fg, bg)
        self._one = bytearray(1)
        self._four = bytearray(4)

    def init(self, rst=None):
        """The panel reset (by its rst pin, else by a command), set up, cleared and on."""
        dc = self.dc
        cs = self.cs
        dc.init(dc.OUT, value=0)
        if cs is not None:
            cs.init(cs.OUT, value=1)
        if rst is not None:   # hardware reset: low >= 10 us, then 120 ms to wake
            rst.init(rst.OUT, value=1)
            rst(0)
            time.sleep_ms(1)
            rst(1)
        else:
            self._command(_SWRESET)
        time.sleep_ms(120)
        self._command(_SLPOUT)
        time.sleep_ms(120)   # the datasheet's wait before the next sleep-mode change
        self._command(_COLMOD, b"\x55")   # 16 bits per pixel
        self._command(_MADCTL, b"\x00")   # portrait, RGB order
        self._command(_INVON)             # these IPS panels show true colours inverted
        self._command(_NORON)
        self.fill(0)
        self.show()
        self._command(_DISPON)

    def colors(self, fg, bg):
        """RGB565 colours for set (1) and clear (0) pixels."""
        self._palette.pixel(0, 0, _wire(bg))
        self._palette.pixel(1, 0, _wire(fg))

    def _command(self, cmd, data=None):
        if self.cs is not None:
            self.cs(0)
        self.dc(0)
        self._one[0] = cmd
        self.spi.write(self._one)
        if data:
            self.dc(1)
            self.spi.write(data)
        if self.cs is not None:
            self.cs(1)

    def _window(self, cmd, start, end):
        b = self._four
        b[0] = start >> 8
        b[1] = start & 0xFF
        b[2] = end >> 8
        b[3] = end & 0xFF
        self._command(cmd, b)

    def fill(self, c):
        self._fill = c
        self._texts = []

    def text(self, s, x, y, c=1):
        self._texts.append((s, x, y, c))

    def show(self):
        w = self.width
        x0 = self.x_offset
        mono = self._mono
        self._window(_CASET, x0, x0 + w - 1)
        for y in range(0, self.height, _BAND):
            rows = min(_BAND, self.height - y)
            mono.fill(self._fill)
            for s, x, ty, c in self._texts:
                if y - 8 < ty < y + _BAND:   # 8 px glyphs that reach into this band
                    mono.text(s, x, ty - y, c)
            self._band_fb.blit(mono, 0, 0, -1, self._palette)
            self._window(_RASET, self.y_offset + y, self.y_offset + y + rows - 1)
            self._command(_RAMWR, memoryview(self._band)[:w * rows * 2])
