# The virtual ESP32 held to what MicroPython's own developers run on real boards
# (../shared/upstream/micropython-v1.28.0, unchanged: see its README): run-tests.py with
# `cran vchip` its target gives, for a part of tests/extmod, tests/micropython and
# tests/ports/esp32, what the ESP32 port gives, but where docs/vchip.md says why not
# (tests/vchip_upstream.py runs them all); esp32_nvs.py prints its .exp; each
# multi_espnow test, and multi_wlan/01_ap_sta, passes between two `cran vchip` on one
# virtual field's air, run by MicroPython's own harness (run-multitests.py, `-t
# exec:SCRIPT`), as it runs two ESP32s. Skipped, with a message, where ../shared is not
# beside the repository (a clone elsewhere).
import glob
import os
import subprocess
import sys

import pytest
import vchip_upstream

from conftest import REPO

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
    done = vchip_upstream.run_multitests(["multi_espnow/%s.py" % name], str(tmp_path), field,
                                         timeout=120)
    said = "multi_espnow/%s.py on chip.sh|chip.sh: pass" % name
    assert said in done.stdout.splitlines() and done.returncode == 0, done.stdout + done.stderr


# What the ESP32 port gives (a stock ESP32_GENERIC: what its modules have, what the tests
# skip on sys.platform "esp32"), for tests chosen to run in seconds on a loaded laptop:
# the port's own, the machine tests, those an ESP32 skips for what it lacks, one that
# runs through unittest, and what needs the heap as an ESP32's (locked, in one piece).
AS_AN_ESP32 = {
    "ports/esp32/check_err_str.py": "pass", "ports/esp32/esp32_idf_heap_info.py": "pass",
    "ports/esp32/esp32_nvs.py": "pass", "ports/esp32/partition_ota.py": "skip",
    "extmod/machine1.py": "pass", "extmod/machine_disable_irq.py": "pass",
    "extmod/machine_timer.py": "skip", "extmod/machine_soft_timer.py": "skip",
    "extmod/machine_hard_timer.py": "skip", "extmod/machine_pinbase.py": "skip",
    "extmod/machine_signal.py": "skip", "extmod/machine_uart_irq_txidle.py": "skip",
    "extmod/vfs_lfs.py": "skip", "extmod/vfs_lfs_mount.py": "skip",
    "extmod/vfs_posix.py": "skip", "extmod/vfs_rom.py": "skip",
    "extmod/vfs_fat_ramdisk.py": "pass", "extmod/select_poll_fd.py": "skip",
    "extmod/asyncio_heaplock.py": "pass", "extmod/time_ms_us.py": "pass",
    "micropython/const2.py": "pass", "micropython/memstats.py": "skip",
    "micropython/heapalloc_bytesio2.py": "skip", "micropython/heap_lock.py": "pass",
    "micropython/schedule.py": "pass", "micropython/meminfo.py": "skip",
    "micropython/import_mpy_native_gc.py": "pass", "extmod/btree1.py": "pass",
    "extmod/hashlib_md5.py": "pass", "extmod/cryptolib_aes128_ecb.py": "pass",
    "extmod/ssl_basic.py": "pass",
}
# Where the vchip is not the ESP32 (docs/vchip.md's table says why): the 32-bit unix
# port's build has no btree, no mbedTLS (so no ssl, cryptolib, md5, sha1), and is x86
# (a .mpy with native code for the xtensawin has no x86 twin in the test).
NOT_AS_AN_ESP32 = {"extmod/btree1.py": "skip", "extmod/hashlib_md5.py": "skip",
                   "extmod/cryptolib_aes128_ecb.py": "skip", "extmod/ssl_basic.py": "skip",
                   "micropython/import_mpy_native_gc.py": "skip"}


def test_micropythons_own_tests_give_what_the_esp32_port_gives(upstream, tmp_path):
    out, verdicts = vchip_upstream.run_tests(sorted(AS_AN_ESP32), str(tmp_path))
    assert "platform=esp32" in out, out
    wanted = dict(AS_AN_ESP32, **NOT_AS_AN_ESP32)
    got = {test: verdicts.get(test) for test in wanted}
    assert got == wanted, out
    # machine1.py ran its tests (through unittest.main(), in the program's __main__).
    assert "pass  extmod/machine1.py (unittest: 3 ran)" in out


def test_each_difference_from_the_esp32_is_in_the_docs():
    with open(os.path.join(REPO, "docs", "vchip.md"), encoding="utf-8") as f:
        docs = f.read()
    for test in NOT_AS_AN_ESP32:
        assert os.path.basename(test) in docs, test


def test_an_access_point_and_a_station_join_between_two_virtual_chips(upstream, tmp_path):
    done = vchip_upstream.run_multitests(["multi_wlan/01_ap_sta.py"], str(tmp_path),
                                         "ws%d" % os.getpid())
    said = "multi_wlan/01_ap_sta.py on chip.sh|chip.sh: pass"
    assert said in done.stdout.splitlines() and done.returncode == 0, done.stdout + done.stderr
