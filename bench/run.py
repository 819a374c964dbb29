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
from host_tools.boards import BOARDS_DIR, board_ids  # noqa: E402
from host_tools.virtual.runtimes import (  # noqa: E402
    BADGE_HEAP_KB,
    HOW_TO_GET_MICROPYTHON,
    NAMES_HEADROOM,
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


# Press times: each board's probe run this many times, its hits pooled. The fastest hit is
# the code's own cost; a machine's other work only adds to a hit, and one run's 25 hits
# often all met some of it (the fastest moved by 10-20 us from run to run).
TIMING_RUNS = 3


def _fastest_of(runs, exe, board):
    pooled = badge_day.probe(exe, board)
    for _ in range(runs - 1):
        more = badge_day.probe(exe, board)
        for key in ("press_led_us", "press_saved_us"):
            pooled[key] += more[key]
    return pooled


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
    timing = [_fastest_of(TIMING_RUNS, mp64, b) for b in boards]
    out = {"bits": 32 if mp32 else 64, "budget_kb": BADGE_HEAP_KB,
           "boards": {b: report.board_figures(d, g, t)
                      for b, d, g, t in zip(boards, days, garbage, timing)}}
    for b in boards:
        out["boards"][b]["names"] = badge_day.names_made(b)
        # The names on the chip, its image's own left out: their headroom to the next
        # pool of names, without the radio and with it.
        out["boards"][b]["names_chip"] = badge_day.names_on_chip(b, False)
        out["boards"][b]["names_chip_radio"] = badge_day.names_on_chip(b, True)
    print("names (qstrs) on the chip, its image's own left out, and the names left before "
          "its next pool (target >= %d, else its pool is charged):" % NAMES_HEADROOM)
    for b in boards:
        for key, game in (("names_chip", "no radio"), ("names_chip_radio", "radio")):
            n = out["boards"][b][key]
            print("  %-18s %-9s %5d in RAM, %4d left before a pool of %d B%s" % (
                b, game, n["in_ram"], n["left"], n["pool"],
                ": PAID (charged)" if n["paid"] else ""))
    return out


TARGET_HOURS = report.TARGET_HOURS
CAPACITY_MAH = 500
# (label, board, config): every board as flashed by default, and the Atom Lite with
# what the defaults save turned back off, to show what each saves.
POWER_RUNS = [(b, b, {}) for b in board_ids()] + [
    ("atom-lite, steady LED", "atom-lite", {"settings": {"idle_look": "steady"}}),
    ("atom-lite, never sleeps", "atom-lite", {"light_sleep": False}),
    # The radio listening in its windows (cran.radio.link), a heartbeat a minute: no station
    # here, so no frames come; the windows and heartbeats cost the same.
    ("atom-lite, radio", "atom-lite", {"radio": {"role": "badge", "authorities": {}}}),
]


def power_day(mp, board, config):
    """One board's 12-hour day (bench/power_day.py) -> meter counts."""
    import json
    import tempfile

    from host_tools.virtual.micropython import sys_path
    script = os.path.join(REPO, "bench", "power_day.py")
    with tempfile.TemporaryDirectory() as flash:
        r = subprocess.run([mp, script, FIRMWARE_DIR, BOARDS_DIR, flash, board,
                            json.dumps(config)] + sys_path("micropython"),
                           capture_output=True, text=True, check=True)
    return json.loads(r.stdout)


def battery(mp):
    """Every board's battery life over the day. -> {label: {"hours", "total_ma"}}"""
    from host_tools.virtual.power import BOARD_PARTS, estimate
    print("battery: %d mAh through a 12-hour game day, one fight an hour, whole app on"
          " virtual hardware (currents and sources: docs/POWER.md), average mA:"
          % CAPACITY_MAH)
    print("  %-26s %6s %6s %8s %6s %7s %6s %7s %7s" % (
        "board", "sleep", "awake", "wake-ups", "LEDs", "buzzer", "radio", "total",
        "hours"))
    unknown = {}
    out = {}
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
        out[label] = {"hours": round(e["hours"]), "total_ma": round(e["total"], 2)}
        if e["unknown"] and board not in unknown:
            unknown[board] = e["unknown"]
    print("  not counted, unknown (so these hours are upper bounds):")
    for board, what in unknown.items():
        print("    %s: %s" % (board, "; ".join(what)))
    print("  on a 5 V power bank or a LiPo behind a 5 V boost, the battery gives ~1.5x"
          " these currents (3.3 V from 3.7 V through a ~90 % boost and an LDO)")
    return out


def radio(mp64):
    """cran.radio's frames: microseconds per operation (64-bit unix port), bytes it
    keeps (32-bit, the firmware as .mpy as cran flash installs it)."""
    import json
    import tempfile

    from host_tools.build import compile_firmware, runner_copy
    out = {}
    with tempfile.TemporaryDirectory(prefix="cran-bench-radio-") as tmp:
        compile_firmware(tmp)
        # (with the firmware's modules named as the badge has them)
        script = runner_copy(os.path.join(REPO, "bench", "radio_bench.py"), tmp)
        out.update(json.loads(subprocess.run([mp64, script, tmp, "time"], check=True,
                                             capture_output=True, text=True).stdout))
        mp32 = find_micropython32()
        if mp32 is not None:
            from host_tools.imagenames import STATIC_NAMES
            out.update(json.loads(subprocess.run([mp32, script, tmp, "heap"], check=True,
                                                 input=json.dumps(STATIC_NAMES),
                                                 capture_output=True, text=True).stdout))
    low, high = report.DEVICE_FACTOR
    print("radio: frames, unix port (an ESP32: x%d-%d)" % (low, high))
    for key, label in report.RADIO_TIMES:
        value = out[key]
        unit = "ms" if key.endswith("_ms") else "us"
        print("  %-54s %8.1f %s  (ESP32: %.1f-%.1f ms)" % (
            label, value, unit, value * low / (1 if unit == "ms" else 1000),
            value * high / (1 if unit == "ms" else 1000)))
    if "radio_heap" in out:
        print("  heap the radio keeps (32-bit, .mpy): %.1f KB" % (out["radio_heap"] / 1024))
    out.update(radio_days())
    out.update(field_figures())
    for loss in (0, 30):
        print("  stop -> all %d badges frozen, %d %% loss: median %d ms, worst %d ms "
              "(%d runs)" % (FIELD_BADGES, loss, out["stop_ms_%d" % loss][0],
                             out["stop_ms_%d" % loss][1], FIELD_RUNS))
    print("  radio on: %.1f %% of the time" % (100 * out["radio_on"]))
    return out


# The boards whose radio weekend is measured (72 hours, bench/badge_day.py): the one
# with the fewest parts and one with the most, as the issue "A radio game fits a stock
# ESP32" asks.
WEEKEND_BOARDS = ("atom-lite", "esp32-devkitc")


def radio_days():
    """Every MicroPython board's 12-hour day with its radio listening (a game with the
    radio), in 32-bit: the smallest heap it lives in as files and in ROMFS, and its heap
    after boot; and the weekend boards' 72 hours (three such days, a night between
    them): the smallest heap that lives them, and the live heap at each day's end. Two
    at a time. -> {"radio_days": {board: {...}}}"""
    if find_micropython32() is None:
        return {}

    def smallest(task):
        board, romfs, days = task
        day = badge_day.Day(board, romfs=romfs, radio=True, days=days)
        roomy = day.play(4 * BADGE_HEAP_KB)
        if isinstance(roomy, str):
            raise RuntimeError(roomy)
        floor = int(roomy["peak"] / 1024 / day.runner.ratio)   # it can't live in less
        # A first guess halves the bisection's steps (a weekend's run is ~1 minute).
        guess = BADGE_HEAP_KB
        if isinstance(day.play(guess), str):
            kb, _ = day.smallest_heap(4 * BADGE_HEAP_KB, guess)
        else:
            kb, _ = day.smallest_heap(guess, floor)
        return task, kb, roomy

    # The weekends first: the longest runs, so the two workers end together.
    tasks = [(b, False, 3) for b in WEEKEND_BOARDS]
    tasks += [(b, romfs, 1) for b in board_ids() for romfs in (False, True)]
    out = {}
    with ThreadPoolExecutor(max_workers=2) as pool:
        for (board, romfs, days), kb, roomy in pool.map(smallest, tasks):
            figs = out.setdefault(board, {})
            if days > 1:
                figs["days_%d_kb" % days] = kb
                figs["day_ends"] = roomy["day_ends"]
            elif romfs:
                figs["romfs_kb"], figs["romfs_after_boot"] = kb, roomy["after_boot"]
            else:
                figs["files_kb"], figs["after_boot"] = kb, roomy["after_boot"]
    print("  12-hour day with the radio listening (32-bit, smallest heap; target %d KB as "
          "files, %d KB after boot):" % (report.TARGET_RADIO_KB, report.TARGET_BOOT_KB))
    for board, figs in sorted(out.items()):
        weekend = ""
        if "days_3_kb" in figs:
            weekend = "; the weekend %d KB (live at each day's end: %s KB)" % (
                figs["days_3_kb"], ", ".join("%.1f" % (b / 1024) for b in figs["day_ends"]))
        print("    %-18s as files %3d KB (%.1f KB after boot), in ROMFS %3d KB (%.1f KB)%s"
              % (board, figs["files_kb"], figs["after_boot"] / 1024, figs["romfs_kb"],
                 figs["romfs_after_boot"] / 1024, weekend))
    return {"radio_days": out}


FIELD_BADGES = 50
FIELD_RUNS = 5


def field_figures():
    """A field of FIELD_BADGES badges and a station (host_tools/field/fieldsim.py, virtual time):
    the game master's stop -> every badge stopped, at 0 and 30 % frame loss, over
    FIELD_RUNS fields each (their badges' windows fall differently)."""
    from cran import radio as frames
    from host_tools.field.fieldsim import Field, everyone
    out = {}
    on = []
    for loss in (0, 30):
        took = []
        for seed in range(FIELD_RUNS):
            field = Field(FIELD_BADGES, loss / 100, seed)
            field.run(1000 + 97 * seed)   # the command comes anywhere in a period
            field.station.command(frames.STOP, now=field.now)
            took.append(field.run(5000, until=everyone(field, "stop")))
            on += [b.link.on_ms / field.now for b in field.badges]
        took.sort()
        out["stop_ms_%d" % loss] = (took[len(took) // 2], took[-1])
    out["radio_on"] = sum(on) / len(on)
    return out


def main():
    mp64 = find_micropython()
    figures = {"engine": engine(mp64)}
    if mp64 is None:
        print("badges: skipped: " + HOW_TO_GET_MICROPYTHON)
        return
    figures.update(badges(mp64))
    print()
    figures["battery"] = battery(mp64)
    print()
    figures["radio"] = radio(mp64)
    path = report.PERFORMANCE
    previous = report.read_figures(path)
    print()
    text = report.render(figures, previous)
    print(text)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    print("written: docs/PERFORMANCE.md")


if __name__ == "__main__":   # importing it (its helpers) runs no bench
    main()
