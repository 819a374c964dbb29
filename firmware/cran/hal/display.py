# Text on a small screen: lines of 8x8 framebuf text. The device draws as a FrameBuffer
# with show() (SSD1306_I2C, ST7789); the screen is sent only when the text changes (a
# full SSD1306 frame is ~25 ms of I2C at 400 kHz). Resident on a board with a screen, with
# cran.screenwords; the words (cran.texts, cran.menuwords) are loaded to draw.

from cran.compat import forget
from cran.core.ticks import ticks_diff
from cran.core.vocab import chars, const, lookup

# What the words share stays with the screen (cran.screenwords); the app notes the
# wearer's news at each change through this module (no name more on a board without one).
from cran.screenwords import news_of  # noqa: F401

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


# The look's words (~2.7 KB of a badge's heap) are loaded to draw it and let go once
# drawn: a screen changes at a change of state, rarely. Kept while the wearer peeks (its
# countdown is drawn each second) or an offer shows; the open menu draws with its own.
_TEXTS = const(("cran.texts",))


class Screen:
    line_height_px = 10   # 8 px glyphs and 2 px between lines: 6 lines on 64 px

    def __init__(self, fb_device, width, height):
        self.dev = fb_device
        self.width = width
        self.height = height
        self.columns = width // 8
        self.rows = max(1, (height + 2) // self.line_height_px)
        self.shown = None    # the lines on screen (None: unknown), as a mirror reads them
        # The public look on show (cran.texts.draw): for this state and failed save or
        # not, until this tick (its answer's line goes then; None: no answer on it).
        self.look_for = None
        self.look_fault = False
        self.look_until = None

    def draw(self, app, state, now, where, peeking, unknown, fault):
        """app's screen for now (cran.app.App._draw's arguments), drawn by its words'
        module: the open menu's (cran.menuwords, loaded with it), else cran.texts. Most
        show steps find the public look drawn already: then nothing is loaded."""
        public = where is None and not peeking
        until = self.look_until
        if public and state is self.look_for and fault == self.look_fault and (
                until is None or ticks_diff(now, until) < 0):
            return
        if where is not None and app.menu.is_open():
            from cran.menuwords import draw
        else:
            from cran.texts import draw
        draw(app, state, now, where, peeking, unknown, fault)
        if public:
            forget(_TEXTS)

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

