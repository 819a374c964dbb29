# cran: firmware of the GN effect badge.
# Importable by CPython (host tools, tests) and MicroPython (the badge).
import sys

VERSION = "0.1.0"

# Modules a badge needs only to start. On a badge every module imported is its bytecode
# in RAM (3-4 KB each in 32-bit), so they go as soon as they have served: the config's
# checker and the game settings' table before the app's modules load (the heap never
# holds both: that was the start's peak), the count of watchdog resets and the wiring
# of drivers once the app is built.
_CONFIG_ONLY = ("cran.config", "cran.core.choices")
_BOOT_ONLY = ("cran.parts", "cran.boots")


def main(root="/", console=True):
    """Start the badge from root/config.json. A config or board file that is missing or
    wrong: one console message, the error cue, then the console answers - no reboot."""
    import asyncio
    try:
        app = start(root)
    except (ValueError, OSError) as e:   # ConfigError is a ValueError
        from cran import fail  # only a badge that can't start loads it
        message = str(e)
        print("cran: cannot start: %s" % message)
        fail.error_cue(root)
        if console:
            asyncio.run(fail.error_console(message))
        return None
    asyncio.run(app.run(console))
    return app


def start(root):
    """The app built from root/config.json and its board file (ConfigError, a
    ValueError, naming the file and field), with the start-only modules let go."""
    config = _checked_config(root)
    forget(_CONFIG_ONLY)
    from cran.app import App
    app = App(root, config)
    forget(_BOOT_ONLY)
    return app


def _checked_config(root):
    from cran.config import load
    return load(root)


def forget(names):
    """Drop modules no longer used, so the GC can take their code back. Only where that
    is worth it: on MicroPython (on CPython a module imported again would make new
    classes, and `except ConfigError` elsewhere would no longer match)."""
    if sys.implementation.name != "micropython":
        return
    import gc
    for name in names:
        if sys.modules.pop(name, None) is not None:
            package, _, leaf = name.rpartition(".")
            parent = sys.modules.get(package)
            if parent is not None and leaf in dir(parent):
                delattr(parent, leaf)   # the import also made it an attribute there
    gc.collect()   # now, while the heap is young: the holes they leave are few and large
