# The boot.py of an emulated chip under measure (host_tools/device/qemu.py puts it on
# the chip's file system with the badge's files; a badge flashed by cran flash has no
# boot.py). It runs on the stock MicroPython ESP32 image, before the badge's own main.py,
# in the same globals (hence the _h names; the host gives each the name of one the image
# holds, qemu.image_names_only, so that its names take no room in RAM), and:
# - mounts the vfs partition again, its operations counted, with a 4 KB read cache
#   (READ_SIZE 1024; the stock mount's 32 reads 128 bytes at a time): the emulator costs
#   ~8 ms a flash operation where a chip takes ~0.1 ms, and the stock cache makes a start
#   of thousands of them (minutes, past the watchdog). What this mount costs the heap is
#   measured here and taken out of the badge's figures;
# - has machine.bitstream (neopixel) bit-bang instead of using the RMT, whose end of
#   transmission the emulator never signals (a write would wait for ever);
# - leaves the badge a heap of BUDGET bytes (0: all the chip gives) with a ballast;
# - every SAMPLE_MS, from a timer, collects and writes a line to UART 1 (the host reads
#   it apart from the badge's console on UART 0):
#   "@ TICKS ALLOC FREE IDF_FREE IDF_MIN IDF_LARGEST PHASE READS READ_BYTES WRITES
#   WRITTEN_BYTES ERASES", FREE as gc.mem_free() says it (what the GC heap has free, and
#   what it can still take from the IDF's heap); PHASE 0 while main.py checks the
#   firmware, 1 while the badge starts (cran.run loaded), 2 once its app runs (the start
#   let go); the flash operations since boot.py. Once the app has run for 5 s,
#   micropython.qstr_info() once, on the console (UART 0): the names in RAM, every one the
#   badge makes being made by then (at its start, cran.start.phases._make_names, but the
#   names of the asyncio modules its loops import as they begin).
# First line: "@harness BASE SHARE CAPACITY LEFT OP_US": BASE, bytes in use when boot.py began
# (what _boot.py left: the stock mount, the frozen modules' RAM; and this file's own code,
# compiled before its first line runs); SHARE, what the harness holds from here on (its
# mount less the stock one, the timer, the UART, the ballast) and its own code (_HOWN:
# host_tools.device.qemu.harness_own measures it): a badge's
# figure is ALLOC - SHARE; CAPACITY, the GC heap of two areas (the
# port's first area, and the second it adds once, doubling it); LEFT, what the badge has
# of that heap; OP_US, what a 128-byte read of the flash takes here.
import gc
import sys
import time

import esp32
import machine
import micropython
import vfs

_HBUDGET = 0        # set by the host (host_tools/device/qemu.py)
_HREAD_SIZE = 1024   # set by the host
_HOWN = 0           # set by the host
_HSAMPLE_MS = 500
_HCHUNK = 1024

gc.collect()
_hbase = gc.mem_alloc()
esp32.RMT.bitstream_channel(None)


class _HFlash:
    """The vfs partition, its operations counted (what a chip's start costs is counted
    here, timed with a chip's figures by the host)."""

    def __init__(self, part):
        self.part = part
        self.ops = [0, 0, 0, 0, 0]   # reads, bytes read, writes, bytes written, erases

    def readblocks(self, block, buf, offset=0):
        self.ops[0] += 1
        self.ops[1] += len(buf)
        self.part.readblocks(block, buf, offset)

    def writeblocks(self, block, buf, offset=None):
        self.ops[2] += 1
        self.ops[3] += len(buf)
        self.part.writeblocks(block, buf, offset)

    def ioctl(self, op, arg):
        if op == 6:
            self.ops[4] += 1
        return self.part.ioctl(op, arg)


_hflash = _HFlash(esp32.Partition.find(esp32.Partition.TYPE_DATA, label="vfs")[0])
vfs.umount("/")
vfs.mount(vfs.VfsLfs2(_hflash, readsize=_HREAD_SIZE, progsize=32, lookahead=32), "/")
_huart = machine.UART(1, 115200, tx=14, rx=13)


def _hidf():
    free = least = largest = 0
    for region in esp32.idf_heap_info(esp32.HEAP_DATA):
        free += region[1]
        largest = max(largest, region[2])
        least += region[3]
    return free, least, largest


_hrunning = 0   # the samples taken since the app runs


def _hsample(_timer):
    global _hrunning
    gc.collect()
    free, least, largest = _hidf()
    modules = sys.modules
    phase = 2 if "cran.app" in modules and "cran.start.phases" not in modules else (
        1 if "cran.run" in modules else 0)
    if phase == 2:
        _hrunning += 1
        if _hrunning == 10:
            micropython.qstr_info()
    _huart.write("@ %d %d %d %d %d %d %d %d %d %d %d %d\n" % (
        (time.ticks_ms(), gc.mem_alloc(), gc.mem_free(), free, least, largest, phase)
        + tuple(_hflash.ops)))


# What a flash operation costs here (the host takes it out of the start's time).
_hbuf = bytearray(128)
_ht0 = time.ticks_us()
for _hi in range(8):
    _hflash.part.readblocks(0, _hbuf, 0)
_hop_us = time.ticks_diff(time.ticks_us(), _ht0) // 8
del _hbuf, _ht0, _hi
_htimer = machine.Timer(0)
_hballast = []
gc.collect()
# The first area's size: what is in use and free in it (gc.mem_free() adds what the
# heap can still take from the IDF: its largest free block).
_hcapacity = 2 * (gc.mem_alloc() + gc.mem_free() - _hidf()[2])
if _HBUDGET:
    # A file open on the badge holds a cache of the mount's size: the badge is given
    # what this mount's one costs more than the stock one's (128 bytes).
    # Its own code is given back too: a chip without the harness has it free.
    _hleft = _HBUDGET + _HOWN + 4 * _HREAD_SIZE - 128
    while _hcapacity - (gc.mem_alloc() - _hbase) - _HCHUNK >= _hleft:
        _hballast.append(bytearray(_HCHUNK - 16))
        gc.collect()
gc.collect()
_hshare = gc.mem_alloc() - _hbase + _HOWN
_huart.write("@harness %d %d %d %d %d\n" % (_hbase, _hshare, _hcapacity,
                                             _hcapacity - _hshare, _hop_us))
_htimer.init(period=_HSAMPLE_MS, callback=_hsample)
