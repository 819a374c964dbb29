# Size of the firmware as a badge gets it: every module compiled with mpy-cross, as
# `cran flash` compiles it (build.compile_firmware). Prints bytes per module and the
# total, beside the source size.
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from host_tools import (
    FIRMWARE_DIR,  # noqa: E402
    build,  # noqa: E402
)

ARCH = "-march=xtensawin"   # the ESP32's; bytecode-only modules are the same for all


def main():
    rows = []
    with tempfile.TemporaryDirectory() as out:
        for path, local in sorted(build.compile_firmware(out, [ARCH]).items()):
            if not path.endswith(".mpy"):
                continue   # main.py stays source
            rel = path[1:-4] + ".py"
            source = os.path.join(FIRMWARE_DIR, rel)
            # The names modules are made by cran flash (build.names_sources): no source.
            rows.append((rel, os.path.getsize(source) if os.path.exists(source) else 0,
                         os.path.getsize(local)))
    print("firmware as .mpy (mpy-cross %s, as cran flash makes it):" % ARCH)
    for rel, src, mpy in rows:
        print("  %-28s %7d B source  %7d B .mpy" % (rel, src, mpy))
    print("  %-28s %7d B source  %7d B .mpy" % ("total", sum(r[1] for r in rows),
                                              sum(r[2] for r in rows)))


main()
