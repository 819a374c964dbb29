# cran: firmware of the GN effect badge.
# Importable by CPython (host tools, tests) and MicroPython (the badge).
import sys

VERSION = "0.1.0"

# Modules a badge needs only to start. On a badge every module imported is its bytecode
# in RAM (3-4 KB each in 32-bit), so they go as soon as they have served: the config's
# checker and the game settings' table before the app's modules load (the heap never
# holds both: that was the start's peak), the state's records read back (cran.restore)
# with their copy in NVS and the count of watchdog resets, before the app's modules
# load (the same), and the app's assembly and the wiring of its drivers (cran.parts)
# once the app is built.
_CONFIG_ONLY = ("cran.config", "cran.core.choices", "cran.core.words")
_RESTORE_ONLY = ("cran.restore", "cran.rescue", "cran.boots")
_BOOT_ONLY = ("cran.parts", "cran.lock")   # the lock: again with the console


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
    ValueError, naming the file and field), with the start-only modules let go."""
    _make_names(None)
    config = _checked_config(root)
    forget(_CONFIG_ONLY)
    _make_names(config)
    # The badge restored before the app's modules load: the start's peak is the app
    # and its start-only wiring, not also the reading of the records.
    restored = _restored(root, config)
    forget(_RESTORE_ONLY)
    from cran.app import App
    app = App(root, config, restored)
    forget(_BOOT_ONLY)
    return app


# The modules cran flash makes to make the badge's names (host_tools/build.py
# names_sources), and the board part each one's are for.
_NAMES = (("cran.names", None), ("cran.names_display", "display"),
          ("cran.names_buzzer", "buzzer"), ("cran.names_leds", "leds"),
          ("cran.names_radio", "radio"))


def _make_names(config):
    """Make every qstr the badge's modules will make as they load, now: with config None,
    those of every module but the parts' drivers and the radio's, first thing in an
    empty heap; with the config, those of its board's parts' drivers and, when its game
    has one, the radio's. A qstr is kept for good, its characters in
    chunks of 128 bytes, and when the pool that holds them is full the next one is a
    single block of twice its size (~9 KB on a badge). Made as modules load, the chunks
    sat between the modules' code as islands once the start-only code was let go, and
    the block, wanted by a module loaded later (a console action's grammar), had to be
    found in a heap as fragmented as that: it was not, with 20-70 KB free in smaller
    pieces (the bench's day). Made here, both lie together below everything else.
    Without those modules (the firmware run from source), nothing: names come as
    modules load."""
    if sys.implementation.name != "micropython":
        return
    import gc
    root = __file__[:-len("cran/__init__.mpy")]   # where the firmware is
    for module, part in _NAMES:
        if (part is None) != (config is None):
            continue
        if part is not None and (config.radio if part == "radio"
                                 else getattr(config.board, part)) is None:
            continue
        try:
            __import__(module)   # its names are made as it loads
        except ImportError:
            return
        for name in sys.modules[module].LATER.split(" "):
            getattr(gc, root + name if name.endswith(".mpy") else name, None)
        forget((module,))


def _restored(root, config):
    # A function of its own, as _checked_config: no name left in start()'s frame keeps
    # cran.restore alive once it is let go.
    from cran.restore import restored_badge
    return restored_badge(root, config)


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
