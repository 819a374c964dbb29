# The virtual badge: the firmware off a badge, in one package whose folders say where
# each part runs.
# - Here, in CPython (the host, the `cran` command): the interpreters that run the
#   firmware (MicroPython, CPython, CircuitPython) and the boards they stand for
#   (runtimes.py), a virtual badge behind a pty (vbadge.py, registry.py), the battery
#   estimate from what the virtual parts counted (power.py) and what the stock ESP32
#   image holds that the virtual parts don't (esp32image.py).
# - micropython/: MicroPython's ESP32 modules, virtual (machine, esp32, neopixel, time,
#   network, espnow... on a virtual clock), run inside MicroPython under those bare names,
#   the folder first on its path (micropython.sys_path); mponly/ beside them for
#   MicroPython alone, cpython/ for CPython standing in for MicroPython.
# - circuitpython/: CircuitPython's board modules, virtual (board, digitalio, pwmio,
#   microcontroller...), run inside CircuitPython under those bare names.
# - scripts/: the programs the host starts an interpreter on (SCRIPTS_DIR): the virtual
#   chips' boots (MicroPython's unix port; cpbadge_boot.py CircuitPython's), the drivers
#   of `cran scenario` and `cran sim` (MicroPython, CPython or CircuitPython, the firmware's
#   runtime), chip_harness.py (the real MicroPython image, in QEMU) and lfs_image.py.
import os

SCRIPTS_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "scripts")
