# `cran flash` and `cran status` where no badge is needed: what they refuse, and how
# they say it (port missing, busy, silent; bad board or config), and what a badge gets.
import hashlib
import json
import os
import pty
import shutil
import time

import pytest
import serial

from conftest import run_cran
from host_tools import FIRMWARE_DIR, boards, build
from host_tools.device import badgeport


def test_no_port_is_a_clear_error():
    r = run_cran("flash", "--board", "atom-lite")
    assert r.returncode == 2 and "give --port PORT" in r.stderr


def test_a_missing_port_is_named():
    # A badge's fault, the same exit code in every command: 1.
    for args in (("flash", "--board", "atom-lite"), ("status",), ("logs",), ("console", "status")):
        r = run_cran(*args, "--port", "/dev/ttyNOPE0")
        assert r.returncode == 1, (args, r.stderr)
        assert r.stderr.strip() == ("cran: /dev/ttyNOPE0: no such port (is the badge plugged "
                                    "in? `ls /dev/tty*`)")


def test_an_unknown_board_is_refused_before_any_port_is_opened():
    r = run_cran("flash", "--port", "/dev/ttyNOPE0", "--board", "nope")
    assert r.returncode == 2 and "unknown board 'nope' (boards: " not in r.stderr
    assert "unknown board 'nope'" in r.stderr and "atom-lite" in r.stderr


@pytest.mark.parametrize("config, message", [
    ('{"board": "atom-lite", "character": {"armor": -1}}',
     "badge.json: character.armor: expected a whole number from 0 to 99, got -1"),
    ('{"board": "atom-lite", "lang": "de"}', 'badge.json: lang: expected "fr" or "en"'),
    ('{"board": "atom-lite", ', "badge.json: not readable as JSON"),
    ('{"board": "atom-matrix"}', "board is 'atom-matrix' but --board says 'atom-lite'"),
])
def test_a_bad_config_is_refused_naming_file_and_field(tmp_path, config, message):
    path = tmp_path / "badge.json"
    path.write_text(config)
    r = run_cran("flash", "--port", "/dev/ttyNOPE0", "--board", "atom-lite",
                 "--config", str(path))
    assert r.returncode == 2 and message in r.stderr.replace(str(tmp_path) + "/", ""), r.stderr


def test_a_busy_port_is_named_busy():
    controller, device = pty.openpty()
    name = os.ttyname(device)
    holder = serial.Serial(name, exclusive=True)   # another program has it (mpremote)
    try:
        said = [run_cran(*args, "--port", name) for args in (
            ("status",), ("flash", "--board", "atom-lite"), ("logs",))]
    finally:
        holder.close()
        os.close(controller)
        os.close(device)
    busy = "cran: %s: busy: another program has it open" % name
    # A badge's fault: exit 1 in every command (2 is a command or file that is wrong).
    assert [(r.returncode, r.stderr.startswith(busy)) for r in said] == [
        (1, True), (1, True), (1, True)], [r.stderr for r in said]


@pytest.mark.parametrize("lost", [
    badgeport.LostBadge("%s: lost the badge: device reports readiness to read"),
    # Unplugged while it rebooted: its port gone, `status` never came.
    badgeport.CommandError("%s: flashed, but `status` did not answer after the reset"),
])
def test_a_badge_unplugged_mid_flash_is_told_to_run_the_same_command_again(
        tmp_path, monkeypatch, capsys, lost):
    from host_tools import cli
    from host_tools.device import flash
    port = tmp_path / "ttyUSB0"   # a USB port: it goes when the badge is unplugged
    port.symlink_to(os.devnull)

    def unplugged(name, *args, **kwargs):
        port.unlink()
        raise type(lost)(str(lost) % name)
    monkeypatch.setattr(flash, "flash_one", unplugged)
    assert cli.main(["flash", "--port", str(port), "--board", "atom-lite"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("cran: %s: " % port) and err.endswith(
        ": plug it back in and run the same command again (it picks up where it "
        "stopped)\n"), err


def test_a_port_where_no_micropython_answers(monkeypatch):
    # A knock of 1 s, not 35 (badgeport.wake): nothing sleeps behind this port.
    monkeypatch.setenv("CRAN_KNOCK_S", "1")
    controller, device = pty.openpty()
    name = os.ttyname(device)
    try:
        r = run_cran("flash", "--port", name, "--board", "atom-lite")
    finally:
        os.close(controller)
        os.close(device)
    # Not "a new badge needs MicroPython first": no ESP32 answers esptool there either
    # (tests/test_ports.py tells the one from the other).
    assert r.returncode == 1 and "nothing that speaks like an ESP32 answers there" in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1   # one line, nothing of mpremote's


@pytest.mark.parametrize("machine, chip", [
    ("Generic ESP32 module with ESP32", "esp32"),
    ("M5Stack ATOM with ESP32-PICO-D4", "esp32"),     # MicroPython's M5STACK_ATOM image
    ("ESP32C3 module with ESP32C3", "esp32c3"),
    ("Generic ESP32S3 module with ESP32S3", "esp32s3"),
    ("Raspberry Pi Pico with RP2040", "rp2040"),
    ("linux [GCC 14.2.1] version", None),            # a desktop's port: no check
])
def test_the_chip_is_read_from_what_micropython_says_it_is(machine, chip):
    from host_tools.device import flash
    assert flash.chip_of(machine) == chip
    board = {"esp32": "atom-lite", "esp32c3": "esp32c3-supermini"}.get(chip)
    if board is not None or chip is None:   # a board for it: it fits
        flash.check_chip("P", boards.read_board(board or "atom-lite"), machine)
    else:
        with pytest.raises(flash.CommandError, match="cran has no board file for an %s"
                           % chip.upper()):
            flash.check_chip("P", boards.read_board("atom-lite"), machine)


def test_what_a_badge_gets(tmp_path):
    files = build.compile_firmware(str(tmp_path))
    # Each module a file of its own at the flash's root, named as on a badge (build.flattened)
    app, engine = build.badge_path("/cran/app.mpy"), build.badge_path("/cran/core/engine.mpy")
    assert "/main.py" in files and app in files and engine in files
    assert not [p for p in files if p.endswith(".py") and p not in ("/main.py",
                                                                     "/firmware_check.py")]
    # firmware/ as it is: each module a badge gets is one of its files (the host's own,
    # gamefiles' scenario runner and board file check, sit outside it), or the names
    # modules made here.
    modules = [build.import_name(p) for p in files if p.endswith(".mpy")]
    assert not [m for m in modules if not m.startswith("cran.names") and not os.path.exists(
        os.path.join(FIRMWARE_DIR, m.replace(".", "/") + ".py")) and not os.path.exists(
        os.path.join(FIRMWARE_DIR, m.replace(".", "/"), "__init__.py"))]
    assert not [p for p in files if p.count("/") > 1]
    with open(files[app], "rb") as f:
        assert f.read(1) == b"M"   # the .mpy header
    board = json.loads(boards.board_file_text(boards.read_board("m5stickc-plus")))
    assert "notes" not in board and "sources" not in board and board["id"] == "m5stickc-plus"


def test_mpy_version_must_match_the_badge():
    ours = build.mpy_cross_version()[1]
    major, sub = (int(x) for x in ours.lstrip("v").split("."))
    same = {"name": "micropython", "version": [1, 29, 0], "mpy": major | sub << 8}
    assert build.compat_args(same) == []
    older = {"name": "micropython", "version": [1, 20, 0], "mpy": major}   # v6.0
    assert build.compat_args(older) == ["-c", "1.20.0"]
    with pytest.raises(build.CommandError, match="loads .mpy v5.0"):
        build.compat_args({"name": "micropython", "version": [1, 18, 0], "mpy": 5})


def test_installing_micropython_names_what_esptool_said(tmp_path):
    image = tmp_path / "micropython.bin"
    r = run_cran("flash", "--micropython", str(image), "--port", "/dev/null",
                 "--board", "atom-lite")
    assert r.returncode == 2 and "micropython.bin: no such image file" in r.stderr
    assert "https://micropython.org/download/ESP32_GENERIC/" in r.stderr   # where from
    image.write_bytes(b"\xe9" + bytes(4095))
    controller, device = pty.openpty()   # a port where no ESP32 bootloader answers
    try:
        r = run_cran("flash", "--micropython", str(image), "--port", os.ttyname(device),
                     "--board", "esp32c3-supermini")
    finally:
        os.close(controller)
        os.close(device)
    assert r.returncode == 1 and "esptool could not write MicroPython: " in r.stderr
    assert "Failed to connect" in r.stderr or "error" in r.stderr.lower(), r.stderr


def test_all_takes_every_usb_serial_port(monkeypatch, tmp_path):
    # --all: the ports with a USB vendor id (a badge's USB-serial chip), not a built-in
    # UART such as /dev/ttyS0; none at all is said plainly.
    from serial.tools import list_ports

    from host_tools import CommandError
    from host_tools.device import jobs

    class Port:
        def __init__(self, device, vid):
            self.device, self.vid = device, vid

    found = [Port("/dev/ttyS0", None), Port("/dev/ttyUSB0", 0x10C4),
             Port("/dev/ttyACM0", 0x303A)]
    monkeypatch.setattr(list_ports, "comports", lambda: found)
    assert jobs.ports([], every=True) == ["/dev/ttyUSB0", "/dev/ttyACM0"]
    # given ports come first, and are kept
    assert jobs.ports(["/dev/ttyS1"], every=True) == ["/dev/ttyS1", "/dev/ttyUSB0",
                                                      "/dev/ttyACM0"]
    # A port named twice, under its by-id link: one badge, one job.
    link = tmp_path / "usb-Silicon_Labs_CP2102-if00-port0"
    link.symlink_to("/dev/ttyUSB0")
    assert jobs.ports([str(link), "/dev/ttyUSB0"], every=True) == [str(link), "/dev/ttyACM0"]
    found[1:] = []
    with pytest.raises(CommandError, match="no USB serial port found"):
        jobs.ports([], every=True)


def test_each_module_is_a_file_at_the_badges_root_named_with_a_name_of_its_image():
    # A module keeps its import name, its path and its name in its package for good:
    # on a badge its import name is one the image holds (no RAM), its path short.
    from host_tools.imagenames import STATIC_NAMES
    modules = build.badge_modules()
    assert set(modules.values()) <= set(STATIC_NAMES)
    assert len(set(n.lower() for n in modules.values())) == len(modules)   # (case)
    assert "cran.core.engine" in modules and "cran.core" not in modules   # (no code)
    assert not set(modules.values()) & {"time", "json", "machine", "main", "boot"}
    assert not set(modules.values()) & set(build.badge_renames().values())
    engine, compat, app = (modules[m] for m in ("cran.core.engine", "cran.compat",
                                                 "cran.app"))
    assert build.badge_path("/cran/core/engine.mpy") == "/%s.mpy" % engine
    assert build.import_name("/%s.mpy" % engine) == "cran.core.engine"
    said = build.flattened(
        "from cran.core.engine import new_state, Engine as E\n"
        "def f():\n    from cran import compat, VERSION\n"
        "    import cran.app as a\n    return ('cran.app', \"cran.compat\", 'cran.x y')\n",
        modules, "cran")
    assert said == (
        "from %s import new_state, Engine as E\n"
        "def f():\n    from %s import VERSION; import %s as compat\n"
        "    import %s as a\n    return (%r, %r, 'cran.x y')\n"
        % (engine, modules["cran"], compat, app, app, compat))
    assert build.flattened("from .screen import screen\n", modules, "cran.start") == (
        "from %s import screen\n" % modules["cran.start.screen"])
    for text in ("x = 'cran.start'\n", "from cran.nothing import x\n", "import cran.core\n"):
        with pytest.raises(build.CommandError, match="names no module a badge has"):
            build.flattened(text, modules)
    # A badge's traceback says the modules' import names again.
    assert build.unrenamed('File "%s", line 1, in f' % engine) == (
        'File "cran.core.engine", line 1, in f')
    # Why a badge can't start names its modules' files: each with its module beside it,
    # in ROMFS too; a file that is no module of cran as it is.
    assert build.module_names("firmware /%s.mpy, /rom/%s.mpy, /lib/x.mpy: damaged" % (
        app, engine)) == "firmware /%s.mpy (cran.app), /rom/%s.mpy (cran.core.engine), " \
                         "/lib/x.mpy: damaged" % (app, engine)


def test_compiled_modules_are_cached_by_source_and_options(tmp_path, monkeypatch):
    firmware = tmp_path / "firmware"
    for rel in ("cran/__init__.py", "cran/menu.py", "cran/core/ticks.py", "cran/cues.py"):
        (firmware / rel).parent.mkdir(parents=True, exist_ok=True)   # a few modules do
        shutil.copy(os.path.join(build.FIRMWARE_DIR, rel), firmware / rel)
    for name in ("main.py", "firmware_check.py"):
        shutil.copy(os.path.join(build.FIRMWARE_DIR, name), firmware)
    monkeypatch.setattr(build, "FIRMWARE_DIR", str(firmware))
    cache = str(tmp_path / "cache")
    runs = []
    real = build.mpy_cross_path()
    build.mpy_cross_version()   # asked once per run: not counted below
    counting = tmp_path / "mpy-cross"
    counting.write_text('#!/bin/sh\necho x >> "%s"\nexec "%s" "$@"\n'
                        % (tmp_path / "runs", real))
    counting.chmod(0o755)
    monkeypatch.setattr(build, "mpy_cross_path", lambda: str(counting))

    def compile_(out, *args):
        (tmp_path / "runs").write_text("")
        files = build.compile_firmware(str(tmp_path / out), list(args), cache)
        runs.append(len((tmp_path / "runs").read_text().split()))
        return {path: open(local, "rb").read() for path, local in files.items()}

    first = compile_("a")
    again = compile_("b")
    assert again == first and runs == [len(first) - 2, 0]   # all but main.py and its check
    # Another module text or other options: compiled anew, only what differs.
    with open(firmware / "cran" / "menu.py", "a") as f:
        f.write("\nCHANGED = 1\n")
    changed = compile_("c")
    # menu.py, and cran/names.py, which makes its names (one more: CHANGED).
    menu, names = build.badge_path("/cran/menu.mpy"), build.badge_path("/cran/names.mpy")
    assert runs[-1] == 2 and changed[menu] != first[menu]
    assert changed[names] != first[names]
    compile_("d", "-O1")
    assert runs[-1] == len(first) - 2
    # A cache that can't be written only costs time.
    nowhere = tmp_path / "file"
    nowhere.write_text("")
    assert build.compile_firmware(str(tmp_path / "e"), [], str(nowhere / "x"))


class _SleepyBadge:
    """A serial port with a badge behind it that light-sleeps: awake awake_s out of
    every period_s, hearing only then; a byte heard keeps it awake (cran.app); awake,
    it answers `echo X` with X. Or a MicroPython REPL, or nothing at all."""

    def __init__(self, period_s=0.6, awake_s=0.02, kind="badge"):
        self.start = time.monotonic() - 0.03   # asleep: it last woke 30 ms ago
        self.period_s, self.awake_s, self.kind = period_s, awake_s, kind
        self.kept_awake = False
        self.heard = b""
        self.out = b""
        self.lost = 0

    def _awake(self):
        since = time.monotonic() - self.start
        return self.kept_awake or since % self.period_s < self.awake_s

    def write(self, data):
        if self.kind == "nothing" or not self._awake():
            self.lost += len(data)
            return len(data)
        self.kept_awake = True
        self.heard += data
        *lines, self.heard = self.heard.split(b"\n")
        for line in lines:
            if self.kind == "repl":
                self.out += b"\r\n>>> "
            elif line.startswith(b"echo "):
                self.out += line[5:] + b"\r\n"
        return len(data)

    @property
    def in_waiting(self):
        return len(self.out)

    def read(self, n):
        out, self.out = self.out[:n], self.out[n:]
        return out


def test_a_sleeping_badge_is_knocked_awake():
    said = []
    badge = _SleepyBadge()
    started = time.monotonic()
    assert badgeport.wake(badge, "P", knock_s=3, say=said.append) == "firmware"
    # Within a sleep or two: a busy machine may delay a knock past one awake window.
    assert time.monotonic() - started < 2 * 0.6 + 0.5 and badge.lost > 0
    assert said in ([], ["P: waking the badge (asleep, it hears nothing for up to 30 s)"])
    assert badgeport.wake(_SleepyBadge(kind="repl"), "P", knock_s=3) == "repl"
    said = []
    started = time.monotonic()
    assert badgeport.wake(_SleepyBadge(kind="nothing"), "P", knock_s=2, say=said.append) \
        is None
    assert time.monotonic() - started >= 2 and len(said) == 1


def test_the_manifest_names_every_module_and_what_the_cannot_start_path_imports():
    from host_tools import build
    needs = build.imported_by("cran.fail")
    # What importing cran.fail runs, packages included; not what cran's functions
    # import when they run (cran.start.phases.start imports the app).
    assert {"/cran/fail.mpy", "/cran/__init__.mpy", "/cran/console.mpy",
            "/cran/storage.mpy", "/cran/lock.mpy", "/cran/core/__init__.mpy"} <= set(needs)
    assert "/cran/app.mpy" not in needs and "/cran/config.mpy" not in needs
    app = build.badge_path("/cran/app.mpy")
    files = {app: b"x", "/main.py": b"y", "/config.json": b"{}"}
    made = json.loads(build.manifest_text(files))
    assert made["files"] == {app: hashlib.sha256(b"x").hexdigest()}
    # Their files on a badge, where a package without code is no module.
    assert made["fail_needs"] == sorted(filter(None, map(build.badge_path, needs)))
    assert build.badge_path("/cran/core/__init__.mpy") is None
    assert build.badge_path("/cran/fail.mpy") in made["fail_needs"]


def test_status_says_a_badge_could_not_save(monkeypatch, capsys):
    # Issue 13: a failed save is never silent; `cran status` names it, exit 1.
    from host_tools import cli
    status = {"etat": "blesse", "armure": 0, "effets": {}, "jeu": "en-jeu", "board": "atom-lite",
              "firmware": "0.1.0", "uptime_ms": 1000, "save_error": "OSError(28, 'ENOSPC')"}
    monkeypatch.setattr(badgeport, "status", lambda port: dict(status))
    assert cli.main(["status", "--port", "P"]) == 1
    assert capsys.readouterr().out.splitlines()[-1] == (
        "  NOT SAVED the last save failed: OSError(28, 'ENOSPC')")
    status["save_error"] = None
    assert cli.main(["status", "--port", "P"]) == 0
    assert "NOT SAVED" not in capsys.readouterr().out


def test_a_port_that_is_not_usb_is_refused_at_once():
    # A badge is plugged in by USB: a port the system lists without a USB vendor id is
    # the computer's own UART (/dev/ttyS0), where a knock waited 43 s for nothing, then
    # offered to flash cran onto it. Refused at once by every command, exit 1.
    from serial.tools import list_ports
    from serial.tools.list_ports_common import ListPortInfo
    uart, usb = ListPortInfo("/dev/ttyS0"), ListPortInfo("/dev/ttyUSB0")
    usb.vid, usb.pid = 0x1A86, 0x55D4   # a CH9102, as on an Atom Lite
    assert badgeport.not_usb("/dev/ttyUSB0", [uart, usb]) is None
    assert badgeport.not_usb("/dev/pts/3", [uart, usb]) is None   # unlisted: a vbadge's
    said = badgeport.not_usb("/dev/ttyS0", [uart, usb])
    assert said.startswith("/dev/ttyS0 is a serial port of this computer, not a USB one")
    assert said.endswith("USB serial ports now: /dev/ttyUSB0)")
    own = [p.device for p in list_ports.comports() if p.vid is None]
    if not own:
        pytest.skip("this computer lists no serial port of its own to try the commands on")
    for args in (("flash", "--board", "atom-lite"), ("status",), ("logs",),
                 ("console", "status")):
        started = time.monotonic()
        r = run_cran(*args, "--port", own[0])
        assert r.returncode == 1 and "not a USB one" in r.stderr, (args, r.stderr)
        assert time.monotonic() - started < 20, args


def test_a_knocks_leftovers_are_no_part_of_an_answer():
    # A badge slow to wake answers the knock's echo twice (sent again every 0.5 s): the
    # second copy's echo and answer came after the knock was done, inside the next
    # question's answer (a journal line 'echo cran-wake-757833214', read as JSON).
    import re as regex

    class SlowBadge:
        def __init__(self):
            self.out = b""

        def write(self, data):
            asked = regex.search(rb"echo (cran-\d+)", data)
            if asked:   # the leftovers first, then the answer and the question's mark
                self.out += (b"echo cran-wake-757833214\r\ncran-wake-757833214\r\n"
                             b'{"a": "coup"}\r\n' + asked.group(1) + b"\r\n")

        def read(self, n):
            got, self.out = self.out[:n], self.out[n:]
            return got

    assert badgeport._ask(SlowBadge(), "PORT", "journal", 5, False) == ['{"a": "coup"}']


def test_a_ctrl_c_says_each_badge_where_it_stopped():
    # flash_one's progress: (0, 1) once main.py is set aside, (done, total) through the
    # copy, (1, 1) once main.py is back: stopped there, the badge is flashed whole.
    import re

    from host_tools.device.flash import Interrupted
    lines = Interrupted([], {"A": (0, 1), "B": (500, 1000), "C": (1000, 1000), "D": (1, 1)},
                        ["A", "B", "C", "D", "E"]).lines()
    assert [re.split("[,:]", x.split(": ", 1)[1])[0] for x in lines] == [
        "stopped at 0%", "stopped at 50%", "stopped at 100%",
        "flashed", "stopped before anything was written"]


def _badge_status(port, badge, name, chip):
    return {"etat": "pleine-forme", "armure": 1, "effets": {}, "jeu": "en-jeu",
            "board": "atom-lite", "firmware": "0.1.0", "uptime_ms": 1000, "id": chip,
            "badge": badge, "personnage": name, "clock": time.time()}


def test_status_flags_two_badges_answering_as_one_in_red_with_what_to_do(
        monkeypatch, capsys):
    # Issue 35: two badges both b01 and Godefroy (a copied roster) listed side by side,
    # nothing said. Now both rows and a line saying what to do, in red on a terminal,
    # and exit 1.
    from host_tools import cli
    answers = {"/dev/ttyUSB0": _badge_status("P", "b01", "Godefroy", "aa01"),
               "/dev/ttyUSB1": _badge_status("P", "b02", "Ali", "aa02"),
               "/dev/ttyUSB2": _badge_status("P", "b01", "Godefroy", "aa03"),
               "/dev/ttyUSB3": _badge_status("P", "b04", "Ali", "aa04")}
    monkeypatch.setattr(badgeport, "status", lambda port, timeout=None: answers[port])
    monkeypatch.setenv("FORCE_COLOR", "1")
    args = ["status"] + [x for port in answers for x in ("--port", port)]
    assert cli.main(args) == 1
    out = capsys.readouterr().out
    lines = out.splitlines()
    red = "\x1b[1;31m"
    assert [line.startswith(red) for line in lines[1:5]] == [True, True, True, True]
    said = [line for line in lines[5:]]
    assert said[0].startswith(red + "TWICE: badge name b01 answers on /dev/ttyUSB0 (b01 "
                              "(aa01)) and /dev/ttyUSB2 (b01 (aa03)) (both Godefroy)")
    assert "cran flash --roster ROSTER --port /dev/ttyUSB2 --as NAME" in said[0]
    assert said[1].startswith(red + "TWICE: character Ali is played on /dev/ttyUSB1")
    assert len(said) == 2
    # Not a terminal: the same words, no colour; one badge a name: nothing said, exit 0.
    monkeypatch.delenv("FORCE_COLOR")
    answers["/dev/ttyUSB2"] = _badge_status("P", "b03", "Nico", "aa03")
    answers["/dev/ttyUSB3"] = _badge_status("P", "b04", "Aude", "aa04")
    assert cli.main(args) == 0
    out = capsys.readouterr().out
    assert "TWICE" not in out and "\x1b" not in out and len(out.splitlines()) == 5


def test_a_badge_that_can_t_be_read_is_said_under_the_table_not_in_its_etat_column(
        monkeypatch, capsys):
    # A 300-character error in the etat column pushed every column off the screen.
    from host_tools import cli
    long = "/dev/ttyUSB1: " + "the badge's firmware does not answer " * 8

    def status(port, timeout=None):
        if port == "/dev/ttyUSB1":
            raise badgeport.BadgeError(long)
        return _badge_status(port, "b01", "Ali", "aa01")
    monkeypatch.setattr(badgeport, "status", status)
    assert cli.main(["status", "--port", "/dev/ttyUSB0", "--port", "/dev/ttyUSB1"]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines[2].split() == ["/dev/ttyUSB1", "-", "-", "error", "(below)"]
    assert max(len(line) for line in lines[:3]) < 100
    assert lines[3] == "error: " + long


def test_a_copied_renamed_or_re_exported_roster_gives_no_name_nor_character_twice(
        tmp_path, monkeypatch):
    # Issue 35: three badges flashed from roster.csv, then `cp roster.csv roster-v2.csv`
    # and a new badge from the copy: "new badge ... is b01, Godefroy". What this
    # computer gave out was kept per roster file; it is kept per game (its key's id)
    # and per character now.
    from host_tools.device import flash, jobs
    from host_tools.game import given
    monkeypatch.setenv("CRAN_HOME", str(tmp_path / "home"))
    text = ("name,armor,board,badge\nGodefroy,metal,atom-lite,b01\nAli,none,atom-lite,b02\n"
            "Nico,none,atom-lite,b03\nAude,cuir,atom-lite,b04\n")
    first = tmp_path / "roster.csv"
    first.write_text(text)

    def free(path, game):
        rows = jobs.jobs(["/dev/ttyNOPE0"], roster=str(path))[2]
        rows.game = game
        return [badge for _, badge, _ in rows.free_rows()], rows

    names, rows = free(first, "g1")
    assert names == ["b01", "b02", "b03", "b04"]
    rows.remember([{"badge": "b01", "id": "aa01", "personnage": "Godefroy"},
                   {"badge": "b02", "id": "aa02", "personnage": "Ali"}])
    copy = tmp_path / "roster-v2.csv"
    copy.write_text(text)
    assert free(copy, "g1")[0] == ["b03", "b04"]
    assert free(first, "g1")[0] == ["b03", "b04"]
    # Exported again with other badge names: Ali has a badge already, b02 or not.
    again = tmp_path / "Feuille 1.csv"
    again.write_text(text.replace("b0", "c0"))
    names, rows = free(again, "g1")
    assert names == ["c03", "c04"]
    # ... and Ali's badge, b02 on its sticker, is in no row of it: said, with the way out.
    todo, find, rows = jobs.jobs(["/dev/ttyNOPE0"], roster=str(again))
    rows.game = "g1"
    with pytest.raises(flash.CommandError) as caught:
        find("aa02", "b02")
    assert ("badge b02 (aa02) is in no row of %s: this game gave it to Ali, whose row here "
            "names badge c02: put b02 back in that row's badge column" % again) \
        in str(caught.value)
    # Another game (another key): nothing of this one's is taken there.
    assert free(copy, "g2")[0] == ["b01", "b02", "b03", "b04"]
    # What an older cran kept (by the roster's path) still counts for that roster.
    ledger = tmp_path / "home" / given.LEDGER
    kept = json.loads(ledger.read_text())
    kept[os.path.realpath(str(copy))] = {"b04": "aa04"}
    ledger.write_text(json.dumps(kept))
    assert free(copy, "g1")[0] == ["b03"]


def test_radio_json_is_written_again_checked_its_tokens_checked_against_their_chains():
    # Issue 34: radio.json had no check and cran flash never wrote it: one flipped bit
    # raised a token's index for good or gave the anchor back, silently. Now it carries
    # a CRC-32 (cran.storage.check_line) and the flash writes it again, keeping a token
    # only if it steps back to its authority's anchor in the config it writes.
    from cran import radio
    from cran.radio.start import read_checked
    from cran.storage import check_line
    from host_tools.device.flash import radio_kept
    from host_tools.game.chains import chain_token
    seed, gm = b"G" * 16, "5a" * 6
    section = {"role": "badge", "authorities": {gm: ["gm", chain_token(seed, 0).hex()]}}

    def kept(spent, mark=256, checked=True):
        body = json.dumps({"mark": mark, "spent": spent}).encode()
        return check_line(body) + body if checked else body

    # A fresh badge gets a file; one as the badge wrote it is left as it is.
    fresh, note = radio_kept(None, section)
    assert read_checked(fresh) == {"mark": 0, "spent": {}} and note is None
    good = kept({gm: [5, chain_token(seed, 5).hex()]})
    assert radio_kept(good, section) == (good, None)
    # An older firmware's, without its check: its token checks against its chain, kept.
    older, note = radio_kept(kept({gm: [5, chain_token(seed, 5).hex()]}, checked=False),
                             section)
    assert read_checked(older)["spent"] == {gm: [5, chain_token(seed, 5).hex()]} and not note
    # Damaged (the issue's `{"spent": []}`, a flipped bit): said, the counter past any
    # number it gave, the tokens from their anchors (the badge refused them meanwhile).
    flipped = bytearray(good)
    flipped[len(flipped) // 2] ^= 4
    for damaged in (b'{"spent": []}', bytes(flipped)):
        again, note = radio_kept(damaged, section)
        assert read_checked(again) == {"mark": 1 << 31, "spent": {}}
        assert note.startswith("radio.json was damaged (") and "anchors" in note
    # A token of another chain (a new game's anchors), or the badge's own refusal of a
    # damaged file (cran.radio.start: the chain's far end): the anchor, the mark kept.
    for spent in ({gm: [5, chain_token(b"H" * 16, 5).hex()]},
                  {gm: [radio.CHAIN_STEPS, chain_token(seed, 0).hex()]}):
        again, note = radio_kept(kept(spent, mark=1 << 31), section)
        assert read_checked(again) == {"mark": 1 << 31, "spent": {}} and note is None


def test_the_start_names_every_module_of_its_package_to_let_go():
    # On a badge the start's package is no module and its modules have other names
    # (build.flattened): cran.start.phases lets them go by their import names, listed.
    from cran.start import phases
    found = sorted("cran.start." + name[:-3] for name in os.listdir(
        os.path.join(FIRMWARE_DIR, "cran", "start"))
        if name.endswith(".py") and name not in ("__init__.py", "phases.py"))
    assert sorted(phases._START_ONLY) == found
