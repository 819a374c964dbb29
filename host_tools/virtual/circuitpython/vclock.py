# The virtual clock of every virtual badge, host_tools/virtual/micropython/vclock.py, run
# here as this module: the CircuitPython interpreter's path has this folder and not
# micropython/, whose other modules (machine, neopixel, time) are MicroPython's.
_VHW = __file__.rsplit("/", 2)[0] + "/micropython/"

with open(_VHW + "vclock.py") as _f:
    exec(_f.read())


def vhw_module(name):
    """Another of micropython/'s modules that serves both runtimes (world: a badge's flash folder
    as cran flash lays it out), loaded from there: an object with its names."""
    names = {}
    with open(_VHW + name + ".py") as f:
        exec(f.read(), names)

    class Module:
        pass
    for key, value in names.items():
        setattr(Module, key, value)
    return Module
