# The game master's station badge (cran.station): its relay inside the real MicroPython
# unix port and under CPython (tests/mp/station_driver.py, the same expectations for
# both), and its firmware as cran flash builds it: the relay and what it imports, the
# badge's own main.py starting it, nothing of it on a player's badge.
import json
import os
import subprocess
import sys

import pytest

from conftest import check_results
from host_tools import FIRMWARE_DIR, build

DRIVER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "mp", "station_driver.py")
RUNTIMES = ("micropython", "cpython")
WRAP = 1 << 30


def _run(exe):
    out = subprocess.run([exe, DRIVER, FIRMWARE_DIR], capture_output=True, text=True,
                         timeout=60)
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-2000:]
    return {r["id"]: r for r in map(json.loads, out.stdout.splitlines())}


@pytest.fixture(scope="module")
def on_micropython(micropython):
    return _run(micropython)


@pytest.fixture(scope="module")
def on_cpython():
    return _run(sys.executable)


@pytest.fixture(params=RUNTIMES)
def result(request):
    return check_results(request.getfixturevalue("on_" + request.param))


def test_frames_heard_go_up_once_with_their_signal(result):
    r = result("frames_heard_go_up_once_with_their_signal")
    assert r["said"] == ["heard -48 c1" + "00" * 30, "heard -70 c1" + "02" * 40]
    assert (r["status"]["heard"], r["status"]["again"]) == (2, 2)
    assert r["status"]["station"] is True and r["status"]["id"] == "240ac4000001"


def test_a_frame_is_sent_again_and_again_as_asked_across_the_wrap(result):
    r = result("a_frame_is_sent_again_and_again_as_asked_across_the_wrap")
    start = WRAP - 20
    assert r["sent_at"] == [(start + 3 * n) % WRAP for n in range(11)]   # 30 ms, every 3
    assert r["frames"] == ["c10203"] * 11 + ["c1ff"] and r["said"] == []
    assert r["repeating"] == 0


def test_garbled_lines_are_refused_by_name_and_change_nothing(result):
    r = result("garbled_lines_are_refused_by_name_and_change_nothing")
    said = r["said"]
    assert r["sent"] == 1 and r["refused"] == 12   # "send c1": a frame of one byte
    assert said[0].startswith('error: "sned c101": not a station\'s command (send HEX')
    assert said[1] == 'error: "send": expected send HEX [EVERY_MS FOR_MS]'
    assert said[2] == ('error: "send zz": HEX: a frame of 1 to 250 bytes in hex digits (2 '
                       'characters here)')
    assert said[3] == 'error: "send c1 0 100": EVERY_MS from 1 to 1000, FOR_MS from 0 to 10000'
    assert said[6].startswith('error: "send ababab') and "(502 characters here)" in said[6]
    assert said[7].startswith('error: "\\xff\\xfe\\x00garbage": not a station')
    assert "the station keeps no journal" in said[10]
    assert said[11].startswith('error: "xxxxxxxx') and said[11].endswith(
        '...": longer than 600 characters: not read')
    assert said[12:] == ["cran-42", "station commands: send HEX [EVERY_MS FOR_MS], status, "
                                    "echo WORD, help"]


def test_no_more_than_eight_frames_repeat_and_a_failing_radio_is_said_once(result):
    r = result("no_more_than_eight_frames_repeat_at_once_and_a_failing_radio_is_said")
    said = r["said"]
    assert said[0] == ('error: "send c108 3 900": 8 frames are being sent again already: '
                       'wait for one to end')
    assert said[1].startswith('error: "send c1aa": the radio did not send it (OSError(')
    # Each repeating frame's failed copy said once, and its copies stopped.
    assert len(said) == 2 + 8 and r["repeating"] == 0 and r["sent"] == 8


def test_status_is_one_json_line(result):
    r = result("status_is_one_json_line")
    assert r == {"station": True, "firmware": r["firmware"], "id": "240ac4000001",
                 "uptime_ms": 1000, "heard": 0, "again": 0, "sent": 0, "refused": 0,
                 "repeating": 0, "lost": 3}


def test_a_station_gets_the_relay_alone_and_a_player_never_gets_it(tmp_path):
    station = build.compile_station(str(tmp_path / "station"))
    assert "/cran/station.mpy" in station and "/cran/hal/espnow.mpy" in station
    for module in ("/cran/app.mpy", "/cran/radio.mpy", "/cran/link.mpy", "/cran/lock.mpy",
                   "/cran/fail.mpy"):
        assert module not in station   # no app, no frames' keys, no lock: a relay
    with open(station["/main.py"]) as f:
        main = f.read()
    assert main.count('__import__("cran.station", None, None, ("main",)).main()') == 1
    assert '__import__("cran").main()' not in main
    with open(os.path.join(FIRMWARE_DIR, "main.py")) as f:
        assert main.replace('"cran.station", None, None, ("main",)', '"cran"') == f.read()
    player = build.compile_firmware(str(tmp_path / "player"))
    assert "/cran/station.mpy" not in player
    names = build.names_of(player)
    assert not [n for group in names.values() for n in group[1] if "station" in n]
