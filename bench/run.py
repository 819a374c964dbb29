# `make bench`: figures, not pass/fail. Targets are printed beside the measures.
import os
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, REPO)

from host_tools import FIRMWARE_DIR  # noqa: E402
from host_tools.runtimes import BOARDS_DIR, HOW_TO_GET_MICROPYTHON, find_micropython  # noqa: E402

TARGET_MP_US = 50.0   # per action in the unix port; an ESP32 is about 50 times slower


def engine_figures(cmd):
    script = os.path.join(REPO, "bench", "engine_bench.py")
    best = None
    for _ in range(3):   # best of three: the least disturbed run
        out = subprocess.run(cmd + [script, FIRMWARE_DIR], capture_output=True, text=True,
                             check=True).stdout.split()
        if best is None or float(out[4]) < float(best[4]):
            best = out
    return best


def main():
    print("engine: actions per second and microseconds per action (best of 3)")
    rows = [engine_figures([sys.executable])]
    mp = find_micropython()
    if mp:
        rows.append(engine_figures([mp]))
    else:
        print("  micropython: skipped: " + HOW_TO_GET_MICROPYTHON)
    for name, count, seconds, per_s, us, heap in rows:
        note = ""
        if name == "micropython":
            verdict = "within" if float(us) < TARGET_MP_US else "OVER"
            note = "  %s bytes/action;  target < %.0f us: %s (about %.1f ms on an ESP32)" % (
                heap, TARGET_MP_US, verdict, float(us) * 50 / 1000)
        print("  %-12s %8s actions in %6ss  %9s actions/s  %7s us/action%s"
              % (name, count, seconds, per_s, us, note))


def badge_day(mp):
    """The whole app through a 12-hour game day, modules from source, then as a badge gets
    them, compiled to .mpy by `cran flash`: for the latter, the smallest -X heapsize that
    lives through it is the day's real peak (sampling the heap would miss the peaks)."""
    import json
    import tempfile

    from host_tools.build import compile_firmware
    from host_tools.vhw import sys_path
    script = os.path.join(REPO, "bench", "badge_day.py")

    def day(heap_kb, firmware):
        with tempfile.TemporaryDirectory() as flash:
            r = subprocess.run([mp, "-X", "heapsize=%dk" % heap_kb, script, firmware,
                                BOARDS_DIR, flash]
                               + sys_path("micropython"), capture_output=True, text=True)
        return json.loads(r.stdout) if r.returncode == 0 else None

    def smallest_heap(firmware):
        low, high = 16, 4096        # KB: dies at low, lives at high
        while high - low > 4:
            mid = (low + high) // 2
            if day(mid, firmware):
                high = mid
            else:
                low = mid
        return high

    figures = day(4096, FIRMWARE_DIR)
    with tempfile.TemporaryDirectory() as compiled:
        compile_firmware(compiled)
        as_mpy = day(4096, compiled)
        mpy_heap = smallest_heap(compiled)
    print("badge (atom-lite, whole app on virtual hardware, 12-hour game day, one fight an hour):")
    print("  heap in use after boot      %7d B (boot itself keeps %d B)"
          % (figures["heap_after_boot"], figures["boot_keeps"]))
    # No smallest heap from source: there the compiler's transient needs at import
    # decide it, and they jump with a few lines' change (195 KB, then 294 KB, for code
    # whose live heap stayed the same); a badge loads .mpy.
    print("  live heap, hourly peak      %7d B (64-bit unix port; an ESP32's objects are"
          " about half the size)" % figures["live_peak_hourly"])
    print("  same, firmware as .mpy      %7d B after boot, %d KB smallest heap (no compiler"
          " at import)" % (as_mpy["heap_after_boot"], mpy_heap))
    print("  bytes allocated / idle tick %7.1f    (target 0)" % figures["idle_tick_bytes"])
    print("  wake-ups per idle minute    %7d    (target <= 2)" % figures["wakeups_idle_minute"])

main()
mp_exe = find_micropython()
if mp_exe:
    badge_day(mp_exe)
