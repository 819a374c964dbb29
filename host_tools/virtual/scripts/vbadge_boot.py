# The chip of `cran vbadge` (host_tools/virtual/vbadge.py starts it on a pty), inside the
# MicroPython unix port, by vbadge_start.py (Ctrl-C off first, as on a chip):
#   micropython [-i] vbadge_start.py ACTION IMAGE BOARD_FILE CAUSE VHW_DIR
#                                    [WATCHDOG_FILE NVS_FILE CHIP [ROMFS_FILE]]
# The flash image is mounted at "/" (LittleFS, as an ESP32's vfs partition), so paths
# are a badge's; NVS_FILE holds the chip's NVS partition (the virtual esp32.NVS), CHIP
# names the chip (its unique id is made from it: a temporary image's path, /dev/fd/N,
# is the same in every vbadge);
# ROMFS_FILE, when given, a ROMFS partition (RomPartition: a MicroPython built with
# MICROPY_VFS_ROM, as the ESP32 port's ROMFS variant), mounted at /rom when it holds
# an image, as the port's start mounts it. The
# parts are virtual (VHW_DIR: machine, neopixel, esp32, wired as BOARD_FILE says); time
# and asyncio are the port's own: the vbadge runs in real time.
# ACTION  check: mount (NEW: format first) and exit;  boot: boot.py then main.py, then
# exit (the supervisor starts the REPL);  repl (with -i): the REPL;  repl-boot (with
# -i): boot.py, then the REPL (a soft reset in the raw REPL skips main.py, as a board's).
# Ctrl-C interrupts where it does on an ESP32 (its pyexec): while the port's frozen
# _boot.py runs up to its mount, and while boot.py and main.py run (not while they are
# compiled); elsewhere it is a byte, as in the chip's C start. A Ctrl-C that stops one of
# those files gives the REPL, main.py unrun.
# Exit codes: EXIT_BAD_IMAGE (message on stdout), EXIT_RESET + machine reset cause.
import os
import sys
import time  # the port's real clock, cached before VHW_DIR (whose time.py is virtual)

import vfs
from watchdog_file import WatchdogFile  # beside this script: before sys.path is the chip's

EXIT_BAD_IMAGE = 3
EXIT_RESET = 80
BLOCK_SIZE = 4096
MIN_BLOCKS = 8      # fewer, and LittleFS has no room for its own metadata
_ERASED = b"\xff" * BLOCK_SIZE


class FlashImage:
    """The vfs partition as a block device (MicroPython's extended interface) over the
    image file. Every write goes straight to the file, unbuffered, so a killed process
    leaves what LittleFS had committed, as a power cut leaves a chip's flash."""

    def __init__(self, f, blocks):
        self.f = f
        self.blocks = blocks

    def readblocks(self, block, buf, offset=0):
        self.f.seek(block * BLOCK_SIZE + offset)
        if self.f.readinto(buf) != len(buf):
            raise OSError(5)   # EIO: the image is shorter than it says

    def writeblocks(self, block, buf, offset=0):
        self.f.seek(block * BLOCK_SIZE + (offset or 0))
        self.f.write(buf)

    def ioctl(self, op, arg):
        if op == 4:     # block count
            return self.blocks
        if op == 5:     # block size
            return BLOCK_SIZE
        if op == 6:     # erase: flash reads all ones after it
            self.writeblocks(arg, _ERASED)
        return 0        # init, deinit, sync: writes are already through


class RomPartition:
    """The ROMFS partition as vfs.rom_ioctl shows it (MicroPython's extmod/vfs_rom
    ioctls, as mpremote's `romfs deploy` and `cran flash` use them): 1 the number of
    partitions, 2 the partition's memory (a memoryview: ROMFS runs from mapped flash),
    3 prepare (erase) a range, 4 write, 5 the write is complete, 6 the erase block size.
    Held to flash's rules: a write lands only on bytes a prepare erased (a write
    elsewhere ANDs into what is there, as NOR flash does, and is refused here), and
    only while the partition is not mounted (its code would change under it). Every
    write goes straight to the host file, as FlashImage's."""

    HEADER = b"\xd2\xcd\x31"   # a ROMFS image starts so (mpremote.romfs)

    def __init__(self, f):
        self.f = f
        f.seek(0)
        self.mem = bytearray(f.read())
        self.erased = bytearray(len(self.mem) // BLOCK_SIZE)   # 1: erased since complete

    def ioctl(self, op, *args):
        if op == 1:
            return 1
        if args[0] != 0:
            return -19   # ENODEV: no such partition
        if op == 2:
            return memoryview(self.mem)
        if op == 6:
            return BLOCK_SIZE
        if _mounted("/rom"):
            raise OSError(16)   # EBUSY: vfs.umount("/rom") first
        if op == 3:
            offset, length = (0, args[1]) if len(args) == 2 else args[1:3]
            end = offset + length
            if offset % BLOCK_SIZE or end > len(self.mem):
                raise OSError(22)   # EINVAL
            end = min(len(self.mem), (end + BLOCK_SIZE - 1) // BLOCK_SIZE * BLOCK_SIZE)
            self._put(offset, b"\xff" * (end - offset))
            for block in range(offset // BLOCK_SIZE, end // BLOCK_SIZE):
                self.erased[block] = 1
            return 4   # the smallest write
        if op == 4:
            offset, data = args[1], bytes(args[2])
            end = offset + len(data)
            if end > len(self.mem) or not all(
                    self.erased[b] for b in range(offset // BLOCK_SIZE,
                                                  (end + BLOCK_SIZE - 1) // BLOCK_SIZE)):
                raise OSError(22)   # a write outside what a prepare erased
            self._put(offset, data)
            return 0
        if op == 5:
            self.erased[:] = bytes(len(self.erased))
            return 0
        return -22

    def _put(self, offset, data):
        self.mem[offset:offset + len(data)] = data
        self.f.seek(offset)
        self.f.write(data)
        self.f.flush()

    def mount(self):
        """At boot, as the port's start does: the image at /rom, and /rom, /rom/lib on
        sys.path after "" (the flash's own files first)."""
        if self.mem[:3] == self.HEADER:
            vfs.mount(vfs.VfsRom(memoryview(self.mem)), "/rom")
            sys.path[1:1] = ["/rom", "/rom/lib"]


def _mounted(path):
    return any(m[1] == path for m in vfs.mount())


def with_rom(partition):
    """`import vfs` gives the port's vfs with rom_ioctl: the unix port has none."""
    class _Vfs:   # the port can't make a module object: an object with its names
        pass
    shim = _Vfs()
    for name in dir(vfs):
        if not name.startswith("__"):
            setattr(shim, name, getattr(vfs, name))
    shim.rom_ioctl = partition.ioctl
    sys.modules["vfs"] = shim


class _Uname:
    """os.uname() as an ESP32's MicroPython answers it."""

    def __init__(self, chip):
        family = chip.split("-")[0].upper()   # esp32-pico-d4: an ESP32 in a package
        self.sysname = self.nodename = "esp32"
        self.release = "%d.%d.%d" % sys.implementation.version[:3]
        self.version = "v%s on the vbadge" % self.release
        # As MicroPython's generic image for the chip says it (its board, "with" chip):
        # cran flash checks the board file's chip against it.
        self.machine = ("Generic ESP32 module with ESP32" if family == "ESP32"
                        else "%s module with %s" % (family, family))


def with_uname(chip):
    """`import os` gives the port's os with uname(), as an ESP32's has: the unix port's
    has none (the same shim as with_rom's)."""
    class _Os:
        pass
    shim = _Os()
    for name in dir(os):
        if not name.startswith("__"):
            setattr(shim, name, getattr(os, name))
    uname = _Uname(chip)
    shim.uname = lambda: uname
    sys.modules["os"] = shim


def fail(message):
    print(message)
    sys.exit(EXIT_BAD_IMAGE)


def mount(path, new, boot=False):
    """The image at "/", the host's files out of reach (a badge has only its flash).
    boot: as the port's frozen _boot.py mounts it, Ctrl-C on until the mount (on a chip
    its imports: gc, vfs, flashbdev's partition), not in it (the chip's is C, its block
    device too: a Ctrl-C there is raised after, and its boot goes on)."""
    import micropython
    if boot:
        micropython.kbd_intr(3)
    try:
        f = open(path, "r+b")
    except OSError as e:
        fail("%s: cannot open the flash image: %s" % (path, e))
    size = f.seek(0, 2)
    if size % BLOCK_SIZE or size < MIN_BLOCKS * BLOCK_SIZE:
        fail("%s: not a flash image: %d bytes is not a whole number of %d-byte blocks, "
             "at least %d" % (path, size, BLOCK_SIZE, MIN_BLOCKS))
    flash = FlashImage(f, size // BLOCK_SIZE)
    micropython.kbd_intr(-1)
    vfs.umount("/")
    if new:
        vfs.VfsLfs2.mkfs(flash)
    try:
        vfs.mount(vfs.VfsLfs2(flash), "/")
    except OSError as e:
        fail("%s: not a LittleFS flash image, or damaged beyond mounting (OSError %s)"
             % (path, e.errno))
    os.chdir("/")


def load_virtual_parts(vhw_dir):
    """Import the virtual parts now, while the host's files are reachable: the firmware's
    `import machine` then finds them in sys.modules. Its `time` stays the real one."""
    sys.path[:] = [vhw_dir]
    for name in sorted(os.listdir(vhw_dir)):
        if name.endswith(".py") and name not in ("time.py", "__init__.py"):
            __import__(name[:-3])
    sys.path[:] = ["", ".frozen", "/lib"]   # an ESP32's


def wire(board_file, cause, image):
    import hashlib
    import json

    import machine
    import vclock
    import world
    with open(board_file) as f:
        board = json.loads(f.read())
    with_uname(board["chip"])
    vclock.use_real_clock(time.ticks_ms, time.sleep_ms)
    machine.reset_all(cause)
    world.wire(board)
    finger = os.getenv("CRAN_VBADGE_FINGER")
    if finger:
        fingers(finger, board)
    machine.history = 16
    machine.on_reset = _exit_for_reset
    # A chip of its own per flash image: `cran flash --roster` tells badges apart by it.
    chip = sys.argv[8] if len(sys.argv) > 8 else image
    machine._unique_id = hashlib.sha256(chip.encode()).digest()[:6]


# A gesture's presses: (ms held, ms before the next), as cran sim plays them: past the
# debounce, past the long press (cran.hal.buttons: 50, 800), two within a double's 350.
_GESTURES = {"short": ((120, 0),), "long": ((1500, 0),), "double": ((120, 120), (120, 0))}


def fingers(path, board):
    """`cran vbadge --buttons`: a finger on the board's buttons. The supervisor writes a
    gesture a line to path ("a long"); a thread of its own holds the pin at its pressed
    level and lets go, in real time, whatever the firmware is doing, as a finger is
    outside the chip (a press in light sleep wakes it: vclock looks every 10 ms)."""
    import _thread

    import machine
    import vclock
    pins = {}
    for spec in board["buttons"]:
        pins[spec["name"]] = (spec["pin"], 0 if spec["active_low"] else 1)
    told = open(path, "rb")   # opened while the host's files are in reach
    vclock.wake_look_ms = 10

    def press():
        while True:
            line = told.readline()
            if not line:
                return   # the supervisor is gone
            words = line.decode().split()   # as the supervisor checked them
            pin, level = pins[words[0]]
            for held_ms, then_ms in _GESTURES[words[1]]:
                machine.drive(pin, level)
                time.sleep_ms(held_ms)
                machine.drive(pin, None)
                time.sleep_ms(then_ms)

    _thread.start_new_thread(press, ())


def _exit_for_reset(cause, why):
    # The process ends; the supervisor boots the next one with this reset cause. A chip
    # goes silent at once: closed, stdout and stderr keep the REPL's end-of-output marks
    # and tracebacks off the port.
    sys.stdout.close()
    sys.stderr.close()
    sys.exit(EXIT_RESET + cause)


def run_file(name, namespace):
    """A file of the flash run as a board runs boot.py and main.py: an error is printed
    and the boot goes on. -> False when Ctrl-C stopped it (the REPL comes next)."""
    try:
        os.stat(name)
    except OSError:
        return True
    import micropython
    try:
        with open(name) as f:
            code = compile(f.read(), name, "exec")
        micropython.kbd_intr(3)   # as pyexec: on while the file runs, off for its compile
        try:
            exec(code, namespace)
        finally:
            micropython.kbd_intr(-1)
    except KeyboardInterrupt as e:
        sys.print_exception(e)
        return False
    except Exception as e:
        sys.print_exception(e)
    return True


def watchdog_left_ms():
    """The ms the firmware's watchdog (machine.WDT) has left now, or None."""
    import machine
    import vclock
    left = [a.due_ms - vclock.elapsed_ms() for a in vclock._alarms
            if isinstance(a, machine.WDT) and a.due_ms is not None]
    return min(left) if left else None


def main():
    action, image, board_file, cause, vhw_dir = sys.argv[1:6]
    if action.startswith("check"):
        mount(image, action == "check-new")
        return
    load_virtual_parts(vhw_dir)
    wire(board_file, int(cause), image)
    if len(sys.argv) > 7:
        import esp32
        esp32.nvs_keep_in(open(sys.argv[7], "r+b"))   # before "/" hides the host's files
    # Opened while the host's files are in reach: once the image is at "/", they aren't.
    # A REPL chip tells the file too, not emptying it: at the REPL the boot's watchdog
    # still runs, and machine.WDT() there sets and feeds it, as an ESP32's REPL can.
    watchdog = WatchdogFile(open(sys.argv[6], "w" if action == "boot" else "r+"))
    import machine
    machine.on_watchdog = watchdog.tell
    rom = None
    if len(sys.argv) > 9:
        rom = RomPartition(open(sys.argv[9], "r+b"))
        with_rom(rom)
    mount(image, False, action != "repl")
    if rom is not None:
        rom.mount()
    if action == "repl":
        return
    namespace = {"__name__": "__main__"}
    if run_file("boot.py", namespace) and action == "boot":
        run_file("main.py", namespace)
    if action == "boot":   # (a REPL chip keeps telling, from the REPL)
        watchdog.close(watchdog_left_ms())


if __name__ == "__main__":   # (vchip_boot.py imports its helpers)
    try:
        main()
    except KeyboardInterrupt:
        # Ctrl-C before main.py ran: the boot stops here, as a board's goes to its REPL.
        pass
