"""MicroPython's own tests on `cran vchip`, run by MicroPython's own harnesses, as its
developers run them on an ESP32 (v1.28.0, ../shared/upstream: unchanged, read only):

    python tests/vchip_upstream.py [RUN-TESTS ARGS]   run-tests.py, the vchip its target
                                    (default: -d extmod micropython ports/esp32)
    python tests/vchip_upstream.py --multi TEST...    run-multitests.py, two vchips on one
                                    virtual field's air (multi_espnow/*.py, multi_wlan/...)

The vchip is the harness's "unix" target (MICROPY_MICROPYTHON, a script that runs `cran
vchip` with the arguments it is given), with what run-tests.py gives a board: the
ESP32's target_wiring (tests/target_wiring/esp32.py) in the chip's /lib. Results and
failures' .out/.exp in a folder of their own (printed). tests/test_upstream.py runs a
part of this; docs/vchip.md lists what differs from an ESP32 and why."""
import json
import os
import shutil
import subprocess
import sys
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
UPSTREAM = os.path.join(os.path.dirname(REPO), "shared", "upstream", "micropython-v1.28.0",
                        "tests")
DEFAULT_DIRS = ["-d", "extmod", "micropython", "ports/esp32"]


def make_chip(folder, field=None):
    """A vchip as the harnesses run an instance: a script in folder -> its path."""
    lib = os.path.join(folder, "lib")
    os.makedirs(lib, exist_ok=True)
    shutil.copy(os.path.join(UPSTREAM, "target_wiring", "esp32.py"),
                os.path.join(lib, "target_wiring.py"))
    chip = os.path.join(folder, "chip.sh")
    with open(chip, "w") as f:
        # Not `python -m host_tools`: the tests' own folder (the harness's working one)
        # would come first on CPython's path, and its micropython/ be the package.
        f.write("#!/bin/sh\nexec '%s' -c 'import sys; sys.path[0] = \"%s\"; from "
                "host_tools.cli import main; sys.exit(main())' vchip --lib '%s'%s \"$@\"\n"
                % (sys.executable, REPO, lib, " --field %s" % field if field else ""))
    os.chmod(chip, 0o755)
    return chip


def _env():
    # Nothing written beside the tests (they are MicroPython's, read only).
    return dict(os.environ, PYTHONPATH=REPO, PYTHONDONTWRITEBYTECODE="1")


def run_tests(args, folder, jobs=2, timeout=900):
    """run-tests.py ARGS with the vchip its target, results under folder -> (its output,
    {test: "pass" | "skip" | "fail" | "ignored"})."""
    results = os.path.join(folder, "results")
    env = dict(_env(), MICROPY_MICROPYTHON=make_chip(folder))
    done = subprocess.run([sys.executable, "run-tests.py", "-j", str(jobs), "-r", results]
                          + list(args), cwd=UPSTREAM, env=env, capture_output=True,
                          text=True, timeout=timeout)
    try:
        with open(os.path.join(results, "_results.json")) as f:
            verdicts = {test: verdict for test, verdict, _ in json.load(f)["results"]}
    except OSError:
        verdicts = {}
    return done.stdout + done.stderr, verdicts


def run_multitests(tests, folder, field, timeout=300):
    """run-multitests.py over tests (multi_espnow/10_simple_data.py...) between two
    vchips on the field `field` (its air started here) -> CompletedProcess."""
    from host_tools.field import fieldnet
    chip = make_chip(folder, field)
    hub = fieldnet.Hub(field)
    try:
        return subprocess.run(
            [sys.executable, "run-multitests.py", "-r", os.path.join(folder, "results"),
             "-t", "exec:%s" % chip, "-t", "exec:%s" % chip] + list(tests),
            capture_output=True, text=True, cwd=UPSTREAM, timeout=timeout, env=_env())
    finally:
        hub.close()


def main(argv):
    if not os.path.isdir(UPSTREAM):
        print("no MicroPython tests at %s" % UPSTREAM, file=sys.stderr)
        return 2
    folder = tempfile.mkdtemp(prefix="cran-vchip-upstream-")
    if argv[:1] == ["--multi"]:
        sys.path.insert(0, REPO)
        done = run_multitests(argv[1:], folder, "up%d" % os.getpid())
        print(done.stdout + done.stderr)
        return done.returncode
    out, verdicts = run_tests(argv or DEFAULT_DIRS, folder, timeout=3600)
    print(out)
    print("results, failures' .out and .exp: %s/results" % folder)
    return 1 if [v for v in verdicts.values() if v == "fail"] else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
