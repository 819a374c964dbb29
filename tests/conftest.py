import os
import platform
import subprocess
import sys

import pytest

from host_tools.runtimes import HOW_TO_GET_MICROPYTHON, find_micropython

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
