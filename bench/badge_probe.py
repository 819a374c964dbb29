# Runs inside the MicroPython unix port: one board's badge (the whole app on the virtual
# hardware, started by its own main.py from its flash as host_tools/virtual/scripts/badge_driver.py
# starts it, as a chip does) probed for garbage and for how fast a hit shows and is
# saved.
#   micropython bench/badge_probe.py FIRMWARE_DIR BOARDS_DIR FLASH_DIR SCRIPTS_DIR VHW...
# FLASH_DIR/job0: the badge's flash, laid out by the host (runtimes.lay_flash).
# stdin: one badge job (runtimes.badge_job, no steps). Prints {"probe": {...}}:
#   runner_wake_bytes bytes the runner's own asyncio plumbing (the virtual select and task
#                     queue, in Python here, C on a badge) allocates per wake-up of a bare
#                     sleeping task, a reader waiting on the console's UART as the
#                     console loop waits: subtracted from the two figures below
#   idle_wake_bytes   bytes allocated per wake-up at full health, nothing blinking
#   blink_wake_bytes  the same while wounded (blesse blinks: a wake-up per change)
#   hit_bytes         a press on button a (a normal hit), from the press to 600 ms after
#                     its release (the hit is decided 350 ms after it): every wake-up
#   line_byte_bytes   bytes allocated per byte typed on the console, read by the console
#                     loop (asyncio's stream, the virtual UART and select: mostly the
#                     runner's plumbing here), from lines of Enter alone
#   line_bytes        one `status` line typed on the console, read by the console loop
#                     and answered, less its 8 bytes' reading (line_byte_bytes each)
#   press_led_us, press_saved_us   real microseconds from the app hearing of the press
#                     (App.on_button, from the button driver) to the call of the LEDs'
#                     write() and to the state record saved (StateStore.save returned),
#                     one per hit (press_led_us: [] without LEDs)
# Allocations are counted with the GC held off (gc.mem_alloc before and after).
import gc
import json
import sys

import utime  # the port's own clock: the virtual hardware's time.py shadows `time`

sys.path[:0] = sys.argv[4:] + [sys.argv[1]]

import asyncio  # noqa: E402
import time  # noqa: E402  (the virtual one, as the firmware sees it)

import badge_driver  # noqa: E402
import machine  # noqa: E402

HITS = 25
START = (1 << 30) - 600000   # the probe crosses the tick wrap
_marks = {"press": None, "led": None, "saved": None}


def _mark(name):
    if _marks["press"] is not None and _marks[name] is None:
        _marks[name] = utime.ticks_us()


def hook_press():
    """The app hears of a press through its on_button (the button driver's callback,
    bound when the app is made): wrapped before the app is."""
    from cran.app import App
    heard = App.on_button

    def on_button(self, name, kind, tick):
        if _marks["press"] is None:
            _marks["press"] = utime.ticks_us()
        heard(self, name, kind, tick)
    App.on_button = on_button
    # The packages found here: the badge's main.py finds them again on its flash (the
    # modules loaded so far are kept: the same App).
    for name in [n for n, m in sys.modules.items() if n.split(".")[0] == "cran"
                 and hasattr(m, "__path__")]:
        sys.modules.pop(name)


def hook_outputs(app):
    if app.leds is not None:
        np = app.leds.np
        write = np.write

        def written():
            _mark("led")
            write()
        np.write = written
    store = app.badge.store
    save = store.save

    def saved(payload):
        save(payload)
        _mark("saved")
    store.save = saved


async def allocated(coro):
    """Bytes allocated while coro runs, the GC held off."""
    gc.collect()
    gc.disable()
    before = gc.mem_alloc()
    try:
        await coro
    finally:
        used = gc.mem_alloc() - before
        gc.enable()
    return used


async def per_wake(app, ms):
    woke = app.wakeups
    used = await allocated(asyncio.sleep_ms(ms))
    return used / max(1, app.wakeups - woke)


async def runner_per_wake():
    woke = [0]

    async def sleeper():
        while True:
            woke[0] += 1
            await asyncio.sleep_ms(30000)

    async def reader():   # waiting for a byte, as the console loop waits
        await asyncio.StreamReader(machine.console).read(1)
    tasks = [asyncio.create_task(sleeper()), asyncio.create_task(reader())]
    await asyncio.sleep_ms(1000)
    before = woke[0]
    used = await allocated(asyncio.sleep_ms(600000))
    for task in tasks:
        task.cancel()
    return used / (woke[0] - before)


async def press(pin, level):
    machine.drive(pin, level)
    await asyncio.sleep_ms(100)
    machine.drive(pin, None)      # let go: the pull brings it back
    await asyncio.sleep_ms(600)


async def probe(run, button):
    from cran.core.view import view
    app = run.app
    await asyncio.sleep_ms(2000)
    plumbing = run.plumbing
    out = {"runner_wake_bytes": plumbing,
           "idle_wake_bytes": await per_wake(app, 600000) - plumbing, "hit_bytes": [],
           "press_led_us": [], "press_saved_us": []}
    pin, level = button["pin"], 0 if button["active_low"] else 1
    for i in range(HITS):
        for name in _marks:
            _marks[name] = None
        out["hit_bytes"].append(await allocated(press(pin, level)))
        etat = view(app.badge.state, time.ticks_ms())["etat"]
        if etat != "blesse" or _marks["saved"] is None:
            raise RuntimeError("hit %d: etat %s, saved %r" % (i, etat, _marks["saved"]))
        if _marks["led"] is not None:
            out["press_led_us"].append(utime.ticks_diff(_marks["led"], _marks["press"]))
        out["press_saved_us"].append(utime.ticks_diff(_marks["saved"], _marks["press"]))
        if i == 0:
            out["blink_wake_bytes"] = await per_wake(app, 60000) - plumbing
        await run.typed("soin complet")
        await asyncio.sleep_ms(6000)   # past the undo window: the next press is a hit
    await run.typed("status")   # the console loaded: the next line's garbage alone
    # Its bytes' reading, byte by byte (asyncio's stream, the virtual UART and select,
    # Python here, C on a badge: most of it), apart: Enter alone, four times.
    per_byte = out["line_byte_bytes"] = await allocated(run.typed("\r\n" * 4)) / 10
    out["line_bytes"] = await allocated(run.typed("status")) - 8 * per_byte
    return out


def main():
    job = json.loads(sys.stdin.readline())
    with open("%s/%s.json" % (sys.argv[2], job["board"])) as f:
        button = json.load(f)["buttons"][0]
    plumbing = asyncio.run(runner_per_wake())
    asyncio.new_event_loop()
    hook_press()
    run = badge_driver.boot(0, job, sys.argv[2], sys.argv[3], START)
    run.plumbing = plumbing
    found = {}

    async def played(run, steps):
        # The probe, a task of the runner in the badge's own loop (badge_driver.run_chip).
        try:
            await run.wait_for_app()
            hook_outputs(run.app)
            found["probe"] = await probe(run, button)
        except Exception as e:
            run.error = e
        run.ended = True
        raise badge_driver._Stop()
    job["steps"] = badge_driver.Steps(0)
    badge_driver.run_chip(run, job, played)
    sys.stdout.write(json.dumps(found) + "\n")


main()
