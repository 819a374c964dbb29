# What `make bench` last measured, as it leaves it at the end of docs/PERFORMANCE.md (a
# JSON comment, written by bench/report.py (write_section for the sections measured apart:
# bench/chip.py's, bench/web.py's) and read back there to say what changed):
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


def write_section(path, heading, lines, figures):
    """A section of docs/PERFORMANCE.md (at path) measured apart from `make bench` (make
    chip's, the web's) written in place: lines, its heading first, where a section
    under heading is, else before the method; and figures, the file's whole JSON, at
    its end."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    at = text.find(heading)
    if at < 0:
        at = end = text.index("\n## Method") + 1
    else:
        end = (text.find("\n## ", at + 1) + 1) or len(text)
    text = text[:at] + "\n".join(lines) + "\n\n" + text[end:]
    mark = text.rfind(MARK)
    if mark >= 0:
        close = text.index(" -->", mark)
        text = text[:mark] + MARK + json.dumps(figures, sort_keys=True) + text[close:]
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    print("written: %s" % os.path.relpath(path, os.path.dirname(os.path.dirname(PERFORMANCE))))
