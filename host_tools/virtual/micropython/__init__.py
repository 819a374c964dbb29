# MicroPython's ESP32 modules, virtual (the virtual hardware: machine, esp32, neopixel,
# network, espnow, time... on a virtual clock): this folder goes FIRST on the path of the
# interpreter running the firmware, so that it imports them under those bare names
# instead of the port's built-ins. mponly/: MicroPython alone; cpython/: CPython
# standing in for MicroPython.
import os

VHW_DIR = os.path.dirname(os.path.abspath(__file__))


def sys_path(runtime):
    """The folders to put first on sys.path, in order, for 'micropython' or 'cpython'.
    mponly/ shadows `select` for MicroPython's asyncio; cpython/ adds `micropython` and
    `framebuf`, which CPython lacks. On CPython also call vclock.patch_cpython_time()."""
    extra = "mponly" if runtime == "micropython" else "cpython"
    return [VHW_DIR, os.path.join(VHW_DIR, extra)]
