# Virtual `microcontroller` (shared-bindings/microcontroller, nvm, watchdog): pins that
# one part at a time may hold ("ValueError: GPIO35 in use"), the CPU's id and reset
# reason, reset(), the watchdog that resets the chip when starved, and nvm: bytes that
# keep through resets, in a host file if given, and that can lose power mid-write.
# Test hooks (module functions): drive(), set_board_pull(), reboot(), reset_all(),
# nvm_keep_in(), nvm_cut_after(); VirtualReset is what a reset raises.
import vclock
from watchdog import WatchDogMode, WatchDogTimeout

# What the parts keep of what they did (neopixel_write.writes, PWMOut.timeline): 0 all
# (tests read them), N the last N, -1 nothing (a long run: the records would grow).
history = 0


class ResetReason:
    POWER_ON = "POWER_ON"
    BROWNOUT = "BROWNOUT"
    SOFTWARE = "SOFTWARE"
    DEEP_SLEEP_ALARM = "DEEP_SLEEP_ALARM"
    RESET_PIN = "RESET_PIN"
    WATCHDOG = "WATCHDOG"
    UNKNOWN = "UNKNOWN"


class VirtualReset(BaseException):
    """The chip resets (watchdog, reset(), a power cut): a BaseException the firmware's
    `except Exception` can't swallow; the runner boots the firmware again."""

    def __init__(self, reason, why):
        super().__init__(why)
        self.reason = reason


class FloatingPin(ValueError):
    pass


# ---- pins ------------------------------------------------------------------------

class Pin:
    """microcontroller.Pin: an identity, nothing more; the parts claim it."""

    def __init__(self, number):
        self.number = number

    def __repr__(self):
        return "microcontroller.pin.GPIO%d" % self.number


class _Pins:
    pass


pin = _Pins()
_GPIOS = {"esp32s3": tuple(range(0, 22)) + tuple(range(26, 49))}
chip = "esp32s3"
for _n in _GPIOS[chip]:
    setattr(pin, "GPIO%d" % _n, Pin(_n))

_owners = {}       # GPIO number -> the object holding it
_driven = {}       # GPIO number -> level held from outside (a finger on a button)
_board_pull = {}   # GPIO number -> level of a resistor on the board
_watchers = {}     # GPIO number -> callable(level) told when what it reads changes


def claim(p, owner):
    """A part takes pin p, or ValueError as CircuitPython says it ("GPIO35 in use")."""
    if not isinstance(p, Pin):
        raise TypeError("Pin expected, got %s" % type(p).__name__)
    if p.number in _owners:
        raise ValueError("GPIO%d in use" % p.number)
    _owners[p.number] = owner


def release(p):
    _owners.pop(p.number, None)
    _watchers.pop(p.number, None)


def level(number, pull=None):
    """What the pin reads: driven from outside, else a resistor (the board's, or the
    internal one `pull` says: 1 up, 0 down). Nothing: FloatingPin, not a guess."""
    if number in _driven:
        return _driven[number]
    if number in _board_pull:
        return _board_pull[number]
    if pull is not None:
        return pull
    raise FloatingPin("GPIO%d floats: nothing drives it and it has no pull" % number)


def watch(number, fn):
    _watchers[number] = fn


def drive(number, value):
    """From outside: hold GPIO number at value (0/1), or let go (None)."""
    _set_outside(_driven, number, value)


def set_board_pull(number, value):
    _set_outside(_board_pull, number, value)


def _set_outside(table, number, value):
    if value is None:
        table.pop(number, None)
    else:
        table[number] = 1 if value else 0
    fn = _watchers.get(number)
    if fn is not None:
        fn()


# ---- the CPU -----------------------------------------------------------------------

class _Processor:
    uid = bytearray(b"\x34\x85\x18\xa1\xb2\xc3")
    reset_reason = ResetReason.POWER_ON
    frequency = 240000000


cpu = _Processor()


resetting = None   # the reason of the reset under way (the first, if more follow)
# cran vbadge's chip: on_watchdog(ms) hears of each start or feed of the watchdog in
# RESET mode (its supervisor resets a firmware that hangs without touching the clock)
on_watchdog = None


def _reset(reason, why):
    # A firmware that catches BaseException may reset again as it handles this one: the
    # chip resets for the first reason (cran vbadge's chip exits with it).
    global resetting
    if resetting is None:
        resetting = reason
    cpu.reset_reason = reason
    raise VirtualReset(reason, why)


def reset():
    _reset(ResetReason.SOFTWARE, "microcontroller.reset()")


def on_next_reset(run_mode):
    pass


# ---- the watchdog ----------------------------------------------------------------

class WatchDogTimer:
    """microcontroller.watchdog: a timeout in seconds (> 0), started by setting a mode;
    starved past it, RESET resets the chip and RAISE raises WatchDogTimeout. Once in
    RESET mode it can't be stopped ("deinit() ... raises an error if the watchdog timer
    is set to RESET mode", on the ESP32 family); feed() when not running is an error."""

    def __init__(self):
        self._timeout = None
        self._mode = None
        self.due_ms = None

    @property
    def timeout(self):
        return self._timeout

    @timeout.setter
    def timeout(self, seconds):
        if not seconds > 0:
            raise ValueError("timeout must be > 0")
        self._timeout = seconds
        if self._mode is not None:
            self.feed()

    @property
    def mode(self):
        return self._mode

    @mode.setter
    def mode(self, mode):
        if mode not in (None, WatchDogMode.RAISE, WatchDogMode.RESET):
            raise ValueError("invalid mode")
        if self._mode == WatchDogMode.RESET and mode != WatchDogMode.RESET:
            raise RuntimeError("WatchDogTimer cannot be deinitialized once mode is RESET")
        if mode is not None and self._timeout is None:
            raise ValueError("WatchDogTimer.timeout must be greater than 0")
        self._mode = mode
        if mode is None:
            self._stop()
        else:
            self.feed()

    def feed(self):
        if self._mode is None:
            raise ValueError("WatchDogTimer is not currently running")
        self.due_ms = vclock.elapsed_ms() + int(self._timeout * 1000)
        vclock.add_alarm(self)
        if on_watchdog is not None and self._mode == WatchDogMode.RESET:
            on_watchdog(int(self._timeout * 1000))

    def deinit(self):
        self.mode = None

    def _stop(self):
        self.due_ms = None
        vclock.remove_alarm(self)

    def fire(self):
        mode = self._mode
        self._stop()
        if mode == WatchDogMode.RESET:
            _reset(ResetReason.WATCHDOG, "watchdog not fed for %g s" % self._timeout)
        raise WatchDogTimeout()


watchdog = WatchDogTimer()


# ---- nvm -------------------------------------------------------------------------

NVM_BYTES = 8192   # circuitpython-stubs' board definitions: "NVM size: 8192" (ESP32-S3)


class ByteArray:
    """microcontroller.nvm (shared-bindings/nvm): a fixed number of bytes; an index
    takes an int 0-255, a slice (step 1) bytes of its own length; nothing can change its
    length. Each write lands a byte at a time, in order: with a cut set (nvm_cut_after)
    the power goes after that many bytes of the next writes, as a chip browning out in
    the middle of one. Fresh, every byte reads 0xFF (erased flash)."""

    def __init__(self, size):
        self._bytes = bytearray(b"\xff" * size)
        self.writes = 0        # writes landed, for the tests' count of cut points
        self.written = 0       # bytes written

    def __len__(self):
        return len(self._bytes)

    def __bool__(self):
        return True

    def __getitem__(self, index):
        if isinstance(index, slice):
            start, stop, step = index.indices(len(self._bytes))
            if step != 1:
                raise NotImplementedError("only slices with step=1 (aka None) are supported")
            return bytearray(self._bytes[start:stop])
        return self._bytes[index]

    def __setitem__(self, index, value):
        if isinstance(index, slice):
            start, stop, step = index.indices(len(self._bytes))
            if step != 1:
                raise NotImplementedError("only slices with step=1 (aka None) are supported")
            value = bytes(value)
            if len(value) != max(0, stop - start):
                raise ValueError("Slice and value different lengths.")
            self._land(start, value)
        else:
            if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 255:
                raise ValueError("Array values should be single bytes.")
            if not -len(self._bytes) <= index < len(self._bytes):
                raise IndexError("index out of range")
            self._land(index % len(self._bytes), bytes((value,)))

    def _land(self, start, value):
        global _cut_after
        if resetting is not None:
            # The chip is resetting: a firmware that caught the reset (BaseException)
            # and goes on writing writes nothing, as on a chip that has stopped.
            raise VirtualReset(resetting, "the chip is resetting")
        n = len(value)
        if _cut_after is not None and _cut_after < n:
            self._bytes[start:start + _cut_after] = value[:_cut_after]
            self._save()
            _cut_after = None
            _reset(ResetReason.POWER_ON, "power cut during an nvm write")
        if _cut_after is not None:
            _cut_after -= n
        self._bytes[start:start + n] = value
        self.writes += 1
        self.written += n
        self._save()

    def _save(self):
        if _file is not None:   # every byte through at once, as the chip's flash
            _file.seek(0)
            _file.write(self._bytes)
            _file.flush()


nvm = ByteArray(NVM_BYTES)
_cut_after = None   # bytes the writes from now land before the power goes
_file = None        # the host file that keeps nvm across processes, or None


def nvm_cut_after(n):
    """The power goes after n more bytes written to nvm (None: it doesn't)."""
    global _cut_after
    _cut_after = n


def nvm_keep_in(path):
    """nvm in a host file from now on (read now if it holds it; made if missing). Kept
    open: cran vbadge's chip mounts its drive at "/" after this, out of the host's."""
    global _file
    try:
        f = open(path, "r+b")
    except OSError:
        f = open(path, "w+b")
    data = f.read()
    if data:
        if len(data) != len(nvm._bytes):
            f.close()
            raise ValueError("%s: %d bytes, nvm has %d" % (path, len(data), len(nvm._bytes)))
        nvm._bytes[:] = data
    _file = f


# ---- whole-chip hooks ------------------------------------------------------------

def reboot():
    """The chip restarts: parts let go of their pins, the watchdog stops; what is
    outside the chip, and nvm, stay."""
    global resetting
    resetting = None
    _owners.clear()
    _watchers.clear()
    watchdog._stop()
    watchdog._mode = None
    watchdog._timeout = None
    for alarm in list(vclock._alarms):
        if getattr(alarm, "chip_part", False):
            vclock.remove_alarm(alarm)


def reset_all():
    """A new chip for a test: power-on, nothing driven, nvm fresh."""
    global _cut_after, _file
    reboot()
    _driven.clear()
    _board_pull.clear()
    cpu.reset_reason = ResetReason.POWER_ON
    nvm._bytes[:] = b"\xff" * len(nvm._bytes)
    _cut_after = None
    _file = None
