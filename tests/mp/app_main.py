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
# cran.run.main let go of the constructors of what its start made once (the app, the
# badge, its store and journal, the menu, the drivers): those still there.
made = [] if started is None else [started, started.badge, started.badge.store,
                                   started.badge.journal, started.menu,
                                   started.leds] + started.buttons
print(json.dumps({"started": started is not None, "strips": strips,
                  "constructors_kept": sorted(type(m).__name__ for m in made
                                              if type(m).__init__ is not None),
                  "watchdog": [a for a in vclock._alarms if isinstance(a, machine.WDT)] != []}))
