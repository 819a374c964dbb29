# The virtual ESP32 held to what MicroPython's own developers run on real boards
# (../shared/upstream/micropython-v1.28.0, unchanged: see its README): esp32_nvs.py on
# `cran vchip` prints its .exp; each multi_espnow test passes between two `cran vchip`
# on one virtual field's air, run by MicroPython's own harness (run-multitests.py,
# `-t exec:SCRIPT`), as it runs two ESP32s. Skipped, with a message, where ../shared is
# not beside the repository (a clone elsewhere).
import glob
import os
import subprocess
import sys

import pytest

from conftest import REPO
from host_tools.field import fieldnet

UPSTREAM = os.path.join(os.path.dirname(REPO), "shared", "upstream", "micropython-v1.28.0",
                        "tests")
# MicroPython v1.28.0's multi_espnow tests, every one: each must pass here (docs/vchip.md
# says so; one that could not would be named there, with why and with proof that the
# firmware never uses what it tests).
MULTI_ESPNOW = ("10_simple_data", "20_send_echo", "30_lmk_echo", "40_recv_test",
                "50_esp32_rssi_test", "60_irq_test", "70_channel", "75_rate",
                "80_asyncio_client", "81_asyncio_server", "90_memory_test")


@pytest.fixture
def upstream():
    if not os.path.isdir(UPSTREAM):
        pytest.skip("no MicroPython tests beside the repository (../shared/upstream/"
                    "micropython-v1.28.0): the virtual chip is not held to them here")
    return UPSTREAM


def _vchip(*args, cwd):
    return subprocess.run([sys.executable, "-m", "host_tools", "vchip", *args],
                          capture_output=True, text=True, cwd=cwd, timeout=60,
                          env=dict(os.environ, PYTHONPATH=REPO))


def test_esp32_nvs_prints_what_a_real_esp32_prints(upstream):
    folder = os.path.join(upstream, "ports", "esp32")
    done = _vchip("esp32_nvs.py", cwd=folder)
    with open(os.path.join(folder, "esp32_nvs.py.exp")) as f:
        assert (done.stdout, done.stderr) == (f.read(), "")


def test_every_multi_espnow_test_of_the_release_is_run_here(upstream):
    found = sorted(os.path.basename(p)[:-3]
                   for p in glob.glob(os.path.join(upstream, "multi_espnow", "*.py")))
    assert found == list(MULTI_ESPNOW)


@pytest.mark.parametrize("name", MULTI_ESPNOW)
def test_multi_espnow_passes_between_two_virtual_chips_on_one_air(upstream, name, tmp_path):
    field = "mp%d%s" % (os.getpid(), name.split("_")[0])
    chip = tmp_path / "chip.sh"   # an instance, as the harness's -t exec: runs it
    chip.write_text('#!/bin/sh\nexec "%s" -m host_tools vchip --field %s "$@"\n'
                    % (sys.executable, field))
    chip.chmod(0o755)
    hub = fieldnet.Hub(field)
    try:
        done = subprocess.run(
            [sys.executable, "run-multitests.py", "-r", str(tmp_path / "results"),
             "-t", "exec:%s" % chip, "-t", "exec:%s" % chip,
             "multi_espnow/%s.py" % name],
            capture_output=True, text=True, cwd=upstream, timeout=120,
            # Nothing written beside the tests (they are MicroPython's, read only).
            env=dict(os.environ, PYTHONPATH=REPO, PYTHONDONTWRITEBYTECODE="1"))
    finally:
        hub.close()
    said = "multi_espnow/%s.py on chip.sh|chip.sh: pass" % name
    assert said in done.stdout.splitlines() and done.returncode == 0, done.stdout + done.stderr
