# `cran flash`: put the firmware, a board file and a config on badges, with the real
# mpremote transport and mpy-cross. Only files whose SHA-256 differs are copied, each to
# a temporary name then renamed, every file is checked after, main.py is written last:
# a flash cut short leaves a badge that boots to its REPL (no main.py), never a half
# firmware, and the next run finds and copies what is missing. Game state (state.a/b,
# journal, boots.json) is never touched.
import base64
import json
import os
import subprocess
import sys
import tempfile
import threading
import time

from host_tools import CommandError, badgelink, build

HELP = "flash the firmware, board and character config onto badges (mpremote, mpy-cross)"

MAIN = "/main.py"
CONFIG = "/config.json"
PARKED_MAIN = "/main.py.off"    # main.py set aside while a flash is under way
CHUNK = 2048
# machine.reset() runs ~100 ms after the raw REPL has let go: what is sent before then
# reaches the firmware that is going away.
RESET_DELAY_S = 0.3

# Runs on the badge: SHA-256 of each wanted file (None when missing) and every file
# under /cran (to remove modules a new firmware no longer has).
_HASHES = """
import os, json, hashlib, binascii
def _h(p):
    try:
        f = open(p, 'rb')
    except OSError:
        return None
    h = hashlib.sha256()
    b = bytearray(1024)
    while True:
        n = f.readinto(b)
        if not n:
            break
        h.update(b if n == 1024 else b[:n])
    f.close()
    return binascii.hexlify(h.digest()).decode()
def _walk(d, out):
    try:
        items = list(os.ilistdir(d))
    except OSError:
        return
    for e in items:
        p = d + '/' + e[0]
        if e[1] & 0x4000:
            _walk(p, out)
        else:
            out.append(p)
_all = []
_walk('/cran', _all)
print(json.dumps({'hashes': dict((p, _h(p)) for p in %s), 'cran': _all,
                  'parked': _h('%s') is not None}))
"""


def plan_files(board_id, config_text, compiled):
    """-> {badge path: local file} for this badge: firmware, board file, config."""
    files = dict(compiled["files"])
    # Files of their own for each badge's thread: two may be flashed at once.
    board_path = os.path.join(compiled["dir"], "boards-%d" % threading.get_ident(),
                              board_id + ".json")
    os.makedirs(os.path.dirname(board_path), exist_ok=True)
    with open(board_path, "w") as f:
        f.write(build.board_file_text(board_id))
    files["/boards/%s.json" % board_id] = board_path
    if config_text is not None:
        path = os.path.join(compiled["dir"], "config-%d.json" % threading.get_ident())
        with open(path, "w") as f:
            f.write(config_text)
        files[CONFIG] = path
    return files


def _dirs_of(paths):
    out = set()
    for p in paths:
        parts = p.strip("/").split("/")[:-1]
        for i in range(1, len(parts) + 1):
            out.add("/" + "/".join(parts[:i]))
    return sorted(out, key=lambda d: d.count("/"))


class Report:
    def __init__(self, port):
        self.port = port
        self.copied = []
        self.bytes = 0          # file bytes copied
        self.wire_bytes = 0     # bytes of code sent to write them
        self.removed = []
        self.repaired = False
        self.seconds = 0.0
        self.status = None


def flash_one(port, board_id, config_text, compiled, progress=lambda done, total: None):
    """Bring one badge up to date. -> Report."""
    report = Report(port)
    started = time.monotonic()
    link = badgelink.connect(port)
    try:
        files = plan_files(board_id, config_text, compiled)
        wanted = {path: build.sha256_file(local) for path, local in files.items()}
        seen = json.loads(badgelink.run(link, _HASHES % (json.dumps(sorted(wanted) + [
            CONFIG]), PARKED_MAIN)))
        on_badge = seen["hashes"]
        if config_text is None and on_badge.get(CONFIG) is None:
            # No config given and none on the badge: the board alone (a nameless
            # character with the rulebook's settings). A badge's own config is kept.
            files = plan_files(board_id, json.dumps({"board": board_id}), compiled)
            wanted[CONFIG] = build.sha256_file(files[CONFIG])
        stale = [p for p in seen["cran"] if p not in wanted]
        todo = [p for p in sorted(wanted) if on_badge.get(p) != wanted[p]]
        report.repaired = seen["parked"] or (on_badge.get(MAIN) is None and len(todo) < len(
            wanted))
        if todo or stale:
            # main.py off first: until the end, a reset lands in the REPL, not in a
            # firmware half old, half new.
            if on_badge.get(MAIN) is not None:
                badgelink.run(link, "import os\nos.rename(%r, %r)" % (MAIN, PARKED_MAIN))
            for d in _dirs_of(wanted):
                badgelink.run(link, "import os\ntry:\n os.mkdir(%r)\nexcept OSError:\n pass"
                              % d)
            total = sum(os.path.getsize(files[p]) for p in todo) or 1
            done = 0
            for path in [p for p in todo if p != MAIN] + [p for p in todo if p == MAIN]:
                if path == MAIN:
                    _finish_firmware(link, port, wanted, stale, report)
                with open(files[path], "rb") as f:
                    data = f.read()
                report.wire_bytes += _write(link, path, data)
                done += len(data)
                report.copied.append(path)
                report.bytes += len(data)
                progress(done, total)
            if MAIN in todo:
                badgelink.run(link, "import os\ntry:\n os.remove(%r)\nexcept OSError:\n pass"
                              % PARKED_MAIN)
            else:
                _finish_firmware(link, port, wanted, stale, report)
                badgelink.run(link, "import os\nos.rename(%r, %r)" % (PARKED_MAIN, MAIN))
            _verify(link, port, [MAIN], wanted)
        progress(1, 1)
        badgelink.reset(link)
        link = None
    finally:
        if link is not None:
            badgelink.close(link)
    report.status = _status_after_boot(port)
    report.seconds = time.monotonic() - started
    return report


def _finish_firmware(link, port, wanted, stale, report):
    # Before main.py comes back: old modules gone, every other file checked. A firmware
    # found whole is the only one that gets its main.py.
    for path in stale:
        badgelink.run(link, "import os\nos.remove(%r)" % path)
        report.removed.append(path)
    _verify(link, port, [p for p in wanted if p != MAIN], wanted)


def _verify(link, port, paths, wanted):
    seen = json.loads(badgelink.run(link, _HASHES % (json.dumps(sorted(paths)),
                                                   PARKED_MAIN)))["hashes"]
    wrong = [p for p in sorted(paths) if seen.get(p) != wanted[p]]
    if wrong:
        raise CommandError("%s: %d file(s) differ after copying (%s): flash again"
                           % (port, len(wrong), ", ".join(wrong[:3])))


def _write(link, path, data):
    """To a temporary name, then a rename: a cut leaves the old file or the new one.
    Base64, not repr(): a .mpy's bytes as \\xNN escapes would be ~3x longer on a UART.
    -> bytes sent."""
    temp = path + ".new"
    sent = badgelink.run_counted(link, "from binascii import a2b_base64 as a\n"
                                       "f=open(%r,'wb')\nw=f.write" % temp)
    for i in range(0, len(data), CHUNK):
        sent += badgelink.run_counted(link, "w(a(%r))"
                                      % base64.b64encode(data[i:i + CHUNK]).decode())
    return sent + badgelink.run_counted(link, "f.close()\nimport os\nos.rename(%r, %r)"
                                        % (temp, path))


def _status_after_boot(port):
    # What is sent while the badge reboots is lost (as on a UART): ask again and again.
    deadline = time.monotonic() + badgelink.BOOT_TIMEOUT_S
    last = None
    time.sleep(RESET_DELAY_S)
    while time.monotonic() < deadline:
        try:
            return badgelink.status(port, timeout=1.0)
        except CommandError as e:
            last = e
            time.sleep(0.3)
    raise CommandError("%s: flashed, but `status` did not answer after the reset (%s)"
                       % (port, last))


# ---- the command ------------------------------------------------------------------

def setup(p):
    p.add_argument("--port", action="append", default=[], metavar="PORT",
                   help="the badge's serial port (repeat for several, flashed in parallel)")
    p.add_argument("--all", action="store_true",
                   help="every USB serial port attached")
    p.add_argument("--board", help="board id (boards/ID.json); default: the config's")
    p.add_argument("--config", metavar="FILE",
                   help="the badge's config.json (as `cran config` writes them)")
    p.add_argument("--roster", metavar="CSV",
                   help="the game's roster (`cran config`): each badge gets its row's "
                        "config, found by port; without --port, every port it names")
    p.add_argument("--settings", metavar="GAME.json", help="with --roster: game settings")
    p.add_argument("--micropython", metavar="IMAGE.bin",
                   help="first install MicroPython itself from this image, with esptool")


def _ports(args, roster=None):
    ports = list(args.port)
    if roster and not ports and not args.all:
        ports = [info["port"] for info, _ in roster.values() if info["port"]]
    if args.all:
        from serial.tools import list_ports
        ports += [p.device for p in list_ports.comports() if p.vid is not None]
        if not ports:
            raise CommandError("--all: no USB serial port found (is a badge plugged in?)")
    if not ports:
        raise CommandError("which badge? give --port PORT (repeat it) or --all")
    return ports


def _config(args):
    """-> (board id, config text or None)."""
    text = None
    board = args.board
    if args.config:
        try:
            with open(args.config) as f:
                text = f.read()
            raw = json.loads(text)
        except OSError as e:
            raise CommandError("%s: cannot read: %s" % (args.config, e.strerror)) from None
        except ValueError as e:
            raise CommandError("%s: not valid JSON: %s" % (args.config, e)) from None
        if board and isinstance(raw, dict) and raw.get("board") not in (None, board):
            raise CommandError("%s: board is %r but --board says %r"
                               % (args.config, raw.get("board"), board))
        board = board or (raw.get("board") if isinstance(raw, dict) else None)
        from host_tools.roster import RosterError, check_config
        try:
            check_config(args.config)   # the badge's own checks, before anything is copied
        except RosterError as e:
            raise CommandError("\n".join(e.messages), prefixed=False) from None
    if not board:
        raise CommandError("which board? give --board ID or a --config with a board")
    build.board_file_text(board)   # an unknown board: said now, before any port is opened
    return board, text


def install_micropython(port, image, board_id):
    chip = "esp32"
    if board_id:
        with open(os.path.join(build.BOARDS_DIR, board_id + ".json")) as f:
            chip = "esp32c3" if json.load(f)["chip"].startswith("esp32c3") else "esp32"
    if not os.path.isfile(image):
        raise CommandError("%s: no such image file" % image)
    offset = "0x0" if chip == "esp32c3" else "0x1000"   # where MicroPython's images go
    cmd = [sys.executable, "-m", "esptool", "--chip", chip, "--port", port, "write-flash",
           "-z", offset, image]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        lines = (r.stderr + r.stdout).strip().splitlines()
        # esptool ends with a troubleshooting link; its own reason is the error line.
        said = [x for x in lines if "error" in x.lower()] or lines[-1:] or ["?"]
        raise CommandError("%s: esptool could not write MicroPython: %s (is it an ESP32 in "
                           "its bootloader? hold BOOT while plugging it in)"
                           % (port, said[-1].strip()))


def _jobs(args):
    """-> {port: (board id, config text or None)}."""
    if not args.roster:
        board, text = _config(args)
        return {port: (board, text) for port in _ports(args)}
    if args.config or args.board:
        raise CommandError("--roster gives each badge its board and config: no --config "
                           "or --board with it")
    from host_tools.roster import RosterError, badge_configs
    try:
        roster = badge_configs(args.roster, args.settings)
    except RosterError as e:
        raise CommandError("\n".join(e.messages), prefixed=False) from None
    by_port = {info["port"]: (info["board"], json.dumps(config, sort_keys=True))
               for info, config in roster.values() if info["port"]}
    jobs = {}
    for port in _ports(args, roster):
        if port not in by_port:
            raise CommandError("%s: no row of %s has this port (ports there: %s)"
                               % (port, args.roster, ", ".join(sorted(by_port)) or "none"))
        jobs[port] = by_port[port]
    return jobs


def run(args):
    jobs = _jobs(args)
    ports = list(jobs)
    if args.micropython:
        for port in ports:
            install_micropython(port, args.micropython, jobs[port][0])
            print("%s: MicroPython installed from %s" % (port, args.micropython))
        time.sleep(2)   # the badge boots MicroPython, then formats its flash
    # The .mpy must suit the badge's MicroPython: ask the first badge.
    link = badgelink.connect(ports[0])
    try:
        impl = json.loads(badgelink.run(link, "import sys, json\nprint(json.dumps({"
                                              "'name': sys.implementation.name, 'version': "
                                              "list(sys.implementation.version), 'mpy': "
                                              "getattr(sys.implementation, '_mpy', None)}))"))
    finally:
        badgelink.close(link)
    extra = build.compat_args(impl)
    failures = []
    with tempfile.TemporaryDirectory(prefix="cran-build-") as out:
        compiled = {"dir": out, "files": build.compile_firmware(out, extra)}
        reports = _flash_all(jobs, compiled, failures)
    for r in reports:
        s = r.status or {}
        print("%s: %s, %d file(s) copied (%d B), %d removed%s in %.1f s; status: %s %s, "
              "firmware %s" % (r.port, "repaired" if r.repaired else "ok", len(r.copied),
                               r.bytes, len(r.removed),
                               "" if r.copied or r.removed else " (already up to date)",
                               r.seconds, s.get("personnage") or "-", s.get("etat"),
                               s.get("firmware")))
    for _port, message in failures:
        print("cran: %s" % message, file=sys.stderr)
    return 1 if failures else 0


def _flash_all(jobs, compiled, failures):
    from rich.progress import BarColumn, Progress, TextColumn
    reports = []
    lock = threading.Lock()
    with Progress(TextColumn("{task.description}"), BarColumn(),
                  TextColumn("{task.percentage:>3.0f}%"), transient=not sys.stdout.isatty(),
                  disable=not sys.stdout.isatty()) as bars:
        def one(port):
            task = bars.add_task(port, total=1)
            try:
                board, config_text = jobs[port]
                r = flash_one(port, board, config_text, compiled,
                              lambda done, total: bars.update(task, completed=done,
                                                              total=total))
                with lock:
                    reports.append(r)
            except CommandError as e:
                with lock:
                    failures.append((port, str(e)))
        ports = list(jobs)
        threads = [threading.Thread(target=one, args=(p,)) for p in ports]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    reports.sort(key=lambda r: ports.index(r.port))
    return reports
