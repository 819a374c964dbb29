# The stock MicroPython ESP32 image on an emulated ESP32 (QEMU with Espressif's ESP32
# machine and emulated Wi-Fi, ../shared/tools/qemu-esp32: its README says what it can and
# cannot do): a badge's files on the chip's flash as cran flash writes them, the badge
# started by its own main.py, its console on the emulated UART 0. What the real
# interpreter says of the badge's heap comes from host_tools/virtual/scripts/chip_harness.py (the
# chip's boot.py here), on UART 1.
#
# The emulator's clock is its instructions' count (-icount): a step of the chip's CPU is
# 8 ns whatever else the host is doing, and the chip idle lets time jump to its next
# timer, so a quiet minute passes in a moment and a busy laptop never starves the
# watchdog.
import base64
import glob
import json
import os
import queue
import re
import select
import subprocess
import tempfile
import threading
import time

from host_tools import FIRMWARE_DIR, CommandError
from host_tools.boards import read_board
from host_tools.device import flash
from host_tools.game import gamekey
from host_tools.virtual import SCRIPTS_DIR

FLASH_SIZE = 0x400000        # the ESP32_GENERIC image's 4 MB
IMAGE_OFFSET = 0x1000        # where its merged image is written (esptool write_flash)
VFS_OFFSET = 0x200000        # its partition table's "vfs" partition: LittleFS, 2 MB
VFS_BLOCKS = 512             # of 4096 bytes
ICOUNT = ("-icount", "shift=3,sleep=off")
# The host's own deadlines are safety nets only (the chip's clock is the emulator's, and a
# busy host just runs it slower): a step taking this long means the chip is stuck.
HOST_TIMEOUT_S = 900
HARNESS = os.path.join(SCRIPTS_DIR, "chip_harness.py")
HOW_TO_GET_QEMU = (
    "no ESP32 emulator: ../shared/tools/qemu-esp32 beside the repository (or "
    "$CRAN_QEMU_ESP32) holds QEMU and the stock MicroPython image it boots")
# What the chip prints when it starts again: a watchdog, a panic, a reset.
_RESTARTED = re.compile(rb"rst:0x[0-9a-f]+ \(([A-Z_]+)\)")
_PTY = re.compile(rb"(/dev/pts/\d+)")


def find_qemu():
    """The folder of the emulator and its image ($CRAN_QEMU_ESP32, else
    ../shared/tools/qemu-esp32 beside the repository), or None."""
    explicit = os.environ.get("CRAN_QEMU_ESP32")
    if explicit:
        return explicit
    beside = os.path.join(os.path.dirname(os.path.dirname(FIRMWARE_DIR)), "shared",
                          "tools", "qemu-esp32")
    return beside if os.path.exists(os.path.join(beside, "boot")) else None


def stock_image(qemu_dir):
    """The stock MicroPython image the emulator boots (its file name says its version)."""
    found = sorted(glob.glob(os.path.join(qemu_dir, "images", "ESP32_GENERIC-*.bin")))
    if not found:
        raise CommandError("%s: no images/ESP32_GENERIC-*.bin" % qemu_dir)
    return found[-1]


# The stock image's MicroPython, as a badge reports it to cran flash (sys.implementation):
# v1.26.1 loads .mpy v6.3, its sys.implementation._mpy 11014 (xtensawin).
IMPL = {"name": "micropython", "version": [1, 26, 1], "mpy": 11014,
        "machine": "Generic ESP32 module with ESP32"}


def lfs_image(files, blocks=VFS_BLOCKS):
    """{badge path: bytes} -> the bytes of a LittleFS partition holding them, made by
    MicroPython's own LittleFS (host_tools/virtual/scripts/lfs_image.py); main.py written last, as
    cran flash writes it."""
    from host_tools.virtual.runtimes import HOW_TO_GET_MICROPYTHON, find_micropython
    exe = find_micropython()
    if exe is None:
        raise CommandError(HOW_TO_GET_MICROPYTHON)
    order = sorted(files, key=lambda p: (p == "/main.py", p))
    lines = "".join(json.dumps([p, base64.b64encode(files[p]).decode()]) + "\n"
                    for p in order)
    with tempfile.TemporaryDirectory(prefix="cran-lfs-") as tmp:
        out = os.path.join(tmp, "vfs.img")
        proc = subprocess.run([exe, "-X", "heapsize=16M",
                               os.path.join(SCRIPTS_DIR, "lfs_image.py"),
                               out, str(blocks)], input=lines.encode(),
                              capture_output=True, timeout=120)
        if proc.returncode != 0:
            raise CommandError("making the LittleFS image failed: %s"
                               % (proc.stdout + proc.stderr).decode(errors="replace")[-500:])
        with open(out, "rb") as f:
            return f.read()


def flash_image(qemu_dir, files):
    """The chip's whole flash: the stock image, and files on its vfs partition."""
    with open(stock_image(qemu_dir), "rb") as f:
        stock = f.read()
    flash = bytearray(b"\xff" * FLASH_SIZE)
    flash[IMAGE_OFFSET:IMAGE_OFFSET + len(stock)] = stock
    vfs = lfs_image(files)
    flash[VFS_OFFSET:VFS_OFFSET + len(vfs)] = vfs
    return bytes(flash)


def harness_text(budget=0, read_size=1024, own=0, tail=""):
    """The chip's boot.py under measure: budget, the bytes of heap it leaves the badge
    (0: all the chip gives); read_size, its mount's (32: the stock mount's); own, its own
    code's bytes (harness_own), taken out of the badge's figures; tail, lines run after
    it. Its names are the image's (image_names_only)."""
    from host_tools.build import badge_modules, flattened
    with open(HARNESS) as f:
        text = flattened(f.read(), badge_modules())   # (the badge's modules, as it has them)
    return image_names_only(
        text.replace("_HBUDGET = 0 ", "_HBUDGET = %d " % budget, 1)
        .replace("_HREAD_SIZE = 1024 ", "_HREAD_SIZE = %d " % read_size, 1)
        .replace("_HOWN = 0 ", "_HOWN = %d " % own, 1) + tail)


def image_names_only(text):
    """text (the harness's Python) with each name the stock image does not hold given
    one it does. A chip's compiler makes every name a source says, in RAM where the
    image has it not: the harness's ~30 of its own took the first pools' room, and so
    could move where the badge's names take their next pool of 4.4 KB. The names given
    are none that main.py
    (which runs in the harness's globals) or the firmware says, nor a builtin's."""
    import builtins
    import io
    import keyword
    import tokenize

    from host_tools.build import badge_renames, renamed
    from host_tools.imagenames import STATIC_NAMES
    static = set(STATIC_NAMES)
    names = [t for t in tokenize.generate_tokens(io.StringIO(text).readline)
             if t.type == tokenize.NAME]
    own = sorted(set(t.string for t in names if t.string not in static
                     and not keyword.iskeyword(t.string)))
    taken = set(t.string for t in names) | set(dir(builtins))
    for path in ("main.py", "firmware_check.py"):
        with open(os.path.join(FIRMWARE_DIR, path), encoding="utf-8") as f:
            taken |= set(t.string for t in tokenize.generate_tokens(f.readline)
                         if t.type == tokenize.NAME)
    renames = badge_renames()
    taken |= set(renames) | set(renames.values())
    free = sorted(n for n in static if n.isidentifier() and n not in taken
                  and not n.startswith("__") and not keyword.iskeyword(n))
    return renamed(text, dict(zip(own, free)))


# A boot.py that says what the stock image holds at its top, `machine` imported as the
# harness imports it before its base, and the names' pools and characters in RAM.
_STOCK_TOP = """import gc
import machine
import micropython
gc.collect()
print("@own %d B at the base" % gc.mem_alloc())
micropython.qstr_info()
"""
_HARNESS_TOP = """
import micropython
print("@own %d B at the base" % _hbase)
micropython.qstr_info()
"""
_QSTR_INFO = re.compile(r"qstr pool: n_pool=\d+, n_qstr=(\d+), n_str_data_bytes=(\d+), "
                        r"n_total_bytes=(\d+)")


def harness_own(qemu_dir, workdir):
    """The bytes the harness (boot.py) keeps of its own, which a chip without it has free:
    its code (and its few names' characters), compiled before its first line measures
    the heap. Two boots of the stock image: a boot.py that reads the heap at its top (what
    _boot.py leaves, `machine` imported), and the harness that reads it at its base;
    the names' pools are left out of the difference, as the badge's names fill those
    pools anyway (the bench charges them: esp32image.names_pools). The first boot.py's
    own few lines are counted as the stock image's: this errs a few dozen bytes on the
    badge's side. -> bytes"""
    said = []
    for text in (_STOCK_TOP, harness_text(0, MEASURE_READ_SIZE, tail=_HARNESS_TOP)):
        with Chip(qemu_dir, flash_image(qemu_dir, {"/boot.py": text.encode()}), workdir,
                  NO_WATCHDOG) as chip:
            heap = names = None
            deadline = time.monotonic() + HOST_TIMEOUT_S
            while names is None:
                chip._alive()
                if time.monotonic() > deadline:
                    raise ChipDied("boot.py said nothing in %d s: %s"
                                   % (HOST_TIMEOUT_S, chip.console_tail()))
                try:
                    line = chip.lines.get(timeout=1)
                except queue.Empty:
                    continue
                if line.startswith("@own "):
                    heap = int(line.split()[1])
                got = _QSTR_INFO.search(line)
                if got and heap is not None:
                    chars, total = int(got.group(2)), int(got.group(3))
                    names = (total - chars, chars)   # (pools, characters)
            said.append((heap, names[0]))
    (stock, stock_pools), (harness, harness_pools) = said
    return harness - stock - (harness_pools - stock_pools)


class ChipDied(Exception):
    """The emulated chip restarted (watchdog, panic) or stopped answering."""


class Sample:
    """A line of the harness: the live heap (after a collection) and the IDF's."""

    def __init__(self, words):
        (self.ticks, self.alloc, self.free, self.idf_free, self.idf_least,
         self.idf_largest, self.phase, *self.ops) = (int(w) for w in words)
        self.running = self.phase == 2


class Chip:
    """One emulated chip booting a flash image: its console (UART 0) and the harness's
    lines (UART 1). Use as a context manager."""

    def __init__(self, qemu_dir, flash, workdir, extra_args=()):
        self.workdir = workdir
        self.flash_path = os.path.join(workdir, "flash.img")
        with open(self.flash_path, "wb") as f:
            f.write(flash)
        self.uart1_path = os.path.join(workdir, "uart1.log")
        open(self.uart1_path, "w").close()
        self.log_path = os.path.join(workdir, "uart0.log")
        env = dict(os.environ, CRAN_QEMU_LOG=self.log_path)
        self.proc = subprocess.Popen(
            [os.path.join(qemu_dir, "boot"), self.flash_path, *ICOUNT,
             "-chardev", "file,id=uart1,path=" + self.uart1_path, "-serial", "chardev:uart1",
             *extra_args],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env, start_new_session=True)
        said = b""
        while not _PTY.search(said):
            byte = self.proc.stdout.read(1)
            if not byte:
                raise CommandError("the emulator did not start: %s"
                                   % said.decode(errors="replace"))
            said += byte
        self.fd = os.open(_PTY.search(said).group(1).decode(), os.O_RDWR | os.O_NOCTTY)
        import tty
        tty.setraw(self.fd)
        self.lines = queue.Queue()
        self.restarts = []
        self.harness = None
        self.samples = []
        self._uart1 = open(self.uart1_path, "rb")
        self._partial = b""
        self._closed = False
        threading.Thread(target=self._read_uart0, daemon=True).start()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self):
        if self._closed:
            return
        self._closed = True
        try:
            os.killpg(self.proc.pid, 15)
        except ProcessLookupError:
            pass
        self.proc.wait()
        self.proc.stdout.close()
        self._uart1.close()
        os.close(self.fd)

    def _read_uart0(self):
        buf = b""
        while not self._closed:
            try:
                ready, _, _ = select.select([self.fd], [], [], 0.5)
                data = os.read(self.fd, 4096) if ready else b""
            except OSError:
                return
            buf += data
            while b"\n" in buf:
                line, buf = buf.split(b"\n", 1)
                restarted = _RESTARTED.search(line)
                if restarted and self.harness is not None:
                    self.restarts.append(restarted.group(1).decode())
                self.lines.put(line.rstrip(b"\r").decode(errors="replace"))

    def read_samples(self):
        """The harness's new lines -> the samples among them (also kept in .samples)."""
        data = self._partial + self._uart1.read()
        *whole, self._partial = data.split(b"\n")
        new = []
        for line in whole:
            words = line.decode(errors="replace").split()
            if words[:1] == ["@harness"]:
                self.harness = [int(w) for w in words[1:]]
            elif words[:1] == ["@"] and len(words) == 13:
                new.append(Sample(words[1:]))
        self.samples += new
        return new

    def _alive(self):
        if self.restarts:
            raise ChipDied("the chip restarted (%s)" % ", ".join(self.restarts))
        if self.proc.poll() is not None:
            raise ChipDied("the emulator ended (exit %d)" % self.proc.returncode)

    def wait_harness(self, timeout=HOST_TIMEOUT_S):
        """Until the harness (boot.py) has run: the chip is up, main.py begins. Nothing
        may be typed before: bytes that reach the emulated UART while the chip boots
        crash the emulator (its README)."""
        deadline = time.monotonic() + timeout
        while self.harness is None:
            self._alive()
            if time.monotonic() > deadline:
                raise ChipDied("no harness line in %d s: %s" % (timeout, self.console_tail()))
            self.read_samples()
            time.sleep(0.2)
        return self.harness

    def wait_quiet(self, quiet_samples=6, timeout=HOST_TIMEOUT_S):
        """Until the badge's app runs and its heap has stayed the same (to 256 bytes: a
        sample's own line is made between two) for quiet_samples samples in a row: it
        has started, or is done with what it was doing. -> the last sample."""
        deadline = time.monotonic() + timeout
        seen = len(self.samples)
        while True:
            self._alive()
            self.read_samples()
            recent = self.samples[max(seen, len(self.samples) - quiet_samples):]
            if (len(recent) == quiet_samples and all(s.running for s in recent)
                    and max(s.alloc for s in recent) - min(s.alloc for s in recent) <= 256):
                return recent[-1]
            if time.monotonic() > deadline:
                raise ChipDied("the badge never settled in %d s: %s"
                               % (timeout, self.console_tail()))
            time.sleep(0.2)

    def wait_ticks(self, ms, timeout=HOST_TIMEOUT_S):
        """Until the chip's own clock has moved on by ms (idle, it runs far faster than
        the host's). -> the last sample."""
        self.read_samples()
        while not self.samples:
            self.read_samples()
            time.sleep(0.2)
        start = self.samples[-1].ticks
        deadline = time.monotonic() + timeout
        while (self.samples[-1].ticks - start) % (1 << 30) < ms:
            self._alive()
            if time.monotonic() > deadline:
                raise ChipDied("the chip's clock stalled: %s" % self.console_tail())
            time.sleep(0.1)
            self.read_samples()
        return self.samples[-1]

    def ask(self, line, timeout=HOST_TIMEOUT_S):
        """One console line -> its answer lines (what came between its echo and the
        mark asked after it: `echo` answers its words)."""
        mark = "cran-%d" % (time.monotonic_ns() % 10 ** 9)
        while not self.lines.empty():
            self.lines.get_nowait()
        os.write(self.fd, (line + "\r\n").encode())
        os.write(self.fd, ("echo %s\r\n" % mark).encode())
        got = []
        deadline = time.monotonic() + timeout
        while True:
            self._alive()
            try:
                text = self.lines.get(timeout=0.5)
            except queue.Empty:
                if time.monotonic() > deadline:
                    raise ChipDied("no answer to %r in %d s: %s"
                                   % (line, timeout, " | ".join(got)[-500:])) from None
                continue
            if text == mark:
                break
            got.append(text)
        return [t for t in got if t and t not in (line, "echo " + mark)]

    def unlock(self, key):
        """The console opened for an organiser, as `cran console` does."""
        answer = self.ask("challenge")
        words = answer[-1].split() if answer else []
        if words[:1] != ["challenge"] or len(words) != 3:
            raise ChipDied("challenge answered %r" % (answer,))
        said = self.ask("unlock " + gamekey.unlock_tag(key, bytes.fromhex(words[1])))
        if not said or not said[-1].startswith("ok"):
            raise ChipDied("unlock answered %r" % (said,))

    def names_said(self, timeout=30):
        """The names in RAM the harness said once the app had run 5 s (micropython.
        qstr_info's n_qstr), from the console's lines, before anything is typed; None if
        not said."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                line = self.lines.get(timeout=0.5)
            except queue.Empty:
                continue
            got = _QSTR_INFO.search(line)
            if got:
                return int(got.group(1))
        return None

    def console_tail(self, lines=8):
        try:
            with open(self.log_path, "rb") as f:
                text = f.read()[-3000:].decode(errors="replace")
        except OSError:
            return ""
        return " | ".join(t.strip() for t in text.splitlines()[-lines:] if t.strip())


# The fight played on an emulated chip, as bench/badge_day.py plays it an hour of the
# day (hits, a keyword, two heals), every action a console line an organiser types,
# with what each leaves (etat, effects).
FIGHT = (("coup", "blesse", ""), ("coup", "agonisant", ""),
         ("effet peur", "agonisant", "peur"), ("soin", "blesse", "peur"),
         ("soin", "pleine-forme", "peur"))
QUIET_MS = 65000   # cran.app.CONSOLE_QUIET_MS, and a few seconds for the show step


def chip_config(board_id, radio):
    """The config of the badge under measure: the scenarios' default character, awake
    (the emulator has no light sleep: its RTC is not emulated), with the radio or not."""
    from host_tools.virtual.runtimes import RADIO_GAME, badge_job
    config = {"board": board_id, "character": badge_job(board_id, "")["character"],
              "light_sleep": False}
    if radio:
        config["radio"] = RADIO_GAME
    return config


# What the badge journals of a part whose bus answers nothing: on the emulator, the I2C
# devices it does not model.
ABSENT = "[Errno 19] ENODEV"

# The emulator's watchdogs off (the timer groups'): a start on the stock mount takes
# minutes there (each flash operation ~8 ms), not on a chip.
NO_WATCHDOG = ("-global", "driver=timer.esp32.timg,property=wdt_disable,value=true")


# The mount the badge is measured on: its read size sets the cache every open file holds
# (4 x 256 = 1 KB, against the stock mount's 128 B), which the harness gives the badge
# back for one file open; a second file open at a sample is 0.9 KB over a chip's. The
# stock mount's 32 is exact but makes a start ~9x as long here (each flash operation
# costs the emulator ~7 ms); 1024 made it shorter still but charged a second open file
# 3.9 KB, a fight's peak up to ~5 KB over what the stock mount measures.
MEASURE_READ_SIZE = 256


def _image(qemu_dir, board_id, radio, builds, harness):
    key = os.urandom(32)
    files = flash.player_files(builds, IMPL, read_board(board_id), key)
    files["/config.json"] = json.dumps(chip_config(board_id, radio)).encode()
    files["/boot.py"] = harness.encode()
    return flash_image(qemu_dir, files), key


def phases(samples):
    """The start's phases, from the harness's samples -> [(phase, chip ms, [reads, bytes
    read, writes, bytes written, erases])]: 0, main.py's check of the firmware; 1, the
    start (cran.run loaded); 2 is the app running (not a phase of the start)."""
    out = []
    for before, after in zip(samples, samples[1:]):
        if not out or out[-1][0] != before.phase:
            out.append([before.phase, 0, [0] * 5])
        spent = out[-1]
        spent[1] += (after.ticks - before.ticks) % (1 << 30)
        spent[2] = [a + (y - x) for a, x, y in zip(spent[2], before.ops, after.ops)]
    return [tuple(p) for p in out if p[0] < 2]


def count_start(qemu_dir, board_id, radio, workdir, builds=None):
    """The start on the stock mount (its 128-byte read cache, as a chip has it), the
    emulator's watchdog off -> (its flash operations by phase (phases()), as a chip
    makes them; what a flash read costs the emulator, us)."""
    builds = builds or flash.Builds(workdir)
    image, _ = _image(qemu_dir, board_id, radio, builds, harness_text(0, read_size=32))
    with Chip(qemu_dir, image, workdir, NO_WATCHDOG) as chip:
        op_us = chip.wait_harness()[4]
        chip.wait_quiet(timeout=4 * HOST_TIMEOUT_S)
        return phases(chip.samples), op_us


def play(qemu_dir, board_id, radio, budget, workdir, builds=None, on_step=None, own=0):
    """A badge of board_id flashed onto the emulated chip, started by its main.py, the
    fight played at its console, then a quiet minute. budget: the bytes of heap the
    harness leaves it (0: all the chip gives); own: the harness's own bytes
    (harness_own), given back to the badge and taken out of its figures. -> figures
    (bytes, ms): "after_boot", "peak" (the most seen, a sample every 500 ms of the chip's
    time), "after_quiet", "names" (the names in RAM once the app has run 5 s: the
    badge's, and the harness's "cran.app" and "cran.run", which the badge makes too),
    "idf_least" (the IDF's free heap at its lowest since boot), "start_ms" (boot.py to
    the app running), "capacity" (the two-area GC heap), "left" (what the badge had of
    it), "third_area" (the GC heap grew past its two areas), "lived" (every answer as
    the rules say, no restart, no third area), "error" (why not, or None)."""
    builds = builds or flash.Builds(workdir)
    image, key = _image(qemu_dir, board_id, radio, builds,
                        harness_text(budget, MEASURE_READ_SIZE, own))
    out = {"board": board_id, "radio": radio, "budget": budget, "error": None}
    say = on_step or (lambda text: None)
    # The watchdog off: the emulated flash makes the start several times a chip's
    # (count_start times it as a chip's, against main.py's watchdog).
    with Chip(qemu_dir, image, workdir, NO_WATCHDOG) as chip:
        def asked(line):
            answer = chip.ask(line)
            if answer and answer[-1].startswith("error: locked"):
                # An unlock lasts a minute of the chip's time, which the emulated flash
                # makes a few lines: opened again, as cran console does, and the line
                # again.
                chip.unlock(key)
                answer = chip.ask(line)
            return answer

        try:
            base, share, capacity, left, op_us = chip.wait_harness()
            out.update(base=base, share=share, capacity=capacity, left=left, op_us=op_us)
            booted = chip.wait_quiet()
            started = [s for s in chip.samples if s.running][0]
            out["start_ms"] = (started.ticks - chip.samples[0].ticks) % (1 << 30)
            out["phases"] = phases(chip.samples)
            out["after_boot"] = booted.alloc - share
            out["names"] = chip.names_said()
            say("started in %.1f s of the chip's time; %d bytes after boot; %s names in RAM"
                % (out["start_ms"] / 1000, out["after_boot"], out["names"]))
            chip.unlock(key)
            for line, etat, _effects in FIGHT:
                answer = asked(line)
                said = answer[-1] if answer else ""
                if "etat=%s " % etat not in said:
                    raise ChipDied("%r answered %r, not etat=%s" % (line, said, etat))
                say("%s: %s" % (line, said))
            status = json.loads(asked("status")[-1])
            effects = FIGHT[-1][2]
            if sorted(status["effets"]) != ([effects] if effects else []):
                raise ChipDied("status says effects %r" % (status["effets"],))
            chip.ask("lock")
            quiet = chip.wait_ticks(QUIET_MS)
            out["after_quiet"] = quiet.alloc - share
            errors = [e["error"] for e in (json.loads(x) for x in chip.ask("journal")
                                           if x.startswith("{")) if "error" in e]
            # A part on a bus the emulator does not model (the StickC's screen and
            # power chip on I2C): the badge says so and plays on, as it would on a chip
            # whose part is gone; not a death, but said.
            out["absent"] = [e.split(":")[0] for e in errors if ABSENT in e]
            errors = [e for e in errors if ABSENT not in e]
            if errors:
                raise ChipDied("the badge journaled %s" % errors[0])
        except ChipDied as e:
            out["error"] = str(e)
        chip.read_samples()
        samples = chip.samples
        out["peak"] = max(s.alloc for s in samples) - share if samples else None
        out["idf_least"] = min(s.idf_least for s in samples) if samples else None
        # The GC heap's size: what it holds, and what is free in it (gc.mem_free() less
        # what it could still take from the IDF).
        biggest = max((s.alloc + s.free - s.idf_largest for s in samples), default=0)
        out["third_area"] = biggest > capacity + 1024
        if out["third_area"] and out["error"] is None:
            out["error"] = "the GC heap grew a third area (%d bytes): past the badge's %d" % (
                biggest, left)
    out["lived"] = out["error"] is None
    return out
