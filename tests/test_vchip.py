# `cran vchip`: any program on the virtual ESP32 hardware, as the unix port takes it; two
# on one virtual field's air hear each other only as two ESP32s would.
import os
import subprocess
import sys

import pytest

from conftest import REPO, run_cran
from host_tools.field import fieldnet


@pytest.fixture(autouse=True)
def _needs_micropython(micropython):
    pass


def _vchip(*args, stdin=None):
    return run_cran("vchip", *args, stdin=stdin)


def test_a_program_runs_as_a_file_as_code_or_from_stdin(tmp_path):
    program = tmp_path / "p.py"
    program.write_text("import sys, os, esp32\nprint(sys.argv[1:], os.uname().sysname)\n"
                       "n = esp32.NVS('x')\nn.set_i32('k', 7)\nprint(n.get_i32('k'))\n"
                       "raise SystemExit(5)\n")
    done = _vchip(str(program), "one", "two")
    assert (done.stdout, done.returncode) == ("['one', 'two'] esp32\n7\n", 5)
    # What an ESP32's _boot.py leaves in __main__: gc; the code longer than a qstr.
    done = _vchip("-c", "print(gc.mem_free() > 0)  # " + "x" * 300)
    assert done.stdout == "True\n", done.stderr
    assert _vchip(stdin="print(6 * 7)\n").stdout == "42\n"


def test_a_reset_ends_the_program_with_its_cause():
    done = _vchip("-c", "import machine\nprint('before')\nmachine.reset()\nprint('after')")
    assert done.stdout == "before\n" and done.returncode == 80 + 2   # HARD_RESET
    assert "machine.reset(): the chip resets" in done.stderr


def test_a_board_it_cannot_be_is_refused():
    done = _vchip("--board", "atoms3-lite", "-c", "pass")
    assert done.returncode == 2 and "runs CircuitPython" in done.stderr
    done = _vchip("--board", "nope", "-c", "pass")
    assert "unknown board 'nope' (known: atom-lite, atom-matrix, " in done.stderr
    assert _vchip("--at", "1,1", "-c", "pass").returncode == 2


_LISTEN = """import network, espnow
sta = network.WLAN(network.WLAN.IF_STA)
sta.active(True)
sta.config(channel=%d)
sta.config(protocol=%s)
e = espnow.ESPNow()
e.active(True)
e.set_pmk(b'P' * 16)
print(sta.config('mac').hex())
while True:
    peer, msg = e.recv(20000)
    if msg in (None, b'end'):
        break
    print(msg)
"""

_SEND = """import network, espnow
sta = network.WLAN(network.WLAN.IF_STA)
sta.active(True)
sta.config(channel=%d)
sta.config(protocol=network.WLAN.PROTOCOL_DEFAULT | network.WLAN.PROTOCOL_LR)
e = espnow.ESPNow()
e.active(True)
e.set_pmk(b'P' * 16)
peer = bytes.fromhex('%s')
e.add_peer(peer, %s)
%s
print(e.send(peer, b'hello'))
# Then, as the listener hears it whatever the test: the end, after what came before.
sta.config(channel=%d)
e.config(rate=espnow.RATE_1M)
e.del_peer(peer)
e.add_peer(peer)
e.send(peer, b'end')
"""


def _pair(name, listen_channel=3, send_channel=3, listen_protocol="network.WLAN."
          "PROTOCOL_DEFAULT", send_lmk=None, rate=None):
    """A listener and a sender on the air `name` -> (what the listener heard, what the
    sender's send() said). The sender ends with a frame the listener hears in any case
    (its channel, the default rate, no key), after which the listener stops."""
    listener = subprocess.Popen(
        [sys.executable, "-m", "host_tools", "vchip", "--field", name, "-c",
         _LISTEN % (listen_channel, listen_protocol)],
        cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        mac = listener.stdout.readline().strip()
        assert mac, listener.stderr.read()
        sent = _vchip("--field", name, "-c", _SEND % (
            send_channel, mac, "lmk=%r" % send_lmk if send_lmk else "",
            "e.config(rate=espnow.%s)" % rate if rate else "", listen_channel))
        heard = listener.communicate(timeout=30)[0]
    finally:
        listener.kill()
    return heard, sent.stdout.strip() + sent.stderr.strip()


@pytest.fixture
def air():
    name = "vc%d" % os.getpid()
    hub = fieldnet.Hub(name)
    yield name
    hub.close()


def test_a_unicast_frame_is_heard_and_acknowledged_on_the_same_channel_only(air):
    assert _pair(air) == ("b'hello'\n", "True")
    # Another channel: nobody hears it, nobody acknowledges it.
    assert _pair(air, listen_channel=3, send_channel=8) == ("", "False")


def test_an_lr_frame_is_heard_only_by_a_radio_with_lr(air):
    assert _pair(air, rate="RATE_LORA_250K") == ("", "False")
    lr = "network.WLAN.PROTOCOL_DEFAULT | network.WLAN.PROTOCOL_LR"
    assert _pair(air, rate="RATE_LORA_250K", listen_protocol=lr) == ("b'hello'\n", "True")


def test_an_encrypted_frame_is_not_heard_without_its_key(air):
    # Acknowledged by the listener's radio, but its ESP-NOW can't read it: no peer with
    # that LMK there.
    assert _pair(air, send_lmk=b"0123456789abcdef") == ("", "True")


def test_the_chip_refuses_what_the_esp_idf_refuses():
    code = """import network, espnow
sta = network.WLAN(network.WLAN.IF_STA)
e = espnow.ESPNow()
for f in (lambda: e.add_peer(b'\\x24\\x0a\\xc4\\x00\\x00\\x01'), lambda: sta.config(channel=3)):
    try:
        f()
    except OSError as x:
        print(x.args)
e.active(True)
sta.active(True)
peer = b'\\x24\\x0a\\xc4\\x00\\x00\\x01'
e.add_peer(peer, channel=5)
for f in (lambda: e.send(peer, b'x'), lambda: e.send(peer, b''), lambda: e.send(peer, bytes(251)),
          lambda: e.add_peer(peer), lambda: e.add_peer(b'\\xff' * 6, b'k' * 16),
          lambda: e.del_peer(b'\\x24\\x0a\\xc4\\x00\\x00\\x02')):
    try:
        f()
    except OSError as x:
        print(x.args[1])
try:
    e.set_pmk(b'short')
except ValueError as x:
    print(x)
ap = network.WLAN(network.WLAN.IF_AP).config('mac')
print(sta.config('mac')[:3].hex(), (ap[5] - sta.config('mac')[5]) & 0xFF)
"""
    done = _vchip("-c", code)
    assert done.stdout.splitlines() == [
        "(-12389, 'ESP_ERR_ESPNOW_NOT_INIT')", "('Wifi Not Started',)",
        "ESP_ERR_ESPNOW_CHAN", "ESP_ERR_ESPNOW_ARG", "ESP_ERR_ESPNOW_ARG",
        "ESP_ERR_ESPNOW_EXIST", "ESP_ERR_ESPNOW_ARG", "ESP_ERR_ESPNOW_NOT_FOUND",
        "invalid buffer length", "240ac4 1"], done.stderr


def test_a_chip_whose_program_ended_is_off_the_air(air):
    # Its program over, the chip is off: nothing acknowledges a frame for it any more.
    gone = _vchip("--field", air, "-c", "import network, espnow\n"
                  "network.WLAN(network.WLAN.IF_STA).active(True)\n"
                  "espnow.ESPNow().active(True)\n"
                  "print(network.WLAN(network.WLAN.IF_STA).config('mac').hex())")
    mac = gone.stdout.strip()
    sent = _vchip("--field", air, "-c", "import network, espnow\n"
                  "network.WLAN(network.WLAN.IF_STA).active(True)\n"
                  "e = espnow.ESPNow()\ne.active(True)\n"
                  "e.add_peer(bytes.fromhex('%s'))\nprint(e.send(bytes.fromhex('%s'), b'x'))"
                  % (mac, mac))
    assert sent.stdout == "False\n", sent.stdout + sent.stderr
