# `cran vchip`: any program on the virtual ESP32 hardware, as the unix port takes it; two
# on one virtual field's air hear each other only as two ESP32s would.
import os
import subprocess
import sys

import pytest

from conftest import REPO, run_cran
from host_tools.field import fieldnet
from host_tools.virtual.micropython import VHW_DIR
from host_tools.virtual.runtimes import find_micropython, find_micropython32


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


# ---- the ESP32's twin: its interpreter, its heap, its modules ------------------------------

needs_32bit = pytest.mark.skipif(
    find_micropython32() is None,
    reason="no 32-bit MicroPython (../shared/tools/micropython32): the vchip runs the "
           "64-bit one, whose objects and ticks are not an ESP32's")


@needs_32bit
def test_the_chip_is_32_bit_with_an_esp32s_heap_and_ticks():
    done = _vchip("-c", "import sys, gc, time\n"
                  "print(sys.maxsize, time.ticks_add(2**30 - 1, 1), gc.mem_free())")
    maxsize, wrapped, free = done.stdout.split()
    assert (maxsize, wrapped) == (str(2**31 - 1), "0"), done.stderr
    # 111,936 bytes less the GC's tables and what a chip holds after boot; in one piece.
    assert 104000 < int(free) < 111936
    assert _vchip("-c", "x = bytearray(100000)").returncode == 0
    done = _vchip("-X", "heapsize=64k", "-c", "import gc\nprint(gc.mem_free())\n"
                  "x = bytearray(70000)")
    assert 58000 < int(done.stdout) < 65536
    assert done.returncode == 1 and "MemoryError" in done.stderr
    # Other -X options go to the interpreter as they are (run-tests.py gives emit=).
    assert _vchip("-X", "emit=bytecode", "-c", "print(7)").stdout == "7\n"


def test_without_a_32_bit_micropython_the_64_bit_one_runs_as_one(monkeypatch):
    from host_tools.commands import vchip
    monkeypatch.setattr(vchip, "find_micropython32", lambda: None)
    ran = []
    monkeypatch.setattr(os, "execve", lambda exe, argv, env: ran.append(argv))
    from host_tools.cli import main
    main(["vchip", "-X", "heapsize=112k", "-c", "pass"])
    argv = ran[0]
    assert argv[0] == find_micropython()
    # The program's 112 KB, and the parts' room beside it.
    assert argv[1:3] == ["-X", "heapsize=%d" % (112 * 1024 + (640 << 10))]
    assert "%d/%d" % (112 * 1024, 112 * 1024 + (640 << 10)) in argv
    # Said in --help, and its ticks wrap as a chip's all the same.
    assert "64-bit" in vchip._DESCRIPTION
    done = subprocess.run([find_micropython(), "-X", "heapsize=%d" % (112 * 1024 + (640 << 10)),
                           *argv[3:-1], "code"], capture_output=True, text=True, cwd=REPO,
                          env=dict(os.environ, CRAN_VCHIP_CODE="import time, gc\n"
                                   "print(time.ticks_add(2**30 - 1, 1), gc.mem_free())"))
    wrapped, free = done.stdout.split()
    assert wrapped == "0" and 100000 < int(free) < 112 * 1024, done.stderr


def test_the_program_is_main_and_the_chip_says_it_is_an_esp32():
    done = _vchip("-c", """import sys, os, vfs, select
class Case:
    pass
import __main__
print(__name__, __main__.Case is Case)
print(sys.platform, sys.implementation._machine, sys.implementation._build)
print(os.uname().sysname, hasattr(os, 'getenv'), hasattr(os, 'system'))
print(sorted(n for n in dir(vfs) if not n.startswith('_')))
try:
    select.poll().register(0)
except OSError as e:
    print(e)
import micropython
micropython.alloc_emergency_exception_buf(100)
sys.path = ['x']
print(sys.path)
""")
    assert done.stdout.splitlines() == [
        "__main__ True", "esp32 Generic ESP32 module with ESP32 ESP32_GENERIC",
        "esp32 False False", "['VfsFat', 'VfsLfs2', 'mount', 'umount']",
        "stream operation not supported", "['x']"], done.stderr


def test_a_program_that_empties_sys_modules_finds_the_same_parts_again():
    done = _vchip("-c", """import sys, machine, esp32, os
pin = machine.Pin(4, machine.Pin.OUT, value=1)
sys.modules.clear()
import machine as again, esp32 as again32, os as os_again
print(again.Pin(4) is pin, again.Pin(4).value(), again32.NVS is esp32.NVS)
print(os_again.uname().sysname)
""")
    assert done.stdout == "True 1 True\nesp32\n", done.stderr


def test_an_uncaught_exception_is_the_programs_traceback_alone():
    done = _vchip("-c", "def f():\n    raise ValueError('boom')\nf()\n")
    assert done.returncode == 1
    assert done.stderr == ('Traceback (most recent call last):\n  File "<stdin>", line 3, '
                           'in <module>\n  File "<stdin>", line 2, in f\nValueError: boom\n')


def test_pins_are_checked_as_machine_pin_c_checks_them():
    done = _vchip("-c", """from machine import Pin
for args in ((20,), (24,), (28,), (-1,), (40,), ('X',), (34, Pin.OUT), (36, Pin.OPEN_DRAIN),
             (34, Pin.IN)):
    try:
        print(Pin(*args))
    except ValueError as e:
        print(e)
p = Pin(4, Pin.OUT)
print(Pin(4) is p, Pin(p) is p)
try:
    p.irq(lambda p: None, hard=True)
except TypeError as e:
    print(e)
seen = []
irq = p.irq(lambda pin: seen.append(pin.value()), Pin.IRQ_RISING)
print(irq, type(irq).__name__, irq.trigger(), p.irq() is irq)
p(1); p(0); p(1)
import time
time.sleep_ms(2)
print(seen)
p.irq(None)
print(irq.trigger())
""")
    assert done.stdout.splitlines() == [
        "Pin(20)", "invalid pin", "invalid pin", "invalid pin", "invalid pin", "invalid pin",
        "pin can only be input", "pin can only be input", "Pin(34)", "True True",
        "extra keyword arguments given", "<IRQ> IRQ 1 True", "[1, 1]", "0"], done.stderr
    # The C3's GPIOs (ESP32_GENERIC_C3: 18-19 are its USB).
    done = _vchip("--board", "esp32c3-supermini", "-c", """from machine import Pin
for n in (21, 18, 22, 13):
    try:
        print(Pin(n, Pin.OUT))
    except ValueError as e:
        print(e)""")
    assert done.stdout.splitlines() == ["Pin(21)", "invalid pin", "invalid pin", "Pin(13)"]


def test_timers_fire_on_time_once_or_periodically_until_deinit():
    done = _vchip("-c", """from machine import Timer, disable_irq, enable_irq
import time
ticks = []
t = Timer(1, mode=Timer.PERIODIC, period=20, callback=lambda t: ticks.append(1))
print(Timer(1) is t, t)
time.sleep_ms(205)
t.deinit()
n = len(ticks)
time.sleep_ms(60)
print(9 <= n <= 14, len(ticks) == n)   # (a busy host sleeps late, never early)
try:
    t.value()
except ValueError as e:
    print(e)
once = []
Timer(0, mode=Timer.ONE_SHOT, period=5, callback=once.append)
time.sleep_ms(40)
print(len(once))
for bad in (lambda: Timer(4), lambda: Timer(-1), lambda: Timer(2, period=1, hard=True)):
    try:
        bad()
    except ValueError as e:
        print(e)
late = []
state = disable_irq()
Timer(3, mode=Timer.ONE_SHOT, period=1, callback=late.append)
time.sleep_ms(20)
print(len(late))
enable_irq(state)
time.sleep_ms(5)
print(len(late), state)
""")
    assert done.stdout.splitlines() == [
        "True Timer(1, mode=PERIODIC, period=20)", "True True", "timer not set", "1",
        "invalid Timer number", "invalid Timer number", "hard Timers are not implemented",
        "0", "1 0"], done.stderr


def test_a_uart_is_checked_as_the_ports_and_bytes_take_their_time_on_the_wire():
    done = _vchip("-c", """from machine import UART
import time
for bad in (lambda: UART(0), lambda: UART(3), lambda: UART(1, 9600, bits=9),
            lambda: UART(1, stop=3), lambda: UART(1, tx=34), lambda: UART(1, invert=1),
            lambda: UART(1, rxbuf=64)):
    try:
        bad()
    except (OSError, ValueError) as e:
        print(repr(e))
u = UART(2, 9600)
print(u)
u = UART(1, 9600, tx=4, rx=4)   # one pin both ways: its own bytes come back
heard = []
u.irq(lambda u: heard.append(u.irq().flags()), UART.IRQ_RX)
t0 = time.ticks_us()
print(u.write(b'0123456789'), u.txdone())
u.flush()
took = time.ticks_diff(time.ticks_us(), t0)
print(10000 <= took < 40000, u.txdone())   # 10 bytes of 10 bits at 9600 baud
time.sleep_ms(2)
print(u.any(), u.read(4), u.read(), u.read(), heard)
""")
    assert done.stdout.splitlines() == [
        "OSError(-259, 'ESP_ERR_INVALID_STATE')", "ValueError('UART(3) does not exist',)",
        "ValueError('invalid data bits',)", "ValueError('invalid stop bits',)",
        "OSError(1, 'ESP_FAIL')", "ValueError('invalid inversion mask',)",
        "OSError(-258, 'ESP_ERR_INVALID_ARG')",
        "UART(2, baudrate=9600, bits=8, parity=None, stop=1, tx=17, rx=16, rts=-1, cts=-1, "
        "txbuf=256, rxbuf=256, timeout=0, timeout_char=0, irq=0)",
        "10 False", "True True", "10 b'0123' b'456789' None [1]"], done.stderr


def test_memory_reads_as_the_chips_address_map_and_an_unmapped_one_panics():
    done = _vchip("-c", """import machine
print(machine.mem8, machine.mem32[0x3ff44004])
machine.mem32[0x3ffb0000] = 0x12345678
print(hex(machine.mem16[0x3ffb0002]), hex(machine.mem8[0x3ffb0000]))
for bad in (lambda: machine.mem16[1], lambda: machine.mem8['x'], lambda: machine.mem8[0:1]):
    try:
        bad()
    except (TypeError, ValueError) as e:
        print(e)
machine.mem32[0]
""")
    assert done.stdout.splitlines() == [
        "<8-bit memory> 0", "0x1234 0x78", "address 00000001 is not aligned to 2 bytes",
        "can't convert str to int", "can't convert slice to int",
        "Guru Meditation Error: Core  1 panic'ed (LoadProhibited). Exception was "
        "unhandled."], done.stderr
    assert done.returncode == 80 + 2   # a panic's reset: HARD_RESET


def test_the_flash_is_esp32_generics_partition_table_and_nor_flash():
    done = _vchip("-c", """from esp32 import Partition as P
import esp32
print([p.info()[4] for p in P.find()], [p.info()[4] for p in P.find(P.TYPE_DATA)])
print(P(P.RUNNING).info(), P('vfs'))
vfs = P.find(P.TYPE_DATA, label='vfs')[0]
print(vfs.ioctl(4, 0), vfs.ioctl(5, 0))
b = bytearray(4)
vfs.readblocks(7, b)
print(bytes(b))
vfs.writeblocks(7, b'\\x0f' * 4096)
vfs.writeblocks(7, b'\\xf3\\xf3', 2)   # no erase first: bits only cleared
vfs.readblocks(7, b)
print(bytes(b))
phy = P('phy_init')
for bad in (lambda: phy.readblocks(1, b), lambda: phy.readblocks(-1, b),
            lambda: phy.writeblocks(0, b'x'), lambda: P.find(P.TYPE_DATA)[0].set_boot(),
            lambda: P(P.RUNNING).get_next_update(), lambda: P(P.BOOT), lambda: P('nope')):
    try:
        bad()
    except OSError as e:
        print(e)
try:
    P(7)
except ValueError as e:
    print(repr(e))
regions = esp32.idf_heap_info(esp32.HEAP_DATA)
print(len(regions) >= 3, all(r[1] <= r[0] and r[2] <= r[0] for r in regions),
      esp32.idf_heap_info(-1))
""")
    assert done.stdout.splitlines() == [
        "['factory'] ['nvs', 'phy_init', 'vfs']",
        "(0, 0, 65536, 2031616, 'factory', False) <Partition type=1, subtype=129, "
        "address=2097152, size=2097152, label=vfs, encrypted=0>",
        "512 4096", "b'\\xff\\xff\\xff\\xff'", "b'\\x0f\\x0f\\x03\\x03'",
        "(-260, 'ESP_ERR_INVALID_SIZE')", "(-258, 'ESP_ERR_INVALID_ARG')",
        "(-260, 'ESP_ERR_INVALID_SIZE')", "(-5379, 'ESP_ERR_OTA_VALIDATE_FAILED')",
        "[Errno 2] ENOENT", "[Errno 2] ENOENT", "[Errno 2] ENOENT", "ValueError()",
        "True True []"], done.stderr


def test_spi_and_i2s_are_checked_as_the_ports():
    done = _vchip("-c", """from machine import SPI, I2S, Pin
print(SPI(1), SPI(2, baudrate=3000000))
s = SPI(1)
s.deinit()
for bad in (lambda: SPI(3), lambda: s.write(b'x'), lambda: I2S(2, sck=Pin(18), ws=Pin(19),
            sd=Pin(21), mode=I2S.TX, bits=16, format=I2S.MONO, rate=8000, ibuf=2000),
            lambda: I2S(0, sck=Pin(18), ws=Pin(19), sd=Pin(21), mode=I2S.TX, bits=8,
                        format=I2S.MONO, rate=8000, ibuf=2000)):
    try:
        bad()
    except (OSError, ValueError) as e:
        print(e)
import time
i2s = I2S(0, sck=Pin(18), ws=Pin(19), sd=Pin(21), mode=I2S.TX, bits=16, format=I2S.MONO,
          rate=8000, ibuf=1024)
t0 = time.ticks_ms()
i2s.write(bytearray(3200))   # 200 ms of samples; the last 1024 bytes wait in DMA
took = time.ticks_diff(time.ticks_ms(), t0)
print(120 < took < 400)   # 200 ms of samples, the DMA's 1024 bytes (64 ms) left
""")
    assert done.stdout.splitlines() == [
        "SPI(id=1, baudrate=500000, polarity=0, phase=0, bits=8, firstbit=0, sck=14, mosi=13, "
        "miso=12) SPI(id=2, baudrate=2962962, polarity=0, phase=0, bits=8, firstbit=0, "
        "sck=18, mosi=23, miso=19)", "SPI(3) doesn't exist", "transfer on deinitialized SPI",
        "invalid id", "invalid bits", "True"], done.stderr


def test_on_virtual_time_a_timer_is_an_alarm_of_the_clock():
    # The same parts under CPython, as the sims run them: virtual time fires a periodic
    # timer every period, its callback run at once; a UART's bytes come when they are
    # due (5 bytes at 9600 baud: 5.2 ms), not before. vchip_machine imported as the chip's
    # boot imports it: it adds Timer and UART to machine.
    code = """import sys
sys.path[:0] = [%r, %r]
import machine, vchip_machine, vclock
vclock.start()
at = []
machine.Timer(0, period=100, callback=lambda t: at.append(vclock.elapsed_ms()))
vclock.advance(1000)
print(at)
u = machine.UART(1, 9600, tx=4, rx=4)
u.write(b'hello')
print(u.read())
vclock.advance(10)
print(u.read())
machine.reboot()
print(machine.Timer(0))
""" % (VHW_DIR, os.path.join(VHW_DIR, "cpython"))
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.stdout.splitlines() == [
        "[100, 200, 300, 400, 500, 600, 700, 800, 900, 1000]", "None", "b'hello'",
        "Timer(0, mode=ONE_SHOT, period=0)"], done.stderr


def test_a_timer_interrupts_asyncios_wait_as_on_a_chip():
    # asyncio waits in select's poll: the timer's callbacks run on time meanwhile (not all
    # at its end, the scheduler's queue overflowing), and a ThreadSafeFlag it sets wakes
    # the waiting task.
    done = _vchip("-c", """import asyncio, time
from machine import Timer
at = []
t0 = time.ticks_ms()
Timer(0, period=10, callback=lambda t: at.append(time.ticks_diff(time.ticks_ms(), t0)))
flag = asyncio.ThreadSafeFlag()
Timer(1, mode=Timer.ONE_SHOT, period=130, callback=lambda t: flag.set())
async def main():
    await asyncio.sleep_ms(100)
    await flag.wait()
    return time.ticks_diff(time.ticks_ms(), t0)
woke = asyncio.run(main())
print(len([t for t in at if t < 100]) >= 8, 125 <= woke < 200)
""")
    assert done.stdout == "True True\n", done.stdout + done.stderr
