# docs/PERFORMANCE.md: the figures of `make bench`, board by board, with the method and
# what changed since the file's previous figures (kept in it as JSON, read back here).
import json
import os
import platform
import time

from host_tools import build
from host_tools.device.bench_figures import (  # noqa: F401 (run.py's)
    MARK,
    PERFORMANCE,
    read_figures,
)
from host_tools.virtual import esp32image
from host_tools.virtual.runtimes import NAMES_HEADROOM, RUN_NAMES

# The memory targets (32-bit, the firmware as .mpy files as cran flash installs them on a
# stock MicroPython, the bench's day; issue "A radio game fits a stock ESP32"): a stock
# ESP32 gives MicroPython 111.9 KB, less what Wi-Fi takes once ESP-NOW runs.
TARGET_DAY_KB = 72       # every board lives the 12-hour day without the radio in this
TARGET_RADIO_KB = 88     # ... and with its radio listening in this
TARGET_BOOT_KB = 64      # the heap after boot with the radio on
TARGET_WEEKEND_KB = 4    # the 72-hour radio weekend in its 12-hour figure + this
TARGET_HEAP_KB = 64      # the day with the firmware in ROMFS (a MicroPython built with it)
TARGET_PRESS_LED_US = 40   # press -> first LED write, 64-bit unix port
TARGET_HOURS = 72         # the Atom Lite on 500 mAh: a weekend game and a margin
TARGET_ENGINE_US = 50.0  # per action in the unix port; an ESP32 is about 50 times slower
# How much slower an ESP32 runs Python than this machine's unix port: MicroPython's
# perf_bench run here against published ESP32 scores (issue "Fit the chip").
DEVICE_FACTOR = (170, 320)
# cran.radio's timed operations (bench/radio_bench.py): key, label.
RADIO_TIMES = (
    ("seal_stop_us", "make a game master's stop"),
    ("open_stop_us", "open it (its token: one hash)"),
    ("seal_heartbeat_us", "make a 40-byte heartbeat (AES-CTR)"),
    ("open_heartbeat_us", "open it"),
    ("drop_forged_us", "drop a forged frame"),
    ("chain_from_seed_ms", "a healer's first token from its seed (~4,350 hashes, its marks kept)"),
    ("chain_next_us", "its next ones (cran.radio.treat.Chain's marks: < 256 hashes)"),
)

# (key, label, unit, scale): how each board figure is shown and compared.
FIELDS = (
    ("after_boot", "heap after boot", "KB", 1 / 1024),
    ("peak", "live peak of the day", "KB", 1 / 1024),
    ("smallest_kb", "smallest heap that lives the day", "KB", 1),
    ("start_smallest_kb", "smallest heap the start alone lives in", "KB", 1),
    ("romfs_after_boot", "heap after boot, firmware in ROMFS", "KB", 1 / 1024),
    ("romfs_smallest_kb", "smallest heap that lives the day, firmware in ROMFS", "KB", 1),
    ("gcs_per_hour", "GCs per hour", "", 1),
    ("names", "names (qstrs) made", "", 1),
    ("idle_wake", "garbage per idle wake-up", "B", 1),
    ("blink_wake", "garbage per blinking wake-up", "B", 1),
    ("hit", "garbage per hit", "B", 1),
    ("line", "garbage per console line", "B", 1),
    ("press_led_us_min", "press -> first LED write (fastest)", "us", 1),
    ("press_saved_us_min", "press -> saved (fastest)", "us", 1),
)


def _median(values):
    values = sorted(values)
    return values[len(values) // 2] if values else None


def board_figures(day, garbage, timing):
    """bench/badge_day.figures(), and probe() in 32-bit (garbage) and 64-bit (timing)."""
    out = dict(day)
    out.update({"runner_wake": garbage["runner_wake_bytes"],
                "idle_wake": round(garbage["idle_wake_bytes"]),
                "blink_wake": round(garbage["blink_wake_bytes"]),
                "hit": _median(garbage["hit_bytes"]), "line": round(garbage["line_bytes"]),
                "line_byte": round(garbage["line_byte_bytes"]),
                "press_led_us": _median(timing["press_led_us"]),
                "press_led_us_min": min(timing["press_led_us"] or [None]),
                "press_saved_us": _median(timing["press_saved_us"]),
                "press_saved_us_min": min(timing["press_saved_us"]),
                "hits_timed": len(timing["press_saved_us"])})
    return out

# Each chip family's MicroPython heap on a stock image (no PSRAM), with its source: the
# figure a badge's "smallest heap" must fit in. (family, chips of boards/*.json, text)
CHIP_HEAPS = (
    ("ESP32", ("esp32", "esp32-pico-d4"),
     "56 KB at the start (`MICROPY_GC_INITIAL_HEAP_SIZE`, ports/esp32/mpconfigport.h), "
     "grown once on demand to 111,936 B (111.9 KB), leaving ~40 KB to ESP-IDF, from "
     "which Wi-Fi takes its buffers once ESP-NOW runs (MicroPython PR #13219, v1.22+). "
     "The v1.26.1 image a badge runs grows it by areas further: with Wi-Fi and ESP-NOW "
     "on, filling it reached 151,936 B, the IDF left a largest free block of 992 B "
     "(measured in QEMU: ../shared/tools/qemu-esp32/README.md); what Wi-Fi needs at its "
     "peak is not measured yet, so the targets stay those of 111.9 KB"),
    ("ESP32-C3", ("esp32c3",),
     "64 KB at the start (ports/esp32/mpconfigport.h: every target but the ESP32, C2 "
     "and S2), then grown by areas on demand while ESP-IDF's heap has room "
     "(`MICROPY_GC_SPLIT_HEAP_AUTO`, PR #12141); its ceiling is not published: "
     "`gc.mem_free()` after a `gc.collect()` on the board tells it. Held here to the "
     "ESP32's figures"),
    ("ESP32-S3", ("esp32s3",),
     "MicroPython: 64 KB at the start, grown as the C3's (the same sources). The boards "
     "of that chip here run CircuitPython 10, whose heap is its own and is not measured "
     "by this bench"),
)


def _boards_of(chips):
    from host_tools.boards import BOARDS_DIR
    out = []
    for name in sorted(os.listdir(BOARDS_DIR)):
        if name.endswith(".json"):
            with open(os.path.join(BOARDS_DIR, name), encoding="utf-8") as f:
                board = json.load(f)
            if board.get("chip") in chips:
                runtime = board.get("runtime")
                out.append(name[:-5] + (" (%s)" % runtime if runtime else ""))
    return ", ".join(out) or "none"



# (key, label, scale) of a board's radio day (bench/run.py radio_days), compared too.
RADIO_DAY_FIELDS = (
    ("after_boot", "heap after boot", 1 / 1024),
    ("files_kb", "smallest heap that lives the day", 1),
    ("romfs_after_boot", "heap after boot, firmware in ROMFS", 1 / 1024),
    ("romfs_kb", "smallest heap that lives the day, firmware in ROMFS", 1),
    ("days_3_kb", "smallest heap that lives the weekend", 1),
)


def changes(figures, previous):
    """-> lines saying what moved since the previous figures."""
    if previous is None:
        return ["First figures written here: nothing to compare with."]
    lines = []
    if previous.get("bits") != figures.get("bits"):
        lines.append("The heap figures were %s-bit, now %s-bit: not comparable."
                     % (previous.get("bits"), figures.get("bits")))
    if previous.get("budget_kb") != figures.get("budget_kb"):
        lines.append("The budget (BADGE_HEAP_KB) was %s KB, now %s KB."
                     % (previous.get("budget_kb"), figures.get("budget_kb")))
    old_boards = previous.get("boards", {})
    for board, now in sorted(figures.get("boards", {}).items()):
        old = old_boards.get(board)
        if old is None:
            lines.append("%s: new board." % board)
            continue
        moved = []
        for key, label, unit, scale in FIELDS:
            a, b = old.get(key), now.get(key)
            if a is None or b is None or a == b:
                continue
            moved.append("%s %s -> %s%s (%+.1f%%)" % (
                label, _num(a * scale), _num(b * scale), " " + unit if unit else "",
                (b - a) * 100.0 / a if a else 0))
        if old.get("lives_budget") != now.get("lives_budget"):
            moved.append("lives the budget: %s -> %s" % (_yes(old.get("lives_budget")),
                                                         _yes(now.get("lives_budget"))))
        lines.append("%s: %s." % (board, "; ".join(moved) if moved else "no change"))
    old_days = (previous.get("radio") or {}).get("radio_days") or {}
    for board, now in sorted(((figures.get("radio") or {}).get("radio_days") or {}).items()):
        moved = []
        for key, label, scale in RADIO_DAY_FIELDS:
            a, b = old_days.get(board, {}).get(key), now.get(key)
            if a is not None and b is not None and a != b:
                moved.append("%s %s -> %s KB" % (label, _num(a * scale), _num(b * scale)))
        if moved:
            lines.append("%s, with the radio: %s." % (board, "; ".join(moved)))
    for board in sorted(set(old_boards) - set(figures.get("boards", {}))):
        lines.append("%s: no longer measured (no such board)." % board)
    for engine in sorted(figures.get("engine", {})):
        a = previous.get("engine", {}).get(engine, {}).get("us_per_action")
        b = figures["engine"][engine]["us_per_action"]
        if a is not None and a != b:
            lines.append("engine, %s: %s -> %s us per action." % (engine, _num(a), _num(b)))
    return lines


def _num(x):
    return ("%.1f" % x) if isinstance(x, float) and x != int(x) else "%d" % x


def _yes(flag):
    return "yes" if flag else "no"


def _verdict(ok):
    return "within" if ok else "OVER"


def _kb(b):
    return "%.1f KB" % (b / 1024)


def _chip_own():
    """The section on what a chip's heap holds besides the badge's, with its sources."""
    out = ["", "## What a chip's heap holds besides the badge's", "",
           "Measured on the stock image a badge runs, MicroPython %s (`%s`, sha256 %s..., "
           "`../shared/tools/qemu-esp32`), booted in QEMU's ESP32: `gc.mem_alloc()` after "
           "`gc.collect()` around each step, in a `main.py` and at its REPL "
           "(`host_tools/virtual/esp32image.py`). The virtual parts are the runner's, in "
           "its share, so the runner makes each of these in the badge's heap, as the chip "
           "does, before its `main.py` runs (the ring while the radio listens):" % (
               "v1.26.1", esp32image.IMAGE, esp32image.IMAGE_SHA256[:12]), "",
           "| what | boards | bytes | measured |", "|---|---|---|---|"]
    for what, part, size, how in esp32image.CHIP_ALLOCATIONS:
        out.append("| %s | %s | %d | %s |" % (
            what, {None: "every one", "leds": "with LEDs", "radio": "a game with the radio"}[
                part], size, how))
    out += [
        "| ESP-NOW's receive ring | a game with the radio | %d | made by "
        "`ESPNow.active(True)`, freed by `active(False)`: made in the badge's heap at each "
        "of its listening windows |" % esp32image.RING_BYTES,
        "", "Not charged: each sender whose frame the badge reads adds ~%d B to "
        "`ESPNow.peers_table` for good (MicroPython's `ports/esp32/esp_espnow.c`; one "
        "emulated chip hears no other): the virtual espnow's table keeps its own entries "
        "in the badge's heap, and the radio day hears no station. The virtual NeoPixel "
        "(176 B for 1 LED, 208 for 25), WLAN and WDT (32 B each) are a little bigger "
        "than the chip's (96 and 144 B, nothing): the figures are that much above a "
        "chip's (0.1-0.2 KB), not credited back." % esp32image.PEER_BYTES]
    return out


def _names(boards):
    """The section on the names (qstrs) a badge keeps on its chip, and their headroom."""
    keyed = [b for b in sorted(boards) if "names_chip" in boards[b]]
    if not keyed:
        return []
    out = ["", "## Names (qstrs): their headroom on the chip", "",
           "A name the firmware makes is kept for good, in a pool; a full pool's next one is "
           "a single block of twice its size, taken at once. The image holds %d names of its "
           "own (read from the image, the running chip agreeing), and its pools in RAM take "
           "%d names, then twice as many each, at %d + %d bytes a name (measured: the block "
           "of 1,280 names, %d B, is taken at the 1,261st name made in RAM). The badge's names "
           "are main.py's, its modules' (`build.names_of`, made at its start), the modules' "
           "paths, the names modules' own and asyncio's (%s), and no other: the chip counts "
           "the same in RAM once the badge has started (`make chip`, below; a board's id, "
           "its badge's and its settings' durations are read by their bytes, as a "
           "character taken out of a str is made a name). Those its image holds cost "
           "nothing, and so every "
           "name the firmware makes its own (a def, a class, an argument, an attribute, a "
           "global, a public const()) is given on a badge a name of the image that nothing "
           "in the firmware uses (`build.badge_renames`: %d of them), but where something "
           "reaches it by name without being compiled with it (a string of the firmware's, "
           "a module's path, main.py, the bench's drivers and virtual parts, what the host "
           "sends a badge, an exception's class); the source keeps its names, and the "
           "journal's faults are read back with them. So is every module: a file of its own "
           "at the badge's root named with a name of the image (`build.badge_modules`), as "
           "its import name, its path and its name in its package are three names it "
           "keeps (the DevKitC with the radio had 694 in RAM with them; its path alone, "
           "now). Every board's figures above pay the "
           "pools its names fill, as the chip fills them; a board that can make fewer than "
           "%d names more before its next pool also pays that pool (%.1f KB for the pool of "
           "640 names, %.1f KB for the next), so that a feature that adds names does not "
           "cost it a pool unseen." % (
               len(esp32image.STATIC_NAMES), esp32image.FIRST_POOL,
               esp32image.POOL_HEADER_BYTES, esp32image.POOL_ENTRY_BYTES,
               esp32image.pool_bytes(1280), ", ".join(RUN_NAMES),
               len(build.badge_renames()), NAMES_HEADROOM,
               esp32image.pool_bytes(640) / 1024, esp32image.pool_bytes(1280) / 1024), "",
           "| board | names made (the image's own in) | in RAM: no radio, radio | left before "
           "the next pool: no radio, radio | the next pool: no radio, radio | charged |",
           "|---|---|---|---|---|---|"]
    for name in keyed:
        b = boards[name]
        a, r = b["names_chip"], b["names_chip_radio"]
        paid = [g for g, n in (("no radio", a), ("radio", r)) if n["paid"]]
        out.append("| %s | %s | %d, %d | %d, %d | %d B, %d B | %s |" % (
            name, b.get("names", "-"), a["in_ram"], r["in_ram"], a["left"], r["left"],
            a["pool"], r["pool"], ", ".join(paid) or "no"))
    return out


def _agreement(boards):
    left = sorted(b["names_chip_radio"]["left"] for b in boards.values()
                  if "names_chip_radio" in b) or [0]
    return [
        "", "## The model and a real chip", "",
        "What the image was asked is in the figures as it answered: its boot, its frozen "
        "modules and ESP-NOW's objects (\"What a chip's heap holds\"), its names and its "
        "pools of names (\"Names\": the badges' headroom found so with the radio, "
        "%d-%d names). The whole badge on the image itself, started by its main.py, is "
        "measured by `make chip` (\"On the real chip's own image\", below, its figures "
        "beside the model's). Where the model and a chip differ, and by how much: the "
        "model charges the next pool of names where fewer than %d names are left before "
        "it, a chip takes it only when it fills its last one; the virtual parts' few "
        "objects a little bigger than the chip's (0.1-0.2 KB more here); the runner's "
        "asyncio queue and select in Python (their garbage netted out of the garbage "
        "figures, not of the GC counts); MicroPython's GC reads every word of a stack as "
        "a pointer, so a stale one keeps a let-go module alive now and then, on a chip as "
        "here but not the same words: two boards alike (the DevKitC and the C3 SuperMini) "
        "differ by up to 1.3 KB after boot for that alone; and the unix port's files are "
        "not LittleFS (an open file there holds a ~0.2 KB buffer while a save writes it, "
        "transient)." % (left[0], left[-1], NAMES_HEADROOM)]


def web_section(figures):
    """The page's figures (`cran web`, bench/web.py): its section's lines."""
    import web  # bench/web.py
    return [""] + web.section(figures.get("web"))


def render(figures, previous):
    boards = figures["boards"]
    bits, budget = figures["bits"], figures["budget_kb"]
    worst_heap = max(boards, key=lambda b: boards[b]["smallest_kb"])
    worst_rom = max(boards, key=lambda b: boards[b].get("romfs_smallest_kb", 0))
    timed = [b for b in boards if boards[b]["press_led_us"] is not None]
    worst_led = max(timed, key=lambda b: boards[b]["press_led_us_min"]) if timed else None
    out = [
        "# Performance",
        "",
        "Written by `make bench` (`bench/run.py`) on %s UTC, on %s (%d cores, load "
        "average %.1f: other work on the machine slows the timed figures, not the memory "
        "ones). The next run rewrites it, comparing with the figures kept at its end."
        % (time.strftime("%Y-%m-%d %H:%M", time.gmtime()), platform.machine(),
           os.cpu_count() or 1, os.getloadavg()[0]),
        "",
        "## What changed since the last run",
        "",
    ]
    out += ["- " + line for line in changes(figures, previous)]
    out += [
        "",
        "## Targets",
        "",
        "| target | measured | verdict |",
        "|---|---|---|",
        "| every board lives the 12-hour day in %d KB (%d-bit, .mpy files), no radio | "
        "the largest smallest heap: %d KB (%s) | %s |" % (
            TARGET_DAY_KB, bits, boards[worst_heap]["smallest_kb"], worst_heap,
            _verdict(bits == 32 and boards[worst_heap]["smallest_kb"] <= TARGET_DAY_KB)),
    ]
    days = (figures.get("radio") or {}).get("radio_days")
    if days:
        worst_radio = max(days, key=lambda b: days[b]["files_kb"])
        worst_boot = max(days, key=lambda b: days[b]["after_boot"])
        weekends = [b for b in sorted(days) if "days_3_kb" in days[b]]
        out += [
            "| every board lives the 12-hour day with its radio listening in %d KB (.mpy "
            "files) | the largest smallest heap: %d KB (%s) | %s |" % (
                TARGET_RADIO_KB, days[worst_radio]["files_kb"], worst_radio,
                _verdict(bits == 32 and days[worst_radio]["files_kb"] <= TARGET_RADIO_KB)),
            "| heap after boot with the radio <= %d KB (.mpy files) | the largest: %s (%s) "
            "| %s |" % (TARGET_BOOT_KB, _kb(days[worst_boot]["after_boot"]), worst_boot,
                        _verdict(bits == 32 and days[worst_boot]["after_boot"]
                                 <= TARGET_BOOT_KB * 1024)),
            "| the 72-hour radio weekend in the 12-hour figure + %d KB (%s) | %s | %s |" % (
                TARGET_WEEKEND_KB, ", ".join(weekends), "; ".join(
                    "%s: %d -> %d KB" % (b, days[b]["files_kb"], days[b]["days_3_kb"])
                    for b in weekends), _verdict(all(
                        days[b]["days_3_kb"] <= days[b]["files_kb"] + TARGET_WEEKEND_KB
                        for b in weekends))),
        ]
    out += [
        "| the day in %d KB, the .mpy files in ROMFS (run in place: a MicroPython with a "
        "ROMFS partition) | the largest smallest heap: %d KB (%s) | %s |" % (
            TARGET_HEAP_KB,
            boards[worst_rom]["romfs_smallest_kb"], worst_rom,
            _verdict(bits == 32 and boards[worst_rom]["romfs_smallest_kb"]
                     <= TARGET_HEAP_KB)),
    ]
    if worst_led is not None:
        us = boards[worst_led]["press_led_us_min"]
        out.append("| press -> first LED write <= %d us (64-bit unix port) | the slowest "
                   "board's fastest hit: %d us (%s) | %s |" % (
                       TARGET_PRESS_LED_US, us, worst_led, _verdict(us <= TARGET_PRESS_LED_US)))
    lite = (figures.get("battery") or {}).get("atom-lite")
    if lite is not None:
        out.append("| the Atom Lite lasts >= %d h on 500 mAh (estimate) | %d h | %s |" % (
            TARGET_HOURS, lite["hours"], "within" if lite["hours"] >= TARGET_HOURS
            else "OVER"))
    out += [
        "| every board lives the day in the budget, `BADGE_HEAP_KB` = %d KB "
        "(host_tools/virtual/runtimes.py) | %d of %d boards | %s |" % (
            budget, sum(b["lives_budget"] for b in boards.values()), len(boards),
            _verdict(all(b["lives_budget"] for b in boards.values()))),
    ]
    named = [(b, key) for b in sorted(boards) for key in ("names_chip", "names_chip_radio")
             if key in boards[b]]
    if named:
        fewest = min(named, key=lambda bk: boards[bk[0]][bk[1]]["left"])
        paid = [b + (", radio" if key.endswith("radio") else "") for b, key in named
                if boards[b][key]["paid"]]
        n = boards[fewest[0]][fewest[1]]
        out.append(
            "| every board can make >= %d more names (qstrs) before its chip takes its next "
            "pool of names, or that pool is charged in its figures | the fewest left: %d "
            "(%s%s), before a pool of %d B | %s |" % (
                NAMES_HEADROOM, n["left"], fewest[0],
                ", radio" if fewest[1].endswith("radio") else "", n["pool"],
                "within" if not paid else "charged: " + "; ".join(paid)))
    out += [
        "",
        "## Memory: a 12-hour game day (%d-bit MicroPython, firmware as .mpy)" % bits,
        "",
        "Every heap figure is the badge's as its chip holds it: started by its main.py, "
        "with what the chip's own heap holds (\"What a chip's heap holds besides the "
        "badge's\") and its names' pools, their next one where it is charged "
        "(\"Names\": 4.4 KB on every board without the radio).",
        "",
        "| board | heap after boot | live peak of the day | smallest heap that lives it "
        "| the start alone | in %d KB (target) | in %d KB (budget) | GCs per hour "
        "| names (qstrs) made | in ROMFS: after boot, smallest heap |" % (TARGET_DAY_KB, budget),
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for name, b in sorted(boards.items()):
        out.append(("| %s | %s | %s | %d KB | %s KB | %s | %s | %.1f (in %d KB) | %s "
                    "| %s, %d KB |") % (
            name, _kb(b["after_boot"]), _kb(b["peak"]), b["smallest_kb"],
            b.get("start_smallest_kb", "?"),
            "lives" if b["smallest_kb"] <= TARGET_DAY_KB else "OVER",
            "lives" if b["lives_budget"] else "dies: " + b["died_at_budget"],
            b["gcs_per_hour"], b["gcs_heap_kb"], b.get("names", "-"),
            _kb(b["romfs_after_boot"]), b["romfs_smallest_kb"]))
    out += [
        "",
        "## Garbage: bytes allocated (%d-bit)" % bits,
        "",
        "| board | per idle wake-up | per blinking wake-up | per hit | per console line |",
        "|---|---|---|---|---|",
    ]
    for name, b in sorted(boards.items()):
        out.append("| %s | %d B | %d B | %d B | %d B |" % (
            name, b["idle_wake"], b["blink_wake"], b["hit"], b["line"]))
    low, high = DEVICE_FACTOR
    out += [
        "",
        "## A hit: press -> first LED write, press -> saved (64-bit unix port)",
        "",
        "| board | press -> LED, fastest (median) | target <= %d us | press -> saved, fastest "
        "(median) | on an ESP32 (x%d-%d, fastest): LED, saved |" % (TARGET_PRESS_LED_US, low,
                                                                    high),
        "|---|---|---|---|---|",
    ]
    for name, b in sorted(boards.items()):
        led, saved = b["press_led_us_min"], b["press_saved_us_min"]
        out.append("| %s | %s | %s | %d us (%d) | %s, %.0f-%.0f ms |" % (
            name, "no LEDs" if led is None else "%d us (%d)" % (led, b["press_led_us"]),
            "-" if led is None else _verdict(led <= TARGET_PRESS_LED_US),
            saved, b["press_saved_us"],
            "-" if led is None else "%.0f-%.0f ms" % (led * low / 1000, led * high / 1000),
            saved * low / 1000, saved * high / 1000))
    battery = figures.get("battery")
    if battery:
        out += [
            "",
            "## Battery: 500 mAh through the same day (`docs/POWER.md`: currents, sources)",
            "",
            "| board (as flashed by default, unless said) | average mA | hours |",
            "|---|---|---|",
        ]
        for label, b in battery.items():
            out.append("| %s | %.2f | %d |" % (label, b["total_ma"], b["hours"]))
    counts = sorted(set(e["actions"] for e in figures["engine"].values()))
    out += ["", "## Engine (%s mixed actions, best of 3)" % "/".join(map(str, counts)), "",
            "| runtime | actions/s | us/action | target < %.0f us (MicroPython) |"
            % TARGET_ENGINE_US, "|---|---|---|---|"]
    for name, e in sorted(figures["engine"].items()):
        us = e["us_per_action"]
        out.append("| %s | %d | %.2f | %s |" % (
            name, e["actions_per_s"], us,
            _verdict(us < TARGET_ENGINE_US) if name == "micropython" else ""))
    radio = figures.get("radio")
    if radio:
        low, high = DEVICE_FACTOR
        out += ["", "## Radio frames (`cran.radio`, bench/radio_bench.py)", "",
                "| operation | unix port | an ESP32 (x%d-%d) |" % (low, high), "|---|---|---|"]
        for key, label in RADIO_TIMES:
            value, ms = radio[key], key.endswith("_ms")
            scale = 1 if ms else 1 / 1000
            out.append("| %s | %.1f %s | %.1f-%.1f ms |" % (
                label, value, "ms" if ms else "us", value * low * scale,
                value * high * scale))
        if "radio_heap" in radio:
            out += ["", "Heap the radio keeps (32-bit, .mpy, its names made as it loads, "
                    "the ESP32 image's own made before: they cost a chip nothing; "
                    "cran.auth, which makes its keys at the start, let go as the start "
                    "does; the heartbeat's AES context, made and dropped each time, not): "
                    "%.1f KB."
                    % (radio["radio_heap"] / 1024)]
        days = radio.get("radio_days")
        if days:
            out += ["", "## Memory: the 12-hour day with the radio listening (%d-bit, "
                    "firmware as .mpy)" % bits, "",
                    "A game with the radio (`Day(board, radio=True)`: listening in its "
                    "windows, a heartbeat a minute, the game master's and two healers' "
                    "chains' anchors held), as files on a stock MicroPython and in ROMFS. "
                    "The weekend: three such days, the badge left on through the two "
                    "nights between them (no fight, the status read each hour).", "",
                    "| board | heap after boot | smallest heap that lives it (target %d KB) "
                    "| without the radio (target %d KB) | in ROMFS: after boot, smallest "
                    "heap | the weekend: smallest heap (target: the day's + %d KB), live heap "
                    "at each day's end |"
                    % (TARGET_RADIO_KB, TARGET_DAY_KB, TARGET_WEEKEND_KB),
                    "|---|---|---|---|---|---|"]
            for name, d in sorted(days.items()):
                b = boards.get(name, {})
                out.append("| %s | %s | %d KB | %s KB | %s, %d KB | %s |" % (
                    name, _kb(d["after_boot"]), d["files_kb"], b.get("smallest_kb", "?"),
                    _kb(d["romfs_after_boot"]), d["romfs_kb"],
                    "%d KB (%+d), %s KB" % (
                        d["days_3_kb"], d["days_3_kb"] - d["files_kb"],
                        ", ".join("%.1f" % (b / 1024) for b in d["day_ends"]))
                    if "days_3_kb" in d else "-"))
        if "stop_ms_0" in radio:
            out += ["", "A field of 50 badges and the game master's station "
                    "(`host_tools/field/fieldsim.py`, virtual time, 5 fields each): the stop "
                    "reaches every badge in %d ms (median; worst %d) with no frame lost, "
                    "%d ms (worst %d) with 30 %% lost; target: within 1 s. Each badge's "
                    "radio is on %.1f %% of the time." % (
                        radio["stop_ms_0"][0], radio["stop_ms_0"][1], radio["stop_ms_30"][0],
                        radio["stop_ms_30"][1], 100 * radio["radio_on"])]
    out += ["", "## The chips' heaps (what the figures above must fit in)", "",
            "| chip family | a stock MicroPython image's heap, and its source | boards "
            "of boards/ |", "|---|---|---|"]
    for family, chips, text in CHIP_HEAPS:
        out.append("| %s | %s | %s |" % (family, text, _boards_of(chips)))
    out += ["", "A stock image has no ROMFS partition: the firmware runs as files there, "
            "its bytecode copied into the heap. The ROMFS figures are for a MicroPython "
            "built with one: `boards/romfs/` holds the partition table and the board "
            "variant such a build needs (README, \"The firmware in ROMFS\")."]
    out += _chip_own()
    out += _names(boards)
    out += _agreement(boards)
    figures.setdefault("chip", (previous or {}).get("chip"))
    import chip  # bench/chip.py: the emulator's side, only its section here
    out += chip.section(figures)
    figures.setdefault("web", (previous or {}).get("web"))
    out += web_section(figures)
    runner = max(b["runner_kb"] for b in boards.values())
    runner_wake = max(b["runner_wake"] for b in boards.values())
    out += [
        "",
        "## Method",
        "",
        "- The whole badge runs on the virtual hardware (`host_tools/virtual/micropython`) "
        "inside the MicroPython unix port, driven by "
        "`host_tools/virtual/scripts/badge_driver.py`, the runner of "
        "`cran scenario --badge BOARD --mpy --heap KB`, as a chip runs it: its flash laid "
        "out as `cran flash` leaves it (the firmware compiled to .mpy by "
        "`build.compile_firmware`, `main.py`, the manifest `/firmware.json`; "
        "`runtimes.lay_flash`) is mounted at `/`, and its own `main.py` runs: Ctrl-C off, "
        "the watchdog, every module checked against the manifest, `cran.run.main`, "
        "`App.run` and its console loop, never returning. The runner plays the steps from "
        "a task of its own in the app's asyncio loop, and types every console line on the "
        "virtual UART (`machine.console`, the console loop's stdin), its bytes read one "
        "by one by `App.console_loop`, its answer read from what the badge prints. What a "
        "chip's own heap holds that the virtual parts do not put in the badge's is made "
        "in it (\"What a chip's heap holds besides the badge's\", above). %s" % (
            "Heap figures come from 32-bit MicroPython 1.28 (`../shared/tools/micropython32`), "
            "whose objects, bytecode and strings have an ESP32's sizes." if bits == 32 else
            "There was no 32-bit MicroPython (`../shared/tools/micropython32`): heap "
            "figures come from the 64-bit port, about 1.4x an ESP32's, NOT the badge's."),
        "- The runner's share of the heap (the virtual hardware and the driver: up to "
        "%.1f KB here) is measured in a first short run with a big heap: "
        "`gc.mem_alloc()` before the badge's first module is imported. It is left out of "
        "every figure; a badge of N KB gets `-X heapsize` = N KB plus that share, scaled "
        "by the measured ratio of usable heap to heapsize (the GC's tables live in it)."
        % runner,
        "- The day: a fresh badge, one fight an hour for 12 hours (coup, coup, effet "
        "peur, soin, soin in the first 90 s), pressed on the badge's own buttons as its "
        "wearer does (a hit is one press; the menu's shortest way to the others, found "
        "by `bench/badge_day.py`'s presses_for, through the real button driver), each "
        "one's result checked; half an hour later an organiser reads `status` at the "
        "console (typed on its UART, read by its loop), which loads the console and its "
        "lock (and an action line the grammar, `cran.core.words`), let go again after a "
        "quiet minute. The runner reads the "
        "steps as it comes to them: it holds none in the badge's heap. Every name "
        "(qstr) the firmware makes is made at its start (cran.start.phases._make_names). "
        "The badge's names are counted apart (host_tools/virtual/scripts/badgenames.py): "
        "the runner, whose own ~580 names would otherwise come first and push the badge's "
        "into one more pool of twice the size (~9 KB at once) where an ESP32's would not fall, "
        "makes them first, in its share (main.py's, then its modules'); the badge is "
        "charged their characters as they weigh made alone in a fresh interpreter of this "
        "port, the names of theirs the ESP32 image holds in flash (read from the image: "
        "\"Names\", above) made before the weighing, and the pools that hold them as the "
        "image makes its pools (and the next one, where fewer than %d names are left "
        "before it), from its firmware's folder as an ESP32 "
        "runs its files from its root (each module's path, a name it keeps, is then its "
        "file's name at the root as on the chip, `E.mpy` for cran.app: "
        "`build.badge_modules`), and its runs' "
        "paths relative, as short whatever $TMPDIR is. The day crosses the 2**30 ms "
        "tick wrap. Heap after boot and the live peak are `gc.mem_alloc()` after "
        "`gc.collect()`, after boot and at the end of each hour. The smallest heap is "
        "found by bisection, 1 KB apart, "
        "between a heap the badge lives the day in and one it dies in (MemoryError); "
        "fragmentation makes living not quite monotonic in the heap's size, so it moves "
        "by a KB or two with the bisection's path (the budget is its start). GCs "
        "per hour: the live heap seen falling between two wake-ups of the app (at most "
        "one counted per wake-up) during the day in the heap shown. Names (qstrs) made: the "
        "distinct names the board's main.py and modules make, from their .mpy files "
        "(`build.names_of`), with those a badge makes as it runs (its names modules' "
        "paths, asyncio's modules'), MicroPython's built-in ones not counted (those of "
        "the ESP32 image are: \"Names\", above); every one is kept "
        "for good, ~15-20 bytes each with its pool's entry, and a full pool's next one "
        "is a single block of twice its size, taken at once." % NAMES_HEADROOM,
        "- With the radio: the same day in a game with the radio (`Day(board, radio=True)`, "
        "bench/run.py radio_days): the badge's config has a radio section (a player's "
        "badge, the game master's and two healers' chains' anchors) and its game key, so "
        "it listens in its windows (25 ms in 900) and says its heartbeat; no station "
        "answers, so its frames cost what a quiet field's do. The weekend: three such "
        "days with the badge left on through the two 12-hour nights between them (no "
        "fight, the status still read each hour), its smallest heap found the same way; "
        "the live heap at the end of each day's last fight hour says what the nights and "
        "days leave behind.",
        "- In ROMFS: the same day, the same .mpy files packed in a ROMFS image "
        "(`build.romfs_image`, mpremote's own writer) that the runner mounts with "
        "`vfs.VfsRom` and imports from, as a badge whose MicroPython has a ROMFS "
        "partition does (MicroPython 1.25+, built with `MICROPY_VFS_ROM`: the ESP32 "
        "port's ROMFS variant). Their bytecode, strings and names are read in place, "
        "not copied into the heap; what stays is the objects the code makes (functions, "
        "classes, the state). The image is counted in the runner's share, as it is flash "
        "on a badge. `cran scenario --badge BOARD --romfs --heap KB` plays any scenario "
        "so.",
        "- Garbage (`bench/badge_probe.py`): bytes allocated with the GC held off. Idle: "
        "10 minutes at full health (steady LEDs); blinking: a minute wounded. Both are "
        "net of the runner's own asyncio plumbing (the virtual `select` and task queue, "
        "Python here, C on a badge: %.0f B per wake-up, measured alone with a reader "
        "waiting on the console's UART as the console loop waits). Hit: a short "
        "press on button a, from the press to 600 ms after its release (the hit is "
        "decided 350 ms after it), median of %d. Console line: one `status` typed on the "
        "console and answered through its loop, less its 8 bytes' reading (measured "
        "apart, from lines of Enter alone: asyncio's stream, the virtual UART and select, "
        "%.0f B a byte here, mostly the runner's Python)." % (
            runner_wake, boards[sorted(boards)[0]]["hits_timed"],
            max(b.get("line_byte", 0) for b in boards.values())),
        "- Press times: real microseconds (the port's own `utime.ticks_us`; the firmware "
        "sees the virtual clock) from the app hearing of the press (`App.on_button`, "
        "called by the button driver) to the call of the virtual NeoPixel's `write()` "
        "(its per-pixel checks, Python here, C on a badge, count in it) and to "
        "`StateStore.save` returning, fastest and median of %d hits (the fastest is the "
        "code's own cost; the machine's other work only adds to a hit), in the 64-bit "
        "unix port from PyPI, the badge's flash on a RAM disk (`/dev/shm`) so the host's "
        "disk doesn't count. The ESP32 columns multiply by %d-%dx: how much slower an "
        "ESP32 runs Python than this machine's unix port, from MicroPython's perf_bench "
        "run here against published ESP32 scores; a real flash write comes on top." % (
            boards[sorted(boards)[0]]["hits_timed"], low, high),
        "",
        MARK + json.dumps(figures, sort_keys=True) + " -->",
        "",
    ]
    return "\n".join(out)
