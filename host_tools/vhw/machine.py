# Virtual `machine` for the badge firmware on a desktop (CPython and the MicroPython unix
# port; put this folder first on sys.path). Parts behave like the ESP32's: an input pin
# reads what drives it or its pull resistor (a floating one is an error, not a 1), IRQs
# fire on real level changes, the watchdog resets when starved, sleeps take virtual time.
# Test/sim hooks are module functions: drive(), set_board_pull(), spurious_irq(),
# attach_i2c(), reboot(), reset_all().
import sys

import vclock

PWRON_RESET = 1
HARD_RESET = 2
WDT_RESET = 3
DEEPSLEEP_RESET = 4
SOFT_RESET = 5

_cause = PWRON_RESET
wakeups = 0              # lightsleep() returns (the sim's count of wake-ups)
lightsleep_ms = 0        # virtual ms spent in lightsleep
# Power counters (meter.py reads them): all integrated on the virtual clock since
# reset_all(). The chip is awake whenever it is not in lightsleep.
_counting_since = 0      # vclock.elapsed_ms() at reset_all()
pwm_totals = {}          # pin id -> [ms with duty > 0, sum of duty_u16 x ms]
radio_on_ms = 0          # the Wi-Fi station interface's active time (vhw/network.py)
_freq_hz = 160000000
# `cran vbadge`, where a reset ends the MicroPython process: a callable(cause, why) run
# before VirtualReset is raised (it raises SystemExit instead).
on_reset = None
# `cran vbadge`: a callable(ms left) told when a watchdog starts or is fed, so that one
# starved by a hung firmware (which moves no clock here) still resets the chip.
on_watchdog = None
# Entries each part keeps in .timeline / .writes: 0 keeps all (tests read them); a vbadge
# running for hours keeps the last few, or a display's frames would fill the heap; -1
# keeps none and copies nothing (a badge's heap measured: the parts' records aren't its).
history = 0
_unique_id = b"\x24\x0a\xc4\xc0\xa7\x01"


class VirtualReset(BaseException):
    """The chip resets: watchdog, machine.reset(), deepsleep(). A BaseException so the
    firmware's `except Exception` can't swallow it, just as it can't stop a real reset;
    the sim catches it and boots the firmware again."""

    def __init__(self, cause, why):
        super().__init__(why)
        self.cause = cause


class FloatingPin(ValueError):
    pass


def _reset(cause, why):
    global _cause
    _cause = cause
    if on_reset is not None:
        on_reset(cause, why)
    raise VirtualReset(cause, why)


def _recording():
    return history >= 0


def _log(entries, entry):
    entries.append(entry)
    if history and len(entries) > history:
        del entries[0]


def reset_cause():
    return _cause


def reset():
    _reset(HARD_RESET, "machine.reset()")


def soft_reset():
    _reset(SOFT_RESET, "machine.soft_reset()")


def unique_id():
    return _unique_id


def freq(hz=None):
    global _freq_hz
    if hz is None:
        return _freq_hz
    _freq_hz = hz


def idle():
    pass


def lightsleep(time_ms=None):
    """The CPU halts until time_ms has passed or a wake source (esp32.wake_on_ext0/ext1/
    gpio) sees its level, whichever comes first; then the program goes on: one wake-up.
    What happens outside meanwhile comes from scheduled events (drive_at): no task runs.
    Pin edges while asleep raise no IRQ (the firmware must read its pins on waking). The
    watchdog keeps counting here (harsher than an ESP32 may be): sleep less than it."""
    global wakeups, lightsleep_ms, _asleep, _woken
    if time_ms is None:
        raise ValueError("virtual lightsleep needs a time: nothing else would wake it")
    _asleep = True
    _woken = _wake_level_seen()
    for pwm in _pwms.values():
        pwm._account()   # the classic ESP32's LEDC stops in light sleep
    try:
        slept = vclock.advance_until(time_ms, lambda: _woken)
    finally:
        _asleep = False
    for pwm in _pwms.values():
        pwm._since = vclock.elapsed_ms()   # silent while asleep: nothing to count
    wakeups += 1
    lightsleep_ms += slept


def awake_ms():
    """Virtual ms since reset_all() that the CPU was not in lightsleep."""
    return vclock.elapsed_ms() - _counting_since - lightsleep_ms


# Light-sleep wake sources, set by the virtual esp32 module: kind -> (pin ids, level).
# ext0: its one pin at level; ext1: ANY_HIGH (level 1) any pin high, ALL_LOW (level 0)
# every pin low; gpio: any pin at level.
wake_sources = {}
_asleep = False
_woken = False    # a wake source saw its level during this sleep, however briefly


def _wake_level_seen():
    for kind, (ids, level) in wake_sources.items():
        seen = [_safe_level(i) == level for i in ids]
        if (all(seen) if kind == "ext1" and not level else any(seen)):
            return True
    return False


class _Event:
    # Something outside the chip at a set virtual time (a finger on a button).
    def __init__(self, due_ms, fn):
        self.due_ms = due_ms
        self.fn = fn

    def fire(self):
        self.due_ms = None
        vclock.remove_alarm(self)
        self.fn()


def drive_at(delay_ms, pin_id, level):
    """drive(pin_id, level) delay_ms of virtual time from now, whatever the firmware is
    doing then (even in lightsleep, when no asyncio task can act)."""
    vclock.add_alarm(_Event(vclock.elapsed_ms() + delay_ms,
                            lambda: drive(pin_id, level)))


# ---- the console's UART ---------------------------------------------------------------

class _ConsoleRx:
    """The console's receiving end (UART0 behind the board's USB chip), as a stream the
    firmware's asyncio reads (put it in cran.compat.STDIN). Bytes come from console_at().
    Like the classic ESP32 under MicroPython: bytes that reach it while the chip is in
    lightsleep are lost (its UART is not clocked, and MicroPython's lightsleep sets no
    UART wake-up: they don't wake it either); what it received before stays in its FIFO
    through a sleep."""

    def __init__(self):
        self.fifo = b""
        self.lost = 0      # bytes that came while asleep

    def ioctl(self, request, arg):
        if request == 3:   # MP_STREAM_POLL
            return arg & 1 if self.fifo else 0   # POLLIN
        return 0

    def read(self, n=-1):
        if not self.fifo:
            return None    # nothing yet: a non-blocking stream's answer
        n = len(self.fifo) if n is None or n < 0 else n
        out = self.fifo[:n]
        self.fifo = self.fifo[n:]
        return out


console = _ConsoleRx()


def console_at(delay_ms, data):
    """Bytes on the console's line delay_ms of virtual time from now (a host typing)."""
    vclock.add_alarm(_Event(vclock.elapsed_ms() + delay_ms, lambda: _receive(bytes(data))))


def _receive(data):
    if _asleep:
        console.lost += len(data)
    else:
        console.fifo += data


def deepsleep(time_ms=None):
    """Never returns: the chip sleeps time_ms, then boots with DEEPSLEEP_RESET."""
    if time_ms is None:
        raise ValueError("virtual deepsleep needs a time: nothing else would wake it")
    vclock.advance(time_ms)
    _reset(DEEPSLEEP_RESET, "woke from deepsleep")


# ---- pins -------------------------------------------------------------------------

_driven = {}       # pin id -> level forced from outside (a pressed button)
_board_pull = {}   # pin id -> level of a resistor on the board (G37/G39 pull-ups)
_pins = {}         # pin id -> the Pin object last configured there
_irqs = {}         # pin id -> (pin object, handler, trigger)


class Pin:
    IN = 1
    OUT = 3
    OPEN_DRAIN = 7
    PULL_UP = 2
    PULL_DOWN = 1
    IRQ_RISING = 1
    IRQ_FALLING = 2

    def __init__(self, id, mode=-1, pull=-1, value=None, **kwargs):
        self.id = id
        self.mode = self.IN
        self.pull = None
        self.out = 0
        _pins[id] = self
        self.init(mode, pull, value)

    def init(self, mode=-1, pull=-1, value=None, **kwargs):
        if mode != -1:
            self.mode = mode
        if pull != -1:
            self.pull = pull
        if value is not None:
            self.out = 1 if value else 0

    def __call__(self, value=None):
        return self.value(value)

    def value(self, value=None):
        if value is None:
            return _level(self.id)
        self.out = 1 if value else 0

    def on(self):
        self.out = 1

    def off(self):
        self.out = 0

    def irq(self, handler=None, trigger=3, **kwargs):
        if handler is None:
            _irqs.pop(self.id, None)
        else:
            _irqs[self.id] = (self, handler, trigger)
        return handler

    def __repr__(self):
        return "Pin(%d)" % self.id


def _level(pin_id):
    """What the pin reads now, or None when nothing sets it (floating)."""
    pin = _pins.get(pin_id)
    if pin is not None and pin.mode == Pin.OUT:
        return pin.out
    if pin is not None and pin.mode == Pin.OPEN_DRAIN and pin.out == 0:
        return 0
    if pin_id in _driven:
        return _driven[pin_id]
    if pin_id in _board_pull:
        return _board_pull[pin_id]
    if pin is not None and pin.pull == Pin.PULL_UP:
        return 1
    if pin is not None and pin.pull == Pin.PULL_DOWN:
        return 0
    raise FloatingPin("GPIO%d floats: nothing drives it and it has no pull (set_board_pull "
                      "for a resistor on the board)" % pin_id)


def _safe_level(pin_id):
    try:
        return _level(pin_id)
    except FloatingPin:
        return None


def _fire(pin_id, before, after):
    entry = _irqs.get(pin_id)
    if _asleep or entry is None or before is None or after is None or before == after:
        return
    pin, handler, trigger = entry
    if trigger & (Pin.IRQ_RISING if after else Pin.IRQ_FALLING):
        handler(pin)
    vclock._run_scheduled()


def drive(pin_id, level):
    """From outside: hold the pin at level (0/1), or let go (None) back to its pull. An
    IRQ fires when what the pin reads changes, as on the part."""
    _set_outside(_driven, pin_id, level)


def set_board_pull(pin_id, level):
    """A resistor on the board (None: none). It survives reboot()."""
    _set_outside(_board_pull, pin_id, level)


def _set_outside(table, pin_id, level):
    # Something outside the chip changes what the pin reads: IRQ as on the part; asleep,
    # the wake logic latches a wake level however short.
    global _woken
    before = _safe_level(pin_id)
    if level is None:
        table.pop(pin_id, None)
    else:
        table[pin_id] = 1 if level else 0
    if _asleep and _wake_level_seen():
        _woken = True
    _fire(pin_id, before, _safe_level(pin_id))


def spurious_irq(pin_id, trigger=Pin.IRQ_FALLING):
    """Noise: the IRQ fires with no change of level, as ESP32 inputs sometimes do."""
    entry = _irqs.get(pin_id)
    if entry is not None and entry[2] & trigger:
        entry[1](entry[0])
    vclock._run_scheduled()


class Signal:
    def __init__(self, pin, invert=False):
        self.pin = pin
        self.invert = invert

    def value(self, value=None):
        if value is None:
            return self.pin.value() ^ (1 if self.invert else 0)
        self.pin.value((1 if value else 0) ^ (1 if self.invert else 0))

    def on(self):
        self.value(1)

    def off(self):
        self.value(0)


# ---- PWM --------------------------------------------------------------------------

_pwms = {}   # pin id -> PWM


class PWM:
    """Records every change as (tick, freq_hz, duty_u16) in .timeline (duty 0 after
    deinit). Like the ESP32's: freq must be 1 Hz .. 40 MHz, duty_u16 0 .. 65535. Its
    time with duty > 0 adds up in pwm_totals[pin] (a buzzer's on-time), silent in
    lightsleep (the classic ESP32's LEDC stops there)."""

    def __init__(self, dest, freq=None, duty_u16=None, **kwargs):
        self.pin_id = dest.id if isinstance(dest, Pin) else dest
        self._freq = 5000
        self._duty = 0
        self.timeline = []
        self.active = True
        self._since = vclock.elapsed_ms()
        _pwms[self.pin_id] = self
        self.init(freq, duty_u16)

    def _account(self):
        # What the output did since the last change, before it changes.
        now = vclock.elapsed_ms()
        ms = now - self._since
        self._since = now
        duty = self._duty if self.active else 0
        if duty and ms > 0:
            total = pwm_totals.setdefault(self.pin_id, [0, 0])
            total[0] += ms
            total[1] += duty * ms

    def init(self, freq=None, duty_u16=None, **kwargs):
        self._account()
        self.active = True
        if freq is not None:
            self._set_freq(freq)
        if duty_u16 is not None:
            self._set_duty(duty_u16)
        self._record()

    def _record(self):
        if _recording():
            _log(self.timeline, (vclock.ticks_ms(), self._freq,
                                 self._duty if self.active else 0))

    def _set_freq(self, hz):
        if not 1 <= hz <= 40000000:
            raise ValueError("freq must be from 1Hz to 40MHz")
        self._freq = hz

    def _set_duty(self, duty):
        if not 0 <= duty <= 65535:
            raise ValueError("duty_u16 must be from 0 to 65535")
        self._duty = duty

    def freq(self, hz=None):
        if hz is None:
            return self._freq
        self._set_freq(hz)
        self._record()

    def duty_u16(self, duty=None):
        if duty is None:
            return self._duty
        self._account()
        self._set_duty(duty)
        self._record()

    def deinit(self):
        self._account()
        self.active = False
        self._record()


def pwm_on(pin_id):
    return _pwms.get(pin_id)


# ---- watchdog ---------------------------------------------------------------------

_watchdog = [None]   # the chip's running WDT, if one was started since its reset


class WDT:
    """Starved for timeout ms of virtual time, it resets the chip (VirtualReset with
    WDT_RESET, raised from whatever moved the clock). It can't be stopped once started.
    A chip has one: another WDT() (main.py starts it, the app makes its own) sets its
    timeout and feeds it, and feeding any of them feeds it, as on an ESP32."""

    def __init__(self, id=0, timeout=5000):
        running = _watchdog[0]
        if running is not None and running.due_ms is not None:
            vclock.remove_alarm(running)   # this object takes its place
            running.due_ms = None
        _watchdog[0] = self
        self.timeout_ms = timeout
        self.due_ms = vclock.elapsed_ms() + timeout
        vclock.add_alarm(self)
        if on_watchdog is not None:
            on_watchdog(timeout)

    def feed(self):
        vclock.catch_up()   # real time: starved already, it resets now (late, not never)
        dog = _watchdog[0]
        if dog is not None and dog.due_ms is not None:
            dog.due_ms = vclock.elapsed_ms() + dog.timeout_ms
            if on_watchdog is not None:
                on_watchdog(dog.timeout_ms)

    def fire(self):
        self.due_ms = None
        vclock.remove_alarm(self)
        _reset(WDT_RESET, "watchdog not fed for %d ms" % self.timeout_ms)


# ---- real-time clock ---------------------------------------------------------------

class RTC:
    """The date: time.time() follows it. It survives reboot() (an RTC runs on through
    resets), as the virtual clock does."""

    def datetime(self, dt=None):
        if dt is None:
            days, secs = divmod(vclock.time(), 86400)
            y, m, d = vclock.civil_from_days(days)
            return (y, m, d, (days + 3) % 7, secs // 3600, secs // 60 % 60, secs % 60, 0)
        y, m, d, _weekday, hh, mm, ss = dt[:7]
        vclock.set_time(vclock.days_from_civil(y, m, d) * 86400 + hh * 3600 + mm * 60 + ss)


# ---- buses ------------------------------------------------------------------------

# (scl, sda) -> {7-bit address answering on that bus: what its registers hold (read(reg,
# n) -> bytes, write(reg, data)), or None: a read gives zeros}
_i2c_devices = {}


def attach_i2c(scl, sda, addr, chip=None):
    """Put a device at addr on the bus of these pins (the sim's optional SSD1306), with
    its registers (world.Axp192) or none."""
    _i2c_devices.setdefault((scl, sda), {})[addr] = chip


class I2C:
    """Records (addr, bytes) of every write in .writes. A write to an address nobody
    answers raises OSError(ENODEV), as the ESP32 does on a NACK."""

    def __init__(self, id=0, scl=None, sda=None, freq=400000, **kwargs):
        self.key = (_pin_id(scl), _pin_id(sda))
        self.freq = freq
        self.writes = []

    def _check(self, addr):
        if addr not in _i2c_devices.get(self.key, ()):
            raise OSError(19)   # ENODEV

    def scan(self):
        return sorted(_i2c_devices.get(self.key, ()))

    def writeto(self, addr, buf, stop=True):
        self._check(addr)
        if _recording():
            _log(self.writes, (addr, bytes(buf)))
        return len(buf)

    def writevto(self, addr, vector, stop=True):
        self._check(addr)
        if not _recording():
            return sum(len(b) for b in vector)
        data = b"".join(bytes(b) for b in vector)
        _log(self.writes, (addr, data))
        return len(data)

    def writeto_mem(self, addr, memaddr, buf, addrsize=8):
        self._check(addr)
        if _recording():
            _log(self.writes, (addr, bytes([memaddr]) + bytes(buf)))
        chip = _i2c_devices[self.key][addr]
        if chip is not None:
            chip.write(memaddr, bytes(buf))

    def readfrom(self, addr, nbytes, stop=True):
        self._check(addr)
        return bytes(nbytes)

    def readfrom_mem(self, addr, memaddr, nbytes, addrsize=8):
        self._check(addr)
        chip = _i2c_devices[self.key][addr]
        return bytes(nbytes) if chip is None else chip.read(memaddr, nbytes)


SoftI2C = I2C


class SPI:
    """Records every write in .writes as (dc level or None, bytes): a display driver's
    commands and data can be told apart by the D/C pin given as dc_pin_id."""

    def __init__(self, id=1, baudrate=1000000, polarity=0, phase=0, sck=None, mosi=None,
                 miso=None, dc_pin_id=None, **kwargs):
        self.baudrate = baudrate
        self.dc_pin_id = dc_pin_id
        self.writes = []

    def init(self, **kwargs):
        pass

    def write(self, buf):
        if not _recording():
            return
        dc = None if self.dc_pin_id is None else _safe_level(self.dc_pin_id)
        _log(self.writes, (dc, bytes(buf)))

    def read(self, nbytes, write=0):
        return bytes(nbytes)

    def write_readinto(self, write_buf, read_buf):
        self.write(write_buf)

    def deinit(self):
        pass


SoftSPI = SPI


def _pin_id(pin):
    return pin.id if isinstance(pin, Pin) else pin


# ---- whole-machine hooks ----------------------------------------------------------

def reboot():
    """The chip restarts: the firmware's pins, IRQs, PWMs and watchdog are gone; what is
    outside the chip (a held button, board resistors, I2C devices) stays."""
    for pwm in _pwms.values():
        pwm._account()   # its sound stops here
    _pins.clear()
    _irqs.clear()
    _pwms.clear()
    wake_sources.clear()
    _drop_alarms(WDT)
    _watchdog[0] = None
    espnow = sys.modules.get("espnow")   # the radio, if the firmware started it: off
    if espnow is not None and hasattr(espnow, "reset"):
        espnow.reset()


def _drop_alarms(kind):
    for alarm in list(vclock._alarms):
        if isinstance(alarm, kind):
            vclock.remove_alarm(alarm)


def reset_all(cause=PWRON_RESET):
    """A new world for a test: power-on, nothing driven, nothing attached, a new chip
    (its NVS partition erased)."""
    global _cause, wakeups, lightsleep_ms, _counting_since, radio_on_ms
    reboot()
    esp32 = sys.modules.get("esp32")   # imported by the firmware, or not at all
    if esp32 is not None and hasattr(esp32, "nvs_erase"):
        esp32.nvs_erase()
    _driven.clear()
    _board_pull.clear()
    _i2c_devices.clear()
    _drop_alarms(_Event)   # what was scheduled to happen outside
    _cause = cause
    wakeups = 0
    lightsleep_ms = 0
    _counting_since = vclock.elapsed_ms()
    pwm_totals.clear()
    radio_on_ms = 0
    console.fifo = b""
    console.lost = 0
