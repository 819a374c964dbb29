# SSD1306 OLED on I2C, the essentials of micropython-lib's ssd1306 driver (MIT,
# micropython-lib/micropython/drivers/display/ssd1306), without its image of the whole
# screen (1 KB of the badge's heap for its whole life, in one block): fill() and text()
# are remembered, as cran.hal.st7789 does, and show() draws them one page (8 rows) at a
# time into a 128-byte band in the chip's own layout (framebuf MONO_VLSB) and sends it.
# The same calls as a framebuf.FrameBuffer for what cran.hal.panel uses. Made for each
# draw (cran.hal.panel); the panel is set up once, by init_display(), at the start.
import framebuf
from micropython import const

_SET_CONTRAST = const(0x81)
_SET_ENTIRE_ON = const(0xA4)
_SET_NORM_INV = const(0xA6)
_SET_DISP = const(0xAE)
_SET_MEM_ADDR = const(0x20)
_SET_COL_ADDR = const(0x21)
_SET_PAGE_ADDR = const(0x22)
_SET_DISP_START_LINE = const(0x40)
_SET_SEG_REMAP = const(0xA0)
_SET_MUX_RATIO = const(0xA8)
_SET_IREF_SELECT = const(0xAD)
_SET_COM_OUT_DIR = const(0xC0)
_SET_DISP_OFFSET = const(0xD3)
_SET_COM_PIN_CFG = const(0xDA)
_SET_DISP_CLK_DIV = const(0xD5)
_SET_PRECHARGE = const(0xD9)
_SET_VCOM_DESEL = const(0xDB)
_SET_CHARGE_PUMP = const(0x8D)


class SSD1306_I2C:
    def __init__(self, width, height, i2c, addr=0x3C, external_vcc=False):
        self.width = width
        self.height = height
        self.i2c = i2c
        self.addr = addr
        self.external_vcc = external_vcc
        self.pages = height // 8
        self._fill = 0          # the colour (0 or 1) fill() asked for
        self._texts = []        # (text, x, y, colour) since the last fill()
        self._page = bytearray(width)   # one page: a byte per column, its 8 rows
        self._band = framebuf.FrameBuffer(self._page, width, 8, framebuf.MONO_VLSB)
        self._cmd = bytearray(2)
        self._data = [b"\x40", self._page]   # Co=0, D/C#=1: the rest is pixel data

    def init_display(self):
        """The panel set up, cleared and on (OSError: no answer at its address)."""
        for cmd in (
            _SET_DISP,                      # off while we set it up
            _SET_MEM_ADDR, 0x00,            # horizontal addressing
            _SET_DISP_START_LINE,
            _SET_SEG_REMAP | 0x01,          # column 127 on SEG0
            _SET_MUX_RATIO, self.height - 1,
            _SET_COM_OUT_DIR | 0x08,        # scan from COM[N] to COM0
            _SET_DISP_OFFSET, 0x00,
            _SET_COM_PIN_CFG, 0x02 if self.width > 2 * self.height else 0x12,
            _SET_DISP_CLK_DIV, 0x80,
            _SET_PRECHARGE, 0x22 if self.external_vcc else 0xF1,
            _SET_VCOM_DESEL, 0x30,          # 0.83 * Vcc
            _SET_CONTRAST, 0xFF,
            _SET_ENTIRE_ON,                 # show the RAM
            _SET_NORM_INV,                  # not inverted
            _SET_IREF_SELECT, 0x30,         # internal IREF while on (SSD1306B; others ignore)
            _SET_CHARGE_PUMP, 0x10 if self.external_vcc else 0x14,
            _SET_DISP | 0x01,               # on
        ):
            self._write_cmd(cmd)
        self.fill(0)
        self.show()

    def fill(self, c):
        self._fill = c
        self._texts = []

    def text(self, s, x, y, c=1):
        self._texts.append((s, x, y, c))

    def show(self):
        x0 = 0
        x1 = self.width - 1
        if self.width != 128:   # narrow panels use the middle columns
            x0 += (128 - self.width) // 2
            x1 += (128 - self.width) // 2
        for cmd in (_SET_COL_ADDR, x0, x1, _SET_PAGE_ADDR, 0, self.pages - 1):
            self._write_cmd(cmd)
        # Horizontal addressing: each page's bytes follow the last in the window, so one
        # window and a write a page (the chip's address pointer runs on between writes).
        band = self._band
        for y in range(0, self.pages * 8, 8):
            band.fill(self._fill)
            for s, x, ty, c in self._texts:
                if y - 8 < ty < y + 8:   # 8 px glyphs that reach into this page
                    band.text(s, x, ty - y, c)
            self.i2c.writevto(self.addr, self._data)

    def _write_cmd(self, cmd):
        self._cmd[0] = 0x80   # Co=1, D/C#=0: one command byte
        self._cmd[1] = cmd
        self.i2c.writeto(self.addr, self._cmd)
