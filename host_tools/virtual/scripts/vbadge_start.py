# Where a `cran vbadge` chip starts (host_tools/virtual/vbadge.py runs it): Ctrl-C off
# first, as in an ESP32's C start, which keeps it a byte until MicroPython runs its first
# file. The unix port compiles the script it is given with Ctrl-C on: this one is two
# statements, and vbadge_boot.py (the chip's boot, 14 KB) is compiled by its import with
# Ctrl-C off. vbadge_boot.py turns it on where a chip has it on.
import micropython

micropython.kbd_intr(-1)
import vbadge_boot  # noqa: E402

try:
    vbadge_boot.main()
except KeyboardInterrupt:
    pass   # Ctrl-C before main.py ran: the boot stops here, as a board's goes to its REPL
