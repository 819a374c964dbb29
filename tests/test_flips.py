# Damaged flash (issue: a flipped bit in LittleFS's metadata rolled the directory back,
# or lost state.a and state.b, and the badge came back healthier, or new, silently).
# Every single-bit flip in the written part of a played image's superblock and root
# directory pair (tests/mp/flip_driver.py, inside MicroPython, batches in parallel):
# with the state's copy in NVS, the badge boots as acknowledged, restored from NVS
# (said), or etat inconnu (said); never older, never fresh, never silent.
import json
import os
import subprocess
from concurrent.futures import ThreadPoolExecutor

import pytest

from host_tools import FIRMWARE_DIR
from host_tools.vhw import sys_path

DRIVER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "mp", "flip_driver.py")
BATCHES = 4


def _sweep(exe, first, count, mode, step=1):
    out = subprocess.run([exe, DRIVER, FIRMWARE_DIR, *sys_path("micropython"), str(first),
                          str(count), mode, str(step)], capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-2000:]
    return json.loads(out.stdout)


def sweep(exe, mode, step=1):
    """Every step-th bit, in BATCHES processes at once -> (bits, outcomes, bad)."""
    bits = _sweep(exe, 0, 0, mode)["bits"]
    size = (bits // step + BATCHES) // BATCHES * step   # a whole number of steps
    with ThreadPoolExecutor(BATCHES) as pool:
        parts = list(pool.map(lambda i: _sweep(exe, i * size, size, mode, step),
                              range(BATCHES)))
    outcomes = {}
    bad = []
    for part in parts:
        for outcome, n in part["outcomes"].items():
            outcomes[outcome] = outcomes.get(outcome, 0) + n
        bad += part["bad"]
    return bits, outcomes, bad


@pytest.fixture(scope="module")
def with_nvs(micropython):
    return sweep(micropython, "nvs")


def test_every_flip_in_the_root_metadata_boots_as_acknowledged_or_says_so(with_nvs):
    bits, outcomes, bad = with_nvs
    assert bad == []
    assert sum(outcomes.values()) == bits > 4000
    assert set(outcomes) <= {"same", "restored", "unknown", "unmountable"}
    # Half the flips roll LittleFS's directory back (a later commit's CRC fails): each
    # of those boots comes back from its copy in NVS, and says so.
    assert outcomes.get("restored", 0) > bits // 4


def test_without_the_copy_in_nvs_those_flips_bring_back_an_older_state(micropython):
    # Every 16th flip again, on a badge without NVS: what the copy is for (the sweep
    # above would catch the bug the issue found).
    bits, outcomes, bad = sweep(micropython, "no-nvs", 16)
    assert outcomes.get("bad", 0) > bits // 16 // 4
    assert "[] {" in bad[0][1]   # an older state, and nothing said
