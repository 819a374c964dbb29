# Runs inside the MicroPython unix port on the virtual hardware: one board's whole badge
# app through a 12-hour game day with one fight an hour, then prints what its parts did
# (virtual/micropython/meter.py) as one JSON line, for host_tools/virtual/power.py's estimate.
#   micropython bench/power_day.py FIRMWARE_DIR BOARDS_DIR FLASH_DIR BOARD CONFIG_JSON
#                                  VHW_DIR MPONLY_DIR
import json
import sys

sys.path[:0] = [sys.argv[6], sys.argv[7], sys.argv[1]]

import asyncio  # noqa: E402
import time  # noqa: E402

import machine  # noqa: E402
import meter  # noqa: E402
import vclock  # noqa: E402
import world  # noqa: E402

from cran.config import load  # noqa: E402
from cran.core.words import parse_action  # noqa: E402
from cran.start.parts import build  # noqa: E402

HOURS = 12
# One fight an hour: two hits on button a (a finger: it wakes a sleeping badge), then
# what a wearer picks in the menu (applied as the menu would, its presses left out).
FIGHT = (("press", 2000), ("press", 3000), ("effet peur", 60000), ("soin", 1000),
         ("soin", 1000))


def run_for(app, ms):
    async def main():
        task = asyncio.create_task(app.run(console=False))
        await asyncio.sleep_ms(ms)
        task.cancel()
    asyncio.run(main())
    asyncio.new_event_loop()


def main():
    board_id = sys.argv[4]
    vclock.start((1 << 30) - 3600000)     # the day crosses the tick wrap
    machine.history = 8                   # parts keep their last writes only: a day's
    machine.reset_all()                   # screen frames would fill the heap
    meter.reset()
    root = sys.argv[3] + "/" + board_id
    config = json.loads(sys.argv[5])
    board = world.make_root(root, sys.argv[2], board_id, config)
    if "radio" in config:   # the radio needs the game's key, as cran flash installs it
        with open(root + "/game.key", "wb") as f:
            f.write(bytes(range(32)))
    world.wire(board)                     # the StickC's screen needs its power chip
    app = build(root, load(root))
    pin = board["buttons"][0]["pin"]
    level = 0 if board["buttons"][0]["active_low"] else 1
    start = vclock.elapsed_ms()
    for hour in range(HOURS):
        for what, pause_ms in FIGHT:
            if what == "press":
                machine.drive_at(0, pin, level)
                machine.drive_at(120, pin, None)
            else:
                app.badge.apply(parse_action(what), time.ticks_ms())
            run_for(app, pause_ms)
        # a light sleep may have run past the end of the last run_for: the hour is kept
        left = start + (hour + 1) * 3600000 - vclock.elapsed_ms()
        run_for(app, max(0, left))
    counts = meter.read()
    counts.update({"board": board_id, "chip": board["chip"],
                   "led_count": board["leds"]["count"] if board["leds"] else 0,
                   "show_steps": app.wakeups, "can_sleep": app.can_sleep,
                   "console_lost": machine.console.lost,
                   "etat_end": app.badge.state.etat,
                   "hits": len([e for e in app.badge.journal.entries()
                                if e.get("a") == "coup normal"])})
    print(json.dumps(counts))


main()
