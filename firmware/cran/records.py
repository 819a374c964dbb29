# Reading the state's records back from the flash (StateStore.load): at boot, and after a
# failed save. Loaded for that and let go (cran.start's restore phase, StateStore.save),
# as its bytecode is a badge's RAM the rest of the time.
import json
import os

from cran.compat import missing
from cran.core.record import FORMAT_VERSION, MAGIC, MAX_RECORD_BYTES, record_crc
from cran.core.vocab import COPY_BAD, COPY_MISSING


def newest(slots, names):
    """StateStore.load's reading of its two copies (slots: their paths, or functions
    that read them; names: what to call them) -> (payload or None, problems, the newest
    copy's index or None, its sequence number or 0): a (code, line) per copy skipped
    ((COPY_BAD, "state.b: crc mismatch")). None means start from a safe default. A
    leftover temp file is a save cut short: never read, overwritten by the next."""
    problems = []
    best = at = None
    newest_seq = 0
    for i in (0, 1):
        try:
            seq, payload = _read(slots[i])
        except OSError as e:
            problems.append((COPY_MISSING, "%s: missing" % names[i]) if missing(e)
                            else (COPY_BAD, "%s: unreadable (%s)" % (names[i], e)))
            continue
        except ValueError as e:
            problems.append((COPY_BAD, "%s: %s" % (names[i], e)))
            continue
        if at is None or seq > newest_seq:
            at, newest_seq, best = i, seq, payload
    return best, problems, at, newest_seq


def _read(path):
    if callable(path):   # a store not in files reads its slots itself (cran.hal_cp.nvm)
        return path()
    size = os.stat(path)[6]
    if size > MAX_RECORD_BYTES:
        raise ValueError("%d bytes, at most %d" % (size, MAX_RECORD_BYTES))
    with open(path, "rb") as f:
        return decode_record(f.read(size))


def decode_record(data):
    """bytes of one record file -> (seq, payload). Raises ValueError saying what is wrong."""
    end = data.find(b"\n")
    if end < 0:
        raise ValueError("no header line (%d bytes)" % len(data))
    try:
        header = data[:end].decode()
    except ValueError:
        raise ValueError("header is not text") from None
    fields = header.split(" ")
    if fields[0] != MAGIC:
        raise ValueError("not a state record")
    # Magic and version come first so that a future layout is named, not called garbage.
    try:
        version = int(fields[1]) if len(fields) > 1 else None
    except ValueError:
        version = None
    if version is None:
        raise ValueError("bad header")
    if version != FORMAT_VERSION:
        raise ValueError("format version %d, expected %d" % (version, FORMAT_VERSION))
    if len(fields) != 5:
        raise ValueError("bad header")
    try:
        seq = int(fields[2])
        length = int(fields[3])
        crc = int(fields[4], 16)
    except ValueError:
        raise ValueError("bad header") from None
    body = data[end + 1:]
    if len(body) < length:
        raise ValueError("truncated: %d of %d body bytes" % (len(body), length))
    if len(body) > length:
        raise ValueError("%d bytes past the body" % (len(body) - length))
    if record_crc(header[:len(header) - len(fields[4])], body) != crc:
        raise ValueError("crc mismatch")
    try:
        payload = json.loads(body)
    except ValueError:
        raise ValueError("body is not JSON") from None
    if not isinstance(payload, dict):
        raise ValueError("body is not an object")
    return seq, payload
