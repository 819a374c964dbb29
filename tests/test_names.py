# The names (qstrs) a badge makes (tests/mp/names_driver.py): all of them at its start,
# from the modules cran flash makes to make them, and none for what the console
# is sent. A qstr is kept for good, and a new pool of them is one block of ~9 KB: made
# hours into a game, in a fragmented heap, it was where a badge ran out of memory.
import json
import os
import subprocess

import pytest

from host_tools import build
from host_tools.boards import BOARDS_DIR
from host_tools.virtual.micropython import sys_path

DRIVER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "mp", "names_driver.py")


@pytest.mark.parametrize("board", ["atom-lite", "m5stickc-plus"])
def test_every_name_is_made_at_the_start_and_none_by_the_console(micropython, tmp_path,
                                                                  board):
    firmware = str(tmp_path / "firmware")
    files = build.compile_firmware(firmware)
    assert "/cran/names.mpy" in files
    flash = tmp_path / "flash"
    flash.mkdir()
    out = subprocess.run([micropython, "-X", "heapsize=4m", DRIVER, firmware, BOARDS_DIR,
                          str(flash), board, *sys_path("micropython")],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-2000:]
    lines = out.stdout.splitlines()
    seen = dict((lines[i], int(lines[i + 1].split("n_qstr=")[1].split(",")[0]))
                for i in range(len(lines) - 1) if lines[i].startswith("after_"))
    assert seen["after_lazy"] == seen["after_boot"]    # the grammar's, auth's: made
    assert seen["after_lines"] == seen["after_boot"]   # 3,000 characters never seen
    # The lines were read and answered, not dropped.
    answers = json.loads(lines[-1])
    assert all(a.startswith("error:") for a in answers), answers


def test_the_names_modules_hold_every_name_each_module_makes(tmp_path):
    files = build.compile_firmware(str(tmp_path / "firmware"))
    for module in build.NAMES_MODULES:
        assert "/cran/%s.mpy" % module in files
    src = tmp_path / "src"
    src.mkdir()
    made = dict((rel, open(path, encoding="utf-8").read())
                for path, rel in build.names_sources(files, str(src)))
    for path in files:
        if not path.endswith(".mpy") or path == "/cran/fail.mpy" or "/names" in path:
            continue
        module = path[1:-4].replace("/", ".").replace(".__init__", "")
        part = build.part_of(module)
        text = made["cran/names%s.py" % ("_" + part if part else "")]
        assert path[1:] in text                     # its __file__
        with open(files[path], "rb") as f:
            for name in build.mpy_qstrs(f.read()):
                assert ("x.%s\n" % name in text or "x(%r)\n" % name in text
                        or name in text.split("\n")[2]), (module, name)
    assert "x.show_loop" in made["cran/names.py"]            # a method of the app
    assert "x.show_lines" in made["cran/names_display.py"]   # the screen's, apart
    # A screen's driver's, by its kind: a board with an SSD1306 makes none of the ST7789's.
    assert "x.ST7789\n" in made["cran/names_st7789.py"]
    assert "ST7789" not in made["cran/names_ssd1306.py"]
    assert "x.SSD1306_I2C\n" in made["cran/names_ssd1306.py"]


def test_every_const_is_defined_above_its_uses():
    # mpy-cross writes a private const() in place only where it is used below its
    # definition; above it, the name is looked up at run time, and it is not there.
    import re

    from host_tools import FIRMWARE_DIR
    for where, _, names in os.walk(os.path.join(FIRMWARE_DIR, "cran")):
        for name in names:
            if not name.endswith(".py"):
                continue
            with open(os.path.join(where, name), encoding="utf-8") as f:
                code = [line.split("#")[0] for line in f]
            for i, line in enumerate(code):
                m = re.match(r"(_[A-Z0-9_]+) = const\(", line)
                if m:
                    used = [j for j, other in enumerate(code[:i])
                            if re.search(r"\b%s\b" % m.group(1), other)]
                    assert not used, (name, m.group(1), used[0] + 1)


def test_the_chips_pools_of_names_are_the_images():
    # host_tools/virtual/esp32image.py: the stock ESP32 image's pools of names, as names
    # made one by one in RAM took them (QEMU): 304, 592, 1,152, 2,272, 4,512, 8,992 and
    # 17,952 B at once, the 8,992 B one at the 1,261st name.
    from host_tools.virtual import esp32image
    assert [esp32image.pool_bytes(20 << k) for k in range(1, 8)] == [
        304, 592, 1152, 2272, 4512, 8992, 17952]
    assert esp32image.names_cliff(1260) == (0, 8992)
    assert esp32image.names_cliff(1261) == (1279, 17952)
    assert esp32image.names_pools(1260) == sum(esp32image.pool_bytes(20 << k)
                                               for k in range(6))
    # Its own names are its image's (1,589, "" twice), machine's and espnow's among them.
    assert len(esp32image.STATIC_NAMES) == 1589
    assert not esp32image.in_ram(["WDT", "ESPNow", "peers_table", "irecv", "NeoPixel"])
    assert esp32image.in_ram(["cran/app.mpy", "show_loop"]) == {"cran/app.mpy", "show_loop"}


@pytest.fixture(scope="module")
def firmware_files(tmp_path_factory):
    return build.compile_firmware(str(tmp_path_factory.mktemp("firmware")))


def test_every_badge_has_room_for_its_names_or_pays_its_next_pool(firmware_files):
    # The names a badge keeps on its chip (its image's own left out) and how many more it
    # can make before the chip takes its next pool of names, one block of 8,992 B at
    # once: never past that (the block would be taken at every start), and where fewer
    # than NAMES_HEADROOM are left, the badge's figures charge that pool (the bench says
    # so: docs/PERFORMANCE.md, "Names"), so that a feature that adds names does not cost
    # ~9 KB unseen.
    from host_tools.boards import board_ids
    from host_tools.virtual.runtimes import (
        NAMES_HEADROOM,
        badge_names,
        names_headroom,
        names_modules,
    )
    for board in board_ids():
        for radio in (False, True):
            job = {"board": board, "config": {"radio": {}} if radio else {}}
            left, pool = names_headroom(badge_names(firmware_files, names_modules(job)))
            assert 0 < left and pool == 8992, (board, radio, left, pool)
            # (2026-12-06: 362 left on the Atom Lite without the radio, 125-228 on every
            # board with it: those pay, test_a_badge_short_of_room_for_names_...)
            assert board != "atom-lite" or radio or left >= NAMES_HEADROOM, left


def test_a_badge_short_of_room_for_names_is_charged_the_next_pool(micropython, tmp_path,
                                                                  firmware_files):
    # runtimes.names_weight: the Atom Lite's names with the radio (228 left) weigh its
    # next pool more than its names alone; without it (362 left), no pool more.
    from host_tools.virtual import runtimes
    firmware = os.path.dirname(firmware_files["/main.py"])

    def weight(radio):
        job = {"board": "atom-lite", "config": {"radio": {}} if radio else {}}
        return runtimes.names_weight("micropython", os.path.basename(firmware), job,
                                     os.path.dirname(firmware), firmware_files)
    without, radio = weight(False), weight(True)
    assert radio - without > 8992 + 1000   # the pool, and the radio's own names
    assert without < 20000
