# Checks run inside the CircuitPython interpreter on the strict virtual CircuitPython
# modules (host_tools/virtual/circuitpython) with Adafruit's libraries, printed as
# tests/mp/checks.py does:
#   circuitpython cp_driver.py FIRMWARE_DIR VCP_DIR LIB_DIR ROOT BOARDS_DIR GAMEFILES_ROOT
import json
import sys

sys.path[:0] = [sys.argv[2], sys.argv[3], sys.argv[1], sys.argv[6], sys.path[0]]

from cran.hal_cp import runtime  # noqa: E402

runtime.install()
import board  # noqa: E402
import digitalio  # noqa: E402
import microcontroller  # noqa: E402
import neopixel_write  # noqa: E402
import pwmio  # noqa: E402
import supervisor  # noqa: E402
import vclock  # noqa: E402
from checks import check, run_checks  # noqa: E402

board.define("m5stack_atoms3_lite")
PIN = microcontroller.pin


def _fresh(start=0):
    vclock.start(start)
    microcontroller.reset_all()


def _atoms3_root(name, config):
    """An AtomS3 Lite's files, as cran flash --drive lays them out, in the flash folder
    (argv[4]) -> its path."""
    root = "%s/%s" % (sys.argv[4], name)
    vclock.vhw_module("world").make_root(root, sys.argv[5], "atoms3-lite", config)
    return root


def _raises(fn, kind):
    try:
        fn()
    except kind as e:
        return str(e)
    return None


@check
def a_pin_is_held_by_one_part():
    _fresh()
    first = digitalio.DigitalInOut(PIN.GPIO35)
    twice = _raises(lambda: digitalio.DigitalInOut(board.NEOPIXEL), ValueError)
    as_pwm = _raises(lambda: pwmio.PWMOut(PIN.GPIO35), ValueError)
    first.deinit()
    again = digitalio.DigitalInOut(PIN.GPIO35)
    return [twice, as_pwm, again.pin.number,
            _raises(lambda: first.value, ValueError) is not None]


@check
def pwm_values_are_checked():
    _fresh()
    fixed = pwmio.PWMOut(PIN.GPIO5, frequency=440)
    out = [_raises(lambda: setattr(fixed, "duty_cycle", 65536), ValueError),
           _raises(lambda: setattr(fixed, "frequency", 880), AttributeError)]
    tone = pwmio.PWMOut(PIN.GPIO6, variable_frequency=True)
    out.append(_raises(lambda: setattr(tone, "frequency", 0), ValueError))
    tone.frequency = 880
    tone.duty_cycle = 32768
    out.append([list(t[1:]) for t in tone.timeline])
    return out


@check
def nvm_is_a_fixed_array_of_bytes():
    _fresh()
    nvm = microcontroller.nvm
    out = [len(nvm), nvm[0], nvm[8191]]
    out.append(_raises(lambda: nvm.__setitem__(slice(0, 4), b"abc"), ValueError))
    out.append(_raises(lambda: nvm.__setitem__(0, 256), ValueError))
    out.append(_raises(lambda: nvm[8192], IndexError) is not None)
    nvm[10:13] = b"abc"
    out.append(bytes(nvm[9:14]) == b"\xffabc\xff")
    return out


@check
def a_resetting_chip_writes_nothing():
    # A firmware that catches the reset (cran.main's `except BaseException`) and
    # journals it: nothing lands in nvm, the reset goes on; after the reboot, writes do.
    _fresh()
    nvm = microcontroller.nvm
    try:
        microcontroller.reset()
    except microcontroller.VirtualReset:
        pass
    refused = _raises(lambda: nvm.__setitem__(slice(0, 2), b"ok"),
                      microcontroller.VirtualReset)
    kept = bytes(nvm[0:2])
    microcontroller.reboot()
    nvm[0:2] = b"ok"
    return [refused, kept == b"\xff\xff", bytes(nvm[0:2]) == b"ok"]


@check
def the_watchdog_resets_a_starved_chip():
    from watchdog import WatchDogMode
    _fresh()
    dog = microcontroller.watchdog
    unstarted = _raises(dog.feed, ValueError)
    dog.timeout = 2
    dog.mode = WatchDogMode.RESET
    vclock.advance(1500)
    dog.feed()
    vclock.advance(1999)
    try:
        vclock.advance(1)
        reset = None
    except microcontroller.VirtualReset as e:
        reset = e.reason
    stop = _raises(lambda: setattr(dog, "mode", None), RuntimeError)
    return [unstarted, reset, microcontroller.cpu.reset_reason, stop is not None]


@check
def ticks_wrap_at_2_29_in_the_core_too():
    from cran.core import ticks
    _fresh((1 << 29) - 10)
    before = supervisor.ticks_ms()
    vclock.advance(20)
    after = supervisor.ticks_ms()
    return [before, after, ticks.TICKS_PERIOD, ticks.ticks_diff(after, before),
            ticks.ticks_add(before, 20)]


@check
def time_is_circuitpythons():
    import time

    from cran.hal_cp import clock
    return [hasattr(clock._cp_time, "ticks_ms"), hasattr(clock._cp_time, "monotonic"),
            time is clock, tuple(time.localtime(0))[:6]]


@check
def a_floating_key_is_refused():
    import keypad
    _fresh()
    floating = _raises(lambda: keypad.Keys((PIN.GPIO7,), value_when_pressed=False,
                                           pull=False), ValueError)
    keys = keypad.Keys((PIN.GPIO41,), value_when_pressed=False)   # pull-up inside
    microcontroller.drive(41, 0)
    vclock.advance(25)
    event = keys.events.get()
    return [floating is not None, event.key_number, event.pressed, event.timestamp]


@check
def cue_frames_reach_the_strip_as_cues_asks():
    # The badge's own drivers on the AtomS3 Lite: each look the app shows, the bytes
    # neopixel_write got are the cue frame's colours capped to max_brightness, GRB.
    from cran.config import load
    from cran.cues import frame_of
    from cran.start.parts import build
    _fresh()
    root = _atoms3_root("frames", {"character": {"armor": 1}})
    app = build(root, load(root))
    leds = app.leds
    seen = []
    now = supervisor.ticks_ms()
    for line in ("coup", "coup", "coup blesse", "effet peur", "soin complet"):
        app.line(line, now)
        for step in (0, 130, 1100, 2500):
            vclock.advance(step)
            now = supervisor.ticks_ms()
            app.show(now)
            want = frame_of(app.frame_code, leds.count, app.layout, leds.cap) \
                if app.frame_code is not None else None
            if want is None:
                continue
            wire = bytearray()
            for r, g, b in want:
                wire += bytes((g, r, b))
            seen.append([neopixel_write.last(35) == bytes(wire), max(wire)])
    return seen


@check
def durations_past_half_the_period_are_refused_and_74_hours_count():
    # The config of a CircuitPython board refuses a countdown its ticks would misread
    # (75 hours, past 2**28 ms), naming the field; 74 hours, the longest it takes, runs
    # across the 2**29 wrap inside this interpreter (the pytest side compares the trace).
    from cran.config import ConfigError, load
    from gamefiles import scenario
    out = []
    for n, hours in enumerate((75, 74)):
        root = _atoms3_root("long%d" % n, {"character": {"agonisant_ms": hours * 3600000}})
        try:
            out.append(load(root).character.agonisant_ms)
        except ConfigError as e:
            out.append(str(e))
    with open(sys.argv[0].rsplit("/", 2)[0] + "/data/countdown-74h.txt") as f:
        text = f.read()
    out.append(list(scenario.run(scenario.parse(text), (1 << 29) - 60000)))
    return out


@check
def a_badge_that_cannot_start_shows_it():
    # A config the badge refuses: cran.main's can't-start path on CircuitPython's
    # drivers (the board file says its runtime): the error look through Adafruit's
    # library, the reason in the journal in nvm (and on the console, which the pytest
    # side reads among this driver's lines).
    import cran.run
    from cran.hal_cp.parts import stores
    _fresh()
    root = _atoms3_root("broken", {"character": {"armor": "papier"}})
    cran.run.main(root, console=False)
    return [list(neopixel_write.last(35) or b""), stores(root, None)[1].entries()]


@check
def a_button_held_at_boot_is_no_press():
    # The AtomS3 Lite's key (GPIO41, active low) held as the badge starts, released
    # 300 ms later: nothing happens; a press after that is a normal hit (S2).
    from cran.config import load
    from cran.core.vocab import STATES
    from cran.start.parts import build
    _fresh()
    root = _atoms3_root("held", {"character": {"armor": 0}})
    microcontroller.drive(41, 0)
    app = build(root, load(root))
    out = []
    for level, ms in ((0, 300), (1, 2000), (0, 150), (1, 2000)):
        microcontroller.drive(41, level)
        for _ in range(ms // 10):
            vclock.advance(10)
            app.show(supervisor.ticks_ms())
        out.append(STATES[app.badge.state.etat])
    return out


def _read_only(root, at):
    """root seen at `at` read-only to the code, as CircuitPython's drive is while a
    computer has it. -> at"""
    import os
    os.mount(os.VfsPosix(root), at, readonly=True)
    return at


@check
def three_watchdog_resets_make_safe_mode_with_a_read_only_drive():
    # cran.boots' stamps in nvm: three watchdog resets within 5 minutes and the badge
    # starts in safe mode, though the drive can't be written; a power-on ends it.
    import os

    from cran.config import load
    from cran.start.parts import build
    _fresh()
    root = _read_only(_atoms3_root("safe", {}), "/safe")
    wrote = _raises(lambda: open(root + "/boots.json", "w"), OSError)
    safe = []
    for reason in ("WATCHDOG", "WATCHDOG", "WATCHDOG", "POWER_ON"):
        microcontroller.reboot()
        microcontroller.cpu.reset_reason = reason
        app = build(root, load(root))
        safe.append(app.safe)
        vclock.advance(60000)
    return [wrote is not None, safe, sorted(os.listdir(root))]


@check
def boot_stamps_cut_at_any_byte_read_as_old_new_or_none():
    from cran.hal_cp.parts import boots
    old, new = "[1735689600, 1735689660]", "[1735689600, 1735689660, 1735689720]"

    def check_after(cut):
        try:
            got = boots().read()
        except ValueError:
            got = None
        return got in ((old, new, None) if cut else (new,)), got is not None and \
            got.count(",")
    return _cut_at_every_byte(lambda: boots().write(old), lambda: boots().write(new),
                              check_after)


def _cut_at_every_byte(prepare, write, check_after):
    """For k = 0, 1, ... bytes: the nvm as prepare() leaves it, the power cut after k
    bytes of write(), then check_after(cut) -> (good, what) (cut: True when the power
    went before the write was done), until a k at which nothing was cut. -> [the count
    of cut points, [(k, what) where not good], sorted set of every what]."""
    bad = []
    seen = set()
    k = 0
    while True:
        _fresh()
        prepare()
        microcontroller.nvm_cut_after(k)
        cut = False
        try:
            write()
        except microcontroller.VirtualReset:
            cut = True
        microcontroller.nvm_cut_after(None)
        microcontroller.reboot()
        good, what = check_after(cut)
        seen.add(what)
        if not good:
            bad.append((k, what))
        if not cut:
            return [k + 1, bad, sorted(seen)]
        k += 1


def _nvm_store():
    from cran.hal_cp.parts import stores
    return stores("/", None)


@check
def a_save_cut_at_any_byte_leaves_the_old_record_or_the_new():
    # Two saves first (both slots hold a record), then the third cut at every byte:
    # the state read back is the second's, whole, or the third's - never the first's
    # (healthier), never garbage; and the next save after it lands.
    old = {"etat": "blesse", "n": 2}
    new = {"etat": "agonisant", "n": 3, "timers": {"compte": 300000}}

    def prepare():
        store = _nvm_store()[0]
        store.save({"etat": "debout", "n": 1})
        store.save(old)

    def check_after(cut):
        store = _nvm_store()[0]
        payload, problems = store.load()
        store.save({"after": True})
        again, _ = _nvm_store()[0].load()
        return payload == (old if cut else new) and again == {"after": True}, len(problems)
    return _cut_at_every_byte(prepare, lambda: _nvm_store()[0].save(new), check_after)


@check
def the_journal_cut_at_any_byte_keeps_every_whole_line():
    # Lines of one length, one more than a half holds: the last one's append cuts
    # through the rotation (the other half cleared, then numbered) and its own line.
    # The lines written before are all read back, in order; the one being written is
    # at most missing.
    journal = _nvm_store()[1]
    size = len(json.dumps({"n": 10, "pad": "x" * 60}, separators=(",", ":"))) + 1
    count = (journal._half - 4) // size + 1
    entries = [{"n": i, "pad": "x" * 60} for i in range(10, 10 + count)]

    def prepare():
        journal = _nvm_store()[1]
        for entry in entries[:-1]:
            journal.append(entry)
        # The sample is what it says, with the lines as the journal writes them: the
        # half holds all but the last, whose append must rotate.
        if journal._end != (count - 1) * size or journal._end + size <= journal._half - 4:
            raise AssertionError("the lines are not %d bytes each" % size)

    def check_after(cut):
        journal = _nvm_store()[1]
        got = journal.entries()
        numbers = [e["n"] for e in got]
        # Cut before its newline, the last line is whole all the same, and read.
        whole = numbers in (list(range(10, 10 + count)),
                            list(range(10, 10 + count - 1)) if cut else None)
        journal.append({"n": "next"})
        return whole and journal.entries()[-1] == {"n": "next"}, numbers[-1]
    return _cut_at_every_byte(prepare, lambda: _nvm_store()[1].append(entries[-1]),
                              check_after) + [count]


run_checks()
