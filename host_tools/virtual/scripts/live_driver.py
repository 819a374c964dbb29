# The badge live, for `cran sim`: the whole app (cran.app) on the virtual hardware, inside
# the MicroPython unix port or CPython, driven by one JSON command a line on stdin:
#   <python> live_driver.py FIRMWARE_DIR BOARDS_DIR FLASH_DIR BOARD VHW...
# The first stdin line is the badge's config (JSON, without its board): on stdin, not in
# argv, where the unix port fails on an argument of a few hundred bytes.
#   {"advance": MS}               virtual time passes; the app wakes whenever it asks to
#   {"button": NAME, "down": B}   a finger presses (true) or lets go (false) of a button
#   {"line": TEXT}                a serial-console line (actions, status, journal, ...)
#   {"reboot": true}              a clean restart: state saved, chip reset, app from flash
#   {"character": {...}}          an organiser's reset to this character (P3): written into
#                                 config.json, the badge restarted as them, then reset
#   {"frame": true}               only look
# Each command gets one line back: a frame (see frame()) or {"error": TEXT}; the first
# line, before any command, is the boot frame with a "hello" describing the board.
# On a virtual field ($CRAN_FIELD_PORT: its hub, which the virtual espnow joins) time is
# real, as the field's other badges live it: the badge runs on between commands, and
# {"advance": MS} lets MS real ms go by.
import json
import os
import sys

if __name__ == "__main__":
    sys.path[:0] = sys.argv[5:] + [sys.argv[1]]

MICROPYTHON = sys.implementation.name == "micropython"
# CircuitPython (a board whose file says so): the virtual CircuitPython modules
# (host_tools/virtual/circuitpython) and Adafruit's libraries on the path, the firmware's
# MicroPython names (time, machine) over them, as badge_driver.py and code.py have them.
CIRCUITPYTHON = sys.implementation.name == "circuitpython"
if CIRCUITPYTHON:
    from cran.hal_cp import runtime
    runtime.install()
    import board as cp_board  # noqa: E402
    import microcontroller as machine  # noqa: E402  (its test hooks are micropython/machine.py's)
    import neopixel_write  # noqa: E402
    import pwmio  # noqa: E402
    import vclock  # noqa: E402
    world = vclock.vhw_module("world")
else:
    import machine  # noqa: E402
    import neopixel  # noqa: E402
    import vclock  # noqa: E402
    import world  # noqa: E402
if not MICROPYTHON and not CIRCUITPYTHON:
    vclock.patch_cpython_time()

import time  # noqa: E402

from cran import cues, storage
from cran.core.view import view  # noqa: E402
from cran.hal.buttons import Button  # noqa: E402
from cran.start.phases import start  # noqa: E402

# show() asking to run again at once this many times in a row, at one instant, is a
# firmware bug: stop there rather than spin for ever.
_MAX_ZERO_WAITS = 1000
# On a field, between commands the badge runs this long at most before stdin is looked
# at again: a press reaches it well within one visible frame.
_LOOK_MS = 10

_journal = []   # [elapsed ms, entry] of every journal line written since the last frame


def _journal_written(entry):
    # Every entry the badge writes to its flash journal, boot entries included, as it
    # lands: reading the files back every frame would cost a flash read per frame.
    _journal.append([vclock.elapsed_ms(), entry])


storage.on_journal = _journal_written


class Refused(Exception):
    """A command this driver can't do: answered with an error line, the badge goes on."""


class Live:
    def __init__(self, root, board):
        self.root = root
        self.board = board
        self.buzzer_pin = board["buzzer"]["pin"] if board["buzzer"] else None
        self.app = None
        self.sounding = 0   # the buzzer's frequency as last reported (0: silent)
        self.fault = None   # the traceback of a show() that raised, until a frame takes it
        self.boot()

    def boot(self):
        self._new_app()
        self.step_to(vclock.elapsed_ms())

    def _new_app(self):
        # As the chip boots it: the app from its flash, its watchdog started.
        self.app = start(self.root)
        self.app.on_fault = self._on_fault
        self.app.start_watchdog()

    def show(self):
        # One wake-up of the app's show loop, its fault rule included (App.step).
        return self.app.step(time.ticks_ms())

    def _on_fault(self, e):
        self.fault = _traceback(e)

    def step_to(self, target):
        """Run the app up to elapsed ms `target`, waking at every instant it asks for, so
        blink steps, press timeouts and deadlines land exactly on time. A watchdog reset
        on the way boots the app again, as the chip would."""
        zero_waits = 0
        while True:
            try:
                wait = self.show()
                left = target - vclock.elapsed_ms()
                if left <= 0:
                    return
                if wait <= 0:
                    zero_waits += 1
                    if zero_waits > _MAX_ZERO_WAITS:
                        raise RuntimeError("the app asks to wake at once, %d times at %d ms"
                                           % (zero_waits, vclock.elapsed_ms()))
                    continue
                zero_waits = 0
                vclock.advance(min(wait, left))
            except machine.VirtualReset:
                machine.reboot()
                self._new_app()

    def do(self, cmd):
        if "advance" in cmd:
            ms = cmd["advance"]
            if type(ms) is not int or ms < 0:
                raise Refused("advance: expected whole ms from 0, got %r" % (ms,))
            self.step_to(vclock.elapsed_ms() + ms)
        elif "button" in cmd:
            self.press(cmd["button"], cmd.get("down"))
        elif "line" in cmd:
            text = cmd["line"]
            if not isinstance(text, str):
                raise Refused("line: expected text, got %r" % (text,))
            answer = self.app.line(text, time.ticks_ms())
            self.step_to(vclock.elapsed_ms())   # the cues play at once, as on a badge
            return self.frame(answer)
        elif "reboot" in cmd:
            self.app.badge.checkpoint(time.ticks_ms())
            machine.reboot()
            self.boot()
        elif "character" in cmd:
            self.recast(cmd["character"])
        elif "frame" not in cmd:
            raise Refused("unknown command %s (known: advance, button, line, reboot, "
                          "character, frame)" % json.dumps(cmd))
        return self.frame()

    def recast(self, character):
        """config.json's character replaced (the firmware's loader checks it as it boots),
        the badge restarted as them and reset to them (P3), as an organiser's reflash
        and reset would do."""
        from cran.core.vocab import Action
        path = self.root + "/config.json"
        with open(path) as f:
            config = json.loads(f.read())
        config["character"] = character
        with open(path, "w") as f:
            f.write(json.dumps(config))
        self.app.badge.checkpoint(time.ticks_ms())
        machine.reboot()
        self.boot()
        self.app.badge.apply(Action("reset"), time.ticks_ms())
        self.step_to(vclock.elapsed_ms())

    def press(self, name, down):
        if down is not True and down is not False:
            raise Refused("button: 'down' must be true or false, got %r" % (down,))
        for spec in self.board["buttons"]:
            if spec["name"] == name:
                level = (0 if spec["active_low"] else 1) if down else None
                machine.drive(spec["pin"], level)   # fires the pin's IRQ, as a finger does
                self.step_to(vclock.elapsed_ms())
                return
        raise Refused("no button %r on %s (it has: %s)" % (
            name, self.board["id"], ", ".join(b["name"] for b in self.board["buttons"])))

    def frame(self, answer=None):
        """What a person would see and hear now, and what the badge knows."""
        app = self.app
        now = time.ticks_ms()
        leds = None
        if app.leds is not None:
            last = _shown(self.board["leds"]["pin"])   # as a person sees them
            leds = last if last else [[0, 0, 0]] * app.leds.count
        screen = None
        if app.screen is not None:
            # The lines last drawn (cut and made ASCII as the panel shows them).
            screen = list(app.screen.shown or [])
            _forget_bus_traffic(app.screen.bus[0])
        where = app.menu.where() if app.menu is not None else None
        if where is not None:
            from cran.menuwords import menu_here
            where = list(where) + [menu_here(app.menu, app.lang)]
        from cran.console import status  # the console's answer, as a host reads it
        out = {"now": vclock.elapsed_ms(), "leds": leds, "screen": screen,
               "notes": self.notes(now), "journal": _journal[:],
               "status": status(app.badge, now), "view": view(app.badge.state, now),
               "menu": list(where) if where else None, "peek": app.peek_until is not None,
               "safe": app.safe, "look": cues.look(app.badge.state, now)}
        del _journal[:]
        if answer is not None:
            out["answer"] = answer
        if self.fault is not None:
            out["fault"] = self.fault
            self.fault = None
        return out

    def notes(self, now):
        """[[elapsed ms, freq Hz (0: silent)]] the buzzer changed to since the last frame.
        The PWM's record is emptied: a live session would keep it for ever."""
        pwm = None
        if self.buzzer_pin is not None:
            pwm = (pwmio.outputs.get(self.buzzer_pin) if CIRCUITPYTHON
                   else machine.pwm_on(self.buzzer_pin))
        if pwm is None:
            return []
        elapsed = vclock.elapsed_ms()
        out = []
        for tick, freq_hz, duty in pwm.timeline:
            sound = freq_hz if duty else 0
            if sound != self.sounding:   # a new frequency set while silent is no note
                self.sounding = sound
                out.append([elapsed - time.ticks_diff(now, tick), sound])   # the runtime's period
        del pwm.timeline[:]
        return out

    def hello(self):
        app = self.app
        leds = None
        if app.leds is not None:
            leds = {"count": app.leds.count, "layout": app.layout,
                    "max_brightness": app.leds.max_brightness}
        screen = None
        if app.screen is not None:
            screen = {"columns": app.screen.columns, "rows": app.screen.rows,
                      "kind": self.board["display"]["kind"]}
        return {"board": self.board["id"], "name": self.board["name"], "leds": leds,
                "screen": screen, "buzzer": self.board["buzzer"] is not None,
                "buttons": [b["name"] for b in self.board["buttons"]],
                "runtime": sys.implementation.name,
                "press_ms": {"debounce": Button.debounce_ms, "long": Button.long_press_ms,
                             "double": Button.double_click_ms}}


def _shown(pin):
    """The colours the LEDs on pin show now ([[r, g, b]]), or None before any write."""
    if not CIRCUITPYTHON:
        last = neopixel.shown(pin)
        return [list(c) for c in last] if last else None
    sent = neopixel_write.last(pin)   # as the library sent them: GRB, 3 bytes an LED
    if sent is None:
        return None
    return [[sent[i + 1], sent[i], sent[i + 2]] for i in range(0, len(sent) - 2, 3)]


def _forget_bus_traffic(bus):
    # The virtual I2C and SPI record every byte written; a screen redrawn for hours
    # would fill the memory with them.
    if hasattr(bus, "writes"):
        del bus.writes[:]


def _traceback(e):
    if MICROPYTHON:
        import io
        buf = io.StringIO()
        sys.print_exception(e, buf)
        return buf.getvalue()
    import traceback
    return "".join(traceback.format_exception(type(e), e, e.__traceback__))


def _say(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    flush = getattr(sys.stdout, "flush", None)
    if flush is not None:
        flush()


def _real_clock():
    """The runtime's own clock and sleep (ms), under the virtual `time`."""
    if MICROPYTHON:
        import utime
        return utime.ticks_ms, utime.sleep_ms
    import time as host_time  # CPython's: its monotonic() is not patched
    return (lambda: int(host_time.monotonic() * 1000)), (lambda ms: host_time.sleep(ms / 1000))


def _real_time_s():
    if MICROPYTHON:
        import utime
        return int(utime.time())
    import time as host_time
    return int(host_time.time())


def _stdin_waiting():
    """A poll of stdin: on a field, what tells the badge's run a command has come."""
    if MICROPYTHON:
        import uselect as select  # the built-in: the virtual one (micropython/mponly) is asyncio's
    else:
        import select
    waiting = select.poll()
    waiting.register(sys.stdin, select.POLLIN)
    return waiting


def _read_in_real_time(live, waiting):
    """The next command line, the badge running on in real time until it comes."""
    while not waiting.poll(0):
        live.step_to(vclock.elapsed_ms() + _LOOK_MS)
    return sys.stdin.readline()


def main():
    boards_dir, flash_dir, board_id = sys.argv[2], sys.argv[3], sys.argv[4]
    vclock.start(0)
    machine.reset_all()
    if CIRCUITPYTHON:
        machine.history = 16   # the strip's writes, kept: a live session runs on
    on_field = bool(os.getenv("CRAN_FIELD_PORT"))
    if on_field:
        vclock.use_real_clock(*_real_clock())
        # This computer's date, as cran flash sets a badge's: the station's commands
        # are judged by it (cran.radio.orders).
        vclock.set_time(_real_time_s())
    try:
        board = world.make_root(flash_dir + "/badge", boards_dir, board_id,
                                json.loads(sys.stdin.readline()))
        if CIRCUITPYTHON:
            cp_board.define(board["circuitpython_board"])
            for spec in board["buttons"]:   # the board's own resistor, where it has one
                if spec.get("pull") is None:
                    machine.set_board_pull(spec["pin"], 1 if spec["active_low"] else 0)
        else:
            world.wire(board)
        live = Live(flash_dir + "/badge", board)
    except Exception as e:   # a config the firmware refuses: say it and stop
        _say({"error": "cannot start: %s" % (e,)})
        sys.exit(1)
    first = live.frame()
    first["hello"] = live.hello()
    _say(first)
    waiting = _stdin_waiting() if on_field else None
    n = 0
    while True:
        raw = _read_in_real_time(live, waiting) if on_field else sys.stdin.readline()
        if not raw:
            return   # the sim closed the pipe
        n += 1
        if not raw.strip():
            continue
        try:
            cmd = json.loads(raw)
        except ValueError as e:
            _say({"error": "command %d: not JSON (%s): %s" % (n, e, raw.strip()[:80])})
            continue
        try:
            if not isinstance(cmd, dict):
                raise Refused("expected a JSON object such as {\"advance\": 1000}, got %s"
                              % raw.strip()[:80])
            out = live.do(cmd)
        except Refused as e:
            out = {"error": "command %d: %s" % (n, e)}
        except Exception as e:   # a firmware bug: report it whole, keep serving
            out = {"error": "command %d: %r\n%s" % (n, e, _traceback(e))}
        _say(out)


if __name__ == "__main__":   # (the page's driver imports it: host_tools/web)
    main()
