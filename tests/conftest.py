import os
import platform
import subprocess
import sys

import pytest

from host_tools.virtual.runtimes import HOW_TO_GET_MICROPYTHON, find_micropython

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCENARIO_DIR = os.path.join(REPO, "examples", "scenarios")
# ESP32 ticks wrap at 2**30 ms: start one minute before the wrap.
WRAP_START = (1 << 30) - 60000


@pytest.fixture(scope="session", autouse=True)
def _own_build_cache(tmp_path_factory):
    # Modules `cran flash` compiles are cached in a folder of this run, not the user's.
    os.environ["CRAN_CACHE"] = str(tmp_path_factory.mktemp("mpy-cache"))
    # Game keys (the key ring, this computer's own key) in a folder of this run too.
    os.environ["CRAN_HOME"] = str(tmp_path_factory.mktemp("cran-home"))


def scenario_files():
    return sorted(os.path.join(SCENARIO_DIR, name) for name in os.listdir(SCENARIO_DIR)
                  if name.endswith(".txt"))


def scenario_texts():
    """[(file name, text)] of every example scenario."""
    out = []
    for path in scenario_files():
        with open(path, encoding="utf-8") as f:
            out.append((os.path.basename(path), f.read()))
    return out


def bare_trace(text, start_tick=0):
    """The bare engine's trace of a scenario, through JSON as a badge's trace comes
    (tuples become lists)."""
    import json

    from gamefiles import scenario
    return json.loads(json.dumps(list(scenario.run(scenario.parse(text), start_tick))))


def _wheel_exists_here():
    return sys.platform == "linux" and platform.machine() == "x86_64"


@pytest.fixture(scope="session")
def micropython():
    """Path of the MicroPython unix port. Where its PyPI wheel exists (Linux x86-64),
    a missing one is a broken install, not a reason to skip."""
    exe = find_micropython()
    if exe is None:
        if _wheel_exists_here():
            pytest.fail(HOW_TO_GET_MICROPYTHON)
        pytest.skip(HOW_TO_GET_MICROPYTHON)
    return exe


def run_cran(*args, stdin=None, env=None):
    """Run the real `cran` command (as `python -m host_tools`) -> CompletedProcess.
    env: variables to set for it (CRAN_HOME: another computer's key ring)."""
    return subprocess.run([sys.executable, "-m", "host_tools", *args], capture_output=True,
                          text=True, cwd=REPO, input=stdin, timeout=120,
                          env=dict(os.environ, **env) if env else None)


def check_results(results):
    """Checks batched into one interpreter run -> a getter that fails clearly when a
    check did not run or crashed inside it."""
    def get(name):
        assert name in results, "check %s did not run" % name
        assert "crash" not in results[name], results[name]["crash"]
        return results[name]["result"]
    return get


def app_driver_checks(micropython, driver, flash):
    """One of tests/mp's batched app drivers (app_driver.py, link_driver.py: their
    checks as tests/mp/checks.py prints them) run once in MicroPython, its badges'
    flash under flash -> check_results' getter."""
    import json

    from host_tools import FIRMWARE_DIR
    from host_tools.boards import BOARDS_DIR
    from host_tools.virtual.micropython import sys_path
    out = subprocess.run([micropython, os.path.join(REPO, "tests", "mp", driver),
                          FIRMWARE_DIR, BOARDS_DIR, flash, *sys_path("micropython")],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-2000:]
    return check_results({r["id"]: r for r in map(json.loads, out.stdout.splitlines())})


# ---- pictures: where their texts are ------------------------------------------------------

SVG_NS = "{http://www.w3.org/2000/svg}"


class Box:
    def __init__(self, text, left, top, right, bottom):
        self.text, self.left, self.top, self.right, self.bottom = text, left, top, right, bottom

    def touches(self, other):
        return (self.left < other.right and other.left < self.right
                and self.top < other.bottom and other.top < self.bottom)

    def __repr__(self):
        return "%r at x %.0f-%.0f y %.0f-%.0f" % (self.text, self.left, self.right,
                                                  self.top, self.bottom)


def text_boxes(svg_text):
    """Each <text>'s box, from its x, y, size, anchor and weight and the width the
    pictures lay text out by (host_tools.paper.picture.text_width, which tests/test_picture.py
    holds to the font): cap height and accents above the baseline, descenders below."""
    import xml.etree.ElementTree as ET

    from host_tools.paper.picture import text_width
    boxes = []
    for t in ET.fromstring(svg_text).iter(SVG_NS + "text"):
        text = "".join(t.itertext())
        size = float(t.get("font-size"))
        w = text_width(text, size, t.get("font-weight") == "bold")
        x, y = float(t.get("x")), float(t.get("y"))
        left = {"start": x, "middle": x - w / 2, "end": x - w}[t.get("text-anchor", "start")]
        boxes.append(Box(text, left, y - 0.8 * size, left + w, y + 0.25 * size))
    return boxes


def overlapping(boxes):
    """The pairs of boxes that touch: a sweep along x, not every pair."""
    found = []
    boxes = sorted(boxes, key=lambda b: b.left)
    for i, a in enumerate(boxes):
        for b in boxes[i + 1:]:
            if b.left >= a.right:
                break
            if a.touches(b):
                found.append((a, b))
    return found


def svg_size(svg_text):
    import xml.etree.ElementTree as ET
    root = ET.fromstring(svg_text)
    return float(root.get("width")), float(root.get("height"))


def _sigint_default():
    import signal
    signal.signal(signal.SIGINT, signal.SIG_DFL)


class Terminal:
    """`cran ARGS` run as a person runs it: stdin, stdout and stderr on one
    pseudo-terminal of 120x40 (stderr: a file instead, given its path). wait_for(text)
    reads what it draws until text shows, type(keys) types, finish() reads to the end ->
    (exit code, all it drew, escapes removed)."""

    def __init__(self, *args, env=None, cwd=REPO, stderr=None):
        import pty
        import struct
        import termios
        from fcntl import ioctl
        self.main, side = pty.openpty()
        ioctl(side, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
        full_env = dict(os.environ, TERM="xterm-256color", COLUMNS="120", LINES="40",
                        **(env or {}))
        # stderr: a file its stderr goes to instead (`cran sim 2>err.log`).
        err = side if stderr is None else open(stderr, "wb")
        # Ctrl-C (SIGINT) as a terminal's foreground command gets it: a suite started in
        # the background (`make test &`, nohup) hands its children SIGINT ignored, and
        # Python then never raises KeyboardInterrupt.
        # -X faulthandler: a wait that runs out shows where its threads were (_stacks).
        self.stderr = stderr
        self.proc = subprocess.Popen([sys.executable, "-X", "faulthandler", "-m",
                                      "host_tools", *args], cwd=cwd,
                                     env=full_env, stdin=side, stdout=side, stderr=err,
                                     start_new_session=True, preexec_fn=_sigint_default)
        if stderr is not None:
            err.close()
        os.close(side)
        self.raw = b""

    def text(self, since=0):
        """What it drew (from byte `since` on), escapes removed."""
        import re
        text = self.raw[since:].decode("utf-8", "replace")
        escapes = (r"\x1b\[[0-9;?<>=]*[A-Za-z~]"       # CSI: moves, colours, modes
                   r"|\x1b[\]P_].*?(\x07|\x1b\\)"      # OSC, DCS, APC strings
                   r"|\x1b[=>()][0-9A-Za-z]?")         # keypad modes, character sets
        text = re.sub(escapes, "", text)
        return text.replace("\r\n", "\n").replace("\r", "\n")

    def _read(self, timeout):
        """What came within timeout s: bytes, b"" at the end, None for nothing yet."""
        import select
        ready, _, _ = select.select([self.main], [], [], timeout)
        if not ready:
            return None
        try:
            chunk = os.read(self.main, 65536)
        except OSError:   # EIO: every end of the terminal's other side is closed
            return b""
        self.raw += chunk
        return chunk

    def wait_for(self, text, timeout=60, since=0):
        """Read until text shows (in what it drew from byte `since` on)."""
        import time
        end = time.monotonic() + timeout
        while text not in self.text(since):
            if time.monotonic() >= end:
                drawn = self.text()[-3000:]
                raise AssertionError("%r never shown; it drew:\n%s\nits threads then:\n%s"
                                     % (text, drawn, self._stacks()))
            ended = self._read(0.2) == b"" or self.proc.poll() is not None
            if ended and text not in self.text(since):
                raise AssertionError("ended (%s) before %r showed:\n%s" % (
                    self.proc.returncode, text, self.text()[-3000:]))

    def _stacks(self):
        """Where its threads are, for a wait that ran out (a hang or a slow machine):
        faulthandler's dump on SIGABRT, which ends it."""
        import signal
        import time
        if self.proc.poll() is not None:
            return "(it had ended, exit %s)" % self.proc.returncode
        mark = len(self.raw)
        self.proc.send_signal(signal.SIGABRT)
        end = time.monotonic() + 10
        while self.proc.poll() is None and time.monotonic() < end:
            self._read(0.2)
        while self._read(0.1):
            pass
        if self.stderr is not None:
            with open(self.stderr, errors="replace") as f:
                return f.read()[-4000:]
        return self.text(mark)[-4000:]

    def type(self, keys):
        os.write(self.main, keys.encode())

    def console(self, line):
        """cran sim's console: `:` opens its line, and once it is drawn (its
        placeholder), the line is typed, then Enter."""
        self.type(":")
        self.wait_for("a console line:", since=len(self.raw))
        self.type(line + "\r")

    def finish(self, timeout=60):
        import time
        end = time.monotonic() + timeout
        while self.proc.poll() is None:
            self._read(0.2)
            if time.monotonic() > end:
                self.proc.kill()
                raise AssertionError("still running after %d s:\n%s" % (
                    timeout, self.text()[-3000:]))
        while self._read(0.1):   # what it drew last, up to its end
            pass
        os.close(self.main)
        return self.proc.wait(), self.text()
