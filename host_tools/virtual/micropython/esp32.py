# Virtual `esp32` module: the light-sleep wake sources, checked as the port checks them.
# ext0 and ext1 exist on the classic ESP32 only and take RTC GPIOs; wake_on_gpio is taken,
# conservatively, on deep-sleep-capable pins only (0-5 on the C3, RTC GPIOs on the ESP32).
import machine

WAKEUP_ALL_LOW = False
WAKEUP_ANY_HIGH = True
HEAP_DATA = 4
HEAP_EXEC = 1

_RTC_GPIOS = machine._RTC_GPIOS   # the classic ESP32's: machine's Pin.irq wakes on them too
_C3_WAKE_GPIOS = (0, 1, 2, 3, 4, 5)

chip = "esp32"   # set by world.wire() from the board file


def _classic():
    return not chip.startswith("esp32c")


def _ids(pins, allowed):
    out = []
    for pin in pins:
        pin_id = pin.id if isinstance(pin, machine.Pin) else pin
        if pin_id not in allowed:
            raise ValueError("invalid pin")   # the port's own words
        out.append(pin_id)
    return tuple(out)


def wake_on_ext0(pin, level):
    if not _classic():
        raise ValueError("ext0 wake: no such source on %s" % chip)
    if pin is None:
        machine.wake_sources.pop("ext0", None)
        return
    machine.wake_sources["ext0"] = (_ids([pin], _RTC_GPIOS), 1 if level else 0)


def wake_on_ext1(pins, level):
    if not _classic():
        raise ValueError("ext1 wake: no such source on %s" % chip)
    if not pins:
        machine.wake_sources.pop("ext1", None)
        return
    machine.wake_sources["ext1"] = (_ids(pins, _RTC_GPIOS), 1 if level else 0)


def wake_on_gpio(pins, level):
    if not pins:
        machine.wake_sources.pop("gpio", None)
        return
    allowed = _RTC_GPIOS if _classic() else _C3_WAKE_GPIOS
    machine.wake_sources["gpio"] = (_ids(pins, allowed), 1 if level else 0)


# ---- NVS: key-value pairs in a flash partition of their own ----------------------------
# The ESP-IDF's NVS as MicroPython's esp32.NVS shows it, held to its documented limits and
# errors, and to the stricter reading of its promises:
# - Names: a namespace or key of 1-15 characters (ESP_ERR_NVS_KEY_TOO_LONG past 15).
#   set_i32 takes a signed 32-bit value (a 32-bit port raises OverflowError past it).
# - Room: MicroPython's ESP32 partition tables give NVS 24 KB: six 4 KB pages of 126
#   32-byte entries, one page kept empty for its garbage collection. An i32 takes one
#   entry, a blob two and one per 32 bytes (nvs_set_blob's own words), a namespace one;
#   a value that doesn't fit raises ESP_ERR_NVS_NOT_ENOUGH_SPACE. A blob is at most
#   97.6 % of the partition less 4000 bytes (the IDF's bound below its 508,000).
# - Errors as check_esp_err raises them: OSError(-code, "ESP_ERR_NVS_..."): a missing key
#   is OSError(-0x1102, "ESP_ERR_NVS_NOT_FOUND") (not ENOENT), and so is a key that holds
#   a value of the other type (the IDF looks an entry up by namespace, type and key: a
#   blob is not found by get_i32, as MicroPython's tests/ports/esp32/esp32_nvs.py.exp
#   shows a real ESP32 answering); a get_blob buffer too small INVALID_LENGTH. A set
#   replaces the key's value and its type.
# - Commit: a set or erase is seen at once through its handle, and reaches the flash
#   only at commit() (the IDF writes at once and promises only at commit: the stricter
#   reading is the one kept); a reboot before that loses it.
# - Power: commit() writes its changes one by one, in the order they were made, each one
#   whole or not at all (the IDF keeps an old entry until the new one is complete). A
#   power cut in a commit keeps the changes before it and loses the rest:
#   nvs_cut_after(k) makes the next commit lose power after k changes (machine's
#   VirtualReset, as a power-on reset).
# Hooks for tests and tools: nvs_erase() (a new chip: machine.reset_all() calls it),
# nvs_keep_in(file) (the partition in a host file: `cran vbadge`), nvs_cut_after(k),
# nvs_written (entries written since nvs_erase: flash wear).
# On a badge NVS lives in flash and its code in C: none of it is in MicroPython's heap.
# Here the values committed live in two buffers made once, at import (the runner's share
# of the heap, not the badge's, when `cran scenario --heap` measures), and a set or a
# commit makes as little garbage as it can, so the badge's figures stay its own.
import binascii  # noqa: E402
import json  # noqa: E402

NVS_PARTITION_BYTES = 0x6000
_PAGE_BYTES = 4096
_PAGE_ENTRIES = 126
NVS_ENTRIES = (NVS_PARTITION_BYTES // _PAGE_BYTES - 1) * _PAGE_ENTRIES
NVS_BLOB_MAX = NVS_PARTITION_BYTES * 976 // 1000 - 4000
_NAME_MAX = 15
_NOT_FOUND = 0x1102
_NOT_ENOUGH_SPACE = 0x1105
_INVALID_NAME = 0x1106
_KEY_TOO_LONG = 0x1109
_INVALID_LENGTH = 0x110C
_ERROR_NAMES = {_NOT_FOUND: "ESP_ERR_NVS_NOT_FOUND",
                _NOT_ENOUGH_SPACE: "ESP_ERR_NVS_NOT_ENOUGH_SPACE",
                _INVALID_NAME: "ESP_ERR_NVS_INVALID_NAME",
                _KEY_TOO_LONG: "ESP_ERR_NVS_KEY_TOO_LONG",
                _INVALID_LENGTH: "ESP_ERR_NVS_INVALID_LENGTH"}

_nvs = {}            # the flash: namespace -> {key: ("i32", value) or ("blob", (at, n))}
_pool = bytearray(NVS_PARTITION_BYTES)    # the committed blobs' bytes, at _pool[at:at+n]
_spare = bytearray(NVS_PARTITION_BYTES)   # where they move when _pool is full
_tail = 0            # _pool's first free byte
nvs_written = 0      # entries written since nvs_erase()
_cut_after = None    # changes the next commit writes before the power goes
_file = None         # the partition in a host file (nvs_keep_in), or None: in memory
_slot_seq = 0        # the file's newest snapshot


def _nvs_error(code):
    return OSError(-code, _ERROR_NAMES[code])


def _check_name(name):
    if not isinstance(name, str) or not name:
        raise _nvs_error(_INVALID_NAME)
    if len(name) > _NAME_MAX:
        raise _nvs_error(_KEY_TOO_LONG)


def _entries(change):
    """Entries a value takes: ("i32", v) 1; a blob 2 and one per 32 bytes; None 0."""
    if change is None:
        return 0
    if change[0] == "i32":
        return 1
    value = change[1]
    n = value[1] if isinstance(value, tuple) else len(value)
    return 2 + (n + 31) // 32


def _used():
    n = 0
    for keys in _nvs.values():
        n += 1   # the namespace's own entry
        for change in keys.values():
            n += _entries(change)
    return n


class NVS:
    """One namespace, as esp32.NVS(name). Opening it makes the namespace (its entry)."""

    def __init__(self, namespace):
        _check_name(namespace)
        self._ns = namespace
        self._pending = []   # (key, ("i32", v) or ("blob", bytes) or None: erased), in order
        if namespace not in _nvs:
            _nvs[namespace] = {}

    def _find(self, key, upto=None):
        # What this handle sees: the flash, then its own changes not yet committed (the
        # first `upto` of them).
        found = _nvs[self._ns].get(key)
        pending = self._pending
        for i in range(len(pending) if upto is None else upto):
            if pending[i][0] == key:
                found = pending[i][1]
        return found

    def _get(self, key, kind):
        _check_name(key)
        found = self._find(key)
        if found is None or found[0] != kind:
            raise _nvs_error(_NOT_FOUND)
        return found[1]

    def _set(self, key, change):
        _check_name(key)
        # Room once every change of this handle is on the flash, this one too.
        used = _used()
        pending = self._pending
        for i in range(len(pending)):
            used += _entries(pending[i][1]) - _entries(self._find(pending[i][0], i))
        used += _entries(change) - _entries(self._find(key))
        if used > NVS_ENTRIES:
            raise _nvs_error(_NOT_ENOUGH_SPACE)
        pending.append((key, change))

    def set_i32(self, key, value):
        if not isinstance(value, int):
            raise TypeError("can't convert to int")
        if not -(1 << 31) <= value < 1 << 31:
            raise OverflowError("overflow converting long int to machine word")
        self._set(key, ("i32", value))

    def get_i32(self, key):
        return self._get(key, "i32")

    def set_blob(self, key, value):
        if isinstance(value, str):
            value = value.encode()
        elif not isinstance(value, bytes):
            value = bytes(value)   # as the IDF copies it: later changes to it don't count
        if len(value) > NVS_BLOB_MAX:
            raise _nvs_error(_NOT_ENOUGH_SPACE)   # what the IDF answers past its bound
        self._set(key, ("blob", value))

    def get_blob(self, key, buffer):
        if not isinstance(buffer, (bytearray, memoryview)):
            raise TypeError("object with buffer protocol required")
        value = self._get(key, "blob")
        if isinstance(value, tuple):   # committed: in the pool
            at, n = value
            value = memoryview(_pool)[at:at + n]
        if len(buffer) < len(value):
            raise _nvs_error(_INVALID_LENGTH)
        buffer[:len(value)] = value
        return len(value)

    def erase_key(self, key):
        _check_name(key)
        if self._find(key) is None:
            raise _nvs_error(_NOT_FOUND)
        self._pending.append((key, None))

    def commit(self):
        """Each change to the flash in turn, each whole or not at all."""
        global _cut_after, nvs_written
        pending, self._pending = self._pending, []
        for i in range(len(pending)):
            if _cut_after is not None and i >= _cut_after:
                _cut_after = None
                machine._reset(machine.PWRON_RESET, "power cut during an NVS commit")
            key, change = pending[i]
            _put(self._ns, key, change)
            nvs_written += _entries(change)
            if _file is not None:
                _write_snapshot()
        _cut_after = None


def _put(ns, key, change):
    keys = _nvs.setdefault(ns, {})
    if change is None:
        keys.pop(key, None)
    elif change[0] == "blob":
        keys.pop(key, None)   # its old bytes are garbage in the pool from now on
        keys[key] = ("blob", _keep(change[1]))
    else:
        keys[key] = change


def _keep(data):
    """Copy data into the pool -> (at, n); when it is full, the live blobs move up."""
    global _tail, _pool, _spare
    n = len(data)
    if _tail + n > len(_pool):
        to = memoryview(_spare)
        src = memoryview(_pool)
        _tail = 0
        for keys in _nvs.values():
            for key in keys:
                kind, value = keys[key]
                if kind == "blob":
                    at, size = value
                    to[_tail:_tail + size] = src[at:at + size]
                    keys[key] = ("blob", (_tail, size))
                    _tail += size
        _pool, _spare = _spare, _pool
    _pool[_tail:_tail + n] = data
    _tail += n
    return _tail - n, n


def nvs_erase():
    """An erased NVS partition: a new chip (machine.reset_all), or esptool erase_flash.
    The file kept by nvs_keep_in(), if any, is let go, not erased."""
    global _nvs, nvs_written, _cut_after, _file, _slot_seq, _tail
    _nvs = {}
    _tail = 0
    nvs_written = 0
    _cut_after = None
    _file = None
    _slot_seq = 0


def nvs_cut_after(changes):
    """The next commit loses power after this many changes (0: before any)."""
    global _cut_after
    _cut_after = changes


# The partition in a host file (`cran vbadge`, where every reset is a new process): two
# slots, each a whole snapshot of what the flash holds, "cran-nvs SEQ LENGTH CRC32\n" and
# JSON; each change of a commit writes the slot not holding the newest, so a process
# killed mid-write leaves the snapshot before that change: one change whole or not at all.
_SLOT_BYTES = 65536   # the partition's 20 KB of values, as hex, with room to spare


def nvs_keep_in(f):
    """Keep the partition in f (a binary file open for reading and writing, empty for an
    erased partition): read what it holds now, write every change committed from now on."""
    global _file, _slot_seq
    best = None
    for slot in (0, 1):
        f.seek(slot * _SLOT_BYTES)
        found = _read_slot(f.read(_SLOT_BYTES))
        if found is not None and (best is None or found[0] > best[0]):
            best = found
    nvs_erase()
    if best is not None:
        _slot_seq = best[0]
        for ns, keys in best[1].items():
            _nvs[ns] = {}
            for key, (kind, value) in keys.items():
                if kind == "blob":
                    value = binascii.unhexlify(value)
                _put(ns, key, (kind, value))
    _file = f


def _read_slot(data):
    end = data.find(b"\n")
    try:
        fields = data[:end].decode().split() if end > 0 else []
        if len(fields) != 4 or fields[0] != "cran-nvs":
            return None
        seq, length, crc = int(fields[1]), int(fields[2]), int(fields[3], 16)
    except ValueError:   # not text, not numbers: never written, or torn
        return None
    body = data[end + 1:end + 1 + length]
    if len(body) != length or binascii.crc32(body) & 0xFFFFFFFF != crc:
        return None   # torn by a kill mid-write, or never written
    return seq, json.loads(body)


def _write_snapshot():
    global _slot_seq
    plain = {}
    for ns, keys in _nvs.items():
        plain[ns] = {}
        for key, (kind, value) in keys.items():
            if kind == "blob":
                at, n = value
                value = binascii.hexlify(_pool[at:at + n]).decode()
            plain[ns][key] = [kind, value]
    body = json.dumps(plain).encode()
    _slot_seq += 1
    header = ("cran-nvs %d %d %08x\n" % (_slot_seq, len(body),
                                          binascii.crc32(body) & 0xFFFFFFFF)).encode()
    _file.seek((_slot_seq % 2) * _SLOT_BYTES)
    _file.write(header + body)
    _file.flush()


# The rest of the port's esp32 (Partition, idf_heap_info), for `cran vchip`: vchip_esp32.py,
# layered above this module, puts itself here when imported (the chip's boot imports it);
# a badge never uses them. (A list kept here: a program may empty sys.modules later.)
_more = []


def __getattr__(name):
    if _more and name in _more[0].NAMES:
        return getattr(_more[0], name)
    raise AttributeError("module 'esp32' has no attribute '%s'" % name)
