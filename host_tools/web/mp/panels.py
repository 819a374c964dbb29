# The screens in the page: what the firmware's driver sends on its bus (the virtual I2C or
# SPI records every write) read back as the panel's own chip reads it, into the picture a
# person sees. The page draws that picture pixel for pixel: the firmware's 8x8 font at
# the panel's size, nothing of it redrawn by the page.
try:   # the port's own, in C: the page's `binascii` is micropython-lib's, in Python,
    # whose base64 of a colour screen's 64 KB takes the whole memory
    from ubinascii import b2a_base64
except ImportError:
    from binascii import b2a_base64

# SSD1306: commands followed by this many argument bytes (the rest take none).
_SSD1306_ARGS = {0x20: 1, 0x21: 2, 0x22: 2, 0x81: 1, 0x8D: 1, 0xA8: 1, 0xAD: 1, 0xD3: 1,
                 0xD5: 1, 0xD9: 1, 0xDA: 1, 0xDB: 1}
_SSD1306_COLUMNS = 128   # its RAM: 128 columns of 8 pages, whatever the glass shows

_CASET, _RASET, _RAMWR, _INVON, _INVOFF = 0x2A, 0x2B, 0x2C, 0x21, 0x20
_DISPOFF, _DISPON = 0x28, 0x29
_ST7789_RAM = (240, 320)   # the chip's RAM; the glass shows a window at its centre


class Ssd1306:
    """The OLED's GDDRAM: a byte a column a page (8 rows, bit 0 on top), as sent."""

    def __init__(self, width, height):
        self.width = width
        self.height = height
        self.pages = height // 8
        self.ram = bytearray(_SSD1306_COLUMNS * 8)
        self.window = [0, _SSD1306_COLUMNS - 1, 0, 7]
        self.col = 0
        self.page = 0
        self.on = False
        self._command = []

    def feed(self, writes):
        """The I2C writes since the last feed ([(addr, bytes)]) -> whether the glass
        changed."""
        changed = False
        for _, data in writes:
            if data[0] == 0x80:   # Co=1, D/C#=0: one command byte
                changed = self._byte(data[1]) or changed
            elif data[0] == 0x40:   # the rest is data
                self._data(data, 1)
                changed = True
        return changed

    def _byte(self, byte):
        command = self._command
        command.append(byte)
        if len(command) <= _SSD1306_ARGS.get(command[0], 0):
            return False
        self._command = []
        if command[0] == 0x21:
            self.window[0:2] = command[1:]
            self.col = command[1]
        elif command[0] == 0x22:
            self.window[2:4] = command[1:]
            self.page = command[1]
        elif command[0] in (0xAE, 0xAF):
            self.on = command[0] == 0xAF
            return True
        return False

    def _data(self, data, start):
        # Horizontal addressing, as the driver sets it: along the page, then the next.
        ram, window = self.ram, self.window
        col, page = self.col, self.page
        for i in range(start, len(data)):
            ram[page * _SSD1306_COLUMNS + col] = data[i]
            col += 1
            if col > window[1]:
                col = window[0]
                page = window[2] if page >= window[3] else page + 1
        self.col, self.page = col, page

    def picture(self):
        """The glass: width x pages bytes (MONO_VLSB), its middle columns when narrower."""
        x0 = (_SSD1306_COLUMNS - self.width) // 2
        out = bytearray()
        for page in range(self.pages):
            at = page * _SSD1306_COLUMNS + x0
            out += self.ram[at:at + self.width]
        return out


class St7789:
    """The LCD's RAM as the glass shows it: RGB565, high byte first, a row after the
    other. The IPS glass inverts what it is sent unless told to invert it back (INVON)."""

    def __init__(self, width, height):
        self.width = width
        self.height = height
        self.x0 = (_ST7789_RAM[0] - width) // 2
        self.y0 = (_ST7789_RAM[1] - height) // 2
        self.ram = bytearray(width * height * 2)
        self.window = [0, 0, 0, 0]
        self.x = self.y = 0
        self.cmd = None
        self.args = bytearray()
        self.inverted_back = False
        self.on = False

    def feed(self, writes):
        """The SPI writes since the last feed ([(dc level, bytes)]) -> whether the glass
        changed."""
        changed = False
        for dc, data in writes:
            if dc == 0:
                cmd = self.cmd = data[0]
                self.args = bytearray()
                if cmd in (_INVON, _INVOFF):
                    self.inverted_back = cmd == _INVON
                    changed = True
                elif cmd in (_DISPON, _DISPOFF):
                    self.on = cmd == _DISPON
                    changed = True
                elif cmd == _RAMWR:
                    self.x, self.y = self.window[0], self.window[2]
            elif self.cmd == _RAMWR:
                self._pixels(data)
                changed = True
            elif self.cmd in (_CASET, _RASET):
                self.args += data
                if len(self.args) >= 4:
                    a = self.args
                    at = 0 if self.cmd == _CASET else 2
                    self.window[at] = (a[0] << 8) | a[1]
                    self.window[at + 1] = (a[2] << 8) | a[3]
        return changed

    def _pixels(self, data):
        # Row by row inside the window; what falls outside the glass is the RAM's alone.
        x0, x1, y1 = self.window[0], self.window[1], self.window[3]
        i = 0
        n = len(data) // 2
        while i < n and self.y <= y1:
            run = min(n - i, x1 - self.x + 1)
            self._row(data, i, run)
            i += run
            self.x += run
            if self.x > x1:
                self.x = x0
                self.y += 1

    def _row(self, data, i, run):
        vy = self.y - self.y0
        if not 0 <= vy < self.height:
            return
        vx = self.x - self.x0
        lo, hi = max(0, -vx), min(run, self.width - vx)
        if lo >= hi:
            return
        at = (vy * self.width + vx + lo) * 2
        self.ram[at:at + (hi - lo) * 2] = data[(i + lo) * 2:(i + hi) * 2]

    def picture(self):
        if self.inverted_back:
            return self.ram
        return bytearray([b ^ 0xFF for b in self.ram])


def panel_for(kind, width, height):
    return Ssd1306(width, height) if kind == "ssd1306" else St7789(width, height)


def encoded(panel):
    """The glass for the page: {"on", "picture": base64}."""
    return {"on": panel.on,
            "picture": b2a_base64(panel.picture()).decode().strip()}
