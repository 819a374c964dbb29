# The Adafruit libraries the CircuitPython build runs (neopixel, adafruit_pixelbuf,
# asyncio, adafruit_ticks), taken from the installed PyPI packages: their own .py files,
# as a CIRCUITPY drive's lib/ folder holds them (cran flash --drive) and as the tests
# give them to the CircuitPython interpreter. Not their dependency Adafruit-Blinka,
# which is CircuitPython's API for CPython: a board has the real one.
import os
import shutil
from importlib import metadata

from host_tools import CommandError

DISTRIBUTIONS = ("adafruit-circuitpython-neopixel", "adafruit-circuitpython-pixelbuf",
                 "adafruit-circuitpython-asyncio", "adafruit-circuitpython-ticks")


def library_files():
    """-> {path in lib/ ("neopixel.py", "asyncio/core.py"): the installed file}."""
    out = {}
    for name in DISTRIBUTIONS:
        try:
            dist = metadata.distribution(name)
        except metadata.PackageNotFoundError:
            raise CommandError("%s is not installed: the CircuitPython build needs it "
                               "(pip install -e .[dev], or make install)" % name) from None
        for entry in dist.files or ():
            path = str(entry).replace(os.sep, "/")
            if path.endswith(".py") and ".dist-info/" not in path:
                out[path] = str(entry.locate())
    return dict(sorted(out.items()))


def copy_libraries(lib_dir):
    """The libraries' files into lib_dir (made if missing), as lib/ on a drive."""
    for rel, src in library_files().items():
        dest = os.path.join(lib_dir, *rel.split("/"))
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        shutil.copyfile(src, dest)
