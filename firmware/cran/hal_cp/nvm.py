# The state and the journal in microcontroller.nvm, a few KB of bytes that keep through
# resets and power cuts, which the code may write while a computer has the USB drive
# (the file system is read-only to it then). The same promises as cran.storage on
# LittleFS: the state in two checked records, a save never touching the newest valid
# one, so a power cut at any byte of a write leaves the old record or the new one; and
# a bounded journal whose torn line is skipped, never fatal.
import binascii
import json

from cran import storage
from cran.core.vocab import const
from cran.storage import MAX_RECORD_BYTES, StateStore, record_parts

_ENOENT = 2
# A byte no JSON line and no record holds: where one is read, nothing was written
# (0xFF: a fresh nvm; 0x00: a half of the journal cleared).
_BLANK = (0x00, 0xFF)
_COMPACT = const((",", ":"))   # JSON's separators without spaces, as cran.storage's


class NvmStateStore(StateStore):
    """StateStore's two records, each in a slot of slot_bytes at nvm[at:]."""

    def __init__(self, nvm, at, slot_bytes):
        StateStore.__init__(self, "", "nvm:state")
        self.nvm = nvm
        self._at = at
        self.slot_bytes = slot_bytes
        # What cran.records.newest reads each record with, in place of a path.
        self._slots = (lambda: self.read_slot(0), lambda: self.read_slot(1))

    def read_slot(self, i):
        """-> (seq, payload) of slot i. OSError ENOENT: never written; ValueError: not
        a whole record (a save cut short, damage)."""
        from cran.records import decode_record
        start = self._at + i * self.slot_bytes
        nvm = self.nvm
        if nvm[start] in _BLANK:
            raise OSError(_ENOENT, "never written")
        head = bytes(nvm[start:start + 64])
        end = head.find(b"\n")
        try:
            length = int(head[:end].split(b" ")[3])
        except (IndexError, ValueError):
            raise ValueError("bad header") from None
        if not 0 <= length <= self.slot_bytes - end - 1:
            raise ValueError("bad header")
        return decode_record(bytes(nvm[start:start + end + 1 + length]))

    def save(self, payload):
        """As StateStore.save, into the slot not holding the newest valid record: one
        write of the whole record. -> None (there is no second copy to fail)."""
        if not self._known:
            self.load()
        target = 1 if self._newest == 0 else 0
        header, body = record_parts(payload, self.seq + 1)
        size = len(header) + len(body)
        if size > min(MAX_RECORD_BYTES, self.slot_bytes):
            raise ValueError("state record of %d bytes, at most %d"
                             % (size, min(MAX_RECORD_BYTES, self.slot_bytes)))
        self._known = False     # in doubt until the write has landed
        start = self._at + target * self.slot_bytes
        self.nvm[start:start + size] = header + body
        self._newest = target
        self.seq += 1
        self._known = True
        return None


class NvmJournal:
    """cran.storage.Journal's interface in nvm[at:at + size]: two halves, each a 4-byte
    header (its generation and that number's complement: a torn header reads as no
    generation) and lines up to the first blank byte. Lines go into the current half,
    the one of the higher generation; a full one makes the other current, cleared
    first, then given the next generation: the oldest half is what is lost."""

    def __init__(self, nvm, at, size):
        self.nvm = nvm
        self.names = ("nvm:journal.1", "nvm:journal.0")
        self._halves = (at, at + size // 2)
        self._half = size // 2
        self._current = None    # index of the current half; None: ask the nvm
        self._end = 0           # where the next line goes in the current half
        self.problems = []

    def _generation(self, i):
        head = self.nvm[self._halves[i]:self._halves[i] + 4]
        gen = head[0] | head[1] << 8
        if head[2] | head[3] << 8 != gen ^ 0xFFFF:
            return -1    # never given one, or torn
        return gen

    def _look(self):
        gens = (self._generation(0), self._generation(1))
        i = 0 if gens[0] >= gens[1] else 1
        if gens[i] < 0:
            self._current = None
            return
        self._current = i
        self._end = self._blank(i)

    def _blank(self, i):
        # The first blank byte after the half's header: where its lines end.
        start = self._halves[i] + 4
        data = bytes(self.nvm[start:start + self._half - 4])
        end = len(data)
        for byte in _BLANK:
            found = data.find(bytes((byte,)))
            if 0 <= found < end:
                end = found
        return end

    def _start(self, i, gen):
        # Cleared first, then numbered: a cut in between leaves the other half current.
        start = self._halves[i]
        self.nvm[start + 4:start + self._half] = bytes(self._half - 4)
        gen &= 0xFFFF
        self.nvm[start:start + 4] = bytes((gen & 0xFF, gen >> 8, (gen ^ 0xFFFF) & 0xFF,
                                           (gen ^ 0xFFFF) >> 8))
        self._current = i
        self._end = 0

    def append(self, entry):
        line = json.dumps(entry, separators=_COMPACT).encode() + b"\n"
        room = self._half - 4
        if len(line) > room:
            raise ValueError("journal entry of %d bytes, at most %d" % (len(line), room))
        if self._current is None:
            self._look()
        if self._current is None:
            self._start(0, 1)
        i = self._current or 0
        start = self._halves[i] + 4
        if self._end and self.nvm[start + self._end - 1] != 0x0A:
            line = b"\n" + line   # a torn line would swallow this entry too
        if self._end + len(line) > room:
            i = 1 - i
            self._start(i, self._generation(1 - i) + 1)
            start = self._halves[i] + 4
            line = line.lstrip(b"\n")
        self._current = None    # in doubt until the write has landed
        self.nvm[start + self._end:start + self._end + len(line)] = line
        self._current = i
        self._end += len(line)
        if storage.on_journal is not None:
            storage.on_journal(entry)

    def entries(self):
        """-> every readable entry, oldest first; a torn or garbled line is skipped and
        named in self.problems."""
        from cran.readback import take_entry
        self._look()
        out = []  # type: list
        self.problems = []
        current = self._current
        if current is None:
            return out
        order = (1 - current, current)
        for i in order:
            if self._generation(i) < 0:
                continue
            start = self._halves[i] + 4
            text = bytes(self.nvm[start:start + self._blank(i)])
            n = 0
            for line in text.split(b"\n"):
                if not line:
                    continue
                n += 1
                take_entry(line, out, self.problems, self.names[order.index(i)], n)
        return out

    def clear(self):
        gen = max(self._generation(0), self._generation(1))
        for i in (0, 1):
            self._start(i, gen + 1 + i)


class NvmBoots:
    """cran.boots' stamps in nvm[at:at + size]: "<crc32 of the text, 8 hex> <text>\n",
    written whole in one write. A write cut short leaves a mix of old and new bytes,
    which the CRC refuses (read: ValueError): counted as no stamps, as a bad boots.json."""

    def __init__(self, nvm, at, size):
        self.nvm = nvm
        self._at = at
        self._size = size

    def read(self):
        data = bytes(self.nvm[self._at:self._at + self._size])
        end = data.find(b"\n")
        if data[0] in _BLANK or end < 9:
            raise ValueError("no stamps")
        text = data[9:end]
        if data[:9] != b"%08x " % (binascii.crc32(text) & 0xFFFFFFFF):
            raise ValueError("stamps torn")
        return text.decode()

    def write(self, text):
        body = text.encode()
        data = b"%08x " % (binascii.crc32(body) & 0xFFFFFFFF) + body + b"\n"
        if len(data) > self._size:   # no room: as a flash that can't write (boots.py)
            raise OSError(28, "stamps of %d bytes, at most %d" % (len(data), self._size))
        self.nvm[self._at:self._at + len(data)] = data
