# The badge app with its radio, inside the MicroPython unix port (tests/mp/link_driver.py):
# a game master's stop and resume reach it in its listening windows, a replayed command
# after a reboot does nothing, forged and garbage frames change nothing, a healer's offer
# is taken only by the wearer's long press, and the radio is on 10 % of the time.
import json
import os
import subprocess

import pytest

from cran.link import PERIOD_MS, WINDOW_MS
from host_tools import FIRMWARE_DIR
from host_tools.runtimes import BOARDS_DIR
from host_tools.vhw import sys_path

MP = os.path.join(os.path.dirname(os.path.abspath(__file__)), "mp")


@pytest.fixture(scope="module")
def link_checks(micropython, tmp_path_factory):
    flash = str(tmp_path_factory.mktemp("flash"))
    out = subprocess.run([micropython, os.path.join(MP, "link_driver.py"), FIRMWARE_DIR,
                          BOARDS_DIR, flash, *sys_path("micropython")],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-2000:]
    results = {r["id"]: r for r in map(json.loads, out.stdout.splitlines())}

    def result(name):
        r = results[name]
        assert "crash" not in r, r["crash"]
        return r["result"]
    return result


def test_stop_and_resume_reach_the_badge_and_stay_spent(link_checks):
    r = link_checks("stop_and_resume_over_the_radio")
    assert (r["after_stop"], r["after_resume"]) == ("stop", "en-jeu")
    assert r["beats_at_start"] >= 1 and r["beats_after_stop"] > r["beats_at_start"]
    assert r["kept"]["spent"] == {"5a" * 6: [2, r["kept"]["spent"]["5a" * 6][1]]}
    assert r["kept"]["mark"] >= 1   # the counter's mark, written before its first frame
    assert r["replayed_stop_after_reboot"] == "en-jeu"
    assert set(r["dropped"]) == {"token"} and r["journal"] == ["stop", "reprise"]


def test_forged_and_garbage_frames_change_nothing(link_checks):
    r = link_checks("forged_and_garbage_frames_change_nothing")
    assert r["jeu"] == "en-jeu" and r["state_saved"]
    assert set(r["dropped"]) >= {"tag", "token", "kind", "size"}


def test_a_healers_offer_is_taken_only_near_and_by_a_long_press(link_checks):
    r = link_checks("a_healers_offer_is_taken_by_a_long_press")
    assert r["hit"] == "blesse" and r["far_offer"] is None
    assert r["near_offer"] == "soin" and r["before_press"] == "blesse"
    assert r["after_press"] == "pleine-forme" and r["offer_after"] is None


def test_the_radio_is_on_its_duty_cycle(link_checks):
    duty = link_checks("radio_on_time_is_its_duty_cycle")["duty"]
    assert abs(duty - WINDOW_MS / PERIOD_MS) < 0.01, duty
