# cran host tools: the `cran` command (CPython only).
import os

import cran
import gamefiles

# The firmware package this host tool ships with; MicroPython runs it from here.
FIRMWARE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(cran.__file__)))
# The folder holding the gamefiles package (the repository, or site-packages once
# installed): a driver that reads scenario or board files inside MicroPython or
# CircuitPython puts it on sys.path, after FIRMWARE_DIR.
GAMEFILES_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(gamefiles.__file__)))


class CommandError(Exception):
    """A failure to report in one line and turn into an exit code."""

    def __init__(self, message, code=2, prefixed=True):
        Exception.__init__(self, message)
        self.code = code
        self.prefixed = prefixed   # False: the message already says where (FILE:LINE: ...)
