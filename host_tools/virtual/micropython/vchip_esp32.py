# The ESP32 port's esp32 module beyond what a badge uses, for `cran vchip` (imported by
# its boot, it adds these names to esp32.py's, which never imports it back): Partition,
# over the chip's 4 MB of flash laid out as MicroPython's ESP32_GENERIC lays it out
# (partitions-4MiB.csv), and idf_heap_info. Held to ports/esp32/esp32_partition.c and
# modesp32.c (v1.28.0) and to the ESP-IDF calls behind them: the same arguments, the
# IDF's errors as check_esp_err raises them, flash as NOR flash behaves (an erase sets a
# 4 KB sector to ones, a write only clears bits).
import sys

import esp32
import machine

NAMES = ("Partition", "idf_heap_info")

_SECTOR = 4096
FLASH_BYTES = 4 << 20
# (type, subtype, address, size, label), as esp_partition_find walks them.
TABLE = ((1, 2, 0x9000, 0x6000, "nvs"),
         (1, 1, 0xF000, 0x1000, "phy_init"),
         (0, 0, 0x10000, 0x1F0000, "factory"),
         (1, 129, 0x200000, 0x200000, "vfs"))
_APP_MAGIC = 0xE9   # an app image's first byte (esp_image_header_t.magic)

_INVALID_ARG = 0x102
_NOT_FOUND = 0x105
_INVALID_SIZE = 0x104
_OTA_VALIDATE_FAILED = 0x1503
_NAMES = {_INVALID_ARG: "ESP_ERR_INVALID_ARG", _NOT_FOUND: "ESP_ERR_NOT_FOUND",
          _INVALID_SIZE: "ESP_ERR_INVALID_SIZE",
          _OTA_VALIDATE_FAILED: "ESP_ERR_OTA_VALIDATE_FAILED"}
# check_esp_err with the heap locked can't make its message: the OSError has its code
# alone in the emergency exception buffer (micropython.alloc_emergency_exception_buf),
# or nothing without one. Made now, as that buffer is made before it is needed.
_BARE = OSError()
_CODE_ONLY = {code: OSError(-code) for code in _NAMES}
emergency_buffer = [0]   # alloc_emergency_exception_buf's size (vchip_boot's micropython)


def alloc_emergency_exception_buf(size):
    emergency_buffer[0] = size


def _fail(code):
    try:
        bytearray(1)   # (the heap locked: the message can't be made)
    except MemoryError:
        raise (_CODE_ONLY[code] if emergency_buffer[0] else _BARE) from None
    raise OSError(-code, _NAMES[code])


# ---- the flash ---------------------------------------------------------------------------
# Sectors never written read erased (0xff), but for the factory partition's first byte:
# it holds an app. Those written in memory, or in a host file (flash_keep_in: `cran
# vchip`, where the program's heap must not hold 4 MB).

_sectors = {}   # sector number -> bytearray(4096) (in memory), or None (in the file)
_file = [None]
_ERASED = b"\xff" * _SECTOR


def flash_keep_in(f):
    """The flash in f, a binary file open for reading and writing (empty: erased)."""
    _sectors.clear()
    _file[0] = f


def _read(address, n):
    data = bytearray(b"\xff" * n)
    f = _file[0]
    for sector in range(address // _SECTOR, (address + n + _SECTOR - 1) // _SECTOR):
        if sector not in _sectors:
            continue   # never written: erased
        at = max(address, sector * _SECTOR)
        end = min(address + n, (sector + 1) * _SECTOR)
        if f is not None:
            f.seek(at)
            data[at - address:end - address] = f.read(end - at)
        else:
            held = _sectors[sector]
            data[at - address:end - address] = held[at - sector * _SECTOR:
                                                    end - sector * _SECTOR]
    factory = TABLE[2][2]
    if address <= factory < address + n and factory // _SECTOR not in _sectors:
        data[factory - address] = _APP_MAGIC
    return data


def _put(address, data):
    f = _file[0]
    for sector in range(address // _SECTOR, (address + len(data) + _SECTOR - 1) // _SECTOR):
        if sector not in _sectors:   # its first write: the whole sector as it reads
            first = _read(sector * _SECTOR, _SECTOR)
            if f is not None:
                f.seek(sector * _SECTOR)
                f.write(first)
                _sectors[sector] = None
            else:
                _sectors[sector] = first
    if f is not None:
        f.seek(address)
        f.write(data)
        f.flush()
        return
    for i in range(len(data)):
        _sectors[(address + i) // _SECTOR][(address + i) % _SECTOR] = data[i]


def _write(address, data):
    # NOR flash: a bit goes from 1 to 0, never back but by an erase.
    old = _read(address, len(data))
    for i in range(len(data)):
        old[i] &= data[i]
    _put(address, old)


def _erase(address, n):
    for at in range(address, address + n, _SECTOR):
        _put(at, _ERASED)


# ---- Partition ---------------------------------------------------------------------------

class Partition:
    BOOT = 0
    RUNNING = 1
    TYPE_APP = 0
    TYPE_DATA = 1

    def __init__(self, id, block_size=_SECTOR):
        if isinstance(id, int):
            if id == self.RUNNING:
                part = TABLE[2]
            elif id == self.BOOT:
                part = None   # esp_ota_get_boot_partition: no otadata here
            else:
                raise ValueError()
        else:
            if not isinstance(id, str):
                raise TypeError("can't convert %s to str" % type(id).__name__)
            part = (_first(self.TYPE_APP, 0xFF, id) or _first(self.TYPE_DATA, 0xFF, id))
        self._make(part, block_size)

    def _make(self, part, block_size):
        if part is None:
            raise OSError(2)   # ENOENT
        self._part = part
        self._block = machine._int(block_size)

    @staticmethod
    def find(*args, **kwargs):
        machine._too_many(args, kwargs, 4, ("type", "subtype", "label", "block_size"))
        named = dict(zip(("type", "subtype", "label", "block_size"), args))
        named.update(kwargs)
        kind = machine._int(named.get("type", Partition.TYPE_APP))
        subtype = machine._int(named.get("subtype", 0xFF))
        label = named.get("label")
        block = named.get("block_size", _SECTOR)
        found = []
        for part in TABLE:
            if part[0] == kind and subtype in (0xFF, part[1]) and label in (None, part[4]):
                p = object.__new__(Partition)
                p._make(part, block)
                found.append(p)
        return found

    def info(self):
        kind, subtype, address, size, label = self._part
        return (kind, subtype, address, size, label, False)

    def __repr__(self):
        return ("<Partition type=%d, subtype=%d, address=%d, size=%d, label=%s, "
                "encrypted=0>" % self._part)

    def _check(self, offset, n):
        # esp_partition_read/write's: past the end INVALID_ARG, running over INVALID_SIZE.
        size = self._part[3]
        if offset > size:
            _fail(_INVALID_ARG)
        if offset + n > size:
            _fail(_INVALID_SIZE)

    def _erase_range(self, offset, n):
        size = self._part[3]
        if offset > size:
            _fail(_INVALID_ARG)
        if offset + n > size or n % _SECTOR:
            _fail(_INVALID_SIZE)
        if offset % _SECTOR:
            _fail(_INVALID_ARG)
        _erase(self._part[2] + offset, n)

    def readblocks(self, block, buf, offset=0):
        start = (machine._int(block) * self._block + machine._int(offset)) & 0xFFFFFFFF
        n = len(buf)
        self._check(start, n)
        buf[:] = _read(self._part[2] + start, n)

    def writeblocks(self, block, buf, *offset):
        start = (machine._int(block) * self._block) & 0xFFFFFFFF
        data = bytes(buf)
        if offset:   # an extended write: erased before, by ioctl
            start = (start + machine._int(offset[0])) & 0xFFFFFFFF
        elif self._block >= _SECTOR:
            self._erase_range(start, len(data))
        else:   # a small block: its sectors read, erased, and what stays written back
            address = start // _SECTOR * _SECTOR
            self._check(start, len(data))
            while address < start + len(data):
                keep = _read(self._part[2] + address, _SECTOR)
                self._erase_range(address, _SECTOR)
                _write(self._part[2] + address, keep[:max(0, start - address)])
                end = start + len(data)
                if end < address + _SECTOR:
                    _write(self._part[2] + end, keep[end - address:])
                address += _SECTOR
        self._check(start, len(data))
        _write(self._part[2] + start, data)

    def ioctl(self, op, arg):
        op = machine._int(op)
        if op in (1, 2, 3):   # init, deinit, sync
            return 0
        if op == 4:
            return self._part[3] // self._block
        if op == 5:
            return self._block
        if op == 6:
            if self._block != _SECTOR:
                return -22   # -EINVAL
            self._erase_range(machine._int(arg) * _SECTOR, _SECTOR)
            return 0
        return None

    def set_boot(self):
        # esp_ota_set_boot_partition: an app image it can validate, and otadata to
        # write to; this table has no otadata (the factory app always boots).
        if self._part[0] != self.TYPE_APP or _read(self._part[2], 1)[0] != _APP_MAGIC:
            _fail(_OTA_VALIDATE_FAILED)
        _fail(_NOT_FOUND)

    def get_next_update(self):
        raise OSError(2)   # no OTA partition: esp_ota_get_next_update_partition's NULL

    @classmethod
    def mark_app_valid_cancel_rollback(cls):
        _fail(_NOT_FOUND)


def _first(kind, subtype, label):
    for part in TABLE:
        if part[0] == kind and subtype in (0xFF, part[1]) and part[4] == label:
            return part
    return None


# ---- idf_heap_info -----------------------------------------------------------------------
# The ESP-IDF's heap regions of an ESP32 without PSRAM, as a stock MicroPython v1.26.1
# ESP32_GENERIC reports them just after boot (measured in QEMU's ESP32, ../shared/tools/
# qemu-esp32): (size, free, largest free block, least free ever) and the region's
# capabilities (MALLOC_CAP_EXEC 1, 32BIT 2, 8BIT 4, DMA 8). The big D/IRAM region is
# where MicroPython's heap grows; Wi-Fi takes ~42.5 KB of the IDF's heap once on.

_REGIONS = ((240, 4, 0, 4, 14), (7288, 56, 48, 24, 14), (16648, 4552, 4096, 4460, 14),
            (86456, 11848, 11776, 11848, 14), (15072, 14656, 14336, 14656, 15),
            (113840, 112968, 110592, 112968, 15), (13912, 13472, 13312, 13440, 3))
_RADIO_BYTES = 43520


def idf_heap_info(capabilities):
    caps = machine._int(capabilities)
    import network
    radio = _RADIO_BYTES if network.is_active() else 0
    out = []
    for size, free, largest, least, has in _REGIONS:
        if (has & caps) == caps:
            if size == 113840 and radio:
                free, largest, least = free - radio, largest - radio, least - radio
            out.append((size, free, largest, least))
    return out


# From here on esp32's: esp32.Partition and idf_heap_info come from this module.
esp32._more.append(sys.modules[__name__])
