# The CircuitPython build: the same firmware inside the real CircuitPython interpreter
# (../shared/tools/circuitpython, or $CRAN_CIRCUITPYTHON, or `circuitpython` on PATH)
# on the strict virtual CircuitPython modules (host_tools/virtual/circuitpython) with Adafruit's
# own libraries from PyPI. Where no interpreter is found, these tests skip and say so.
import json
import os
import subprocess

import pytest

from conftest import (
    REPO,
    SCENARIO_DIR,
    bare_trace,
    check_results,
    run_cran,
    scenario_texts,
)
from cran.core import ticks
from gamefiles import scenario
from gamefiles.board import BoardError, load_board, read_board_file
from host_tools import FIRMWARE_DIR, GAMEFILES_ROOT
from host_tools.boards import BOARDS_DIR, board_ids
from host_tools.cplibs import copy_libraries, library_files
from host_tools.virtual.circuitpython import VCP_DIR
from host_tools.virtual.circuitpython.cp_boards import BOARDS as CP_BOARDS
from host_tools.virtual.runtimes import HOW_TO_GET_CIRCUITPYTHON, find_circuitpython, run_on_badge

CP_BOARD_IDS = board_ids(runtime="circuitpython")
# CircuitPython's supervisor.ticks_ms wraps at 2**29 ms: a minute before it.
CP_WRAP_START = (1 << 29) - 60000


@pytest.fixture(scope="session")
def circuitpython():
    exe = find_circuitpython()
    if exe is None:
        pytest.skip(HOW_TO_GET_CIRCUITPYTHON)
    return exe


_bare = bare_trace
_texts = scenario_texts


def test_the_circuitpython_boards_are_there():
    assert CP_BOARD_IDS == ["atoms3-lite", "qtpy-esp32s3"]
    assert "atoms3-lite" not in board_ids()   # MicroPython's list, the default


# ---- 1. the tick period comes from the runtime -----------------------------------------

def _circuitpythons_period(monkeypatch):
    # The core on 2**29 for one test, as cran.hal_cp.runtime sets it (ticks.set_period),
    # and back to 2**30 after.
    for name in ("TICKS_PERIOD", "_MASK", "_HALF"):
        monkeypatch.setattr(ticks, name, getattr(ticks, name))   # put back after the test
    ticks.set_period(1 << 29)

def test_the_engine_on_circuitpythons_period_gives_the_same_trace(monkeypatch):
    # The core's arithmetic on 2**29, the clock starting a minute before that wrap:
    # every example's trace is the one on 2**30 from 0. (And on 2**30 the same start
    # would not wrap at all: the period is what is tested.)
    references = [(name, _bare(text)) for name, text in _texts()]
    _circuitpythons_period(monkeypatch)
    assert ticks.ticks_add(CP_WRAP_START, 60000) == 0
    for (name, text), (_, reference) in zip(_texts(), references):
        assert _bare(text, CP_WRAP_START) == reference, name


DAYS_APART = os.path.join(REPO, "tests", "data", "hits-days-apart.txt")


def test_a_hit_more_than_half_a_period_ago_is_no_volley(monkeypatch):
    # 100 hours between two hits: past half of 2**29 ms, the first hit's tick reads as
    # still to come. C2 must not take the second for a volley (it did).
    with open(DAYS_APART, encoding="utf-8") as f:
        text = f.read()
    reference = _bare(text)
    _circuitpythons_period(monkeypatch)
    assert _bare(text) == reference
    assert _bare(text, CP_WRAP_START) == reference


def test_a_hit_days_ago_survives_a_power_cut_on_circuitpythons_period(monkeypatch):
    # The same with the state saved, the power off 3 hours and the state read back
    # after each step (tests/test_record.py's replay): the record's hit_ago_ms of a hit
    # so long ago is "long ago", not "just now". (The whole badge on CircuitPython would
    # wake 20 times a second for its keys through the 100 hours: minutes of a test.)
    from test_record import _replay
    with open(DAYS_APART, encoding="utf-8") as f:
        parsed = scenario.parse(f.read())
    reference = _replay(parsed)
    _circuitpythons_period(monkeypatch)
    for cut in range(len(parsed.steps)):
        assert _replay(parsed, cut, CP_WRAP_START) == reference, "cut after step %d" % cut


# ---- 1b. durations: at most half of CircuitPython's period ------------------------------

COUNTDOWN_74H = os.path.join(REPO, "tests", "data", "countdown-74h.txt")


def test_a_countdown_past_half_the_period_would_misfire(monkeypatch):
    # Why CircuitPython boards refuse durations over 74 hours: on 2**29 a 75-hour
    # countdown's deadline reads as past, and it fires at once.
    with open(COUNTDOWN_74H, encoding="utf-8") as f:
        text = f.read()
    longer = text.replace("74h", "75h").replace("73:59:59", "74:59:59").replace(
        "74:00:00 expect", "75:00:00 expect")
    references = [_bare(t) for t in (text, longer)]
    _circuitpythons_period(monkeypatch)
    assert _bare(text, CP_WRAP_START) == references[0]
    assert _bare(longer) != references[1]


def _config(board, **character):
    from cran.config import from_dict
    return from_dict({"board": board, "character": character}, "b01.json", BOARDS_DIR)


def test_a_circuitpython_config_refuses_durations_its_clock_misreads():
    from cran.config import ConfigError
    hours = 3600000
    assert _config("atoms3-lite", agonisant_ms=74 * hours).character.agonisant_ms \
        == 74 * hours
    assert _config("atom-lite", coma_ms=149 * hours).character.coma_ms == 149 * hours
    with pytest.raises(ConfigError) as e:
        _config("qtpy-esp32s3", coma_ms=100 * hours)
    assert str(e.value) == (
        "b01.json: character.coma_ms: 360000000 ms (100.0 hours) is longer than a "
        "CircuitPython badge can count: 74 hours at most (its clock, supervisor.ticks_ms, "
        "wraps at 2**29 ms)")
    from cran.config import from_dict
    with pytest.raises(ConfigError) as e:
        from_dict({"board": "atoms3-lite", "settings": {"effect_ms": "80h"}}, "b01.json",
                  BOARDS_DIR)
    assert str(e.value).startswith("b01.json: settings.effect_ms: 288000000 ms (80.0 hours)")


def test_cran_scenario_says_what_a_circuitpython_badge_would_refuse(tmp_path):
    # Before any interpreter runs: the badge could not start with that character.
    path = tmp_path / "long.txt"
    with open(COUNTDOWN_74H, encoding="utf-8") as f:
        path.write_text(f.read().replace("74h", "80h").replace("73:59:59", "79:59:59")
                        .replace("74:00:00 expect", "80:00:00 expect"), encoding="utf-8")
    out = run_cran("scenario", "--badge", "atoms3-lite", str(path))
    assert out.returncode == 2
    assert out.stderr == (
        "cran: %s: character.agonisant_ms: 288000000 ms (80.0 hours) is longer than a "
        "CircuitPython badge can count: 74 hours at most (its clock, supervisor.ticks_ms, "
        "wraps at 2**29 ms)\n" % path)
    assert run_cran("scenario", str(path)).returncode == 0   # the engine counts 149


def test_time_off_is_counted_at_most_half_the_period(monkeypatch):
    # A badge off 100 hours (time_off_counts) comes back with a countdown that ran out
    # meanwhile: due at once, not read as 49 hours to come on CircuitPython's 2**29.
    from cran.core.engine import act, new_state, next_deadline
    from cran.core.record import to_record
    from cran.core.rules import Character, Settings
    from cran.core.words import parse_action
    from cran.start.restore import _time_off_ms, from_record
    _circuitpythons_period(monkeypatch)
    settings = Settings(time_off_counts=True)
    character = Character(name="Ali")
    state, _ = act(new_state(character, settings), parse_action("coup agonisant"),
                   CP_WRAP_START)
    record = dict(to_record(state, CP_WRAP_START), wall_s=1000)

    class Badge:
        pass
    badge = Badge()
    badge.settings = settings
    badge.wall_clock = lambda: 1000 + 100 * 3600
    now = ticks.ticks_add(CP_WRAP_START, 5000)
    off_ms = _time_off_ms(badge, record)
    assert off_ms == (1 << 28) - 1
    state = from_record(record, character, settings, ticks.ticks_add(now, -off_ms))
    assert ticks.ticks_diff(now, next_deadline(state)) >= 0


# ---- 2-4. the virtual CircuitPython modules, the hal, nvm: inside the interpreter ---------

@pytest.fixture(scope="module")
def cp_checks(circuitpython, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("cp")
    lib = str(tmp / "lib")
    copy_libraries(lib)
    flash = tmp / "flash"
    flash.mkdir()
    out = subprocess.run([circuitpython, os.path.join(REPO, "tests", "mp", "cp_driver.py"),
                          FIRMWARE_DIR, VCP_DIR, lib, str(flash), BOARDS_DIR, GAMEFILES_ROOT],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-2000:]
    # The checks' JSON lines; what the firmware itself printed is kept under "printed".
    lines = out.stdout.splitlines()
    results = {r["id"]: r for r in map(json.loads, [x for x in lines if x.startswith("{")])}
    results["printed"] = {"result": [x for x in lines if not x.startswith("{")]}
    return check_results(results)


def test_durations_past_half_the_period_are_refused_inside_circuitpython(cp_checks):
    refused, accepted, events = cp_checks(
        "durations_past_half_the_period_are_refused_and_74_hours_count")
    assert refused.endswith("character.agonisant_ms: 270000000 ms (75.0 hours) is longer "
                            "than a CircuitPython badge can count: 74 hours at most (its "
                            "clock, supervisor.ticks_ms, wraps at 2**29 ms)")
    assert accepted == 74 * 3600000
    with open(COUNTDOWN_74H, encoding="utf-8") as f:
        assert events == _bare(f.read())   # on 2**30 from 0: the same times, wrapped


def test_a_badge_that_cannot_start_shows_why_on_circuitpythons_drivers(cp_checks):
    grb, journal = cp_checks("a_badge_that_cannot_start_shows_it")
    assert grb == [0, 60, 0]   # fail's red, (60, 0, 0), as the strip gets it: GRB
    why = [e["error"] for e in journal if "error" in e]
    assert len(why) == 1 and why[0].startswith("cannot start: ") and "character.armor" \
        in why[0]
    said = [x for x in cp_checks("printed") if x.startswith("cran: cannot start: ")]
    assert said == ["cran: " + why[0]]


def test_three_watchdog_resets_make_safe_mode_though_the_drive_is_read_only(cp_checks):
    refused, safe, files = cp_checks(
        "three_watchdog_resets_make_safe_mode_with_a_read_only_drive")
    assert refused                                  # the code can't write the drive
    assert safe == [False, False, True, False]      # as on MicroPython (test_app.py)
    assert "boots.json" not in files


def test_boot_stamps_cut_at_any_byte_are_old_new_or_none(cp_checks):
    points, wrong, seen = cp_checks("boot_stamps_cut_at_any_byte_read_as_old_new_or_none")
    assert points > 40 and wrong == []
    assert seen == [False, 1, 2]   # torn: none (a bad boots.json counts as empty)


def test_a_button_held_at_boot_is_no_press(cp_checks):
    # Held from the start, then released: nothing; then a press: a hit.
    assert cp_checks("a_button_held_at_boot_is_no_press") == [
        "pleine-forme", "pleine-forme", "pleine-forme", "blesse"]


def test_a_pin_is_held_by_one_part(cp_checks):
    twice, as_pwm, again, dead = cp_checks("a_pin_is_held_by_one_part")
    assert twice == as_pwm == "GPIO35 in use"   # board.NEOPIXEL is that very pin
    assert again == 35 and dead                   # free after deinit; the old one dead


def test_pwm_values_are_checked(cp_checks):
    duty, fixed, zero, timeline = cp_checks("pwm_values_are_checked")
    assert duty == "duty_cycle must be 0-65535"
    assert fixed.startswith("PWM frequency not writable")
    assert zero == "Invalid PWM frequency"
    assert timeline == [[500, 0], [880, 0], [880, 32768]]


def test_nvm_is_a_fixed_array_of_bytes(cp_checks):
    assert cp_checks("nvm_is_a_fixed_array_of_bytes") == [
        8192, 255, 255, "Slice and value different lengths.",
        "Array values should be single bytes.", True, True]


def test_a_resetting_chip_writes_nothing(cp_checks):
    assert cp_checks("a_resetting_chip_writes_nothing") == [
        "the chip is resetting", True, True]


def test_the_watchdog_resets_a_starved_chip(cp_checks):
    assert cp_checks("the_watchdog_resets_a_starved_chip") == [
        "WatchDogTimer is not currently running", "WATCHDOG", "WATCHDOG", True]


def test_ticks_wrap_at_2_29_in_the_firmware_core(cp_checks):
    before, after, period, diff, added = cp_checks("ticks_wrap_at_2_29_in_the_core_too")
    assert (before, after) == ((1 << 29) - 10, 10)
    assert period == 1 << 29 and diff == 20 and added == 10


def test_time_is_circuitpythons_and_the_firmware_gets_micropythons(cp_checks):
    board_has_ticks_ms, board_has_monotonic, adapted, epoch = cp_checks(
        "time_is_circuitpythons")
    assert not board_has_ticks_ms and board_has_monotonic
    assert adapted and epoch == [1970, 1, 1, 0, 0, 0]


def test_a_floating_key_is_refused_and_a_press_is_an_event(cp_checks):
    floating, key, pressed, timestamp = cp_checks("a_floating_key_is_refused")
    assert floating and key == 0 and pressed
    assert timestamp == 20   # the first scan after the press (keypad's 20 ms)


def test_cue_frames_reach_the_neopixel_as_cues_asks(cp_checks):
    frames = cp_checks("cue_frames_reach_the_strip_as_cues_asks")
    assert len(frames) >= 10
    assert all(same for same, _ in frames)
    assert max(top for _, top in frames) == 60   # atoms3-lite's max_brightness


def test_a_save_cut_at_any_byte_leaves_the_old_record_or_the_new(cp_checks):
    points, wrong, problems = cp_checks(
        "a_save_cut_at_any_byte_leaves_the_old_record_or_the_new")
    assert points > 80      # one per byte of the record, and the write that lands
    assert wrong == []
    assert problems == [0, 1]   # a torn slot is named; before a byte lands, nothing


def test_the_journal_cut_at_any_byte_keeps_every_whole_line(cp_checks):
    points, wrong, last, count = cp_checks(
        "the_journal_cut_at_any_byte_keeps_every_whole_line")
    assert points > 2500    # the half cleared and numbered, then the line
    assert wrong == []
    # The line being written (entry 10 + count - 1): lost, or whole. Lines of 77 bytes
    # and a newline (no spaces: 80 with JSON's) in a half of 2524.
    assert count == 2524 // 78 + 1
    assert last == [count + 8, count + 9]


# ---- 5. board files against CircuitPython's board definitions ----------------------------

# Which `board` name each part of our board files is, on each CircuitPython board.
PART_NAMES = {"leds.pin": ("NEOPIXEL",), "buttons[0].pin": ("BTN", "BUTTON"),
              "ir_tx.pin": ("IR_LED",)}


@pytest.mark.parametrize("board_id", CP_BOARD_IDS)
def test_board_pins_are_circuitpythons_board_names(board_id):
    board = read_board_file(os.path.join(BOARDS_DIR, board_id + ".json"))
    assert board.runtime == "circuitpython"
    defined = CP_BOARDS[board.circuitpython_board]
    assert defined["chip"] == board.chip
    for field, gpio in board.pins.items():
        names = [n for n in PART_NAMES[field] if defined["pins"].get(n) == gpio]
        assert names, "%s: %s GPIO%d is none of CircuitPython's %s" % (
            board_id, field, gpio, PART_NAMES[field])
    assert any(board.circuitpython_board in url and url.endswith("pins.c")
               for url in board.sources)


def test_the_board_table_is_circuitpythons_own():
    # circuitpython-stubs ships CircuitPython's board definitions, generated from the
    # same pins.c: every name of cp_boards.py is there, on the same GPIO.
    stubs = pytest.importorskip("board_definitions")
    root = list(stubs.__path__)[0]   # a namespace package: no __init__
    for cp_id, spec in CP_BOARDS.items():
        with open(os.path.join(root, cp_id, "__init__.pyi"), encoding="utf-8") as f:
            text = f.read()
        for name, gpio in spec["pins"].items():
            assert "%s: microcontroller.Pin  # GPIO%d\n" % (name, gpio) in text, (cp_id, name)


def test_a_circuitpython_board_file_is_checked():
    with open(os.path.join(BOARDS_DIR, "atoms3-lite.json"), encoding="utf-8") as f:
        data = json.load(f)
    for change, fault in (
            ({"circuitpython_board": None}, "circuitpython_board: missing"),
            ({"runtime": "arduino"}, "runtime: unknown 'arduino'"),
            ({"leds": dict(data["leds"], pin=27)}, "leds.pin: 27 is a flash pin on esp32s3"),
            ({"display": {"kind": "ssd1306", "width": 128, "height": 64,
                          "i2c": {"sda": 1, "scl": 2, "addr": 60}}},
             "display: the CircuitPython build has no display driver")):
        with pytest.raises(BoardError) as e:
            load_board(dict(data, **change), "atoms3-lite.json")
        assert fault in str(e.value)


# ---- 6. the whole badge on CircuitPython --------------------------------------------------

def _same_as_bare(board, start_tick=0, reboot_every=0):
    texts = _texts()
    results = run_on_badge([(board, text) for _, text in texts], "circuitpython",
                           start_tick, reboot_every)
    assert len(results) == len(texts)
    for (name, text), events in zip(texts, results):
        assert not isinstance(events, str), "%s on %s: %s" % (name, board, events)
        assert events == _bare(text, start_tick), "%s on %s differs" % (name, board)


@pytest.mark.parametrize("board", CP_BOARD_IDS)
def test_every_scenario_through_the_circuitpython_badge_equals_the_bare_engine(
        circuitpython, board):
    _same_as_bare(board)


@pytest.mark.parametrize("board", CP_BOARD_IDS)
def test_reboots_from_nvm_across_the_2_29_wrap_change_nothing(circuitpython, board):
    _same_as_bare(board, CP_WRAP_START, reboot_every=3)


def test_cran_scenario_badge_on_circuitpython(circuitpython):
    path = os.path.join(SCENARIO_DIR, "exemple-godefroy.txt")
    out = run_cran("scenario", "--badge", "atoms3-lite", "--runtime", "circuitpython", path)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines()[-1].endswith(
        "5 held, 0 failed (circuitpython, badge atoms3-lite)")
    out = run_cran("scenario", "--badge", "atoms3-lite", "--runtime", "micropython", path)
    assert out.returncode == 2
    assert "board atoms3-lite runs on circuitpython" in out.stderr


def test_the_libraries_come_from_the_installed_packages():
    files = library_files()
    assert {"neopixel.py", "adafruit_pixelbuf.py", "adafruit_ticks.py",
            "asyncio/core.py"} <= set(files)
    assert not any(path.startswith(("board", "digitalio", "microcontroller"))
                   for path in files)   # Blinka's stand-ins stay on the desktop
