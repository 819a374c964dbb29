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
# wake_reason()'s answers, the ESP-IDF's esp_sleep_wakeup_cause_t as the port names them.
SLEEP = 2
DEEPSLEEP = 4
PIN_WAKE = EXT0_WAKE = 2
EXT1_WAKE = 3
TIMER_WAKE = 4
TOUCHPAD_WAKE = 5
ULP_WAKE = 6
_woke_by = 0   # what ended the last sleep (0: none yet, as after a power-on)

_cause = PWRON_RESET
wakeups = 0              # lightsleep() returns (the sim's count of wake-ups)
lightsleep_ms = 0        # virtual ms spent in lightsleep
# Power counters (meter.py reads them): all integrated on the virtual clock since
# reset_all(). The chip is awake whenever it is not in lightsleep.
_counting_since = 0      # vclock.elapsed_ms() at reset_all()
pwm_totals = {}          # pin id -> [ms with duty > 0, sum of duty_u16 x ms]
radio_on_ms = 0          # the Wi-Fi station interface's active time (micropython/network.py)
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
    global wakeups, lightsleep_ms, _asleep, _woken, _woke_by
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
    _woke_by = _wake_cause() if _woken else TIMER_WAKE


sleep = lightsleep   # the port's old name for it


def wake_reason():
    return _woke_by


def _wake_cause():
    for kind, cause in (("ext0", EXT0_WAKE), ("ext1", EXT1_WAKE), ("gpio", 7)):
        if kind in wake_sources:
            return cause
    return 0


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
    global _woke_by
    vclock.advance(time_ms)
    _woke_by = TIMER_WAKE
    _reset(DEEPSLEEP_RESET, "woke from deepsleep")


# ---- pins -------------------------------------------------------------------------
# As the ESP32 port's machine_pin.c: one Pin object a GPIO (Pin(4) is Pin(4)), a number
# the chip has or ValueError("invalid pin"), GPIO34-39 of the classic ESP32 input only
# ("pin can only be input"), irq() answering the pin's IRQ object, its arguments checked
# as mp_arg_parse_all checks them (hard= is no argument of the port's: TypeError).

_driven = {}       # pin id -> level forced from outside (a pressed button)
_board_pull = {}   # pin id -> level of a resistor on the board (G37/G39 pull-ups)
_pins = {}         # pin id -> its Pin object
_irqs = {}         # pin id -> (pin object, handler, trigger)
chip = "esp32"     # as the board file names it (world.wire): the GPIOs it has
# The classic ESP32's RTC GPIOs (ESP32 datasheet, RTC IO MUX): the pins that wake it, from
# a light sleep (Pin.irq's wake=) or through esp32's wake sources. Held here, below esp32.
_RTC_GPIOS = (0, 2, 4, 12, 13, 14, 15, 25, 26, 27, 32, 33, 34, 35, 36, 37, 38, 39)


def _gpio_exists(n):
    if chip.startswith("esp32c3"):   # ESP32_GENERIC_C3: 18-19 are its USB (serial/JTAG)
        return 0 <= n <= 13 or n in (20, 21)
    return 0 <= n < 40 and n != 24 and not 28 <= n <= 31   # machine_pin.h, ESP32


def _gpio(pin):
    if isinstance(pin, Pin):
        return pin.id
    if isinstance(pin, int) and not isinstance(pin, bool) and _gpio_exists(pin):
        return pin
    raise ValueError("invalid pin")   # the port's words, for a number or a name


def _too_many(args, kwargs, positional, keywords):
    # mp_arg_parse_all's answers to arguments it was not given room for.
    if len(args) > positional:
        raise TypeError("extra positional arguments given")
    for key in kwargs:
        if key not in keywords:
            raise TypeError("extra keyword arguments given")


class Pin:
    IN = 1
    OUT = 3
    OPEN_DRAIN = 7
    PULL_UP = 2
    PULL_DOWN = 1
    IRQ_RISING = 1
    IRQ_FALLING = 2
    WAKE_LOW = 4
    WAKE_HIGH = 5
    DRIVE_0 = 0
    DRIVE_1 = 1
    DRIVE_2 = 2
    DRIVE_3 = 3

    def __new__(cls, id, *args, **kwargs):
        gpio = _gpio(id)
        pin = _pins.get(gpio)
        if pin is None:
            pin = object.__new__(cls)
            pin.id = gpio
            pin.mode = cls.IN   # after a reset: an input, no pull
            pin.pull = None
            pin.out = 0
            pin.hold = False
            pin._irq = None
            _pins[gpio] = pin
        return pin

    def __init__(self, id, *args, **kwargs):
        if args or kwargs:   # Pin(n) alone leaves the GPIO as it is
            self.init(*args, **kwargs)

    def init(self, *args, **kwargs):
        """init(mode=None, pull=-1, *, value, drive, hold), as the port parses it."""
        _too_many(args, kwargs, 2, ("mode", "pull", "value", "drive", "hold"))
        mode = args[0] if args else kwargs.get("mode")
        pull = args[1] if len(args) > 1 else kwargs.get("pull", -1)
        before = _safe_level(self.id)
        if kwargs.get("value") is not None:
            self.out = 1 if kwargs["value"] else 0
        if mode is not None:
            mode = _int(mode)
            if mode & 2 and self.id >= 34 and not chip.startswith("esp32c"):
                raise ValueError("pin can only be input")
            self.mode = mode
        if pull != -1:
            self.pull = None if pull is None else _int(pull)
        if kwargs.get("hold") is not None and not self._input_only():
            self.hold = bool(kwargs["hold"])
        _fire(self.id, before, _safe_level(self.id))

    def _input_only(self):
        return self.id >= 34 and not chip.startswith("esp32c")

    def __call__(self, *value):
        if len(value) > 1:
            raise TypeError("function takes at most 1 positional arguments but %d were "
                            "given" % len(value))
        return self.value(*value)

    def value(self, value=None):
        if value is None:
            return _level(self.id)
        self._set(1 if value else 0)

    def on(self):
        self._set(1)

    def off(self):
        self._set(0)

    def toggle(self):
        self._set(1 - self.out)

    def _set(self, level):
        # The output register; what the pad then reads (and an edge's IRQ) follows.
        before = _safe_level(self.id)
        self.out = level
        _fire(self.id, before, _safe_level(self.id))

    def irq(self, *args, **kwargs):
        """irq(handler=None, trigger=IRQ_FALLING|IRQ_RISING, wake=None) -> the pin's IRQ
        object; with no argument, only that."""
        _too_many(args, kwargs, 3, ("handler", "trigger", "wake"))
        if args or kwargs:
            handler = args[0] if args else kwargs.get("handler")
            trigger = _int(args[1] if len(args) > 1 else kwargs.get("trigger", 3))
            wake = args[2] if len(args) > 2 else kwargs.get("wake")
            if trigger in (Pin.WAKE_LOW, Pin.WAKE_HIGH) and wake is not None:
                self._wake(trigger, wake)
            else:
                ext0 = wake_sources.get("ext0")
                if ext0 is not None and ext0[0] == (self.id,):
                    del wake_sources["ext0"]
                if handler is None:
                    _irqs.pop(self.id, None)
                else:
                    _irqs[self.id] = (self, handler, trigger)
        if self._irq is None:
            self._irq = IRQ(self)
        return self._irq

    def _wake(self, trigger, wake):
        if not isinstance(wake, int) or not 2 <= wake <= 7:
            raise ValueError("bad wake value")
        if self.id not in _RTC_GPIOS:
            raise ValueError("invalid pin for wake")
        ext0 = wake_sources.get("ext0")
        if ext0 is not None and ext0[0] != (self.id,):
            raise ValueError("no resources")
        wake_sources["ext0"] = ((self.id,), 0 if trigger == Pin.WAKE_LOW else 1)

    def __repr__(self):
        return "Pin(%d)" % self.id


def _int(value):
    if isinstance(value, int):
        return int(value)
    raise TypeError("can't convert %s to int" % type(value).__name__)


class IRQ:
    """A pin's IRQ object, as the port's: trigger() says (and sets) what fires it,
    calling it runs the handler as an edge would."""

    def __init__(self, pin):
        self._pin = pin

    def trigger(self, *new):
        entry = _irqs.get(self._pin.id)
        old = entry[2] if entry is not None else 0
        if new:
            if entry is not None:
                _irqs[self._pin.id] = (entry[0], entry[1], _int(new[0]))
        return old

    def __call__(self):
        entry = _irqs.get(self._pin.id)
        if entry is not None:
            _run_handler(entry[1], entry[0])

    def __repr__(self):
        return "<IRQ>"


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
    pull = pin.pull if pin is not None else None
    if pull and pull & Pin.PULL_UP:
        return 1
    if pull and pull & Pin.PULL_DOWN:
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
        _run_handler(handler, pin)
    vclock._run_scheduled()


def _run_handler(handler, pin):
    """An edge's IRQ: its handler run at the edge itself, in the thread that made it (a
    finger's, in `cran vbadge --buttons`: there the program's thread, asleep in a poll
    nothing wakes, would run a scheduled one late, its press's edges all at once). The
    port schedules it (a soft IRQ), and runs it just after."""
    handler(pin)


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


_wires = {}   # pin id -> the pins a wire outside the chip joins it to


def wire_pins(a, b):
    """A wire between two of the chip's pins, outside it (a loopback: what a UART sends
    on one, a UART receiving on the other hears). It survives reboot()."""
    _wires.setdefault(a, []).append(b)
    _wires.setdefault(b, []).append(a)


def _wired(a, b):
    return a == b or b in _wires.get(a, ())


def spurious_irq(pin_id, trigger=Pin.IRQ_FALLING):
    """Noise: the IRQ fires with no change of level, as ESP32 inputs sometimes do."""
    entry = _irqs.get(pin_id)
    if entry is not None and entry[2] & trigger:
        _run_handler(entry[1], entry[0])
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
    """As the ESP32 port's hardware SPI (machine_hw_spi.c): SPI(1) and SPI(2) (one on a
    C3), one object each, its IO_MUX pins unless told others, the baudrate the
    peripheral can make of 80 MHz, refused once deinit(). In real time a transfer takes
    its bits' time on the wire. Records every write in .writes as (dc level or None,
    bytes): a display driver's commands and data told apart by the D/C pin given as
    dc_pin_id (the tests' own argument, not the port's)."""

    _objects = {}

    def __new__(cls, id=1, *args, **kwargs):
        if not isinstance(id, int) or id not in _spi_pins():
            raise ValueError("SPI(%s) doesn't exist" % (id,))
        spi = cls._objects.get(id)
        if spi is None:
            spi = cls._objects[id] = object.__new__(cls)
            spi.id = id
            spi.writes = []
            spi.dc_pin_id = None
        return spi

    def __init__(self, id=1, baudrate=500000, polarity=0, phase=0, bits=8, firstbit=0,
                 sck=None, mosi=None, miso=None, dc_pin_id=None):
        pins = _spi_pins()[id]
        self.writes = []   # (the tests' record starts with each SPI made)
        self.baudrate = self.polarity = self.phase = self.bits = self.firstbit = 0
        self.pins = list(pins)
        self.live = True
        self.init(baudrate, polarity=polarity, phase=phase, bits=bits, firstbit=firstbit,
                  sck=sck, mosi=mosi, miso=miso)
        self.dc_pin_id = dc_pin_id

    def init(self, baudrate=None, polarity=None, phase=None, bits=None, firstbit=None,
             sck=None, mosi=None, miso=None):
        if bits is not None and bits <= 0:
            raise ValueError("invalid bits")
        for i, pin in enumerate((sck, mosi, miso)):
            if pin is not None:
                self.pins[i] = _gpio(pin)
        if baudrate is not None:
            # spi_get_actual_clock: 80 MHz over a whole divider, the nearest.
            div = max(1, (80000000 + baudrate // 2) // max(1, baudrate))
            self.baudrate = 80000000 // div
        for name, value in (("polarity", polarity), ("phase", phase), ("bits", bits),
                            ("firstbit", firstbit)):
            if value is not None:
                setattr(self, name, value)
        self.live = True

    def __repr__(self):
        return ("SPI(id=%d, baudrate=%d, polarity=%d, phase=%d, bits=%d, firstbit=%d, "
                "sck=%d, mosi=%d, miso=%d)" % ((self.id, self.baudrate, self.polarity,
                                                self.phase, self.bits, self.firstbit)
                                               + tuple(self.pins)))

    def _transfer(self, n):
        if not self.live:
            raise OSError("transfer on deinitialized SPI")
        sent = n * 8 // self.bits * self.bits
        if not sent:
            raise ValueError("buffer too short")
        if vclock.is_real():   # the bits on the wire (virtual time: at once, as before)
            vclock.wait_us(sent * 1000000 // self.baudrate)

    def write(self, buf):
        self._transfer(len(buf))
        if not _recording():
            return
        dc = None if self.dc_pin_id is None else _safe_level(self.dc_pin_id)
        _log(self.writes, (dc, bytes(buf)))

    def read(self, nbytes, write=0):
        self._transfer(nbytes)
        return bytes(nbytes)

    def readinto(self, buf, write=0):
        self._transfer(len(buf))
        for i in range(len(buf)):
            buf[i] = 0

    def write_readinto(self, write_buf, read_buf):
        if len(write_buf) != len(read_buf):
            raise ValueError("buffers must be the same length")
        self.write(write_buf)
        for i in range(len(read_buf)):
            read_buf[i] = 0   # MISO: nothing drives it here

    def deinit(self):
        self.live = False


def _spi_pins():
    # The IO_MUX pins of SPI(1) (IDF SPI2) and SPI(2) (SPI3, the classic ESP32's only).
    if chip.startswith("esp32c"):
        return {1: (6, 7, 2)}
    return {1: (14, 13, 12), 2: (18, 23, 19)}


class SoftSPI(SPI):
    """Bit-banged SPI on any three pins, as the port's: each must be given."""

    def __new__(cls, *args, **kwargs):
        return object.__new__(cls)

    def __init__(self, baudrate=500000, polarity=0, phase=0, bits=8, firstbit=0,
                 sck=None, mosi=None, miso=None):
        if sck is None or mosi is None or miso is None:
            raise ValueError("must specify all of sck/mosi/miso")
        self.id = -1
        self.writes = []
        self.dc_pin_id = None
        self.pins = [0, 0, 0]
        self.baudrate = self.polarity = self.phase = self.bits = self.firstbit = 0
        SPI.init(self, baudrate, polarity, phase, bits, firstbit, sck, mosi, miso)
        self.baudrate = baudrate

    def init(self, baudrate=None, *args, **kwargs):
        SPI.init(self, baudrate, *args, **kwargs)
        if baudrate is not None:
            self.baudrate = baudrate

    def __repr__(self):
        return "SoftSPI(baudrate=%d, polarity=%d, phase=%d, sck=%d, mosi=%d, miso=%d)" % (
            (self.baudrate, self.polarity, self.phase) + tuple(self.pins))


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
    SPI._objects.clear()
    for more in _more:   # Timer, UART, I2S, on `cran vchip`
        more.reset()
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
    global _cause, wakeups, lightsleep_ms, _counting_since, radio_on_ms, _woke_by
    reboot()
    esp32 = sys.modules.get("esp32")   # imported by the firmware, or not at all
    if esp32 is not None and hasattr(esp32, "nvs_erase"):
        esp32.nvs_erase()
    _driven.clear()
    _board_pull.clear()
    _wires.clear()
    _i2c_devices.clear()
    _drop_alarms(_Event)   # what was scheduled to happen outside
    _cause = cause
    _woke_by = 0
    wakeups = 0
    lightsleep_ms = 0
    _counting_since = vclock.elapsed_ms()
    pwm_totals.clear()
    radio_on_ms = 0
    console.fifo = b""
    console.lost = 0


# The rest of the ESP32 port's machine (Timer, UART, I2S, disable_irq, mem8...), for `cran
# vchip`: vchip_machine.py, layered above this module, puts itself here when imported (the
# chip's boot imports it). A badge never uses them: its runners don't carry them in their
# heap. (A list kept here: a program may empty sys.modules, or sys.path, later.)
_more = []


def __getattr__(name):
    if _more and name in _more[0].NAMES:
        return getattr(_more[0], name)
    raise AttributeError("module 'machine' has no attribute '%s'" % name)
