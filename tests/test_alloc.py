# What the badge app allocates, measured inside the MicroPython unix port
# (tests/mp/alloc_driver.py): a badge left alone runs its show step with the heap locked
# on every board, its LEDs blinking through their rhythm; a hit stays under a bound.
import json
import os
import subprocess

import pytest

from host_tools import FIRMWARE_DIR
from host_tools.boards import BOARDS_DIR, board_ids
from host_tools.virtual.micropython import sys_path

DRIVER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "mp", "alloc_driver.py")
# Bytes a hit may allocate in the 64-bit unix port, for the step that takes the press,
# shows it and saves it (record and journal entry as JSON): measured 5.9 KB on the Atom
# Lite, 11.4 KB with an SSD1306 screen redrawn. Garbage, collected at the next GC.
HIT_BYTES = 16384


@pytest.fixture(scope="module")
def allocations(micropython, tmp_path_factory):
    flash = str(tmp_path_factory.mktemp("flash"))
    out = subprocess.run([micropython, "-X", "heapsize=4m", DRIVER, FIRMWARE_DIR, BOARDS_DIR,
                          flash, *sys_path("micropython")],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-2000:]
    return json.loads(out.stdout)


@pytest.mark.parametrize("board", board_ids())
def test_an_idle_badge_allocates_nothing(allocations, board):
    looks = dict((k, v) for k, v in allocations[board].items()
                 if k not in ("hit", "modules", "no_i2c"))
    assert len(looks) == 6
    for look, (steps, failed, _writes, where) in looks.items():
        assert failed == 0, "%s, %s: %d of %d steps allocated:\n%s" % (
            board, look, failed, steps, where)
    if board != "m5stickc-plus":   # LEDs: the blinking looks were drawn meanwhile
        assert allocations[board]["coup"][2] > 0 and allocations[board]["stop"][2] > 0


@pytest.mark.parametrize("board", [b for b in board_ids() if b != "m5stickc-plus"])
def test_a_hit_allocates_within_its_bound(allocations, board):
    # Not the StickC: its virtual SPI bus keeps a copy of every byte sent to the screen
    # (64 KB a redraw), which a real bus does not.
    used, etat = allocations[board]["hit"]
    assert etat == "blesse" and 0 < used <= HIT_BYTES


# Modules a badge needs only at its start, or while its console is in use: each one's code
# is RAM on a badge (cran.start.phases.start, cran.app's session). Let go, they must not be in
# sys.modules.
START_ONLY = ("cran.start", "cran.config", "cran.core.choices", "cran.start.parts",
              "cran.boots", "cran.start.rescue", "cran.start.restore",
              "cran.records")
# An action line loads the console (with the fields it says: cran.core.view), and the
# grammar for that line only; a badge without a game key, as these are, has no lock to
# load (cran.console.open_for).
CONSOLE = ["cran.console", "cran.core.view"]


@pytest.mark.parametrize("board", board_ids())
def test_start_only_modules_and_the_console_are_let_go(allocations, board):
    after_boot, after_line, after_quiet, answer, _, _, sounding, _, _, _ = allocations[board][
        "modules"]
    assert answer[0].startswith("ok effet peur"), answer
    assert "cran.app" in after_boot and "cran.core.engine" in after_boot
    for name in START_ONLY + tuple(CONSOLE) + ("cran.fail", "cran.lock", "cran.auth",
                                               "cran.hal.axp192", "cran.core.words"):
        assert name not in after_boot, name
    # The action line loaded the console, and the grammar to read it, let go once it
    # was read; a quiet console lets the console go. On a screen, the change's news
    # was noted (cran.screenwords), let go by the draw that follows.
    with open(os.path.join(BOARDS_DIR, board + ".json")) as f:
        spec = json.load(f)
    news = ["cran.screenwords"] if spec["display"] is not None else []
    assert after_line == sorted(after_boot + CONSOLE + news)
    assert after_quiet == after_boot
    # Its cues sounded: the melodies made the notes and went, the player plays them and
    # goes once they are played (a board without a buzzer loads neither).
    player = ["cran.hal.buzzer"] if spec["buzzer"] is not None else []
    assert sounding == sorted(after_boot + player)


@pytest.mark.parametrize("board", board_ids())
def test_an_orders_rules_are_let_go_once_it_is_played(allocations, board):
    # cran.core.orders (a soin, the night, a stop...: ~1 KB of a badge's heap) is loaded
    # by the engine for an order, and cran.badge lets it go once it is played.
    after_boot = allocations[board]["modules"][0]
    stopped, after_order = allocations[board]["modules"][7]
    assert stopped   # the order was played
    assert "cran.core.orders" not in after_boot and "cran.core.orders" not in after_order
    assert "cran.core.engine" in after_order


@pytest.mark.parametrize("board", board_ids())
def test_the_badge_collects_its_garbage_in_short_runs(allocations, board):
    # cran.start.phases._COLLECT_EVERY: a collection after every 4 KB allocated keeps
    # what stays low in the heap (the radio day's smallest heap 8 KB less on the Atom).
    from cran.start.phases import _COLLECT_EVERY
    assert allocations[board]["modules"][5] == _COLLECT_EVERY == 4096


@pytest.mark.parametrize("board", board_ids())
def test_the_open_menus_code_is_loaded_while_it_is_open(allocations, board):
    # cran.menutree: the pages and the presses of an open menu, 2.7 KB of a badge's heap
    # the rest of the time (docs/PERFORMANCE.md).
    opened, while_open, still_open, after_close = allocations[board]["modules"][4]
    assert opened and not still_open
    assert "cran.menutree" in while_open and "cran.menutree" not in after_close
    # On a screen, its words come and go with it.
    with open(os.path.join(BOARDS_DIR, board + ".json")) as f:
        screen = json.load(f)["display"] is not None
    assert ("cran.menuwords" in while_open) == screen
    assert "cran.texts" not in while_open   # the open menu draws without the look's words
    assert "cran.menuwords" not in after_close
    # On LEDs, its frames (cran.ledviews) come and go with it too.
    with open(os.path.join(BOARDS_DIR, board + ".json")) as f:
        leds = json.load(f)["leds"] is not None
    assert ("cran.ledviews" in while_open) == leds
    after_boot = allocations[board]["modules"][0]
    assert "cran.menutree" not in after_boot and after_close == after_boot


@pytest.mark.parametrize("board", board_ids())
def test_an_action_lines_grammar_is_gone_before_its_action_plays(allocations, board):
    # cran.console reads the line with cran.core.words (~5 KB of a badge's heap, ~9 KB
    # here), and lets it go before the action plays: the peak of an organiser's line is
    # the action played beside the console (and the rules of an order, cran.core.orders),
    # not beside its grammar too. The live heap as the action starts to play is the
    # line's answered heap and the line's own few objects, not the grammar's kilobytes.
    at_play, after_line = allocations[board]["modules"][8]
    assert at_play - after_line < 2048, (at_play, after_line)


def _has_buzzer(board):
    with open(os.path.join(BOARDS_DIR, board + ".json")) as f:
        return json.load(f)["buzzer"] is not None


@pytest.mark.parametrize("board", [b for b in board_ids() if _has_buzzer(b)])
def test_a_cues_melodies_are_gone_before_its_notes_play(allocations, board):
    # The same on a board with a buzzer (cran.app's _sound): cran.tunes makes the notes
    # and goes before the player (cran.hal.buzzer) is loaded to play them, during a hit.
    # Measured here: 416 bytes as the notes start above the show step's end, 2.5 KB
    # with the melodies' module still held.
    at_play, after_show = allocations[board]["modules"][9]
    assert at_play is not None   # the notes played
    assert at_play - after_show < 1024, (at_play, after_show)


@pytest.mark.parametrize("board", board_ids())
def test_a_screen_that_does_not_answer_leaves_no_code_behind(allocations, board):
    # The board's I2C parts silent: the DevKitC's optional screen not fitted (the
    # emulated chip has none), the StickC's screen dark with its power chip. The screen's
    # code, loaded to set it up, goes with it: it kept 0.9 KB of the DevKitC's heap all
    # day (32-bit, .mpy files, with the radio and without).
    with open(os.path.join(BOARDS_DIR, board + ".json")) as f:
        display = json.load(f)["display"]
    dark = display is not None and ("i2c" in display
                                    or display.get("backlight") == "axp192-ldo2")
    no_screen, modules = allocations[board]["no_i2c"]
    assert no_screen == (display is None or dark)
    if dark:
        assert not [m for m in modules if m.startswith("cran.hal.")
                    and m.split(".")[2] in ("display", "ssd1306", "st7789", "axp192")]
        assert "cran.hal.display" in allocations[board]["modules"][0]
    else:
        assert modules == allocations[board]["modules"][0]
