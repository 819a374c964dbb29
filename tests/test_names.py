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
    assert build.badge_path("/cran/names.mpy") in files
    flash = tmp_path / "flash"
    flash.mkdir()
    out = subprocess.run([micropython, "-X", "heapsize=4m", _driver(tmp_path), firmware,
                          BOARDS_DIR,
                          str(flash), board, "{}", *sys_path("micropython")],
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


def _names_dumped(text):
    # micropython.qstr_info(1)'s lines: its summary, then "Q(name)" for each name in RAM
    # (a name may hold a newline) -> the names.
    return set(item[:-1] for item in ("\n" + text.rstrip("\n")).split("\nQ(")[1:])


@pytest.mark.parametrize("board", ["atom-lite", "esp32-devkitc", "m5stickc-plus"])
def test_the_bench_counts_every_name_the_start_makes(micropython, tmp_path, board):
    # The names the bench counts for a badge (runtimes.badge_names: what decides where its
    # chip takes its next pool of names, 4.4 KB at once) hold every one its start makes,
    # here with an organiser's badge id and settings: on the chip, 13 were not counted on
    # a DevKitC (its names modules' import names, and characters taken one by one out of
    # its board's id).
    from host_tools.virtual.runtimes import badge_names, names_modules
    firmware = str(tmp_path / "firmware")
    files = build.compile_firmware(firmware)
    flash = tmp_path / "flash"
    flash.mkdir()
    config = {"badge": "Zoe.Q-7_x", "settings": {"combat_rest_ms": "1m39s",
                                                 "vol_notice_ms": "8h"}}
    out = subprocess.run([micropython, "-X", "heapsize=4m", _driver(tmp_path), firmware,
                          BOARDS_DIR, str(flash), board, json.dumps(config),
                          *sys_path("micropython")],
                         capture_output=True, timeout=120)
    said = out.stdout.decode()   # (as it is: a name may hold a "\r")
    assert out.returncode == 0, said[-2000:] + out.stderr.decode()[-2000:]
    before = said.split("names_before\n", 1)[1].split("names_after\n", 1)[0]
    after = said.split("names_after\n", 1)[1].split("names_end\n", 1)[0]
    # (the modules' paths as a chip has them: its files are at its root)
    made = set(name.replace(firmware + "/", "", 1)
               for name in _names_dumped(after) - _names_dumped(before))
    assert len(made) > 400
    counted = badge_names(files, names_modules({"board": board, "config": config}))
    missed = sorted(made - counted)
    assert not missed, missed


def _driver(tmp_path):
    # The driver, with the firmware's modules named as on a badge (build.runner_copy).
    runner = tmp_path / "runner"
    runner.mkdir(exist_ok=True)
    return build.runner_copy(DRIVER, str(runner))


def test_the_names_modules_hold_every_name_each_module_makes(tmp_path):
    files = build.compile_firmware(str(tmp_path / "firmware"))
    for module in build.NAMES_MODULES:
        assert build.badge_path("/cran/%s.mpy" % module) in files
    src = tmp_path / "src"
    src.mkdir()
    made = dict((rel, open(path, encoding="utf-8").read())
                for path, rel in build.names_sources(files, str(src)))
    for path in files:
        module = build.import_name(path) if path.endswith(".mpy") else None
        if module in (None, "cran.fail") or module.startswith("cran.names"):
            continue
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
    renames = build.badge_renames()   # (the drivers' classes as a badge has them)
    st7789, ssd1306 = (renames.get(name, name) for name in ("ST7789", "SSD1306_I2C"))
    assert "x.%s\n" % st7789 in made["cran/names_st7789.py"]
    assert "x.%s\n" % st7789 not in made["cran/names_ssd1306.py"]
    assert "x.%s\n" % ssd1306 in made["cran/names_ssd1306.py"]


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


def test_every_badge_has_room_for_its_names(firmware_files):
    # The names a badge keeps on its chip (its image's own left out) and how many more it
    # can make before the chip takes its next pool of names, one block at once. Every
    # board, with the radio or not, stays in the pool of 640 names (the 620 names of the
    # first five, then that one's) with NAMES_HEADROOM to spare, so that a feature that
    # adds names does not cost the pool of 1,280 (8,992 B) unseen. Where fewer than
    # NAMES_HEADROOM are left before the pool of 640 itself (4,512 B: the firmware's own
    # names given the image's, build.badge_renames, took most boards just under it), the
    # bench pays that pool in the board's figures (runtimes.names_weight, the next test).
    # (2026-12-07: 573-640 in RAM; the DevKitC and the C3 with the radio the most.)
    from host_tools.boards import board_ids
    from host_tools.virtual.esp32image import in_ram
    from host_tools.virtual.runtimes import (
        NAMES_HEADROOM,
        badge_names,
        names_headroom,
        names_modules,
    )
    for board in board_ids():
        for radio in (False, True):
            job = {"board": board, "config": {"radio": {}} if radio else {}}
            made = badge_names(firmware_files, names_modules(job))
            kept = len(in_ram(made))
            left, pool = names_headroom(made)
            assert kept + NAMES_HEADROOM <= 1260, (board, radio, kept)
            assert pool == (4512 if kept <= 620 else 8992), (board, radio, kept, pool)
            assert left == (620 if kept <= 620 else 1260) - kept


def test_a_board_without_a_screen_makes_none_of_a_screens_names(firmware_files):
    # A screen is made by cran.start.screen, loaded only on a board with one, and so are
    # its names; the menu's page titles are the screen's words (cran.menuwords), held in
    # word tables, long strings: objects made as it loads, not names. That
    # keeps the Atoms with the radio within the chip's first five pools of names (620
    # names), so that the chip does not take the pool of 640 (4,512 B) at its start.
    # (2026-12-07: 603 names; 638 with the titles and the screen's making in every
    # badge's names.)
    from host_tools.virtual.esp32image import in_ram
    from host_tools.virtual.runtimes import badge_names, names_modules

    def names(board):
        job = {"board": board, "config": {"radio": {}}}
        return badge_names(firmware_files, names_modules(job))
    # (a module's file at a badge's root, a name it keeps: build.flattened)
    screens = {"Screen", "backlight", build.badge_path("/cran/hal/display.mpy")[1:],
               build.badge_path("/cran/start/screen.mpy")[1:]}
    titles = {"Etats", "Effects 1", "Organiser"}
    devkitc = names("esp32-devkitc")
    assert screens <= devkitc and not titles & devkitc
    for board in ("atom-lite", "atom-matrix"):
        made = names(board)
        assert not (screens | titles) & made, (board, (screens | titles) & made)
    # Every board, its modules each a module of its own at the badge's root under a name
    # of its image's (build.flattened: 694 on a DevKitC before).
    for board in ("atom-lite", "atom-matrix", "esp32-devkitc", "esp32c3-supermini",
                  "m5stickc-plus"):
        made = names(board)
        assert len(in_ram(made)) <= 620, (
            "%s with the radio: %d names in RAM, past the chip's first five pools (620): "
            "it takes the next, 4,512 B, at its start. A name a board without a screen "
            "does not use belongs in its part's modules (host_tools.build.PART_MODULES)"
            % (board, len(in_ram(made))))


def test_a_badge_short_of_room_for_names_is_charged_the_next_pool(micropython,
                                                                  firmware_files,
                                                                  monkeypatch):
    # runtimes.names_weight: names that leave fewer than NAMES_HEADROOM before the next
    # pool weigh that pool more than the names alone: the Atom Lite's with the radio,
    # weighed with no headroom asked and with one above what it has left.
    from host_tools.virtual import runtimes
    firmware = os.path.dirname(firmware_files["/main.py"])
    job = {"board": "atom-lite", "config": {"radio": {}}}
    left, pool = runtimes.names_headroom(runtimes.badge_names(
        firmware_files, runtimes.names_modules(job)))

    def weight():
        return runtimes.names_weight("micropython", os.path.basename(firmware), job,
                                     os.path.dirname(firmware), firmware_files)
    monkeypatch.setattr(runtimes, "NAMES_HEADROOM", 0)
    room = weight()
    monkeypatch.setattr(runtimes, "NAMES_HEADROOM", left + 1)
    assert weight() - room == pool
    assert room < 25000


def test_a_badge_has_the_images_names_for_the_firmwares_own(firmware_files):
    # build.badge_renames: every name the firmware defines, given on a badge a name the
    # ESP32 image holds (none made in RAM), each its own, and one that nothing of the
    # firmware uses; a public one keeps its own where something reaches it by name. The
    # badge's .mpy hold none of the names renamed.
    from host_tools.virtual.esp32image import STATIC_NAMES
    renames = build.badge_renames()
    assert len(renames) > 500
    assert set(renames.values()) <= set(STATIC_NAMES)
    assert len(set(renames.values())) == len(renames)
    assert "_poke" in renames and "_clock_loop" in renames     # the app's own
    assert "_CODE_TRIES" not in renames   # a private const(): mpy-cross keeps no name
    assert "_MAX_LINE_BYTES" not in renames
    assert "news_of" in renames and "CUE_COUNTDOWN" in renames   # public, the firmware's only
    assert "HEARTBEAT_MS" in renames   # a public const(): a module's global, renamed
    kept = ("App", "on_button", "start_watchdog",   # the bench's drivers reach them
            "ParseError", "UnknownWord",          # an exception: "%r" of it is said
            "agonisant_ms", "light_sleep",        # a character's, a setting's: by its text
            "engine", "radio",                    # a module's: its import's path
            "text_of")                            # tests/mp/names_driver.py imports it
    assert not [name for name in kept if name in renames]
    made = set()
    for path, local in firmware_files.items():
        if path.endswith(".mpy"):
            with open(local, "rb") as f:
                made.update(build.mpy_qstrs(f.read()))
    assert not made & set(renames), sorted(made & set(renames))[:5]
    assert not made & {"typing", "Any"}   # mypy's only: TYPE_CHECKING is a const()


def test_renaming_changes_names_never_texts():
    renames = {"_poke": "RX", "_n": "TX"}
    text = ('def f(_n=1):  # _poke it\n'
            '    self._poke(_n, "_poke", x._n)   # the _n-th\n')
    assert build.renamed(text, renames) == ('def f(TX=1):  # _poke it\n'
                                            '    self.RX(TX, "_poke", x.TX)   # the _n-th\n')
    # What a badge says back, with the firmware's names: a quoted name, a traceback's
    # function; another word of the text as it is.
    said = ("show loop: AttributeError(\"'App' object has no attribute 'RX'\",)\n"
            "  File \"cran.app\", in TX\nRX TX")
    assert build.unrenamed(said, renames) == (
        "show loop: AttributeError(\"'App' object has no attribute '_poke'\",)\n"
        "  File \"cran.app\", in _n\nRX TX")


def test_a_journaled_fault_is_read_with_the_firmwares_names():
    from host_tools.debrief import journal
    name = build.badge_renames()["_clock_loop"]
    entries, problems = journal.parse_lines(
        ['{"error": "show loop: NameError(\\"name \'%s\' isn\'t defined\\",)", "up": 5}'
         % name], "journal.0")
    assert not problems
    assert entries[0].raw["error"] == ("show loop: NameError(\"name '_clock_loop' isn't "
                                       "defined\",)")


def test_the_web_page_runs_what_reaches_into_the_badge_with_its_names(tmp_path, monkeypatch):
    # The page mounts the firmware as cran flash compiles it, renamed; what it runs beside
    # it (the scenario runner, the journal's reader, which reach into the engine by its
    # names) is compiled with the same renames.
    from host_tools.web import site
    compiled = []
    real = build.compile_modules

    def compile_modules(sources, out_dir, extra_args=(), cache=None, cross=None,
                        renames=None, modules=None):
        compiled.append((list(sources), renames, modules))
        return real(sources, out_dir, extra_args, cache, cross, renames, modules)
    monkeypatch.setattr(build, "compile_modules", compile_modules)
    site.romfs_image(str(tmp_path))
    [(shims, renames, modules)] = [c for c in compiled if c[0] == site._SHIMS]
    assert renames == build.badge_renames() and modules == build.badge_modules()
    # (The journal's reader imports the engine's cues by names renamed on a badge.)
    assert "CUE_STATE" in renames and "web/journal.py" in [path for _, path in shims]
