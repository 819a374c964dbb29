# The Adafruit libraries the CircuitPython build runs (neopixel, adafruit_pixelbuf,
# asyncio, adafruit_ticks): the packages of cran's "circuitpython" extra (pyproject.toml),
# installed from PyPI by `make install` into .circuitpython/ beside the repository
# without their dependencies (`python -m host_tools.cplibs install`), and their own .py
# files from there, as a CIRCUITPY drive's lib/ folder holds them (cran flash --drive)
# and as the tests give them to the CircuitPython interpreter.
import os
import shutil
import subprocess
import sys
from importlib import metadata

from host_tools import FIRMWARE_DIR, CommandError

EXTRA = "circuitpython"
LIB_DIR = os.environ.get("CRAN_CIRCUITPYTHON_LIBS") or os.path.join(
    os.path.dirname(FIRMWARE_DIR), ".circuitpython")


def requirements():
    """The "circuitpython" extra's requirements, as cran's metadata says them."""
    marker = 'extra == "%s"' % EXTRA
    return [r.split(";")[0].strip() for r in metadata.requires("cran") or ()
            if marker in r.replace("'", '"')]


def install(target=LIB_DIR):
    """pip install --no-deps --target target: the libraries, and nothing of Blinka."""
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--upgrade",
                    "--no-deps", "--target", target, *requirements()], check=True)


def library_files(lib_dir=LIB_DIR):
    """-> {path in lib/ ("neopixel.py", "asyncio/core.py"): the installed file}."""
    out = {}
    found = {d.metadata["Name"].lower(): d for d in metadata.distributions(path=[lib_dir])}
    for requirement in requirements():
        name = requirement.split(">")[0].split("=")[0].split("<")[0].strip().lower()
        dist = found.get(name)
        if dist is None:
            raise CommandError("%s is not in %s: the CircuitPython build needs it (make "
                               "install, or python -m host_tools.cplibs install)"
                               % (name, lib_dir))
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


if __name__ == "__main__":
    if sys.argv[1:] != ["install"]:
        sys.exit("usage: python -m host_tools.cplibs install")
    install()
