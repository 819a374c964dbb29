# What `make bench` last measured, as it leaves it at the end of docs/PERFORMANCE.md (a
# JSON comment, written by bench/report.py and read back there to say what changed):
# the figures `cran check` sets a real badge beside.
import json
import os

from host_tools import FIRMWARE_DIR

MARK = "<!-- figures: "
PERFORMANCE = os.path.join(os.path.dirname(FIRMWARE_DIR), "docs", "PERFORMANCE.md")


def read_figures(path=PERFORMANCE):
    """The figures a run of the bench left in path, or None (no such file: the host tools
    installed without their docs; or none in it)."""
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError:
        return None
    at = text.rfind(MARK)
    if at < 0:
        return None
    try:
        return json.loads(text[at + len(MARK):text.index(" -->", at)])
    except ValueError:
        return None
