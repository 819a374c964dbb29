# A badge's main.py run as a chip runs it (its flash mounted at "/", the virtual
# hardware), with one kind of exception raised at one phase of its start: where does it
# end? The REPL (main.py returned, or an exception got out of it) prints the game key to
# whoever asks; a player must meet the locked console or a reset.
#   micropython start_faults.py VHW_DIR EXTRA_DIR BOARD_FILE CONSOLE_FILE PHASE ROOT...
# Each ROOT, a flash laid out as cran flash leaves one (main.py, cran/, config.json,
# boards/, game.key), is started once with the exception kind its name ends with
# (ROOT/.../<kind>); CONSOLE_FILE is what is typed at its console, which then waits for
# more as a chip's does (a UART never ends): the run stops there. Prints one JSON line a
# root: {"kind", "end": "console" (its console was still answering) | "reset" | "repl" |
# "raised ...", "key": whether the game key is still on the flash, "said": [lines
# printed], "journal": [errors]}.
import builtins
import io
import json
import os
import sys

sys.path[:0] = [sys.argv[1], sys.argv[2]]

# The parts a chip has built in, loaded before "/" is the badge's flash.
import select  # noqa: E402, F401

import esp32  # noqa: E402, F401
import machine  # noqa: E402
import neopixel  # noqa: E402, F401
import vclock  # noqa: E402
import world  # noqa: E402

KINDS = {"MemoryError": MemoryError, "AttributeError": AttributeError,
         "KeyError": KeyError, "IndexError": IndexError, "TypeError": TypeError,
         "RuntimeError": RuntimeError, "OSError": OSError, "ValueError": ValueError,
         "ZeroDivisionError": ZeroDivisionError, "ImportError": ImportError,
         "NotImplementedError": NotImplementedError, "AssertionError": AssertionError}

_said = []
_print = builtins.print


def _uart(*args, **kwargs):   # what the badge prints: its UART, kept
    _said.append(" ".join([str(a) for a in args]))


class _Os:   # the port can't make a module object: an object with its names
    pass


def _with_rename():
    # The badge_driver's: VfsPosix mounted with a root renames two absolute paths
    # wrongly; renamed from "/", the current directory, as LittleFS does.
    shim = _Os()
    for name in dir(os):
        if not name.startswith("__"):
            setattr(shim, name, getattr(os, name))
    shim.rename = lambda old, new: os.rename(old.lstrip("/"), new.lstrip("/"))
    sys.modules["os"] = shim


class _Stop(BaseException):
    """What was typed has all been read: the badge would wait for more."""


class _Typed(io.IOBase):
    """The console's UART: what was typed, then _Stop where a chip's would wait."""

    def __init__(self, data):
        self.data = data

    def readinto(self, buf):
        if not self.data:
            _stopping[0] = True
            raise _Stop()
        n = min(len(buf), len(self.data))
        buf[:n] = self.data[:n]
        self.data = self.data[n:]
        return n

    def read(self, n=-1):
        buf = bytearray(n if n > 0 else 256)
        return bytes(buf[:self.readinto(buf)])

    def ioctl(self, request, arg):
        return arg & 1 if request == 3 else 0   # MP_STREAM_POLL: always readable


_stopping = [False]


def _stop_is_no_fault(app, now):
    # The app's console_open, as cran.run.main asks it when the app ends: for _Stop, the
    # run is over (the runner's, not the badge's), as tests/mp's badge_driver does.
    return _stopping[0]


def raiser(kind):
    def fault(*args, **kwargs):
        raise kind("injected")
    return fault


def inject(phase, kind):
    """The fault of phase, with kind, in the firmware as main.py will import it."""
    if phase == "manifest":   # main.py's own check of the firmware files
        class _Hashlib:
            sha256 = staticmethod(raiser(kind))
        sys.modules["hashlib"] = _Hashlib()
    elif phase == "import":   # cran.run, or anything it brings, can't be imported
        import cran.run
        cran.run.main = raiser(kind)
    elif phase == "names":
        import cran.start.phases
        cran.start.phases._make_names = raiser(kind)
    elif phase == "config":
        import cran.config
        cran.config.load = raiser(kind)
    elif phase == "restore":
        import cran.start.restore
        cran.start.restore.restored_badge = raiser(kind)
    elif phase == "app":   # the app's build (its drivers, its fields)
        import cran.start.parts
        cran.start.parts.build = raiser(kind)
    elif phase == "run":   # out of the running app (its show loop keeps its own faults)
        import cran.app

        async def console_loop(app):
            raise kind("injected")
        cran.app.App.console_loop = console_loop
    elif phase == "fail":   # the can't-start path itself fails
        import cran.config
        import cran.fail
        cran.config.load = raiser(ValueError)
        cran.fail.cannot_start = raiser(kind)
    elif phase == "log":   # the app ends, and its journal entry before the reset fails
        import cran.app
        import cran.badge

        async def console_loop(app):
            cran.badge.Badge.log = raiser(kind)
            raise RuntimeError("injected")
        cran.app.App.console_loop = console_loop


class _Sink:   # the UART's sending end, where the console echoes what is typed
    def write(self, data):
        return len(data)


def start(root, phase, kind, console):
    import vfs
    vclock.start(0)
    machine.reset_all()
    with open(sys.argv[3]) as f:
        world.wire(json.loads(f.read()))
    here, path = os.getcwd(), list(sys.path)
    with open(console, "rb") as f:   # read while the host's files are in reach
        typed = _Typed(f.read())
    _stopping[0] = False
    vfs.umount("/")
    vfs.mount(vfs.VfsPosix(root), "/")
    os.chdir("/")
    sys.path[:] = ["", ".frozen", "/lib"]
    saved = dict(sys.modules)
    del _said[:]
    try:
        import cran.app
        import cran.compat
        cran.compat.STDIN, cran.compat.STDOUT = typed, _Sink()
        cran.app.App.console_open = _stop_is_no_fault
        inject(phase, kind)
        try:
            with open("main.py") as f:
                code = f.read()
            exec(code, {"__name__": "__main__"})
            end = "repl"   # main.py is over: the chip's REPL comes next
        except machine.VirtualReset:
            end = "reset"
        except _Stop:
            end = "console"
        except BaseException as e:   # out of main.py: a traceback, then the REPL
            end = "raised %r" % (e,)
        try:
            with open("journal.0") as f:
                journal = [json.loads(x).get("error") for x in f.read().splitlines()]
        except OSError:
            journal = []
        key = "game.key" in os.listdir("/")
    finally:
        for name in list(sys.modules):   # the firmware and the shims go with the badge
            if name not in saved:
                del sys.modules[name]
        sys.modules.update(saved)
        vfs.umount("/")
        vfs.mount(vfs.VfsPosix(), "/")
        os.chdir(here)
        sys.path[:] = path
    return {"kind": kind.__name__, "end": end, "said": list(_said), "key": key,
            "journal": [x for x in journal if x]}


def main():
    phase, roots = sys.argv[5], sys.argv[6:]
    _with_rename()
    builtins.print = _uart
    out = [start(root, phase, KINDS[root.rstrip("/").split("/")[-1]], sys.argv[4])
           for root in roots]
    builtins.print = _print
    for line in out:
        sys.stdout.write(json.dumps(line) + "\n")


main()
