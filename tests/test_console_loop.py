# The console as a chip runs it: the badge started by its own main.py, its console
# lines typed byte by byte on its UART and read by App.console_loop
# (host_tools/virtual/scripts/badge_driver.py). What the console takes of the heap is given back a
# quiet minute after its last line: the loop must not hold it while it waits for the
# next byte.
import os
import re

from host_tools import FIRMWARE_DIR
from host_tools.virtual.runtimes import badge_job, run_badge_jobs


def _app_constant(name):
    with open(os.path.join(FIRMWARE_DIR, "cran", "app.py"), encoding="utf-8") as f:
        return int(re.search(r"^%s = (\d+)$" % name, f.read(), re.M).group(1))


def test_a_quiet_minute_after_a_console_line_gives_the_consoles_heap_back(micropython):
    # The live heap after boot, just after an organiser's `status`, and once the console
    # has been quiet a minute (cran.app.CONSOLE_QUIET_MS; the show loop sleeps at most
    # MAX_SLEEP_MS, so the minute is seen that much later at most). The console loop's
    # own frame kept the console (and its module's every function) all day: +6.8 KB here,
    # 4.4 KB in 32-bit.
    quiet = _app_constant("CONSOLE_QUIET_MS") + _app_constant("MAX_SLEEP_MS")
    for board in ("atom-lite", "m5stickc-plus"):
        job = badge_job(board, "")
        job["steps"] = [[0, 0, "mem"], [0, 1000, "line", "status"], [0, 2000, "mem"],
                        [0, 2000 + quiet, "mem"]]
        [events] = run_badge_jobs([job], mpy=True)
        assert not isinstance(events, str), events
        boot, line, after = [e[2] for e in events if e[0] == "mem"]
        assert line - boot > 4096, (board, boot, line)   # the console was loaded by it
        # What stays: ~0.6 KB the first `status` leaves (a journal look's, not the
        # console's).
        assert after - boot < 1536, (board, boot, line, after)
