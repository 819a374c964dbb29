# Talking to a badge on a serial port: its REPL through mpremote's own transport (files,
# code, reset), and its running firmware's console (status, journal) as a person would.
# Every failure becomes one CommandError naming the port and what to do.
import json
import os
import re
import time

from cran.core.vocab import ARMOR_DAMAGED
from host_tools import CommandError

CONSOLE_TIMEOUT_S = 8.0
BOOT_TIMEOUT_S = 15.0
CONNECT_TIMEOUT_S = 5.0    # a port where no MicroPython answers gives up this fast
# Every write to a port has its deadline: a port nobody reads (no badge behind it) fills
# and would block for ever.
WRITE_TIMEOUT_S = 1.0
# A read's deadline on an mpremote link: on a pty mpremote reads byte by byte, and a
# silent one would block for ever. While code is sent (raw paste), the badge acks each
# window of it as it reads: a badge busy a moment (a flash sector erased, a busy
# computer relaying a vbadge) may be silent longer, as long as run() lets it be.
READ_TIMEOUT_S = 1.0
PASTE_SILENCE_S = 10.0
# A badge in light sleep hears nothing: its UART sleeps with the chip. It wakes at least
# every 30 s (cran.app.MAX_SLEEP_MS) for a show step of a few ms, and a byte it reads
# then keeps it awake for a minute. So a host knocks: a newline every millisecond (an
# empty line, which the console ignores), an echo every half second, until the echo
# comes back. Longer than the longest sleep.
KNOCK_S = 35.0
# A port that is neither a USB one nor a cran vbadge running here (a pty, a link to
# one) has no badge behind it that sleeps: what answers there answers an echo within
# milliseconds, so the knock is short, and a port that is not a badge is named as such
# within 5 s (then esptool's chip detection, DETECT_S, says whether an ESP32 is there).
SHORT_KNOCK_S = 1.5
DETECT_S = 3.0
_KNOCK_GAP_S = 0.001
_ECHO_EVERY_S = 0.5
_SAY_AFTER_S = 1.5


class BadgeError(CommandError):
    """A badge's fault, not the command's: missing, busy, silent, not a badge, no
    firmware. Exit 1 in every command (a malformed command or file: 2)."""

    def __init__(self, message, code=1):
        CommandError.__init__(self, message, code)


class LostBadge(BadgeError):
    """The port went away mid-way: the badge unplugged, or its USB reset."""


class NotABadge(BadgeError):
    """Nothing on the port answers as a badge does: no MicroPython (an ESP32 without
    it, as esptool's chip detection says), or nothing that speaks like an ESP32."""


class NoFirmware(BadgeError):
    """Soft-reset, the badge stopped at MicroPython's prompt again: no main.py starts a
    firmware (a badge fresh from MicroPython's install, or a flash cut short)."""


def gone(port):
    """Whether the port is not there (a badge unplugged takes its USB port with it)."""
    return "://" not in port and not os.path.exists(port)


def _serial_error(port, e):
    text = str(e)
    if gone(port):
        return BadgeError("%s: no such port (is the badge plugged in? `ls /dev/tty*`)"
                            % port)
    if "lock" in text.lower() or "busy" in text.lower():
        return BadgeError("%s: busy: another program has it open (mpremote, a serial "
                            "terminal, cran sim?): close it and try again" % port)
    return BadgeError("%s: cannot open: %s (a badge restarting refuses a moment: run "
                        "the same command again; badges already done copy nothing)"
                        % (port, text))


def usb_ports():
    """Every USB serial port attached, by pyserial's list."""
    from serial.tools import list_ports
    return [p.device for p in list_ports.comports() if p.vid is not None]


def every_port():
    """--all: every USB serial port attached, then every virtual badge running on this
    computer (`cran vbadge`, host_tools/virtual/registry.py), a port reached by two
    names once."""
    from host_tools.virtual import registry
    out, seen = [], set()
    for port in usb_ports() + registry.ports():
        if os.path.realpath(port) not in seen:
            seen.add(os.path.realpath(port))
            out.append(port)
    return out


# --all finding nothing: a badge's fault (none there), exit 1 as a missing port is.
NONE_FOUND = ("--all: no USB serial port found and no cran vbadge running here (is a "
              "badge plugged in?)")


def not_usb(port, ports=None):
    """Why port cannot be a badge, or None: a badge is plugged in by USB, and a serial
    port the system lists without a USB vendor id is the computer's own (a built-in
    UART, /dev/ttyS0; Bluetooth), where nothing would ever answer a knock. A port it
    does not list (a vbadge's pty, a symlink, rfc2217://) is tried. ports: pyserial's
    list_ports.comports(), asked when None."""
    if ports is None:
        from serial.tools import list_ports
        ports = list_ports.comports()
    listed = [p for p in ports if p.device == port]
    if not listed or listed[0].vid is not None:
        return None
    usb = sorted(p.device for p in ports if p.vid is not None)
    return ("%s is a serial port of this computer, not a USB one: no badge can be there "
            "(a badge plugged in by USB is /dev/ttyUSB*, /dev/ttyACM*, /dev/cu.usbserial* or "
            "COMn; %s)" % (port, "USB serial ports now: " + ", ".join(usb) if usb
                           else "none is plugged in now"))


def open_port(port):
    """The port at 115200 baud, ours alone: -> pyserial's Serial (a short read timeout);
    BadgeError naming the port when it is missing, busy, refused or not a USB one."""
    import serial
    why = not_usb(port)
    if why is not None:
        raise BadgeError(why)
    try:
        # write_timeout: a port nobody reads (no badge behind it) fills and would block.
        return serial.Serial(port, 115200, timeout=0.05, write_timeout=WRITE_TIMEOUT_S,
                             exclusive=True)
    except (serial.SerialException, OSError) as e:
        raise _serial_error(port, e) from None


def may_sleep(port, ports=None):
    """Whether a badge behind port may be asleep, deaf for up to 30 s: a USB port (one
    pyserial lists with a USB vendor id), or a cran vbadge running on this computer.
    Elsewhere (a pty, a link to one) nothing sleeps: the knock is short."""
    if ports is None:
        from serial.tools import list_ports
        ports = list_ports.comports()
    where = os.path.realpath(port)
    if any(p.vid is not None and os.path.realpath(p.device) == where for p in ports):
        return True
    from host_tools.virtual import registry
    return registry.is_virtual(port)


def knock_for(port):
    """How long to knock on port: $CRAN_KNOCK_S if set, else KNOCK_S where a badge may
    sleep, SHORT_KNOCK_S elsewhere."""
    if os.environ.get("CRAN_KNOCK_S"):
        return float(os.environ["CRAN_KNOCK_S"])
    return KNOCK_S if may_sleep(port) else SHORT_KNOCK_S


def wake(conn, port, knock_s=None, say=None):
    """Knock until the badge hears (see KNOCK_S; knock_for(port) when knock_s is None).
    -> "firmware" (its console answered), "repl" (MicroPython's prompt answered: no
    firmware running) or None (nothing did). say(text) hears once that the badge may be
    asleep, if it takes a while. A port that takes nothing within WRITE_TIMEOUT_S,
    where no badge sleeps: NotABadge."""
    import serial
    nonce = "cran-wake-%d" % (time.monotonic_ns() % 10**9)
    start = time.monotonic()
    next_echo = start
    told = False
    got = b""
    if knock_s is None:
        knock_s = knock_for(port)
    while time.monotonic() - start < knock_s:
        now = time.monotonic()
        try:
            if now >= next_echo:
                # Ctrl-B first: a badge left in the raw REPL (a host tool cut off
                # mid-way) answers nothing else; it goes back to the prompt, which says
                # ">>> ". The firmware's console drops control bytes.
                conn.write(("\x02\necho %s\n" % nonce).encode())
                next_echo = now + _ECHO_EVERY_S
            else:
                conn.write(b"\n")
        except serial.SerialTimeoutException:
            # Nobody takes what is sent: a USB chip always does, a native USB one
            # perhaps not while its chip sleeps.
            if knock_s < KNOCK_S:
                raise NotABadge(_nothing_reads(port)) from None
            time.sleep(0.1)
            continue
        waiting = conn.in_waiting
        if waiting:
            got += conn.read(waiting)
            text = got.decode("utf-8", "replace")
            if nonce in [x.strip("\r") for x in text.split("\n")]:
                return "firmware"
            if ">>> " in text or "raw REPL" in text:
                _settle(conn)
                return "repl"
            got = got[-200:]   # only the end can still hold what is awaited
        if not told and now - start > _SAY_AFTER_S:
            told = True
            (say or _say)("%s: waking the badge (asleep, it hears nothing for up to 30 s)"
                          % port)
        time.sleep(_KNOCK_GAP_S)
    return None


def _settle(conn, quiet_s=0.3, most_s=10.0):
    """Read until the badge has said nothing for quiet_s (at most most_s). MicroPython's
    prompt answers each knock it heard before it answered (a newline a millisecond while
    it started: thousands, on a slow start) with a prompt of its own: a tool's next bytes
    (mpremote's Ctrl-A into the raw REPL) would wait behind them, longer than it waits."""
    end = time.monotonic() + most_s
    last = time.monotonic()
    while time.monotonic() - last < quiet_s and time.monotonic() < end:
        waiting = conn.in_waiting
        if waiting:
            conn.read(waiting)
            last = time.monotonic()
        else:
            time.sleep(0.01)


def _say(text):
    import sys
    print(text, file=sys.stderr, flush=True)


def _nothing_reads(port):
    return ("%s: nothing reads what is sent there: not a badge (a badge's USB chip, or a "
            "cran vbadge, takes every byte). The badges here: cran status --all" % port)


def detect_chip(port, usb, seconds=DETECT_S):
    """esptool's own chip detection on port, within seconds: -> the chip's name
    ("ESP32", "ESP32-C3"...) when an ESP32's ROM bootloader answered, else None. usb:
    the port has a USB chip whose DTR/RTS lines put an ESP32 into its bootloader (and
    reset it after: its firmware runs again); elsewhere only a chip already waiting in
    its bootloader can answer."""
    import subprocess
    import sys
    cmd = [sys.executable, "-m", "esptool", "--port", port, "--connect-attempts", "1",
           "--before", "default-reset" if usb else "no-reset",
           "--after", "hard-reset" if usb else "no-reset", "--no-stub", "chip-id"]
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=seconds,
                           stdin=subprocess.DEVNULL)
    except (subprocess.TimeoutExpired, OSError):
        return None
    found = re.search(r"Detecting chip type\.*\s*(ESP[\w-]*)", r.stdout + r.stderr)
    return found.group(1) if found else None


def not_a_badge(port):
    """What to say of a port where no MicroPython answered the knock: whether
    esptool's chip detection finds an ESP32 there (one without MicroPython, or hung),
    or nothing that speaks like an ESP32. -> NotABadge."""
    if gone(port):
        return _serial_error(port, OSError("gone"))
    usb = may_sleep(port) and not _is_vbadge(port)
    chip = detect_chip(port, usb)
    if chip is not None:
        return NotABadge(
            "%s: an %s (esptool's chip detection answers), but no MicroPython: a new "
            "board needs it first, cran flash --micropython IMAGE.bin --port %s --board "
            "BOARD%s" % (port, chip, port, " (a badge that hung: esptool has just reset "
                                           "it, run the same command again)" if usb else ""))
    return NotABadge(
        "%s: nothing that speaks like an ESP32 answers there: no MicroPython, and no "
        "ESP32 bootloader for esptool%s. Not a badge: the badges here are listed by cran "
        "status --all" % (port, " (or a badge that is off or hung: unplug it and plug it "
                                "back in, then run the same command again)" if usb else ""))


def _is_vbadge(port):
    from host_tools.virtual import registry
    return registry.is_virtual(port)


def connect(port, keys=()):
    """mpremote's SerialTransport on port, raw REPL entered (the running app is stopped
    with Ctrl-C, as mpremote does; a sleeping badge is knocked awake first, see wake(),
    and a locked one unlocked with its game key, see unlock()). keys: game keys to try
    besides this computer's key ring. -> transport; call close() when done."""
    conn = open_port(port)
    try:
        woke = wake(conn, port)
        if woke == "firmware":
            unlock(conn, port, keys)
    except OSError as e:   # pyserial's: the port went away, or took nothing more
        woke = "lost"
        if gone(port):
            raise LostBadge("%s: lost the badge: %s" % (port, e)) from None
    finally:
        conn.close()
    if woke is None:
        raise not_a_badge(port)
    from mpremote import transport_serial
    from mpremote.transport import TransportError
    # mpremote prints what it got before raising; our one line says it instead. Its
    # module's own `print`, not sys.stdout swapped: badges are flashed from threads.
    transport_serial.print = _quiet
    # Opened again just after the knock closed it: a busy system may refuse it a moment
    # (mpremote tries once), so a few tries while the port is there.
    deadline = time.monotonic() + CONNECT_TIMEOUT_S
    while True:
        try:
            link = _link_class()(port, baudrate=115200, timeout=READ_TIMEOUT_S)
            link.serial.write_timeout = WRITE_TIMEOUT_S   # nor a write, on a full port
            break
        except Exception as e:   # pyserial's SerialException, mpremote's TransportError
            if gone(port) or time.monotonic() > deadline:
                raise _serial_error(port, e) from None
            time.sleep(0.2)
    try:
        link.enter_raw_repl(soft_reset=False, timeout_overall=CONNECT_TIMEOUT_S)
    except (TransportError, OSError) as e:
        link.close()
        # It answered the knock, then not MicroPython's raw REPL: a badge restarting
        # meanwhile, or a firmware busy past its Ctrl-C.
        raise BadgeError("%s: no MicroPython answers there (%s), though something "
                         "answered a moment before: run the same command again"
                         % (port, e)) from None
    return link


def _quiet(*args, **kwargs):
    pass


_Link = None


def _link_class():
    """mpremote's SerialTransport, its code sent with PASTE_SILENCE_S to wait for each of
    the badge's acks (mpremote waits the port's read timeout: a second stalled there,
    and a whole flash was lost)."""
    global _Link
    if _Link is None:
        from mpremote.transport_serial import SerialTransport

        class Link(SerialTransport):
            def exec_raw_no_follow(self, command):
                self.serial.timeout = PASTE_SILENCE_S
                try:
                    return super().exec_raw_no_follow(command)
                finally:
                    self.serial.timeout = READ_TIMEOUT_S
        _Link = Link
    return _Link


def close(link):
    # A badge unplugged (or a vbadge killed) mid-way leaves a port that fails even to
    # close: nothing more to say than the error already raised.
    try:
        if link.in_raw_repl:
            link.exit_raw_repl()
    except OSError:
        pass
    try:
        link.close()
    except OSError:
        pass


def run(link, code, timeout=10):
    """Run code on the badge -> what it printed (text). A traceback is a CommandError.
    timeout: the seconds it may stay silent (mpremote's 10 by default)."""
    from mpremote.transport import TransportError
    try:
        out, error = link.exec_raw(code, timeout=timeout)
    except (TransportError, OSError) as e:   # OSError: pyserial's, the port is gone
        raise LostBadge("%s: lost the badge: %s" % (link.device_name, e)) from None
    if error:
        raise BadgeError("%s: the badge said: %s" % (link.device_name,
                                                     error.decode().strip()))
    return out.decode()


def run_counted(link, code):
    """run() -> bytes of code sent (for the deploy figures)."""
    run(link, code)
    return len(code.encode())


def reset(link, first=None):
    """machine.reset(): the badge reboots into main.py; the link is closed. first: code
    run just before it in the same command, the reset coming whatever it does (a host
    cut off after sending it leaves nothing half done)."""
    from mpremote.transport import TransportError
    code = "import machine\nmachine.reset()"
    if first:
        code = "try:\n%s\nfinally:\n machine.reset()" % "\n".join(
            " " + line for line in ("import machine\n" + first).split("\n"))
    try:
        link.exec_raw_no_follow(code)
    except (TransportError, OSError) as e:
        raise LostBadge("%s: lost the badge: %s" % (link.device_name, e)) from None
    finally:
        close(link)


# ---- the running firmware's console ----------------------------------------------

def unlock(conn, port, keys=()):
    """Open a locked badge's console and Ctrl-C for a while (cran.lock.ConsoleLock): its
    challenge answered with the game key it names, found among keys and in this
    computer's key ring (host_tools.game.gamekey). -> "open" (nothing was locked: no key on
    the badge, or a firmware without the lock) or "unlocked"; CommandError if it can't."""
    from host_tools.game import gamekey
    for line in _ask(conn, port, "challenge", CONSOLE_TIMEOUT_S, False):
        words = line.split()
        if words[:1] == ["challenge"] and len(words) == 3:
            nonce = bytes.fromhex(words[1])
            key = gamekey.find(words[2], keys)
            if key is None:
                raise BadgeError(
                    "%s: the badge is locked with game key %s, which this computer does "
                    "not have: give the game's settings (--settings GAME.json, its "
                    "\"game_key\"), or use the computer that flashed it" % (port, words[2]))
            said = _ask(conn, port, "unlock " + gamekey.unlock_tag(key, nonce),
                        CONSOLE_TIMEOUT_S, False)
            if said[:1] and said[0].startswith("ok "):
                return "unlocked"
            raise BadgeError("%s: the badge refused the unlock: %s"
                               % (port, said[0] if said else "no answer"))
        if line.startswith("error: game key damaged"):
            raise BadgeError("%s: %s (esptool erase-flash, then cran flash "
                               "--micropython IMAGE.bin)" % (port, line[7:]))
    return "open"   # "open", or an older firmware's error: it has no lock


def ask(port, line, timeout=CONSOLE_TIMEOUT_S, again=False, keys=None):
    """Send one console line to the running badge -> its answer lines. A badge sitting
    at its REPL (left there by mpremote) is soft-reset into its firmware first. again:
    the line only reads (status, journal): sent again each second until the badge says
    anything, in case it lost it. keys: not None for a line that needs the console
    unlocked (config, clock, actions): unlock() with them first."""
    return ask_lines(port, [line], timeout, again, keys)[0]


def ask_lines(port, lines, timeout=CONSOLE_TIMEOUT_S, again=False, keys=None):
    """ask() for several lines in a row, on one knock (wake()). -> [answer lines]."""
    try:
        return _ask_lines(port, lines, timeout, again, keys)
    except NoFirmware:   # the port closed, what is on the badge can be looked at
        raise BadgeError(no_firmware(port)) from None


def _ask_lines(port, lines, timeout, again, keys):
    conn = open_port(port)
    try:
        if wake(conn, port) is None:
            conn.close()
            raise not_a_badge(port)
        if keys is None:
            return [_ask(conn, port, line, timeout, again) for line in lines]
        opened = unlock(conn, port, keys) == "unlocked"
        try:
            return [_ask(conn, port, line, timeout, again) for line in lines]
        finally:
            if opened:   # locked again at once, not when the window runs out
                _ask(conn, port, "lock", timeout, False)
    except OSError as e:   # pyserial's errors: the port went away mid-answer
        raise LostBadge("%s: lost the badge: %s" % (port, e)) from None
    finally:
        conn.close()


_RAW_BANNER = b"raw REPL; CTRL-B to exit"
# A host's own marks (wake()'s and _ask()'s nonces) and the echo of their lines: no
# answer line of a badge is one.
_OURS = re.compile(r"^(echo )?cran-(wake-)?\d+$")
_SOFT_REBOOT = b"soft reboot"   # MicroPython's "MPY: soft reboot"


def _ask(conn, port, line, timeout, again):
    # An `echo` after the command marks the end of its answer: the console answers lines
    # in order, and no answer line can be this nonce. Sent again, the answer before the
    # first nonce is still one whole answer.
    nonce = "cran-%d" % (time.monotonic_ns() % 10**9)
    woke = False
    deadline = time.monotonic() + timeout
    sent = None
    got = bytearray()
    mark = nonce.encode()
    while time.monotonic() < deadline:
        if sent is None or (again and not got and time.monotonic() - sent > 1.0):
            conn.write(("%s\r\necho %s\r\n" % (line, nonce)).encode())
            sent = time.monotonic()
        # Only the bytes just read are searched (and the end of those before, where a
        # mark may have been cut in two): a long journal read whole at every chunk
        # would make its pulling quadratic.
        seen = max(0, len(got) - len(_RAW_BANNER))
        got += conn.read(4096)
        if mark in got[seen:]:
            lines = [x.strip("\r") for x in got.decode("utf-8", "replace").split("\n")]
            if nonce in lines:
                answer = lines[:lines.index(nonce)]
                # A terminal's echo of what was sent is not an answer, nor what a knock
                # sent again while a slow badge woke left behind (its echo, its answer).
                return [x for x in answer
                        if x.strip() and x.strip() != line and not _OURS.match(x.strip())]
        if not woke and (got.endswith(b">>> ") or _RAW_BANNER in got[seen:]):
            # At the REPL, not in the firmware: leave raw REPL, soft reset, ask again.
            conn.write(b"\r\x02\x04")
            woke, sent, got = True, None, bytearray()
            deadline = time.monotonic() + BOOT_TIMEOUT_S
            time.sleep(0.5)
        elif woke and got.rfind(b">>> ") > got.find(_SOFT_REBOOT) >= 0:
            raise NoFirmware(port)   # rebooted to the prompt again: no main.py
    if not got and not woke:
        # Not a byte back, through the knock and the question: no board, or one that is
        # off or hung (a badge asleep wakes within the knock).
        raise BadgeError("%s: nothing answers there: no badge, or one that is off or hung "
                         "(unplug it and plug it back in, then run the same command again)"
                         % port)
    raise BadgeError("%s: the badge's firmware does not answer `%s` (is it a cran badge? "
                     "%s installs cran on it)" % (port, line, _install(port)))


def _install(port, board=None):
    from host_tools.boards import board_ids
    if board is not None:
        return "`cran flash --port %s`" % port
    return "`cran flash --port %s --board BOARD` (BOARD: %s)" % (port, ", ".join(board_ids()))


# Runs on the badge: the board its config names, whether main.py is there, and which
# Python it runs (a CircuitPython badge is mended through its drive).
_WHAT_IS_THERE = ("import os, json, sys\ntry:\n b = json.load(open('/config.json')).get("
                  "'board')\nexcept Exception:\n b = None\nprint(json.dumps([b, 'main.py' in "
                  "os.listdir('/'), sys.implementation.name]))")


def no_firmware(port):
    """What to say of a badge where no firmware starts, and the command that mends it:
    the board its config names if it has one (a flash cut short: the same flash again,
    which picks up where it stopped), else the board to give."""
    board = python = None
    try:
        link = connect(port)
        try:
            board, _, python = json.loads(run(link, _WHAT_IS_THERE))
        finally:
            close(link)
    except (CommandError, ValueError):
        pass   # said as for a badge with no config: --board mends it as well
    from host_tools.boards import board_ids, unknown_board
    if board is not None and (not isinstance(board, str) or unknown_board(board)):
        board = None
    if python == "circuitpython":
        return ("%s: no cran firmware on this CircuitPython badge (it stops at its prompt): "
                "copy it through its CIRCUITPY drive, `cran flash --drive PATH --board %s`%s"
                % (port, board or "BOARD", "" if board else " (BOARD: %s)" % ", ".join(
                    board_ids(runtime="circuitpython"))))
    if board is None:
        return ("%s: no cran firmware on this badge (it stops at MicroPython's prompt): "
                "%s installs it" % (port, _install(port)))
    # cran flash writes the config among the firmware's files and main.py last.
    return ("%s: a flash of this badge was cut short: it has cran's config for board %s but "
            "no main.py, which a flash copies last, so it stops at MicroPython's prompt. Run "
            "the same `cran flash` command again: it picks up where it stopped (or `cran "
            "flash --port %s`, which keeps that config)" % (port, board, port))


def first_json(lines, kind=object):
    """-> the first line of a console answer that is JSON of this kind, parsed, or None
    (a badge may print something else first)."""
    for text in lines:
        try:
            value = json.loads(text)
        except ValueError:
            continue
        if isinstance(value, kind):
            return value
    return None


def status(port, timeout=CONSOLE_TIMEOUT_S):
    answer = ask(port, "status", timeout, again=True)
    found = first_json(answer)
    if found is None:
        raise BadgeError("%s: `status` gave no JSON: %r" % (port, answer[:3]))
    # A badge flashed before its status said armure-abimee (the scenario's word) says
    # armure_abimee: read as today's, so a fleet of mixed firmware reads as one.
    if "armure_abimee" in found:
        found[ARMOR_DAMAGED] = found.pop("armure_abimee")
    return found


def badge_names(chip_id, name):
    # "b07 (8fd5bcd63deb)": the organisers' name, then the chip's id.
    if not name or name.lower() == (chip_id or "").lower():
        return chip_id or "?"
    return "%s (%s)" % (name, chip_id)
