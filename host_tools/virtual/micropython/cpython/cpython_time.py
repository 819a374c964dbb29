# CPython's `time`, given MicroPython's tick functions (vclock.patch_cpython_time()): it is
# built in there, and no time.py on sys.path shadows it. Imported here, in a folder on
# CPython's path alone, `time` is that built-in one; imported in vclock.py, the name would
# be micropython/time.py under MicroPython, which imports vclock.
import time


def add(**functions):
    for name, fn in functions.items():
        setattr(time, name, fn)
