# The badge's entry point, kept as source (cran flash copies it as it is, last). Before
# anything else: Ctrl-C is a byte (cran.lock opens it to the organisers), and the
# watchdog runs, so a firmware file damaged into a hang at its import resets the badge
# rather than leaving it dead. Then every firmware file is checked against the manifest
# cran flash wrote: a damaged firmware is named and shown, and never imported.
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
            made = json.loads(f.read())
        files = made["files"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    bad = []
    chunk = bytearray(512)
    for path in sorted(files):
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
    return bad, made.get("fail_needs", [])


_found = _damaged("/firmware.json")
del _damaged
if not _found or not _found[0]:
    del _found   # (the can't-start path's list of files, ~0.6 KB: the app runs from here on)
    __import__("cran.run", None, None, ("main",)).main()
else:
    _message = "firmware %s (reflash: cran flash)" % ", ".join(_found[0])
    print("cran: cannot start: %s" % _message)
    if not [b for b in _found[0] if b.split(":")[0] in _found[1]]:
        # The can't-start path is whole: the error cue, the journal, its console.
        __import__("cran.fail").fail.cannot_start(_message, "/")
    # Else the REPL: the watchdog resets the badge, which says it again at each boot.
