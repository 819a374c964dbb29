# Lines of 8x8 framebuf text drawn on a small screen's panel, by its driver (SSD1306_I2C,
# ST7789) made for the draw. Loaded to draw and let go after it (cran.hal.display.Screen
# holds what stays: the bus, the lines on show): a screen changes at a change of state,
# rarely, and its driver's code and buffers (up to 2.5 KB of a badge's heap) are needed
# only then.

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


def show_lines(screen, lines):
    """Screen.show_lines: up to its rows, each cut at its columns. -> True when the
    panel was sent, False when it already showed these lines."""
    lines = [plain(line)[:screen.columns] for line in lines[:screen.rows]]
    if lines == screen.shown:
        return False
    dev = driver(screen)
    dev.fill(0)
    for i, line in enumerate(lines):
        dev.text(line, 0, i * screen.line_height_px, 1)
    dev.show()
    screen.shown = lines
    return True


def driver(screen):
    """The driver of screen's panel, for one draw: the panel was set up at the start."""
    if screen.kind == "ssd1306":
        from cran.hal.ssd1306 import SSD1306_I2C
        return SSD1306_I2C(screen.width, screen.height, *screen.bus)
    from cran.hal.st7789 import ST7789
    return ST7789(screen.bus[0], screen.width, screen.height, *screen.bus[1:])
