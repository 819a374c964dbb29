# Runs scenarios through the whole badge (cran.app: console -> engine -> cues -> drivers
# -> storage) on the virtual hardware, inside the MicroPython unix port or CPython:
#   <python> badge_driver.py FIRMWARE_DIR BOARDS_DIR FLASH_DIR START_TICK REBOOT_EVERY MODE
#            VHW...
# stdin: each job as a line of JSON, {"board": ID, "character": {...}, "steps": N}, then
#   its N steps, one JSON line each, read as the run comes to them (the runner keeps no
#   list of them: a day of presses is ~45 KB of lists, which sat in the middle of the
#   heap and cut the badge's in two), parsed on the host (gamefiles.scenario stays off the
#   badge's heap):
#   [LINE, T_MS, "act", TEXT] | [LINE, T_MS, "expect"] | [LINE, T_MS, "mem"] |
#   [LINE, T_MS, "line", TEXT] | [LINE, T_MS, "drive", [PIN, LEVEL or null]]
#   "line": a console line whose answer is not checked (an organiser's `status`);
#   "drive": a pin driven, or let go to its pull (null), as a finger on a button does
# stdout: one JSON line as each thing happens, never kept (the runner must not grow):
#   {"heap": {"base": B, "total": T}}   MicroPython: bytes in use before any cran module is
#                                       imported (vhw, this runner, the first job), of T
#   {"job": N, "event": [...]}          gamefiles.scenario.run()'s format; a "mem" step gives
#                                       ["mem", T_MS, live bytes of the badge, GCs so far]
#   {"job": N, "end": true}             or {"job": N, "error": TEXT}, or, out of memory,
#   {"job": N, "memory": MESSAGE, "where": "FILE:LINE, in FUNCTION"}
# MODE "overhead": stop after the "heap" line (a short first run that measures the runner).
# MODE "...+radio": the jobs' games have the radio (the virtual espnow and network loaded
# with the runner, in its share, as they are C on a badge).
import gc
import json
import sys

if __name__ == "__main__":
    _firmware = sys.argv[1]
    if _firmware.endswith(".romfs"):
        # The firmware as a ROMFS image (runtimes.run_badge_jobs(romfs=True)), mounted
        # as a badge mounts its ROMFS partition: .mpy files run in place from it, their
        # bytecode and strings read where they lie, not copied into the heap. The image
        # is the runner's share here; on a badge it is flash.
        import vfs
        with open(_firmware, "rb") as _f:
            _ROM = _f.read()
        vfs.mount(vfs.VfsRom(memoryview(_ROM)), "/rom")
        _firmware = "/rom"
    sys.path[:0] = sys.argv[7:] + [_firmware]
    if sys.implementation.name == "micropython":
        import badgenames
        badgenames.make()   # the badge's names, first, as on a badge (see there)
        gc.collect()        # the names modules' own objects, gone before the runner loads

MICROPYTHON = sys.implementation.name == "micropython"
# CircuitPython: the virtual CircuitPython modules (host_tools/vcp) and Adafruit's
# libraries on the path; the firmware's MicroPython names (time, machine) over them.
CIRCUITPYTHON = sys.implementation.name == "circuitpython"
if CIRCUITPYTHON:
    from cran.hal_cp import runtime
    runtime.install()
    import board as cp_board  # noqa: E402
    import microcontroller as machine  # noqa: E402  (its test hooks are vhw machine's)
    import vclock  # noqa: E402
    world = vclock.vhw_module("world")
else:
    import machine  # noqa: E402
    import vclock  # noqa: E402
    import world  # noqa: E402

if not MICROPYTHON and not CIRCUITPYTHON:
    vclock.patch_cpython_time()
elif MICROPYTHON:
    # The rest of the virtual hardware, in the runner's share of the heap: on a badge
    # these are built in (select and vtasks are asyncio's queue on the 2**30 period).
    import select  # noqa: E402, F401

    import esp32  # noqa: E402, F401
    import neopixel  # noqa: E402, F401

if MICROPYTHON and sys.argv[6].endswith("+radio"):
    # The radio's chips for jobs of a game with the radio, and only then: their names
    # would move where the badge's own cross into a new pool of names (a 9 KB block).
    import espnow  # noqa: E402, F401
    import network  # noqa: E402, F401
    try:
        import cryptolib  # noqa: E402, F401
    except ImportError:
        # A port built without it (the 32-bit one that measures heaps): a stand-in that
        # makes blocks of the same size, in the runner's share as the chip's C module
        # would be. NOT AES: for a heap's measure only; frames made with it are garbage.
        class _Block:
            def __init__(self, key, mode, iv=None):
                self.key = key

            def encrypt(self, block):
                return bytes([b ^ k for b, k in zip(block, self.key)])

        class _StandIn:
            aes = _Block

        sys.modules["cryptolib"] = _StandIn

import time  # noqa: E402

BOOT_MS = 1000   # the badge is switched on this long before the scenario's 0:00
GAME_KEY = bytes(range(32))   # a game with the radio's key (its console locked by it)
# Parts keep no history (PWM timeline, bus writes): a run that kept it would grow with
# the scenario, and copying each write would count as the badge's garbage.
machine.history = -1


def _no_wait(ms):
    pass


def emit(n, key, value):
    print(json.dumps({"job": n, key: value}))


class GcWatch:
    """Counts garbage collections: the heap in use only falls when one ran. Looked at
    on every wake-up of the app (at most one counted per wake-up) and at "mem" steps."""

    def __init__(self):
        self.count = 0
        self.last = gc.mem_alloc()

    def look(self):
        now = gc.mem_alloc()
        if now < self.last:
            self.count += 1
        self.last = now


class Run:
    def __init__(self, n, root, start, reboot_every, base):
        self.n = n
        self.root = root
        self.start = start
        self.reboot_every = reboot_every
        self.base = base          # heap bytes in use before the badge's first module
        self.act_cues = []
        self.app = None
        self.fault = None         # a MemoryError the app's fault rule caught
        self.died = None          # what ended the show loop's task
        self.gcs = GcWatch() if MICROPYTHON else None
        self.boot()

    def boot(self):
        from cran.start.phases import start  # as main() boots it: start-only modules let go
        app = self.app = start(self.root)
        shown = app.badge.on_cues

        def hook(kind, now, cues):
            if kind == "timer":
                emit(self.n, "event", ["timer", scenario_ms(now),
                                       cue_list(cues), view_list(app.badge.state, now)])
            elif kind == "act":
                self.act_cues = cues
            shown(kind, now, cues)
        app.badge.on_cues = hook
        app.on_fault = self.on_fault
        if self.gcs is not None:
            show = app.show

            def watched(now):
                self.gcs.look()
                return show(now)
            app.show = watched

    def on_fault(self, e):
        if isinstance(e, MemoryError):
            self.fault = e

    def check(self):
        """A show loop that died ends the run here, and so does a MemoryError the app
        survived (its show step journals a fault and retries): the badge ran out."""
        if self.fault is not None:
            raise self.fault
        if self.died is not None:
            raise self.died

    def on_task_error(self, loop, context):
        self.died = context["exception"]

    def step(self, line, t, kind, text):
        self.check()
        app = self.app
        now = time.ticks_ms()
        if kind == "act":
            answer = app.line(text, now)
            if answer and answer[0].startswith("error: locked"):
                self.unlock(now)   # as an organiser's tool does, then the line again
                answer = app.line(text, now)
            if not answer or not answer[0].startswith("ok "):
                raise RuntimeError("console refused %r: %r" % (text, answer))
            emit(self.n, "event", ["act", line, t, text, cue_list(self.act_cues),
                                   view_list(app.badge.state, now)])
        elif kind == "drive":
            machine.drive(text[0], text[1])   # the pin's IRQ fires: the button driver
        elif kind == "line":
            app.line(text, now)
        elif kind == "mem":
            self.gcs.look()
            gc.collect()
            self.gcs.last = gc.mem_alloc()
            emit(self.n, "event", ["mem", t, self.gcs.last - self.base, self.gcs.count])
        else:
            app.badge.tick(now)
            emit(self.n, "event", ["expect", line, t, view_list(app.badge.state, now)])

    def unlock(self, now):
        """The console of a badge with a game key (a game with the radio) opened as
        `cran console` opens it: its challenge answered with the key. The proof's code
        is the firmware's (cran.lock's, which the console has loaded)."""
        import binascii

        from cran.lock import unlock_tag
        from cran.tags import to_hex
        nonce = self.app.line("challenge", now)[0].split()[1]
        answer = self.app.line("unlock " + to_hex(unlock_tag(
            GAME_KEY, binascii.unhexlify(nonce))), now)
        if not answer or not answer[0].startswith("ok unlocked"):
            raise RuntimeError("the console did not unlock: %r" % (answer,))

    def segments(self, steps):
        """steps (Steps) in runs of reboot_every between reboots (all of them: 0)."""
        n = self.reboot_every or steps.left
        while steps.left:
            yield steps.take(n)

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


def view_list(state, now):
    """A view as a list in FIELDS order (cran.core.view; as gamefiles.scenario.view_list,
    which is host-only and stays off the badge's heap)."""
    from cran.core.view import FIELDS, view
    seen = view(state, now)
    return [seen[f] for f in FIELDS]


def cue_list(cues):
    return [[kind, value, private] for _, kind, value, private in cues]


# Scenario time is counted on the virtual clock's elapsed ms, which never wraps: two
# steps further apart than ticks can tell (2**29 ms, about 149 hours) are waited for in
# strides, each short enough for every tick difference in between to read right.
_STRIDE_MS = 1 << 27


def scenario_ms(now):
    """A tick of the run, near the clock's now -> ms since the scenario's 0:00."""
    return vclock.elapsed_ms() - BOOT_MS + time.ticks_diff(now, time.ticks_ms())


async def _segment(run, steps):
    import asyncio
    asyncio.get_event_loop().set_exception_handler(run.on_task_error)
    app = run.app
    app.start_watchdog()
    show = asyncio.create_task(app.show_loop())
    for step in steps:
        while True:
            left = step[1] - scenario_ms(time.ticks_ms())
            if left <= 0:
                break
            await asyncio.sleep_ms(min(left, _STRIDE_MS))
        run.step(step[0], step[1], step[2], step[3] if len(step) > 3 else None)
    show.cancel()
    run.check()


def _segment_sync(run, steps):
    # CPython's asyncio reads the real clock: the show loop's step on a plain loop instead.
    app = run.app
    app.start_watchdog()
    for step in steps:
        while True:
            now = time.ticks_ms()
            wait = app.step(now)   # its fault rule too, as show_loop's
            left = step[1] - scenario_ms(now)
            if left <= 0:
                break
            vclock.advance(min(wait, left))
        run.step(step[0], step[1], step[2], step[3] if len(step) > 3 else None)


def boot(n, job, boards_dir, flash_dir, start, reboot_every=0, base=0):
    """A fresh badge of job["board"] with job["character"], booted from its flash. -> Run"""
    root = "%s/job%d" % (flash_dir, n)
    # Awake throughout: the scenario's actions come as console lines at set times, and a
    # badge in light sleep hears no console (app.CONSOLE_QUIET_MS).
    config = {"character": job["character"], "light_sleep": False}
    config.update(job.get("config", {}))   # e.g. a game's radio
    board = world.make_root(root, boards_dir, job["board"], config)
    if "radio" in config:   # the radio needs the game's key, as cran flash installs it
        with open(root + "/game.key", "wb") as f:
            f.write(GAME_KEY)
    vclock.start(vclock.ticks_add(start, -BOOT_MS))
    machine.reset_all()
    if CIRCUITPYTHON:
        cp_board.define(board["circuitpython_board"])
        for spec in board["buttons"]:   # the board's own resistor, where it has one
            if spec.get("pull") is None:
                machine.set_board_pull(spec["pin"], 1 if spec["active_low"] else 0)
    else:
        world.wire(board)
    return Run(n, root, start, reboot_every, base)


def run_job(n, job, boards_dir, flash_dir, start, reboot_every, base):
    run = boot(n, job, boards_dir, flash_dir, start, reboot_every, base)
    for i, steps in enumerate(run.segments(job["steps"])):
        if i:
            run.reboot()
        if MICROPYTHON or CIRCUITPYTHON:
            import asyncio
            try:
                asyncio.run(_segment(run, steps))
            except machine.VirtualReset as e:
                # Starved by a show loop that faulted or died: say why, when known.
                run.check()
                raise RuntimeError("the badge was reset: %s" % e) from None
            finally:
                asyncio.new_event_loop()   # drops the tasks, and the app they hold
        else:
            _segment_sync(run, steps)
    machine.reboot()


def where_it_died(e):
    """-> "FILE:LINE, in FUNCTION" of the innermost frame of e's traceback, or None."""
    import io
    buf = io.StringIO()
    sys.print_exception(e, buf)
    place = None
    for line in buf.getvalue().split("\n"):
        line = line.strip()
        if line.startswith('File "'):
            path, _, rest = line[6:].partition('", line ')
            number, _, function = rest.partition(", in ")
            place = "%s:%s, in %s" % (path, number, function)
    return place


def report(n, job, e):
    if MICROPYTHON and isinstance(e, MemoryError):
        gc.collect()
        try:
            print(json.dumps({"job": n, "memory": str(e), "where": where_it_died(e)}))
        except MemoryError:   # not even room to say where
            print('{"job": %d, "memory": "", "where": null}' % n)
        return
    text = "%s: %r" % (job.get("board"), e)
    if MICROPYTHON:
        import io
        buf = io.StringIO()
        sys.print_exception(e, buf)
        text += "\n" + buf.getvalue()
    elif CIRCUITPYTHON:
        import traceback
        text += "\n" + "".join(traceback.format_exception(e))
    else:
        import traceback
        text += "\n" + traceback.format_exc()
    emit(n, "error", text)


class Steps:
    """The job's steps, read from stdin as they come: never all in the heap at once."""

    def __init__(self, count):
        self.left = count

    def take(self, n):
        for _ in range(min(n, self.left)):
            self.left -= 1
            yield json.loads(sys.stdin.readline())

    def skip(self):
        """The rest unread (a job that failed): the next job's head comes after them."""
        while self.left:
            self.left -= 1
            sys.stdin.readline()


def read_job():
    """The next job's head from stdin, or None at its end (its steps follow: Steps)."""
    while True:
        raw = sys.stdin.readline()
        if not raw:
            return None
        if raw.strip():
            return json.loads(raw)


def main():
    boards_dir, flash_dir = sys.argv[2], sys.argv[3]
    start, reboot_every = int(sys.argv[4]), int(sys.argv[5])
    mode = sys.argv[6].split("+")[0]
    n = 0
    base = None
    while True:
        job = read_job()
        if job is None:
            break
        if base is None and MICROPYTHON:
            gc.collect()
            base = gc.mem_alloc()
            print(json.dumps({"heap": {"base": base, "total": base + gc.mem_free()}}))
            if mode == "overhead":
                return
        job["steps"] = Steps(job["steps"])
        try:
            # The badge's figures: its live heap over the runner's, its names' weight in.
            run_job(n, job, boards_dir, flash_dir, start, reboot_every,
                    (base or 0) - job.get("names", 0))
            emit(n, "end", True)
        except Exception as e:   # report this job, go on with the others
            report(n, job, e)
        job["steps"].skip()
        job = None
        n += 1


if __name__ == "__main__":
    main()
