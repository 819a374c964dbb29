# Well-formed UTF-8, as CPython's decode() reads it: MicroPython's also takes overlong
# forms, surrogates and code points past U+10FFFF. Loaded for text beyond ASCII only (a
# console line, config.json), and let go after: a badge keeps only what the desktop reads.


def well_formed(raw):
    """True when bytes that decode() took are well-formed UTF-8. MicroPython's decode()
    also takes overlong forms, surrogates and code points past U+10FFFF, which CPython's
    refuses: those are refused here too (Unicode's table 3-7), so a badge keeps only
    what the desktop reads."""
    i = 0
    n = len(raw)
    while i < n:
        b = raw[i]
        i += 1
        if b < 0x80:
            continue
        if b < 0xc2 or b > 0xf4:
            return False
        more = 1 if b < 0xe0 else 2 if b < 0xf0 else 3
        low = 0xa0 if b == 0xe0 else 0x90 if b == 0xf0 else 0x80
        high = 0x9f if b == 0xed else 0x8f if b == 0xf4 else 0xbf
        if i + more > n or not low <= raw[i] <= high:
            return False
        for j in range(i + 1, i + more):
            if not 0x80 <= raw[j] <= 0xbf:
                return False
        i += more
    return True
