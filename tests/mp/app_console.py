# cran.app.main() on the virtual hardware with its console on the real stdin, as
# `micropython main.py` on a desktop: the board's own pull resistors set first.
#   micropython app_console.py FIRMWARE_DIR VHW_DIR EXTRA_DIR ROOT BOARD_FILE
import json
import sys

sys.path[:0] = [sys.argv[2], sys.argv[3], sys.argv[1]]

import world  # noqa: E402

from cran import app  # noqa: E402

with open(sys.argv[5]) as f:
    world.wire(json.load(f), i2c=False)
app.main(sys.argv[4])
