# The badge's names (qstrs), made as its start makes them (cran.start.phases._make_names),
# for the runner's measures of the badge's heap. A name is kept for good: its characters
# in chunks, its entry in a pool, and a full pool's next one is one block of twice its
# size. The runner makes ~580 names of its own before the badge starts (the virtual
# hardware, the driver), so the badge's names fell into the runner's big late pools:
# a step of ~9 KB where a badge, whose names come first after its frozen modules',
# takes none. So the runner makes the badge's names first, in its own share, and the
# badge is charged what their characters weigh made alone in a fresh interpreter (run as
# a script: python badgenames.py FIRMWARE MAIN_PY MODULE... < JSON LIST OF THE CHIP'S
# OWN NAMES -> {"names": bytes}), and the pools that hold them as its chip makes them
# (host_tools.virtual.esp32image.names_pools).
import gc
import sys

# The modules cran flash makes to make the badge's names (host_tools/build.py
# names_sources); cran.start loads those of its board's parts and game.
MODULES = ("cran.names", "cran.names_display", "cran.names_ssd1306", "cran.names_st7789",
           "cran.names_buzzer", "cran.names_leds", "cran.names_radio")


def make(modules=MODULES, root=None, main=None):
    """Make the names of `modules` as cran.start does, then forget the modules (and
    the cran package) so that the badge loads them as its own. root: where the modules'
    files are as the badge finds them ("" for a chip's files, run from its root; None:
    where they are found here), a prefix of the paths that are names. main: the badge's
    main.py, whose names its chip makes first, compiling it, then those of the check it
    imports (firmware_check.py, beside it). -> the modules made (none for a firmware run
    from source, which has no names modules)."""
    if main is not None:
        check = main[:-len("main.py")] + "firmware_check.py"
        for path, name in ((main, "main.py"), (check, "firmware_check.py")):
            try:
                with open(path) as f:
                    compile(f.read(), name, "exec")   # its names made, the code dropped
            except OSError:
                pass
    made = []
    for module in modules:
        try:
            __import__(module)
        except ImportError:
            continue
        names = sys.modules[module]
        here = root
        if here is None:
            here = names.__file__[:-len(module.replace(".", "/") + ".mpy")]
        for name in names.LATER.split(" "):
            getattr(gc, here + name if name.endswith(".mpy") else name, None)
        del sys.modules[module]
        made.append(module)
    sys.modules.pop("cran", None)
    return made


def weigh(modules, chip_names, root=None, main=None):
    """Heap bytes the characters of the names of `modules` (and main.py's) keep, made in
    this interpreter after the chip's own: chip_names, the names of the badge's that its
    MicroPython image holds in flash (host_tools.virtual.esp32image), made first here
    where this port lacks them, as they cost a badge nothing. Their pools are not
    weighed here: this port's own names come before them, and a chip's pools are not
    where this port's fall (esp32image.names_pools counts a chip's)."""
    for name in chip_names:
        getattr(gc, name, None)
    chip_names = None
    _room()
    gc.collect()
    before = gc.mem_alloc()
    make(modules, root, main)
    gc.collect()
    return gc.mem_alloc() - before


def _room():
    """Names made, none of the badge's, until a pool of names is taken with room for
    any badge's (a block of 32 KB or more): the names weighed next take no new pool."""
    i = 0
    last = gc.mem_alloc()
    while True:
        getattr(gc, "\x01%d" % i, None)
        i += 1
        now = gc.mem_alloc()
        if now - last > 32768:
            return
        last = now


if __name__ == "__main__":
    import json
    firmware = sys.argv[1]
    root = ""   # a folder: run from, as a chip runs its files from its root
    if firmware.endswith(".romfs"):   # as badge_driver.py mounts it: names read in place
        import vfs
        with open(firmware, "rb") as f:
            rom = f.read()
        vfs.mount(vfs.VfsRom(memoryview(rom)), "/rom")
        firmware, root = "/rom", None
    sys.path.insert(0, firmware)
    own = json.loads(sys.stdin.read() or "[]")
    print(json.dumps({"names": weigh(sys.argv[3:], own, root, sys.argv[2])}))
