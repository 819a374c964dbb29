# `make bench`: figures, not pass/fail. Targets are printed beside the measures.
import os
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, REPO)

from host_tools import FIRMWARE_DIR  # noqa: E402
from host_tools.runtimes import (  # noqa: E402
    BOARDS_DIR,
    HOW_TO_GET_MICROPYTHON,
    board_ids,
    find_micropython,
)

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
    print("  wake-ups per idle minute    %7d    (target <= 15: idle_look blink, two edges"
          " every 8.2 s; steady: 2)" % figures["wakeups_idle_minute"])

TARGET_HOURS = 72          # three game days, Atom Lite, on 500 mAh
CAPACITY_MAH = 500
# (label, board, config): every board as flashed by default, and the Atom Lite with
# what the defaults save turned back off, to show what each saves.
POWER_RUNS = [(b, b, {}) for b in board_ids()] + [
    ("atom-lite, steady LED", "atom-lite", {"settings": {"idle_look": "steady"}}),
    ("atom-lite, never sleeps", "atom-lite", {"light_sleep": False}),
]


def power_day(mp, board, config):
    """One board's 12-hour day (bench/power_day.py) -> meter counts."""
    import json
    import tempfile

    from host_tools.vhw import sys_path
    script = os.path.join(REPO, "bench", "power_day.py")
    with tempfile.TemporaryDirectory() as flash:
        r = subprocess.run([mp, script, FIRMWARE_DIR, BOARDS_DIR, flash, board,
                            json.dumps(config)] + sys_path("micropython"),
                           capture_output=True, text=True, check=True)
    return json.loads(r.stdout)


def battery(mp):
    from host_tools.power import BOARD_PARTS, estimate
    print("battery: %d mAh through a 12-hour game day, one fight an hour, whole app on"
          " virtual hardware (currents and sources: docs/POWER.md), average mA:"
          % CAPACITY_MAH)
    print("  %-26s %6s %6s %8s %6s %7s %6s %7s %7s" % (
        "board", "sleep", "awake", "wake-ups", "LEDs", "buzzer", "radio", "total",
        "hours"))
    unknown = {}
    for label, board, config in POWER_RUNS:
        counts = power_day(mp, board, config)
        chip = "esp32c3" if counts["chip"].startswith("esp32c3") else "esp32"
        parts = BOARD_PARTS.get(board, ())
        e = estimate(counts, chip, counts["led_count"], CAPACITY_MAH, parts)
        verdict = ""
        if label == "atom-lite":
            verdict = "  target >= %d h: %s" % (
                TARGET_HOURS, "MET" if e["hours"] >= TARGET_HOURS else "NOT MET")
        print("  %-26s %6.2f %6.2f %8.2f %6.2f %7.3f %6.2f %7.2f %7.0f%s" % (
            label, e["sleep"], e["awake"], e["wakeups"], e["leds"], e["buzzer"],
            e["radio"], e["total"], e["hours"], verdict))
        print("  %-26s %d s awake, %d light sleeps, %d show steps%s" % (
            "", counts["awake_ms"] // 1000, counts["lightsleeps"], counts["show_steps"],
            "" if counts["can_sleep"] else " (never sleeps: %s)" % (
                "light sleep off in its config" if config.get("light_sleep") is False
                else "its buttons can't wake it")))
        if e["unknown"] and board not in unknown:
            unknown[board] = e["unknown"]
    print("  not counted, unknown (so these hours are upper bounds):")
    for board, what in unknown.items():
        print("    %s: %s" % (board, "; ".join(what)))
    print("  on a 5 V power bank or a LiPo behind a 5 V boost, the battery gives ~1.5x"
          " these currents (3.3 V from 3.7 V through a ~90 % boost and an LDO)")


main()
mp_exe = find_micropython()
if mp_exe:
    badge_day(mp_exe)
    battery(mp_exe)
