# cran.run.main() on the virtual hardware, console on stdin (its echo on stderr), then what
# the hardware shows:
#   micropython app_main.py FIRMWARE_DIR VHW_DIR EXTRA_DIR ROOT
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

started = cran.run.main(sys.argv[4])
strips = dict((pin, [list(c) for c in np.last or ()]) for pin, np in neopixel._strips.items())
print(json.dumps({"started": started is not None, "strips": strips,
                  "watchdog": [a for a in vclock._alarms if isinstance(a, machine.WDT)] != []}))
