# cran: firmware of the GN effect badge.
# Importable by CPython (host tools, tests) and MicroPython (the badge).
import sys

from cran.compat import MICROPYTHON

VERSION = "0.1.0"


def main(root="/", console=True):
    """Start the badge from root/config.json. A config or board file that is missing or
    wrong: one console message, the error cue, then the console answers - no reboot."""
    import asyncio
    import time

    import machine
    import micropython
    # First of all: until the app has read the game key (cran.lock), Ctrl-C is a byte.
    micropython.kbd_intr(-1)
    try:
        app = start(root)
    except (ValueError, OSError) as e:   # ConfigError is a ValueError
        from cran import fail  # only a badge that can't start loads it
        message = str(e)
        print("cran: cannot start: %s" % message)
        fail.cannot_start(message, root, console)
        return None
    try:
        asyncio.run(app.run(console))
    except BaseException as e:   # KeyboardInterrupt too
        if app.console_open(time.ticks_ms()):
            raise   # an organiser's Ctrl-C, or a badge without a key: the REPL
        # A locked badge never leaves a player at the REPL: it comes back as saved.
        app.badge.log({"error": "the app ended: %r" % (e,)})
        machine.reset()
    return app


def start(root):
    """The app built from root/config.json and its board file (ConfigError, a
    ValueError, naming the file and field), with the start-only modules let go -
    cran.startup too, which does it: its code is a badge's RAM, and after the start no
    one calls it again."""
    from cran.startup import start_app
    try:
        return start_app(root)
    finally:
        forget(("cran.startup",))


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
