# The state record's copy in NVS (esp32.NVS: key-value pairs in a flash partition of its
# own), what a damaged LittleFS can't take: storage.StateStore writes it at every save,
# this reads it once, at boot. Start-only: let go once the app is built (cran.start).
from cran.core.vocab import NVS_BAD, const
from cran.records import decode_record
from cran.storage import MAX_RECORD_BYTES

# A missing key: check_esp_err's OSError(-ESP_ERR_NVS_NOT_FOUND, ...); ENOENT too, should
# a port map it so.
_MISSING = const((-0x1102, 2))
_TOO_SMALL = const(-0x110C)   # ESP_ERR_NVS_INVALID_LENGTH: get_blob's buffer is too small
_HEAD_BYTES = const(64)    # "cran-state 1 SEQ LENGTH CRC\n" is ~40


def open_copy():
    """-> (the NVS namespace that keeps the copy, or None; a line saying why not, or None).
    A desktop run without the virtual hardware has no esp32 module: no copy, silently."""
    try:
        import esp32
    except ImportError:
        return None, None
    try:
        return esp32.NVS("cran"), None
    except OSError as e:
        return None, "nvs: cannot open it (%r): no copy of the state is kept" % (e,)


def with_copy(store, record, problems):
    """store.load()'s newest record weighed against the NVS copy. -> (record or None,
    note, unknown). The copy wins when it is newer (LittleFS rolled back or lost its
    records); note then says so. unknown: the badge has saved a record that neither
    holds any more (or can't say whether it has): it must not start as a new badge, nor
    from an older record (healthier), but in état inconnu; note says why. problems gets
    a (NVS_BAD, line) for what is wrong in NVS. store.seq goes on past every record ever saved."""
    nvs = store.copy
    doubt = False          # NVS can't say what was saved
    try:
        saved = nvs.get_i32("seq")    # the newest record the badge saved
    except OSError as e:
        saved = None
        if e.args[0] not in _MISSING:
            problems.append((NVS_BAD, "nvs: seq unreadable (%r)" % (e,)))
            doubt = True
    copy = None
    try:
        copy = _read_copy(nvs)
    except OSError as e:
        if e.args[0] not in _MISSING:
            problems.append((NVS_BAD, "nvs: copy unreadable (%r)" % (e,)))
            doubt = True
    except ValueError as e:   # torn by a power cut mid-commit, or damaged
        problems.append((NVS_BAD, "nvs: copy %s" % e))
    newest = store.seq if record is not None else 0
    note = None
    if copy is not None and copy[0] > newest and (saved is None or copy[0] >= saved):
        note = "state restored from its copy in NVS (record %d; the flash's newest: %s)" % (
            copy[0], newest or "none")
        record, newest = copy[1], copy[0]
    store.seq = max(store.seq, newest, saved or 0)
    if (saved is not None and newest < saved) or (
            record is None and (saved is not None or copy is not None or doubt)):
        return None, ("state lost: the badge saved record %s, the flash's newest is %s, "
                      "its copy in NVS %s: actions refused until an organiser's reset" % (
                          saved if saved is not None else "?", newest or "none",
                          copy[0] if copy is not None else "none")), True
    return record, note, False


def _read_copy(nvs):
    """-> (seq, payload) of the copy (OSError when NVS has none, ValueError when it is
    no record)."""
    buf = bytearray(_HEAD_BYTES)
    head = bytes(buf[:nvs.get_blob("head", buf)])
    try:
        length = int(head.split(b" ")[3])   # the body's, checked again by decode_record
    except (IndexError, ValueError):
        raise ValueError("head is not a record's") from None
    if not 0 <= length <= MAX_RECORD_BYTES:
        raise ValueError("head is not a record's")
    body = bytearray(length)
    try:
        got = nvs.get_blob("body", body)
    except OSError as e:
        if e.args[0] != _TOO_SMALL:
            raise
        raise ValueError("body longer than its head says") from None
    return decode_record(head + bytes(body[:got]))
