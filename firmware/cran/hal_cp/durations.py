# The longest a CircuitPython badge counts: its clock (supervisor.ticks_ms) wraps at
# 2**29 ms, and a deadline is read right only within half of that, 2**28 ms (74.5
# hours); MicroPython's 2**30 counts every duration a config may hold (149 hours,
# cran.core.choices.MAX_DURATION_MS). cran.config checks a CircuitPython board's config
# with it, on the host as on the badge. Here, not there: a MicroPython badge never
# loads this module, nor keeps its strings.
LONGEST_MS = (1 << 28) - 1


def check(character, settings):
    """ValueError("FIELD: PROBLEM") for the first duration of character and settings
    (checked otherwise) past LONGEST_MS: the caller names the file (cran.config, which
    this module imports nothing of)."""
    from cran.core.choices import FIELDS
    found = [("character." + n, getattr(character, n)) for n in ("agonisant_ms", "coma_ms")]
    found += [("settings." + n, getattr(settings, n)) for n in sorted(FIELDS)
              if FIELDS[n][1] == "duration"]
    for field, ms in found:
        if ms is not None and ms > LONGEST_MS:
            raise ValueError("%s: %d ms (%.1f hours) is longer than a CircuitPython "
                             "badge can count: 74 hours at most (its clock, supervisor."
                             "ticks_ms, wraps at 2**29 ms)" % (field, ms, ms / 3600000))
