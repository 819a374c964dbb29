# A CircuitPython badge's console, reached as an organiser reaches one: `cran vbadge
# --board atoms3-lite` runs the drive `cran flash --drive` filled inside the real
# CircuitPython interpreter (host_tools/virtual/scripts/cpbadge_boot.py) behind a pty, and `cran
# status --port` and `cran logs --port` talk to it as to a MicroPython badge.
import json
import time

import pytest
import serial

from conftest import run_cran
from host_tools.device import badgeport
from host_tools.virtual import vbadge
from host_tools.virtual.runtimes import HOW_TO_GET_CIRCUITPYTHON, find_circuitpython

BOOT_OUT = ("Adafruit CircuitPython 10.2.1 on 2025-11-20; M5Stack AtomS3 Lite with "
            "ESP32S3\nBoard ID:m5stack_atoms3_lite\n")


@pytest.fixture(scope="module", autouse=True)
def _circuitpython():
    if find_circuitpython() is None:
        pytest.skip(HOW_TO_GET_CIRCUITPYTHON)


@pytest.fixture
def drive(tmp_path):
    d = tmp_path / "CIRCUITPY"
    d.mkdir()
    (d / "boot_out.txt").write_text(BOOT_OUT)
    config = tmp_path / "b01.json"
    config.write_text(json.dumps({"board": "atoms3-lite", "badge": "b01",
                                  "character": {"name": "Godefroy", "armor": "metal"}}))
    out = run_cran("flash", "--drive", str(d), "--config", str(config))
    assert out.returncode == 0, out.stderr
    return d


def _status(port):
    out = run_cran("status", "--port", port, "--json")
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def test_status_and_logs_reach_a_circuitpython_badge_and_nvm_outlives_a_power_cut(drive):
    with vbadge.running(board="atoms3-lite", drive=drive) as badge:
        status = _status(badge.port)
        assert (status["personnage"], status["board"], status["etat"], status["armure"]) \
            == ("Godefroy", "atoms3-lite", "pleine-forme", 2)
        # The badge wrote boot_out.txt as CircuitPython does, its uid the chip's id.
        assert "Board ID:m5stack_atoms3_lite\nUID:%s\n" % status["id"].upper() in (
            drive / "boot_out.txt").read_text()
        # Locked by the game key the drive got: a hit through the unlocked console.
        assert badgeport.ask(badge.port, "coup", keys=())[-1].startswith(
            "ok coup normal: etat=pleine-forme armure=1")
        people = run_cran("status", "--port", badge.port)
        assert people.returncode == 0 and "Godefroy on atoms3-lite" in people.stdout
        # Its clock runs in real time: supervisor.ticks_ms moves.
        up = _status(badge.port)["uptime_ms"]
        time.sleep(1.0)
        assert 1000 <= _status(badge.port)["uptime_ms"] - up < 5000
        badge.kill()   # the power goes: what it saved is in microcontroller.nvm
    assert (drive.parent / "CIRCUITPY.nvm").stat().st_size == 8192
    with vbadge.running(board="atoms3-lite", drive=drive) as badge:
        assert _status(badge.port)["armure"] == 1
        out = run_cran("logs", "--port", badge.port, "--json", "--out",
                       str(drive.parent / "fight.svg"))
        assert out.returncode == 0, out.stderr
        journal = json.loads(out.stdout)
    assert journal["name"] == "Godefroy"
    played = [m["label"] for m in journal["markers"] if m["kind"] in ("action", "answer")]
    assert [label.split(" «")[0] for label in played] == ["coup normal"]


def test_a_circuitpython_vbadge_refuses_what_is_micropythons(tmp_path):
    out = run_cran("vbadge", "--board", "atoms3-lite", "--image", str(tmp_path / "x.img"))
    assert out.returncode != 0
    assert "--image: board atoms3-lite runs CircuitPython: its files are a folder, " \
        "--drive DIR" in out.stderr
    out = run_cran("vbadge", "--board", "atom-lite", "--drive", str(tmp_path / "D"))
    assert out.returncode != 0
    assert "--drive: board atom-lite runs MicroPython, whose flash is --image FILE" \
        in out.stderr


def test_a_circuitpython_badge_that_cannot_start_says_why_on_its_console(drive):
    config = json.loads((drive / "config.json").read_text())
    config["character"]["coma_ms"] = 100 * 3600000   # past what its clock counts
    (drive / "config.json").write_text(json.dumps(config))
    with vbadge.running(board="atoms3-lite", drive=drive) as badge:
        out = run_cran("status", "--port", badge.port)
        assert out.returncode == 1
        assert out.stdout.startswith(
            "%s: the badge could not start: /config.json: character.coma_ms: 360000000 ms "
            "(100.0 hours) is longer than a CircuitPython badge can count" % badge.port)
        out = run_cran("logs", "--port", badge.port, "--json", "--out",
                       str(drive.parent / "j.svg"))
        assert out.returncode == 0, out.stderr
        assert "cannot start: /config.json: character.coma_ms" in out.stdout


def test_a_circuitpython_badge_at_its_prompt_is_named_then_flashed_through_its_drive(
        tmp_path):
    # A new board: an empty drive, no code.py, CircuitPython's prompt. cran status says
    # how to mend it (its drive, not its port); flashed, the next status soft-reboots it
    # into code.py, as CircuitPython's reload after a write to the drive does.
    d = tmp_path / "CIRCUITPY"
    with vbadge.running(board="atoms3-lite", drive=d) as badge:
        out = run_cran("status", "--port", badge.port)
        assert out.returncode == 1
        assert out.stderr == (
            "cran: %s: no cran firmware on this CircuitPython badge (it stops at its "
            "prompt): copy it through its CIRCUITPY drive, `cran flash --drive PATH --board "
            "BOARD` (BOARD: atoms3-lite, qtpy-esp32s3)\n" % badge.port)
        assert "Board ID:m5stack_atoms3_lite\n" in (d / "boot_out.txt").read_text()
        config = tmp_path / "b01.json"
        config.write_text(json.dumps({"board": "atoms3-lite", "character": {"name": "Ali"}}))
        out = run_cran("flash", "--drive", str(d), "--config", str(config))
        assert out.returncode == 0, out.stderr
        status = _status(badge.port)
        assert (status["personnage"], status["board"]) == ("Ali", "atoms3-lite")


def test_a_hung_circuitpython_firmware_is_reset_by_its_watchdog(tmp_path):
    # code.py starts a 1 s watchdog and hangs without touching any clock; the badge
    # resets (WATCHDOG) and the second boot, finding its mark in nvm, stays calm.
    d = tmp_path / "CIRCUITPY"
    d.mkdir()
    (d / "code.py").write_text(
        "import microcontroller\n"
        "from watchdog import WatchDogMode\n"
        "if microcontroller.nvm[0] != 1:\n"
        "    microcontroller.nvm[0] = 1\n"
        "    microcontroller.watchdog.timeout = 1\n"
        "    microcontroller.watchdog.mode = WatchDogMode.RESET\n"
        "    while True:\n"
        "        pass\n"
        "print('calm after', microcontroller.cpu.reset_reason)\n")
    with vbadge.running(board="atoms3-lite", drive=d) as badge:
        with serial.Serial(badge.port, 115200, timeout=20) as s:
            said = s.read_until(b"calm after WATCHDOG\r\n")
        assert said.endswith(b"calm after WATCHDOG\r\n"), said


def test_a_file_that_is_no_nvm_is_refused(tmp_path):
    (tmp_path / "CIRCUITPY.nvm").write_bytes(b"x" * 100)
    out = run_cran("vbadge", "--board", "atoms3-lite", "--drive", str(tmp_path / "CIRCUITPY"))
    assert out.returncode == 2
    assert out.stderr == "cran: %s: 100 bytes, not a CircuitPython badge's nvm (8192 bytes)\n" \
        % (tmp_path / "CIRCUITPY.nvm")
