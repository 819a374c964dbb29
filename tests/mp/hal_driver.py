# The drivers (cran.hal) on the virtual hardware (host_tools/virtual/micropython), run the same way
# by the MicroPython unix port and by CPython:
#   <python> hal_driver.py FIRMWARE_DIR VHW_DIR EXTRA_DIR
# Prints one JSON line per check: {"id", "result"} or {"id", "crash"}; the assertions are
# in tests/test_hal.py, so both runtimes are held to the same expectations.
import sys

if __name__ == "__main__":
    # Shadows machine/neopixel/time(/select) on MicroPython; on CPython adds micropython
    # and framebuf, and gives the built-in `time` MicroPython's ticks on the virtual clock.
    sys.path[:0] = [sys.argv[2], sys.argv[3], sys.argv[1]]

import machine  # noqa: E402
import neopixel  # noqa: E402
import vclock  # noqa: E402

MICROPYTHON = sys.implementation.name == "micropython"
if not MICROPYTHON:
    vclock.patch_cpython_time()

import time  # noqa: E402

from checks import check, run_checks  # noqa: E402

from cran.hal import panel  # noqa: E402
from cran.hal.buttons import Button  # noqa: E402
from cran.hal.buzzer import Buzzer  # noqa: E402
from cran.hal.display import Screen  # noqa: E402
from cran.hal.leds import Leds  # noqa: E402
from cran.hal.ssd1306 import SSD1306_I2C  # noqa: E402
from cran.hal.st7789 import ST7789  # noqa: E402

WRAP = 1 << 30


def fresh(start_tick):
    vclock.start(start_tick)
    machine.reset_all()


@check
def leds():
    fresh(0)
    np = neopixel.NeoPixel(machine.Pin(27), 3)
    leds = Leds(np, 60)
    out = {"wrote": []}
    out["wrote"].append(leds.show([(255, 0, 0), (255, 128, 0), (10, 20, 30)]))
    out["capped"] = np.last
    out["wrote"].append(leds.show([(255, 0, 0), (255, 128, 0), (10, 20, 30)]))
    out["wrote"].append(leds.show([(250, 0, 0), (255, 128, 0), (10, 20, 30)]))  # caps alike
    out["wrote"].append(leds.show([(0, 0, 200)]))   # short frame: the rest go off
    out["short"] = np.last
    out["wrote"].append(leds.off())
    out["wrote"].append(leds.off())
    out["writes"] = np.writes
    out["off"] = np.last
    return out


def _play_loop(buzzer, melody):
    """The app's loop: sleep exactly what update() says, on the virtual clock."""
    waits = []
    wait = buzzer.play(melody, time.ticks_ms())
    while wait is not None:
        waits.append(wait)
        vclock.advance(wait)
        wait = buzzer.update(time.ticks_ms())
    return waits


@check
def buzzer():
    fresh(WRAP - 300)
    pwm = machine.PWM(machine.Pin(25))
    bz = Buzzer(pwm)
    start = len(pwm.timeline)
    before = vclock.elapsed_ms()
    first = bz.play([(440, 200), (0, 100), (880, 250)], time.ticks_ms())
    out = {"play_took_ms": vclock.elapsed_ms() - before, "first_wait": first}
    bz.stop()
    start = len(pwm.timeline)
    out["waits"] = _play_loop(bz, [(440, 200), (0, 100), (880, 250)])
    out["timeline"] = pwm.timeline[start:]
    # A late update skips what is past; a new melody replaces the current one.
    mark = len(pwm.timeline)
    bz.play([(440, 200), (660, 100), (880, 250)], time.ticks_ms())
    vclock.advance(320)
    out["late_wait"] = bz.update(time.ticks_ms())
    out["replace_wait"] = bz.play([(1000, 50)], time.ticks_ms())
    vclock.advance(50)
    out["after_end"] = bz.update(time.ticks_ms())
    out["late_timeline"] = [(vclock.ticks_diff(t, pwm.timeline[mark][0]), f, d)
                            for t, f, d in pwm.timeline[mark:]]
    out["playing"] = bz.playing()
    bz.set_volume(25)
    bz.play([(500, 10)], time.ticks_ms())
    out["quiet_duty"] = pwm.duty_u16()
    return out


class Rig:
    """A button on a pin and the app's loop around it: poll when next_timeout_ms says."""

    def __init__(self, pin_id, active_low=True, pull=machine.Pin.PULL_UP):
        self.pin_id = pin_id
        self.events = []
        self.t0 = time.ticks_ms()
        pin = machine.Pin(pin_id, machine.Pin.IN, pull)
        self.button = Button(pin, "a", active_low, self._on)

    def _on(self, name, kind, tick):
        self.events.append([kind, vclock.ticks_diff(tick, self.t0), tick])

    def until(self, offset_ms):
        target = vclock.ticks_add(self.t0, offset_ms)
        while True:
            now = time.ticks_ms()
            wait = self.button.next_timeout_ms(now)
            left = vclock.ticks_diff(target, now)
            if wait is None or wait > left:
                vclock.advance(left)
                return
            vclock.advance(wait)
            self.button.poll(time.ticks_ms())

    def run(self, steps, level_pressed=0):
        """steps: [(offset_ms, pressed)]; then 3 s of quiet."""
        for offset, pressed in steps:
            self.until(offset)
            machine.drive(self.pin_id, level_pressed if pressed else 1 - level_pressed)
        self.until(steps[-1][0] + 3000)
        return [e[:2] for e in self.events]


@check
def buttons():
    out = {}
    fresh(WRAP - 10000)
    out["short"] = Rig(32).run([(0, 1), (100, 0)])
    out["long"] = Rig(33).run([(0, 1), (1200, 0)])
    out["double"] = Rig(34).run([(0, 1), (100, 0), (250, 1), (350, 0)])
    out["slow_double_is_two_shorts"] = Rig(35).run([(0, 1), (100, 0), (500, 1), (600, 0)])
    out["bounce"] = Rig(36).run([(0, 1), (5, 0), (10, 1), (15, 0), (20, 1), (200, 0),
                                 (205, 1), (210, 0)])
    out["tap_inside_debounce"] = Rig(37).run([(0, 1), (30, 0)])
    # Pulses shorter than min_press_ms: noise, not fingers, even between two clicks.
    out["glitches"] = Rig(25).run([(0, 1), (1, 0), (500, 1), (510, 0)])
    out["glitch_after_click"] = Rig(26).run([(0, 1), (100, 0), (200, 1), (205, 0)])
    out["double_still_double"] = Rig(27).run([(0, 1), (100, 0), (250, 1), (253, 0),
                                               (256, 1), (350, 0)])
    out["active_high"] = Rig(38, False, machine.Pin.PULL_DOWN).run([(0, 1), (100, 0)], 1)

    # Held across the wrap: pressed 300 ms before it, long 500 ms after.
    fresh(WRAP - 1000)
    rig = Rig(32)
    rig.run([(700, 1), (2000, 0)])
    out["across_wrap"] = rig.events

    # The pin is read: noise IRQs on a released pin are nothing; a floating input is an
    # error, not a made-up level; a button held at boot is no press.
    fresh(0)
    rig = Rig(32)
    for _ in range(3):
        machine.spurious_irq(32)
    rig.until(1000)
    out["spurious"] = rig.events
    try:
        Button(machine.Pin(39, machine.Pin.IN), "b", True, rig._on)
        out["floating"] = "no error"
    except machine.FloatingPin as e:
        out["floating"] = str(e)
    machine.set_board_pull(39, 1)   # the board's own resistor, as on the Atom's G39
    machine.drive(33, 0)
    rig = Rig(33)
    out["held_at_boot"] = rig.run([(500, 0), (1000, 1), (1100, 0)])

    # The IRQ handler allocates nothing (MicroPython raises MemoryError if it tries; the
    # CPython shim's heap_lock does nothing) and its scheduled work runs by itself.
    # Marked as already scheduled: MicroPython would run the scheduled work (which may
    # allocate: it is ordinary code) inside the locked section; schedule() itself doesn't.
    fresh(0)
    rig = Rig(32)
    import micropython
    rig.button._scheduled = True
    micropython.heap_lock()
    try:
        rig.button._irq(rig.button.pin)
        out["irq_allocates"] = False
    except MemoryError:
        out["irq_allocates"] = True
    finally:
        micropython.heap_unlock()
    rig.button._scheduled = False
    rig.button.poll(time.ticks_ms())
    machine.drive(32, 0)
    for _ in range(3):   # MicroPython runs scheduled work between bytecodes
        pass
    out["pressed_without_poll"] = rig.button.pressed

    fresh(0)
    b = Rig(32).button
    out["timeouts"] = [b.next_timeout_ms(time.ticks_ms())]
    machine.drive(32, 0)
    out["timeouts"].append(b.poll(time.ticks_ms()))
    vclock.advance(50)
    out["timeouts"].append(b.poll(time.ticks_ms()))
    return out


@check
def watchdog():
    fresh(WRAP - 500)
    out = {}
    wdt = machine.WDT(timeout=1000)
    for _ in range(10):
        time.sleep_ms(900)
        wdt.feed()
    out["fed_ms"] = vclock.elapsed_ms()
    try:
        time.sleep_ms(5000)
        out["starved"] = "no reset"
    except machine.VirtualReset as e:
        out["starved"] = [e.cause, vclock.elapsed_ms()]
    out["cause"] = machine.reset_cause()
    out["is_exception"] = isinstance(machine.VirtualReset(3, ""), Exception)
    return out


@check
def sleeps():
    fresh(WRAP - 1500)
    out = {"start": time.ticks_ms()}
    for _ in range(3):
        machine.lightsleep(1000)
    out["after"] = time.ticks_ms()
    out["wakeups"] = machine.wakeups
    out["slept_ms"] = machine.lightsleep_ms
    try:
        machine.deepsleep(5000)
        out["deep"] = "returned"
    except machine.VirtualReset as e:
        out["deep"] = [e.cause, machine.reset_cause(), vclock.elapsed_ms()]
    try:
        machine.reset()
    except machine.VirtualReset as e:
        out["reset"] = e.cause
    return out


def _picture(dev, x0, y0, w, h):
    return ["".join(["#" if dev.pixel(x, y) else "." for x in range(x0, x0 + w)])
            for y in range(y0, y0 + h)]


# SSD1306 commands followed by argument bytes (each byte a write of its own: 0x80, byte).
_SSD1306_ARGS = {0x20: 1, 0x21: 2, 0x22: 2, 0x81: 1, 0x8D: 1, 0xA8: 1, 0xAD: 1, 0xD3: 1,
                 0xD5: 1, 0xD9: 1, 0xDA: 1, 0xDB: 1}


class _Gddram:
    """An SSD1306's display RAM as the I2C writes leave it (horizontal addressing): the
    column and page window of 0x21 and 0x22, then data (0x40, bytes) from the window's
    start, column after column, page after page, the pointer running on across writes."""

    def __init__(self, writes, width=128, pages=8):
        self.width = width
        self.ram = bytearray(width * pages)
        window = [0, width - 1, 0, pages - 1]
        col = page = 0
        command = []
        for _, data in writes:
            if data[0] == 0x80:
                command.append(data[1])
                if len(command) > _SSD1306_ARGS.get(command[0], 0):
                    if command[0] == 0x21:
                        window[0:2] = command[1:]
                        col = window[0]
                    elif command[0] == 0x22:
                        window[2:4] = command[1:]
                        page = window[2]
                    command = []
                continue
            for byte in data[1:]:
                self.ram[page * width + col] = byte
                col += 1
                if col > window[1]:
                    col = window[0]
                    page = window[2] if page >= window[3] else page + 1

    def pixel(self, x, y):
        return self.ram[(y // 8) * self.width + x] >> (y % 8) & 1


@check
def ssd1306():
    fresh(0)
    out = {}
    i2c = machine.I2C(0, scl=machine.Pin(22), sda=machine.Pin(21))
    try:
        SSD1306_I2C(128, 64, i2c).init_display()
    except OSError as e:
        out["absent"] = e.args[0]
    machine.attach_i2c(22, 21, 60)
    out["scan"] = i2c.scan()
    SSD1306_I2C(128, 64, i2c).init_display()
    out["init_cmds"] = [w[1][1] for w in i2c.writes if w[1][0] == 0x80][:4]
    screen = Screen("ssd1306", (i2c, 0x3C), 128, 64)
    writes = len(i2c.writes)
    out["shown"] = [screen.show_lines(["Blessé", "é" * 20, "x"])]
    out["shown"].append(screen.show_lines(["Blessé", "é" * 20, "x"]))
    out["writes_for_two_shows"] = len(i2c.writes) - writes
    ram = _Gddram(i2c.writes)   # what the panel shows: the writes read back
    out["B"] = _picture(ram, 0, 0, 8, 8)
    out["e_on_line_2"] = _picture(ram, 0, 10, 8, 8)   # rows 10-17: across pages 1 and 2
    out["gap_between_lines"] = _picture(ram, 0, 8, 128, 2)
    out["x_on_line_3"] = _picture(ram, 0, 20, 8, 8)
    out["empty_below"] = _picture(ram, 0, 28, 128, 36) == ["." * 128] * 36
    out["columns"] = screen.columns
    out["to"] = sorted(set(w[0] for w in i2c.writes))
    out["band_bytes"] = len(panel.driver(screen)._page)
    screen.show_lines(["x"])   # fewer lines: those below are cleared
    out["after_fewer_lines"] = _picture(_Gddram(i2c.writes), 0, 10, 8, 8)
    return out


@check
def st7789():
    fresh(0)
    out = {}
    spi = machine.SPI(1, baudrate=20000000, sck=machine.Pin(13), mosi=machine.Pin(15),
                      dc_pin_id=23)
    before = vclock.elapsed_ms()
    dc, cs = machine.Pin(23), machine.Pin(5)
    ST7789(spi, 135, 240, dc, cs).init(machine.Pin(18))
    out["init_ms"] = vclock.elapsed_ms() - before
    out["commands"] = [w[1][0] for w in spi.writes if w[0] == 0][:7]
    Screen("st7789", (spi, dc, cs), 135, 240).show_lines(["B"])
    start = [i for i, w in enumerate(spi.writes) if w == (0, b"\x2a")][-1]
    out["caset"] = list(spi.writes[start + 1][1])
    out["raset"] = list(spi.writes[start + 3][1])
    band = spi.writes[start + 5][1]
    out["band_bytes"] = len(band)
    # Row 0 of "B": .#####.. -> pixels 1-5 white (0xFFFF), 0 and 6 black.
    out["row0"] = [band[2 * x:2 * x + 2] == b"\xff\xff" for x in range(8)]
    out["bands"] = len([w for w in spi.writes[start:] if w == (0, b"\x2c")])
    return out


@check
def time_is_virtual():
    fresh(WRAP - 5)
    out = [time.ticks_ms(), vclock.ticks_ms()]
    time.sleep_ms(10)
    out.append(time.ticks_ms())
    out.append(time.ticks_diff(time.ticks_ms(), WRAP - 5))
    out.append(time.ticks_add(WRAP - 1, 1))
    return out


if MICROPYTHON:
    @check
    def asyncio_on_virtual_time():
        # MicroPython's own asyncio, on the shimmed time and select: a 5-minute game with
        # a watchdog fed every second, then a task that forgets to feed it.
        import asyncio
        ticks = []

        async def feeder(n):
            for _ in range(n):
                await asyncio.sleep_ms(1000)
                wdt.feed()

        async def tick():
            for _ in range(5):
                await asyncio.sleep(60)
                ticks.append(time.ticks_ms())

        async def main():
            await asyncio.gather(feeder(300), tick())

        async def timeout_and_event():
            # wait_for cancels a sleeping task; an Event wakes a waiter; both across the
            # wrap (the clock is 31 s before it when this starts).
            event = asyncio.Event()
            seen = []

            async def waiter():
                await event.wait()
                seen.append(time.ticks_ms())

            async def setter():
                await asyncio.sleep_ms(30000)
                wdt.feed()
                await asyncio.sleep_ms(2000)
                event.set()

            task = asyncio.create_task(waiter())
            await asyncio.gather(setter(), feed_until(task))
            try:
                await asyncio.wait_for(nap(10), 1)
                seen.append("no timeout")
            except asyncio.TimeoutError:
                seen.append(time.ticks_ms())
            return seen

        async def nap(s):
            await asyncio.sleep(s)

        async def feed_until(task):
            while not task.done():
                await asyncio.sleep_ms(500)
                wdt.feed()

        # The built-in clock under its other name: real time, to show none passes.
        import utime
        fresh(WRAP - 31000)
        wdt = machine.WDT(timeout=3000)
        first = asyncio.run(timeout_and_event())
        fresh(WRAP - 60000)
        wdt = machine.WDT(timeout=3000)
        wall = utime.ticks_ms()
        asyncio.run(main())
        out = {"event_then_timeout": first, "ticks": ticks, "elapsed": vclock.elapsed_ms(),
               "wall_ms": utime.ticks_diff(utime.ticks_ms(), wall)}
        try:
            asyncio.run(nap(10))   # nobody feeds the watchdog any more
            out["starved"] = "no reset"
        except machine.VirtualReset as e:
            out["starved"] = [e.cause, vclock.elapsed_ms()]
        asyncio.new_event_loop()
        return out



def _nvs_error(do, *args):
    try:
        do(*args)
    except OSError as e:
        return [e.args[0], e.args[1] if len(e.args) > 1 else None]
    except (OverflowError, TypeError) as e:
        return type(e).__name__
    return "ok"


@check
def nvs_api_and_limits():
    import esp32
    fresh(0)
    nvs = esp32.NVS("cran")
    out = {}
    out["missing"] = [_nvs_error(nvs.get_i32, "seq"), _nvs_error(nvs.erase_key, "seq")]
    nvs.set_i32("seq", -7)
    nvs.set_blob("state", b"hello")
    buf = bytearray(8)
    out["read"] = [nvs.get_i32("seq"), nvs.get_blob("state", buf), list(buf)]
    out["small_buffer"] = _nvs_error(nvs.get_blob, "state", bytearray(4))
    out["wrong_type"] = _nvs_error(nvs.get_i32, "state")
    out["names"] = [_nvs_error(nvs.set_i32, "k" * 15, 1), _nvs_error(nvs.set_i32, "k" * 16, 1),
                    _nvs_error(esp32.NVS, "n" * 16)]
    out["i32"] = [_nvs_error(nvs.set_i32, "big", 1 << 31),
                  _nvs_error(nvs.set_i32, "lo", -(1 << 31))]
    out["blob_max"] = [esp32.NVS_BLOB_MAX,
                       _nvs_error(nvs.set_blob, "b", bytes(esp32.NVS_BLOB_MAX + 1))]
    nvs.commit()
    # The partition fills: "cran" holds 7 entries (its own, 3 i32, a 5-byte blob's 3).
    fill = esp32.NVS("fill")
    n = 0
    while _nvs_error(fill.set_blob, "f%d" % n, bytes(32 * 30)) == "ok":
        n += 1
    out["full"] = [n, _nvs_error(fill.set_i32, "one", 1)]
    fill.erase_key("f0")
    out["room_again"] = _nvs_error(fill.set_i32, "one", 1)
    return out


@check
def nvs_commit_and_power():
    import esp32
    fresh(0)
    out = {}
    a = esp32.NVS("cran")
    a.set_i32("x", 1)
    a.commit()
    a.set_i32("x", 2)
    a.set_blob("y", b"new")
    out["own_view"] = a.get_i32("x")
    out["other_handle"] = esp32.NVS("cran").get_i32("x")   # not yet committed
    machine.reboot()   # before the commit: lost
    b = esp32.NVS("cran")
    out["after_reboot"] = [b.get_i32("x"), _nvs_error(b.get_blob, "y", bytearray(4))]
    # Three changes, power lost after the first: the first only.
    b.set_blob("y", b"one")
    b.set_i32("x", 3)
    b.erase_key("x")
    esp32.nvs_cut_after(1)
    try:
        b.commit()
        out["cut"] = "no cut"
    except machine.VirtualReset as e:
        out["cut"] = e.cause
    machine.reboot()
    c = esp32.NVS("cran")
    buf = bytearray(4)
    out["after_cut"] = [c.get_i32("x"), buf[:c.get_blob("y", buf)].decode()]
    out["written"] = esp32.nvs_written   # x=1: 1 entry; y: 2 + 1 (x=2 never reached it)
    machine.reset_all()   # a new chip: erased
    out["new_chip"] = _nvs_error(esp32.NVS("cran").get_i32, "x")
    return out


@check
def nvs_in_a_file():
    import io

    import esp32
    fresh(0)
    f = io.BytesIO()
    esp32.nvs_keep_in(f)
    nvs = esp32.NVS("cran")
    nvs.set_i32("seq", 41)
    nvs.set_blob("state", b"\x00\xffrecord")
    nvs.commit()
    nvs.set_i32("seq", 42)
    nvs.commit()
    image = f.getvalue()
    out = {}
    machine.reset_all()
    esp32.nvs_keep_in(io.BytesIO(image))
    buf = bytearray(16)
    again = esp32.NVS("cran")
    out["kept"] = [again.get_i32("seq"), list(buf[:again.get_blob("state", buf)])]
    # The newest slot torn (a process killed while writing it): the change before.
    torn = bytearray(image)
    torn[65536 + 40] ^= 1   # three changes committed: the third snapshot went to slot 1
    machine.reset_all()
    esp32.nvs_keep_in(io.BytesIO(bytes(torn)))
    out["torn"] = esp32.NVS("cran").get_i32("seq")
    machine.reset_all()
    esp32.nvs_keep_in(io.BytesIO())
    out["empty"] = _nvs_error(esp32.NVS("cran").get_i32, "seq")
    return out



if __name__ == "__main__":
    run_checks()
