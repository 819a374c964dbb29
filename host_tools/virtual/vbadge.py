# `cran vbadge`: a virtual badge behind a pseudo-terminal. The firmware runs inside the
# MicroPython unix port on a LittleFS flash image (host_tools/virtual/scripts/vbadge_boot.py); this
# supervisor stands where a badge's USB-serial chip stands: it owns the port (a pty whose
# path it prints), relays bytes, and boots the chip again when it resets. Real mpremote
# and `cran flash` copy files to it, run code, reset it and use its console as a badge's.
#
# The unix port answers the REPL, the raw REPL and raw-paste, but ends its process where
# a board soft-resets, and `-i` turns a SystemExit from a script into a REPL. So each
# boot is a new process ("chip") on a pty of its own, behind the one port:
#   boot chip: boot.py, main.py, no REPL. Ctrl-C (SIGINT, from its pty's ISIG) or the end
#     of main.py ends it: a REPL chip follows, as a board drops to its REPL.
#   REPL chip (`micropython -i`): Ctrl-D at an empty line (or sys.exit()) ends it: a soft
#     reset. "MPY: soft reboot", then main.py again; from the raw REPL, boot.py and the
#     raw REPL again (the supervisor types the Ctrl-A), which mpremote waits for.
#   machine.reset(), the watchdog, deepsleep: the chip exits EXIT_RESET + cause, and a
#     boot chip starts with that reset cause.
#   The firmware's watchdog: the chip writes the time it has left whenever it is
#     started or fed (at the REPL too, where machine.WDT() sets and feeds it), and the
#     supervisor resets the chip with WDT_RESET when that runs out: a hung firmware
#     (which moves no clock) or, after Ctrl-C, the REPL unfed (nothing can stop the
#     watchdog on an ESP32).
# Nothing outlives the supervisor, even killed with SIGKILL: a chip dies with it (Linux's
# parent-death signal), and its temporary files are unlinked as soon as they are made,
# reached through their descriptors (/dev/fd/N in a chip, which inherits them).
import contextlib
import fcntl
import json
import os
import select
import signal
import subprocess
import sys
import tempfile
import termios
import time
import tty

from host_tools import CommandError
from host_tools.virtual import SCRIPTS_DIR, registry
from host_tools.virtual.micropython import VHW_DIR
from host_tools.virtual.runtimes import (
    HOW_TO_GET_CIRCUITPYTHON,
    find_circuitpython,
)

BOOT_SCRIPT = os.path.join(SCRIPTS_DIR, "vbadge_start.py")   # (vbadge_boot.py, Ctrl-C off first)
CP_BOOT_SCRIPT = os.path.join(SCRIPTS_DIR, "cpbadge_boot.py")   # a CircuitPython board's chip
IMAGE_BYTES = 2 * 1024 * 1024   # a new image: the size of an ESP32's usual vfs partition
# --romfs: the ROMFS partition of MicroPython's ESP32 ROMFS variant (its
# partitions-4MiB-romfs.csv gives 0x20000 bytes).
ROMFS_BYTES = 0x20000
# host_tools/virtual/circuitpython/microcontroller.py's, an ESP32-S3's microcontroller.nvm
NVM_BYTES = 8192
EXIT_BAD_IMAGE = 3              # vbadge_boot.py's exit codes
EXIT_RESET = 80
PWRON_RESET, HARD_RESET, WDT_RESET, DEEPSLEEP_RESET, SOFT_RESET = 1, 2, 3, 4, 5
SOFT_REBOOT = b"MPY: soft reboot\r\n"
RAW_BANNER = b"raw REPL; CTRL-B to exit"
FRIENDLY_BANNER = b'Type "help()" for more information.'
PROMPT = b">>> "
INTERRUPT_S = 1.0       # after a Ctrl-C to main.py, input waits this long for the REPL
QUEUE_BYTES = 65536     # bytes kept for a side that isn't reading; more are lost
QUICK_FAIL_S = 2.0      # a chip ending this soon after its start, three times: give up
IDLE_POLL_MS = 50       # while nobody has the port open: how often to look again
WATCHDOG_LOOK_MS = 250  # while the firmware runs: how often to see whether it fed its dog


# --buttons: a key a gesture, as in cran sim: a short press, A a long one, d a double;
# b, B, D the same on a second button.
GESTURES = {"a": ("a", "short"), "A": ("a", "long"), "d": ("a", "double"),
            "b": ("b", "short"), "B": ("b", "long"), "D": ("b", "double")}


class Finger:
    """`cran vbadge --buttons`: keys typed on the supervisor's stdin, each a gesture told
    to the chip through a pipe (read_fd, which every chip inherits), where a thread of
    its own plays it on the pins (vbadge_boot.py's fingers)."""

    def __init__(self, board_file):
        with open(board_file) as f:
            self.buttons = [b["name"] for b in json.load(f)["buttons"]]
        self.read_fd, self.write_fd = os.pipe()

    def keys(self, data):
        for key in data.decode("ascii", "replace"):
            if key.isspace():
                continue
            gesture = GESTURES.get(key)
            if gesture is None or gesture[0] not in self.buttons:
                known = [k for k, g in GESTURES.items() if g[0] in self.buttons]
                print("cran vbadge: %r: not a press on this badge (%s: a short press, "
                      "a long one, a double one)" % (key, ", ".join(known)),
                      file=sys.stderr, flush=True)
                continue
            os.write(self.write_fd, ("%s %s\n" % gesture).encode())

    def close(self):
        os.close(self.read_fd)
        os.close(self.write_fd)


class Chip:
    """One MicroPython process, from a reset to the next, on its own pty. The supervisor
    keeps the pty's other end (line) open too: once the chip has ended, what it never
    read is still there (unread()), as a board's UART keeps it for the REPL that comes
    after main.py; its end is told by its pidfd."""

    def __init__(self, argv, repl, pass_fds=()):
        self.kind = "repl" if repl else "boot"
        self.started = time.monotonic()
        self.fd, line = os.openpty()
        self.line = line
        _uart_mode(line)   # before any byte arrives: none must meet a default tty
        # SIGTERM (which stops the supervisor by raising _Stop) held off while the chip
        # is forked: raised in the fork's own bookkeeping (an at-fork hook), it was
        # lost, and the supervisor ran on. It lands just after.
        held = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM})
        try:
            # Its own session with the pty as controlling terminal: Ctrl-C reaches it.
            # Out of the supervisor's process group, it must still die with it.
            supervisor = os.getpid()
            self.process = subprocess.Popen(
                argv, stdin=line, stdout=line, stderr=line, start_new_session=True,
                pass_fds=pass_fds, preexec_fn=lambda: _chip_setup(supervisor, held))
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, held)
        os.set_blocking(self.fd, False)   # (not line: its file is the chip's stdin too)
        self.ended = os.pidfd_open(self.process.pid)   # readable once it has ended

    def hears_ctrl_c(self):
        """Whether Ctrl-C interrupts the firmware now: MicroPython's kbd_intr(-1) (a
        locked badge, cran.lock) gives SIGINT back to its default in the unix port, where
        an ESP32 makes Ctrl-C a byte like any other. Linux says it in SigCgt."""
        try:
            with open("/proc/%d/status" % self.process.pid) as f:
                for line in f:
                    if line.startswith("SigCgt:"):
                        return bool(int(line.split()[1], 16) & (1 << (signal.SIGINT - 1)))
        except (OSError, ValueError):
            pass
        return True   # no /proc: as before the lock existed

    def ctrl_c_is_a_signal(self, on):
        attrs = termios.tcgetattr(self.fd)
        if bool(attrs[3] & termios.ISIG) != on:
            attrs[3] = attrs[3] | termios.ISIG if on else attrs[3] & ~termios.ISIG
            termios.tcsetattr(self.fd, termios.TCSANOW, attrs)

    def unread(self):
        """What was given to the chip and it never read (it has ended)."""
        out = bytearray()
        while select.select([self.line], [], [], 0)[0]:
            data = os.read(self.line, 4096)
            if not data:
                break
            out += data
        return bytes(out)

    def close(self):
        for fd in (self.fd, self.line, self.ended):
            os.close(fd)

    def kill(self):
        self.process.kill()
        self.process.wait()
        self.close()


def _uart_mode(fd):
    # The chip's pty, when MicroPython isn't in its REPL (which sets raw mode itself),
    # looks like a badge's UART: no echo, no line editing, bytes in as sent (Enter is \r
    # on sys.stdin.buffer, as an ESP32 gives it), bytes out as written (the relay adds
    # \r before \n), and Ctrl-C alone is a signal: SIGINT, which the port turns into
    # KeyboardInterrupt.
    attrs = termios.tcgetattr(fd)
    attrs[0] = 0
    attrs[1] = 0
    attrs[3] = termios.ISIG | termios.NOFLSH
    cc = attrs[6]
    cc[termios.VQUIT] = cc[termios.VSUSP] = b"\0"
    cc[termios.VMIN], cc[termios.VTIME] = 1, 0
    termios.tcsetattr(fd, termios.TCSANOW, attrs)


def _chip_setup(supervisor, mask):
    # In the chip's process, before MicroPython: the supervisor's signal mask as it was
    # (SIGTERM was held for the fork), the pty as its controlling terminal, and death
    # with the supervisor (else a supervisor killed with SIGKILL, or its process group,
    # leaves the chip running on, writing its flash). Ctrl-C ignored until MicroPython
    # turns it on (where a chip's pyexec does, vbadge_boot.py): an ESP32's C start has
    # it off, and the process that starts the interpreter (PyPI's micropython is a
    # CPython program) would otherwise take it as its own, a window no chip has.
    signal.pthread_sigmask(signal.SIG_SETMASK, mask)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)
    die_with_parent(supervisor)


_PR_SET_PDEATHSIG = 1


def _find_prctl():
    if not sys.platform.startswith("linux"):
        return None
    try:
        import ctypes
        return ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None


_PRCTL = _find_prctl()   # found before any fork: a child only calls it


def die_with_parent(parent):
    """In a child between fork and exec: SIGKILL when `parent` ends (Linux; elsewhere
    nothing, and docs/COMMANDS.md says so)."""
    if _PRCTL is None:
        return
    _PRCTL(_PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != parent:   # it ended before the line above: nothing will come
        os._exit(1)


def unnamed_temp(prefix, suffix=""):
    """A temporary file nothing can leave behind, even a SIGKILL: unlinked as soon as it
    is made, kept by its descriptor. -> (fd, its path for a child that inherits fd)."""
    fd, path = tempfile.mkstemp(prefix=prefix, suffix=suffix)
    os.unlink(path)
    return fd, "/dev/fd/%d" % fd


class VBadge:
    # What the interpreter says, where the supervisor looks for it.
    interpreter = "micropython"
    soft_reboot = SOFT_REBOOT
    friendly_banner = FRIENDLY_BANNER   # the friendly REPL's, not the raw REPL's
    banner_start = b"MicroPython "      # where the REPL's banner starts

    def __init__(self, exe, image, board_file, nvs_file, pass_fds=(), romfs_file=None,
                 finger=None, baud=None):
        self.exe = exe
        # --baud: the port's bytes reach the chip no faster than a UART at this rate
        # carries them (10 bits a byte), as a badge's USB-serial chip passes them on;
        # None: as fast as they come.
        self.byte_s = None if baud is None else 10.0 / baud
        self.uart_free_at = 0.0      # monotonic s at which the line is free again
        self.finger = finger   # --buttons: its Finger, fed from stdin
        self.typing = finger is not None   # until stdin ends
        self.image = image
        self.board_file = board_file
        self.nvs_file = nvs_file   # the chip's NVS partition (esp32.NVS)
        self.romfs_file = romfs_file   # its ROMFS partition, or None: a firmware without
        self.port_fd, slave = os.openpty()
        tty.setraw(slave)   # a UART: bytes as they are, both ways
        self.port = os.ttyname(slave)
        # What its chip id comes from: the image's path, kept between runs; a temporary
        # image's (/dev/fd/N, the same in every vbadge) made unique by the port's.
        self.chip_name = image if not image.startswith("/dev/fd/") else image + self.port
        os.close(slave)     # the port hangs up until someone opens it
        os.set_blocking(self.port_fd, False)
        self.chip = None
        self.cause = PWRON_RESET
        self.to_host = bytearray()   # for the port, not yet taken
        self.to_chip = bytearray()   # from the port, not yet given to the chip
        self.after_cr = False        # the last byte sent to the port was \r
        self.raw = False             # the REPL chip's last banner was the raw REPL's
        self.tail = b""              # the REPL chip's last bytes, to find banners in
        self.last_out = b""          # the chip's last output, for an error message
        self.starting = False        # a REPL chip not yet at its first prompt
        self.enter_raw = False       # ... which then goes into the raw REPL
        self.start_out = bytearray()
        self.hold_until = None       # input waits: a Ctrl-C went to main.py
        self.quick_fails = 0
        # The firmware's watchdog, still running at the REPL after Ctrl-C (it can't be
        # stopped): when it bites (monotonic s), or None. The boot chip says how long
        # it had left in this file.
        self.watchdog_at = None
        self.watchdog_fd, self.watchdog_file = unnamed_temp("cran-vbadge-wdt-")
        self.pass_fds = tuple(pass_fds) + (self.watchdog_fd,)   # what every chip inherits
        if finger is not None:
            self.pass_fds += (finger.read_fd,)
            os.environ["CRAN_VBADGE_FINGER"] = "/dev/fd/%d" % finger.read_fd

    # ---- chips --------------------------------------------------------------------

    def _start(self, action, cause):
        self.cause = cause
        if action == "boot":
            self.watchdog_at = None   # a new firmware, a new watchdog of its own
            os.ftruncate(self.watchdog_fd, 0)
        repl = action.startswith("repl")
        self.chip = Chip([self.exe] + (["-i"] if repl else []) + self.chip_args(action, cause),
                         repl, self.pass_fds)
        self.starting = self.chip.kind == "repl"
        self.start_out = bytearray()
        self.tail = b""

    def chip_args(self, action, cause):
        """The boot script's command line for a chip doing action after a reset."""
        return [BOOT_SCRIPT, action, self.image, self.board_file, str(cause), VHW_DIR,
                self.watchdog_file, self.nvs_file, self.chip_name] + (
                    [self.romfs_file] if self.romfs_file else [])

    def boot(self, cause):
        self.raw = False
        self._start("boot", cause)

    def repl(self, enter_raw, boot_py):
        self.enter_raw = enter_raw
        self._start("repl-boot" if boot_py else "repl", self.cause)

    def _chip_ended(self):
        self._drain_chip()   # its last words first
        chip, self.chip = self.chip, None
        code = chip.process.wait()
        # What it never read goes to the next chip, before what came since: a board's
        # UART still holds it when main.py ends (a reset loses it, below).
        self.to_chip[:0] = chip.unread()
        chip.close()
        interrupted, self.hold_until = self.hold_until is not None, None
        if code == EXIT_BAD_IMAGE:
            raise CommandError("%s: the flash image can no longer be mounted: %s"
                               % (self.image, self._last_words()))
        if EXIT_RESET < code <= EXIT_RESET + SOFT_RESET:
            cause = code - EXIT_RESET      # the virtual machine module's own reset
        elif chip.kind == "boot" and (code == 0 or interrupted and code in (1, -2)):
            # main.py is over, or Ctrl-C stopped it (1, SIGINT: before the port set its
            # handler, or a second Ctrl-C): the REPL, without a reset.
            self._watchdog_runs_on()
            self.repl(enter_raw=False, boot_py=False)
            return
        elif chip.kind == "repl" and code == 0:
            # Ctrl-D or sys.exit(): MicroPython restarts, the chip doesn't, and
            # machine.reset_cause() says what it said.
            cause = self.cause
        else:
            self._failed(chip, code)
            cause = HARD_RESET
        if code == 0 or cause == SOFT_RESET:
            self._to_host(self.soft_reboot)
            if chip.kind == "repl" and self.raw:
                self.cause = cause
                self.repl(enter_raw=True, boot_py=True)
            else:
                self.boot(cause)
            return
        self.to_chip.clear()   # a reset: what the UART held is gone
        self.boot(cause)

    def _watchdog_runs_on(self):
        """watchdog_at: when the watchdog bites (monotonic s, None when none was started),
        from what the chip last wrote (ms left, at the file's time)."""
        try:
            left = os.pread(self.watchdog_fd, 64, 0).decode().strip()
            written = os.fstat(self.watchdog_fd).st_mtime
        except (OSError, ValueError):
            return
        if not left:
            self.watchdog_at = None
        else:
            self.watchdog_at = time.monotonic() - (time.time() - written) + int(left) / 1000

    def _watchdog_bites(self):
        # At the REPL nothing feeds it: the chip resets, as an ESP32's would.
        self.watchdog_at = None
        if self.chip is not None:
            self.chip.kill()
            self.chip = None
        self.to_chip.clear()
        self.boot(WDT_RESET)

    def _failed(self, chip, code):
        # A crash: a board would panic and reboot. Booting again and again is a bug.
        how = "signal %d" % -code if code < 0 else "exit %d" % code
        if time.monotonic() - chip.started < QUICK_FAIL_S:
            self.quick_fails += 1
            if self.quick_fails >= 3:
                raise CommandError("%s keeps failing as the badge boots (%s): %s"
                                   % (self.interpreter, how, self._last_words()))
        else:
            self.quick_fails = 0
        print("cran vbadge: %s ended (%s): the badge reboots" % (self.interpreter, how),
              file=sys.stderr)

    def _last_words(self):
        text = self.last_out.decode("utf-8", "replace").strip().splitlines()
        return text[-1] if text else "no output"

    # ---- bytes --------------------------------------------------------------------

    def _from_chip(self, data):
        self.last_out = (self.last_out + data)[-500:]
        if self.chip.kind == "repl":
            seen = self.tail + data
            raw_at, friendly_at = seen.rfind(RAW_BANNER), seen.rfind(self.friendly_banner)
            if raw_at >= 0 or friendly_at >= 0:
                self.raw = raw_at > friendly_at
            self.tail = seen[-64:]
        if self.starting:
            self.start_out += data
            if not self.start_out.endswith(PROMPT):
                return
            data, self.start_out, self.starting = bytes(self.start_out), bytearray(), False
            if self.enter_raw:
                # Back into the raw REPL, as a board is after a soft reset there: its
                # friendly banner would not be shown; boot.py's output before it is.
                data = data[:max(data.rfind(self.banner_start), 0)]
                os.write(self.chip.fd, b"\x01")
        self._to_host(data)

    def _to_host(self, data):
        # MicroPython's unix port leaves \n -> \r\n to the terminal; a badge does it.
        out = data.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")
        if self.after_cr and data.startswith(b"\n"):
            out = out[1:]   # its \r came at the end of the last piece
        self.after_cr = data.endswith(b"\r")
        self.to_host += out   # bounded: serve() stops reading the chip past QUEUE_BYTES

    def _to_chip_now(self):
        """Give the chip what the port sent, unless it must wait: a REPL starting, or
        a Ctrl-C just sent to main.py (what follows is for the REPL that comes next)."""
        if not self.to_chip or self.starting or self.hold_until is not None:
            return
        data = bytes(self.to_chip)
        interrupts = self.chip.kind == "boot" and b"\x03" in data
        if interrupts:
            interrupts = self.chip.hears_ctrl_c()
            self.chip.ctrl_c_is_a_signal(interrupts)   # locked: the console reads it
        if interrupts:
            data = data[:data.index(b"\x03") + 1]
        if self.byte_s is not None:
            now = time.monotonic()
            self.uart_free_at = max(self.uart_free_at, now - 0.01)   # a 10 ms buffer
            data = data[:int((now - self.uart_free_at) / self.byte_s)]
            if not data:
                return
        try:
            n = os.write(self.chip.fd, data)
        except OSError:   # full, or the chip is ending: its end is read from its fd
            return
        del self.to_chip[:n]
        if self.byte_s is not None:
            self.uart_free_at += n * self.byte_s
        if interrupts and b"\x03" in data[:n]:
            self.hold_until = time.monotonic() + INTERRUPT_S

    # ---- the loop -----------------------------------------------------------------

    def serve(self):
        self.boot(PWRON_RESET)
        while True:
            connected = not _hung_up(self.port_fd)
            if not connected:
                self.to_host.clear()   # nobody on the other end of the UART
            poller = select.poll()
            if connected:
                poller.register(self.port_fd, select.POLLIN | (
                    select.POLLOUT if self.to_host else 0))
            # No reading from the chip while the port is full and open: it waits, as
            # behind a USB-serial link; nobody listening, its output is lost instead.
            mask = select.POLLIN if len(self.to_host) < QUEUE_BYTES else 0
            if self.to_chip and not self.starting and self.hold_until is None:
                mask |= select.POLLOUT
            poller.register(self.chip.fd, mask)
            poller.register(self.chip.ended, select.POLLIN)
            if self.typing:
                poller.register(sys.stdin.fileno(), select.POLLIN)
            timeout = None if connected else IDLE_POLL_MS
            # The firmware's watchdog, or one the REPL started or fed: looked at often.
            timeout = min(timeout or WATCHDOG_LOOK_MS, WATCHDOG_LOOK_MS)
            paced = self.to_chip and self.byte_s is not None   # the line busy till then
            for due in (self.hold_until, self.watchdog_at,
                        self.uart_free_at + self.byte_s if paced else None):
                if due is not None:
                    left = max(0, int((due - time.monotonic()) * 1000) + 1)
                    timeout = left if timeout is None else min(timeout, left)
            polled = self.chip
            for fd, events in poller.poll(timeout):
                if fd == self.port_fd:
                    self._port_events(events)
                elif self.chip is not polled:
                    continue   # what was polled of a chip that has ended (its fds reused)
                elif fd == polled.fd:
                    self._chip_events(events)
                elif fd == polled.ended:
                    self._chip_ended()
                elif self.typing and fd == sys.stdin.fileno():
                    self._typed()
            if self.hold_until is not None and time.monotonic() >= self.hold_until:
                self.hold_until = None   # main.py caught the Ctrl-C and goes on
            if self.chip is not None:
                self._watchdog_runs_on()   # fed meanwhile? (a running firmware, the REPL)
            if self.watchdog_at is not None and time.monotonic() >= self.watchdog_at:
                self._watchdog_bites()
            if self.chip is not None:
                self._to_chip_now()

    def _port_events(self, events):
        if events & select.POLLIN:
            with contextlib.suppress(OSError):
                data = os.read(self.port_fd, 4096)
                self.to_chip += data[:max(0, QUEUE_BYTES - len(self.to_chip))]
        if events & select.POLLOUT and self.to_host:
            with contextlib.suppress(OSError):
                del self.to_host[:os.write(self.port_fd, self.to_host)]

    def _typed(self):
        data = os.read(sys.stdin.fileno(), 256)
        if data:
            self.finger.keys(data)
        else:
            self.typing = False   # stdin ended: no more presses

    def _chip_events(self, events):
        # POLLOUT needs nothing here: the loop gives the chip its bytes after the events;
        # its end comes by its pidfd (the supervisor holds its pty's line open).
        if events & select.POLLIN:
            try:
                data = os.read(self.chip.fd, 4096)
            except OSError:   # nothing after all (EAGAIN)
                return
            if data:
                self._from_chip(data)

    def _drain_chip(self):
        """Everything the chip said, read: it has ended (nothing holds it back now)."""
        while True:
            try:
                data = os.read(self.chip.fd, 4096)
            except OSError:
                return
            if not data:
                return
            self._from_chip(data)

    def close(self):
        if self.chip is not None:
            self.chip.kill()
            self.chip = None
        os.close(self.port_fd)
        os.close(self.watchdog_fd)
        if self.finger is not None:
            self.finger.close()


def _hung_up(fd):
    poller = select.poll()
    poller.register(fd, select.POLLIN)
    return any(events & select.POLLHUP for _, events in poller.poll(0))


class CircuitPythonBadge(VBadge):
    """A board whose runtime is CircuitPython: each chip is the CircuitPython unix port
    on host_tools/virtual/scripts/cpbadge_boot.py, its file system a folder standing for the
    CIRCUITPY drive (`cran flash --drive` fills it), microcontroller.nvm in a file of its own. The
    supervisor, the port and the console are the MicroPython badge's."""
    interpreter = "circuitpython"
    soft_reboot = b"soft reboot\r\n"
    friendly_banner = banner_start = b"Adafruit CircuitPython "

    def __init__(self, exe, drive, board_file, nvm_file, pass_fds=()):
        VBadge.__init__(self, exe, drive, board_file, nvm_file, pass_fds)

    def chip_args(self, action, cause):
        from host_tools.virtual.circuitpython import VCP_DIR
        return [CP_BOOT_SCRIPT, action, self.image, self.board_file, str(cause), VCP_DIR,
                self.nvs_file, self.chip_name, self.watchdog_file]


# ---- the flash image ---------------------------------------------------------------------

def open_image(path):
    """Lock the image (two badges on one flash would wreck it); a new or empty file
    becomes an erased 2 MB flash. -> (locked fd, True when it is new)."""
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as e:
        raise CommandError("%s: cannot open the flash image: %s" % (path, e.strerror)) from e
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        raise CommandError("%s: in use by another cran vbadge" % path) from None
    new = os.fstat(fd).st_size == 0
    if new:
        _erase(fd)
    return fd, new


def _erase(fd):
    os.write(fd, b"\xff" * IMAGE_BYTES)   # an erased flash reads all ones


def check_image(exe, path, new, board_file, pass_fds=()):
    """Mount it once (formatting a new one) before the port opens: a bad image is one
    clear line, not a badge failing on the port."""
    action = "check-new" if new else "check"
    try:
        proc = subprocess.run([exe, BOOT_SCRIPT, action, path, board_file, "1", VHW_DIR],
                              capture_output=True, text=True, timeout=60, pass_fds=pass_fds)
    except subprocess.TimeoutExpired:
        raise CommandError("%s: micropython took over a minute to mount it" % path) from None
    if proc.returncode != 0:
        lines = (proc.stdout + proc.stderr).strip().splitlines() or ["exit %d"
                                                                    % proc.returncode]
        raise CommandError(lines[-1] if proc.returncode == EXIT_BAD_IMAGE else
                           "%s: micropython failed to mount it: %s" % (path, lines[-1]))


# ---- a badge served ------------------------------------------------------------------------

# What a vbadge says of itself: where cran's commands find it besides its port.
_FOUND = ("cran status --all, cran flash --all and cran logs --all find it (with the USB "
          "badges)")

class _Stop(BaseException):
    pass


def _stop(signum, frame):
    raise _Stop()


def serve(exe, board_file, board, image=None, romfs=False, buttons=False, link=None,
          baud=None):
    """A MicroPython badge on a port until Ctrl-C or SIGTERM: its flash image (None: a
    temporary one), its pty's path printed. -> exit code."""
    # SIGTERM stops it as Ctrl-C does: the chip, the link, a temporary image go with it.
    signal.signal(signal.SIGTERM, _stop)
    try:
        return _serve(exe, board_file, board, image, romfs, buttons, link, baud)
    except _Stop:
        return 0


def _serve(exe, board_file, board, image, romfs, buttons, link, baud):
    temporary = image is None
    lock = nvs = rom = None
    romfs_file = None
    try:
        if temporary:   # unnamed: nothing is left of them once the supervisor ends
            lock, image = unnamed_temp("cran-vbadge-", ".img")
            _erase(lock)
            nvs, nvs_file = unnamed_temp("cran-vbadge-nvs-")
            new, pass_fds = True, (lock, nvs)
            if romfs:
                rom, romfs_file = unnamed_temp("cran-vbadge-romfs-")
                os.write(rom, b"\xff" * ROMFS_BYTES)
                pass_fds += (rom,)
        else:
            image = os.path.abspath(image)
            lock, new = open_image(image)
            nvs_file = image + ".nvs"   # locked with the image
            if new:
                open(nvs_file, "wb").close()   # a new flash: its NVS erased too
            else:
                open(nvs_file, "ab").close()
            if romfs:
                romfs_file = image + ".romfs"
                if new or not os.path.exists(romfs_file):
                    with open(romfs_file, "wb") as f:
                        f.write(b"\xff" * ROMFS_BYTES)
            pass_fds = ()
        check_image(exe, image, new, board_file, pass_fds)
        badge = VBadge(exe, image, board_file, nvs_file, pass_fds, romfs_file,
                       Finger(board_file) if buttons else None, baud)
        registered = None
        try:
            if link:
                _link(badge.port, link)
            registered = registry.register(badge.port, link, board)
            print(badge.port, flush=True)
            print("cran vbadge: %s badge on %s, flash %s (mpremote connect %s); %s; Ctrl-C "
                  "stops it" % (board, badge.port, "temporary" if temporary else image,
                                link or badge.port, _FOUND), file=sys.stderr, flush=True)
            if badge.finger is not None:   # said, or a person does not know to type
                known = [k for k, g in GESTURES.items() if g[0] in badge.finger.buttons]
                print("cran vbadge: its buttons here: a key then Enter, %s (a short press, "
                      "a long one, a double one)" % ", ".join(known), file=sys.stderr,
                      flush=True)
            badge.serve()
        finally:
            if registered:
                registry.unregister(registered)
            badge.close()
            if link:
                _unlink(link)
    finally:
        for fd in (lock, nvs, rom):
            if fd is not None:
                os.close(fd)
    return 0


def serve_circuitpython(board_file, board, drive=None, link=None):
    """A CircuitPython badge on a port until Ctrl-C or SIGTERM: its CIRCUITPY drive, a
    folder (None: a temporary one). -> exit code."""
    exe = find_circuitpython()
    if exe is None:
        raise CommandError(HOW_TO_GET_CIRCUITPYTHON)
    signal.signal(signal.SIGTERM, _stop)
    where = drive   # as given, for what is said
    with contextlib.ExitStack() as stack:
        if drive is None:
            drive = stack.enter_context(tempfile.TemporaryDirectory(prefix="cran-vbadge-"))
            nvm, nvm_file = unnamed_temp("cran-vbadge-nvm-")
            stack.callback(os.close, nvm)
            pass_fds = (nvm,)
        else:
            drive = os.path.abspath(drive)
            if os.path.exists(drive) and not os.path.isdir(drive):
                raise CommandError("--drive %s: not a folder" % where)
            os.makedirs(drive, exist_ok=True)
            nvm_file, pass_fds = drive + ".nvm", ()
            lock = os.open(nvm_file, os.O_RDWR | os.O_CREAT, 0o644)
            stack.callback(os.close, lock)
            try:   # two badges on one drive would wreck it, as on one flash image
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                raise CommandError("%s: in use by another cran vbadge" % where) from None
            size = os.fstat(lock).st_size
            if size not in (0, NVM_BYTES):   # new, or a whole nvm
                raise CommandError("%s: %d bytes, not a CircuitPython badge's nvm (%d bytes)"
                                   % (nvm_file, size, NVM_BYTES))
        badge = CircuitPythonBadge(exe, drive, board_file, nvm_file, pass_fds)
        stack.callback(badge.close)
        if link:
            _link(badge.port, link)
            stack.callback(_unlink, link)
        stack.callback(registry.unregister, registry.register(badge.port, link, board))
        print(badge.port, flush=True)
        print("cran vbadge: %s badge (CircuitPython) on %s, drive %s; %s; Ctrl-C stops it"
              % (board, link or badge.port, where or "temporary", _FOUND),
              file=sys.stderr, flush=True)
        try:
            badge.serve()
        except _Stop:
            pass
    return 0


def _unlink(path):
    with contextlib.suppress(OSError):
        os.remove(path)


def _link(port, path):
    if os.path.lexists(path) and not os.path.islink(path):
        raise CommandError("--link %s: exists and is not a symlink" % path)
    with contextlib.suppress(FileNotFoundError):
        os.remove(path)
    os.symlink(port, path)


# ---- for tests and other tools -----------------------------------------------------------

class Running:
    """A `cran vbadge` process: .port is its port's path."""

    def __init__(self, process, port, errors):
        self.process = process
        self.port = port
        self._errors = errors

    def stderr(self):
        """What it has said on stderr so far (reboots after a crash, its last error)."""
        self._errors.seek(0)
        return self._errors.read().decode("utf-8", "replace")

    def press(self, keys):
        """A finger on its buttons (started with buttons=True): keys as --buttons takes
        them ("A": a long press on button a)."""
        self.process.stdin.write(keys.encode() + b"\n")
        self.process.stdin.flush()

    def kill(self):
        """SIGKILL, mid-whatever: the badge loses power (its chip goes with its pty)."""
        self.process.kill()
        self.process.wait(10)

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.kill()


@contextlib.contextmanager
def running(image=None, board="atom-lite", link=None, romfs=False, field=None, drive=None,
            at=None, buttons=False, baud=None):
    """Start `cran vbadge` -> Running (.port, .kill(), .press() with buttons); stopped at
    exit. A vbadge that fails to start raises RuntimeError with its message. field: a
    virtual field's name, at: (x, y) where it stands on it; drive: a CircuitPython
    board's CIRCUITPY folder."""
    cmd = [sys.executable, "-m", "host_tools", "vbadge", "--board", board]
    if drive is not None:
        cmd += ["--drive", os.fspath(drive)]
    if romfs:
        cmd.append("--romfs")
    if field is not None:
        cmd += ["--field", field]
    if at is not None:
        cmd += ["--at", "%g,%g" % at]
    if buttons:
        cmd.append("--buttons")
    if baud is not None:
        cmd += ["--baud", str(baud)]
    # the folder host_tools is in (this is host_tools/virtual/vbadge.py)
    where = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    if image is not None:
        cmd += ["--image", os.fspath(image)]
    if link is not None:
        cmd += ["--link", os.fspath(link)]
    with tempfile.TemporaryFile() as errors:
        process = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=errors, cwd=where,
                                   stdin=subprocess.PIPE if buttons else None)
        vbadge = Running(process, None, errors)
        try:
            vbadge.port = process.stdout.readline().decode().strip()
            if not vbadge.port:
                process.wait(10)
                raise RuntimeError("cran vbadge failed (exit %s): %s" % (
                    process.returncode, vbadge.stderr().strip()))
            yield vbadge
        finally:
            vbadge.stop()   # SIGTERM: its temporary image and link go with it
            process.stdout.close()
            if buttons:
                process.stdin.close()
