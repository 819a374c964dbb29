# The chip of `cran vchip` (host_tools/commands/vchip.py execs it), inside the MicroPython unix
# port (the 32-bit one where there is one: an ESP32's object sizes and ticks):
#   micropython [-i] vchip_boot.py BOARD_FILE VHW_DIR HEAP LIB file PATH [ARGS...]
#   micropython vchip_boot.py BOARD_FILE VHW_DIR HEAP LIB code    (the code in $CRAN_VCHIP_CODE)
#   micropython vchip_boot.py BOARD_FILE VHW_DIR HEAP LIB stdin
#   micropython -i vchip_boot.py BOARD_FILE VHW_DIR HEAP LIB repl  (then the port's REPL)
# Any program on the virtual ESP32 hardware: machine, esp32, network, espnow, aioespnow
# and neopixel are the virtual parts, wired as BOARD_FILE says; time and asyncio are the
# port's own (real time), as in `cran vbadge`. The program runs where an ESP32 runs its
# code: as __main__ (unittest.main() finds its tests there), after the port's _boot.py,
# whose names (gc, vfs) it finds there. The chip says it is one: sys.platform "esp32",
# sys.implementation and os.uname() as an ESP32's MicroPython gives them, its built-in
# modules found again after a sys.modules.clear(), micropython.alloc_emergency_exception_buf
# there. HEAP: the bytes of heap the program is left (an ESP32's: the virtual parts' own
# share is set aside first). LIB: the folder on sys.path where a chip has /lib ("/lib").
# The host's files stay in reach (a program and its modules are the designer's own). A
# reset (machine.reset(), the watchdog, deepsleep, a panic) ends the process: exit 80 +
# the reset cause, as vbadge's chip. The code of -c comes in the environment, not as an
# argument: the unix port makes each argument a qstr, at most 255 bytes, and dies on a
# longer one before any code runs.
import gc
import os
import sys
import time  # the port's real clock, cached before VHW_DIR (whose time.py is virtual)

import vfs
from vbadge_boot import load_virtual_parts, with_uname

ESPRESSIF_OUI = b"\x24\x0a\xc4"
CODE_ENV = "CRAN_VCHIP_CODE"
# What an ESP32's heap holds once it has booted, before any program (gc.mem_alloc()
# measured on the stock v1.26.1 image).
CHIP_BOOT_ALLOC = 1168
# The chip's built-in modules: after a sys.modules.clear(), _built_in_folder() finds these.
BUILT_IN = ("machine", "esp32", "network", "espnow", "neopixel", "aioespnow", "os",
            "select", "time")


def _uname_repr(self):
    return ("(sysname=%r, nodename=%r, release=%r, version=%r, machine=%r)"
            % (self.sysname, self.nodename, self.release, self.version, self.machine))


def wire(board_file):
    import json

    import esp32
    import machine
    import network
    import vclock
    import world
    with open(board_file) as f:
        board = json.loads(f.read())
    with_uname(board["chip"])
    type(sys.modules["os"].uname()).__repr__ = _uname_repr   # as an ESP32 prints it
    vclock.use_real_clock(time.ticks_ms, time.sleep_ms,
                          (time.ticks_us, time.ticks_diff, time.sleep_us))
    machine.reset_all(machine.PWRON_RESET)
    world.wire(board)
    machine.history = -1   # the parts keep no record: the heap is the program's alone
    machine.on_reset = _exit_for_reset
    # A chip of its own each run: its base MAC (machine.unique_id(), the station's MAC)
    # an Espressif one, two chips on one field never alike.
    machine._unique_id = ESPRESSIF_OUI + os.urandom(3)
    _keep_flash(esp32)
    # The rest of machine, esp32 and network loaded now, while it can be found.
    _ = machine.Timer, esp32.Partition, network._more()
    return board


def _keep_flash(esp32):
    # The chip's 4 MB of flash (esp32.Partition) in a host file, unlinked at once: gone
    # with the process, as a new chip each run; not in the program's heap.
    import vchip_esp32
    folder = os.getenv("TMPDIR") or "/tmp"
    path = "%s/cran-vchip-%s.flash" % (folder, "".join("%02x" % b for b in os.urandom(6)))
    try:
        f = open(path, "w+b")
        os.remove(path)
    except OSError:
        return   # nowhere to write: the flash in memory
    vchip_esp32.flash_keep_in(f)


class _Attrs:
    """A module as a chip's has it (the port can make no module of its own): the names
    `keep` of the port's module (all when None), those `live` read and set on the port's
    module itself (sys.path = [...] is the path)."""

    def __init__(self, module, keep=None, live=()):
        object.__setattr__(self, "__real__", module)
        object.__setattr__(self, "__live__", live)
        object.__setattr__(self, "__name__", module.__name__)
        for name in dir(module):
            if (not name.startswith("__") and name not in live
                    and (keep is None or name in keep)):
                object.__setattr__(self, name, getattr(module, name))

    def __getattr__(self, name):
        if name in self.__live__:
            return getattr(self.__real__, name)
        raise AttributeError("module '%s' has no attribute '%s'"
                             % (self.__real__.__name__, name))

    def __setattr__(self, name, value):
        if name in self.__live__:
            setattr(self.__real__, name, value)
        else:
            object.__setattr__(self, name, value)

    def __repr__(self):
        return "<module '%s'>" % self.__real__.__name__


class _Poll:
    """select.poll() as the ESP32's: streams only (a file descriptor, an int, is the unix
    port's: OSError there); and while a Timer or UART interrupt is armed, its wait is
    the chip's, whose interrupts run their scheduled handlers on time meanwhile (the unix
    port's poll, in C, would run them only once it returns): the wait is cut in 1 ms
    slices, MicroPython running what was scheduled between them."""

    def __init__(self, real, ticking, clock):
        self._poll = real.poll()
        self._ticking = ticking   # vchip_machine._ticking: [an interrupt source armed]
        self._clock = clock       # (ticks_ms, ticks_diff)

    def register(self, obj, *mask):
        if isinstance(obj, int):
            raise OSError("stream operation not supported")
        self._poll.register(obj, *mask)

    def modify(self, obj, mask):
        self._poll.modify(obj, mask)

    def unregister(self, obj):
        self._poll.unregister(obj)

    # (no *args: asyncio polls with the heap locked, and a tuple of them is an allocation)
    def poll(self, timeout=-1):
        if self._ticking[0] and timeout != 0:
            return self._sliced(timeout)
        return self._poll.poll(timeout)

    def ipoll(self, timeout=-1, flags=0):
        if self._ticking[0] and timeout != 0 and not flags:
            return self._sliced(timeout)
        return self._poll.ipoll(timeout, flags)

    def _sliced(self, timeout):
        ticks_ms, ticks_diff = self._clock
        start = ticks_ms()
        while True:
            left = 1 if timeout < 0 else timeout - ticks_diff(ticks_ms(), start)
            ready = self._poll.poll(max(0, min(1, left)))
            if ready or (timeout >= 0 and left <= 1) or not self._ticking[0]:
                return ready


def _select_module():
    import select as real

    import vchip_machine
    clock = (time.ticks_ms, time.ticks_diff)
    ticking = vchip_machine._ticking

    def poll(real):   # (this boot's globals are the program's once it runs)
        return make(real, ticking, clock)
    make = _Poll
    chip = _Attrs(real, ("POLLERR", "POLLHUP", "POLLIN", "POLLOUT"))
    chip.poll = lambda: poll(real)

    def select(rlist, wlist, xlist, timeout=None):
        """select.select(), which the ESP32's has (over poll, as the port's own)."""
        poller = poll(real)
        masks = {}
        for objs, mask in ((rlist, real.POLLIN), (wlist, real.POLLOUT), (xlist, 0)):
            for obj in objs:
                masks[obj] = masks.get(obj, 0) | mask
        for obj, mask in masks.items():
            poller.register(obj, mask)
        ready = poller.poll(-1 if timeout is None else int(timeout * 1000))
        out = ([], [], [])
        for obj, events in ready:
            if events & real.POLLIN and obj in rlist:
                out[0].append(obj)
            if events & real.POLLOUT and obj in wlist:
                out[1].append(obj)
            if events & (real.POLLERR | real.POLLHUP) and obj in xlist:
                out[2].append(obj)
        return out
    chip.select = select
    return chip


class _Implementation:
    """sys.implementation as an ESP32's MicroPython says it: its machine and its build,
    this interpreter's version and .mpy format (a .mpy must suit the interpreter that runs
    it) and threads."""

    def __init__(self, chip):
        real = sys.implementation
        family = chip.split("-")[0].upper()
        self.name = real.name
        self.version = real.version
        self._machine = ("Generic ESP32 module with ESP32" if family == "ESP32"
                         else "%s module with %s" % (family, family))
        self._mpy = getattr(real, "_mpy", 0)
        self._build = "ESP32_GENERIC" if family == "ESP32" else "ESP32_GENERIC_" + family[5:]
        self._thread = getattr(real, "_thread", None)

    def __repr__(self):
        return ("(name=%r, version=%r, _machine=%r, _mpy=%d, _build=%r, _thread=%r)"
                % (self.name, self.version, self._machine, self._mpy, self._build,
                   self._thread))


# What an ESP32's modules have (MicroPython v1.26.1's ESP32_GENERIC, dir() of each), of
# what the unix port's have: the rest is the unix port's alone.
_CHIP_OS = ("VfsFat", "VfsLfs2", "chdir", "getcwd", "ilistdir", "listdir", "mkdir", "mount",
            "remove", "rename", "rmdir", "sep", "stat", "statvfs", "umount", "unlink",
            "urandom")
_CHIP_SYS = ("argv", "byteorder", "exit", "maxsize", "modules", "path", "print_exception",
             "ps1", "ps2", "stderr", "stdin", "stdout", "version", "version_info")
_CHIP_MICROPYTHON = ("RingIO", "const", "heap_lock", "heap_unlock", "kbd_intr", "mem_info",
                     "opt_level", "qstr_info", "schedule", "stack_use")
_CHIP_VFS = ("VfsFat", "VfsLfs2", "mount", "umount")
_CHIP_TIME = ("gmtime", "localtime", "mktime", "sleep", "sleep_ms", "sleep_us", "ticks_add",
              "ticks_cpu", "ticks_diff", "ticks_ms", "ticks_us", "time", "time_ns")


def _time_module():
    """time as an ESP32's: its ticks wrap at 2**30, as a 32-bit port's do (a 64-bit
    one's, at 2**62, made to)."""
    chip = _Attrs(time, _CHIP_TIME)
    if sys.maxsize < 1 << 32:
        return chip
    period = 1 << 30
    mask, half = period - 1, period >> 1
    ms, us, cpu = time.ticks_ms, time.ticks_us, time.ticks_cpu
    chip.ticks_ms = lambda: ms() & mask
    chip.ticks_us = lambda: us() & mask
    chip.ticks_cpu = lambda: cpu() & mask
    chip.ticks_add = lambda ticks, delta: (ticks + delta) & mask
    chip.ticks_diff = lambda end, start: ((end - start + half) & mask) - half
    return chip


def _be_a_chip(board):
    """sys, os, vfs, select and micropython as an ESP32's (the port's own underneath:
    the same sys.path, sys.modules, stdout, files)."""
    import select  # noqa: F401  (the port's, for _select_module)

    import micropython
    import vchip_esp32
    chip_sys = _Attrs(sys, _CHIP_SYS, ("path", "argv", "ps1", "ps2", "tracebacklimit"))
    chip_sys.platform = "esp32"
    chip_sys.implementation = _Implementation(board["chip"])
    chip_os = _Attrs(os, _CHIP_OS)
    chip_os.uname = sys.modules["os"].uname   # vbadge_boot's, an ESP32's
    chip_os.sync = lambda: None   # the flash's writes are through already
    chip_mp = _Attrs(micropython, _CHIP_MICROPYTHON)
    chip_mp.alloc_emergency_exception_buf = vchip_esp32.alloc_emergency_exception_buf
    chip_vfs = _Attrs(vfs, _CHIP_VFS)
    sys.modules.update({"os": chip_os, "micropython": chip_mp, "vfs": chip_vfs,
                        "select": _select_module(), "time": _time_module()})
    import builtins
    # A built-in name (MicroPython looks a global up there last): the program's
    # emptying sys.modules, or its globals, can't lose it.
    builtins._cran_vchip_parts = {name: sys.modules[name] for name in BUILT_IN}
    sys.modules["sys"] = chip_sys
    return chip_vfs


_BUILT_IN_STUB = """# One of the chip's built-in modules, found again after a program emptied
# sys.modules (`cran vchip`, host_tools/virtual/scripts/vchip_boot.py: this folder last on
# sys.path). A chip's built-in module is never lost: the part made at boot, wired as the board
# says, is the one the program gets back, not a new one.
import sys

_part = _cran_vchip_parts[__name__]
sys.modules[__name__] = _part   # the next import finds the part itself


def __getattr__(name):
    return getattr(_part, name)
"""


def _built_in_folder():
    """A folder of the host's temporary files holding a stub for each built-in module
    (made by the first vchip that finds it missing; the same for all) -> its path."""
    folder = "%s/cran-vchip-builtin-1" % (os.getenv("TMPDIR") or "/tmp")
    try:
        os.mkdir(folder)
    except OSError:
        pass   # there already
    for name in BUILT_IN:
        path = "%s/%s.py" % (folder, name)
        try:
            os.stat(path)
        except OSError:
            part = "%s.%s" % (path, "".join("%02x" % b for b in os.urandom(4)))
            with open(part, "w") as f:
                f.write(_BUILT_IN_STUB)
            os.rename(part, path)   # whole, whoever wins
    return folder


def _exit_for_reset(cause, why):
    import sys  # (this boot's globals are the program's by now: nothing of its own)
    print("cran vchip: %s: the chip resets" % why, file=sys.stderr)
    sys.exit(80 + cause)   # vbadge_boot.EXIT_RESET + the cause


def _unlocker(micropython):
    """-> a function that unlocks the heap, however deep the program left it locked (it
    is over), allocating nothing on the way (no import, no range)."""
    def unlock():
        micropython.heap_lock()
        depth = micropython.heap_unlock()   # (it says the depth left)
        while depth:
            depth = micropython.heap_unlock()
    return unlock


def _power_off(espnow, network, unlock):
    """The program is over: the chip goes off the air at once (a field's hub would
    otherwise take it for a listening radio, and acknowledge frames for it, until it
    has been silent for a while)."""
    unlock()
    try:
        espnow.ESPNow().active(False)
        for interface in (network.STA_IF, network.AP_IF):
            network.WLAN(interface).active(False)
    except MemoryError:   # the program left the heap locked: its process ends anyway
        pass


def _tell(error, boot):
    """An uncaught exception, as the port prints one (on stderr), without this boot's
    own frames: the program's traceback starts where a chip's would."""
    import sys
    try:
        import io
        text = io.StringIO()
        sys.print_exception(error, text)
        lines = text.getvalue().split("\n")
        sys.stderr.write("\n".join(line for line in lines if boot not in line))
    except MemoryError:
        sys.print_exception(error)


def _hold(left):
    """The heap taken but for `left` bytes in one piece, as a chip's heap is whole when
    its program starts (the parts' own leave holes): that piece taken first, every other
    free byte then, the piece let go -> what holds the rest."""
    held = [None] * 2048   # made first: a list growing as it fills could find no room
    try:
        piece = bytearray(left)
    except MemoryError:
        return None   # less than that free at all: the program has what there is
    chunk = 1 << 20
    n = 0
    while chunk >= 16 and n < len(held):
        try:
            held[n] = bytearray(chunk)
            n += 1
        except MemoryError:
            chunk //= 2
    del piece
    gc.collect()
    return held


def main():
    board_file, vhw_dir, heap, lib, mode = sys.argv[1:6]
    rest = sys.argv[6:]
    boot = sys.argv[0]
    load_virtual_parts(vhw_dir)
    board = wire(board_file)
    import espnow
    import network
    chip_vfs = _be_a_chip(board)
    sys.path[:] = ["", ".frozen", lib, _built_in_folder()]
    if mode == "file":
        name = rest[0]
        with open(name) as f:
            source = f.read()
        sys.path[0] = name.rsplit("/", 1)[0] if "/" in name else ""
        sys.argv[:] = rest
    elif mode == "code":
        name, source = "<stdin>", os.getenv(CODE_ENV)
        os.unsetenv(CODE_ENV)   # the program's environment is its own
        sys.argv[:] = [""]
    elif mode == "stdin":
        name, source = "<stdin>", sys.stdin.read()
        sys.argv[:] = [""]
    else:
        name, source = None, None
        sys.argv[:] = [""]
    # The program's heap: what an ESP32's leaves it; the rest of the interpreter's (the
    # virtual parts' share and room to spare) held, out of its reach.
    program, interpreter = (int(n) for n in heap.split("/"))
    gc.collect()
    usable = (gc.mem_free() + gc.mem_alloc()) / interpreter   # (the GC's tables take the rest)
    _cran_vchip_parts["(held)"] = _hold(int(program * usable) - CHIP_BOOT_ALLOC)  # noqa
    # __main__ as a chip's after _boot.py: the program's globals, nothing of this boot's
    # (what this function needs of them from here on, kept in its own names).
    tell, power_off, system, space = _tell, _power_off, sys, globals()
    unlock = _unlocker(sys.modules["micropython"])
    space_after_boot = {"__name__": "__main__", "gc": gc, "vfs": chip_vfs}
    space.clear()
    space.update(space_after_boot)
    if source is None:
        return   # the REPL (-i) next, in __main__
    if mode == "file":
        space["__file__"] = name
    try:
        exec(compile(source, name, "exec"), space)
    except SystemExit:
        raise
    except BaseException as e:   # (KeyboardInterrupt too: the port prints it as well)
        unlock()
        tell(e, boot)
        system.exit(1)
    finally:
        power_off(espnow, network, unlock)


main()
