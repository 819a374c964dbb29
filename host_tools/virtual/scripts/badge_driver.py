# Runs scenarios through the whole badge (cran.app: console -> engine -> cues -> drivers
# -> storage) on the virtual hardware, inside the MicroPython unix port or CPython:
#   <python> badge_driver.py FIRMWARE_DIR BOARDS_DIR FLASH_DIR START_TICK REBOOT_EVERY MODE
#            VHW...
# On MicroPython the badge runs as a chip runs: FLASH_DIR/jobN, laid out by the host as
#   cran flash leaves a badge (host_tools.virtual.runtimes.lay_flash: main.py, the firmware
#   or its ROMFS image, the manifest), is mounted at "/" and its own main.py runs (Ctrl-C
#   off, the watchdog, the manifest's check, cran.run.main, App.run and its console loop,
#   never returning); the steps are played by a task of the runner in the app's own
#   asyncio loop, and a console line is typed: its bytes on the virtual UART
#   (machine.console, the console loop's stdin), its answer what the badge prints. On
#   CPython (its asyncio reads the real clock: the show step on a plain loop) and
#   CircuitPython, the app is built by cran.start.phases.start and a line is App.line.
# stdin: each job as a line of JSON, {"board": ID, "character": {...}, "steps": N}, then
#   its N steps, one JSON line each, read as the run comes to them (the runner keeps no
#   list of them: a day of presses is ~45 KB of lists, which sat in the middle of the
#   heap and cut the badge's in two), parsed on the host (gamefiles.scenario stays off the
#   badge's heap):
#   [LINE, T_MS, "act", TEXT] | [LINE, T_MS, "expect"] | [LINE, T_MS, "mem"] |
#   [LINE, T_MS, "line", TEXT] | [LINE, T_MS, "drive", [PIN, LEVEL or null]]
#   "line": a console line whose answer is not checked (an organiser's `status`);
#   "drive": a pin driven, or let go to its pull (null), as a finger on a button does.
#   A job's "chip": bytes the chip's own heap holds that the virtual parts do not put in
#   the badge's (host_tools.virtual.esp32image: its boot, its frozen modules), made in
#   the badge's heap before its main.py runs; "ring": the bytes of ESP-NOW's receive
#   ring, made in it while the radio listens, as the chip makes it.
# stdout: one JSON line as each thing happens, never kept (the runner must not grow):
#   {"heap": {"base": B, "total": T}}   MicroPython: bytes in use before any cran module is
#                                       imported (virtual hardware, runner, first job), of T
#   {"job": N, "event": [...]}          gamefiles.scenario.run()'s format; a "mem" step gives
#                                       ["mem", T_MS, live bytes of the badge, GCs so far]
#   {"job": N, "end": true}             or {"job": N, "error": TEXT}, or, out of memory,
#   {"job": N, "memory": MESSAGE, "where": "FILE:LINE, in FUNCTION"}, or, main.py ended
#   without the app running, {"job": N, "not_started": [LINE printed, ...]}
#   What the badge prints (its UART) is read by the runner, never written there.
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
        # The badge's names, first, as on a badge (see there): its modules' paths as a
        # chip's are, run from its flash's root ("E.mpy": build.flattened) or from its ROMFS.
        badgenames.make(root=None if _firmware == "/rom" else "",
                        main=sys.argv[3] + "/job0/main.py")
        gc.collect()        # the names modules' own objects, gone before the runner loads

MICROPYTHON = sys.implementation.name == "micropython"
# CircuitPython: the virtual CircuitPython modules (host_tools/virtual/circuitpython) and
# Adafruit's libraries on the path; the firmware's MicroPython names (time, machine) over them.
CIRCUITPYTHON = sys.implementation.name == "circuitpython"
if CIRCUITPYTHON:
    from cran.hal_cp import runtime
    runtime.install()
    import board as cp_board  # noqa: E402
    import microcontroller as machine  # noqa: E402  (its test hooks are micropython/machine.py's)
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

# The badge runs as a chip runs it (MicroPython: its main.py, from its flash at "/").
CHIP = MICROPYTHON
ROMFS = sys.argv[1].endswith(".romfs")

# ESP-NOW's receive ring: the chip makes it in its heap at each active(True) and frees it
# at active(False) (host_tools.virtual.esp32image.RING_BYTES); the virtual espnow is the
# runner's. [its bytes for this job's chip (0: none), the ring while the radio is on]
_ring = [0, None]


def _ringed(active):
    def with_ring(self, on=None):
        result = active(self, on)
        if on is not None and _ring[0]:
            if not result:
                _ring[1] = None
            elif _ring[1] is None:
                _ring[1] = bytearray(_ring[0] - 16)   # its object's 16 bytes, then the data
        return result
    return with_ring


if MICROPYTHON and sys.argv[6].endswith("+radio"):
    # The radio's chips for jobs of a game with the radio, and only then: their names
    # would move where the badge's own cross into a new pool of names (a 9 KB block).
    import espnow  # noqa: E402
    import network  # noqa: E402, F401
    espnow.ESPNow.active = _ringed(espnow.ESPNow.active)
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


def _out(value):
    # The runner's own lines: print is the badge's (its UART, read by the runner).
    sys.stdout.write(json.dumps(value))
    sys.stdout.write("\n")


def emit(n, key, value):
    _out({"job": n, key: value})


# ---- the badge's UART, as the runner sees it ------------------------------------------

_said = []             # what the badge printed while the runner listened (print's args)
_listening = [False]   # while a line is answered (or the badge boots): kept, else dropped


class _Stop(BaseException):
    """The runner's steps are over (or failed: Run.error): the badge's loop ends."""


class _Sink:
    """The UART's sending end, as the console's echo writes to it: on a badge, bytes out
    of the chip; here, dropped."""

    def write(self, data):
        return len(data)


_ECHO = _Sink()

if CHIP:
    import builtins

    _PRINT = builtins.print

    def _uart(*args, **kwargs):
        """print, as the badge calls it: its UART. The runner keeps what it prints while
        it listens (Run.typed), and drops the rest, as a host that reads nothing."""
        if kwargs.get("file") is not None:
            return _PRINT(*args, **kwargs)
        if _listening[0]:
            _said.append(args)
        return None

    # Made now, in the runner's share: the built-ins' table of names that override.
    builtins.print = _uart


def _printed():
    text = [" ".join([str(a) for a in args]) for args in _said]
    del _said[:]
    return text


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


_runs = [None]      # the chip's run now, for App's hooks (_hook_app)


def _open(app, now):
    return True


def _hook_app(app_class):
    """App's hooks for the runner, once: the app made by cran.run.main is handed to the
    run as it starts (App.run starts its watchdog first thing), and an app that ends gives
    its exception back (as to an organiser at the REPL: cran.run.main's own console_open
    would log it and reset a locked badge)."""
    if app_class.console_open is _open:   # hooked already
        return
    started = app_class.start_watchdog

    def start_watchdog(app):
        run = _runs[0]
        if run is not None and run.app is None:
            run.found(app)
        started(app)
    app_class.start_watchdog = start_watchdog
    app_class.console_open = _open


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
        self.ended = False        # the chip's steps played to their end (CHIP)
        self.error = None         # what stopped them (CHIP)
        self.chip = None          # the chip's own allocations (CHIP)
        self.slept = None         # time.sleep_ms while a reboot's boot takes no time
        if not CHIP:
            self.boot()

    def boot(self):
        from cran.start.phases import start  # as main() boots it: start-only modules let go
        self.found(start(self.root))

    def found(self, app):
        """The badge's app, as it starts: the runner's hooks in it."""
        self.app = app
        if CHIP:
            from cran import compat
            compat.STDIN = machine.console   # the console's UART, as the runner types
            compat.STDOUT = _ECHO
            _listening[0] = False
            del _said[:]
            if self.slept is not None:   # booted: time runs again
                time.sleep_ms, self.slept = self.slept, None
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
            self.acted(line, t, text, answer)
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

    def acted(self, line, t, text, answer):
        if not answer or not answer[0].startswith("ok "):
            raise RuntimeError("console refused %r: %r" % (text, answer))
        app = self.app
        emit(self.n, "event", ["act", line, t, text, cue_list(self.act_cues),
                               view_list(app.badge.state, time.ticks_ms())])

    def unlock(self, now):
        """The console of a badge with a game key (a game with the radio) opened as
        `cran console` opens it: its challenge answered with the key. The proof's code
        is the firmware's (cran.lock's, which the console has loaded)."""
        nonce = self.app.line("challenge", now)[0]
        self.unlocked(self.app.line("unlock " + _proof(nonce), now))

    def unlocked(self, answer):
        if not answer or not answer[0].startswith("ok unlocked"):
            raise RuntimeError("the console did not unlock: %r" % (answer,))

    # ---- the chip's way (CHIP) ----------------------------------------------------

    async def play(self, line, t, kind, text):
        """A step, as on a chip: a console line typed on its UART."""
        if kind == "act":
            self.check()
            answer = await self.typed(text)
            if answer and answer[0].startswith("error: locked"):
                nonce = (await self.typed("challenge"))[0]
                self.unlocked(await self.typed("unlock " + _proof(nonce)))
                answer = await self.typed(text)
            self.acted(line, t, text, answer)
        elif kind == "line":
            self.check()
            await self.typed(text)
        else:
            self.step(line, t, kind, text)

    async def typed(self, text):
        """A console line as a host types it: its bytes on the virtual UART, read one by
        one by App.console_loop (each byte a turn of the loop) -> the lines the badge
        printed meanwhile (its answer). A line the console could not answer for want of
        memory (it answers its error and lives on) is the badge out of memory here."""
        import asyncio
        del _said[:]
        _listening[0] = True
        try:
            machine._receive(text.encode() + b"\r\n")   # the badge is awake: heard
            turns = 0
            while machine.console.fifo:
                turns += 1
                if turns > 10000 or self.died is not None:
                    raise RuntimeError("the console read %r no further: %r" % (
                        text, machine.console.fifo))
                await asyncio.sleep_ms(0)
        finally:
            _listening[0] = False
        said = _printed()
        if said and said[0].startswith(_FAILED) and "MemoryError" in said[0]:
            raise MemoryError("the console's %r: %s" % (text, said[0][len(_FAILED):]))
        return said

    async def wait_for_app(self):
        """The first turn of the badge's loop: its app (cran.run.main's) about to run."""
        import asyncio
        module = sys.modules.get("cran.app")
        if module is not None:
            _hook_app(module.App)
            for _ in range(100):
                if self.app is not None:
                    return
                await asyncio.sleep_ms(0)
        raise NotStarted(_printed())

    def restart(self):
        """A clean restart: the state saved as of now, the chip reset, main.py again.
        It takes no virtual time (the ST7789's init waits are skipped), so the steps
        keep their times; on a badge, booting is time switched off, paused (S-storage)."""
        self.app.badge.checkpoint(time.ticks_ms())
        machine.reboot()
        self.app = None
        self.slept, time.sleep_ms = time.sleep_ms, _no_wait

    def segments(self, steps):
        """steps (Steps) in runs of reboot_every between reboots (all of them: 0); one
        run at least, however few (the badge boots)."""
        n = self.reboot_every or steps.left
        yield steps.take(n)
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


_FAILED = "error: the badge failed on this line: "   # cran.console's answer to an error


def _proof(challenge):
    """The answer to a console's challenge line ("challenge NONCE") with the game key."""
    import binascii

    from cran.lock import unlock_tag
    from cran.tags import to_hex
    return to_hex(unlock_tag(GAME_KEY, binascii.unhexlify(challenge.split()[1])))


def view_list(state, now):
    """A view as a list in FIELDS order (cran.core.view; as gamefiles.scenario.view_list,
    which is host-only and stays off the badge's heap). The module, loaded for this only,
    is let go again: a badge loads it with its console."""
    loaded = "cran.core.view" in sys.modules
    from cran.core.view import FIELDS, view
    seen = view(state, now)
    out = [seen[f] for f in FIELDS]
    if not loaded and MICROPYTHON:
        name = "cran.core.view"   # (a module of its own on a badge: build.flattened)
        sys.modules.pop(name, None)
        package, _, leaf = name.rpartition(".")
        core = sys.modules.get(package)
        if core is not None and leaf in dir(core):
            delattr(core, leaf)
    return out


def cue_list(cues):
    return [[kind, value, private] for _, kind, value, private in cues]


# Scenario time is counted on the virtual clock's elapsed ms, which never wraps: two
# steps further apart than ticks can tell (2**29 ms, about 149 hours) are waited for in
# strides, each short enough for every tick difference in between to read right.
_STRIDE_MS = 1 << 27


def scenario_ms(now):
    """A tick of the run, near the clock's now -> ms since the scenario's 0:00."""
    return vclock.elapsed_ms() - BOOT_MS + time.ticks_diff(now, time.ticks_ms())


async def _until(t):
    import asyncio
    while True:
        left = t - scenario_ms(time.ticks_ms())
        if left <= 0:
            return
        await asyncio.sleep_ms(min(left, _STRIDE_MS))


async def _segment(run, steps):
    import asyncio
    asyncio.get_event_loop().set_exception_handler(run.on_task_error)
    app = run.app
    app.start_watchdog()
    show = asyncio.create_task(app.show_loop())
    for step in steps:
        await _until(step[1])
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


async def _played(run, steps):
    """The steps, played by a task of the runner in the badge's own loop (CHIP): it waits
    for each one's time as the app's tasks do, then ends the loop (_Stop)."""
    try:
        await run.wait_for_app()
        for step in steps:
            await _until(step[1])
            await run.play(step[0], step[1], step[2], step[3] if len(step) > 3 else None)
        run.check()
    except Exception as e:   # said once the badge's loop has ended
        run.error = e
    run.ended = True
    raise _Stop()


_mounted = [False]   # a job's flash at "/" (CHIP)


class _Os:   # the port can't make a module object: an object with its names
    pass


def _with_rename():
    """`import os` gives the port's os with a rename that works on the badge's flash:
    MicroPython's VfsPosix with a root (_mount) builds both paths of a rename in one
    buffer, so a rename of two absolute paths ("/state.tmp" to "/state": every save of
    cran.storage) finds no file. Renamed here by their paths from "/", the current
    directory, as LittleFS renames them on a badge. Made in the runner's share."""
    import os
    shim = _Os()
    for name in dir(os):
        if not name.startswith("__"):
            setattr(shim, name, getattr(os, name))
    rename = os.rename

    def from_root(old, new):
        if _mounted[0]:
            old, new = old.lstrip("/"), new.lstrip("/")
        rename(old, new)
    shim.rename = from_root
    sys.modules["os"] = shim


if CHIP:
    _with_rename()


def _mount(root):
    """A job's flash folder mounted at "/", as a badge's flash is, its firmware run from
    there as a chip runs it (sys.path an ESP32's: its files, then its ROMFS when it has
    one). -> what _unmount needs to give the host's files back."""
    import os

    import vfs
    here, path = os.getcwd(), list(sys.path)
    vfs.umount("/")
    vfs.mount(vfs.VfsPosix(root if root.startswith("/") else here + "/" + root), "/")
    os.chdir("/")
    _mounted[0] = True
    sys.path[:] = ["", "/rom", "/rom/lib", ".frozen", "/lib"] if ROMFS else [
        "", ".frozen", "/lib"]
    return here, path


def _unmount(saved):
    import os

    import vfs
    _mounted[0] = False
    vfs.umount("/")
    vfs.mount(vfs.VfsPosix(), "/")
    os.chdir(saved[0])
    sys.path[:] = saved[1]


_main_ran = [False]   # a main.py ran in this interpreter (run_chip)


def _fresh_firmware():
    """After a main.py, the firmware's modules gone, as a chip's next boot finds them:
    main.py loads them anew (the classes its start made once lost their constructors
    to the run before: cran.start.phases). Before the first, what a runner loaded stays
    (bench/badge_probe.py hooks the app's class so)."""
    if _main_ran[0]:
        for name in [n for n, m in sys.modules.items() if _firmware_module(n, m)]:
            del sys.modules[name]
    _main_ran[0] = True


def _firmware_module(name, module):
    # cran's, from source ("cran.app"), or from a badge's flash or ROMFS, where each is a
    # module at its root ("E.mpy", "/rom/E.mpy": build.flattened)
    where = getattr(module, "__file__", "/")
    return name == "cran" or name.startswith("cran.") or (
        where.endswith(".mpy") and where.rpartition("/")[0] in ("", "/rom"))


def run_chip(run, job, played=_played):
    """The job's badge as a chip runs it: its flash at "/", its main.py run once a
    segment (reboot_every) while played(run, steps), a task of the runner, plays them."""
    import asyncio
    _runs[0] = run
    saved = _mount(run.root)
    try:
        # What the chip's own heap holds first (its boot, its frozen modules: the job's
        # "chip"), at the bottom of the badge's as there.
        run.chip = [bytearray(max(0, size - 16)) for size in job.get("chip", ())]
        _ring[0], _ring[1] = job.get("ring", 0), None
        for i, steps in enumerate(run.segments(job["steps"])):
            if i:
                run.restart()
            run.ended, run.error = False, None
            asyncio.get_event_loop().set_exception_handler(run.on_task_error)
            asyncio.create_task(played(run, steps))
            del _said[:]
            _listening[0] = True   # what it says if it can't start
            _fresh_firmware()
            try:
                execfile("main.py", {"__name__": "__main__"})  # noqa: F821 (MicroPython's)
            except _Stop:
                pass
            except machine.VirtualReset as e:
                # Starved by a show loop that faulted or died: say why, when known.
                run.check()
                raise RuntimeError("the badge was reset: %s" % e) from None
            finally:
                _listening[0] = False
                asyncio.new_event_loop()   # drops the tasks, and the app they hold
            if not run.ended:
                raise NotStarted(_printed())
            if run.error is not None:
                raise run.error
    finally:
        _unmount(saved)
        run.chip = None
        _ring[0], _ring[1] = 0, None
        _runs[0] = None


def boot(n, job, boards_dir, flash_dir, start, reboot_every=0, base=0):
    """A fresh badge of job["board"] with job["character"], its flash made (its config,
    its board file). -> Run (CHIP: its main.py not run yet: run_chip)"""
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
    if CHIP:
        run_chip(run, job)
        machine.reboot()
        return
    for i, steps in enumerate(run.segments(job["steps"])):
        if i:
            run.reboot()
        if CIRCUITPYTHON:
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


class NotStarted(Exception):
    """main.py ended (at the REPL, its game key gone) without the app running: the start
    failed, and its can't-start path too, or said why (args[0]: what the badge printed)."""


def report(n, job, e):
    if isinstance(e, NotStarted):
        _out({"job": n, "not_started": e.args[0]})
        return
    if MICROPYTHON and isinstance(e, MemoryError):
        gc.collect()
        try:
            _out({"job": n, "memory": str(e), "where": where_it_died(e)})
        except MemoryError:   # not even room to say where
            sys.stdout.write('{"job": %d, "memory": "", "where": null}\n' % n)
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
            _out({"heap": {"base": base, "total": base + gc.mem_free()}})
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
