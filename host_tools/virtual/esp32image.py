# The stock MicroPython image a badge runs: ESP32_GENERIC v1.26.1 (IDF v5.4.2), the image
# of ../shared/tools/qemu-esp32 (its README: where it comes from), as the bench needs to
# know it. What it was measured by: the image booted in that emulator, a main.py and then
# its REPL printing gc.mem_alloc() after gc.collect() around each step (2026-12-06); its
# built-in names read from the image itself (its qstr pools' tables, in its .rodata),
# the same 1,589 the running chip numbers below its first name made in RAM. Measured
# again by bench/esp32_image.py (names: from the image; heap: in QEMU).
from host_tools.imagenames import STATIC_NAMES  # the image's built-in names

IMAGE = "ESP32_GENERIC-20250911-v1.26.1.bin"
IMAGE_SHA256 = "6b5272b6edd15fc4d1627ec559a27a5d5a7b86e5ea7f8013941eb10c877edd4e"

# What a chip's heap holds that the bench's virtual parts, which are the runner's, do
# not put in the badge's (bytes, 32-bit: the chip's GC blocks of 16). (what, the board
# part or game it comes with or None: every badge, bytes, how it was measured.) The bench
# makes each one in the badge's heap as its boot starts
# (host_tools/virtual/scripts/badge_driver.py).
CHIP_ALLOCATIONS = (
    ("the boot", None, 800,
     "in use when main.py starts: _boot.py's LittleFS mount of / and its flashbdev "
     "module, sys.path, sys.modules (1,248 B at the top of a main.py, less that "
     "main.py's own code, 144 B, and the first names its compiling made, in RAM: their "
     "pool, 176 B, their characters' chunk, 128 B: a badge's are charged apart, "
     "names_pools)"),
    ("machine", None, 816,
     "import machine: the image's frozen machine.py (_machine's names copied into its "
     "globals, its Counter and Encoder classes)"),
    ("neopixel", "leds", 352, "import neopixel: the frozen neopixel.py and its class"),
    ("espnow", "radio", 768,
     "import espnow: the frozen espnow.py (its ESPNow class over _espnow.ESPNowBase, "
     "the receive buffer it keeps)"),
    ("ESPNow()", "radio", 64,
     "espnow.ESPNow(), the one ESP-NOW object with its empty peers_table: 112 B, less "
     "the 48 B the virtual one takes in the badge's heap"),
)
# ESPNow.active(True) makes the receive ring (its rxbuf, 526 B by default), and
# active(False) frees it: the radio's every listening window (cran.hal.espnow.Air).
# The bench makes it in the badge's heap for each window (badge_driver.py).
RING_BYTES = 528
# Each sender whose frame is read adds its MAC and [rssi, ms] to ESPNow.peers_table, for
# good: ~64 B (MicroPython's ports/esp32/esp_espnow.c, _lookup_add_peer and _update_rssi:
# a 6-byte bytes, a list of two, the dict's slot). One emulated chip hears no other, so
# not measured here; the virtual espnow's table keeps its own entries in the badge's heap.
PEER_BYTES = 64
# Smaller on the chip than the virtual parts' Python objects, so the bench charges a
# badge slightly more than its chip (not credited back): a NeoPixel 96 B for 1 LED, 144 B
# for 25 (the virtual one 176 and 208), the WLAN and a WDT nothing (32 B each).

# The names (qstrs) made in RAM are held in pools: the image's own pools are made with
# room for 10, so its first pool in RAM holds 20, and each next one twice the one
# before it, as one block of 24 + 7 bytes a name (a pointer, a 2-byte hash, its length),
# taken when the last is full. Measured: names made one by one took 304, 592, 1,152,
# 2,272, 4,512, 8,992 and 17,952 B at once, the 8,992 B one at the 1,261st name in RAM.
FIRST_POOL = 20
POOL_HEADER_BYTES = 24
POOL_ENTRY_BYTES = 7


def pool_bytes(entries):
    """A pool of names' block, in the chip's GC blocks of 16 bytes."""
    return (POOL_HEADER_BYTES + POOL_ENTRY_BYTES * entries + 15) // 16 * 16


def names_pools(in_ram):
    """Bytes of the pools a chip makes for in_ram names made in RAM, from its first."""
    held, size, total = 0, FIRST_POOL, 0
    while held < in_ram:
        total += pool_bytes(size)
        held += size
        size *= 2
    return total


def names_cliff(in_ram):
    """-> (names that can still be made before the next pool is needed, that pool's
    bytes) for a chip holding in_ram names in RAM."""
    held, size = 0, FIRST_POOL
    while held + size < in_ram:
        held += size
        size *= 2
    return held + size - in_ram, pool_bytes(size * 2)


def in_ram(names):
    """The names of `names` a chip makes in RAM: those its image does not hold."""
    return set(names) - _STATIC


def chip_allocations(board, radio):
    """-> [(what, bytes)] of CHIP_ALLOCATIONS for a badge of board (its board file's
    data) in a game with the radio or not."""
    has = {"radio": radio, "leds": board.get("leds") is not None}
    return [(what, size) for what, part, size, _ in CHIP_ALLOCATIONS
            if part is None or has[part]]


_STATIC = frozenset(STATIC_NAMES)
