# Power-safe storage on the badge's flash: the wearer's state in two checked copies,
# and a bounded journal. Same code on MicroPython (LittleFS) and CPython (host tools).

import json
import os

from cran.compat import forget, missing, replace, sync
from cran.core.record import FORMAT_VERSION, MAGIC, MAX_RECORD_BYTES, record_crc
from cran.core.vocab import const

_READING = const(("cran.records",))   # the records' reading (StateStore.load)
_COMPACT = const((",", ":"))       # JSON's separators, spaces left out


# Who hears of each journal entry as it lands, besides the flash: None on a badge; a
# harness's function (host_tools/virtual/scripts/live_driver.py: `cran sim` shows entries as they
# come) - a hook of the firmware's own, not a patched method.
on_journal = None


def join(directory, name):
    if not directory:
        return name
    return directory.rstrip("/") + "/" + name


def record_parts(payload, seq):
    """payload dict, sequence number -> the bytes of one record file, as (header, body):
    b"cran-state <version> <seq> <body length> <crc32 hex>\\n" and the JSON body.
    Written as two pieces: on a badge the whole record in one more block would need
    another ~600 contiguous bytes of a fragmented heap at every save."""
    body = json.dumps(payload).encode()
    prefix = "%s %d %d %d " % (MAGIC, FORMAT_VERSION, seq, len(body))
    return ("%s%08x\n" % (prefix, record_crc(prefix, body))).encode(), body


def check_line(data):
    """The line a checked file starts with: the CRC-32 of data, the rest of the file, in
    8 hex digits and a newline (write_checked; cran.radio.start.read_checked)."""
    return ("%08x\n" % record_crc("", data)).encode()


def write_checked(path, data):
    """data (bytes) written to path after its check_line: a flipped bit, a cut or a file
    of an older firmware is told from what was written. Whole to path.new, then renamed
    over path: a power cut leaves one or the other. radio.json is kept so (cran.radio.
    link's save, and cran flash)."""
    with open(path + ".new", "wb") as f:
        f.write(check_line(data))
        f.write(data)
        sync(f)
    replace(path + ".new", path)


class StateStore:
    """The latest state, in two copies (name.a, name.b). A save never touches the copy
    holding the newest valid record, and a copy only changes by an atomic rename of a
    finished temp file: a power cut leaves the old record or the new one, nothing else.
    copy: an esp32.NVS namespace that keeps the newest record once more, out of reach of
    the file system (cran.start.rescue reads it at boot), or None."""

    def __init__(self, directory, name="state", copy=None):
        self.names = (name + ".a", name + ".b")
        self._slots = (join(directory, self.names[0]), join(directory, self.names[1]))
        self._temp = join(directory, name + ".tmp")
        self.copy = copy
        self._newest = None     # index of the slot holding the newest valid record
        self.seq = 0            # the newest record's sequence number (the next one is +1)
        self._known = False     # False until the disk has been read, or after a failed save

    def load(self):
        """-> (payload or None, problems): the newest valid copy, and one (code, line)
        per copy skipped ((COPY_BAD, "state.b: crc mismatch"), codes of
        cran.core.vocab). None means start from a safe default.
        A leftover temp file is a save cut short: never read, overwritten by the next.
        Read at boot and after a failed save only: the reading code (cran.records) is
        loaded for it, and let go by the caller at such a time (the start's restore
        phase, save() after a failed one)."""
        from cran.records import newest
        best, problems, self._newest, self.seq = newest(self._slots, self.names)
        self._known = True
        return best, problems

    def save(self, payload):
        """Write payload (a JSON-ready dict) as the newest record. Raises OSError when the
        flash fails (the previous record is then still there for the next load), and
        ValueError for a record over MAX_RECORD_BYTES, writing nothing. -> None, or the
        OSError that kept the NVS copy from being written (the record itself is saved)."""
        if not self._known:   # a save failed: which copy is newest is read again
            self.load()
            forget(_READING)
        target = 1 if self._newest == 0 else 0
        header, body = record_parts(payload, self.seq + 1)
        if len(header) + len(body) > MAX_RECORD_BYTES:
            # Never write what load() would refuse.
            raise ValueError("state record of %d bytes, at most %d"
                             % (len(header) + len(body), MAX_RECORD_BYTES))
        self._known = False     # in doubt until the rename has landed
        with open(self._temp, "wb") as f:
            f.write(header)
            f.write(body)
            sync(f)
        replace(self._temp, self._slots[target])
        self._newest = target
        self.seq += 1
        self._known = True
        if self.copy is not None:
            return self._keep_copy(header, body)
        return None

    def _keep_copy(self, header, body):
        # The same record in NVS, after LittleFS: a flipped bit in LittleFS's metadata can
        # roll its directory back to older records, or lose both. Every save, checkpoints
        # included: a copy older than the newest record would bring a countdown back with
        # more time left. NVS takes it cheaply: ~23 entries of 32 bytes a save, 192 saves
        # and each 4 KB sector erased ~6 times in the bench's game day, ~45 years of
        # daily play at 100,000 cycles (docs/RELIABILITY.md, «Damaged flash»); LittleFS already
        # erases a 4 KB block at every save. Two blobs, not one: joined, they would
        # need ~600 bytes more of the heap in one block at every save. Each change of a
        # commit lands whole, in order (esp32.NVS): body, head, then seq. A cut between
        # them leaves a head that doesn't match its body (its CRC fails) or a seq past
        # the copy (too old to use), and LittleFS, written first, has the newer record.
        nvs = self.copy
        try:
            try:
                nvs.set_blob("body", body)
                nvs.set_blob("head", header)
            finally:
                nvs.set_i32("seq", self.seq)   # the newest save: a copy older is not used
                nvs.commit()
        except OSError as e:
            return e
        return None


class Journal:
    """Append-only log of one-line JSON entries, bounded to about max_bytes by two
    files: name.0 (current) becomes name.1 (previous) when it would pass max_bytes/2."""

    def __init__(self, directory, max_bytes=16384, name="journal"):
        self.names = (name + ".1", name + ".0")     # oldest first
        self.paths = (join(directory, self.names[0]), join(directory, self.names[1]))
        self._half_bytes = max_bytes // 2
        self._size = None       # bytes in the current file; None: ask the disk
        self._torn = False      # the current file ends mid-line (a cut append)
        self.problems = []      # what the last entries() skipped, one line each

    def append(self, entry):
        """Add one entry (a JSON-ready dict). Raises OSError when the flash fails."""
        # No spaces: a sixth of an entry's bytes. "\n" written apart: one copy less.
        line = json.dumps(entry, separators=_COMPACT).encode()
        if self._size is None:
            self._look()
        size = self._size or 0
        self._size = None       # in doubt until the write has landed
        if size and size + len(line) + 1 > self._half_bytes:
            # Rename replaces the previous file atomically: a cut here loses only the
            # oldest half, which rotation was about to drop anyway.
            replace(self.paths[1], self.paths[0])
            size = 0
            self._torn = False
        with open(self.paths[1], "ab") as f:
            if self._torn:
                # A torn line would swallow this entry too: start it on a line of its own.
                f.write(b"\n")
                size += 1
            f.write(line)
            f.write(b"\n")
        self._size = size + len(line) + 1
        self._torn = False
        if on_journal is not None:
            on_journal(entry)

    def entries(self):
        """-> every readable entry, oldest first; what was skipped in self.problems
        (cran.readback, loaded for an organiser's read)."""
        from cran.readback import entries
        return entries(self)

    def _look(self):
        # Once per boot: the current file's size, and whether it ends mid-line.
        try:
            size = os.stat(self.paths[1])[6]
        except OSError as e:
            if not missing(e):
                raise
            size = 0
        self._torn = False
        if size:
            with open(self.paths[1], "rb") as f:
                f.seek(size - 1)
                self._torn = f.read(1) != b"\n"
        self._size = size
