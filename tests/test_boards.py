# Board files (boards/*.json) and their check (gamefiles.board), on CPython and inside the
# MicroPython unix port: a wrong pin must be a message at the desk, on either runtime.
import copy
import json
import os
import subprocess
import sys

import pytest

from conftest import REPO
from gamefiles.board import BoardError, load_board, read_board_file
from host_tools import FIRMWARE_DIR, GAMEFILES_ROOT, boards

BOARD_DIR = os.path.join(REPO, "boards")
DRIVER = os.path.join(os.path.dirname(__file__), "mp", "board_driver.py")
WHERE = "boards/x.json"


def board_files():
    return sorted(os.path.join(BOARD_DIR, name) for name in os.listdir(BOARD_DIR)
                  if name.endswith(".json"))


def base(board_id):
    with open(os.path.join(BOARD_DIR, board_id + ".json")) as f:
        return json.load(f)


# The pins each board file must keep: checked against the makers' pages (see `sources`).
PINS = {
    "atom-lite": {"leds.pin": 27, "buttons[0].pin": 39, "ir_tx.pin": 12},
    "atom-matrix": {"leds.pin": 27, "buttons[0].pin": 39, "imu.i2c.sda": 25,
                    "imu.i2c.scl": 21, "ir_tx.pin": 12},
    "m5stickc-plus": {
        "buzzer.pin": 2, "buttons[0].pin": 37, "buttons[1].pin": 39,
        "power.i2c.sda": 21, "power.i2c.scl": 22, "imu.i2c.sda": 21, "imu.i2c.scl": 22,
        "display.spi.mosi": 15, "display.spi.sclk": 13, "display.spi.cs": 5,
        "display.spi.dc": 23, "display.spi.rst": 18, "ir_tx.pin": 9, "status_led.pin": 10},
    "esp32-devkitc": {"leds.pin": 16, "buzzer.pin": 25, "buttons[0].pin": 32,
                      "buttons[1].pin": 33, "display.i2c.sda": 21, "display.i2c.scl": 22},
    "esp32c3-supermini": {"leds.pin": 4, "buzzer.pin": 5, "buttons[0].pin": 6,
                          "buttons[1].pin": 7, "display.i2c.sda": 0, "display.i2c.scl": 1,
                          "status_led.pin": 8},
    # CircuitPython's (tests/test_circuitpython.py checks them against its board module)
    "atoms3-lite": {"leds.pin": 35, "buttons[0].pin": 41, "ir_tx.pin": 4},
    "qtpy-esp32s3": {"leds.pin": 39, "buttons[0].pin": 0},
}


def test_the_five_boards_are_there():
    assert sorted(PINS) == sorted(os.path.basename(p)[:-5] for p in board_files())


@pytest.mark.parametrize("path", board_files(), ids=os.path.basename)
def test_every_board_file_loads(path):
    board = read_board_file(path)
    assert board.id == os.path.basename(path)[:-5]   # the host tool finds it by id
    assert board.sources and all(url.startswith("https://") for url in board.sources)
    assert board.notes
    assert board.button_count() >= 1
    assert board.led_count() > 0 or board.has_screen()


@pytest.mark.parametrize("path", board_files(), ids=os.path.basename)
def test_every_board_file_spells_out_what_the_badge_reads(path):
    # The badge reads its board file unchecked (cran.config.read_board, no defaults):
    # the files the virtual badges copy as they are must be what cran flash writes.
    with open(path) as f:
        raw = json.load(f)
    board = read_board_file(path)
    assert {k: raw.get(k, "missing") for k in board.badge_data()} == board.badge_data()


def test_a_badge_reads_the_board_file_cran_flash_writes(tmp_path):
    from cran.config import ConfigError, read_board
    path = str(tmp_path / "b.json")
    with open(path, "w") as f:
        f.write(boards.board_file_text(boards.read_board("m5stickc-plus")))
    board = read_board(path)
    assert board.display["optional"] is False and board.buttons[1]["pull"] is None
    with open(path, "w") as f:
        f.write('{"id": "x", "chip": "esp32"}')
    with pytest.raises(ConfigError, match="b.json: leds: missing"):
        read_board(path)


@pytest.mark.parametrize("board_id", sorted(PINS))
def test_each_board_keeps_its_checked_pins(board_id):
    board = read_board_file(os.path.join(BOARD_DIR, board_id + ".json"))
    assert board.pins == PINS[board_id]


def test_what_the_drivers_read():
    stick = read_board_file(os.path.join(BOARD_DIR, "m5stickc-plus.json"))
    assert (stick.led_count(), stick.button_count(), stick.has_screen()) == (0, 2, True)
    assert stick.display["backlight"] == "axp192-ldo2"
    assert stick.display["optional"] is False
    assert stick.status_led == {"pin": 10, "active_low": True}
    matrix = read_board_file(os.path.join(BOARD_DIR, "atom-matrix.json"))
    assert (matrix.led_count(), matrix.leds["layout"], matrix.has_screen()) == (
        25, "matrix-5x5", False)
    assert matrix.leds["max_brightness"] <= 40   # 25 LEDs behind acrylic: heat
    lite = read_board_file(os.path.join(BOARD_DIR, "atom-lite.json"))
    assert lite.buzzer is None and lite.display is None
    assert lite.buttons == [{"name": "a", "pin": 39, "active_low": True, "pull": None}]
    devkit = read_board_file(os.path.join(BOARD_DIR, "esp32-devkitc.json"))
    assert devkit.buzzer == {"pin": 25, "kind": "passive"}
    assert devkit.display["optional"] is True


def test_defaults_are_filled_in_and_the_callers_dict_is_left_alone():
    data = {"id": "tiny", "name": "Tiny", "chip": "esp32",
            "leds": {"pin": 4, "count": 1, "kind": "ws2812", "layout": "single",
                     "max_brightness": 30},
            "buttons": [{"name": "a", "pin": 0, "active_low": True}]}
    before = copy.deepcopy(data)
    board = load_board(data)
    assert data == before
    assert board.buttons[0]["pull"] is None
    assert (board.buzzer, board.display, board.sources, board.notes) == (None, None, [], "")


def test_bytes_as_read_from_flash():
    with open(os.path.join(BOARD_DIR, "atom-lite.json"), "rb") as f:
        assert load_board(f.read(), "atom-lite.json").id == "atom-lite"


def test_a_missing_file_is_a_board_error(tmp_path):
    path = str(tmp_path / "nope.json")
    with pytest.raises(BoardError, match="nope.json: cannot read"):
        read_board_file(path)


DELETE = object()


def _change(board_id, path, value):
    """The board file `board_id` with one field (dotted path, list indexes as numbers)
    set to `value`, or removed for DELETE -> JSON text."""
    data = base(board_id)
    keys = [int(k) if k.isdigit() else k for k in path.split(".")]
    parent = data
    for key in keys[:-1]:
        parent = parent[key]
    if value is DELETE:
        del parent[keys[-1]]
    else:
        parent[keys[-1]] = value
    return json.dumps(data)


DEV = "esp32-devkitc"
C3 = "esp32c3-supermini"
ESP32_GPIOS = "(0-19, 21-23, 25-27, 32-39)"
TOP_KEYS = ("id, name, chip, leds, buzzer, buttons, display, power, imu, ir_tx, "
            "status_led, runtime, circuitpython_board, sources, notes")
# (name, board text, the whole message)
BROKEN = [
    ("top-list", "[1, 2]", "expected a JSON object, got a list"),
    ("missing-chip", _change(DEV, "chip", DELETE), "chip: missing"),
    ("missing-buttons", _change(DEV, "buttons", DELETE), "buttons: missing"),
    ("missing-button-pin", _change(DEV, "buttons.0.pin", DELETE), "buttons[0].pin: missing"),
    ("missing-led-count", _change(DEV, "leds.count", DELETE), "leds.count: missing"),
    ("unknown-field", _change(DEV, "ledz", 3), "ledz: unknown field (known: %s)" % TOP_KEYS),
    ("unknown-chip", _change(DEV, "chip", "esp8266"),
     "chip: unknown 'esp8266' (known: esp32, esp32-pico-d4, esp32c3, esp32s3)"),
    ("bad-id", _change(DEV, "id", "Dev Kit"),
     "id: 'Dev Kit': use lower-case letters, digits and -"),
    ("pin-99", _change(DEV, "leds.pin", 99),
     "leds.pin: 99 is not a GPIO of an esp32 %s" % ESP32_GPIOS),
    ("pin-24", _change(DEV, "leds.pin", 24),
     "leds.pin: 24 is not a GPIO of an esp32 %s" % ESP32_GPIOS),
    ("pin-negative", _change(DEV, "buzzer.pin", -1),
     "buzzer.pin: -1 is not a GPIO of an esp32 %s" % ESP32_GPIOS),
    ("pin-string", _change(DEV, "leds.pin", "16"),
     "leds.pin: expected a GPIO number, got a string"),
    ("flash-pin", _change(DEV, "buttons.1.pin", 6), "buttons[1].pin: 6 is a flash pin on esp32"),
    ("console-pin", _change(DEV, "buzzer.pin", 1),
     "buzzer.pin: 1 is the serial console (UART0 TX) on esp32"),
    ("input-only-leds", _change(DEV, "leds.pin", 35),
     "leds.pin: 35 is input-only on esp32 and can't drive a part"),
    ("input-only-buzzer", _change(DEV, "buzzer.pin", 34),
     "buzzer.pin: 34 is input-only on esp32 and can't drive a part"),
    ("input-only-i2c", _change(DEV, "display.i2c.scl", 39),
     "display.i2c.scl: 39 is input-only on esp32 and can't drive a part"),
    ("duplicate-pin", _change(DEV, "buttons.1.pin", 16),
     "buttons[1].pin: 16 is already used by leds.pin"),
    ("duplicate-with-i2c", _change(DEV, "buzzer.pin", 21),
     "display.i2c.sda: 21 is already used by buzzer.pin"),
    ("sda-is-scl", _change(DEV, "display.i2c.scl", 21),
     "display.i2c.scl: 21 is already used by display.i2c.sda"),
    ("i2c-address-twice", _change(DEV, "imu", {"kind": "mpu6886",
                                               "i2c": {"sda": 21, "scl": 22, "addr": 60}}),
     "display.i2c.addr: 0x3c is already used by imu.i2c on the same bus"),
    ("i2c-address-range", _change(DEV, "display.i2c.addr", 200),
     "display.i2c.addr: 200 is not in 8-119"),
    ("unknown-led-kind", _change(DEV, "leds.kind", "apa102"),
     "leds.kind: unknown 'apa102' (known: sk6812, ws2812)"),
    ("unknown-layout", _change(DEV, "leds.layout", "ring"),
     "leds.layout: unknown 'ring' (known: single, strip, matrix-5x5)"),
    ("brightness-high", _change(DEV, "leds.max_brightness", 300),
     "leds.max_brightness: 300 is not in 1-255"),
    ("brightness-negative", _change(DEV, "leds.max_brightness", -5),
     "leds.max_brightness: -5 is not in 1-255"),
    ("brightness-fraction", _change(DEV, "leds.max_brightness", 0.5),
     "leds.max_brightness: expected a whole number, got a fraction"),
    ("count-bool", _change(DEV, "leds.count", True),
     "leds.count: expected a whole number, got true"),
    ("single-count", _change("atom-lite", "leds.count", 3),
     "leds.count: layout 'single' has 1 LED, not 3"),
    ("matrix-count", _change("atom-matrix", "leds.count", 24),
     "leds.count: layout 'matrix-5x5' has 25 LEDs, not 24"),
    ("unknown-display", _change(DEV, "display.kind", "ili9341"),
     "display.kind: unknown 'ili9341' (known: st7789, ssd1306)"),
    ("st7789-with-i2c", _change("m5stickc-plus", "display.i2c", {}),
     "display.i2c: unknown field (known: kind, width, height, optional, spi, backlight)"),
    ("optional-not-bool", _change(DEV, "display.optional", "yes"),
     "display.optional: expected true or false, got a string"),
    ("backlight-without-axp", _change("m5stickc-plus", "power", None),
     "display.backlight: 'axp192-ldo2' needs an axp192 in \"power\""),
    ("backlight-number", _change("m5stickc-plus", "display.backlight", 32),
     "display.backlight: expected 'axp192-ldo2', {\"pin\": N} or null, got a number"),
    ("backlight-pin-clash", _change("m5stickc-plus", "display.backlight", {"pin": 10}),
     "status_led.pin: 10 is already used by display.backlight.pin"),
    ("unknown-power", _change("m5stickc-plus", "power.kind", "axp2101"),
     "power.kind: unknown 'axp2101' (known: axp192)"),
    ("pull-up-active-high", _change(DEV, "buttons.0.active_low", False),
     "buttons[0].pull: 'up' with active_low false never reads a press"),
    ("pull-on-input-only", _change(DEV, "buttons.0.pin", 36),
     "buttons[0].pull: 36 has no internal pull resistors on esp32: use null and an "
     "external resistor"),
    ("active-low-missing", _change(DEV, "buttons.0.active_low", DELETE),
     "buttons[0].active_low: missing"),
    ("button-name-twice", _change(DEV, "buttons.1.name", "a"),
     "buttons[1].name: 'a' is already used by buttons[0]"),
    ("no-button-a", _change("atom-lite", "buttons.0.name", "b"), "buttons: no button named \"a\""),
    ("no-buttons", _change(DEV, "buttons", []),
     "buttons: expected a list of 1 or 2 buttons, got 0 buttons"),
    ("buttons-object", _change(DEV, "buttons", {"a": 32}),
     "buttons: expected a list of 1 or 2 buttons, got an object"),
    ("nothing-shows", _change("atom-lite", "leds", None),
     "leds: a board needs LEDs or a display that is always there, to show the wearer's "
     "state"),
    ("only-optional-screen", _change(DEV, "leds", None),
     "leds: a board needs LEDs or a display that is always there, to show the wearer's "
     "state"),
    ("sources-text", _change(DEV, "sources", "https://example.org"),
     "sources: expected a list of URLs, got a string"),
    ("c3-usb", _change(C3, "leds.pin", 18), "leds.pin: 18 is a USB pin (D-) on esp32c3"),
    ("c3-flash", _change(C3, "buttons.0.pin", 12), "buttons[0].pin: 12 is a flash pin on esp32c3"),
    ("c3-console", _change(C3, "buzzer.pin", 20),
     "buzzer.pin: 20 is the serial console (UART0 RX) on esp32c3"),
    ("c3-no-gpio-22", _change(C3, "display.i2c.sda", 22),
     "display.i2c.sda: 22 is not a GPIO of an esp32c3 (0-21)"),
    ("pico-flash", _change("atom-lite", "buzzer", {"pin": 16}),
     "buzzer.pin: 16 is a flash pin on esp32-pico-d4"),
    ("pico-console", _change("atom-matrix", "ir_tx.pin", 3),
     "ir_tx.pin: 3 is the serial console (UART0 RX) on esp32-pico-d4"),
    ("classic-flash-10", _change(DEV, "buzzer.pin", 10), "buzzer.pin: 10 is a flash pin on esp32"),
]
# Malformed JSON: each runtime's parser words its error its own way (see below).
BAD_JSON = [
    ("truncated", '{"id": "x",'),
    ("unquoted", '{id: "x"}'),
    ("empty", ""),
]
# MicroPython's json takes a trailing comma; CPython's refuses it, so the desk does
# (`cran` and these tests check board files before they reach a badge).
BAD_JSON_CPYTHON_ONLY = [("trailing-comma", '{"id": "x", "name": "X",}')]


@pytest.mark.parametrize("name, text, message", BROKEN, ids=[c[0] for c in BROKEN])
def test_broken_boards_say_where_and_what(name, text, message):
    with pytest.raises(BoardError) as err:
        load_board(text, WHERE)
    assert str(err.value) == "%s: %s" % (WHERE, message)


@pytest.mark.parametrize("name, text", BAD_JSON + BAD_JSON_CPYTHON_ONLY,
                         ids=[c[0] for c in BAD_JSON + BAD_JSON_CPYTHON_ONLY])
def test_malformed_json_gives_the_json_error(name, text):
    with pytest.raises(BoardError) as err:
        load_board(text, WHERE)
    prefix = WHERE + ": not valid JSON: "
    assert str(err.value).startswith(prefix) and len(str(err.value)) > len(prefix)


def test_valid_pins_near_the_forbidden_ones():
    # 9 and 10 are flash on ESP32 modules but free on the PICO-D4 (the StickC's IR, LED).
    assert read_board_file(os.path.join(BOARD_DIR, "m5stickc-plus.json")).ir_tx["pin"] == 9
    # Input-only pins may carry buttons, without internal pulls.
    board = load_board(_change(DEV, "buttons.0", {"name": "a", "pin": 34, "active_low": True}))
    assert board.buttons[0]["pin"] == 34
    # Two parts on one I2C bus at different addresses.
    board = load_board(_change(DEV, "imu", {"kind": "mpu6886",
                                            "i2c": {"sda": 21, "scl": 22, "addr": 104}}))
    assert board.pins["imu.i2c.sda"] == board.pins["display.i2c.sda"] == 21


def _run_driver(exe, cases):
    out = subprocess.run([exe, DRIVER, FIRMWARE_DIR, GAMEFILES_ROOT], input=json.dumps(cases),
                         capture_output=True, text=True, timeout=60, check=True).stdout
    return [json.loads(line) for line in out.splitlines()]


def test_micropython_checks_every_board_like_cpython(micropython):
    # MicroPython's dicts have no order, its ints and bools differ in corners, and its
    # json module is its own: the same files must give the same boards and messages.
    cases = []
    for path in board_files():
        with open(path) as f:
            cases.append(["boards/" + os.path.basename(path), f.read()])
    cases += [[WHERE, text] for _, text, _ in BROKEN]
    cases += [[WHERE, text] for _, text in BAD_JSON]
    on_mp = _run_driver(micropython, cases)
    on_cpython = _run_driver(sys.executable, cases)
    assert len(on_mp) == len(on_cpython) == len(cases)
    for case, mp, cp in zip(cases, on_mp, on_cpython):
        if cp[0] == "error" and ": not valid JSON: " in cp[1]:
            # "syntax error in JSON" there, "Expecting value: line 1 ..." here.
            assert mp[0] == "error" and mp[1].startswith(WHERE + ": not valid JSON: ")
        else:
            assert mp == cp, case[0]
    assert [r[0] for r in on_cpython[:len(PINS)]] == ["ok"] * len(PINS)
    # And CPython in the driver agrees with CPython in this process.
    messages = [r[1] for r in on_cpython[len(PINS):len(PINS) + len(BROKEN)]]
    assert messages == ["%s: %s" % (WHERE, m) for _, _, m in BROKEN]


# ---- a command reads and checks its board once (host_tools.boards) -------------------

class BoardReads:
    """Counts, in this process, each open of a board file (by the module that opened
    it) and each run of the board checker (gamefiles.board.read_board_file)."""

    def __init__(self, monkeypatch):
        import builtins

        import gamefiles.board
        self.opened, self.checked = [], 0
        real_open, real_check = builtins.open, gamefiles.board.read_board_file

        def spy_open(file, *args, **kwargs):
            if isinstance(file, str) and os.path.realpath(os.path.dirname(file)) == \
                    os.path.realpath(BOARD_DIR):
                caller = sys._getframe(1).f_code.co_filename
                self.opened.append(os.path.relpath(caller, REPO))
            return real_open(file, *args, **kwargs)

        def spy_check(path):
            self.checked += 1
            return real_check(path)
        monkeypatch.setattr(builtins, "open", spy_open)
        monkeypatch.setattr(gamefiles.board, "read_board_file", spy_check)


# The firmware's own check of the wearer's config (cran.config.from_dict) reads the
# board file as the badge will: the host can't hand it the Board it checked.
FIRMWARE_CONFIG_CHECK = os.path.join("firmware", "cran", "config.py")


def test_cran_sim_headless_reads_and_checks_its_board_once(monkeypatch, capsys):
    from host_tools import cli
    reads = BoardReads(monkeypatch)
    assert cli.main(["sim", "--headless", "--board", "m5stickc-plus",
                     "--runtime", "cpython"]) == 0
    assert "as a m5stickc-plus badge lives it" in capsys.readouterr().out
    assert (reads.opened, reads.checked) == ([os.path.join("gamefiles", "board.py")], 1)


def test_cran_sim_reads_and_checks_its_board_once(monkeypatch):
    from host_tools.sim.start import prepare
    reads = BoardReads(monkeypatch)
    driver, _, _ = prepare("cpython", board="m5stickc-plus")
    driver.close()
    assert (reads.opened, reads.checked) == (
        [os.path.join("gamefiles", "board.py"), FIRMWARE_CONFIG_CHECK], 1)


def test_cran_flash_reads_and_checks_its_board_once(micropython, tmp_path, monkeypatch):
    from host_tools import cli
    from host_tools.virtual import vbadge
    with vbadge.running(tmp_path / "badge.img") as badge:
        reads = BoardReads(monkeypatch)
        assert cli.main(["flash", "--port", badge.port, "--board", "atom-lite"]) == 0
        monkeypatch.undo()
    assert (reads.opened, reads.checked) == ([os.path.join("gamefiles", "board.py")], 1)


def test_a_broken_board_file_is_named_by_every_command_before_it_runs(
        tmp_path, monkeypatch, capsys):
    from host_tools import cli
    for name in os.listdir(BOARD_DIR):
        if name.endswith(".json"):
            os.symlink(os.path.join(BOARD_DIR, name), tmp_path / name)
    broken = base("atom-lite")
    broken.update(id="broken", leds=dict(broken["leds"], pin=6))
    (tmp_path / "broken.json").write_text(json.dumps(broken))
    monkeypatch.setattr(boards, "BOARDS_DIR", str(tmp_path))
    script = os.path.join(REPO, "examples", "scenarios", "exemple-godefroy.txt")
    for argv in (["sim", "--headless", "--board", "broken"],
                 ["scenario", "--badge", "broken", script],
                 ["flash", "--port", str(tmp_path / "noport"), "--board", "broken"],
                 ["vbadge", "--board", "broken"], ["vchip", "--board", "broken", "-c", "1"],
                 ["card", "--board", "broken", "--out", str(tmp_path / "c.png")]):
        assert cli.main(argv) == 2, argv
        assert capsys.readouterr().err == "cran: %s: leds.pin: 6 is a flash pin on " \
            "esp32-pico-d4\n" % (tmp_path / "broken.json"), argv
