# main.py's check of the firmware, kept as source as main.py is (cran flash copies it as
# it is, before main.py): every firmware file against the manifest cran flash wrote,
# before any of them is imported, and what a badge whose firmware is damaged says. Apart
# from main.py because main.py's code stays in the heap all day (its frame runs the
# app): this module is let go once it has answered.


def damaged(manifest):
    """-> (the firmware files that are missing or not as cran flash wrote them, the
    files the can't-start path needs when there are any, else None), or None without a
    manifest (set up by hand)."""
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
    # pointer, and a stale one to the manifest kept all of it (6.5-11 KB) all day; the
    # can't-start path's files (~0.6 KB) kept only for a firmware that can't start.
    fail = made.get("fail_needs")
    fail = fail if isinstance(fail, list) else []   # (a manifest edited by hand)
    needs = fail[:] if bad else None
    fail.clear()
    paths.clear()
    files.clear()
    made.clear()
    return bad, needs


def cannot_start(bad, needs):
    """A damaged firmware (damaged's answer: bad, needs) said, and shown by the
    can't-start path (the error cue, the journal, its locked console) when the files
    that path needs are whole. -> whether they are."""
    message = "firmware %s (reflash: cran flash)" % ", ".join(bad)
    print("cran: cannot start: %s" % message)
    whole = not [b for b in bad if b.split(":")[0] in needs]
    if whole:
        __import__("cran.fail", None, None, ("cannot_start",)).cannot_start(
            message, "/")
    return whole
