# Virtual hardware: folders that go FIRST on sys.path so the real firmware imports these
# `machine`, `neopixel`, `time` (MicroPython) and friends instead of the built-ins.
import os

VHW_DIR = os.path.dirname(os.path.abspath(__file__))


def sys_path(runtime):
    """The folders to put first on sys.path, in order, for 'micropython' or 'cpython'.
    mponly/ shadows `select` for MicroPython's asyncio; cpython/ adds `micropython` and
    `framebuf`, which CPython lacks. On CPython also call vclock.patch_cpython_time()."""
    extra = "mponly" if runtime == "micropython" else "cpython"
    return [VHW_DIR, os.path.join(VHW_DIR, extra)]
