# The badge's entry point, kept as source (cran flash copies it as it is, last). Before
# anything else: Ctrl-C is a byte (cran.lock opens it to the organisers), and the
# watchdog runs, so a firmware file damaged into a hang at its import resets the badge
# rather than leaving it dead. Then every firmware file is checked against the manifest
# cran flash wrote: a damaged firmware is named and shown, and never imported. It ends
# at the REPL with the game key on the flash only by an organiser's Ctrl-C.
import micropython

micropython.kbd_intr(-1)
import machine  # noqa: E402

machine.WDT(timeout=45000)   # cran.app.WDT_TIMEOUT_MS, which feeds it from then on


def _damaged(manifest):
    """-> (the firmware files that are missing or not as cran flash wrote them, the
    files the can't-start path needs), or None without a manifest (set up by hand)."""
    import binascii
    import hashlib
    import json
    try:
        with open(manifest) as f:
            made = json.load(f)   # read as parsed: no copy of its text (~7 KB) made
        files = made["files"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    bad = []
    chunk = bytearray(512)
    paths = sorted(files)
    for path in paths:
        digest = hashlib.sha256()
        try:
            with open(path, "rb") as f:
                while True:
                    n = f.readinto(chunk)
                    if not n:
                        break
                    digest.update(memoryview(chunk)[:n])
        except OSError:
            bad.append(path + ": missing")
            continue
        if binascii.hexlify(digest.digest()).decode() != files[path]:
            bad.append(path + ": damaged")
    # Emptied before the badge starts: the GC reads every word of the chip's stack as a
    # pointer, and a stale one to the manifest kept all of it (6.5-11 KB) all day.
    needs = made.get("fail_needs", [])
    paths.clear()
    files.clear()
    made.clear()
    return bad, needs


_whole = True   # the can't-start path, as the manifest found it (a damaged one may hang)
try:
    _found = _damaged("/firmware.json")
    del _damaged
    if not _found or not _found[0]:
        del _found   # (the can't-start path's list of files, ~0.6 KB: the app runs from here)
        __import__("cran.run", None, None, ("main",)).main()
    else:
        _message = "firmware %s (reflash: cran flash)" % ", ".join(_found[0])
        print("cran: cannot start: %s" % _message)
        _whole = not [b for b in _found[0] if b.split(":")[0] in _found[1]]
        if _whole:   # the error cue, the journal, its console
            __import__("cran.fail").fail.cannot_start(_message, "/")
except Exception as e:   # (not KeyboardInterrupt: Ctrl-C is on only while the console is open)
    # What cran.run.main let out (a MemoryError in its own can't-start path, a crash
    # while an organiser had the console), or a cran.run that can't be imported: the
    # can't-start path's locked console, if it can run.
    if _whole:
        try:
            __import__("cran.fail").fail.cannot_start("%r" % (e,), "/")
        except Exception:
            pass
# The badge can't run even that: its REPL, for cran flash to mend it (the watchdog
# resets the badge, which says it again at each boot), but never with the game key,
# which goes first (cran flash writes it again). A key that won't go: a reset.
_gone = False
try:
    try:
        __import__("os").remove("/game.key")
    except OSError:
        pass   # none there (a badge without a key), or a flash that refuses: seen below
    open("/game.key").close()
except OSError:
    _gone = True
finally:
    if not _gone:
        machine.reset()
