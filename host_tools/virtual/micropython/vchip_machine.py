# The ESP32 port's machine beyond what a badge uses, for `cran vchip` (imported by its
# boot, it adds these names to machine.py's, which never imports it back): Timer, UART,
# I2S, disable_irq, enable_irq, mem8/mem16/mem32. Held to the port's C sources (v1.28.0:
# ports/esp32/machine_timer.c, machine_uart.c, machine_i2s.c, modmachine.c;
# extmod/machine_mem.c): the same arguments, checks and words, one object a peripheral.
# Their interrupts run as the port's do, through MicroPython's scheduler: on virtual
# time they are the clock's alarms; in real time (`cran vchip`) a thread of their own
# watches the time, as the chip's timer and UART interrupts run beside the program.
import sys

import machine
import micropython
import vclock

NAMES = ("Timer", "UART", "I2S", "disable_irq", "enable_irq", "mem8", "mem16", "mem32")

if sys.implementation.name == "micropython":   # a Python stream there, for select.poll
    import io
    _Pollable = io.IOBase
else:
    class _Pollable:   # (its native base first, for MicroPython; none on CPython)
        pass

_POLL_RD = 1
_POLL_WR = 4


def _classic():
    return not machine.chip.startswith("esp32c")


def _esp_err(code, name):
    """check_esp_err's OSError for an ESP-IDF error code."""
    return OSError(-code, name)


def _int(value):
    return machine._int(value)


def _unit(args):
    """The number a part's constructor takes first (Timer, UART, I2S: the port's
    mp_arg_check_num wants one positional argument at least)."""
    if not args:
        raise TypeError("function missing 1 required positional arguments")
    return _int(args[0])


# ---- interrupts ------------------------------------------------------------------------

_irq_off = [False]   # disable_irq() in force
_slots = [None] * 10   # what may interrupt: Timers 0-3, UARTs 4-6, I2S 7-8
_ticking = [False]


def disable_irq():
    """-> the state to give enable_irq(): interrupts were already off (1) or not (0).
    What falls due meanwhile waits, and runs at enable_irq()."""
    state = 1 if _irq_off[0] else 0
    _irq_off[0] = True
    return state


def enable_irq(state):
    _irq_off[0] = bool(_int(state))
    if not _irq_off[0]:
        for part in _slots:
            if part is not None and part.pending:
                part.pending = False
                part.interrupt()


def _schedule(handler, arg):
    try:
        micropython.schedule(handler, arg)
    except RuntimeError:
        pass   # the queue full: the port's ISR drops it too
    if not vclock.is_real():
        # Virtual time stands still while the handler runs, right after its alarm, as
        # MicroPython runs it at once between two bytecodes (CPython's shim, told here).
        vclock._run_scheduled()


def _arm(part, due_ms):
    part.due_ms = due_ms
    if vclock.is_real():
        _start_ticker()
    else:
        vclock.add_alarm(part)


def _disarm(part):
    part.due_ms = None
    if not vclock.is_real():   # (real time: the ticker's, never the clock's list)
        vclock.remove_alarm(part)


def _start_ticker():
    if not _ticking[0]:
        import _thread
        _ticking[0] = True
        _thread.start_new_thread(_ticker, ())


def _armed():
    for part in _slots:
        if part is not None and part.due_ms is not None:
            return True
    return False


def _ticker():
    # Real time: the chip's interrupt sources, looked at every millisecond while one is
    # armed. Nothing here allocates (the program may have locked the heap).
    nap = vclock._real[1]
    while True:
        try:
            if _armed():
                now = vclock.elapsed_ms()
                for part in _slots:
                    if part is not None and part.due_ms is not None and part.due_ms <= now:
                        part.fire()
            else:
                _ticking[0] = False
                if not _armed():   # (one armed since: it found the ticker running)
                    return
                _ticking[0] = True
        except MemoryError:
            pass
        nap(1)


class _Source:
    due_ms = None
    pending = False

    def fire(self):
        """The alarm: the hardware's event, then the interrupt unless they are off."""
        self.event()
        if _irq_off[0]:
            self.pending = True
        else:
            self.interrupt()


def reset():
    """The chip restarts (machine.reboot()): its timers, UARTs and I2S stopped, let go."""
    for i in range(len(_slots)):
        part = _slots[i]
        if part is not None and part.due_ms is not None:
            _disarm(part)
        _slots[i] = None
    _irq_off[0] = False
    _memory.clear()


# ---- Timer -------------------------------------------------------------------------------

_TIMER_HZ = 10000000   # the timer's clock: APB's 80 MHz over the port's divider 8


class Timer(_Source):
    """A hardware timer, as machine_timer.c: Timer(0)-Timer(3) (two on a C3), the same
    object for the same number; init(mode=PERIODIC, callback=None, period=0xffffffff,
    tick_hz=1000, freq=None, hard=False), keyword only; the callback scheduled at each
    alarm. Its period is kept to the millisecond here (at least 1 ms)."""

    ONE_SHOT = 0
    PERIODIC = 1

    def __new__(cls, *args, **kwargs):
        n = _unit(args) & 0xFFFFFFFF   # mp_obj_get_int into a uint32_t
        if n >= (4 if _classic() else 2):
            raise ValueError("invalid Timer number")
        timer = _slots[n]
        if timer is None:
            timer = _slots[n] = object.__new__(cls)
            timer.id = n
            timer._repeat = 0
            timer._ticks = 0
            timer._callback = None
            timer._set = False
            timer._start = 0
        return timer

    def __init__(self, *args, **kwargs):
        if len(args) > 1 or kwargs:
            self.init(*args[1:], **kwargs)

    def init(self, *args, **kwargs):
        machine._too_many(args, kwargs, 0,
                          ("mode", "callback", "period", "tick_hz", "freq", "hard"))
        self._stop()
        if kwargs.get("hard"):
            raise ValueError("hard Timers are not implemented")
        if kwargs.get("freq") is not None:
            self._ticks = int(_TIMER_HZ / kwargs["freq"])
        else:
            period = _int(kwargs.get("period", 0xFFFFFFFF)) & 0xFFFFFFFFFFFFFFFF
            self._ticks = period * _TIMER_HZ // _int(kwargs.get("tick_hz", 1000))
        self._repeat = _int(kwargs.get("mode", 1))
        self._callback = kwargs.get("callback")
        self._set = True
        self._start = vclock.elapsed_ms()
        _arm(self, self._start + self._period_ms())

    def _period_ms(self):
        return max(1, (self._ticks + 5000) // 10000)

    def event(self):
        if self._repeat:
            self.due_ms += self._period_ms()
            now = vclock.elapsed_ms()
            if self.due_ms <= now:   # late (real time): the next one from now
                self.due_ms = now + self._period_ms()
        else:
            _disarm(self)

    def interrupt(self):
        _schedule(self._callback, self)

    def _stop(self):
        if self.due_ms is not None:
            _disarm(self)
        self.pending = False

    def deinit(self):
        self._stop()
        self._set = False

    __del__ = deinit

    def value(self):
        if not self._set:
            raise ValueError("timer not set")
        ran = vclock.elapsed_ms() - self._start
        return ran % self._period_ms() if self._repeat else ran

    def __repr__(self):
        return "Timer(%d, mode=%s, period=%d)" % (
            self.id, "PERIODIC" if self._repeat else "ONE_SHOT", self._ticks // 10000)


# ---- UART --------------------------------------------------------------------------------

def _uart_count():
    return 3 if _classic() else 2


class _UartIRQ:
    """The object irq() answers (shared/runtime/mpirq.c's): flags() what fired last,
    trigger() what it fires on."""

    def __init__(self, uart):
        self._uart = uart

    def flags(self):
        return self._uart._irq_flags

    def trigger(self, *new):
        if new:
            self._uart._irq_trigger = _int(new[0])
        return self._uart._irq_trigger

    def __repr__(self):
        return "<irq>"


class UART(_Pollable, _Source):
    """A UART as machine_uart.c makes it: UART(1) and UART(2) (UART(0) is the REPL's),
    their default pins, baudrate as the divider makes it, bits 5-8, parity, stop 1-2,
    its buffers (txbuf, rxbuf over 128), invert and flow masks checked. A byte takes its
    time on the wire: write() waits for room in the buffer, flush() for the last bit,
    txdone() says whether it went. Nothing is wired to the chip's pins but what it wires
    itself: bytes sent on a pin are heard by a UART receiving on that same pin (a
    loopback, tx=rx), or on a pin machine.wire_pins() joined to it."""

    INV_TX = 32
    INV_RX = 4
    INV_RTS = 64
    INV_CTS = 8
    RTS = 1
    CTS = 2
    IRQ_RX = 1
    IRQ_BREAK = 2
    IRQ_RXIDLE = 0x1000
    _FIFO = 128

    def __new__(cls, *args, **kwargs):
        n = _unit(args)
        if not 0 <= n < _uart_count():
            raise ValueError("UART(%d) does not exist" % n)
        uart = _slots[4 + n]
        if uart is None:
            uart = object.__new__(cls)
            uart.id = n
            uart._installed = False
            uart._irq = None
            uart._irq_trigger = 0
            uart._irq_flags = 0
            uart._handler = None
        return uart

    def __init__(self, *args, **kwargs):
        if self.id == 0:   # the REPL's: no driver of the program's, as the port answers
            raise _esp_err(0x103, "ESP_ERR_INVALID_STATE")
        self.init(*args[1:], **kwargs)
        _slots[4 + self.id] = self

    def init(self, *args, **kwargs):
        machine._too_many(args, kwargs, 4, (
            "baudrate", "bits", "parity", "stop", "tx", "rx", "rts", "cts", "txbuf",
            "rxbuf", "timeout", "timeout_char", "invert", "flow"))
        given = dict(zip(("baudrate", "bits", "parity", "stop"), args))
        given.update(kwargs)
        if not self._installed:   # as the port's defaults on a fresh driver
            self.bits, self.parity, self.stop = 8, 0, 1
            self.rts = self.cts = -1
            self.txbuf = self.rxbuf = 256
            self.timeout = self.timeout_char = 0
            self.invert = self.flow = 0
            self.tx, self.rx = {1: (10, 9), 2: (17, 16)}[self.id]
            self._baud = 115200
            self._sending_until = None   # vclock.elapsed_us() when the last bit leaves
            self._coming = []            # [elapsed_us its first byte is in, us a byte, data]
            self._inbox = b""
        else:
            self.flush()
        txbuf = _int(given.get("txbuf", -1))
        rxbuf = _int(given.get("rxbuf", -1))
        if rxbuf >= 0:
            if rxbuf <= self._FIFO:
                raise _esp_err(0x102, "ESP_ERR_INVALID_ARG")   # uart_driver_install's
            self.rxbuf = rxbuf
        if txbuf >= 0:
            if 0 < txbuf <= self._FIFO:
                raise _esp_err(0x102, "ESP_ERR_INVALID_ARG")
            self.txbuf = txbuf
        self._installed = True
        baudrate = _int(given.get("baudrate", 0))
        if baudrate > 0:
            self._baud = baudrate
        for name in ("tx", "rx", "rts", "cts"):
            if given.get(name) is not None:
                setattr(self, name, machine._gpio(given[name]))
        for out in (self.tx, self.rts):
            if out >= 34 and _classic():   # an input-only pin can't drive the line
                raise _esp_err(-1, "ESP_FAIL")
        bits = _int(given.get("bits", 0))
        if bits:
            if not 5 <= bits <= 8:
                raise ValueError("invalid data bits")
            self.bits = bits
        if "parity" in given:
            parity = given["parity"]
            self.parity = 0 if parity is None else (1 if _int(parity) & 1 else 2)
        stop = _int(given.get("stop", 0))
        if stop:
            if stop not in (1, 2):
                raise ValueError("invalid stop bits")
            self.stop = stop
        if given.get("timeout", -1) != -1:
            self.timeout = _int(given["timeout"])
        if given.get("timeout_char", -1) != -1:
            self.timeout_char = _int(given["timeout_char"])
        invert = _int(given.get("invert", -1))
        if invert != -1:
            if invert & ~(self.INV_TX | self.INV_RX | self.INV_RTS | self.INV_CTS):
                raise ValueError("invalid inversion mask")
            self.invert = invert
        flow = _int(given.get("flow", -1))
        if flow != -1:
            if flow & ~(self.RTS | self.CTS):
                raise ValueError("invalid flow control mask")
            self.flow = flow
        self._coming = []   # what came under the old settings is discarded
        self._inbox = b""

    def deinit(self):
        self._installed = False
        self._coming = []
        self._inbox = b""
        if self.due_ms is not None:
            _disarm(self)

    def __repr__(self):
        text = ("UART(%d, baudrate=%d, bits=%d, parity=%s, stop=%d, tx=%d, rx=%d, rts=%d, "
                "cts=%d, txbuf=%d, rxbuf=%d, timeout=%d, timeout_char=%d, irq=%d" % (
                    self.id, self.baudrate(), self.bits,
                    ("None", "1", "0")[self.parity], self.stop, self.tx, self.rx, self.rts,
                    self.cts, self.txbuf, self.rxbuf, self.timeout, self.timeout_char,
                    self._irq_trigger))
        if self.invert:
            text += ", invert=" + "|".join(
                name for name, bit in (("INV_TX", 32), ("INV_RX", 4), ("INV_RTS", 64),
                                       ("INV_CTS", 8)) if self.invert & bit)
        if self.flow:
            text += ", flow=" + "|".join(
                name for name, bit in (("RTS", 1), ("CTS", 2)) if self.flow & bit)
        return text + ")"

    def baudrate(self):
        # The divider's: its clock (APB 80 MHz; a C3's XTAL 40 MHz) in sixteenths.
        clock16 = (80000000 if _classic() else 40000000) * 16
        return clock16 // (clock16 // self._baud)

    def _byte_us(self):
        bits = 1 + self.bits + (1 if self.parity else 0) + self.stop
        return bits * 1000000 // self.baudrate()

    # the line out

    def write(self, buf):
        if not self._installed:
            return None   # the driver gone: EAGAIN, as the port's stream answers it
        data = bytes(buf, "utf-8") if isinstance(buf, str) else bytes(buf)
        byte_us = self._byte_us()
        start = max(vclock.elapsed_us(), self._sending_until or 0)
        self._sending_until = start + len(data) * byte_us
        self._deliver(start, byte_us, data)
        # uart_write_bytes returns once the bytes are in its buffer (txbuf + the FIFO)
        room_us = (self.txbuf + self._FIFO) * byte_us
        vclock.wait_us(self._sending_until - room_us - vclock.elapsed_us())
        return len(data)

    def flush(self):
        if self._sending_until is not None:
            vclock.wait_us(self._sending_until - vclock.elapsed_us())

    def txdone(self):
        return self._sending_until is None or self._sending_until <= vclock.elapsed_us()

    def sendbreak(self):
        self.flush()
        vclock.wait_us(13000000 // self.baudrate())

    def _deliver(self, start, byte_us, data):
        for uart in _slots[4:7]:
            if (uart is not None and uart._installed
                    and machine._wired(self.tx, uart.rx)):
                uart._coming.append([start + byte_us, byte_us, data])
                uart._watch()

    # the line in

    def _take(self):
        """What has come in by now into the buffer (rxbuf + the FIFO; the rest lost)."""
        if not self._coming:
            return
        now = vclock.elapsed_us()
        keep = []
        for item in self._coming:
            first, byte_us, data = item
            late = now - first
            n = 0 if late < 0 else min(len(data), late // byte_us + 1)
            if n:
                room = self.rxbuf + self._FIFO - len(self._inbox)
                self._inbox += data[:max(0, min(n, room))]
                data = data[n:]
            if data:
                keep.append([first + n * byte_us, byte_us, data])
        self._coming = keep

    def any(self):
        if not self._installed:
            raise _esp_err(-1, "ESP_FAIL")
        self._take()
        return len(self._inbox)

    def _wait_for(self, n, first_ms, then_ms):
        # The port's: the first byte within timeout, each next within timeout_char.
        limit_ms = first_ms
        have = -1
        while True:
            self._take()
            if len(self._inbox) >= n:
                return
            if len(self._inbox) != have:
                have = len(self._inbox)
                since = vclock.elapsed_us()
                if have:
                    limit_ms = then_ms
            if vclock.elapsed_us() - since >= limit_ms * 1000:
                return
            vclock.wait_us(200)

    def read(self, n=-1):
        if not self._installed:
            return None
        if n is not None and n == 0:
            return b""
        want = 1 if n is None or n < 0 else n
        self._wait_for(want, self.timeout, self.timeout_char)
        if not self._inbox:
            return None
        take = len(self._inbox) if n is None or n < 0 else n
        out, self._inbox = self._inbox[:take], self._inbox[take:]
        return out

    def readinto(self, buf, n=-1):
        data = self.read(len(buf) if n is None or n < 0 else min(n, len(buf)))
        if data is None:
            return None
        buf[:len(data)] = data
        return len(data)

    def readline(self):
        line = b""
        while not line.endswith(b"\n"):
            c = self.read(1)
            if c is None:
                break
            line += c
        return line or None

    def ioctl(self, request, arg):
        if request == 3:   # MP_STREAM_POLL
            self._take()
            return (arg & _POLL_RD if self._inbox else 0) | (arg & _POLL_WR)
        return -1   # no other stream request (no file descriptor)

    # its interrupts

    def irq(self, *args, **kwargs):
        machine._too_many(args, kwargs, 3, ("handler", "trigger", "hard"))
        if self._irq is None:
            self._irq = _UartIRQ(self)
        if args or kwargs:
            handler = args[0] if args else kwargs.get("handler")
            trigger = _int(args[1] if len(args) > 1 else kwargs.get("trigger", 0))
            hard = args[2] if len(args) > 2 else kwargs.get("hard", False)
            if handler is not None and not callable(handler):
                raise ValueError("handler must be None or callable")
            unsupported = trigger & ~(self.IRQ_RX | self.IRQ_RXIDLE | self.IRQ_BREAK)
            if trigger and unsupported:
                raise ValueError("trigger 0x%04x unsupported" % unsupported)
            self._handler = handler
            if hard:
                raise ValueError("hard IRQ is not supported")
            self._irq_trigger = trigger
            self._watch()
        return self._irq

    def _watch(self):
        # The UART's event task: its alarm at the next byte's arrival, or the line idle.
        if self._handler is None or not self._irq_trigger or not self._coming:
            return
        first = self._coming[0][0]
        if self._irq_trigger & self.IRQ_RXIDLE:
            last = self._coming[-1]
            first = last[0] + (len(last[2]) + 1) * last[1]
        _arm(self, vclock.elapsed_ms() + max(0, first - vclock.elapsed_us() + 999) // 1000)

    def event(self):
        # (the interrupts' thread, in real time: nothing of the program's state touched)
        _disarm(self)
        self._irq_flags = (self.IRQ_RXIDLE if self._irq_trigger & self.IRQ_RXIDLE
                           else self.IRQ_RX)

    def interrupt(self):
        if self._irq_trigger & self._irq_flags and self._handler is not None:
            _schedule(self._handler, self)


# ---- I2S ---------------------------------------------------------------------------------

class I2S(_Source):
    """I2S as machine_i2s.c makes it on the ESP32: I2S(0) and I2S(1) (one on a C3), every
    keyword required (sck, ws, sd, mode, bits, format, rate, ibuf), bits 16 or 32, its
    DMA buffers sized as the port sizes them. The samples take their time: write()
    returns once what it gave fits in the DMA buffers, draining at the rate; readinto()
    once that much has come (zeros: no microphone is wired here). irq(handler): the
    handler scheduled once the transfer is done."""

    RX = 1
    TX = 2
    STEREO = 1
    MONO = 0

    def __new__(cls, *args, **kwargs):
        n = _unit(args)
        if not 0 <= n < (2 if _classic() else 1):
            raise ValueError("invalid id")
        i2s = _slots[7 + n]
        if i2s is None:
            i2s = _slots[7 + n] = object.__new__(cls)
            i2s.id = n
            i2s._live = False
            i2s._handler = None
        return i2s

    def __init__(self, *args, **kwargs):
        self.deinit()
        self.init(*args[1:], **kwargs)

    def init(self, *args, **kwargs):
        names = ("sck", "ws", "sd", "mode", "bits", "format", "rate", "ibuf")
        machine._too_many(args, kwargs, 0, names)
        self.deinit()
        for name in names:
            if name not in kwargs:
                raise TypeError("'%s' argument required" % name)
        self.sck, self.ws, self.sd = (machine._gpio(kwargs[k]) for k in ("sck", "ws", "sd"))
        self.mode = _int(kwargs["mode"])
        if self.mode not in (self.RX, self.TX):
            raise ValueError("invalid mode")
        self.bits = _int(kwargs["bits"])
        if self.bits not in (16, 32):
            raise ValueError("invalid bits")
        self.format = _int(kwargs["format"])
        if self.format not in (self.STEREO, self.MONO):
            raise ValueError("invalid format")
        self.rate = _int(kwargs["rate"])
        self.ibuf = _int(kwargs["ibuf"])
        # get_dma_buf_count: 256 frames a buffer, at least 2; RX reads 32-bit stereo.
        dma_frame = 8 if self.mode == self.RX else self.bits // 8 * (2 if self.format else 1)
        self._frames_held = max(2, self.ibuf // (256 * dma_frame)) * 256
        self._frame = self.bits // 8 * (2 if self.format else 1)   # the program's frame
        self._since = vclock.elapsed_us()   # TX: when the DMA empties; RX: frames from here
        self._taken = 0         # RX: frames read
        self._live = True

    def deinit(self):
        self._live = False
        self._handler = None
        if self.due_ms is not None:
            _disarm(self)

    __del__ = deinit

    def __repr__(self):
        return ("I2S(id=%d,\nsck=%d,\nws=%d,\nsd=%d,\nmode=%d,\nbits=%d, format=%d,\n"
                "rate=%d, ibuf=%d)" % (self.id, self.sck, self.ws, self.sd, self.mode,
                                       self.bits, self.format, self.rate, self.ibuf))

    def _us(self, frames):
        return frames * 1000000 // self.rate

    def write(self, buf):
        if not self._live:
            raise OSError(5)   # the port's EIO: no channel
        if self.mode != self.TX:
            raise OSError(1)   # EPERM: an RX I2S
        frames = len(buf) // self._frame
        self._since = max(self._since, vclock.elapsed_us()) + self._us(frames)
        vclock.wait_us(self._since - self._us(self._frames_held) - vclock.elapsed_us())
        self._done()
        return len(buf)

    def readinto(self, buf):
        if not self._live:
            raise OSError(5)
        if self.mode != self.RX:
            raise OSError(1)
        frames = len(buf) // self._frame
        came = (vclock.elapsed_us() - self._since) * self.rate // 1000000
        self._taken = max(self._taken, came - self._frames_held)   # the oldest lost
        self._taken += frames
        vclock.wait_us(self._us(self._taken) - (vclock.elapsed_us() - self._since))
        for i in range(frames * self._frame):
            buf[i] = 0
        self._done()
        return frames * self._frame

    def _done(self):
        if self._handler is not None:
            _arm(self, vclock.elapsed_ms())

    def irq(self, handler):
        if handler is not None and not callable(handler):
            raise ValueError("invalid callback")
        self._handler = handler

    def event(self):
        _disarm(self)

    def interrupt(self):
        if self._handler is not None:
            _schedule(self._handler, self)

    @staticmethod
    def shift(*args, **kwargs):
        machine._too_many(args, kwargs, 0, ("buf", "bits", "shift"))
        for name in ("buf", "bits", "shift"):
            if name not in kwargs:
                raise TypeError("'%s' argument required" % name)
        buf, bits, shift = kwargs["buf"], _int(kwargs["bits"]), _int(kwargs["shift"])
        if bits not in (16, 32):
            raise ValueError("invalid bits")
        size = bits // 8
        top = 1 << (bits - 1)
        for at in range(0, len(buf) - size + 1, size):
            v = int.from_bytes(bytes(buf[at:at + size]), "little")
            v = v - (top << 1) if v & top else v
            v = v << shift if shift >= 0 else v >> -shift
            buf[at:at + size] = (v & ((top << 1) - 1)).to_bytes(size, "little")


# ---- memory ------------------------------------------------------------------------------
# mem8/16/32 over the chip's address map: a mapped address reads what was written there
# (0 until then: the registers' and RAM's contents are not modelled); any other is the
# chip's LoadProhibited/StoreProhibited panic, and a reset, as a real one would.

_ESP32_MAP = ((0x3F400000, 0x3F800000), (0x3FF00000, 0x3FF82000), (0x3FF90000, 0x3FFA0000),
              (0x3FFAE000, 0x40000000), (0x40000000, 0x40060000), (0x40070000, 0x400C2000),
              (0x400C2000, 0x40C00000), (0x50000000, 0x50002000), (0x60000000, 0x60040000))
_C3_MAP = ((0x3C000000, 0x3C800000), (0x3FC80000, 0x3FCE0000), (0x3FF00000, 0x3FF20000),
           (0x40000000, 0x40060000), (0x4037C000, 0x403E0000), (0x42000000, 0x42800000),
           (0x50000000, 0x50002000), (0x60000000, 0x600D1000))
_memory = {}   # address -> byte written


def _mapped(addr):
    for low, high in (_ESP32_MAP if _classic() else _C3_MAP):
        if low <= addr < high:
            return True
    return False


class _Mem:
    def __init__(self, size):
        self._size = size

    def __repr__(self):
        return "<%d-bit memory>" % (8 * self._size)

    def _addr(self, addr, store):
        if not isinstance(addr, int):
            raise TypeError("can't convert %s to int" % type(addr).__name__)
        addr &= 0xFFFFFFFF
        if addr & (self._size - 1):
            raise ValueError("address %08x is not aligned to %d bytes" % (addr, self._size))
        if not _mapped(addr):
            print("Guru Meditation Error: Core  1 panic'ed (%s). Exception was unhandled."
                  % ("StoreProhibited" if store else "LoadProhibited"))
            machine._reset(machine.HARD_RESET, "a panic: address %08x" % addr)
        return addr

    def __getitem__(self, addr):
        addr = self._addr(addr, False)
        value = 0
        for i in range(self._size):
            value |= _memory.get(addr + i, 0) << (8 * i)
        return value

    def __setitem__(self, addr, value):
        addr = self._addr(addr, True)
        value = _int(value) & 0xFFFFFFFF
        for i in range(self._size):
            _memory[addr + i] = value >> (8 * i) & 0xFF

    def __delitem__(self, addr):
        raise TypeError("'mem' object doesn't support item deletion")


mem8 = _Mem(1)
mem16 = _Mem(2)
mem32 = _Mem(4)


# From here on machine's: machine.Timer and the rest come from this module.
machine._more.append(sys.modules[__name__])
