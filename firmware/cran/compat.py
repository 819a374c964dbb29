# What differs between the runtimes the firmware runs on - MicroPython on a badge (and
# its unix port in the tests), CPython on the desktop - found once, here. Every other
# module takes these names and never asks which runtime it is on.
import os
import sys

# Whether modules can be let go to take their bytecode back (forget, below) and names
# made ahead (cran.start.phases._make_names): a badge's heap holds its modules' code;
# CPython's does not, and a module imported again there makes new classes (`except
# ConfigError` would no longer match).
MICROPYTHON = sys.implementation.name == "micropython"

# The console's bytes: a text stdin raises on line noise that isn't UTF-8, inside
# readline. MicroPython's sys.stdin reads bytes already; CPython's has a byte stream
# under it. The echo is written as typed, bytes too. Read here at each use (compat.STDIN),
# so a harness gives the badge another console (a virtual UART) by setting these.
STDIN = getattr(sys.stdin, "buffer", sys.stdin)
STDOUT = getattr(sys.stdout, "buffer", sys.stdout)

# Rename over an existing file, atomically: MicroPython's os.rename does it on LittleFS;
# CPython's only on POSIX, so the desktop takes os.replace (absent on MicroPython).
replace = getattr(os, "replace", os.rename)


def sync(f):
    """A written file's bytes on the disk before what follows. LittleFS commits on
    close; a desktop OS needs fsync (absent on MicroPython) for the same promise."""
    f.flush()
    if hasattr(os, "fsync"):
        os.fsync(f.fileno())


def wake_flag():
    """What a scheduled callback (a button's IRQ) sets to wake the app's loop: a
    ThreadSafeFlag, set as safely from there as from a task, where the runtime has one
    (it clears itself as it wakes); else an asyncio.Event (cleared by the waiter)."""
    import asyncio
    maker = getattr(asyncio, "ThreadSafeFlag", None) or asyncio.Event
    return maker()


def forget(names):
    """Drop modules no longer used, so the GC can take their code back. Only where that
    is worth it: on MicroPython (on CPython a module imported again would make new
    classes, and `except ConfigError` elsewhere would no longer match)."""
    if not MICROPYTHON:
        return
    import gc
    for name in names:
        if sys.modules.pop(name, None) is not None:
            package, _, leaf = name.rpartition(".")
            parent = sys.modules.get(package)
            if parent is not None and leaf in dir(parent):
                delattr(parent, leaf)   # the import also made it an attribute there
    gc.collect()   # now, while the heap is young: the holes they leave are few and large


def missing(err):
    """Whether an OSError says the file is not there: ENOENT, the same number on
    LittleFS, FAT, Linux and Windows."""
    return bool(err.args) and err.args[0] == 2
