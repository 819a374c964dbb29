# The drivers (cran.hal) on the virtual hardware (host_tools/virtual/micropython), inside the real
# MicroPython unix port and under CPython: one driver script (tests/mp/hal_driver.py)
# runs every check in one process per runtime; the expectations here hold for both.
import json
import os
import subprocess
import sys

import pytest

from conftest import check_results
from host_tools import FIRMWARE_DIR
from host_tools.virtual.micropython import sys_path

DRIVER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "mp", "hal_driver.py")
WRAP = 1 << 30
RUNTIMES = ("micropython", "cpython")


def _run(exe, runtime):
    out = subprocess.run([exe, DRIVER, FIRMWARE_DIR, *sys_path(runtime)],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-2000:]
    return {r["id"]: r for r in map(json.loads, out.stdout.splitlines())}


@pytest.fixture(scope="module")
def on_micropython(micropython):
    return _run(micropython, "micropython")


@pytest.fixture(scope="module")
def on_cpython():
    return _run(sys.executable, "cpython")


@pytest.fixture(params=RUNTIMES)
def result(request):
    return check_results(request.getfixturevalue("on_" + request.param))


def test_leds_cap_keeps_hue_and_skip_unchanged_frames(result):
    r = result("leds")
    assert r["capped"] == [[60, 0, 0], [60, 30, 0], [10, 20, 30]]   # cap 60, hue kept
    # same frame, then one that caps to the same: no write; short frame pads with off.
    assert r["wrote"] == [True, False, False, True, True, False]
    assert r["short"] == [[0, 0, 60], [0, 0, 0], [0, 0, 0]]
    assert r["off"] == [[0, 0, 0]] * 3
    assert r["writes"] == 3


def _settled(timeline):
    """(tick, freq, duty) with one entry per tick: where the PWM stands after each change."""
    out = {}
    for tick, freq, duty in timeline:
        out[tick] = [freq, duty]
    return sorted(([t, *v] for t, v in out.items()), key=lambda e: (e[0] - (WRAP - 300)) % WRAP)


def test_buzzer_changes_notes_at_their_times_across_the_wrap(result):
    r = result("buzzer")
    assert r["play_took_ms"] == 0 and r["first_wait"] == 200   # play() doesn't block
    assert r["waits"] == [200, 100, 250]
    # Started 300 ms before the wrap: 440 Hz, a rest at -100, 880 Hz at the wrap, silence.
    assert _settled(r["timeline"]) == [[WRAP - 300, 440, 32768], [WRAP - 100, 440, 0],
                                       [0, 880, 32768], [250, 880, 0]]


def test_buzzer_late_update_skips_and_new_melody_replaces(result):
    r = result("buzzer")
    assert r["late_wait"] == 230          # 320 ms late: straight to the third note
    assert _settled(r["late_timeline"]) == [[0, 440, 32768], [320, 1000, 32768],
                                            [370, 1000, 0]]
    assert r["replace_wait"] == 50 and r["after_end"] is None and r["playing"] is False
    assert r["quiet_duty"] == 8192        # volume 25 %: a quarter of the 50 % duty


def test_buttons_short_long_double(result):
    r = result("buttons")
    assert r["short"] == [["short", 450]]            # released at 100, + 350 for a double
    assert r["long"] == [["long", 800]]              # at 800 while held; release silent
    assert r["double"] == [["double", 250]]          # on the second press
    assert r["slow_double_is_two_shorts"] == [["short", 450], ["short", 950]]
    assert r["active_high"] == [["short", 450]]


def test_buttons_debounce(result):
    r = result("buttons")
    # Edges 5 ms apart on press and release: one click.
    assert r["bounce"] == [["short", 550]]
    # Released 30 ms in, inside the debounce window: seen when the window ends (50).
    assert r["tap_inside_debounce"] == [["short", 400]]
    assert r["glitches"] == []
    assert r["glitch_after_click"] == [["short", 450]]     # the click, alone
    assert r["double_still_double"] == [["double", 250]]   # a bouncing second press


def test_button_held_across_the_wrap(result):
    # Pressed 300 ms before the wrap: long 800 ms later, tick 500 after it.
    assert result("buttons")["across_wrap"] == [["long", 1500, 500]]


def test_buttons_read_the_pin(result):
    r = result("buttons")
    assert r["spurious"] == []             # IRQs with the pin released: nothing
    assert "GPIO39 floats" in r["floating"]  # no made-up level for a floating input
    assert r["held_at_boot"] == [["short", 1450]]   # its release isn't a click
    assert r["timeouts"] == [None, 50, 750]         # idle; debounce; then the long press


def test_button_irq_only_notes_and_schedules(result):
    r = result("buttons")
    assert r["irq_allocates"] is False     # under heap_lock inside MicroPython
    assert r["pressed_without_poll"] is True   # micropython.schedule ran the work


def test_watchdog_resets_when_not_fed(result):
    r = result("watchdog")
    assert r["fed_ms"] == 9000
    assert r["starved"] == [3, 10000]      # WDT_RESET at last feed + timeout, exactly
    assert r["cause"] == 3
    assert r["is_exception"] is False      # `except Exception` can't swallow a reset


def test_sleeps_take_virtual_time(result):
    r = result("sleeps")
    assert r["start"] == WRAP - 1500 and r["after"] == 1500
    assert r["wakeups"] == 3 and r["slept_ms"] == 3000
    assert r["deep"] == [4, 4, 8000]       # DEEPSLEEP_RESET after the sleep
    assert r["reset"] == 2                 # machine.reset(): HARD_RESET


def test_ssd1306_draws_text_on_the_panel_a_page_at_a_time(result):
    r = result("ssd1306")
    assert r["absent"] == 19 and r["scan"] == [60]   # no device: ENODEV, as on the ESP32
    assert r["init_cmds"] == [0xAE, 0x20, 0x00, 0x40]
    assert r["B"] == [".#####..", ".##..##.", ".##..##.", ".#####..", ".##..##.",
                      ".##..##.", ".#####..", "........"]
    # "é" is drawn as "e" (the font is ASCII; UTF-8 bytes would show as blocks).
    assert r["e_on_line_2"] == ["........", "........", "..####..", ".##..##.",
                                ".######.", ".##.....", "..#####.", "........"]
    assert r["gap_between_lines"] == ["." * 128] * 2
    assert r["x_on_line_3"] == ["........", "........", ".##..##.", "..####..", "...##...",
                                "..####..", ".##..##.", "........"]
    assert r["empty_below"]
    assert r["columns"] == 16
    assert r["shown"] == [True, False]
    # 6 address commands, then the 8 pages of 128 bytes, once: no image of the screen
    # is kept, only a page's band.
    assert r["writes_for_two_shows"] == 14
    assert r["to"] == [60] and r["band_bytes"] == 128
    assert r["after_fewer_lines"] == ["........"] * 8


def test_st7789_sends_the_image_in_bands(result):
    r = result("st7789")
    assert r["init_ms"] == 241                # the datasheet's waits, on the virtual clock
    assert r["commands"] == [0x11, 0x3A, 0x36, 0x21, 0x13, 0x2A, 0x2B]
    assert r["caset"] == [0, 52, 0, 52 + 134] and r["raset"] == [0, 40, 0, 43]
    assert r["band_bytes"] == 135 * 4 * 2 and r["bands"] == 60
    assert r["row0"] == [False, True, True, True, True, True, False, False]


def test_time_is_the_virtual_clock(result):
    assert result("time_is_virtual") == [WRAP - 5, WRAP - 5, 5, 10, 0]


def test_asyncio_runs_on_virtual_time(on_micropython):
    r = on_micropython["asyncio_on_virtual_time"]
    assert "crash" not in r, r["crash"]
    r = r["result"]
    assert r["ticks"] == [0, 60000, 120000, 180000, 240000]   # 60 s before the wrap
    assert r["elapsed"] == 300000 and r["wall_ms"] < 1000     # 5 minutes, no waiting
    assert r["event_then_timeout"] == [1000, 2500]
    assert r["starved"] == [3, 303000]     # the reset escapes asyncio.run


# ---- the virtual esp32.NVS ------------------------------------------------------------

NOT_FOUND = [-0x1102, "ESP_ERR_NVS_NOT_FOUND"]


def test_nvs_answers_and_limits_are_the_esp_idfs(result):
    r = result("nvs_api_and_limits")
    # check_esp_err's OSError: the negated ESP-IDF code and its name (not ENOENT).
    assert r["missing"] == [NOT_FOUND, NOT_FOUND]
    assert r["read"] == [-7, 5, list(b"hello") + [0, 0, 0]]
    assert r["small_buffer"] == [-0x110C, "ESP_ERR_NVS_INVALID_LENGTH"]
    assert r["wrong_type"] == NOT_FOUND   # looked up by type too: a blob is no i32
    too_long = [-0x1109, "ESP_ERR_NVS_KEY_TOO_LONG"]
    assert r["names"] == ["ok", too_long, too_long]
    assert r["i32"] == ["OverflowError", "ok"]
    # 24 KB partition: 97.6 % less 4000 bytes for one blob; 5 pages of 126 entries.
    assert r["blob_max"] == [19986, [-0x1105, "ESP_ERR_NVS_NOT_ENOUGH_SPACE"]]
    # 7 + 1 (the namespace "fill") + 19 blobs of 32 entries = 616 of 630: a 20th
    # does not fit, one i32 more does.
    assert r["full"] == [19, "ok"]
    assert r["room_again"] == "ok"


def test_nvs_keeps_only_what_was_committed_one_change_at_a_time(result):
    r = result("nvs_commit_and_power")
    assert r["own_view"] == 2 and r["other_handle"] == 1
    assert r["after_reboot"] == [1, NOT_FOUND]        # set, never committed: lost
    assert r["cut"] == 1                              # machine.PWRON_RESET
    assert r["after_cut"] == [1, "one"]               # the first change whole, no more
    assert r["written"] == 4
    assert r["new_chip"] == NOT_FOUND


def test_nvs_in_a_file_survives_a_process_and_a_torn_write(result):
    r = result("nvs_in_a_file")
    assert r["kept"] == [42, list(b"\x00\xffrecord")]
    assert r["torn"] == 41       # the snapshot before the change being written
    assert r["empty"] == NOT_FOUND
