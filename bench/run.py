# `make bench`: figures, not pass/fail. Targets are printed beside the measures, and
# docs/PERFORMANCE.md is written with them and what changed since its last figures.
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, REPO)
sys.path.insert(0, os.path.join(REPO, "bench"))

import badge_day  # noqa: E402
import report  # noqa: E402

from host_tools import FIRMWARE_DIR  # noqa: E402
from host_tools.runtimes import (  # noqa: E402
    BADGE_HEAP_KB,
    HOW_TO_GET_MICROPYTHON,
    board_ids,
    find_micropython,
    find_micropython32,
)

TARGET_MP_US = report.TARGET_ENGINE_US


def engine_figures(cmd):
    script = os.path.join(REPO, "bench", "engine_bench.py")
    best = None
    for _ in range(3):   # best of three: the least disturbed run
        out = subprocess.run(cmd + [script, FIRMWARE_DIR], capture_output=True, text=True,
                             check=True).stdout.split()
        if best is None or float(out[4]) < float(best[4]):
            best = out
    return best


def engine(mp):
    print("engine: actions per second and microseconds per action (best of 3)")
    rows = [engine_figures([sys.executable])]
    if mp:
        rows.append(engine_figures([mp]))
    else:
        print("  micropython: skipped: " + HOW_TO_GET_MICROPYTHON)
    out = {}
    for name, count, seconds, per_s, us, heap in rows:
        note = ""
        if name == "micropython":
            verdict = "within" if float(us) < TARGET_MP_US else "OVER"
            note = "  %s bytes/action;  target < %.0f us: %s (about %.1f ms on an ESP32)" % (
                heap, TARGET_MP_US, verdict, float(us) * 50 / 1000)
        print("  %-12s %8s actions in %6ss  %9s actions/s  %7s us/action%s"
              % (name, count, seconds, per_s, us, note))
        out[name] = {"actions": int(count), "actions_per_s": float(per_s),
                     "us_per_action": float(us)}
    return out


def badges(mp64):
    """Every board: memory in 32-bit (the ESP32's object sizes) when micropython32 is
    there, press times in the 64-bit unix port."""
    mp32 = find_micropython32()
    if mp32 is None:
        print("no 32-bit MicroPython (../shared/tools/micropython32, or set "
              "CRAN_MICROPYTHON32): the heap figures below are the 64-bit port's, about "
              "1.4x a badge's, NOT the ESP32's")
    memory_exe = mp32 or mp64
    os.environ["CRAN_MICROPYTHON"] = memory_exe    # what the badge driver runs on
    boards = board_ids()
    # Boards in parallel (each run is one MicroPython process); the press times after,
    # one board at a time, on a quieter machine.
    with ThreadPoolExecutor(max_workers=max(2, os.cpu_count() or 2)) as pool:
        days = pool.map(lambda b: badge_day.figures(b, BADGE_HEAP_KB), boards)
        garbage = pool.map(lambda b: badge_day.probe(memory_exe, b), boards)
        days, garbage = list(days), list(garbage)
    timing = [badge_day.probe(mp64, b) for b in boards]
    return {"bits": 32 if mp32 else 64, "budget_kb": BADGE_HEAP_KB,
            "boards": {b: report.board_figures(d, g, t)
                       for b, d, g, t in zip(boards, days, garbage, timing)}}


def main():
    mp64 = find_micropython()
    figures = {"engine": engine(mp64)}
    if mp64 is None:
        print("badges: skipped: " + HOW_TO_GET_MICROPYTHON)
        return
    figures.update(badges(mp64))
    path = os.path.join(REPO, "docs", "PERFORMANCE.md")
    previous = report.read_figures(path)
    print()
    text = report.render(figures, previous)
    print(text)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    print("written: docs/PERFORMANCE.md")


main()
