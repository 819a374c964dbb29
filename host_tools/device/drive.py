# `cran flash --drive PATH`: a CircuitPython badge updated through its CIRCUITPY drive,
# as an organiser copies files, with no other tool. The firmware (cran/, with its
# CircuitPython drivers), Adafruit's libraries (lib/, from the installed PyPI packages),
# the board file, the config and the game key; compiled by CircuitPython's mpy-cross
# where there is one ($CRAN_MPY_CROSS_CIRCUITPYTHON, ../shared/tools), else as source.
# Only what changed is written, each file to NAME.new then renamed over NAME. code.py,
# which CircuitPython runs at every boot and again after every write to the drive, is
# set aside first and put back last: a copy cut short leaves a drive that boots to the
# REPL, never a mix of old and new modules.
import os
import shutil
import tempfile

from host_tools import FIRMWARE_DIR, CommandError

CODE = "code.py"
PARKED_CODE = "code.py.off"
BOOT_OUT = "boot_out.txt"   # CircuitPython writes it at every boot: version, board id


def mpy_cross_circuitpython():
    """CircuitPython's mpy-cross, or None: the firmware then goes as source."""
    from host_tools.virtual.runtimes import _shared_tool
    return os.environ.get("CRAN_MPY_CROSS_CIRCUITPYTHON") or _shared_tool(
        "mpy-cross-circuitpython")


def read_boot_out(drive):
    """-> (CircuitPython version, board id) the drive's boot_out.txt says; CommandError
    when the path is no CIRCUITPY drive."""
    if not os.path.isdir(drive):
        raise CommandError("--drive %s: no such folder (the CIRCUITPY drive, mounted)" % drive)
    try:
        with open(os.path.join(drive, BOOT_OUT), encoding="utf-8", errors="replace") as f:
            text = f.read(4096)
    except OSError:
        raise CommandError("--drive %s: not a CIRCUITPY drive (no %s, which CircuitPython "
                           "writes at every boot)" % (drive, BOOT_OUT)) from None
    version = board_id = None
    for line in text.splitlines():
        if line.startswith("Adafruit CircuitPython "):
            version = line.split()[2]
        elif line.startswith("Board ID:"):
            board_id = line[len("Board ID:"):].strip()
    if version is None or board_id is None:
        raise CommandError("--drive %s: %s names no CircuitPython version and board id"
                           % (drive, BOOT_OUT))
    return version, board_id


def drive_files(board, config_text, key, out_dir):
    """{path on the drive: bytes} of everything the badge needs, code.py included."""
    from host_tools import build, cplibs
    from host_tools.boards import board_file_text
    cross = mpy_cross_circuitpython()
    sources = list(build._sources(runtime="circuitpython"))
    libs = [(path, "lib/" + rel) for rel, path in cplibs.library_files().items()]
    files = {}
    if cross is not None:
        compiled = build.compile_modules(sources + libs, out_dir, cache="", cross=cross)
        for rel, local in compiled.items():
            with open(local, "rb") as f:
                files[rel.lstrip("/")] = f.read()
        # A package's __init__ as .mpy is found as such; nothing else to do.
    else:
        for path, rel in sources + libs:
            with open(path, "rb") as f:
                files[rel] = f.read()
    files["boards/%s.json" % board.id] = board_file_text(board).encode()
    if config_text is not None:
        files["config.json"] = config_text.encode()
    files["game.key"] = key
    with open(os.path.join(FIRMWARE_DIR, CODE), "rb") as f:
        files[CODE] = f.read()
    return files


def _read(path):
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError:
        return None


def _write(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    part = path + ".new"
    try:
        with open(part, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(part, path)
    except OSError:
        try:
            os.remove(part)
        except OSError:
            pass
        raise


def flash_drive(drive, board, config_text, key, say=print):
    """Bring the drive to exactly what the badge needs. -> (files written, bytes, files
    removed)."""
    version, cp_board = read_boot_out(drive)
    if board.runtime != "circuitpython":
        raise CommandError("board %s runs MicroPython: flash it with --port" % board.id)
    if cp_board != board.circuitpython_board:
        raise CommandError("--drive %s: this drive's CircuitPython is for %s (%s), but "
                           "board %s is %s" % (drive, cp_board, BOOT_OUT, board.id,
                                              board.circuitpython_board))
    if config_text is None and _read(os.path.join(drive, "config.json")) is None:
        raise CommandError("--drive %s: it has no config.json: give --config FILE (as "
                           "`cran config` writes them)" % drive)
    with tempfile.TemporaryDirectory(prefix="cran-drive-") as tmp:
        files = drive_files(board, config_text, key, tmp)
    if mpy_cross_circuitpython() is not None and not version.startswith("10."):
        raise CommandError("--drive %s: CircuitPython %s: the .mpy files are CircuitPython "
                           "10's; install CircuitPython 10 on the badge" % (drive, version))
    code = files.pop(CODE)
    todo = {p: d for p, d in files.items() if _read(os.path.join(drive, p)) != d}
    stale = _stale(drive, files)
    code_there = _read(os.path.join(drive, CODE))
    parked = os.path.join(drive, PARKED_CODE)
    if not todo and not stale and code_there == code and not os.path.exists(parked):
        return [], 0, []
    need = sum(len(d) for d in todo.values()) + len(code)
    free = shutil.disk_usage(drive).free
    if need + max([len(d) for d in todo.values()] + [len(code)]) > free:
        raise CommandError("--drive %s is full: %d bytes to write, %d free (remove "
                           "files of your own from it, then run the same command)"
                           % (drive, need, free))
    try:
        if code_there is not None:
            os.replace(os.path.join(drive, CODE), parked)   # boots to the REPL from now
        for path in sorted(todo):
            _write(os.path.join(drive, path), todo[path])
        for path in stale:
            os.remove(os.path.join(drive, path))
        _write(os.path.join(drive, CODE), code)
    except OSError as e:
        raise CommandError("--drive %s: %s (code.py is set aside: the badge boots to its "
                           "REPL until the same command is run again)" % (drive, e)) from None
    if os.path.exists(parked):
        os.remove(parked)
    return sorted(todo) + [CODE], need, stale


def update(drive, board, config_text, key):
    """`cran flash --drive PATH [--board ID | --config FILE]`: board (a Board; None:
    neither was given) and config_text as device/jobs.config reads them; key: the game
    key it gets. Says what was done. -> the exit code."""
    if board is None:
        raise CommandError("--drive: which board? give --board ID or --config FILE")
    written, size, removed = flash_drive(drive, board, config_text, key)
    print("%s: %s" % (drive, "%d file(s) written (%d B), %d removed" % (
        len(written), size, len(removed)) if written or removed else "already up to date"))
    return 0


def _stale(drive, files):
    """Firmware and library files on the drive that the new firmware doesn't have (and
    .new files a cut copy left): cran/ and lib/'s own packages only, not the user's."""
    from host_tools import cplibs
    ours = ["cran"] + sorted({rel.split("/")[0].split(".")[0]
                              for rel in cplibs.library_files()})
    out = []
    for top in ("cran", "lib"):
        for where, _dirs, names in os.walk(os.path.join(drive, top)):
            for name in names:
                rel = os.path.relpath(os.path.join(where, name), drive).replace(os.sep, "/")
                mine = rel.startswith("cran/") or rel.split("/")[1].split(".")[0] in ours
                if mine and (rel not in files or rel.endswith(".new")):
                    out.append(rel)
    return sorted(out)
