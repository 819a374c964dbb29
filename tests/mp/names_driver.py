# The names (qstrs) a badge makes, inside the MicroPython unix port, with the firmware as
# .mpy and the modules that make its names, as cran flash installs them
# (host_tools/build.py names_sources):
# every qstr is made by cran.start.phases.start, none later, whatever the console is sent.
#   micropython names_driver.py FIRMWARE_DIR BOARDS_DIR FLASH_DIR BOARD CONFIG_JSON VHW...
# Prints each of after_boot, after_lazy, after_lines followed by micropython.qstr_info's
# line, then a JSON line: the first answers to the lines sent. Before: every name in RAM
# before the start and after it (micropython.qstr_info(1)'s "Q(name)" lines), between
# the lines "names_before", "names_after" and "names_end".
import json
import sys

sys.path[:0] = sys.argv[6:] + [sys.argv[1]]

# neopixel, select, time and vtasks: what a chip has built in or frozen, here virtual
# parts in Python, imported before the start: the names they make are not the badge's.
import select  # noqa: E402, F401
import time  # noqa: E402, F401

import machine  # noqa: E402
import micropython  # noqa: E402
import neopixel  # noqa: E402, F401
import vclock  # noqa: E402
import vtasks  # noqa: E402, F401
import world  # noqa: E402


def qstrs(when):
    """The interpreter's count of qstrs, as micropython.qstr_info prints it (this port
    prints it to stdout, which can't be caught here), after a line naming when."""
    print(when)
    micropython.qstr_info()


def utf8(code):
    """One character's UTF-8 bytes, made from its number: chr() would make it a qstr."""
    if code < 0x800:
        return bytes([0xC0 | code >> 6, 0x80 | code & 0x3F])
    return bytes([0xE0 | code >> 12, 0x80 | (code >> 6) & 0x3F, 0x80 | code & 0x3F])


vclock.start(0)
machine.reset_all()
root = sys.argv[3] + "/badge"
world.wire(world.make_root(root, sys.argv[2], sys.argv[4], json.loads(sys.argv[5])),
           i2c=True)
from cran.compat import forget  # noqa: E402
from cran.start.phases import start  # noqa: E402

getattr(micropython, "run_pending", None)   # (the virtual clock looks it up by its name)
print("names_before")
micropython.qstr_info(1)
app = start(root)
print("names_after")
micropython.qstr_info(1)
print("names_end")
qstrs("after_boot")
# What a console action, a challenge, a line beyond ASCII, a journal's read and an open
# menu load (and its words, on a screen).
lazy = ("cran.core.words", "cran.auth", "cran.utf8", "cran.readback", "cran.menutree") + (
    ("cran.menuwords",) if app.screen is not None else ())
for name in lazy:
    __import__(name)
forget(lazy)
qstrs("after_lazy")
from cran.console import text_of  # noqa: E402

answers = []
for first in range(0x4E00, 0x4E00 + 600, 60):
    # Lines of characters never seen: as a word, an action's target, a bad command,
    # rubbed out by backspaces.
    chars = b"".join(utf8(c) for c in range(first, first + 60))
    for raw in (chars, b"brise " + chars, b"coup " + chars, chars + b"\x08\x08 status",
                b"effet \xc3\xa9" + chars[:30]):
        text = text_of(raw)
        answers.append(app.line(text, vclock.ticks_ms())[0][:40])
qstrs("after_lines")
print(json.dumps(answers[:5]))
