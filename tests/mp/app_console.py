# cran.run.main() on the virtual hardware with its console on the real stdin, as
# `micropython main.py` on a desktop: the board's own pull resistors set first.
#   micropython app_console.py FIRMWARE_DIR VHW_DIR EXTRA_DIR ROOT BOARD_FILE [faulty]
# faulty: the console has a bug, and raises on the line "boom". The echo of what is
# typed goes to stderr.
import json
import sys

sys.path[:0] = [sys.argv[2], sys.argv[3], sys.argv[1]]

import world  # noqa: E402

import cran.app  # noqa: E402
import cran.compat  # noqa: E402
import cran.run  # noqa: E402
from cran import console  # noqa: E402

# The console's echo of what is typed goes to stderr: stdout holds its answers alone.
cran.compat.STDOUT = sys.stderr.buffer

if sys.argv[6:] == ["faulty"]:
    handle = console.Console.handle

    def faulty(self, line, now):
        if line.strip() == "boom":
            raise ZeroDivisionError("a bug")
        return handle(self, line, now)
    console.Console.handle = faulty

with open(sys.argv[5]) as f:
    world.wire(json.load(f), i2c=False)
cran.run.main(sys.argv[4])
