# The badge's start (start(), below), its package let go as one once the app is built:
# the config checked (config), the state restored (restore, records, rescue, boots),
# the app's parts made and wired (parts), each phase's code let go before the next
# loads.
import sys

from cran.compat import MICROPYTHON, forget

# On a badge every module imported is its bytecode in RAM (3-4 KB each in 32-bit), so
# they go as soon as they have served: the config's checker and the game settings'
# table before the app's modules load (the heap never holds both: that was the start's
# peak), the state's records read back with their copy in NVS and the count of
# watchdog resets before the app's modules load (the same), and the app's assembly and
# the wiring of its drivers once the app is built (the lock, loaded again with the
# console, and the radio's wiring and key making are let go by parts.build as soon
# as they have served; named here too for a start that failed half-way), with the
# StickC's power chip's code, which lit its screen once.
_CONFIG_ONLY = ("cran.config", "cran.core.choices", "cran.core.words")
_RESTORE_ONLY = ("cran.start.restore", "cran.records", "cran.start.rescue",
                 "cran.boots")
_BOOT_ONLY = ("cran.start.parts", "cran.lock", "cran.radio.start", "cran.auth",
              "cran.hal.axp192", "cran.hal.ssd1306", "cran.hal.st7789")
# This package's modules but this one, named: a badge has them under other names
# (host_tools/build.py flattened), and no package.
_START_ONLY = ("cran.start.parts", "cran.start.rescue", "cran.start.restore",
               "cran.start.screen")


# The GC's rhythm, from the start on: a collection after every _COLLECT_EVERY bytes
# allocated, not only when the heap is full. MicroPython allocates first-fit from the
# lowest free block, so between two collections all that is made lands in one run up
# the free heap: a long run strews the few objects that stay (a new state, a frame, a
# radio sender's counter) through a heap's worth of garbage, and once that is collected
# they are islands that cut the free heap into pieces too small for a save's 500 bytes.
# Short runs keep them low and the top of the heap whole: with the radio, the Atom
# Lite's 12-hour day lived in 84 KB without it and 76 with it, the DevKitC's in 93 and
# 88 (2048 bytes won 1 KB more on the Atom for twice the collections, 8192 2 KB less).
_COLLECT_EVERY = 4096


def start(root, once=False):
    """The app built from root/config.json and its board file (ConfigError, a
    ValueError, naming the file and field), the start-only modules let go as it goes,
    this one last: its code is a badge's RAM, and after the start no one calls it.
    once: the boot's only start (cran.run.main's): the constructors of what it made
    the one object of go too (_let_constructors_go), so that no start can follow it
    in this interpreter (a chip's next boot is a new one)."""
    try:
        if MICROPYTHON:
            import gc
            gc.threshold(_COLLECT_EVERY)
        _make_names(None)
        config = _checked_config(root)
        _let_go(_CONFIG_ONLY)
        _make_names(config)
        # The badge restored before the app's modules load: the start's peak is the app
        # and its start-only wiring, not also the reading of the records.
        restored = _restored(root, config)
        _let_go(_RESTORE_ONLY)
        from cran.start.parts import build
        app = build(root, config, restored)
        _let_go(_BOOT_ONLY)
        if once and MICROPYTHON:
            _let_constructors_go(app)
        return app
    finally:   # the package and what of it is still in, this module last: popped, not
        # emptied (a caller may hold start() for the next boot, as the test drivers do).
        # (On a badge the package is no module: build.flattened.)
        _let_go(_START_ONLY + (__name__.rpartition(".")[0],))
        forget((__name__,))


def _let_go(names):
    """forget(names), each module emptied first. The GC takes any word it finds on the
    C stack for a pointer, and a stale one there that points at a start-only module, or
    at one of its functions (whose globals are the module's), kept the whole module
    alive after boot with its every function and constant: the Atom Lite's radio day
    had 79.4 KB after boot or 75.4 with the same firmware, as a 32-byte object of the
    runner moved what the stack held. Emptied, only what such a word points at stays.
    Only for modules nothing calls after the start: a function of theirs kept
    elsewhere would find its globals gone."""
    if MICROPYTHON:
        for name in names:
            module = sys.modules.get(name)
            if module is not None:
                module.__dict__.clear()
    forget(names)


def _let_constructors_go(app):
    """The constructors of what the start made the one object of, let go with its own
    code (~2 KB of bytecode with the radio's): the app, the badge, its store and
    journal, the menu, the drivers and the radio's parts. Not the character's and
    settings' (a radio's reset checks a new character with cran.config), nor what the
    running badge makes again (a State, a Buzzer, NvmBoots). Found from the objects,
    not named: a name is RAM for good, and a board would make those of every other
    board's drivers. Set to None, not deleted: MicroPython keeps a deleted class
    attribute's value in the class's table, and the function with it."""
    badge, link = app.badge, app.link
    made = [app, badge, badge.store, badge.journal, app.menu, app.leds,
            app.screen] + app.buttons
    if link is not None:
        made += [link.air, link.keys, link.listener, link.counter, link.chain]
    for thing in made:
        if thing is not None:
            type(thing).__init__ = None


# The modules cran flash makes to make the badge's names (host_tools/build.py
# names_sources), and the board part each one's are for: a screen's driver's, by its
# kind (a board makes its own screen's, not every kind's).
_NAMES = (("cran.names", None), ("cran.names_display", "display"),
          ("cran.names_ssd1306", "ssd1306"), ("cran.names_st7789", "st7789"),
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
    if not MICROPYTHON:
        return
    import gc
    root = __file__[:-len(__name__.replace(".", "/") + ".mpy")]   # where the firmware is
    for module, part in _NAMES:
        if (part is None) != (config is None):
            continue
        if part is not None and not _has(config, part):
            continue
        try:
            __import__(module)   # its names are made as it loads
        except ImportError:
            return
        for name in sys.modules[module].LATER.split(" "):
            getattr(gc, root + name if name.endswith(".mpy") else name, None)
        _let_go((module,))


def _has(config, part):
    if part == "radio":
        return config.radio is not None
    screen = config.board.display
    if part in ("ssd1306", "st7789"):
        return screen is not None and screen["kind"] == part
    return getattr(config.board, part) is not None


def _restored(root, config):
    # A function of its own, as _checked_config: no name left in start()'s frame keeps
    # cran.start.restore alive once it is let go.
    from cran.start.restore import restored_badge
    return restored_badge(root, config)


def _checked_config(root):
    from cran.config import load
    return load(root)
