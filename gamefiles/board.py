# Board files (boards/<id>.json, schema in boards/README.md): which pin each part of a
# badge sits on. Checked here, once, so a wrong pin is a message naming the file and the
# field at the desk, not a dark LED on a player's chest. The app builds drivers from it.

import json

from cran.config import BOARD_KEYS, ID_CHARS
from cran.config import Board as BadgeBoard


class BoardError(ValueError):
    pass


# GPIO numbers each chip has. The ESP32 has no 20, 24 or 28-31.
_GPIOS = {
    "esp32": ((0, 19), (21, 23), (25, 27), (32, 39)),
    "esp32-pico-d4": ((0, 19), (21, 23), (25, 27), (32, 39)),
    "esp32c3": ((0, 21),),
    "esp32s3": ((0, 21), (26, 48)),
}
_FLASH = "a flash pin"
_TX = "the serial console (UART0 TX)"
_RX = "the serial console (UART0 RX)"
# Pins a part must not take: the SPI flash the firmware runs from, and the serial or USB
# lines that carry MicroPython's REPL (and flashing with mpremote).
_RESERVED = {
    "esp32": {1: _TX, 3: _RX, 6: _FLASH, 7: _FLASH, 8: _FLASH, 9: _FLASH, 10: _FLASH,
              11: _FLASH},
    # The PICO-D4 package wires its flash to 6, 7, 8, 11, 16, 17: 9 and 10 are free.
    "esp32-pico-d4": {1: _TX, 3: _RX, 6: _FLASH, 7: _FLASH, 8: _FLASH, 11: _FLASH,
                      16: _FLASH, 17: _FLASH},
    "esp32c3": {11: "the flash supply pin (VDD_SPI)", 12: _FLASH, 13: _FLASH, 14: _FLASH,
                15: _FLASH, 16: _FLASH, 17: _FLASH, 18: "a USB pin (D-)",
                19: "a USB pin (D+)", 20: _RX, 21: _TX},
    # 26-32 carry the SPI flash (and a quad PSRAM); 19/20 the native USB that carries
    # CircuitPython's drive and console; 43/44 UART0.
    "esp32s3": {19: "a USB pin (D-)", 20: "a USB pin (D+)", 26: _FLASH, 27: _FLASH,
                28: _FLASH, 29: _FLASH, 30: _FLASH, 31: _FLASH, 32: _FLASH, 43: _TX,
                44: _RX},
}
# No output driver and no internal pull resistors on these.
_INPUT_ONLY = {"esp32": (34, 35, 36, 37, 38, 39), "esp32-pico-d4": (34, 35, 36, 37, 38, 39),
               "esp32c3": (), "esp32s3": ()}

_TOP = ("id", "name", "chip", "leds", "buzzer", "buttons", "display", "power", "imu",
        "ir_tx", "status_led", "runtime", "circuitpython_board", "sources", "notes")
_RUNTIMES = ("micropython", "circuitpython")
_LED_KINDS = ("sk6812", "ws2812")
_LAYOUTS = {"single": 1, "strip": None, "matrix-5x5": 25}   # layout -> its LED count
_MAX_LEDS = 256
_BACKLIGHT_AXP = "axp192-ldo2"


def _what(value):
    """A JSON value's kind for a message; the same words on CPython and MicroPython,
    which print containers differently."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, (list, tuple)):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, float):
        return "a fraction"
    return "a number"


class _Check:
    """Walks one board file. `used` maps each claimed pin to (field, bus): two parts may
    share a pin only as the same line of the same I2C bus."""

    def __init__(self, where):
        self.where = where
        self.chip = ""
        self.used = {}
        self.claims = []   # (field, pin), every one, shared I2C lines included
        self.addrs = {}    # (sda, scl, addr) -> field of the I2C device there

    def fail(self, field, problem):
        raise BoardError("%s: %s: %s" % (self.where, field, problem))

    def obj(self, value, field, keys, required):
        if not isinstance(value, dict):
            self.fail(field, "expected an object, got %s" % _what(value))
        for key in sorted(value):   # sorted: dict order differs on MicroPython
            if key not in keys:
                self.fail(field + "." + key if field else key,
                          "unknown field (known: %s)" % ", ".join(keys))
        for key in required:
            if key not in value:
                self.fail(field + "." + key if field else key, "missing")
        return value

    def number(self, value, field, low, high):
        # bool is an int in Python: `"count": true` must not pass as 1.
        if isinstance(value, bool) or not isinstance(value, int):
            self.fail(field, "expected a whole number, got %s" % _what(value))
        if not low <= value <= high:
            self.fail(field, "%d is not in %d-%d" % (value, low, high))
        return value

    def flag(self, value, field):
        if not isinstance(value, bool):
            self.fail(field, "expected true or false, got %s" % _what(value))
        return value

    def text(self, value, field):
        if not isinstance(value, str) or not value:
            self.fail(field, "expected a non-empty string, got %s" % _what(value))
        return value

    def choice(self, value, field, choices):
        if value not in choices:
            shown = ", ".join(["null" if c is None else c for c in choices])
            if isinstance(value, str):
                self.fail(field, "unknown %r (known: %s)" % (value, shown))
            self.fail(field, "expected one of %s, got %s" % (shown, _what(value)))
        return value

    def gpio(self, value, field, output):
        """A pin number this chip has and a part may use."""
        if isinstance(value, bool) or not isinstance(value, int):
            self.fail(field, "expected a GPIO number, got %s" % _what(value))
        chip = self.chip
        for low, high in _GPIOS[chip]:
            if low <= value <= high:
                break
        else:
            spans = ", ".join(["%d-%d" % span for span in _GPIOS[chip]])
            self.fail(field, "%d is not a GPIO of an %s (%s)" % (value, chip, spans))
        why = _RESERVED[chip].get(value)
        if why:
            self.fail(field, "%d is %s on %s" % (value, why, chip))
        if output and value in _INPUT_ONLY[chip]:
            self.fail(field, "%d is input-only on %s and can't drive a part" % (value, chip))
        return value

    def claim(self, pin, field, bus=None):
        if pin in self.used:
            other, other_bus = self.used[pin]
            if bus is None or bus != other_bus:
                self.fail(field, "%d is already used by %s" % (pin, other))
        else:
            self.used[pin] = (field, bus)
        self.claims.append((field, pin))

    def pin(self, part, key, field, output=True):
        value = self.gpio(part[key], field + "." + key, output)
        self.claim(value, field + "." + key)
        return value

    def i2c(self, value, field):
        field += ".i2c"
        bus = self.obj(value, field, ("sda", "scl", "addr"), ("sda", "scl", "addr"))
        sda = self.gpio(bus["sda"], field + ".sda", True)
        scl = self.gpio(bus["scl"], field + ".scl", True)
        # The bus key names the line, so sda == scl is still a clash.
        self.claim(sda, field + ".sda", ("sda", sda, scl))
        self.claim(scl, field + ".scl", ("scl", sda, scl))
        addr = self.number(bus["addr"], field + ".addr", 0x08, 0x77)   # 7-bit, not reserved
        other = self.addrs.get((sda, scl, addr))
        if other:
            self.fail(field + ".addr", "0x%02x is already used by %s on the same bus"
                      % (addr, other))
        self.addrs[(sda, scl, addr)] = field
        return bus


def _copy(value):
    """A deep copy of parsed JSON: the parts get defaults filled in, and a dict the
    caller passed in must not change under them."""
    if isinstance(value, dict):
        out = {}
        for key in value:
            out[key] = _copy(value[key])
        return out
    if isinstance(value, list):
        return [_copy(item) for item in value]
    return value


def _leds(c, value):
    keys = ("pin", "count", "kind", "layout", "max_brightness")
    leds = c.obj(value, "leds", keys, keys)
    c.pin(leds, "pin", "leds")
    c.choice(leds["kind"], "leds.kind", _LED_KINDS)
    layout = c.choice(leds["layout"], "leds.layout", ("single", "strip", "matrix-5x5"))
    count = c.number(leds["count"], "leds.count", 1, _MAX_LEDS)
    wanted = _LAYOUTS[layout]
    if wanted is not None and count != wanted:
        c.fail("leds.count", "layout %r has %d LED%s, not %d"
               % (layout, wanted, "" if wanted == 1 else "s", count))
    # 0 would keep the badge dark: a cap, not an off switch.
    c.number(leds["max_brightness"], "leds.max_brightness", 1, 255)
    return leds


def _buttons(c, value):
    if not isinstance(value, list) or not 1 <= len(value) <= 2:
        c.fail("buttons", "expected a list of 1 or 2 buttons, got %s" % (
            "%d buttons" % len(value) if isinstance(value, list) else _what(value)))
    names = []  # type: list
    for i, raw in enumerate(value):
        field = "buttons[%d]" % i
        button = c.obj(raw, field, ("name", "pin", "active_low", "pull"),
                       ("name", "pin", "active_low"))
        name = c.choice(button["name"], field + ".name", ("a", "b"))
        if name in names:
            c.fail(field + ".name", "%r is already used by buttons[%d]"
                   % (name, names.index(name)))
        names.append(name)
        pin = c.pin(button, "pin", field, output=False)
        low = c.flag(button["active_low"], field + ".active_low")
        pull = c.choice(button.get("pull"), field + ".pull", ("up", "down", None))
        button["pull"] = pull
        if pull and pin in _INPUT_ONLY[c.chip]:
            c.fail(field + ".pull", "%d has no internal pull resistors on %s: use null and "
                   "an external resistor" % (pin, c.chip))
        if (pull == "up" and not low) or (pull == "down" and low):
            c.fail(field + ".pull", "%r with active_low %s never reads a press"
                   % (pull, "true" if low else "false"))
    if "a" not in names:
        c.fail("buttons", "no button named \"a\"")
    return value


def _display(c, value):
    if value is None:
        return None
    common = ("kind", "width", "height", "optional")
    display = c.obj(value, "display", common + ("spi", "i2c", "backlight"), ("kind",))
    kind = c.choice(display["kind"], "display.kind", ("st7789", "ssd1306"))
    if kind == "st7789":
        c.obj(display, "display", common + ("spi", "backlight"), common[:3] + ("spi",))
        keys = ("mosi", "sclk", "cs", "dc", "rst")
        spi = c.obj(display["spi"], "display.spi", keys, keys[:4])
        for key in keys[:4]:
            c.pin(spi, key, "display.spi")
        spi["rst"] = spi.get("rst")   # null: tied to the chip's reset
        if spi["rst"] is not None:
            c.pin(spi, "rst", "display.spi")
        light = display.get("backlight")
        if isinstance(light, dict):
            c.obj(light, "display.backlight", ("pin",), ("pin",))
            c.pin(light, "pin", "display.backlight")
        elif light is not None and light != _BACKLIGHT_AXP:
            c.fail("display.backlight", "expected %r, {\"pin\": N} or null, got %s"
                   % (_BACKLIGHT_AXP, _what(light)))
        display["backlight"] = light
    else:
        c.obj(display, "display", common + ("i2c",), common[:3] + ("i2c",))
        c.i2c(display["i2c"], "display")
    c.number(display["width"], "display.width", 1, 480)
    c.number(display["height"], "display.height", 1, 480)
    # optional: the app looks for it at start and carries on without it.
    display["optional"] = c.flag(display.get("optional", False), "display.optional")
    return display


def _i2c_part(c, value, field, kinds):
    if value is None:
        return None
    part = c.obj(value, field, ("kind", "i2c"), ("kind", "i2c"))
    c.choice(part["kind"], field + ".kind", kinds)
    c.i2c(part["i2c"], field)
    return part


def _pin_part(c, value, field, keys, required):
    if value is None:
        return None
    part = c.obj(value, field, keys, required)
    c.pin(part, "pin", field)
    return part


def _runtime(c, data):
    """Which firmware runs the board (cran.start.parts takes its drivers): MicroPython, the
    default, or CircuitPython, which names its own board definition (the `board`
    module's, boot_out.txt's "Board ID") and has no display driver."""
    runtime = data["runtime"] = c.choice(data["runtime"] or "micropython", "runtime",
                                         _RUNTIMES)
    cp_board = data["circuitpython_board"]
    if runtime == "circuitpython":
        if cp_board is None:
            c.fail("circuitpython_board", "missing: a CircuitPython board names its board "
                   "id (its boot_out.txt's \"Board ID\")")
        for ch in c.text(cp_board, "circuitpython_board"):
            if ch not in ID_CHARS + "_":
                c.fail("circuitpython_board", "%r: a CircuitPython board id" % cp_board)
        if data["display"] is not None:
            c.fail("display", "the CircuitPython build has no display driver")
    elif cp_board is not None:
        c.fail("circuitpython_board", "only for \"runtime\": \"circuitpython\"")


def load_board(text_or_dict, where="board file"):
    """Board file text (or its parsed dict) -> Board, or BoardError naming `where`, the
    field and what is wrong with it."""
    data = text_or_dict
    if isinstance(data, (str, bytes)):
        try:
            if isinstance(data, bytes):   # a file read in binary
                data = data.decode()
            data = json.loads(data)
        except ValueError as e:   # UnicodeError is a ValueError too
            # The JSON error's words differ between CPython and MicroPython.
            raise BoardError("%s: not valid JSON: %s" % (where, e)) from None
    if not isinstance(data, dict):
        raise BoardError("%s: expected a JSON object, got %s" % (where, _what(data)))
    c = _Check(where)
    c.obj(data, "", _TOP, ("id", "name", "chip", "buttons"))
    data = _copy(data)
    for key in _TOP:
        if key not in data:
            data[key] = "" if key == "notes" else [] if key == "sources" else None
    # The id names the file and the host tool's --board: keep it a plain file name.
    for ch in c.text(data["id"], "id"):
        if ch not in ID_CHARS:
            c.fail("id", "%r: use lower-case letters, digits and -" % data["id"])
    c.text(data["name"], "name")
    c.chip = c.choice(data["chip"], "chip", tuple(sorted(_GPIOS)))
    if data["leds"] is not None:
        _leds(c, data["leds"])
    data["buzzer"] = _pin_part(c, data["buzzer"], "buzzer", ("pin", "kind"), ("pin",))
    if data["buzzer"] is not None:
        # passive: the driver plays tones with PWM; active: it only switches it on.
        buzzer = data["buzzer"]
        buzzer["kind"] = c.choice(buzzer.get("kind", "passive"), "buzzer.kind",
                                  ("passive", "active"))
    _buttons(c, data["buttons"])
    data["power"] = _i2c_part(c, data["power"], "power", ("axp192",))
    data["imu"] = _i2c_part(c, data["imu"], "imu", ("mpu6886",))
    _display(c, data["display"])
    _pin_part(c, data["ir_tx"], "ir_tx", ("pin",), ("pin",))
    led = _pin_part(c, data["status_led"], "status_led", ("pin", "active_low"),
                    ("pin", "active_low"))
    if led is not None:
        c.flag(led["active_low"], "status_led.active_low")
    if not isinstance(data["sources"], list):
        c.fail("sources", "expected a list of URLs, got %s" % _what(data["sources"]))
    for i, url in enumerate(data["sources"]):
        c.text(url, "sources[%d]" % i)
    if not isinstance(data["notes"], str):
        c.fail("notes", "expected a string, got %s" % _what(data["notes"]))
    # Rules across parts.
    display = data["display"]
    if display and display["kind"] == "st7789" and display["backlight"] == _BACKLIGHT_AXP:
        if not data["power"] or data["power"]["kind"] != "axp192":
            c.fail("display.backlight", "%r needs an axp192 in \"power\"" % _BACKLIGHT_AXP)
    _runtime(c, data)
    if data["leds"] is None and (display is None or display["optional"]):
        c.fail("leds", "a board needs LEDs or a display that is always there, to show "
               "the wearer's state")
    return Board(data, c.claims)


def read_board_file(path):
    """The board file at `path` -> Board; any problem is a BoardError naming `path`."""
    try:
        with open(path) as f:
            text = f.read()
    except OSError as e:
        raise BoardError("%s: cannot read: %s" % (path, e)) from None
    return load_board(text, path)


class Board(BadgeBoard):
    """A checked board file. Each part is its dict from the file, or None when the board
    has no such part, with optional keys filled in so drivers need no .get()."""

    def __init__(self, data, claims):
        for key in BOARD_KEYS:      # what the badge reads (cran.config.read_board)
            setattr(self, key, data[key])
        self.name = data["name"]
        self.imu = data["imu"]
        self.ir_tx = data["ir_tx"]
        self.status_led = data["status_led"]
        self.runtime = data["runtime"]
        self.circuitpython_board = data["circuitpython_board"]
        self.sources = data["sources"]
        self.notes = data["notes"]
        # field -> GPIO, e.g. {"leds.pin": 27}: for pin tables and the tests.
        self.pins = {}
        for field, pin in claims:
            self.pins[field] = pin

    def badge_data(self):
        """What the badge keeps of it (cran flash writes it): every part, no notes."""
        data = {"id": self.id, "name": self.name, "chip": self.chip, "leds": self.leds,
                "buzzer": self.buzzer, "buttons": self.buttons, "display": self.display,
                "power": self.power, "imu": self.imu, "ir_tx": self.ir_tx,
                "status_led": self.status_led}
        if self.runtime != "micropython":   # the badge's cran.start.parts reads it
            data["runtime"] = self.runtime
            data["circuitpython_board"] = self.circuitpython_board
        return data

    def led_count(self):
        return self.leds["count"] if self.leds else 0

    def button_count(self):
        return len(self.buttons)

    def has_screen(self):
        """True when the file lists a display; an optional one may still be absent."""
        return self.display is not None
