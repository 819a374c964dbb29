# A badge's 12-hour game day, for any board: the whole app on virtual hardware inside
# MicroPython (host_tools/virtual/scripts/badge_driver.py, as `cran scenario --badge --mpy
# --heap`), one fight an hour, crossing the tick wrap; and the probe of bench/badge_probe.py.
# Figures are the badge's own: the runner's share of the heap is measured and left out.
import copy
import json
import os
import subprocess
import tempfile

from cran.core.words import parse_action
from cran.menu import Menu
from host_tools.boards import BOARDS_DIR
from host_tools.build import compile_firmware, manifest_text, runner_copy
from host_tools.virtual import SCRIPTS_DIR
from host_tools.virtual.micropython import sys_path
from host_tools.virtual.runtimes import (
    RADIO_GAME,
    OutOfMemory,
    badge_job,
    lay_flash,
    run_badge_jobs,
)

HOURS = 12
NIGHT_HOURS = 12   # a weekend's nights (Day(days=3)): the badge on, nobody fighting
HOUR_MS = 3600000
# One fight an hour (ms into the hour): hits, a keyword, two heals, all pressed on the
# badge's own buttons as its wearer does (the menu's way to each, found by presses_for);
# then an organiser reads its status at the console. The rest of the hour is calm.
FIGHT = (("coup", 0), ("coup", 2000), ("effet peur", 5000), ("soin", 65000),
         ("soin", 85000))
# What each of those leaves (etat, effects): a press that missed would make the day an
# idle one, so play() checks them.
AFTER = (("blesse", "-"), ("agonisant", "-"), ("agonisant", "peur"), ("blesse", "peur"),
         ("pleine-forme", "peur"))
STATUS_AT = 30 * 60000
START = (1 << 30) - HOUR_MS      # the day crosses the tick wrap
PROBE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "badge_probe.py")
# How long a finger holds each kind of press, and the pause after it (cran.hal.buttons:
# a long press is 800 ms held; a click is short once 350 ms pass with no second one).
HOLD_MS = {"short": 100, "long": 1000}
PAUSE_MS = 700


def fork(menu):
    """A copy of menu (cran.menu.Menu) that presses on apart from it: its lists (the
    pages it has open) its own."""
    m = copy.copy(menu)
    m.__dict__.update((k, list(v)) for k, v in vars(menu).items() if isinstance(v, list))
    return m


def open_pages(menu):
    """[(page, cursor, group)] menu has open, the one on show first: read through its
    own verbs, on a copy taken down a page at a time."""
    m, pages = fork(menu), []
    while m.is_open():
        pages.append(m.page_here() + m.where()[:1])
        m.pop()
    return pages


def presses_for(text, buttons, has_screen):
    """The shortest presses [(button, kind)] that give the action `text` from a closed
    menu (cran.menu, as the badge has it: `buttons` buttons, a screen or not)."""
    text = parse_action(text).text()   # as the menu's actions say it: "coup normal"
    inputs = [(b, k) for b in "ab"[:buttons] for k in ("short", "long", "double")]
    todo = [(Menu(buttons, has_screen), [])]
    seen = set()
    while todo:
        menu, seq = todo.pop(0)
        for button, kind in inputs:
            m = fork(menu)
            results = m.press(button, kind, (len(seq) + 1) * 2 * PAUSE_MS)
            if [r for r in results if r[0] == "action" and r[1].text() == text]:
                return seq + [(button, kind)]
            key = (m.divin,) + tuple((id(p), c, g) for p, c, g in open_pages(m))
            if m.is_open() and key not in seen and len(seq) < 16:
                seen.add(key)
                todo.append((m, seq + [(button, kind)]))
    raise ValueError("no presses give %r" % text)


def pin_steps(board, presses, at):
    """Presses from tick `at` -> ("drive" steps for the badge driver, tick after them)."""
    pins = dict((b["name"], (b["pin"], 0 if b["active_low"] else 1))
                for b in board["buttons"])
    steps = []
    for button, kind in presses:
        pin, down = pins[button]
        if kind == "double":
            steps += [[0, at, "drive", [pin, down]], [0, at + 80, "drive", [pin, None]],
                      [0, at + 200, "drive", [pin, down]],
                      [0, at + 280, "drive", [pin, None]]]
            at += 280 + PAUSE_MS
        else:
            steps += [[0, at, "drive", [pin, down]],
                      [0, at + HOLD_MS[kind], "drive", [pin, None]]]
            at += HOLD_MS[kind] + PAUSE_MS
    return steps, at


def day_job(board_id, days=1):
    """The day as the badge driver takes it: the fights pressed on the buttons, and a
    "mem" step (live heap after a collection, GCs so far) after boot and at the end of
    each hour. days > 1: a weekend, the badge left on: a night of NIGHT_HOURS with no
    fight (its wearer asleep) after each day but the last, the status read each hour
    all along."""
    with open(os.path.join(BOARDS_DIR, board_id + ".json")) as f:
        board = json.load(f)
    buttons, has_screen = len(board["buttons"]), board.get("display") is not None
    job = badge_job(board_id, "")
    steps = job["steps"] = [[0, 0, "mem"]]
    for day in range(days):
        for hour in range(HOURS + (NIGHT_HOURS if day < days - 1 else 0)):
            start = (day * (HOURS + NIGHT_HOURS) + hour) * HOUR_MS
            at = start
            for text, offset in FIGHT if hour < HOURS else ():
                pressed, after = pin_steps(board, presses_for(text, buttons, has_screen),
                                           max(at, start + offset))
                steps += pressed
                at = after
                steps.append([0, at, "expect"])   # what the presses did: play() checks it
            steps.append([0, start + STATUS_AT, "line", "status"])
            steps.append([0, start + HOUR_MS, "mem"])
    return job


class Day:
    def __init__(self, board_id, romfs=False, radio=False, start_only=False, days=1):
        self.job = day_job(board_id, days)
        self.days = days
        if radio:   # listening in its windows, a heartbeat a minute (no station hears)
            self.job["config"] = {"radio": RADIO_GAME}
        self.start_only = start_only   # the start alone: boot, then one look at the heap
        if start_only:
            self.job["steps"] = self.job["steps"][:1]
        self.romfs = romfs     # the firmware in a ROMFS image, run in place
        self.runner = None     # the runner's share of the heap, once measured

    def play(self, heap_kb):
        """The day in a badge of heap_kb KB -> {"after_boot", "peak", "gcs_per_hour"}
        (bytes of the badge's own live heap), or an OutOfMemory text."""
        def measured(runner):
            self.runner = runner
        [events] = run_badge_jobs([self.job], start_tick=START, mpy=True, heap_kb=heap_kb,
                                  runner=self.runner, on_heap=measured, romfs=self.romfs,
                                  # A weekend's three days met one day's 600 s on a
                                  # busy machine: each day its own.
                                  timeout=600 * self.days)
        if isinstance(events, str):
            if isinstance(events, OutOfMemory):   # a heap too small for the start, too
                return events
            raise RuntimeError(events)
        seen = [(e[3][0], e[3][3]) for e in events if e[0] == "expect"]
        if seen != ([] if self.start_only else list(AFTER) * HOURS * self.days):
            raise RuntimeError("the presses did not play the fight: %s" % seen[:len(AFTER)])
        mems = [e for e in events if e[0] == "mem"]
        # The live heap at the end of each day's last fight hour (a weekend's 12th, 36th
        # and 60th hour): what its nights and days leave behind.
        ends = [mems[(day * (HOURS + NIGHT_HOURS) + HOURS)][2] for day in range(self.days)
                if not self.start_only]
        return {"after_boot": mems[0][2], "peak": max(m[2] for m in mems[-1:]),
                "gcs_per_hour": mems[-1][3] / (len(mems) - 1 or 1), "day_ends": ends}

    def smallest_heap(self, lives_at, dies_at):
        """The smallest whole KB the badge lives the day in, by bisection between a heap
        it lives in and one it dies in. -> (KB, its day's figures)"""
        best = None
        while lives_at - dies_at > 1:
            mid = (lives_at + dies_at) // 2
            result = self.play(mid)
            if isinstance(result, str):
                dies_at = mid
            else:
                lives_at, best = mid, result
        return lives_at, best


def figures(board_id, budget_kb):
    """Everything about one board's memory in a day (see bench/run.py)."""
    day = Day(board_id)
    roomy = day.play(4 * budget_kb)
    if isinstance(roomy, str):
        raise RuntimeError(roomy)
    at_budget = day.play(budget_kb)
    lives = not isinstance(at_budget, str)
    floor_kb = int(roomy["peak"] / 1024 / day.runner.ratio)   # it can't live in less
    if lives:
        smallest, at_smallest = day.smallest_heap(budget_kb, floor_kb)
    else:
        smallest, at_smallest = day.smallest_heap(4 * budget_kb, budget_kb)
    # The start alone, as files: the app is built while the start's own modules are
    # still in, among the holes of those it let go, so a day's smallest heap may be
    # its start's (where the next kilobytes are to be won, if so).
    start = Day(board_id, start_only=True)
    start_smallest, _ = start.smallest_heap(smallest, floor_kb)
    # The same day with the firmware in ROMFS: its code in flash, not in the heap.
    rom = Day(board_id, romfs=True)
    rom_roomy = rom.play(budget_kb)
    if isinstance(rom_roomy, str):
        raise RuntimeError(rom_roomy)
    rom_smallest, _ = rom.smallest_heap(
        budget_kb, int(rom_roomy["peak"] / 1024 / rom.runner.ratio))
    return {"after_boot": roomy["after_boot"], "peak": roomy["peak"],
            "romfs_after_boot": rom_roomy["after_boot"], "romfs_peak": rom_roomy["peak"],
            "romfs_smallest_kb": rom_smallest,
            "runner_kb": day.runner.base / day.runner.ratio / 1024,
            "smallest_kb": smallest, "start_smallest_kb": start_smallest,
            "lives_budget": lives,
            "died_at_budget": None if lives else at_budget,
            "gcs_per_hour": (at_budget if lives else at_smallest or roomy)["gcs_per_hour"],
            "gcs_heap_kb": budget_kb if lives else smallest}


_FIRMWARE = []   # a compiled firmware for the names' figures: (its folder, its files)


def _firmware_files():
    if not _FIRMWARE:
        tmp = tempfile.TemporaryDirectory(prefix="cran-names-")   # kept for the run
        _FIRMWARE.append((tmp, compile_firmware(tmp.name)))
    return _FIRMWARE[0][1]


def names_made(board_id):
    """The names (qstrs) a badge of board_id makes and keeps in a game without the radio
    (runtimes.badge_names: main.py's, its modules' as its start makes them, from the
    names modules the badge picks, and those it makes as it runs), its image's own
    included."""
    from host_tools.virtual.runtimes import badge_names, names_modules
    return len(badge_names(_firmware_files(), names_modules({"board": board_id})))


def names_on_chip(board_id, radio):
    """A badge's names on its chip (its image's own left out), in a game with the radio or
    not -> {"in_ram": names, "left": names it can still make before its chip takes the
    next pool of names, "pool": that pool's bytes, "paid": whether the bench charges it
    (fewer left than runtimes.NAMES_HEADROOM)}."""
    from host_tools.virtual.esp32image import in_ram
    from host_tools.virtual.runtimes import (
        NAMES_HEADROOM,
        badge_names,
        names_headroom,
        names_modules,
    )
    job = {"board": board_id, "config": {"radio": RADIO_GAME} if radio else {}}
    made = badge_names(_firmware_files(), names_modules(job))
    left, pool = names_headroom(made)
    return {"in_ram": len(in_ram(made)), "left": left, "pool": pool,
            "paid": left < NAMES_HEADROOM}


def probe(exe, board_id):
    """bench/badge_probe.py on one board -> its figures. Its flash on a RAM disk where
    there is one: the host's disk must not count in the press times."""
    ram = "/dev/shm" if os.access("/dev/shm", os.W_OK) else None
    with tempfile.TemporaryDirectory(prefix="cran-probe-", dir=ram) as tmp:
        firmware = os.path.join(tmp, "firmware")
        files = compile_firmware(firmware)
        flash = os.path.join(tmp, "flash")
        os.mkdir(flash)
        modules = {}
        for path, local in files.items():
            with open(local, "rb") as f:
                modules[path] = f.read()
        lay_flash(flash, 1, firmware, manifest_text(modules))   # its main.py starts it
        # The probe and the runner it drives, with the firmware's modules named as the
        # badge has them (build.runner_copy).
        runner = os.path.join(tmp, "runner")
        os.mkdir(runner)
        runner_copy(os.path.join(SCRIPTS_DIR, "badge_driver.py"), runner)
        proc = subprocess.run([exe, runner_copy(PROBE, runner), firmware, BOARDS_DIR, flash,
                               runner] + sys_path("micropython"),
                              input=json.dumps(badge_job(board_id, "")) + "\n",
                              capture_output=True, text=True, timeout=300)
    for line in proc.stdout.splitlines():
        if line.startswith('{"probe"'):
            return json.loads(line)["probe"]
    raise RuntimeError("badge_probe.py on %s failed (exit %d): %s%s" % (
        board_id, proc.returncode, proc.stdout[-1500:], proc.stderr[-1500:]))

