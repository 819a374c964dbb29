# The badge's flash in the page (MicroPython's WebAssembly port): a folder of the page's
# memory file system, mounted where the badge's root is, that fails as a badge's
# LittleFS fails. The port's own files are Emscripten's, whose errors are numbered the
# WASI way (a missing file is 44, not ENOENT's 2): the firmware, which knows a missing
# file by its number (cran.compat.missing), would take every first save for a broken
# flash. A wrong number is a fake kinder than the hardware; this one is not.
import os

import vfs

# Emscripten's numbers -> the badge's (LittleFS's, Linux's): the errors a flash gives.
_CHIP_ERRNO = {44: 2, 20: 17, 54: 20, 31: 21, 28: 22, 51: 28, 55: 39}


def _chip(e):
    if e.args and e.args[0] in _CHIP_ERRNO:
        return OSError(_CHIP_ERRNO[e.args[0]])
    return e


class Flash:
    """A VFS (MicroPython's user file system protocol) over folder, mounted by mount()."""

    def __init__(self, folder):
        self.folder = folder
        self.cwd = "/"

    def _at(self, path):
        if not path.startswith("/"):
            path = self.cwd.rstrip("/") + "/" + path
        return self.folder + path.rstrip("/")

    def mount(self, readonly, mkfs):
        pass

    def umount(self):
        pass

    def open(self, path, mode):
        try:
            return open(self._at(path), mode)
        except OSError as e:
            raise _chip(e) from None

    def ilistdir(self, path):
        try:
            return iter(list(os.ilistdir(self._at(path))))
        except OSError as e:
            raise _chip(e) from None

    def stat(self, path):
        try:
            return os.stat(self._at(path))
        except OSError as e:
            raise _chip(e) from None

    def statvfs(self, path):
        return os.statvfs(self.folder)

    def mkdir(self, path):
        try:
            os.mkdir(self._at(path))
        except OSError as e:
            raise _chip(e) from None

    def rmdir(self, path):
        try:
            os.rmdir(self._at(path))
        except OSError as e:
            raise _chip(e) from None

    def remove(self, path):
        try:
            os.remove(self._at(path))
        except OSError as e:
            raise _chip(e) from None

    def rename(self, old, new):
        try:
            os.rename(self._at(old), self._at(new))
        except OSError as e:
            raise _chip(e) from None

    def chdir(self, path):
        self.stat(path)
        self.cwd = path if path.startswith("/") else self.cwd.rstrip("/") + "/" + path

    def getcwd(self):
        return self.cwd


def fresh(mount_at, folder):
    """An empty flash at mount_at (its files kept in folder), as a new badge's. -> it."""
    try:
        vfs.umount(mount_at)
    except OSError:
        pass   # none mounted yet
    _empty(folder)
    flash = Flash(folder)
    vfs.mount(flash, mount_at)
    return flash


def _empty(folder):
    try:
        names = [entry[0] for entry in os.ilistdir(folder)]
    except OSError:
        os.mkdir(folder)
        return
    for name in names:
        path = folder + "/" + name
        if os.stat(path)[0] & 0x4000:   # a folder
            _empty(path)
            os.rmdir(path)
        else:
            os.remove(path)
