# `cran check --port P`: the first real badge after `cran flash`, tried on a `cran vbadge`
# as an organiser would: the chip, MicroPython, flash and heap beside make bench's
# figures; with --hands, each part with a person (here the test answers and presses).
import json
import os
import select
import subprocess
import sys

import pytest

from conftest import REPO, run_cran
from host_tools.device import check
from host_tools.device.bench_figures import read_figures
from host_tools.virtual import vbadge
from host_tools.virtual.runtimes import NO_RADIO_HEAP_KB


@pytest.fixture(autouse=True)
def _needs_micropython(micropython):
    pass


def _flashed(badge, board):
    r = run_cran("flash", "--port", badge.port, "--board", board)
    assert r.returncode == 0, r.stdout + r.stderr


def test_check_reads_the_badge_and_sets_its_heap_beside_the_bench_s_figure():
    figures = read_figures()
    with vbadge.running(board="esp32-devkitc") as badge:
        _flashed(badge, "esp32-devkitc")
        r = run_cran("check", "--port", badge.port)
        assert r.returncode == 0, r.stdout + r.stderr
        lines = r.stdout.splitlines()
        assert lines[0].startswith("%s: Generic ESP32 module with ESP32, MicroPython 1."
                                   % badge.port)
        assert lines[1] == "  board     esp32-devkitc"
        assert lines[2].startswith("  flash     ") and "the firmware takes" in lines[2]
        assert lines[3].startswith("  heap      ") and "after the badge's start" in lines[3]
        # The bench's own figure for the board, read from docs/PERFORMANCE.md.
        predicted = figures["boards"]["esp32-devkitc"]["after_boot"]
        assert lines[4].startswith("  bench     make bench measured %.1f KB after the start "
                                   "of board esp32-devkitc" % (predicted / 1024))
        assert "virtual hardware shares" in lines[5]   # a 64-bit vbadge: no verdict on it
        # Its firmware runs again afterwards, as before the check.
        status = run_cran("status", "--port", badge.port)
        assert status.returncode == 0 and "pleine-forme" in status.stdout, status.stdout


def test_check_hands_walks_the_organiser_through_every_part(tmp_path):
    with vbadge.running(board="esp32-devkitc", buttons=True) as badge:
        _flashed(badge, "esp32-devkitc")
        checking = subprocess.Popen([sys.executable, "-m", "host_tools", "check", "--port",
                                     badge.port, "--hands"], cwd=REPO, stdin=subprocess.PIPE,
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        said = _converse(checking, badge, no_to="LEDs: is every LED lit orange")
        assert checking.returncode == 1, said   # a part not seen
        # Issue 35: the check's own resets read as the wearer's boots in the debrief
        # (five "boot / fresh start" markers). Its journal says they are the check's.
        r = run_cran("logs", "--port", badge.port, "--json", "--out",
                     str(tmp_path / "after-check.svg"))
        assert r.returncode == 0, r.stderr
        marks = [(m["kind"], m["label"]) for m in json.loads(r.stdout)["markers"]
                 if m["kind"] in ("boot", "tool", "note")]
        assert marks[0][0] == "boot" and marks[1] == ("note", "fresh start: no state "
                                                               "saved yet")   # the flash's
        assert marks[2:] == [("tool", "cran check's start"), ("tool", "cran check's reset")]
    # Issue 35: on a virtual badge nobody can see its LEDs or screen, nor hear its
    # buzzer: the check shows what they do, before it asks.
    import re
    shown = re.findall(r"  the virtual badge's LEDs: 8 lit (?:dim )?([a-z]+) \(\d+, \d+, "
                       r"\d+\)\nLEDs: is every LED lit (?:dim )?([a-z]+) \(", said)
    assert len(shown) == 7 and all(a == b for a, b in shown), said   # as it asks, dimmed
    assert "  | cran check |\n  | ecran      |\n" in said, said
    # (The two notes' lengths as the virtual chip's real time played them, ~200 ms.)
    assert re.search(r"  the virtual badge's buzzer sounded: 2000 Hz for \d+ ms, then "
                     r"2000 Hz for \d+ ms\n", said), said
    assert "press button a now (within 15 s) (a virtual badge: in its cran vbadge " \
           "--buttons terminal, a then Enter)" in said
    verdicts = [line for line in said.splitlines() if not line.startswith(" ")][-11:]
    # The firmware's looks, a colour at a time on every LED; the screen, the buzzer; both
    # buttons, pressed when asked.
    assert [v.split()[0] + " " + v.split()[1] for v in verdicts] == [
        "LED look", "LED look", "LED look", "LED look", "LED look", "LED look", "LED look",
        "screen ok", "buzzer ok", "button a", "button b"]
    assert "LED look blesse" in said and "NOT SEEN orange" in said
    assert sum("ok, " in v for v in verdicts[:7]) == 6
    assert verdicts[-2:] == ["button a                 ok, pressed",
                             "button b                 ok, pressed"]


def _converse(process, badge, no_to):
    """Answer the check's questions (no to the one starting no_to, yes to the rest) and
    press each button it asks for -> all it printed."""
    out = ""
    answered = 0
    pressed = []
    fd = process.stdout.fileno()
    while True:
        ready, _, _ = select.select([fd], [], [], 90)
        assert ready, out
        data = os.read(fd, 4096)
        if not data:
            break
        out += data.decode()
        asked = out.split("[y/n] ")
        if len(asked) - 1 > answered:   # a question came (its answer ends its line)
            question = asked[answered].split("\n")[-1]
            answered += 1
            process.stdin.write(b"n\n" if question.startswith(no_to) else b"y\n")
            process.stdin.flush()
        for name in ("a", "b"):
            if "press button %s now" % name in out and name not in pressed:
                pressed.append(name)
                badge.press(name)
    process.wait(30)
    return out + process.stderr.read().decode()


@pytest.mark.parametrize("rgb, word", [
    ((0, 255, 0), "green"), ((255, 140, 0), "orange"), ((255, 0, 0), "red"),
    ((16, 0, 28), "dim purple"), ((0, 160, 160), "turquoise"), ((255, 255, 255), "white"),
    ((255, 0, 255), "magenta")])
def test_each_look_s_colour_is_told_in_words(rgb, word):
    assert check.colour_name(rgb) == word


FACTS = {"machine": "Generic ESP32 module with ESP32", "version": [1, 24, 1], "bits": 32,
         "python": "micropython",
         "board": "atom-lite", "badge": "b01", "rom": False, "flash_free": 1900000,
         "flash_total": 2097152, "firmware_bytes": 99000, "about": "v1.24.1 on 2024-11-29"}
FIGURES = {"boards": {"atom-lite": {"after_boot": 56560, "romfs_after_boot": 32416}}}


@pytest.mark.parametrize("alloc, rom, verdict", [
    (58000, False, "as predicted"), (80000, False, "MORE than predicted"),
    (20000, False, "LESS than predicted"), (33000, True, "as predicted")])
def test_a_chip_s_heap_is_set_beside_the_bench_with_what_its_gap_means(alloc, rom, verdict):
    started = {"alloc": alloc, "free": 111936 - alloc, "safe": False}
    lines = check.describe("P", dict(FACTS, rom=rom), started, FIGURES)
    predicted = 32416 if rom else 56560
    assert lines[4] == ("  bench     make bench measured %.1f KB after the start of board "
                        "atom-lite%s (32-bit); this badge %.1f KB: %+.0f%%"
                        % (predicted / 1024, " with its code in ROMFS" if rom else "",
                           alloc / 1024, 100.0 * (alloc - predicted) / predicted))
    assert lines[5].strip().startswith(verdict)


def test_a_chip_with_a_small_heap_or_an_old_micropython_is_said_so():
    # A heap of 2 KB less than the budget in all.
    started = {"alloc": 56000, "free": (NO_RADIO_HEAP_KB - 2) * 1024 - 56000, "safe": False}
    lines = check.describe("P", dict(FACTS, version=[1, 20, 0]), started, None)
    assert lines[0].endswith("MicroPython 1.20.0 (TOO OLD: cran needs 1.22 or later)")
    assert "LESS than the %d KB budget" % NO_RADIO_HEAP_KB in lines[3]
    assert lines[4].startswith("  bench     no figure of make bench for board atom-lite")


def test_a_circuitpython_badge_is_told_what_reads_it():
    from host_tools.virtual.runtimes import find_circuitpython
    if find_circuitpython() is None:
        pytest.skip("no CircuitPython interpreter (../shared/tools/circuitpython)")
    with vbadge.running(board="atoms3-lite") as badge:
        r = run_cran("check", "--port", badge.port)
    assert r.returncode == 2 and r.stderr == (
        "cran: %s: a circuitpython badge: cran check reads MicroPython ones (its state: "
        "cran status --port %s)\n" % (badge.port, badge.port))
