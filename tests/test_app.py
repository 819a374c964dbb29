# The whole badge (cran.app) on virtual hardware inside the MicroPython unix port: every
# scenario on every board gives the bare engine's trace; buttons, the watchdog, safe
# mode, sleep and a badge that can't start (tests/mp/app_driver.py, app_main.py).
import json
import os
import re
import subprocess

import pytest

from conftest import (
    SCENARIO_DIR,
    WRAP_START,
    app_driver_checks,
    bare_trace,
    run_cran,
    scenario_texts,
)
from cran.console import UNKNOWN
from host_tools import FIRMWARE_DIR
from host_tools.boards import BOARDS_DIR, board_ids
from host_tools.debrief import journal
from host_tools.virtual.micropython import sys_path
from host_tools.virtual.runtimes import (
    BADGE_HEAP_KB,
    NO_RADIO_HEAP_KB,
    RADIO_GAME,
    ROMFS_HEAP_KB,
    badge_job,
    find_micropython32,
    run_badge_jobs,
    run_on_badge,
)

MP = os.path.join(os.path.dirname(os.path.abspath(__file__)), "mp")
BOARDS = board_ids()


_texts = scenario_texts
_bare = bare_trace


def _same_as_bare(board, runtime, start_tick=0, reboot_every=0, only=None, mpy=False):
    texts = [t for t in _texts() if only is None or t[0] in only]
    results = run_on_badge([(board, text) for _, text in texts], runtime, start_tick,
                           reboot_every, mpy=mpy)
    assert len(results) == len(texts)
    for (name, text), events in zip(texts, results):
        assert not isinstance(events, str), "%s on %s: %s" % (name, board, events)
        assert events == _bare(text, start_tick), "%s on %s differs" % (name, board)


def test_boards_are_all_there():
    assert BOARDS == ["atom-lite", "atom-matrix", "esp32-devkitc", "esp32c3-supermini",
                      "m5stickc-plus"]


@pytest.mark.parametrize("board", BOARDS)
def test_every_scenario_through_the_whole_badge_equals_the_bare_engine(micropython, board):
    _same_as_bare(board, "micropython")


def test_reboots_from_flash_across_the_wrap_change_nothing(micropython):
    # Restarted after every 3 steps, its state read back from flash each time.
    _same_as_bare("esp32-devkitc", "micropython", WRAP_START, reboot_every=3)


def test_the_badge_app_runs_on_cpython_too():
    # The same show() steps on a plain loop (CPython's asyncio reads the real clock).
    # Not the StickC: CPython's pure-Python framebuf makes its 240-row screen slow.
    _same_as_bare("atom-matrix", "cpython", reboot_every=3)


def test_cran_scenario_badge(micropython):
    path = os.path.join(SCENARIO_DIR, "k5-agonisant-coma-mort.txt")
    out = run_cran("scenario", "--badge", "atom-lite", "--reboot-every", "3", path)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines()[-1].endswith("0 failed (micropython, badge atom-lite)")
    out = run_cran("scenario", "--badge", "nope", path)
    assert out.returncode == 2 and "unknown board 'nope'" in out.stderr


# ---- the badge's heap: --mpy, --heap ---------------------------------------------------

FIGHT = os.path.join(SCENARIO_DIR, "exemple-godefroy.txt")


@pytest.fixture(scope="session")
def micropython32():
    exe = find_micropython32()
    if exe is None:
        pytest.skip("no 32-bit MicroPython (../shared/tools/micropython32, or set "
                    "CRAN_MICROPYTHON32): the heap budget is only measured with the "
                    "ESP32's object sizes")
    return exe


def _fight_in_32_bit(micropython32, monkeypatch, board, config=None, **options):
    """The example fight on board's badge in 32-bit MicroPython (the ESP32's memory
    model), options as run_badge_jobs's (config: the badge's, e.g. a game's radio): it
    lives, and gives the bare engine's trace."""
    monkeypatch.setenv("CRAN_MICROPYTHON", micropython32)
    with open(FIGHT, encoding="utf-8") as f:
        text = f.read()
    job = badge_job(board, text)
    if config is not None:
        job["config"] = config
    [events] = run_badge_jobs([job], **options)
    assert not isinstance(events, str), events
    assert events == _bare(text)


@pytest.mark.parametrize("board", BOARDS)
def test_the_example_fight_lives_in_the_heap_budget_in_32_bit(micropython32, board,
                                                              monkeypatch):
    # The radio budget: the fight in a game with the radio, its badge listening in its
    # windows all along and its console unlocked with the game key for the actions, the
    # firmware as .mpy as cran flash makes it (files, as on a stock MicroPython), and the
    # badge's own heap of BADGE_HEAP_KB, the runner's share measured apart.
    heard = []
    _fight_in_32_bit(micropython32, monkeypatch, board, {"radio": RADIO_GAME}, mpy=True,
                     heap_kb=BADGE_HEAP_KB, on_heap=heard.append)
    [runner] = heard
    # The runner's own share: its virtual hardware, the radio's virtual chip with every
    # ESP-NOW and network call MicroPython's own tests make (~100 KB in 32-bit).
    assert 10000 < runner.base < 160000 and 0.95 < runner.ratio < 1


@pytest.mark.parametrize("board", BOARDS)
def test_the_example_fight_lives_without_the_radio_in_its_budget(micropython32, board,
                                                                monkeypatch):
    _fight_in_32_bit(micropython32, monkeypatch, board, mpy=True, heap_kb=NO_RADIO_HEAP_KB)


@pytest.mark.parametrize("board", BOARDS)
def test_the_example_fight_lives_in_its_heap_with_the_firmware_in_romfs(micropython32,
                                                                       board, monkeypatch):
    # The .mpy files in a ROMFS image, run in place as a badge with a ROMFS partition
    # runs them: their bytecode and strings stay in flash, and the badge lives in the
    # heap ROMFS_HEAP_KB (62; the day lives in 64, the issue "Fit the chip"'s goal).
    _fight_in_32_bit(micropython32, monkeypatch, board, romfs=True, heap_kb=ROMFS_HEAP_KB)


def test_the_firmware_as_mpy_gives_the_same_traces(micropython):
    _same_as_bare("atom-matrix", "micropython", mpy=True,
                  only=("exemple-ali.txt", "exemple-godefroy.txt", "exemple-nico.txt"))


def test_neither_the_badge_nor_its_runner_grows_over_hours_of_play(micropython):
    # A fight an hour, then a look at the live heap ("mem": after a collection, net of
    # the runner's share at its start): events stream out, nothing piles up.
    hour = 3600000
    job = badge_job("atom-matrix", "")
    for h in range(4):
        job["steps"] += [[0, h * hour, "act", "coup"], [0, h * hour + 1000, "act",
                                                        "effet peur"],
                         [0, h * hour + 60000, "act", "soin"], [0, h * hour + 400000, "mem"]]
    # A heap small enough that its garbage (a few KB a fight) makes the GC run.
    [events] = run_badge_jobs([job], start_tick=WRAP_START, mpy=True, heap_kb=160)
    mems = [e for e in events if e[0] == "mem"]
    assert len(mems) == 4
    live = [m[2] for m in mems]
    assert 20000 < live[0] and max(live) - min(live) <= 256, live
    gcs = [m[3] for m in mems]
    assert gcs == sorted(gcs) and gcs[-1] > gcs[0], gcs   # they run, and are counted


def test_cran_scenario_heap_and_mpy_say_what_is_wrong():
    out = run_cran("scenario", "--badge", "atom-lite", "--heap", "lots", FIGHT)
    assert out.returncode == 2
    assert ("argument --heap: expected the badge's heap in KB, from 1 to 4096 (e.g. 64), "
            "got 'lots'") in out.stderr
    assert run_cran("scenario", "--badge", "atom-lite", "--heap", "0", FIGHT).returncode == 2
    out = run_cran("scenario", "--heap", "64", FIGHT)
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr == "cran: --heap needs --badge BOARD: it is about the badge's firmware\n"
    out = run_cran("scenario", "--mpy", "--badge", "atom-lite", "--runtime", "cpython", FIGHT)
    assert out.returncode == 2
    assert out.stderr.startswith("cran: --mpy needs --runtime micropython")


def test_a_badge_out_of_memory_says_so_in_one_line(micropython):
    # A heap too small for the runner's own start (its virtual hardware, the badge's
    # flash, what the chip holds): where it died, in one line, not the runner's
    # traceback. (Just under the start's own need, 36-44 KB, where its MemoryError lands
    # moves with a few bytes: it ends so, or as the badge that did not start, below.)
    for kb in (24, 30):
        out = run_cran("scenario", "--badge", "atom-lite", "--mpy", "--heap", str(kb), FIGHT)
        assert out.returncode == 3 and out.stdout == ""
        heap, died = out.stderr.splitlines()
        assert re.fullmatch(r"heap: %d KB for the badge \(its names' \d+\.\d KB in it\) \+ "
                            r"\d+\.\d KB measured for the virtual hardware and runner "
                            r"\(-X heapsize=\d+\)" % kb, heap), heap
        assert re.fullmatch(r"cran: badge atom-lite ran out of memory in its %d KB heap: "
                            r"MemoryError at \S+:\d+, in \S+ \(memory allocation failed, "
                            r"allocating \d+ bytes\)" % kb, died), died
    # A heap smaller than the badge's names (made first, kept for good) is said so.
    out = run_cran("scenario", "--badge", "atom-lite", "--mpy", "--heap", "8", FIGHT)
    assert out.returncode == 3
    assert re.fullmatch(r"cran: badge atom-lite ran out of memory in its 8 KB heap: its "
                        r"names \(qstrs\) alone weigh \d+\.\d KB",
                        out.stderr.splitlines()[-1]), out.stderr
    # A heap too small for the start and for its can't-start path: main.py ends at the
    # REPL, as it is made to, and the badge did not start; said so, not as the runner's.
    out = run_cran("scenario", "--badge", "atom-lite", "--mpy", "--heap", "50", FIGHT)
    assert out.returncode == 3
    assert re.fullmatch(r"cran: badge atom-lite did not start in its 50 KB heap: main.py "
                        r"ended at the REPL, its app not running \(a start that runs out of "
                        r"memory, and its can't-start path with it, ends so\)(; it printed: "
                        r"cran: cannot start: MemoryError: .*)?",
                        out.stderr.splitlines()[-1]), out.stderr


# ---- the app's own behaviour --------------------------------------------------------

@pytest.fixture(scope="module")
def app_checks(micropython, tmp_path_factory):
    return app_driver_checks(micropython, "app_driver.py",
                             str(tmp_path_factory.mktemp("flash")))


def test_a_hit_is_shown_before_it_is_saved(app_checks):
    r = app_checks("hit_shows_before_it_is_saved")
    assert r["etat_before_cut"] == "blesse"
    (on_led, wanted), = r["at_save"]
    assert on_led == wanted != r["frame_before"]       # the LED changed first
    assert r["etat_after_reboot"] == "pleine-forme"    # the cut lost the hit, no more


def test_a_hit_is_saved_before_the_screen_draws_it(app_checks):
    r = app_checks("hit_is_saved_before_the_screen_draws")
    (led_shows_it, screen, texts_loaded, panel_loaded), = r["at_save"]
    assert led_shows_it                                  # the LEDs first
    assert screen == r["before"] != r["after"]           # the screen after the save
    assert not texts_loaded and not panel_loaded


def test_the_journal_says_the_engines_state_after_each_action_a1_a4_k3_k7_k8_k9_k13_k15_k16_s6_p3(
        app_checks):
    r = app_checks("journal_says_the_state")
    entries, problems = journal.parse_lines([json.dumps(e) for e in r["entries"]])
    assert problems == [] and len(entries) == len(r["views"])
    journal.read(entries)
    for e, v in zip(entries, r["views"]):
        seen = e.seen
        assert (seen.etat, str(seen.answers), "oui" if seen.damaged else "non",
                ",".join(sorted(seen.effects)) or "-", ",".join(seen.broken) or "-",
                "oui" if seen.combat else "non", seen.jeu) == (
            v["etat"], v["armure"], v["armure-abimee"], v["effets"], v["brises"],
            v["combat"], v["jeu"]), e.raw["a"]
    # The theft is in the journal before anyone notices it (K13; it ended the peur, K1),
    # and the dissipe cancels the Coup Brise just received, its armor back (K9).
    assert (entries[1].seen.effects, entries[2].seen.effects) == (["peur"], ["vol"])
    assert [(e.seen.broken, e.seen.answers) for e in entries[5:7]] == [
        (["armure", "bras"], 0), (["bras"], 1)]


def test_the_hit_button_makes_a_fresh_badge_blesse(app_checks):
    r = app_checks("hit_button")
    assert (r["before"], r["after"], r["look"]) == ("pleine-forme", "blesse", "blesse")
    assert r["frame_matches"] and r["distinct_frames"] == 2   # the slow blink
    assert r["journal"] == ["coup normal"]


def test_a_double_press_undoes_the_hit(app_checks):
    r = app_checks("undo_double_press")
    assert (r["hit"], r["after_undo"]) == ("blesse", "pleine-forme")
    assert len(r["journal"]) == 1


def test_coma_five_minutes_after_agonisant(app_checks):
    r = app_checks("coma_five_minutes_after_agonisant")
    assert (r["at_4_59"], r["at_5_01"], r["look"]) == ("agonisant", "coma", "inerte")
    assert r["frame_matches"]


def test_a_power_cut_at_any_instant_of_a_countdown_finds_no_more_time_left(app_checks):
    # S3, S4: whatever wakes the show loop (here, on a board without LEDs, little does),
    # the flash is kept a checkpoint ahead of the countdown; a frozen one is not rewritten.
    r = app_checks("saves_keep_up_with_a_countdown")
    assert r["healthier"] == [] and r["saves"] >= 12   # 148 s of countdown: every ~10 s
    assert r["saves_while_stopped"] == 0


def test_private_news_shows_on_the_peek(app_checks):
    # S8: healed from agonisant, the wearer is reminded; K13: the theft noticed.
    r = app_checks("news_on_the_peek")
    assert r["healed"] == ["blesse", ["Blesse", "Oubli agonie"]]
    assert r["heal_undone"][0] == "agonisant" and "Oubli agonie" not in r["heal_undone"][1]
    assert r["at_4_59"] == ["Blesse", "Oubli agonie"]
    assert r["at_5_01"] == ["Blesse"]
    assert r["theft"] == ["Blesse", "Vol remarque"]



def test_a_lost_state_comes_back_from_nvs_else_the_badge_is_unknown(app_checks):
    r = app_checks("a_lost_state_comes_back_from_nvs_or_is_unknown")
    assert r["fresh"] == ["fresh"]                      # a new badge: no NVS, no state
    # state.a and state.b gone: the copy in NVS, the same state, journaled.
    assert r["restored"] == ["blesse", True, ["restored"]]
    # The directory rolled back to older, healthier records: the newer copy wins.
    assert r["rolled_back"] == ["agonisant", ["restored"]]
    # Records and copy lost: etat inconnu, said by status, with nothing else known.
    assert r["unknown"] == ["inconnu", ["inconnu"]]
    assert r["status"] == [None, None, None]
    assert r["refused"] == [[UNKNOWN], [UNKNOWN]]
    assert r["after_press"] == "inconnu"                # the button plays nothing either
    # Its own look on the LED (a 1 s glow, four quick flashes, magenta, capped), drawn
    # every step; nothing saved, so a reboot finds it unknown still.
    assert r["frames"] == ["[[0, 0, 0]]", "[[60, 0, 60]]"]
    assert r["saved_nothing"] == [] and r["reboot"] == "inconnu"
    # An organiser's reset sets it; what is played then is saved and comes back.
    assert r["reset"] == "ok reset: etat=plei"
    assert r["after_reset"] == ["blesse", []]
    assert r["screen"] == ["ETAT INCONNU", "Voir un orga"]



def test_a_power_cut_mid_nvs_commit_never_brings_back_an_older_state(app_checks):
    # k of the save's 3 NVS changes written: LittleFS has the new record either way;
    # without it, the copy's newest whole record (the unanswered hit's or the one
    # before it), or etat inconnu when the copy is torn (body new, head old).
    assert app_checks("nvs_commit_cut_short") == [
        [0, "agonisant", "blesse"], [1, "agonisant", "inconnu"],
        [2, "agonisant", "agonisant"], [None, "agonisant", "agonisant"]]


def test_the_show_loop_sleeps(app_checks):
    r = app_checks("wakeups_per_idle_minute")
    for board in ("atom-lite", "atom-matrix", "esp32-devkitc", "m5stickc-plus"):
        assert r[board + " steady"] <= 2, r   # steady: only the watchdog's feed
    # The idle blink (the default): on and off every 8.192 s, 14.6 times a minute.
    for board in ("atom-lite", "atom-matrix", "esp32-devkitc"):
        assert 14 <= r[board] <= 15, r
    assert r["m5stickc-plus"] <= 2, r        # no LEDs: nothing blinks
    # Blinking states wake once per change of their rhythm (docs/POWER.md):
    assert r["atom-lite coup"] in (59, 60)   # blesse: 1 s on, 1 s off
    assert r["atom-lite coup coma"] <= 31  # inerte: one blip every 4 s
    assert r["atom-lite hors-jeu"] <= 31   # long on, short off, every 4 s
    assert r["atom-lite coup agonisant"] <= 120   # the double flash
    # Light sleep by default: after the minute awake since boot, the 3 minutes' waits are
    # light sleeps, at most 30 s each (the watchdog's feed).
    wakeups, lightsleeps, slept_ms = r["light_sleep"]
    assert wakeups <= 2 and lightsleeps >= 4 and slept_ms >= 120000
    assert r["awake"] == [2, 0]   # "light_sleep": false in the config: never


def test_light_sleep_is_on_by_default_where_buttons_can_wake_the_chip(app_checks):
    r = app_checks("light_sleep_by_default")
    for board in ("atom-lite", "atom-matrix", "esp32-devkitc", "m5stickc-plus"):
        assert r[board] == [True, []], (board, r[board])
    assert r["esp32c3-supermini"] == [False, ["off: buttons can't wake the chip "
                                              "(invalid pin)"]]
    assert r["atom-lite off"] is False   # "light_sleep": false in the config


def test_deadlines_wake_a_sleeping_badge_on_time(app_checks):
    # agonisant at 0:00: coma at 5:00 and mort at 10:00, seen by a show step at that very
    # virtual ms, however many light sleeps came between.
    r = app_checks("deadlines_wake_a_sleeping_badge")
    for board in ("atom-lite", "atom-matrix", "esp32-devkitc", "m5stickc-plus"):
        assert r[board]["late_ms"] == [[3, 0], [4, 0]], (board, r[board])
        assert r[board]["light_sleeps"] >= 20, (board, r[board])


def test_the_console_keeps_the_badge_awake_and_is_lost_to_a_sleeping_one(app_checks):
    r = app_checks("console_and_light_sleep")
    # A line 30 s after boot, then half a line at 80 s and its end 55 s later: each
    # byte kept the badge awake a minute, the split line was read whole. Each was echoed
    # as it came (a UART has no local echo), Enter as \r\n.
    assert r["awake_window"] == {"etats": ["pleine-forme", "blesse"], "light_sleeps": 0,
                                 "lost": 0, "echoed": "status\r\ncoup\r\nstatus\r\n"}
    # Asleep after that minute: a line sent then is lost, as on an ESP32 (no UART clock,
    # no UART wake-up in MicroPython's lightsleep), and nothing answers it.
    asleep = r["asleep"]
    assert asleep["light_sleeps"] >= 1 and asleep["lost"] == len(b"status\r\n")
    assert asleep["answers"] == 3
    # A line that reached the UART during a show step is read before any sleep, at once,
    # and opens another awake minute from then.
    mid = r["mid_step"]
    assert [json.loads(a)["etat"] for a in mid["answers"]] == ["blesse"]
    assert mid["light_sleeps"] == 0 and mid["awake_for_ms"] == 0


def test_the_virtual_hardware_counts_what_draws_power(app_checks):
    r = app_checks("meter_counts")
    # LED 0 at (10, 20, 30) for 1 s, then LED 1 at (255, 0, 0) for 0.5 s and 0.1 s more
    # through a reset (a WS2812 holds its frame): value x ms per channel.
    assert r["leds"]["5"] == [10 * 1000 + 255 * 600, 20 * 1000, 30 * 1000]
    # Buzzer on at half duty 250 ms, then at duty 1000 for 50 ms awake (its 200 ms of
    # light sleep silent).
    assert r["pwm"] == {"25": [300, 32768 * 250 + 1000 * 50]}
    # elapsed, awake, light sleep ms, light sleeps, radio
    assert r["chip"] == [2300, 2100, 200, 1, 0]
    assert r["after_reset"]["5"] == [0, 0, 0]
    # What the firmware shows is what is counted, after its board's cap: pleine-forme's
    # green bar, steady, 10 s: one LED at 60 (Atom Lite), 20 cells at 20 (Matrix), 4 at
    # 40 (DevKitC strip).
    assert r["atom-lite"] == [[0, 60 * 10000, 0], 10000]
    assert r["atom-matrix"] == [[0, 20 * 20 * 10000, 0], 10000]
    assert r["esp32-devkitc"] == [[0, 4 * 40 * 10000, 0], 10000]


def test_a_press_wakes_a_light_sleeping_badge(app_checks):
    r = app_checks("light_sleep_and_buttons")
    for key in ("atom-lite 39", "atom-matrix 39", "m5stickc-plus 39", "m5stickc-plus 37",
                "esp32-devkitc 32", "esp32-devkitc 33"):
        seen = r[key]
        assert seen["can_sleep"] and seen["slept_before"] >= 2, (key, seen)
        assert seen["light_sleep_log"] == [], (key, seen)
        assert seen["etat"] == "blesse" or seen["menu_moved"], (key, seen)
        # A short press is a hit: seen at once, decided after the double-click window
        # (350 ms), as when awake, whichever wake source (ext0, ext1) the pin is.
        assert seen["events"] == ["coup normal"], (key, seen)
        assert 0 <= seen["hit_after_ms"] <= 600, (key, seen)
    # The C3's buttons (GPIO6/7) can't wake it: light sleep stays off, and says why.
    c3 = r["esp32c3-supermini 6"]
    assert not c3["can_sleep"] and c3["slept_before"] == 0
    assert c3["light_sleep_log"] == ["off: buttons can't wake the chip (invalid pin)"]


def test_a_wake_source_that_fires_alone_turns_light_sleep_off(app_checks):
    r = app_checks("light_sleep_and_buttons")["glitches"]
    assert r["can_sleep"] is False and r["etat"] == "pleine-forme"
    assert r["log"] == ["off: woken 3 times with no press"]


def test_clock_sets_the_rtc_which_outlives_a_reset(app_checks):
    r = app_checks("clock_sets_the_rtc")
    assert r["before"] is None and r["answer"] == ["ok clock 1767225600"]
    assert r["after_reset"] == 1767225600 + 5   # the 5 s since, counted by the RTC
    assert r["rtc"][:3] == [2026, 1, 1]


@pytest.mark.parametrize("board", BOARDS)
def test_a_failed_save_is_never_silent(app_checks, board):
    # The flash refuses writes (issue 13: a save that failed was only journaled, and the
    # journal is on the same flash): status says so, and every board shows it, LEDs at
    # the last 4 steps of each 4 s (red, dark, white, dark) or a line on the screen,
    # until a save works again.
    r = app_checks("a_failed_save_is_never_silent")[board]
    assert r["etat"] == "blesse" and r["save_error"] == "OSError(28, 'ENOSPC')"
    assert r["answer"] == ["ok coup normal: etat=agonisant armure=0 dit=-"]
    mended_error, mended = r["mended"]
    assert mended_error is None
    if board == "m5stickc-plus":
        assert r["before"] == ["Debout"] and r["failed"] == ["Blesse", "NON SAUVEGARDE"]
        assert mended == ["Blesse"]
        return
    top = {"atom-lite": 60, "atom-matrix": 20}.get(board, 40)   # the board's brightness cap
    # Steps 27-31: the look alone, then the cue as cran.cues paints it, unlike the look.
    assert [s[:2] for s in r["failed"]] == [[True, False], [True, True], [True, False],
                                            [True, True], [True, False]]
    assert [r["failed"][1][2], r["failed"][3][2]] == [[top, 0, 0], [top, top, top]]
    for before in (r["before"], mended):   # no cue: never the cue's frames
        assert not before[1][0] and not before[3][0]


def test_the_journal_says_why_a_state_was_not_saved(app_checks):
    assert app_checks("a_failed_save_is_never_silent")["journal"] == [
        "state not saved: OSError(5, 'EIO')"]


def test_watchdog_resets_go_in_the_journal_and_three_make_safe_mode(app_checks):
    r = app_checks("watchdog_and_safe_mode")
    # The hung loop is reset by the watchdog within its 45 s.
    assert [cause for cause, _ in r["resets"]] == [3, 3, 3]
    assert all(took <= 45000 for _, took in r["resets"])
    assert r["boot_causes"] == ["power-on", "watchdog", "watchdog", "watchdog"]
    assert r["safe"] == [False, False, True] and len(r["safe_logged"]) == 1
    # Safe mode shows the last state (blesse from before the hangs), answers the console
    # and ignores the button.
    assert (r["etat"], r["look"]) == ("blesse", "blesse") and r["frame_matches"]
    assert r["refused"][0].startswith("error: safe mode") and r["journal_answers"]
    assert r["after_power_on"] is False


def test_main_lets_the_constructors_of_what_the_start_made_once_go(micropython, tmp_path):
    # cran.run.main: the app, the badge and its drivers are made once a boot, so their
    # constructors' bytecode goes after it, as the start's does (cran.start.phases
    # _let_constructors_go); the app runs and answers as ever.
    lines, hw = _start(micropython, tmp_path, '{"board": "atom-lite"}', _atom_lite(),
                       stdin="status\n",
                       wired=[os.path.join(BOARDS_DIR, "atom-lite.json")])
    assert hw["started"] and hw["watchdog"], (lines, hw)
    assert hw["constructors_kept"] == []
    assert json.loads(lines[0])["etat"] == "pleine-forme"


_CLASS_WITH_A_CONSTRUCTOR = """
class Made:
    def __init__(self, x):
%s
"""


def test_a_constructor_set_to_none_frees_its_bytecode_where_del_would_not(
        micropython, tmp_path):
    # Why the start sets a constructor to None rather than deleting it: MicroPython
    # leaves a deleted class attribute's value in the class's table (a module's or a
    # dict's it clears), so the function and its bytecode would stay.
    (tmp_path / "made.py").write_text(_CLASS_WITH_A_CONSTRUCTOR % "".join(
        "        self.f%d = x\n" % i for i in range(40)))
    script = tmp_path / "free.py"
    script.write_text("""
import gc, sys
sys.path.insert(0, %r)

def clear(n):   # the C stack's stale words written over
    if n:
        clear(n - 1)

def freed(let_go):
    import made
    thing = made.Made(1)
    clear(40)
    gc.collect(); before = gc.mem_alloc()
    let_go(type(thing))
    clear(40)
    gc.collect(); after = gc.mem_alloc()
    del sys.modules["made"]
    return before - after

def deleted(cls):
    del cls.__init__

def set_none(cls):
    cls.__init__ = None

print(freed(deleted), freed(set_none))
""" % str(tmp_path))
    out = subprocess.run([micropython, str(script)], capture_output=True, text=True,
                         timeout=30)
    assert out.returncode == 0, out.stderr
    by_del, by_none = map(int, out.stdout.split())
    assert by_del <= 0 and by_none >= 40 * 3   # 40 attribute stores at least 3 B each


# ---- a badge that can't start ------------------------------------------------------

def _start(micropython, tmp_path, config, board_text=None, stdin="status\ncoup\n",
           wired=()):
    (tmp_path / "boards").mkdir()
    (tmp_path / "config.json").write_text(config)
    if board_text is not None:
        (tmp_path / "boards" / "atom-lite.json").write_text(board_text)
    out = subprocess.run([micropython, os.path.join(MP, "app_main.py"), FIRMWARE_DIR,
                          *sys_path("micropython"), str(tmp_path), *wired], input=stdin,
                         capture_output=True, text=True, timeout=30)
    assert out.returncode == 0, out.stdout + out.stderr   # no crash, no reset loop
    # What was typed came back as typed (app_main.py puts the echo on stderr; its \r\n
    # read here as \n).
    assert out.stderr == stdin, out.stderr
    lines = out.stdout.splitlines()
    return lines[:-1], json.loads(lines[-1])


def _atom_lite(*without):
    with open(os.path.join(BOARDS_DIR, "atom-lite.json")) as f:
        data = json.load(f)
    for key in without:
        del data[key]
    return json.dumps(data)


def test_a_broken_board_file_gives_a_message_and_the_error_cue(micropython, tmp_path):
    # The badge reads what cran flash checked and wrote; a part missing is a damaged
    # file, named, and the error cue still finds the LEDs.
    lines, hw = _start(micropython, tmp_path, '{"board": "atom-lite"}',
                       _atom_lite("buttons"))
    assert lines[0].startswith("cran: cannot start: ") and "atom-lite.json: buttons" in lines[0]
    assert json.loads(lines[1])["error"] in lines[0]
    assert lines[2].startswith("error: the badge could not start")
    # The watchdog (main.py starts it first) is fed by that console: no reset loop.
    assert hw == {"started": False, "watchdog": True, "strips": {"27": [[60, 0, 0]]},
                  "constructors_kept": []}


@pytest.mark.parametrize("config, message", [
    ('{"board": "nope"}', "nope.json: cannot read"),
    ('{"board": "atom-lite", ', "config.json: not valid JSON"),
    ('{"board": "atom-lite", "character": {"armor": -1}}', "character.armor"),
    ('{"board": "../x"}', "board: expected a board id"),
    ('{"board": "atom-lite", "badge": "b 01"}', "badge: expected a badge id"),
])
def test_a_bad_config_gives_a_message(micropython, tmp_path, config, message):
    lines, hw = _start(micropython, tmp_path, config, _atom_lite())
    assert message in lines[0] and not hw["started"]


def test_a_config_that_is_not_utf8_or_out_of_range_says_why(micropython, tmp_path):
    # A Latin-1 byte (a text editor's) gave an empty reason; numbers past what a badge
    # holds were taken as they came.
    (tmp_path / "boards").mkdir()
    (tmp_path / "boards" / "atom-lite.json").write_text(_atom_lite())
    cases = [
        (b'{"board": "atom-lite", "character": {"name": "Jos\xe9"}}',
         "config.json: not UTF-8 text"),
        (b'{"board": "atom-lite", "character": {"name": "\xc0\xaf"}}',   # overlong "/"
         "config.json: not UTF-8 text"),
        (b'{"board": "atom-lite", "character": {"armor": 99999999999999999999999}}',
         "character.armor: expected a whole number from 0 to 99, got 99999999999999999999999"),
        (b'{"board": "atom-lite", "character": {"creature": 100}}', "character.creature"),
        (b'{"board": "atom-lite", "character": {"coma_ms": 536870912}}',
         "character.coma_ms: expected a duration above 0 and under 149 hours, got "
         "536870912 ms"),
        # Issue 34: a 100,000-character name was a MemoryError out of the start on a
        # badge: the file's size is checked before it is read, then a name's.
        (b'{"board": "atom-lite", "character": {"name": "' + b"N" * 100000 + b'"}}',
         "config.json: 100049 bytes, at most 8192 (cran config writes it)"),
        (b'{"board": "atom-lite", "character": {"name": "' + b"N" * 65 + b'"}}',
         "character.name: a name of 65 characters: at most 64"),
    ]
    for config, message in cases:
        (tmp_path / "config.json").write_bytes(config)
        out = subprocess.run([micropython, os.path.join(MP, "app_main.py"), FIRMWARE_DIR,
                              *sys_path("micropython"), str(tmp_path)], input="status\nsoin\n",
                             capture_output=True, text=True, timeout=30)
        assert out.returncode == 0, out.stdout + out.stderr
        lines = out.stdout.splitlines()
        assert lines[0].startswith("cran: cannot start: ") and message in lines[0], lines
        assert message in json.loads(lines[1])["error"]
        assert lines[2].startswith("error: the badge could not start: ") and message in lines[2]
        # The error cue still finds the LEDs: the one board file there is.
        assert json.loads(lines[-1])["strips"] == {"27": [[60, 0, 0]]}


_FAULT_KINDS = ("MemoryError", "AttributeError", "KeyError", "IndexError", "TypeError",
                "RuntimeError", "OSError", "ValueError", "ZeroDivisionError", "ImportError",
                "NotImplementedError", "AssertionError")
# Where the start can fail (tests/mp/start_faults.py): main.py's check of the firmware,
# cran.run's import, the names, the config, the state's restore, the app's making, its
# first step, the can't-start path itself, and the journal entry before a reset.
_START_PHASES = ("manifest", "import", "names", "config", "restore", "app", "run", "fail",
                 "log")


@pytest.mark.parametrize("phase", _START_PHASES)
def test_no_exception_at_any_phase_of_the_start_leaves_the_repl(micropython, tmp_path,
                                                                phase):
    # Issue 34: a MemoryError in the config's load (a 100,000-character name) got out of
    # cran.run.main, which caught ValueError and OSError alone; main.py ended, and
    # `open('/game.key')` at the REPL printed the key. Any kind, at any phase: the
    # locked console of a badge that can't start, a reset, or, where even its
    # can't-start path fails, the REPL cran flash mends it through, the key gone first.
    from host_tools.boards import board_file_text, read_board
    roots = []
    for kind in _FAULT_KINDS:
        root = tmp_path / phase / kind
        (root / "boards").mkdir(parents=True)
        for name in ("main.py", "firmware_check.py"):
            (root / name).write_text(open(os.path.join(FIRMWARE_DIR, name)).read())
        os.symlink(os.path.join(FIRMWARE_DIR, "cran"), root / "cran")
        (root / "config.json").write_text('{"board": "atom-lite"}')
        (root / "boards" / "atom-lite.json").write_text(board_file_text(read_board("atom-lite")))
        (root / "game.key").write_bytes(bytes(range(32)))
        if phase == "manifest":   # one there to check
            (root / "firmware.json").write_text('{"files": {"/cran/run.py": "0"}}')
        roots.append(str(root))
    typed = tmp_path / "typed"
    typed.write_text("status\ncoup\n")
    out = subprocess.run([micropython, os.path.join(MP, "start_faults.py"),
                          *sys_path("micropython"), os.path.join(BOARDS_DIR, "atom-lite.json"),
                          str(typed), phase, *roots], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-2000:]
    ends = [json.loads(line) for line in out.stdout.splitlines()]
    assert [e["kind"] for e in ends] == list(_FAULT_KINDS)
    for e in ends:
        if phase == "fail":   # nothing can say why: its REPL, for cran flash, keyless
            assert (e["end"], e["key"]) == ("repl", False), e
        elif phase in ("run", "log"):   # the app ran: it comes back as saved
            assert (e["end"], e["key"]) == ("reset", True), e
        elif phase in ("manifest", "import"):   # main.py's own: the locked console
            assert (e["end"], e["key"]) == ("console", True), e
            assert "injected" in e["journal"][-1], e
        else:
            # The start failed: said, journalled, and the locked console answers what is
            # typed (a player's `coup` refused), waiting for more as a chip's does.
            assert (e["end"], e["key"]) == ("console", True), e
            why = e["said"][0]
            assert why.startswith("cran: cannot start: ") and "injected" in why, e
            assert e["kind"] in why or e["kind"] in ("OSError", "ValueError"), e
            assert json.loads(e["said"][1])["error"] == why[len("cran: cannot start: "):]
            assert e["said"][2].startswith("error: the badge could not start: "), e
            assert e["journal"] == ["cannot start: " + why[len("cran: cannot start: "):]]
        if phase == "run":
            assert e["journal"] == ["the app ended: %s('injected',)" % e["kind"]], e


def test_main_py_locks_ctrl_c_and_starts_the_watchdog_before_any_firmware():
    # Its first statements, before any module of the firmware is imported: a damaged one
    # that hangs at its import is then reset by the watchdog, and a player's Ctrl-C in
    # the meantime is a byte. Its watchdog is the app's (one per chip, same timeout).
    import ast
    import re
    with open(os.path.join(FIRMWARE_DIR, "cran", "app.py")) as f:
        WDT_TIMEOUT_MS = int(re.search(r"\nWDT_TIMEOUT_MS = (\d+)", f.read()).group(1))
    with open(os.path.join(FIRMWARE_DIR, "main.py")) as f:
        body = ast.parse(f.read()).body
    first = [ast.unparse(node) for node in body[:4]]
    assert first == ["import micropython", "micropython.kbd_intr(-1)", "import machine",
                     "machine.WDT(timeout=%d)" % WDT_TIMEOUT_MS]
    later = ast.unparse(ast.Module(body=body[4:], type_ignores=[]))
    assert "__import__('cran.run', None, None, ('main',)).main()" in later


def test_the_console_on_stdin_answers_one_line_each_and_the_state_is_saved(micropython,
                                                                           tmp_path):
    # `micropython main.py` on a desktop: the real app, its console task on the real
    # stdin; the run ends with stdin, and a second run finds the state in its flash.
    (tmp_path / "boards").mkdir()
    board = os.path.join(BOARDS_DIR, "atom-lite.json")
    (tmp_path / "boards" / "atom-lite.json").write_text(open(board).read())
    (tmp_path / "config.json").write_text('{"board": "atom-lite"}')

    echoed = []

    def run(stdin, *options):
        out = subprocess.run([micropython, os.path.join(MP, "app_console.py"), FIRMWARE_DIR,
                              *sys_path("micropython"), str(tmp_path), board, *options],
                             input=stdin.encode() if isinstance(stdin, str) else stdin,
                             capture_output=True, timeout=30)
        assert out.returncode == 0, out.stdout + out.stderr
        echoed.append(out.stderr)   # app_console.py puts the console's echo there
        return out.stdout.decode().splitlines()

    lines = run("status\ncoup\ncoup tartempion\n")
    assert len(lines) == 3
    # Each line came back as it was typed (a UART has no local echo), its end as \r\n.
    assert echoed[-1] == b"status\r\ncoup\r\ncoup tartempion\r\n"
    assert json.loads(lines[0])["etat"] == "pleine-forme"
    assert lines[1] == "ok coup normal: etat=blesse armure=0 dit=-"
    assert lines[2] == "error: unknown keyword 'tartempion'"
    [again] = run("status\n")
    assert json.loads(again)["etat"] == "blesse"
    # Line noise and control bytes (the Ctrl-B a host tool sends as a badge reboots under
    # it) neither stop the console nor spoil a word; backspace rubs out.
    lines = run(b"\x02staz\x7ftus\r\n\xff\xfe coup\n\x1b[Acoup\tblesse\n")
    assert json.loads(lines[0])["etat"] == "blesse"
    # The terminal's cursor goes back over what is rubbed out; control bytes don't show.
    assert echoed[-1].startswith(b"staz\b \btus\r\n\xff\xfe coup\r\n[Acoup\tblesse\r\n")
    assert lines[1] == "error: the line is not UTF-8 text"
    assert lines[2] == "error: unknown action '[acoup'"
    assert json.loads(run("status\n")[0])["etat"] == "blesse"   # nothing changed
    # A line past 256 bytes is dropped with one answer (a hit hidden at its end too),
    # and the next line is read whole.
    lines = run("coup " + "x" * 300 + " coup\nstatus\n")
    assert lines[0] == "error: a line of more than 256 bytes: dropped"
    assert json.loads(lines[1])["etat"] == "blesse" and len(lines) == 2
    # Numbers from outside are range-checked before use: a huge clock crashed the
    # interpreter (time.gmtime); overlong UTF-8 is refused as the desktop refuses it.
    lines = run(b"clock 99999999999999999999999\nclock " + b"9" * 250 + b"\nclock 1795000000\n"
                b"coup \xc0\xaf\ncoup \xed\xa0\x80\nstatus\n")
    assert lines[0] == "error: clock needs whole seconds since 1970, from 2024 to 2099"
    assert lines[1] == lines[0] and lines[2] == "ok clock 1795000000"
    assert lines[3] == lines[4] == "error: the line is not UTF-8 text"
    status = json.loads(lines[5])
    assert status["etat"] == "blesse" and 1795000000 <= status["clock"] < 1795000005
    # A line the console fails on (a bug) is answered and journaled; the next one works.
    lines = run("boom\nstatus\njournal\n", "faulty")
    assert lines[0] == "error: the badge failed on this line: ZeroDivisionError('a bug',)"
    assert json.loads(lines[1])["etat"] == "blesse"
    assert json.loads(lines[-1])["error"] == "console 'boom': ZeroDivisionError('a bug',)"


def test_a_freeze_and_a_watchdog_reset_gain_no_time(app_checks):
    # Issue 34: an agonisant badge frozen until its watchdog reset it came back 37 s
    # healthier. Now the time it could not see counts: by its RTC, or at worst.
    r = app_checks("a_freeze_and_a_watchdog_reset_gain_no_time")
    for rtc, seen in r.items():
        assert seen["cause"] == 3 and seen["passed"] >= 45000, (rtc, seen)
        assert seen["after"] <= seen["before"] - seen["passed"], (rtc, seen)
    assert r["set"]["clock"] and not r["never set"]["clock"]
    # Not much less either: a checkpoint's pessimism (10 s), and at worst a minute.
    assert r["set"]["after"] >= r["set"]["before"] - r["set"]["passed"] - 12000


def test_main_py_empties_the_check_it_lets_go_before_the_badge_starts(monkeypatch):
    # firmware_check's module (its functions, 0.8 KB in 32-bit) was popped from
    # sys.modules but not emptied: a stale word of main.py's frame, which runs the app
    # all day, kept it whole (the model's C3 SuperMini, 2026-12-07). Emptied, a stale
    # word keeps an empty module. main.py run here with stand-ins for what it imports.
    import sys
    import types
    with open(os.path.join(FIRMWARE_DIR, "main.py")) as f:
        code = compile(f.read(), "main.py", "exec")
    seen = {}
    check = types.ModuleType("firmware_check")
    check.damaged = lambda manifest: None   # no manifest: a firmware set up by hand
    check.cannot_start = lambda *found: True
    run = types.ModuleType("cran.run")
    run.main = lambda: seen.setdefault("check_at_start", dict(vars(check)))
    stand_ins = {"micropython": types.SimpleNamespace(kbd_intr=lambda c: None),
                 "machine": types.SimpleNamespace(WDT=lambda timeout: None,
                                                  reset=lambda: None),
                 "firmware_check": check, "cran.run": run,
                 # its REPL's guard, after the app: no key to take away here
                 "os": types.SimpleNamespace(remove=lambda path: None)}
    for name, module in stand_ins.items():
        monkeypatch.setitem(sys.modules, name, module)
    real_open = open

    def no_key(path, *args):
        if path == "/game.key":
            raise OSError(2, "no such file")
        return real_open(path, *args)
    exec(code, {"__name__": "__main__", "open": no_key})
    assert "firmware_check" not in sys.modules
    assert set(seen["check_at_start"]) <= {"__name__", "__doc__", "__loader__",
                                           "__package__", "__spec__"}, seen


def test_main_py_empties_the_manifest_it_checked(tmp_path):
    # main.py's check parses /firmware.json (68 files' paths and digests, ~7 KB with
    # its dict): a stale word on the chip's stack pointing at it kept it all day (the
    # model's StickC Plus 10.4 KB over after boot, without the radio). Emptied before
    # the badge starts, a stale word keeps an empty dict; and an empty list of what the
    # can't-start path needs (13 paths, ~0.6 KB: kept so by the Atom Lite, 2026-12-07).
    # The check main.py runs (firmware_check.py's damaged), its json's parse kept here.
    import ast
    import hashlib
    import json as real_json

    from host_tools import FIRMWARE_DIR
    with open(os.path.join(FIRMWARE_DIR, "firmware_check.py")) as f:
        tree = ast.parse(f.read())
    [damaged] = [n for n in tree.body if isinstance(n, ast.FunctionDef)
                 and n.name == "damaged"]
    good = tmp_path / "good.py"
    good.write_text("x = 1\n")
    digest = hashlib.sha256(good.read_bytes()).hexdigest()
    manifest = tmp_path / "firmware.json"
    manifest.write_text(real_json.dumps({"files": {str(good): digest,
                                                   str(tmp_path / "gone.py"): "0" * 64},
                                         "fail_needs": ["/cran/fail.mpy"]}))
    parsed = []

    class Json:
        @staticmethod
        def load(f):
            return Json.loads(f.read())

        @staticmethod
        def loads(text):
            parsed.append(real_json.loads(text))
            needs.append(parsed[-1]["fail_needs"])
            return parsed[-1]
    needs = []
    space = {}
    exec(compile(ast.Module([damaged], []), "firmware_check.py", "exec"), space)
    import sys
    real = sys.modules["json"]
    sys.modules["json"] = Json   # what its `import json` finds
    try:
        bad, said = space["damaged"](str(manifest))
    finally:
        sys.modules["json"] = real
    assert bad == [str(tmp_path / "gone.py") + ": missing"] and said == ["/cran/fail.mpy"]
    assert parsed == [{}] and needs == [[]]   # the manifest, its files, its list emptied
    # A firmware found whole: no list of what the can't-start path needs is kept.
    manifest.write_text(real_json.dumps({"files": {str(good): digest},
                                         "fail_needs": ["/cran/fail.mpy"]}))
    sys.modules["json"] = Json
    try:
        assert space["damaged"](str(manifest)) == ([], None)
    finally:
        sys.modules["json"] = real
