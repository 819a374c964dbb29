# The whole badge app (cran.app) on the virtual hardware, inside the MicroPython unix
# port: buttons driven on their pins, virtual minutes passing, a hung show loop.
#   micropython app_driver.py FIRMWARE_DIR BOARDS_DIR FLASH_DIR VHW_DIR EXTRA_DIR
# Prints one JSON line per check: {"id", "result"} or {"id", "crash"}; tests/test_app.py
# holds the expectations.
import json
import sys

sys.path[:0] = [sys.argv[4], sys.argv[5], sys.argv[1]]

import asyncio  # noqa: E402
import time  # noqa: E402

import machine  # noqa: E402
import vclock  # noqa: E402
from checks import check, fresh_badge, run_checks, run_for  # noqa: E402

from cran import storage  # noqa: E402
from cran.app import MAX_SLEEP_MS  # noqa: E402
from cran.config import load  # noqa: E402
from cran.core.view import view  # noqa: E402
from cran.cues import frame_code, frame_of, led_frame, look  # noqa: E402
from cran.hal.leds import cap  # noqa: E402
from cran.start.parts import build  # noqa: E402
from cran.storage import StateStore  # noqa: E402

BOARDS, FLASH = sys.argv[2], sys.argv[3]


def badge(board, config=None, start=0, epoch_s=vclock.DEFAULT_EPOCH_S, i2c=False):
    """checks.fresh_badge in this run's flash folder."""
    return fresh_badge(FLASH, BOARDS, board, config or {}, start, epoch_s, i2c)


def shown(app, fault=False):
    """(LED frame on the strip, the frame the state should show now, capped). fault:
    with a failed save's cue."""
    leds = app.leds
    code = frame_code(app.badge.state, time.ticks_ms(), leds.count, app.layout, fault)
    want = [list(cap(c, leds.max_brightness)) for c in frame_of(code, leds.count, app.layout)]
    return [list(c) for c in leds.np.last], want


# A flash that refuses writes, when asked: cran.storage's open() (a global there shadows
# the builtin) raises as a full or worn-out flash does, for the state and the journal.
_flash_refuses = [False]


def _open(path, mode="r"):
    if _flash_refuses[0] and ("w" in mode or "a" in mode):
        raise OSError(28, "ENOSPC")
    return open(path, mode)


storage.open = _open


def press(pin, ms=100):
    # A finger, scheduled outside the chip: it acts on time even while the badge light-
    # sleeps (no task runs then), and wakes it.
    async def go():
        machine.drive_at(0, pin, 0)
        machine.drive_at(ms, pin, None)
        await asyncio.sleep_ms(ms)
    return go


def etat(app):
    return json.loads(app.line("status", time.ticks_ms())[0])["etat"]


@check
def hit_button():
    _, app = badge("atom-lite")
    run_for(app, 1000)
    before = etat(app)
    run_for(app, 1000, press(39))
    out = {"before": before, "after": etat(app), "look": look(app.badge.state, time.ticks_ms())}
    got, want = shown(app)
    out["frame_matches"] = got == want
    frames = []
    for _ in range(8):   # the blesse rhythm: on and off across 2 s
        run_for(app, 250)
        frames.append(shown(app)[0])
    out["distinct_frames"] = len(set(json.dumps(f) for f in frames))
    out["journal"] = [e.get("a") for e in app.badge.journal.entries() if "a" in e]
    return out


# Actions whose states the journal must say as the engine has them: armor answering
# and broken (A1, A4, K7), effects (K3, K8) and a theft's silent timer (K13), a dissipe
# (K9), the game stopped and left (K15, K16), death (S6) and a reset (P3).
JOURNALED = ("coup", "effet peur", "coup vol bourse", "coup brise bras", "coup desarme",
             "coup brise armure", "effet dissipe", "stop", "reprise", "hors-jeu", "coup",
             "en-jeu", "repare bras", "coup mort", "reset")


@check
def journal_says_the_state():
    # Each action's journal entry beside the engine's own view of the state after it:
    # the summary is made on the badge (here, in MicroPython), read on the host.
    _, app = badge("atom-lite", {"character": {"name": "J", "armor": 2}})
    run_for(app, 1000)
    views = []
    for words in JOURNALED:
        app.line(words, time.ticks_ms())
        views.append(view(app.badge.state, time.ticks_ms()))
        run_for(app, 500)
    return {"entries": [e for e in app.badge.journal.entries() if "a" in e],
            "views": views}


@check
def hit_shows_before_it_is_saved():
    # The power goes at the instant the hit's record would be written: the LED already
    # showed the hit, and the badge comes back as it was before it (never healthier).
    # A steady idle look: the frame before the hit is lit, whatever the blink's phase.
    root, app = badge("atom-lite", {"settings": {"idle_look": "steady"}})
    run_for(app, 1000)
    seen_at_save = []

    def cut(payload):
        seen_at_save.append(shown(app))   # (on the LED, what the new state shows)
        raise OSError(5, "power cut")
    before = shown(app)[0]
    app.badge.store.save = cut
    run_for(app, 1000, press(39))
    machine.reboot()
    again = build(root, load(root))
    return {"etat_before_cut": etat(app), "frame_before": before,
            "at_save": seen_at_save[:1], "etat_after_reboot": etat(again)}


@check
def hit_is_saved_before_the_screen_draws():
    # On a board with LEDs and a screen, the hit's record is written once the LEDs show
    # it and before the screen's words are loaded to draw it: their loading, from flash,
    # would hold the save back (hundreds of ms on an ESP32, a hit lost to a cut then).
    _, app = badge("esp32-devkitc", {"settings": {"idle_look": "steady"}}, i2c=True)
    run_for(app, 1000)
    before = list(app.screen.shown)
    at_save = []
    save = app.badge.store.save

    def noted(payload):
        on_led, wanted = shown(app)
        at_save.append([on_led == wanted, list(app.screen.shown),
                        "cran.texts" in sys.modules, "cran.hal.panel" in sys.modules])
        return save(payload)
    app.badge.store.save = noted
    run_for(app, 1000, press(32))
    return {"before": before, "at_save": at_save[:1], "after": list(app.screen.shown)}


@check
def undo_double_press():
    _, app = badge("atom-lite")
    run_for(app, 1000, press(39))
    hit = etat(app)

    async def double():
        await press(39)()
        await asyncio.sleep_ms(100)
        await press(39)()
    run_for(app, 2000, double)
    return {"hit": hit, "after_undo": etat(app),
            "journal": [sorted(e) for e in app.badge.journal.entries() if "undo" in e]}


@check
def coma_five_minutes_after_agonisant():
    _, app = badge("atom-matrix")
    run_for(app, 1000)
    app.line("coup agonisant", time.ticks_ms())
    run_for(app, 299000)
    at_4_59 = etat(app)
    run_for(app, 2000)
    got, want = shown(app)
    return {"at_4_59": at_4_59, "at_5_01": etat(app),
            "look": look(app.badge.state, time.ticks_ms()), "frame_matches": got == want}


@check
def news_on_the_peek():
    # S8 and K13 on the StickC's screen: private news, read on the peek (b). Awake: the
    # checks are timed to the second, and run_for() can't cut a light sleep short.
    _, app = badge("m5stickc-plus", {"light_sleep": False}, i2c=True)
    a, b = press(37), press(39)

    def peek():
        run_for(app, 1000, b)
        return app.screen.shown

    async def soin():   # bb a: the Autre page's first entry
        await b()
        await asyncio.sleep_ms(100)
        await b()
        await asyncio.sleep_ms(1000)
        await a()

    async def undo():   # aa
        await a()
        await asyncio.sleep_ms(100)
        await a()

    out = {}
    run_for(app, 1000)
    app.line("coup agonisant", time.ticks_ms())
    run_for(app, 6000)
    run_for(app, 2000, soin)
    out["healed"] = [etat(app), peek()]
    healed_at = app.news[1]
    run_for(app, 300000 - 2500 - time.ticks_diff(time.ticks_ms(), healed_at))
    out["at_4_59"] = peek()   # a peek of 1 s, its press read after the double window
    run_for(app, 2000)
    out["at_5_01"] = peek()
    run_for(app, 6000)   # the peek closed
    app.line("coup agonisant", time.ticks_ms())
    run_for(app, 1000, soin)
    run_for(app, 1000, undo)
    out["heal_undone"] = [etat(app), peek()]
    app.line("soin", time.ticks_ms())
    app.line("effet vol bourse", time.ticks_ms())
    run_for(app, 301000)
    out["theft"] = peek()
    return out


@check
def saves_keep_up_with_a_countdown():
    # Power may go at any instant: what the flash holds must never give more time than
    # is really left. The StickC has no LEDs, so nothing but the saves wakes it often.
    root, app = badge("m5stickc-plus")
    run_for(app, 1000)
    app.line("coup agonisant", time.ticks_ms())
    store = StateStore(root)
    out = {"healthier": [], "saves_while_stopped": None}
    store.load()
    first = store.seq
    for _ in range(40):
        run_for(app, 3700)
        saved = store.load()[0]["timers"]["countdown"]
        really = app.badge.state.left_ms("countdown", time.ticks_ms())
        if saved > really:
            out["healthier"].append([saved, really])
    out["saves"] = store.seq - first
    # A stopped game freezes the countdown: the saved time stays right with no new save.
    app.line("stop", time.ticks_ms())
    run_for(app, 1000)
    store.load()
    seq = store.seq   # the sequence number of the newest record
    run_for(app, 60000)
    store.load()
    out["saves_while_stopped"] = store.seq - seq
    return out


def _wakeups_per_minute(app, minutes=3):
    # Per minute of the virtual time that really passed: a light sleep runs past the end
    # of run_for() (nothing runs to stop it), so the last minute may be longer.
    run_for(app, (minutes - 1) * 60000)
    before = app.wakeups
    t0 = vclock.elapsed_ms()
    run_for(app, 60000)
    return round((app.wakeups - before) * 60000 / (vclock.elapsed_ms() - t0))


STEADY = {"settings": {"idle_look": "steady"}}


@check
def wakeups_per_idle_minute():
    out = {}
    for board in ("atom-lite", "atom-matrix", "esp32-devkitc", "m5stickc-plus"):
        _, app = badge(board)
        out[board] = _wakeups_per_minute(app)
        _, app = badge(board, STEADY)
        out[board + " steady"] = _wakeups_per_minute(app)
    for action in ("coup", "coup agonisant", "coup coma", "hors-jeu"):
        _, app = badge("atom-lite")
        app.line(action, time.ticks_ms())
        out["atom-lite " + action] = _wakeups_per_minute(app, 2)
    _, app = badge("atom-lite", STEADY)
    out["light_sleep"] = [_wakeups_per_minute(app), machine.wakeups, machine.lightsleep_ms]
    _, app = badge("atom-lite", {"light_sleep": False, "settings": {"idle_look": "steady"}})
    out["awake"] = [_wakeups_per_minute(app), machine.wakeups]
    out["max_sleep_ms"] = MAX_SLEEP_MS
    return out


def _hang(app):
    def stuck(frame):
        time.sleep_ms(600000)   # a driver that never returns: virtual time runs on
    app.leds.write = stuck      # every frame goes through it


def _reboot_after_hang(root, app):
    """Run until the watchdog bites -> (cause, ms it took, the app booted again)."""
    _hang(app)
    t0 = vclock.elapsed_ms()
    try:
        run_for(app, 600000)
        return None, None, app
    except machine.VirtualReset as e:
        cause = e.cause
    took = vclock.elapsed_ms() - t0
    machine.reboot()
    return cause, took, build(root, load(root))


@check
def watchdog_and_safe_mode():
    root, app = badge("atom-lite")
    run_for(app, 1000)
    app.line("coup", time.ticks_ms())
    run_for(app, 1000)
    out = {"resets": [], "safe": []}
    for _ in range(3):
        cause, took, app = _reboot_after_hang(root, app)
        out["resets"].append([cause, took])
        out["safe"].append(app.safe)
    boots = [e["cause"] for e in app.badge.journal.entries() if "boot" in e]
    out["boot_causes"] = boots
    out["safe_logged"] = [e["safe_mode"] for e in app.badge.journal.entries()
                          if "safe_mode" in e]
    run_for(app, 3000, press(39))   # the menu is off: a press changes nothing
    out["etat"] = etat(app)
    out["look"] = look(app.badge.state, time.ticks_ms())
    got, want = shown(app)
    out["frame_matches"] = got == want
    out["refused"] = app.line("soin", time.ticks_ms())
    out["journal_answers"] = len(app.line("journal", time.ticks_ms())) > 0
    # A power cycle (not a watchdog reset) is a fresh try: out of safe mode.
    machine.reboot()
    machine.reset_all(machine.PWRON_RESET)
    machine.set_board_pull(39, 1)
    out["after_power_on"] = build(root, load(root)).safe
    return out



def _lost(root, copy_too=False):
    """The flash loses state.a and state.b (a LittleFS directory rolled back by a flipped
    bit), and with copy_too the copy in NVS is torn (its head gone)."""
    import os

    import esp32
    machine.reboot()
    for name in ("state.a", "state.b"):
        try:
            os.remove(root + "/" + name)
        except OSError:
            pass
    if copy_too:
        nvs = esp32.NVS("cran")
        nvs.erase_key("head")
        nvs.commit()


def _kinds(app):
    """What the last boot journaled of the state: restored, inconnu, fresh, or nothing."""
    entries = app.badge.journal.entries()
    last = [i for i, e in enumerate(entries) if "boot" in e][-1]
    return [k for e in entries[last:] for k in ("restored", "inconnu", "fresh") if k in e]


@check
def a_lost_state_comes_back_from_nvs_or_is_unknown():
    import os
    out = {}
    root, app = badge("atom-lite", {"settings": {"idle_look": "steady"}})
    run_for(app, 1000)
    out["fresh"] = _kinds(app)
    for line in ("coup blesse", "effet peur"):
        app.line(line, time.ticks_ms())
    saved = json.loads(app.line("status", time.ticks_ms())[0])
    # Both records gone: the copy in NVS brings the state back, and says so.
    _lost(root)
    app = build(root, load(root))
    now = json.loads(app.line("status", time.ticks_ms())[0])
    out["restored"] = [now["etat"], now["effets"] == saved["effets"], _kinds(app)]
    # The flash rolled back to older, healthier records: the newer copy wins.
    app.line("renommee +1", time.ticks_ms())
    app.line("renommee +1", time.ticks_ms())                # two records: blesse
    with open(root + "/state.a", "rb") as f:
        a = f.read()
    with open(root + "/state.b", "rb") as f:
        b = f.read()
    app.line("coup agonisant", time.ticks_ms())
    machine.reboot()
    for name, data in (("state.a", a), ("state.b", b)):      # the older two, back
        with open(root + "/" + name, "wb") as f:
            f.write(data)
    app = build(root, load(root))
    out["rolled_back"] = [etat(app), _kinds(app)]
    # Records and copy both lost: etat inconnu, on the console, the LEDs, the buttons.
    _lost(root, copy_too=True)
    app = build(root, load(root))
    run_for(app, 1000)
    out["unknown"] = [etat(app), _kinds(app)]
    status = json.loads(app.line("status", time.ticks_ms())[0])
    out["status"] = [status["armure"], status["reste_ms"], status["renommee"]]
    out["refused"] = [app.line("coup", time.ticks_ms()), app.line("soin complet",
                                                                 time.ticks_ms())]
    run_for(app, 3000, press(39))                           # a hit on the button
    out["after_press"] = etat(app)
    leds = app.leds
    frames = set()
    for _ in range(16):                                     # 4 s: its whole rhythm
        run_for(app, 250)
        frames.add(json.dumps([list(c) for c in leds.np.last]))
        want = [list(cap(c, leds.max_brightness)) for c in led_frame(
            app.badge.state, time.ticks_ms(), leds.count, app.layout, "inconnu")]
        if [list(c) for c in leds.np.last] != want:
            frames.add("wrong")
    out["frames"] = sorted(frames)
    out["saved_nothing"] = sorted(n for n in os.listdir(root) if n.startswith("state"))
    machine.reboot()                                        # still unknown after a reboot
    app = build(root, load(root))
    out["reboot"] = etat(app)
    out["reset"] = app.line("reset", time.ticks_ms())[0][:19]
    app.line("coup", time.ticks_ms())
    machine.reboot()
    app = build(root, load(root))
    out["after_reset"] = [etat(app), _kinds(app)]
    # The StickC has no LED: its screen says so, peeked or not.
    root, app = badge("m5stickc-plus", i2c=True)
    run_for(app, 1000)
    app.line("coup", time.ticks_ms())
    _lost(root, copy_too=True)
    app = build(root, load(root))
    run_for(app, 1000)
    out["screen"] = app.screen.shown
    return out



@check
def nvs_commit_cut_short():
    # The power goes in the NVS commit of a save, after k of its 3 changes (body, head,
    # seq): LittleFS, written first, has the new record; lost too, the copy brings back
    # the newest whole record, or the badge is unknown. Never anything older than the
    # last acknowledged action (the cut one was never answered).
    import esp32
    out = []
    for k in range(4):
        root, app = badge("atom-lite")
        app.line("coup", time.ticks_ms())
        esp32.nvs_cut_after(k)
        try:
            app.line("coup blesse", time.ticks_ms())
            cut = None
        except machine.VirtualReset:
            cut = k
        machine.reboot()
        kept = etat(build(root, load(root)))
        _lost(root)
        out.append([cut, kept, etat(build(root, load(root)))])
    return out


def _sleeping_press(board, pin, config=None):
    """A badge left idle long enough to light-sleep (by default); a finger on pin for
    120 ms in the middle of a sleep. -> what it saw."""
    root, app = badge(board, config)
    run_for(app, 100000)         # awake a minute after boot, then sleeping
    sleeps = machine.wakeups
    menu_before = app.menu.where() if app.menu else None
    machine.drive_at(12345, pin, 0)
    machine.drive_at(12465, pin, None)
    pressed_at = vclock.elapsed_ms() + 12345
    run_for(app, 13000)
    out = {"slept_before": sleeps, "etat": etat(app), "can_sleep": app.can_sleep,
           "menu_moved": (app.menu.where() if app.menu else None) != menu_before,
           "events": [e.get("a") for e in app.badge.journal.entries() if "a" in e],
           "light_sleep_log": [e["light_sleep"] for e in app.badge.journal.entries()
                               if "light_sleep" in e]}
    hits = [e["up"] for e in app.badge.journal.entries() if "a" in e]
    # uptime of the hit vs the press, on the same clock (the badge booted at elapsed 0)
    out["hit_after_ms"] = hits[0] - pressed_at if hits else None
    return out


@check
def light_sleep_and_buttons():
    out = {}
    for board, pin in (("atom-lite", 39), ("atom-matrix", 39), ("m5stickc-plus", 39),
                       ("m5stickc-plus", 37), ("esp32-devkitc", 32), ("esp32-devkitc", 33),
                       ("esp32c3-supermini", 6)):
        out["%s %d" % (board, pin)] = _sleeping_press(board, pin)
    # A wake source that fires with nothing pressed: a floating pin's glitches, gone
    # before the chip is awake to read the pin, or 1 ms long (awake, it ignores those).
    _, app = badge("atom-lite", {"light_sleep": True})
    run_for(app, 70000)
    for i in range(5):
        machine.drive_at(5000 * i + 3000, 39, 0)
        machine.drive_at(5000 * i + 3000 + i % 2, 39, None)
    run_for(app, 20000)
    out["glitches"] = {"can_sleep": app.can_sleep, "etat": etat(app),
                       "log": [e["light_sleep"] for e in app.badge.journal.entries()
                               if "light_sleep" in e]}
    return out


SLEEPERS = ("atom-lite", "atom-matrix", "esp32-devkitc", "m5stickc-plus")


@check
def light_sleep_by_default():
    # On where the buttons can wake the chip; the config can still turn it off.
    out = {}
    for board in SLEEPERS + ("esp32c3-supermini",):
        _, app = badge(board)
        out[board] = [app.can_sleep, [e["light_sleep"] for e in app.badge.journal.entries()
                                      if "light_sleep" in e]]
    _, app = badge("atom-lite", {"light_sleep": False})
    out["atom-lite off"] = app.can_sleep
    return out


@check
def deadlines_wake_a_sleeping_badge():
    # S3/S4 while asleep: each sleep ends by the next deadline (the last-minute warning,
    # coma, mort), which the show step then acts on: how late each was seen.
    out = {}
    for board in SLEEPERS:
        _, app = badge(board)
        seen = []
        heard = app.badge.on_cues

        def hook(kind, now, cues, heard=heard, seen=seen, app=app):
            if kind == "timer":
                seen.append([app.badge.state.etat, time.ticks_ms()])
            heard(kind, now, cues)
        app.badge.on_cues = hook
        app.line("coup agonisant", time.ticks_ms())
        start = time.ticks_ms()
        sleeps = machine.wakeups
        run_for(app, 660000)
        out[board] = {"late_ms": [[e, time.ticks_diff(t, start) - due]
                                  for (e, t), due in zip(seen, (300000, 600000))],
                      "light_sleeps": machine.wakeups - sleeps}
    return out


@check
def console_and_light_sleep():
    # The console on the virtual UART (machine.console): awake a minute after boot and
    # after any byte, whole line or not; bytes sent while the chip sleeps are lost.
    import builtins
    answers = []
    # The console's answers (cran.console prints them), read from print itself: the
    # console's module comes and goes with a quiet minute.
    printed = builtins.print
    builtins.print = lambda *args: answers.append(" ".join([str(a) for a in args]))
    from cran import compat
    compat.STDIN = machine.console   # the console on the virtual UART
    echoed = Echo()
    compat.STDOUT = echoed
    out = {}
    try:
        _, app = badge("atom-lite")

        def run(ms):
            run_for(app, ms, console=True)

        def status_etats():
            return [json.loads(a)["etat"] for a in answers if a.startswith("{")]

        machine.console_at(30000, b"status\r\n")        # in the minute after boot
        machine.console_at(80000, b"co")                  # half a line: awake on
        machine.console_at(135000, b"up\r\nstatus\r\n")  # 55 s later, the rest
        run(190000)
        out["awake_window"] = {"etats": status_etats(), "light_sleeps": machine.wakeups,
                               "lost": machine.console.lost, "echoed": echoed.text()}
        run(30000)                                        # past 135 + 60 s: asleep
        asleep = machine.wakeups
        machine.console_at(15000, b"status\r\n")        # during a sleep
        run(45000)
        out["asleep"] = {"light_sleeps": asleep, "lost": machine.console.lost,
                         "answers": len(answers)}
        # A line that reaches the UART while the chip is awake but busy with a show
        # step: in its buffer when the step ends, read before any sleep.
        show = app.show
        came = []

        def busy_step(now):
            if not came:
                came.append(time.ticks_ms())
                machine._receive(b"status\r\n")
            return show(now)
        app.show = busy_step
        sleeps = machine.wakeups
        answered = len(answers)
        run(1000)
        out["mid_step"] = {"answers": answers[answered:], "light_sleeps":
                           machine.wakeups - sleeps, "awake_for_ms":
                           time.ticks_diff(app._last_input, came[0])}
    finally:
        compat.STDIN = sys.stdin.buffer
        compat.STDOUT = sys.stdout.buffer
        builtins.print = printed
    return out


class Echo:
    """The console's sending end, as far as the echo goes: what it wrote."""

    def __init__(self):
        self.out = bytearray()

    def write(self, data):
        self.out.extend(data)

    def text(self):
        return self.out.decode()


@check
def meter_counts():
    # The power counters, against what was done on the virtual clock.
    import meter
    import neopixel
    vclock.start(0)
    machine.reset_all()
    meter.reset()
    out = {}
    np = neopixel.NeoPixel(machine.Pin(5, machine.Pin.OUT), 2)
    np[0] = (10, 20, 30)
    np.write()
    time.sleep_ms(1000)
    np[0] = (0, 0, 0)
    np[1] = (255, 0, 0)
    np.write()
    time.sleep_ms(500)
    machine.reboot()           # the LEDs hold their frame through a reset
    time.sleep_ms(100)
    out["leds"] = meter.read()["leds"]
    pwm = machine.PWM(machine.Pin(25), freq=2000, duty_u16=0)
    time.sleep_ms(100)
    pwm.duty_u16(32768)
    time.sleep_ms(250)
    pwm.duty_u16(0)
    time.sleep_ms(100)
    pwm.duty_u16(1000)
    machine.lightsleep(200)    # the classic ESP32's PWM stops in light sleep
    time.sleep_ms(50)
    counts = meter.read()
    out["pwm"] = counts["pwm"]
    out["chip"] = [counts["elapsed_ms"], counts["awake_ms"], counts["lightsleep_ms"],
                   counts["lightsleeps"], counts["radio_on_ms"]]
    meter.reset()
    out["after_reset"] = meter.read()["leds"]
    # The firmware's own frames, capped by the board file: a steady green bar for 10 s.
    for board in ("atom-lite", "atom-matrix", "esp32-devkitc"):
        _, app = badge(board, STEADY)
        run_for(app, 1000)
        meter.reset()
        run_for(app, 10000)    # in the minute after boot: awake, no sleep overshoots
        counts = meter.read()
        with open("%s/%s.json" % (BOARDS, board)) as f:
            pin = json.loads(f.read())["leds"]["pin"]
        out[board] = [counts["leds"][str(pin)], counts["elapsed_ms"]]
    return out


def _at_step(app, step):
    """Run the app to the middle of `step` (of 32, 128 ms each) of the 4 s rhythm."""
    wait = (step * 128 + 64 - time.ticks_ms() % 4096) % 4096
    run_for(app, wait or 4096)


def _fault_seen(app):
    """What a failed save shows: the LEDs at the cue's steps (and one before them): as
    cran.cues paints the cue, unlike the look alone, the first LED's colour; or the
    screen's lines."""
    if app.leds is None:
        return app.screen.shown
    out = []
    for step in (27, 28, 29, 30, 31):
        _at_step(app, step)
        got, want = shown(app, fault=True)
        out.append([got == want, got != shown(app)[1], got[0]])
    return out


@check
def a_failed_save_is_never_silent():
    # The flash refuses every write: a hit and a console action are not saved (nor
    # journaled). The badge goes on showing the truth, with the error cue on every
    # board, and `status` says it; once a save works again, the cue goes.
    out = {}
    for board, pin in (("atom-lite", 39), ("atom-matrix", 39), ("esp32-devkitc", 32),
                       ("esp32c3-supermini", 6), ("m5stickc-plus", 37)):
        _, app = badge(board, {"light_sleep": False}, i2c=board == "m5stickc-plus")
        run_for(app, 1000)
        seen = out[board] = {"before": _fault_seen(app)}
        _flash_refuses[0] = True
        try:
            run_for(app, 1000, press(pin))
            seen["etat"] = etat(app)
            seen["save_error"] = json.loads(app.line("status", time.ticks_ms())[0])[
                "save_error"]
            seen["failed"] = _fault_seen(app)
            seen["answer"] = app.line("coup", time.ticks_ms())
        finally:
            _flash_refuses[0] = False
        app.line("soin", time.ticks_ms())   # a save that works
        run_for(app, 100)
        seen["mended"] = [json.loads(app.line("status", time.ticks_ms())[0])["save_error"],
                          _fault_seen(app)]
    # The state alone refused (its record), the journal still written: it says why.
    _, app = badge("atom-lite")
    run_for(app, 1000)

    def refuse(payload):
        raise OSError(5, "EIO")
    app.badge.store.save = refuse
    app.line("coup", time.ticks_ms())
    out["journal"] = [e["error"] for e in app.badge.journal.entries() if "error" in e]
    return out


@check
def clock_sets_the_rtc():
    # After a power cut the RTC says 2000: the badge knows no date until `clock`.
    root, app = badge("atom-lite", epoch_s=946684800)
    out = {"before": app.badge.wall_clock()}
    run_for(app, 1000)
    out["answer"] = app.line("clock 1767225600", time.ticks_ms())
    run_for(app, 5000)
    machine.reboot()   # a watchdog or soft reset: the RTC runs on
    again = build(root, load(root))
    out["after_reset"] = again.badge.wall_clock()
    out["rtc"] = list(machine.RTC().datetime())
    return out



@check
def a_freeze_and_a_watchdog_reset_gain_no_time():
    # An agonisant badge frozen (a driver that never returns) until its watchdog resets
    # it. Back, its countdown has run through the freeze and the restart, whatever
    # time_off_counts says (its default: no, for a badge switched off): by its RTC, which
    # runs on through the reset, or, its clock never set, at worst. Issue 34: it came
    # back 37 s healthier, the frozen time never counted.
    out = {}
    for rtc in ("set", "never set"):
        root, app = badge("atom-lite", epoch_s=None if rtc == "set" else 946684800)
        run_for(app, 1000)
        app.line("coup agonisant", time.ticks_ms())
        run_for(app, 25000)
        before = json.loads(app.line("status", time.ticks_ms())[0])["reste_ms"]
        t0 = vclock.elapsed_ms()
        cause, _, app = _reboot_after_hang(root, app)
        after = json.loads(app.line("status", time.ticks_ms())[0])["reste_ms"]
        out[rtc] = {"cause": cause, "before": before, "passed": vclock.elapsed_ms() - t0,
                    "after": after, "clock": app.badge.wall_clock() is not None}
    return out

run_checks()
