# cran.run.main() on the virtual hardware, console on stdin (its echo on stderr), then what
# the hardware shows:
#   micropython app_main.py FIRMWARE_DIR VHW_DIR EXTRA_DIR ROOT [BOARD_FILE]
# BOARD_FILE: its pull resistors set first (a badge that starts needs them).
import json
import sys

sys.path[:0] = [sys.argv[2], sys.argv[3], sys.argv[1]]

import machine  # noqa: E402
import neopixel  # noqa: E402
import vclock  # noqa: E402

import cran.compat  # noqa: E402
import cran.run  # noqa: E402

# The console's echo of what is typed goes to stderr: stdout holds its answers alone.
cran.compat.STDOUT = sys.stderr.buffer

if sys.argv[5:]:
    import world
    with open(sys.argv[5]) as f:
        world.wire(json.load(f), i2c=False)
started = cran.run.main(sys.argv[4])
strips = dict((pin, [list(c) for c in np.last or ()]) for pin, np in neopixel._strips.items())
# cran.run.main let the app's constructor go once it had made the app (None: see there).
print(json.dumps({"started": started is not None, "strips": strips,
                  "constructor": None if started is None else (
                      "let go" if type(started).__init__ is None else "kept"),
                  "watchdog": [a for a in vclock._alarms if isinstance(a, machine.WDT)] != []}))
