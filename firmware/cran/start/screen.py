# The board's screen, made from its board file at the start: only a board with one
# loads this (cran.start.parts), with its panel's driver, let go with the start.

import machine

_SPI_HZ = 20000000


def screen(board):
    """board's screen (its display is not None) -> (Screen or None, problem or None)."""
    spec = board.display
    from cran.hal.display import Screen
    try:
        # The panel set up here; its driver is made again for each draw (cran.hal.panel)
        # with what the screen keeps, and let go after it.
        if spec["kind"] == "ssd1306":
            from cran.hal.ssd1306 import SSD1306_I2C
            bus = spec["i2c"]
            i2c = machine.I2C(0, scl=machine.Pin(bus["scl"]), sda=machine.Pin(bus["sda"]),
                              freq=400000)
            SSD1306_I2C(spec["width"], spec["height"], i2c, bus["addr"]).init_display()
            return Screen("ssd1306", (i2c, bus["addr"]), spec["width"], spec["height"]), None
        else:
            from cran.hal.st7789 import ST7789
            _backlight(board, spec["backlight"])
            pins = spec["spi"]
            spi = machine.SPI(1, baudrate=_SPI_HZ, sck=machine.Pin(pins["sclk"]),
                              mosi=machine.Pin(pins["mosi"]))
            dc, cs = machine.Pin(pins["dc"]), machine.Pin(pins["cs"])
            ST7789(spi, spec["width"], spec["height"], dc, cs).init(
                machine.Pin(pins["rst"]) if pins["rst"] is not None else None)
            return Screen("st7789", (spi, dc, cs), spec["width"], spec["height"]), None
    except OSError as e:
        # An optional screen not fitted is normal; a fitted one silent is worth a line.
        # Its code goes now: no draw will let it go (0.9 KB of a DevKitC's heap, 32-bit).
        from cran.compat import forget
        forget(("cran.hal.display", "cran.hal.ssd1306", "cran.hal.st7789",
                "cran.hal.axp192"))
        return None, (None if spec["optional"] else "display: no answer (%s)" % (e,))


def _backlight(board, light):
    if isinstance(light, dict):
        machine.Pin(light["pin"], machine.Pin.OUT, value=1)
    elif light is not None:   # "axp192-ldo2": the board check made sure power is one
        from cran.hal.axp192 import lcd_power_on
        bus = board.power["i2c"]
        i2c = machine.I2C(0, scl=machine.Pin(bus["scl"]), sda=machine.Pin(bus["sda"]),
                          freq=400000)
        lcd_power_on(i2c, bus["addr"])
