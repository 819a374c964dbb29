# What the badge app allocates, inside the MicroPython unix port: the show step of an
# idle badge must allocate nothing (it runs with the heap locked), and a hit stays
# under a stated bound. The LEDs are an allocation-free stand-in for the ESP32's
# neopixel (a bytearray, as the real driver keeps), so only the firmware is measured.
#   micropython alloc_driver.py FIRMWARE_DIR BOARDS_DIR FLASH_DIR VHW_DIR EXTRA_DIR
# Prints one JSON line: {board: {state: result}} (tests/test_alloc.py).
import gc
import json
import sys

sys.path[:0] = [sys.argv[4], sys.argv[5], sys.argv[1]]

import time  # noqa: E402

import machine  # noqa: E402
import micropython  # noqa: E402
import vclock  # noqa: E402
import world  # noqa: E402

from cran.app import CONSOLE_QUIET_MS  # noqa: E402
from cran.compat import forget  # noqa: E402
from cran.core.vocab import Action  # noqa: E402
from cran.start.phases import start  # noqa: E402

BOARDS = ("atom-lite", "atom-matrix", "esp32-devkitc", "esp32c3-supermini",
          "m5stickc-plus")
# Looks without a running countdown: a countdown is saved every 10 s (a checkpoint
# writes flash and allocates, by design), which is not an idle step.
IDLE = ("", "coup", "effet peur", "coup mort", "stop", "hors-jeu")
STEP_MS = 250


class Pixels:
    """The real neopixel's contract without its allocations: pixels stored as bytes."""

    ORDER = (1, 0, 2, 3)

    def __init__(self, n):
        self.n = n
        self.buf = bytearray(3 * n)
        self.writes = 0

    def __len__(self):
        return self.n

    def __setitem__(self, i, rgb):
        r, g, b = rgb
        self.buf[3 * i] = r
        self.buf[3 * i + 1] = g
        self.buf[3 * i + 2] = b

    def write(self):
        self.writes += 1


def boot(board, n, i2c=True):
    # A badge boots with a fresh interpreter: the console and grammar an earlier one's
    # console line loaded in this process are not its, nor the player of its last notes.
    forget(("cran.core.words", "cran.console", "cran.core.view", "cran.lock", "cran.hal.buzzer",
            "cran.tunes", "cran.texts"))
    vclock.start(0)
    machine.reset_all()
    root = "%s/%s%d" % (sys.argv[3], board, n)
    world.wire(world.make_root(root, sys.argv[2], board, {}), i2c=i2c)
    app = start(root)
    if app.leds is not None:
        app.leds.np = Pixels(app.leds.count)
    return app


def steps(app, start, count):
    for i in range(count):
        app.show(time.ticks_add(start, STEP_MS * i))


def idle(app, line):
    """Steps of a badge left alone, heap locked: -> [steps, allocating steps, LED
    writes, where the first allocation came from]."""
    if line:
        app.line(line, time.ticks_ms())
    start = time.ticks_ms()
    steps(app, start, 40)        # 10 s: every frame of the rhythm drawn once
    start = time.ticks_add(start, 40 * STEP_MS)
    writes = app.leds.np.writes if app.leds is not None else 0
    failed = 0
    where = None
    for i in range(40):
        micropython.heap_lock()
        try:
            app.show(time.ticks_add(start, STEP_MS * i))
            caught = None
        except MemoryError as e:
            caught = e
        finally:
            micropython.heap_unlock()   # once per lock, whatever happened
        if caught is not None:
            failed += 1
            if where is None:
                import io
                buf = io.StringIO()
                sys.print_exception(caught, buf)
                where = buf.getvalue()
    writes = (app.leds.np.writes if app.leds is not None else 0) - writes
    return [40, failed, writes, where]


def hit(app):
    """Bytes allocated by the step that takes a press, shows it and saves it."""
    start = time.ticks_ms()
    steps(app, start, 8)
    now = time.ticks_add(start, 8 * STEP_MS)
    app.events.append(("a", "short", now))   # as the button driver hands it over
    gc.collect()
    gc.disable()
    before = gc.mem_alloc()
    app.show(now)
    used = gc.mem_alloc() - before
    gc.enable()
    from cran.core.view import view  # after: the badge has no such module loaded
    return [used, view(app.badge.state, now)["etat"]]


def heap_at_call(function, seen):
    """function, noting in seen the live heap at each call, before it runs."""
    def measured(*args):
        gc.collect()
        seen.append(gc.mem_alloc())
        return function(*args)
    return measured


def resident():
    return sorted(name for name in sys.modules if name.startswith("cran"))


def main():
    out = {}
    n = 0
    for board in BOARDS:
        results = {}
        n += 1
        app = boot(board, n)
        after_boot = resident()
        threshold = gc.threshold()
        # The live heap as the line's action starts to play, and once the line is
        # answered: the grammar that read it is gone by then (cran.console).
        playing = []
        app.badge.apply = heap_at_call(app.badge.apply, playing)
        answer = app.line("effet peur", time.ticks_ms())
        del app.badge.apply
        gc.collect()
        heap_during = [playing[0], gc.mem_alloc()]
        after_line = resident()
        app._last_input = time.ticks_ms()   # as the console loop notes a line
        quiet = time.ticks_add(time.ticks_ms(), CONSOLE_QUIET_MS)
        # The live heap as the buzzer's player starts the line's notes, and once the
        # show step that sounds them is done: the melodies that made them are gone by
        # then (cran.app's _sound).
        starting = []
        if app.buzzer_pwm is not None:
            import cran.hal.buzzer
            player = cran.hal.buzzer.Buzzer
            player.play = heap_at_call(player.play, starting)
            player = None
        app.show(quiet)   # the console let go; the line's cues sound from here
        gc.collect()
        heap_sounding = [starting[0] if starting else None, gc.mem_alloc()]
        sounding = resident()
        app.show(time.ticks_add(quiet, 10000))   # their notes played
        after_quiet = resident()
        # The menu opened (a long press: the top page, or a direct board's Coup page),
        # then closed by its idle time.
        now = time.ticks_ms()
        app.menu.press("a", "long", now)
        app.show(now)   # drawn: on a screen, the open menu's words
        menu_open = [app.menu.is_open(), resident()]
        app.show(time.ticks_add(now, 60000))   # closed by its idle time, the look drawn
        menu_closed = [app.menu.is_open(), resident()]
        # An order (the game stopped, as a game master's radio or a console says it):
        # its rules are loaded for it (cran.core.orders) and let go once it is played.
        app.badge.apply(Action("stop"), time.ticks_ms())
        ordered = [app.badge.state.stopped, resident()]
        results["modules"] = [after_boot, after_line, after_quiet, answer,
                              menu_open + menu_closed, threshold, sounding, ordered,
                              heap_during, heap_sounding]
        machine.reboot()
        for line in IDLE:
            n += 1
            results[line or "pleine-forme"] = idle(boot(board, n), line)
            machine.reboot()
        # The board's I2C parts not answering (an optional screen not fitted; the
        # StickC's power chip silent, and its screen dark with it).
        n += 1
        unwired = boot(board, n, i2c=False)
        results["no_i2c"] = [unwired.screen is None, resident()]
        unwired = None
        machine.reboot()
        n += 1
        results["hit"] = hit(boot(board, n))
        machine.reboot()
        out[board] = results
    print(json.dumps(out))


main()
