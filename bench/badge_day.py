# Runs inside the MicroPython unix port on the virtual hardware: the whole badge app
# (atom-lite) booted from a flash folder, then a 12-hour game day in virtual time.
#   micropython bench/badge_day.py FIRMWARE_DIR BOARDS_DIR FLASH_DIR VHW_DIR MPONLY_DIR
# Prints one JSON line of figures.
import gc
import json
import sys

sys.path[:0] = [sys.argv[4], sys.argv[5], sys.argv[1]]

import asyncio  # noqa: E402
import time  # noqa: E402

import machine  # noqa: E402
import vclock  # noqa: E402
import world  # noqa: E402

from cran.app import App  # noqa: E402
from cran.config import load  # noqa: E402

BOARD = "atom-lite"
# One fight an hour: hits, a keyword, a heal; the rest of the hour is calm.
FIGHT = (("coup", 2000), ("coup", 3000), ("effet peur", 60000), ("soin", 1000),
         ("soin", 1000))


def boot(root):
    world.wire(world.make_root(root, sys.argv[2], BOARD, {}), i2c=False)
    return App(root, load(root))


def run_for(app, ms):
    async def main():
        task = asyncio.create_task(app.run(console=False))
        await asyncio.sleep_ms(ms)
        task.cancel()
    asyncio.run(main())
    asyncio.new_event_loop()


def main():
    vclock.start((1 << 30) - 3600000)     # the day crosses the tick wrap
    machine.reset_all()
    gc.collect()
    base = gc.mem_alloc()
    app = boot(sys.argv[3] + "/day")
    gc.collect()
    after_boot = gc.mem_alloc()          # everything: modules, drivers, badge
    booting = after_boot - base          # what boot itself keeps
    peak = after_boot
    for _ in range(12):
        spent = 0
        for text, pause_ms in FIGHT:
            app.line(text, time.ticks_ms())
            run_for(app, pause_ms)
            spent += pause_ms
        run_for(app, 3600000 - spent)
        gc.collect()
        peak = max(peak, gc.mem_alloc())   # live heap after each hour
    # Idle: the engine's tick with nothing due, many times, GC held off.
    now = time.ticks_ms()
    gc.collect()
    gc.disable()
    before = gc.mem_alloc()
    for i in range(1000):
        app.badge.tick(time.ticks_add(now, i))
    idle_bytes = (gc.mem_alloc() - before) / 1000
    gc.enable()
    # Wake-ups in a calm minute at full health.
    app.line("reset", time.ticks_ms())
    run_for(app, 60000)
    woke = app.wakeups
    run_for(app, 60000)
    print(json.dumps({"heap_after_boot": after_boot, "boot_keeps": booting,
                      "live_peak_hourly": peak,
                      "idle_tick_bytes": idle_bytes, "wakeups_idle_minute": app.wakeups - woke,
                      "etat_end": app.badge.status(time.ticks_ms())["etat"]}))


main()
