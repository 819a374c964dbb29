# The terminal a Textual app of cran's (cran sim, cran field) draws on: the one stdout
# is, not stderr as Textual's own driver has it, so that `cran sim 2>err.log` keeps its
# screen on the terminal and the file gets what is said on stderr.
import sys


def driver_class():
    """-> a Textual driver class that draws on stdout (Linux, macOS), or None where
    Textual's own is kept (Windows, whose console is one)."""
    if sys.platform == "win32":
        return None
    from textual.drivers.linux_driver import LinuxDriver

    class OnStdout(LinuxDriver):
        def __init__(self, app, **kwargs):
            super().__init__(app, **kwargs)
            self._file = sys.__stdout__

    return OnStdout
