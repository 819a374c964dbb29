# Ports that are not badges, named as such within 5 s and never waited on for ever (a
# deadline on every read and write): a port nobody reads, one read by something silent,
# an ESP32 waiting in its ROM bootloader with no MicroPython (esptool's own chip
# detection answers there); and where --all finds the virtual badges of this computer.
import os
import pty
import struct
import subprocess
import sys
import threading
import time
import tty

import pytest

from conftest import run_cran
from host_tools import cli
from host_tools.device import badgeport, jobs
from host_tools.virtual import registry

ONE_LINE_ERRORS = (("check",), ("status",), ("flash", "--board", "atom-lite"), ("logs",),
                   ("console", "status"))


@pytest.fixture(autouse=True)
def _no_usb_and_a_home_of_its_own(tmp_path, monkeypatch):
    # No USB serial port of this machine's, no vbadge of another test: this test's own.
    from serial.tools import list_ports
    monkeypatch.setattr(list_ports, "comports", lambda: [])
    monkeypatch.setenv("CRAN_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("CRAN_KNOCK_S", raising=False)


class _Pty:
    """A pseudo-terminal whose far end does what a test says: read what comes and say
    nothing (reader="silent"), read nothing at all ("nobody"), or answer as an ESP32's
    ROM bootloader does ("rom": SLIP frames; SYNC answered, GET_SECURITY_INFO refused as
    the ESP32's ROM refuses it, the chip's magic register read as an ESP32's)."""
    ESP32_MAGIC = 0x00F01D83

    def __init__(self, reader):
        self.main, side = pty.openpty()
        tty.setraw(side)
        self.port = os.ttyname(side)
        os.close(side)
        self.running = True
        if reader == "nobody":
            # Its buffer full already: the next byte written waits for a reader that
            # never comes (the knock of a 35 s wait filled it so, then cran hung).
            # (The kernel moves a pty's bytes on a moment after a write: full is when
            # it takes nothing more for a while.)
            fd = os.open(self.port, os.O_RDWR | os.O_NONBLOCK | os.O_NOCTTY)
            refused = 0
            try:
                while refused < 5:
                    try:
                        os.write(fd, b"\n" * 256)
                        refused = 0
                    except BlockingIOError:
                        refused += 1
                        time.sleep(0.05)
            finally:
                os.close(fd)
        else:
            threading.Thread(target=self._serve, args=(reader == "rom",),
                             daemon=True).start()

    def _send(self, op, value, data):
        body = struct.pack("<BBHI", 1, op, len(data), value) + data
        body = body.replace(b"\xdb", b"\xdb\xdd").replace(b"\xc0", b"\xdb\xdc")
        os.write(self.main, b"\xc0" + body + b"\xc0")

    def _serve(self, rom):
        got = b""
        while self.running:
            try:
                got += os.read(self.main, 4096)
            except OSError:   # nobody has the port open (yet, or any more)
                time.sleep(0.01)
                continue
            if not rom:
                got = b""
                continue
            while b"\xc0" in got:
                frame, _, got = got.partition(b"\xc0")
                frame = frame.replace(b"\xdb\xdc", b"\xc0").replace(b"\xdb\xdd", b"\xdb")
                if len(frame) < 8 or frame[0] != 0:
                    continue   # the knock's bytes, or what is between two frames
                op = frame[1]
                if op == 0x08:     # SYNC: its answer and seven more
                    for _ in range(8):
                        self._send(op, 0x20120707, bytes(4))
                elif op == 0x0A:   # READ_REG
                    address = struct.unpack_from("<I", frame, 8)[0]
                    self._send(op, self.ESP32_MAGIC if address == 0x40001000 else 0,
                               bytes(4))
                else:              # what an ESP32's ROM does not know
                    self._send(op, 0, b"\x01\x05\x00\x00")

    def close(self):
        self.running = False
        os.close(self.main)


@pytest.fixture
def port_of(request):
    made = []

    def make(reader):
        made.append(_Pty(reader))
        return made[-1].port
    yield make
    for p in made:
        p.close()


def _named_within_5_s(port, said):
    """Every way cran reaches a port names it, within 5 s each: connect (flash, check,
    logs' config), a console line (status, console, logs' journal)."""
    for reach in (badgeport.connect, badgeport.status):
        started = time.monotonic()
        with pytest.raises(badgeport.NotABadge) as caught:
            reach(port)
        assert time.monotonic() - started < 5, reach
        assert said in str(caught.value), str(caught.value)
    return str(caught.value)


def test_a_port_nobody_reads_is_named_not_a_badge_within_5_s(port_of):
    # `cran check --port` on a pty nobody reads hung for ever (killed after 736 s),
    # blocked on a write after "waking the badge".
    port = port_of("nobody")
    said = _named_within_5_s(port, "%s: nothing reads what is sent there: not a badge"
                             % port)
    assert "cran status --all" in said
    for args in ONE_LINE_ERRORS:
        r = run_cran(*args, "--port", port)
        assert r.returncode == 1 and r.stderr == "cran: %s\n" % said, (args, r.stderr)


def test_a_silent_port_is_nothing_that_speaks_like_an_esp32(port_of):
    # Read, but not a badge: 40.7 s, then "A new badge needs MicroPython first" (wrong:
    # no ESP32 is there at all). Now within 5 s, and what it is.
    port = port_of("silent")
    said = _named_within_5_s(port, "%s: nothing that speaks like an ESP32 answers there"
                             % port)
    assert "micropython" not in said.lower().replace("no micropython", "")
    r = run_cran("check", "--port", port)
    assert r.returncode == 1 and r.stderr == "cran: %s\n" % said, r.stderr


def test_an_esp32_without_micropython_is_told_by_esptool_s_chip_detection(port_of):
    port = port_of("rom")
    said = _named_within_5_s(port, "%s: an ESP32 (esptool's chip detection answers), but "
                             "no MicroPython" % port)
    assert ("a new board needs it first, cran flash --micropython IMAGE.bin --port %s "
            "--board BOARD" % port) in said
    assert badgeport.detect_chip(port, usb=False) == "ESP32"


def test_where_a_badge_may_sleep_the_knock_waits_for_it(port_of, monkeypatch):
    # A USB port, or a vbadge of this computer: a badge asleep hears nothing for up to
    # 30 s, so the knock waits (KNOCK_S); elsewhere it is short.
    from serial.tools import list_ports
    from serial.tools.list_ports_common import ListPortInfo
    usb = ListPortInfo("/dev/ttyUSB7")
    usb.vid = 0x10C4
    monkeypatch.setattr(list_ports, "comports", lambda: [usb])
    assert badgeport.knock_for("/dev/ttyUSB7") == badgeport.KNOCK_S
    port = port_of("silent")
    assert badgeport.knock_for(port) == badgeport.SHORT_KNOCK_S <= 2
    registry.register(port)
    assert badgeport.knock_for(port) == badgeport.KNOCK_S


def test_all_finds_the_vbadges_running_here_beside_the_usb_ports(port_of, tmp_path):
    # `--all` never found a virtual badge (exit 2, "no USB serial port found"): a
    # rehearsal needed a --port each. Each running vbadge says where it is.
    assert badgeport.every_port() == []
    with pytest.raises(badgeport.BadgeError) as caught:
        jobs.ports([], every=True)
    assert "no USB serial port found and no cran vbadge running here" in str(caught.value)
    assert cli.main(["status", "--all"]) == 1   # a badge's fault, as a missing port's
    one, two = port_of("silent"), port_of("silent")
    link = tmp_path / "ali"
    link.symlink_to(two)
    registry.register(one)
    # Another process's: its file names its own pid.
    other = subprocess.Popen([sys.executable, "-c", "import sys; from host_tools.virtual "
                              "import registry; registry.register(%r, %r); print(1); "
                              "sys.stdout.flush(); sys.stdin.read()" % (two, str(link))],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             cwd=os.path.dirname(os.path.dirname(os.path.abspath(
                                 __file__))))
    try:
        assert other.stdout.readline().strip() == b"1"
        assert badgeport.every_port() == [one, str(link)]
        assert jobs.ports([two], every=True) == [two, one]   # one badge, one job
    finally:
        other.stdin.close()
        other.wait(10)
    assert badgeport.every_port() == [one]   # it ended: no longer found, file removed
    assert len(os.listdir(os.path.join(os.environ["CRAN_HOME"], registry.FOLDER))) == 1
