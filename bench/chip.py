# `make chip`: the badge on the real chip's own image. The stock MicroPython ESP32 image
# (v1.26.1) boots in QEMU's ESP32 machine (../shared/tools/qemu-esp32), the badge's files
# on its flash as cran flash writes them, started by its own main.py; the fight of the
# bench's day is typed at its console (the emulator has no buttons to press), then a
# quiet minute. The real interpreter says the heap (host_tools/device/qemu.py,
# host_tools/virtual/scripts/chip_harness.py): after boot, at the fight's peak, after the quiet
# minute, with and without the radio, for every MicroPython board of an ESP32; and
# whether the badge lives the fight when a ballast leaves it BUDGET_KB of the chip's
# heap. Figures go to docs/PERFORMANCE.md (bench/report.py), beside the model's.
#   python bench/chip.py [BOARD ...]
import json
import os
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, REPO)
sys.path.insert(0, os.path.join(REPO, "bench"))

from badge_day import names_on_chip  # noqa: E402

from host_tools.boards import BOARDS_DIR, board_ids, read_board  # noqa: E402
from host_tools.device import flash, qemu  # noqa: E402

# What the badge is left of the chip's heap (the issue "Measured on the real chip's own
# image"): its GC heap of two areas (~112 KB) less what Wi-Fi needs once ESP-NOW runs.
BUDGET_KB = 88
TARGET_BOOT_KB = 64      # after boot with the radio, gc.mem_alloc() after a collection
TARGET_IDF_KB = 40       # what the IDF's heap keeps free throughout, for Wi-Fi
# The chips the emulator runs the stock image of: the ESP32 (the ESP32-PICO-D4 is one).
EMULATED = ("esp32", "esp32-pico-d4")
NOT_EMULATED = {
    "esp32c3": "an ESP32-C3 is RISC-V: the stock image here is the ESP32's (Xtensa), and "
               "the emulator's ESP32-C3 machine has no MicroPython image to boot"}


# A chip's flash, by ESP-IDF's own floor for the ESP32 (components/idf_test/include/
# esp32/idf_performance_target.h, "about 70% of the average test data": slower than a
# chip, so a start timed with them is an upper bound): a 4-byte read at 35,200 B/s
# (114 us: an operation's own cost), 2 KB reads at 6,650,000 B/s, a 4-byte write at
# 20,100 B/s (199 us), 2 KB writes at 754,000 B/s, erases at 45,300 B/s (90 ms a block).
READ_US, READ_BYTE_US = 4e6 / 35200, 1e6 / 6650000
WRITE_US, WRITE_BYTE_US = 4e6 / 20100, 1e6 / 754000
ERASE_US = 4096e6 / 45300
WATCHDOG_MS = 45000   # main.py's, cran.app.WDT_TIMEOUT_MS


def chip_ms(cpu_ms, ops):
    """A phase of the start on a chip: the CPU's time (the emulator's, its flash
    operations taken out: an instruction there is 8 ns, 125 MIPS, where an ESP32 at 160
    MHz runs about an instruction a cycle from its cache) and what a chip's flash takes
    for the phase's operations."""
    reads, read_bytes, writes, written, erases = ops
    flash_us = (reads * READ_US + read_bytes * READ_BYTE_US + writes * WRITE_US
                + written * WRITE_BYTE_US + erases * ERASE_US)
    return (cpu_ms or 0.0) + flash_us / 1000


def chip_of(board_id):
    with open(os.path.join(BOARDS_DIR, board_id + ".json")) as f:
        return json.load(f)["chip"]


def boards(asked):
    out, skipped = [], {}
    for board in asked or board_ids():
        chip = chip_of(board)
        if chip in EMULATED:
            out.append(board)
        else:
            skipped[board] = NOT_EMULATED.get(chip, "no emulator for the %s" % chip)
    return out, skipped


def _kb(b):
    return "-" if b is None else "%.1f" % (b / 1024)


def measure(qemu_dir, board, radio, builds, own, names_model):
    with tempfile.TemporaryDirectory(prefix="cran-chip-") as work:
        started = time.monotonic()
        got = qemu.play(qemu_dir, board, radio, BUDGET_KB * 1024, work, builds, own=own)
        got["host_s"] = round(time.monotonic() - started, 1)
    got["names_model"] = names_model
    print("  %-15s %-8s after boot %5s KB, peak %5s KB, after the quiet minute %5s KB; "
          "IDF free at least %5s KB; names in RAM %s (the model's %d); start %4.1f s; %s" % (
              board, "radio" if radio else "no radio", _kb(got.get("after_boot")),
              _kb(got.get("peak")), _kb(got.get("after_quiet")), _kb(got.get("idf_least")),
              got.get("names"), got["names_model"], got.get("start_ms", 0) / 1000,
              "lives in %d KB" % BUDGET_KB if got["lived"] else "DIES: " + got["error"]),
          flush=True)
    return got


def _verdict(ok):
    return "within" if ok else "OVER"


HEADING = "## On the real chip's own image (`make chip`)"


def render(chip, model=None):
    """docs/PERFORMANCE.md's lines of the real image's figures (chip: what main()
    returns), beside the model's after boot (model: {board: {"boot_radio": bytes,
    "boot": bytes}} of make bench, where it has them)."""
    model = model or {}
    lines = [
        HEADING, "",
        "The stock MicroPython image (`%s`) boots in QEMU's ESP32 machine (the emulator "
        "and its limits: ../shared/tools/qemu-esp32/README.md), the badge's files on its "
        "flash as `cran flash` writes them, started by its own `main.py`; the bench's "
        "fight is typed at its console (an organiser's unlock, `coup`, `coup`, `effet "
        "peur`, `soin`, `soin`, `status`: the emulator has no button to press), then a "
        "quiet minute (`host_tools/device/qemu.py`). The real interpreter says the heap "
        "(`host_tools/virtual/scripts/chip_harness.py`, the chip's boot.py under measure: "
        "`gc.mem_alloc()` after a collection every 500 ms of the chip's time, its own "
        "share taken out; the badge is charged what the chip's `_boot.py` left and "
        "`import machine`, %.1f KB). The harness's own code is taken out too: %s. Its "
        "names are the image's, so that they take no room in the pools of names in RAM. "
        "A ballast leaves the badge %d KB of the chip's two-area GC heap (%.1f KB: 56 KB, "
        "then once a second area as large); it lives when every answer is the rules', "
        "nothing restarts and the heap never takes a third area from the IDF (which "
        "would take the IDF's largest free block, Wi-Fi's room). The flash is mounted "
        "with %d-byte reads, not the stock 32 (each flash operation costs the emulator "
        "~7 ms: a start on the stock mount takes ~9x as long there), and the larger cache "
        "each open file then holds is given back for one file open (a second one open at "
        "a sample is charged 0.9 KB more than a chip's); the emulator's watchdog is off "
        "(`CHIP_START=1 make chip` times the start on the stock mount as a chip's: ~3.5 s "
        "with the radio on the DevKitC, inside main.py's 45 s watchdog). With the radio on, "
        "v1.26's GC heap takes its second area from the IDF once the badge is past its "
        "first 56 KB, which leaves Wi-Fi ~30 KB: the 40 KB target can only hold for a "
        "badge that fits one area." % (
            chip["image"], (_base(chip) - chip.get("harness_own", 0)) / 1024, _own_text(chip),
            chip["budget_kb"], _capacity(chip) / 1024,
            qemu.MEASURE_READ_SIZE),
        "",
        "| board | radio | after boot (target %d KB with the radio) | the model's after boot "
        "(its names' next pool charged where the bench charges it) | "
        "the fight's peak | after the quiet minute | IDF free at its lowest (target %d KB "
        "with the radio) | names in RAM once started (the model's count) | lives in %d KB |"
        % (TARGET_BOOT_KB, TARGET_IDF_KB, chip["budget_kb"]),
        "|---|---|---|---|---|---|---|---|---|"]
    for run in chip["runs"]:
        radio = run["radio"]
        boot = run.get("after_boot")
        seen = model.get(run["board"], {}).get("boot_radio" if radio else "boot")
        boot_text = "%s KB" % _kb(boot)
        if radio and boot is not None:
            boot_text += " %s" % _verdict(boot <= TARGET_BOOT_KB * 1024)
        idf = run.get("idf_least")
        idf_text = "%s KB" % _kb(idf)
        if radio and idf is not None:
            idf_text += " %s" % _verdict(idf >= TARGET_IDF_KB * 1024)
        lines.append("| %s | %s | %s | %s | %s KB | %s KB | %s | %s | %s |" % (
            run["board"], "yes" if radio else "no", boot_text,
            _model_text(seen, boot), _kb(run.get("peak")),
            _kb(run.get("after_quiet")), idf_text, _names_text(run),
            ("yes" if run["lived"] else "no: " + run["error"])
            + ("" if not run.get("absent") else " (the emulator has no %s: its bus "
               "answers nothing, the badge said so and played on)"
               % " or ".join(run["absent"]))
            + (" (the emulator has no screen: the optional one not fitted, where the "
               "model's has one)" if _optional_screen(run["board"]) else "")))
    for board, why in chip.get("skipped", {}).items():
        lines.append("| %s | - | not measured: %s | | | | | | |" % (board, why))
    start = chip.get("start")
    if start:
        lines += ["", _start_text(start)]
    return lines


def _names_text(run):
    """The names in RAM the chip said once the badge started, and the model's count."""
    if run.get("names") is None:
        return "-"
    return "%d (%s)" % (run["names"], run.get("names_model", "-"))


def _model_text(model, chip):
    """The model's figure, and how far the chip's is from it (KB)."""
    if not model:
        return "-"
    if chip is None:
        return "%s KB" % _kb(model)
    return "%s KB (the chip %+.1f)" % (_kb(model), (chip - model) / 1024)


def _optional_screen(board_id):
    display = read_board(board_id).display
    return display is not None and display["optional"]


def _own_text(chip):
    own = chip.get("harness_own")
    if own is None:   # figures of a make chip before it was measured
        return "not measured then: ~1.5 KB more on every figure below"
    return ("%d B, measured by two boots of the image (`qemu.harness_own`). Until "
            "2026-12-07 it was charged to the badge, and its ~30 names of its own moved "
            "where the badge's names took their next pool" % own)


def _base(chip):
    return max((r.get("base", 0) for r in chip["runs"]), default=0)


def _capacity(chip):
    return max((r.get("capacity", 0) for r in chip["runs"]), default=0)


_PHASE_NAMES = ("main.py's check of the firmware", "the start")


def _start_text(start):
    parts = []
    total = 0.0
    for phase, cpu_ms, ops, _emulator_ms in start["phases"]:
        on_chip = chip_ms(cpu_ms, ops)
        total += on_chip
        parts.append("%s: %d reads (%d KB), %d writes, %d erases, %.1f s of CPU; %.1f s on a "
                     "chip" % (_PHASE_NAMES[phase], ops[0], ops[1] // 1024, ops[2], ops[4],
                               (cpu_ms or 0) / 1000, on_chip / 1000))
    return ("The start on a chip (%s with the radio, the stock mount's 128-byte cache, as "
            "a chip makes its flash operations, counted by the harness): %s; %.1f s in "
            "all on a chip, inside main.py's %d s watchdog (a chip's flash timed by ESP-IDF's "
            "own floor for the ESP32, idf_performance_target.h, so an upper bound; the "
            "emulator's CPU taken as a chip's)." % (
                start["board"], "; ".join(parts), total / 1000, WATCHDOG_MS // 1000))


def main(asked):
    qemu_dir = qemu.find_qemu()
    if qemu_dir is None:
        print("chip: skipped: " + qemu.HOW_TO_GET_QEMU)
        return None
    chosen, skipped = boards(asked)
    print("the real image (%s, in QEMU): the badge started by main.py, the fight at its "
          "console, %d KB of heap left it" % (os.path.basename(qemu.stock_image(qemu_dir)),
                                               BUDGET_KB))
    for board, why in skipped.items():
        print("  %-15s skipped: %s" % (board, why))
    with tempfile.TemporaryDirectory(prefix="cran-chip-build-") as build_dir:
        own = qemu.harness_own(qemu_dir, build_dir)
        print("  the harness's own code: %d B, taken out of the badge's figures"
              % own, flush=True)
        builds = flash.Builds(build_dir)
        builds.files(qemu.IMPL)   # compiled once, before the chips share it
        jobs = [(b, radio) for b in chosen for radio in (True, False)]
        # The names the model counts in RAM for each (those whose pools it charges).
        names_model = dict((job, names_on_chip(*job)["in_ram"]) for job in jobs)
        with ThreadPoolExecutor(max_workers=2) as pool:   # an emulator takes a core
            results = list(pool.map(
                lambda job: measure(qemu_dir, job[0], job[1], builds, own,
                                    names_model[job]), jobs))
        start = None
        if os.environ.get("CHIP_START") and chosen:
            start = count_start(qemu_dir, START_BOARD if START_BOARD in chosen else chosen[0],
                                builds, results)
    figures = {"image": os.path.basename(qemu.stock_image(qemu_dir)), "budget_kb": BUDGET_KB,
               "runs": results, "skipped": skipped, "start": start, "harness_own": own}
    return figures


# The start timed on a chip (CHIP_START=1: ~20 minutes): the board with the most to
# start, its radio on.
START_BOARD = "esp32-devkitc"


def count_start(qemu_dir, board, builds, results):
    """The start's flash operations on the stock mount (qemu.count_start), the CPU's
    time from this board's measured run (its operations taken out)."""
    print("  counting the start's flash operations on the stock mount (%s, radio): the "
          "emulator takes ~20 minutes" % board, flush=True)
    with tempfile.TemporaryDirectory(prefix="cran-chip-start-") as work:
        counted, op_us = qemu.count_start(qemu_dir, board, True, work, builds)
    fast = [r for r in results if r["board"] == board and r["radio"] and r.get("phases")]
    cpu = {}
    if fast:
        for phase, ms, ops in fast[0]["phases"]:
            cpu[phase] = max(0.0, ms - sum(ops[i] for i in (0, 2, 4)) * fast[0]["op_us"] / 1000)
    start = {"board": board, "phases": [], "op_us": op_us}
    for phase, ms, ops in counted:
        start["phases"].append([phase, cpu.get(phase), ops, ms])
    print("  " + _start_text(start), flush=True)
    return start


def write(measured, path=None):
    """The real image's figures into docs/PERFORMANCE.md: its section (section,
    beside the model's figures of the last `make bench`) and the figures'
    JSON at its end, the boards not measured this time kept as they were."""
    from host_tools.device.bench_figures import PERFORMANCE, read_figures, write_section
    path = path or PERFORMANCE
    figures = read_figures(path) or {}
    kept = [r for r in (figures.get("chip") or {}).get("runs", [])
            if (r["board"], r["radio"]) not in
            [(n["board"], n["radio"]) for n in measured["runs"]]]
    measured = dict(measured, runs=sorted(kept + measured["runs"],
                                          key=lambda r: (r["board"], not r["radio"])))
    if not measured.get("start"):
        measured["start"] = (figures.get("chip") or {}).get("start")
    figures["chip"] = measured
    write_section(path, HEADING, section(figures)[1:], figures)


def section(figures):
    """The real image's figures (`make chip`, bench/chip.py), beside the model's after
    boot: the lines of their section, or a line saying how to measure them."""
    measured = figures.get("chip")
    if not measured:
        return ["", HEADING, "", "Not measured yet: `make chip` (the stock image in "
                "QEMU, ../shared/tools/qemu-esp32) measures them and writes them here."]
    radio_days = figures.get("radio", {}).get("radio_days", {})
    model = {b: {"boot": f.get("after_boot"),
                 "boot_radio": radio_days.get(b, {}).get("after_boot")}
             for b, f in figures.get("boards", {}).items()}
    return [""] + render(measured, model)


if __name__ == "__main__":
    got = main(sys.argv[1:])
    if got is not None:
        print()
        print("\n".join(render(got)))
        write(got)
