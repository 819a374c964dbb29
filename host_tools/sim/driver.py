# The live badge in its own process (the MicroPython unix port or CPython), one JSON
# line each way (host_tools/virtual/scripts/live_driver.py); and the wearer's config from the files
# `cran sim` is given, checked by the firmware's own config loader before it starts.
import json
import os
import shutil
import subprocess
import tempfile

from gamefiles import scenario
from host_tools import FIRMWARE_DIR, CommandError
from host_tools.boards import BOARDS_DIR
from host_tools.game.gamekey import KEY_FILE
from host_tools.home import write_private
from host_tools.virtual import SCRIPTS_DIR
from host_tools.virtual.micropython import sys_path
from host_tools.virtual.runtimes import (
    HOW_TO_GET_CIRCUITPYTHON,
    HOW_TO_GET_MICROPYTHON,
    circuitpython_path,
    interpreter,
)

DRIVER = os.path.join(SCRIPTS_DIR, "live_driver.py")
RADIO_FILE = "radio.json"   # cran.radio.link's, in the flash's root
# Fields that mark a JSON file as a badge config (`cran config`), not a bare character.
_WEARER_KEYS = ("character", "settings", "lang", "volume_percent", "light_sleep")


class DriverError(Exception):
    """The badge process is gone, or said something that is not a frame."""


class BadgeDriver:
    """One badge booted in a driver process. .hello describes the board, .first is the
    boot frame; send(command) -> the frame (or {"error": ...}) it answers. field: the
    variables that put it on a virtual field (fieldnet.member_env), where it lives in
    real time; game_key: the key its flash holds, as `cran flash` gives it; radio_kept:
    a file for its radio's radio.json (its counter's mark...) from one run to the next,
    as a badge's flash keeps it: a station still running drops a counter that starts
    again from 0 as replayed."""

    def __init__(self, board, config, runtime, firmware=FIRMWARE_DIR, field=None,
                 game_key=None, radio_kept=None):
        exe = interpreter(runtime)
        if exe is None:
            raise DriverError(HOW_TO_GET_CIRCUITPYTHON if runtime == "circuitpython"
                            else HOW_TO_GET_MICROPYTHON)
        self.runtime = runtime
        self.config = config   # what the badge booted with (the sim's `character` changes it)
        self.field = field
        self.radio_kept = radio_kept
        self.flash = tempfile.mkdtemp(prefix="cran-sim-")
        # The virtual parts: CircuitPython's (and Adafruit's libraries, as on a drive).
        parts = (circuitpython_path(self.flash) if runtime == "circuitpython"
                 else sys_path(runtime))
        root = os.path.join(self.flash, "badge")   # the driver's flash root
        for path, data in ((KEY_FILE, game_key), (RADIO_FILE, _read(radio_kept))):
            if data is not None:
                os.makedirs(root, exist_ok=True)
                with open(os.path.join(root, path), "wb") as f:
                    f.write(data)
        # A file, not a pipe: a chatty stderr must never block the driver mid-frame.
        self._stderr = tempfile.TemporaryFile(mode="w+")
        try:
            self.proc = subprocess.Popen(
                [exe, DRIVER, firmware, BOARDS_DIR, self.flash, board] + parts,
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._stderr, text=True,
                bufsize=1, env=dict(os.environ, **field) if field else None)
        except OSError as e:
            self._stderr.close()
            shutil.rmtree(self.flash, ignore_errors=True)
            raise DriverError("cannot run %s (%s): %s" % (exe, runtime, e.strerror or e)) from None
        try:
            try:   # the driver's first line (not argv: the unix port takes < 256 bytes)
                self.proc.stdin.write(json.dumps(config) + "\n")
                self.proc.stdin.flush()
            except (BrokenPipeError, OSError):
                raise DriverError(self._gone()) from None
            first = self._read()
            if "error" in first:
                raise DriverError("the badge could not start (%s): %s" % (runtime, first["error"]))
        except DriverError:
            self.close()
            raise
        self.hello = first.pop("hello")
        self.first = first

    def send(self, command):
        try:
            self.proc.stdin.write(json.dumps(command) + "\n")
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError, ValueError):
            raise DriverError(self._gone()) from None
        return self._read()

    def _read(self):
        line = self.proc.stdout.readline()
        if not line:
            raise DriverError(self._gone())
        try:
            out = json.loads(line)
        except ValueError:
            out = None
        if not isinstance(out, dict):
            raise DriverError("the badge process (%s) said %r: not a frame" % (
                self.runtime, line[:200]))
        return out

    def _gone(self):
        code = self.proc.poll()
        self._stderr.seek(0)
        tail = self._stderr.read()[-2000:].strip()
        return "the badge process (%s) %s%s" % (
            self.runtime, "ended" if code is None else "ended with exit %d" % code,
            (":\n" + tail) if tail else "")

    def close(self):
        if self.proc.poll() is None:
            try:
                self.proc.stdin.close()
                self.proc.wait(timeout=3)
            except (OSError, subprocess.TimeoutExpired):
                self.proc.kill()
                self.proc.wait()
        for stream in (self.proc.stdout, self.proc.stdin):
            try:
                stream.close()
            except OSError:
                pass
        self._stderr.close()
        kept = _read(os.path.join(self.flash, "badge", RADIO_FILE))
        if self.radio_kept is not None and kept is not None:
            write_private(self.radio_kept, kept.decode("utf-8", "replace"))
        shutil.rmtree(self.flash, ignore_errors=True)


def _read(path):
    try:
        with open(path, "rb") as f:
            return f.read()
    except (OSError, TypeError):   # none yet (or no path)
        return None


# ---- who wears it ---------------------------------------------------------------------

def read_wearer(path):
    """--character FILE -> (config fields, board id or None). FILE is a badge config as
    `cran config` writes it (its character, settings, lang... are used), a bare
    character object (JSON), or a scenario file (its character line)."""
    from cran.core.choices import as_dict
    try:
        with open(path, encoding="utf-8-sig") as f:   # a byte-order mark goes
            text = f.read()
    except OSError as e:
        raise CommandError("%s: cannot read: %s" % (path, e.strerror or e)) from None
    if text.lstrip().startswith("{"):
        try:
            raw = json.loads(text)
        except ValueError as e:
            raise CommandError("%s: not valid JSON: %s" % (path, e)) from None
        if any(key in raw for key in _WEARER_KEYS + ("board",)):
            # Everything but the board goes to the badge: the firmware's loader names
            # any field it doesn't know.
            return dict((k, v) for k, v in raw.items() if k != "board"), raw.get("board")
        return {"character": raw}, None
    firsts = [line.split("#", 1)[0].split()[:1] for line in text.splitlines()]
    has_character = any(w and w[0].lower() in ("character", "personnage") for w in firsts)
    try:
        parsed = scenario.parse(text)
    except scenario.ScenarioError as e:
        from host_tools.game.scenarios import faults_text
        raise CommandError(faults_text(path, e) + ("" if has_character else (
            "\n%s: expected a JSON config or character, or a scenario file with a "
            "character line" % path)), prefixed=False) from None
    if not has_character:
        raise CommandError("%s: not JSON, and no character line to take" % path)
    return {"character": as_dict(parsed.character)}, None


def check_wearer(board, config, named):
    """The firmware's own checks (cran.config.load) on the config the badge will boot
    with on board (a Board, checked); a fault -> CommandError naming `named` (the file it
    came from) and the field."""
    from host_tools.game.roster import RosterError, firmware_check
    cfg = {"board": board.id}
    cfg.update(config)
    try:
        firmware_check(cfg, named)
    except RosterError as e:
        raise CommandError("\n".join(e.messages)) from None
