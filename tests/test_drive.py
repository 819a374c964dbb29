# `cran flash --drive PATH`: a CircuitPython badge's CIRCUITPY drive, here a folder
# standing in for it (boot_out.txt as CircuitPython writes it at every boot).
import json
import os
import subprocess

import pytest

from conftest import REPO, run_cran
from gamefiles.board import read_board_file
from host_tools import FIRMWARE_DIR, CommandError
from host_tools.boards import BOARDS_DIR
from host_tools.device.drive import flash_drive, mpy_cross_circuitpython
from host_tools.virtual.circuitpython import VCP_DIR
from host_tools.virtual.runtimes import find_circuitpython

BOOT_OUT = ("Adafruit CircuitPython 10.2.1 on 2025-11-20; M5Stack AtomS3 Lite with "
            "ESP32S3\nBoard ID:m5stack_atoms3_lite\nUID:3485187A1B2C\n")


@pytest.fixture
def drive(tmp_path):
    d = tmp_path / "CIRCUITPY"
    d.mkdir()
    (d / "boot_out.txt").write_text(BOOT_OUT)
    (d / "notes.txt").write_text("the organiser's own file")
    (d / "lib").mkdir()
    (d / "lib" / "adafruit_display_text.mpy").write_bytes(b"someone else's library")
    return d


@pytest.fixture
def config(tmp_path):
    path = tmp_path / "b01.json"
    path.write_text(json.dumps({"board": "atoms3-lite", "badge": "b01",
                                "character": {"name": "Godefroy", "armor": "metal"}}))
    return str(path)


def _flash(drive, *args):
    return run_cran("flash", "--drive", str(drive), *args)


def test_a_drive_gets_exactly_what_the_badge_needs_code_py_last(drive, config):
    out = _flash(drive, "--config", config)
    assert out.returncode == 0, out.stderr
    files = sorted(str(p.relative_to(drive)) for p in drive.rglob("*") if p.is_file())
    ext = ".mpy" if mpy_cross_circuitpython() else ".py"
    for needed in ("code.py", "config.json", "game.key", "boards/atoms3-lite.json",
                   "cran/__init__" + ext, "cran/hal_cp/keys" + ext, "cran/core/ticks" + ext,
                   "lib/neopixel" + ext, "lib/adafruit_pixelbuf" + ext,
                   "lib/asyncio/core" + ext, "lib/adafruit_ticks" + ext):
        assert needed in files, needed
    assert not [f for f in files if f.endswith((".new", ".off"))]
    # The firmware's own files only (gamefiles, the host's, sits outside firmware/).
    assert [f for f in files if f.startswith("cran/") and not f.startswith("cran/names")
            and not os.path.exists(
        os.path.join(FIRMWARE_DIR, f[:-len(ext)] + ".py"))] == []
    assert "notes.txt" in files and "lib/adafruit_display_text.mpy" in files   # not ours
    board = json.loads((drive / "boards" / "atoms3-lite.json").read_text())
    assert board["runtime"] == "circuitpython" and "notes" not in board
    # code.py is written last: newest of all
    newest = max(drive.rglob("*"), key=lambda p: p.stat().st_mtime_ns)
    assert newest.name == "code.py"
    again = _flash(drive, "--config", config)
    assert again.returncode == 0 and "already up to date" in again.stdout


def test_only_what_changed_is_written_and_what_is_gone_removed(drive, config):
    assert _flash(drive, "--config", config).returncode == 0
    ext = ".mpy" if mpy_cross_circuitpython() else ".py"
    (drive / "cran" / ("old_module" + ext)).write_bytes(b"from an older firmware")
    (drive / "lib" / ("neopixel.py" if ext == ".mpy" else "neopixel.mpy")).write_bytes(b"x")
    data = json.loads(open(config).read())
    data["character"]["armor"] = "cuir"
    with open(config, "w") as f:
        json.dump(data, f)
    out = _flash(drive, "--config", config)
    assert out.returncode == 0, out.stderr
    assert "2 file(s) written" in out.stdout and "2 removed" in out.stdout   # config, code.py
    assert json.loads((drive / "config.json").read_text())["character"]["armor"] == "cuir"
    assert not (drive / "cran" / ("old_module" + ext)).exists()


def test_a_copy_cut_short_leaves_a_drive_that_boots_to_the_repl(drive, config, monkeypatch):
    # The drive fills up at the fifth file: code.py is set aside, nothing half-written
    # stays, the message says what to do; the next run puts everything right.
    import host_tools.device.drive as drv
    board = read_board_file(os.path.join(BOARDS_DIR, "atoms3-lite.json"))
    flash_drive(str(drive), board, open(config).read(), b"k" * 32)
    (drive / "cran" / "menu.mpy").write_bytes(b"old")
    (drive / "cran" / "menu.py").write_bytes(b"old")
    written = []
    real = drv._write

    def full(path, data):
        if len(written) == 1:
            raise OSError(28, "No space left on device")
        written.append(path)
        real(path, data)
    monkeypatch.setattr(drv, "_write", full)
    (drive / "config.json").write_text("{}")
    with pytest.raises(CommandError) as e:
        flash_drive(str(drive), board, open(config).read(), b"k" * 32)
    assert "No space left on device" in str(e.value) and "boots to its REPL" in str(e.value)
    assert not (drive / "code.py").exists() and (drive / "code.py.off").exists()
    assert not list(drive.rglob("*.new"))
    monkeypatch.setattr(drv, "_write", real)
    flash_drive(str(drive), board, open(config).read(), b"k" * 32)
    assert (drive / "code.py").exists() and not (drive / "code.py.off").exists()


def test_a_full_drive_is_refused_before_anything_is_written(drive, config, monkeypatch):
    import shutil

    import host_tools.device.drive as drv
    board = read_board_file(os.path.join(BOARDS_DIR, "atoms3-lite.json"))
    monkeypatch.setattr(shutil, "disk_usage", lambda p: shutil._ntuple_diskusage(1, 1, 1000))
    with pytest.raises(CommandError) as e:
        drv.flash_drive(str(drive), board, open(config).read(), b"k" * 32)
    assert "is full" in str(e.value) and "1000 free" in str(e.value)
    assert not (drive / "cran").exists() and not (drive / "code.py").exists()


@pytest.mark.parametrize("setup, fault", [
    (lambda d: (d / "boot_out.txt").unlink(), "not a CIRCUITPY drive (no boot_out.txt"),
    (lambda d: (d / "boot_out.txt").write_text(BOOT_OUT.replace("m5stack_atoms3_lite",
                                                                "adafruit_qtpy_esp32s3")),
     "this drive's CircuitPython is for adafruit_qtpy_esp32s3"),
    (lambda d: (d / "boot_out.txt").write_text(BOOT_OUT.replace("10.2.1", "9.2.8")),
     "CircuitPython 9.2.8"),
])
def test_a_wrong_drive_is_named_and_left_alone(drive, config, setup, fault):
    setup(drive)
    if "9.2.8" in fault and mpy_cross_circuitpython() is None:
        pytest.skip("as source, the firmware runs on any CircuitPython")
    out = _flash(drive, "--config", config)
    assert out.returncode == 2 and fault in out.stderr, out.stderr
    assert "Traceback" not in out.stderr
    assert not (drive / "cran").exists() and not (drive / "code.py").exists()


def test_a_micropython_board_or_no_board_is_refused(drive):
    out = _flash(drive, "--board", "atom-lite")
    assert out.returncode == 2 and "board atom-lite runs MicroPython" in out.stderr
    out = _flash(drive)
    assert out.returncode == 2 and "give --board ID or --config FILE" in out.stderr
    out = _flash(drive, "--board", "atoms3-lite")
    assert out.returncode == 2 and "it has no config.json" in out.stderr


def test_the_drive_boots_on_circuitpython(drive, config):
    # The drive's own files (compiled by CircuitPython's mpy-cross where there is one)
    # loaded by the CircuitPython interpreter on the virtual board: the app starts.
    exe = find_circuitpython()
    if exe is None:
        pytest.skip("no CircuitPython interpreter")
    assert _flash(drive, "--config", config).returncode == 0
    script = (
        "import sys\n"
        "sys.path[:0] = [%r, %r, %r]\n"
        "import board\n"
        "board.define('m5stack_atoms3_lite')\n"
        "from cran.hal_cp import runtime\n"
        "runtime.install()\n"
        "from cran.start.phases import start\n"
        "app = start(%r)\n"
        "import time\n"
        "print(app.badge.board_id, app.badge.character.name,\n"
        "      app.line('coup', time.ticks_ms()), app.game_key is not None)\n"
        "print(sys.modules['cran.core.ticks'].__file__)\n"
        % (VCP_DIR, str(drive / "lib"), str(drive), str(drive)))
    out = subprocess.run([exe, "-c", script], capture_output=True, text=True, timeout=60,
                         cwd=REPO)
    assert out.returncode == 0, out.stdout + out.stderr
    first, where = out.stdout.splitlines()
    # Locked by the game key the drive got, as a MicroPython badge is.
    assert first.startswith("atoms3-lite Godefroy [\"error: locked") and first.endswith("True")
    assert where.startswith(str(drive)) and FIRMWARE_DIR not in where
