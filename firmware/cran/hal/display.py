# A small screen of lines of 8x8 text: what stays on a board with one, the lines on show
# and the public look drawn. The screen is sent only when the text changes (a full
# SSD1306 frame is ~25 ms of I2C at 400 kHz). What draws is loaded for a draw and let go
# after it: the words (cran.texts, cran.menuwords, and what they share, cran.screenwords),
# the panel's lines and its driver (cran.hal.panel).

from cran.compat import forget
from cran.core.ticks import ticks_add, ticks_diff
from cran.core.vocab import const

# The look's words (~3 KB of a badge's heap, with what they share with the menu's) are
# loaded to draw it and let go once drawn: a screen changes at a change of state,
# rarely. Kept while the wearer peeks (its countdown is drawn each second) or an offer
# shows; the open menu draws with its own (a public look is drawn once it closes).
_TEXTS = const(("cran.texts", "cran.screenwords"))
# The panel's lines and its driver, let go after each draw.
_PANEL = const(("cran.hal.panel", "cran.hal.ssd1306", "cran.hal.st7789"))


class Screen:
    line_height_px = 10   # 8 px glyphs and 2 px between lines: 6 lines on 64 px

    def __init__(self, kind, bus, width, height):
        self.kind = kind     # the panel's driver, "ssd1306" or "st7789" (cran.hal.panel)
        self.bus = bus       # what it is made with: (i2c, address) or (spi, dc, cs)
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
        """app's screen for now (cran.app.App._draw's arguments), its lines said by its
        words' module: the open menu's (cran.menuwords, loaded with it), else cran.texts.
        Most show steps find the public look drawn already: then nothing is loaded."""
        public = where is None and not peeking
        until = self.look_until
        if public and state is self.look_for and fault == self.look_fault and (
                until is None or ticks_diff(now, until) < 0):
            return
        if where is not None and app.menu.is_open():
            from cran.menuwords import lines_for
        else:
            from cran.texts import lines_for
        lines, left = lines_for(app, state, now, where, peeking, unknown, fault)
        del lines_for   # (it keeps its module's globals: all of it, past forget)
        if public:
            forget(_TEXTS)   # before the panel's driver loads: the two never in at once
        self.show_lines(lines)
        self.look_for = state if public else None
        self.look_fault = fault
        self.look_until = None if left is None else ticks_add(now, left)

    def news_of(self, cues):
        """The wearer's news among a change's cues (cran.screenwords.news_of), noted by
        the app at each change: the draw that follows lets its module go."""
        from cran.screenwords import news_of
        return news_of(cues)

    def show_lines(self, lines):
        """Draw up to `rows` lines, each cut at `columns` characters. -> True when the
        screen was sent, False when it already showed these lines."""
        from cran.hal.panel import show_lines
        try:
            return show_lines(self, lines)
        finally:
            forget(_PANEL)
