# Text on a small screen: lines of 8x8 framebuf text. The device draws as a FrameBuffer
# with show() (SSD1306_I2C, ST7789); the screen is sent only when the text changes (a
# full SSD1306 frame is ~25 ms of I2C at 400 kHz).

from cran.core.vocab import chars, lookup

# The framebuf font has ASCII only, and draws each UTF-8 byte as a block: French letters
# become their bare ones (a table as a string: see cran.core.vocab.lookup).
_PLAIN = (
    "|à=a|â=a|ä=a|ç=c|é=e|è=e|ê=e|ë=e|î=i|ï=i|ô=o|ö=o|ù=u|û=u|ü=u|ÿ=y|œ=oe|æ=ae|À=A|Â=A|"
    "Ç=C|É=E|È=E|Ê=E|Ë=E|Î=I|Ï=I|Ô=O|Ù=U|Û=U|Œ=OE|’='|«=\"|»=\"|")


def plain(text):
    if len(text.encode()) == len(text):   # ASCII; chars(), not `for ch in text`: see it
        return text
    return "".join([(lookup(_PLAIN, ch) or "?") if ch >= "\x80" else ch
                    for ch in chars(text)])


class Screen:
    line_height_px = 10   # 8 px glyphs and 2 px between lines: 6 lines on 64 px

    def __init__(self, fb_device, width, height):
        self.dev = fb_device
        self.width = width
        self.height = height
        self.columns = width // 8
        self.rows = max(1, (height + 2) // self.line_height_px)
        self.shown = None    # the lines on screen (None: unknown), as a mirror reads them

    def show_lines(self, lines):
        """Draw up to `rows` lines, each cut at `columns` characters. -> True when the
        screen was sent, False when it already showed these lines."""
        lines = [plain(line)[:self.columns] for line in lines[:self.rows]]
        if lines == self.shown:
            return False
        dev = self.dev
        dev.fill(0)
        for i, line in enumerate(lines):
            dev.text(line, 0, i * self.line_height_px, 1)
        dev.show()
        self.shown = lines
        return True
