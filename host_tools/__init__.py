# cran host tools: the `cran` command (CPython only).
import os

import cran

# The firmware package this host tool ships with; MicroPython runs it from here.
FIRMWARE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(cran.__file__)))
MP_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "mp")


class CommandError(Exception):
    """A failure to report in one line and turn into an exit code."""

    def __init__(self, message, code=2, prefixed=True):
        Exception.__init__(self, message)
        self.code = code
        self.prefixed = prefixed   # False: the message already says where (FILE:LINE: ...)
