# What a virtual chip (vbadge_boot.py, cpbadge_boot.py) tells `cran vbadge`'s supervisor of
# its firmware's watchdog: the ms it has left, written (fixed width, at the start of the
# file) whenever it starts or is fed; the file's time says when. The supervisor
# (host_tools/virtual/vbadge.py) resets the chip when that runs out: a hung firmware moves no
# clock, and at the REPL after Ctrl-C nothing feeds it.


class WatchdogFile:
    def __init__(self, out):
        self.out = out   # opened while the host's files were in reach

    def tell(self, left_ms):
        self.out.seek(0)
        self.out.write("%12d\n" % max(0, left_ms))
        self.out.flush()

    def close(self, left_ms):
        """The boot is over without a reset (Ctrl-C, or the firmware ended): the time
        the watchdog has left now (None: none runs), then the file closed."""
        if left_ms is not None:
            self.tell(left_ms)
        self.out.close()
