# Deploying the firmware to a badge: bytes copied and seconds, for a fresh badge, after one
# file changed, and with nothing to do (the modules come compiled from cran's cache).
# The badge is a `cran vbadge` (MicroPython unix port behind a pty: no 115200-baud UART,
# so a USB badge takes longer per byte); `cran flash`'s own code path, mpremote's
# transport, mpy-cross.
import os
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from host_tools import build  # noqa: E402
from host_tools.boards import read_board  # noqa: E402
from host_tools.device import flash  # noqa: E402
from host_tools.virtual import vbadge  # noqa: E402


def main():
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["CRAN_CACHE"] = os.path.join(tmp, "cache")   # starts empty
        times = []
        for out in ("cold", "warm"):
            t = time.monotonic()
            files = build.compile_firmware(os.path.join(tmp, out))
            times.append(time.monotonic() - t)
        compiled = flash.Builds(tmp)
        atom_lite = read_board("atom-lite")
        with vbadge.running(os.path.join(tmp, "badge.img")) as badge:
            rows = [("fresh badge", flash.flash_one(badge.port, atom_lite, None, compiled)),
                    ("nothing changed", flash.flash_one(badge.port, atom_lite, None,
                                                        compiled)),
                    ("one file (config)", flash.flash_one(badge.port, atom_lite,
                                                          '{"board": "atom-lite", "lang": '
                                                          '"en"}', compiled))]
    print("deploy to a vbadge (cran flash; compiling, resets and `status` after boot "
          "included):")
    print("  compile %d modules: %.2f s with mpy-cross, %.2f s from the cache"
          % (len(files) - 1, times[0], times[1]))   # main.py goes as source
    for name, r in rows:
        print("  %-22s %3d files %7d B (%7d B sent) %6.2f s"
              % (name, len(r.copied), r.bytes, r.wire_bytes, r.seconds))
    wire = rows[0][1].wire_bytes
    print("  at 115200 baud the fresh badge's %d B take at least %.1f s on the wire"
          % (wire, wire * 10 / 115200))


main()
