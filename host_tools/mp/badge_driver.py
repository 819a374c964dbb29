# Runs scenarios through the whole badge (cran.app: console -> engine -> cues -> drivers
# -> storage) on the virtual hardware, inside the MicroPython unix port or CPython:
#   <python> badge_driver.py FIRMWARE_DIR BOARDS_DIR FLASH_DIR START_TICK REBOOT_EVERY VHW...
# stdin: one JSON job a line, {"board": ID, "text": SCENARIO}; stdout: one JSON line a
# job, {"events": [...]} in cran.scenario.run()'s format, or {"error": TEXT}.
import json
import sys

if __name__ == "__main__":
    sys.path[:0] = sys.argv[6:] + [sys.argv[1]]

import machine  # noqa: E402
import vclock  # noqa: E402
import world  # noqa: E402

MICROPYTHON = sys.implementation.name == "micropython"
if not MICROPYTHON:
    vclock.patch_cpython_time()

import time  # noqa: E402

from cran import scenario  # noqa: E402
from cran.app import App  # noqa: E402
from cran.config import load  # noqa: E402
from cran.scenario import cue_list, view_list  # noqa: E402

BOOT_MS = 1000   # the badge is switched on this long before the scenario's 0:00


def _no_wait(ms):
    pass


class Run:
    def __init__(self, root, start, reboot_every):
        self.root = root
        self.start = start
        self.reboot_every = reboot_every
        self.events = []
        self.act_cues = []
        self.app = None
        self.boot()

    def boot(self):
        app = self.app = App(self.root, load(self.root))
        shown = app.badge.on_cues

        def hook(kind, now, cues):
            if kind == "timer":
                self.events.append(["timer", vclock.ticks_diff(now, self.start), cue_list(cues),
                                    view_list(app.badge.state, now)])
            elif kind == "act":
                self.act_cues = cues
            shown(kind, now, cues)
        app.badge.on_cues = hook

    def step(self, line, t, kind, payload):
        app = self.app
        now = time.ticks_ms()
        if kind == "act":
            answer = app.line(payload.text(), now)
            if not answer or not answer[0].startswith("ok "):
                raise RuntimeError("console refused %r: %r" % (payload.text(), answer))
            self.events.append(["act", line, t, payload.text(), cue_list(self.act_cues),
                                view_list(app.badge.state, now)])
        else:
            app.badge.tick(now)
            self.events.append(["expect", line, t, view_list(app.badge.state, now)])

    def segments(self, steps):
        n = self.reboot_every or len(steps) or 1
        return [steps[i:i + n] for i in range(0, len(steps), n)]

    def reboot(self):
        # A clean restart: the state saved as of now, the chip reset, a new app from flash.
        # It takes no virtual time (the ST7789's init waits are skipped), so the steps
        # keep their times; on a badge, booting is time switched off, paused (S-storage).
        self.app.badge.checkpoint(time.ticks_ms())
        machine.reboot()
        wait = time.sleep_ms
        time.sleep_ms = _no_wait
        try:
            self.boot()
        finally:
            time.sleep_ms = wait


async def _segment(run, steps):
    import asyncio
    app = run.app
    app.start_watchdog()
    show = asyncio.create_task(app.show_loop())
    for line, t, kind, payload in steps:
        left = vclock.ticks_diff(vclock.ticks_add(run.start, t), time.ticks_ms())
        if left > 0:
            await asyncio.sleep_ms(left)
        run.step(line, t, kind, payload)
    show.cancel()


def _segment_sync(run, steps):
    # CPython's asyncio reads the real clock: the show loop's step on a plain loop instead.
    app = run.app
    app.start_watchdog()
    for line, t, kind, payload in steps:
        target = vclock.ticks_add(run.start, t)
        while True:
            now = time.ticks_ms()
            wait = app.step(now)   # its fault rule too, as show_loop's
            left = vclock.ticks_diff(target, now)
            if left <= 0:
                break
            vclock.advance(min(wait, left))
        run.step(line, t, kind, payload)


def run_job(n, job, boards_dir, flash_dir, start, reboot_every):
    parsed = scenario.parse(job["text"])
    root = "%s/job%d" % (flash_dir, n)
    # Awake throughout: the scenario's actions come as console lines at set times, and a
    # badge in light sleep hears no console (app.CONSOLE_QUIET_MS).
    board = world.make_root(root, boards_dir, job["board"],
                            {"character": parsed.character.as_dict(), "light_sleep": False})
    vclock.start(vclock.ticks_add(start, -BOOT_MS))
    machine.reset_all()
    world.wire(board)
    run = Run(root, start, reboot_every)
    segments = run.segments(parsed.steps)
    for i, steps in enumerate(segments):
        if i:
            run.reboot()
        if MICROPYTHON:
            import asyncio
            asyncio.run(_segment(run, steps))
            asyncio.new_event_loop()
        else:
            _segment_sync(run, steps)
    machine.reboot()
    return run.events


def main():
    boards_dir, flash_dir = sys.argv[2], sys.argv[3]
    start, reboot_every = int(sys.argv[4]), int(sys.argv[5])
    n = 0
    for raw in sys.stdin.read().split("\n"):
        if not raw.strip():
            continue
        job = json.loads(raw)
        try:
            out = {"events": run_job(n, job, boards_dir, flash_dir, start, reboot_every)}
        except Exception as e:   # report this job, go on with the others
            out = {"error": "%s: %r" % (job.get("board"), e)}
            if MICROPYTHON:
                import io
                buf = io.StringIO()
                sys.print_exception(e, buf)
                out["error"] += "\n" + buf.getvalue()
            else:
                import traceback
                out["error"] += "\n" + traceback.format_exc()
        print(json.dumps(out))
        n += 1


main()
