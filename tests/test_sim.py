# `cran sim`: the live driver's protocol (host_tools/virtual/scripts/live_driver.py), and the
# terminal UI driven headless by Textual's pilot, on both runtimes: keys in, the real firmware
# app's LEDs, screen, buzzer and state out.
import asyncio
import json
import os
import re
import shutil
import time

import pytest

from conftest import REPO, SCENARIO_DIR, run_cran
from cran.core.engine import act, new_state
from cran.core.rules import Character, Settings
from cran.core.words import parse_action
from cran.cues import led_frame
from cran.hal.leds import cap
from cran.tunes import melody_for
from host_tools import FIRMWARE_DIR, CommandError
from host_tools.sim.driver import BadgeDriver, read_wearer
from host_tools.sim.start import prepare
from host_tools.sim.tui import PICKERS, Picker, SimApp, shown_rgb


@pytest.fixture(params=["micropython", "cpython"])
def runtime(request):
    if request.param == "micropython":
        request.getfixturevalue("micropython")
    return request.param


def ui(runtime, steps, board=None, script=None, character=None):
    """Boot the badge as `cran sim` does, open the UI headless with its clock stopped,
    run `await steps(app, pilot)` -> what it returns."""
    driver, parsed, _ = prepare(runtime, board=board, script=script, character=character)

    async def go():
        app = SimApp(driver, parsed, paused=True)
        async with app.run_test(size=(120, 45)) as pilot:
            return await steps(app, pilot)
    try:
        return asyncio.run(go())
    finally:
        driver.close()


async def keys(pilot, *names):
    for name in names:
        await pilot.press(name)
    await pilot.pause()


def panel(app):
    """The state panel as drawn: {'etat': 'blesse', 'countdown': 'coma in 5:00', ...}."""
    lines = str(app.w_state.content).splitlines()
    return dict(line.split(None, 1) for line in lines if len(line.split(None, 1)) == 2)


def picker_key(page, entry):
    return dict((w, k) for k, w in PICKERS[page][1])[entry]


# ---- the terminal UI ------------------------------------------------------------------

def test_the_hit_key_makes_a_fresh_badge_blesse(runtime):
    async def steps(app, pilot):
        before = panel(app)["etat"]
        out = []
        for key in ("space", "period", "period"):   # the hit, then 1 s twice: the blink
            await keys(pilot, key)
            frame = app.session.frame
            out.append((app.session.now, panel(app)["etat"], frame["leds"], app.led_colours))
        return before, out, app.hello["leds"]["max_brightness"]

    before, seen, top = ui(runtime, steps)
    assert before == "pleine-forme"
    blesse, _ = act(new_state(Character(), Settings()), parse_action("coup"), 0)
    for now, etat, leds, colours in seen:
        assert etat == "blesse"
        want = [list(cap(c, top)) for c in led_frame(blesse, now, 1, "single")]
        assert leds == want, "at %d ms" % now
        assert colours == [shown_rgb(c, top) for c in want]
    # 1 s on, 1 s off: two seconds apart, one lit and one dark, ...
    assert {bool(any(leds[0])) for _, _, leds, _ in seen[1:]} == {True, False}
    # ... in the blesse amber, not pleine-forme's green.
    lit = [leds[0] for _, _, leds, _ in seen if any(leds[0])][0]
    assert lit[0] > lit[1] > lit[2] == 0


def test_agonisant_then_five_minutes_is_coma(runtime):
    async def steps(app, pilot):
        await keys(pilot, "c", picker_key("coup", "agonisant"))
        first = panel(app)
        await keys(pilot, "M")
        return first, panel(app)

    first, later = ui(runtime, steps)
    assert first["etat"] == "agonisant" and first["countdown"] == "coma in 5:00"
    assert later["etat"] == "coma" and later["countdown"] == "mort in 5:00"


def test_esc_closes_every_picker_and_the_console_line():
    async def steps(app, pilot):
        seen = []
        for page in ("c", "e", "o"):
            await keys(pilot, page)
            opened = isinstance(app.screen, Picker)
            await keys(pilot, "escape")
            seen.append((opened, isinstance(app.screen, Picker)))
        await keys(pilot, "space")   # the badge's own keys again: a hit
        await keys(pilot, ":", "escape")
        return seen, panel(app)["etat"], app.w_console.display

    seen, etat, console_open = ui("cpython", steps)
    assert seen == [(True, False)] * 3
    assert etat == "blesse" and not console_open


def test_the_clock_keys():
    def one_second(app):
        # As if a real second went by since the clock's last tick.
        before = app.session.now
        app.session._last_tick = time.monotonic() - 1.0
        app.tick()
        return app.session.now - before

    async def steps(app, pilot):
        out = {"paused": one_second(app)}
        for key, name in (("2", "x10"), ("3", "x60"), ("1", "x1"), ("p", "pause")):
            await keys(pilot, key)
            out[name] = one_second(app)
        for key in ("period", "m", "M"):
            before = app.session.now
            await keys(pilot, key)
            out[key] = app.session.now - before
        return out, str(app.w_clock.content)

    out, clock = ui("cpython", steps)
    assert out["paused"] == out["pause"] == 0
    for name, ms in (("x1", 1000), ("x10", 10000), ("x60", 60000)):
        assert ms <= out[name] < ms + 60 * 100, out   # a tenth of a real second of slack
    assert (out["period"], out["m"], out["M"]) == (1000, 60000, 300000)
    assert clock.startswith("clock ") and "paused" in clock


def test_a_one_button_press_sequence_reaches_its_action(runtime):
    # docs/controls.md, one button: coup peur = L S L S S L S S S L.
    async def steps(app, pilot):
        await keys(pilot, "A", "a", "A")
        where = app.session.frame["menu"]
        await keys(pilot, "a", "a", "A", "a", "a", "a", "A")
        frame = app.session.frame
        return where, frame["menu"], frame["status"]["effets"], panel(app)

    where, after, effects, shown = ui(runtime, steps)
    assert where == [1, 1, 1, "Etats"]          # Coup > Etats, its 1st entry
    assert after is None and list(effects) == ["peur"]   # the menu closed on the action
    assert shown["effets"] == "peur 5:00" and shown["etat"] == "pleine-forme"


def test_two_buttons_and_the_screen_mirrored(micropython):
    # docs/controls.md, two buttons and a screen: effet peur = B A B.
    async def steps(app, pilot):
        await keys(pilot, "B")
        menu = list(app.session.frame["screen"])
        await keys(pilot, "A", "B")
        return menu, app.session.frame["screen"], str(app.w_screen.content), app.session.notes

    menu, screen, drawn, notes = ui("micropython", steps, board="m5stickc-plus")
    assert menu[0] == "Effet" and menu[-1] == "bb Retour"
    assert screen == ["Debout", "Peur"]
    assert "Peur" in drawn and "Debout" in drawn
    assert [f for _, f in notes][-2:] == [880, 1175]   # the effect's rising pair


def board_panel(app):
    """Everything the board's panel draws, as text."""
    return "\n".join(str(w.content) for w in (app.w_leds, app.w_screen, app.w_buzzer,
                                              app.w_buttons))


def test_the_board_panel_shows_only_what_the_board_shows(micropython, tmp_path):
    # An Atom Lite in armor: «Armure» reaches its wearer by its LED alone (white flashes),
    # and nothing the badge merely knows (the answer's word, the armor left, the menu's
    # page) is in the board's panel; the wearer's panel has it, and `w` hides that panel
    # and the journal, leaving the board alone.
    wearer = tmp_path / "godefroy.json"
    wearer.write_text('{"name": "Godefroy", "armor": 1}')

    async def steps(app, pilot):
        out = {"before": board_panel(app)}
        await keys(pilot, "space")
        out["colours"] = app.led_colours
        out["hit"] = board_panel(app)
        out["dit"] = panel(app)["dit"]
        await keys(pilot, "A")
        out["menu_board"] = board_panel(app)
        out["menu_wearer"] = str(app.w_menu.content)
        await keys(pilot, "w")
        out["alone"] = (app.query_one("#state").display, app.w_journal.display,
                        app.query_one("#badge").display)
        await keys(pilot, "w")
        out["back"] = (app.query_one("#state").display, app.w_journal.display)
        return out

    out = ui("micropython", steps, character=str(wearer))
    assert out["colours"] == [(255, 255, 255)]     # the answer's first flash, at the hit
    assert out["dit"] == "armure"
    for text in (out["before"], out["hit"], out["menu_board"]):
        assert "buzzer: none on this board" in text
        for word in ("armure", "dit", "menu", "Voir", "answer"):
            assert word not in text.lower(), (word, text)
    assert out["menu_wearer"].startswith("menu       open: Menu/Voir")
    assert out["alone"] == (False, False, True) and out["back"] == (True, True)


def _script(tmp_path):
    path = tmp_path / "fight.txt"
    path.write_text('character name="Test" armor=cuir\n'
                    "0:00 coup\n"
                    "0:00 expect dit=armure\n"
                    "0:02 coup agonisant\n"
                    "5:02 expect etat=coma\n"
                    "5:03 expect etat=mort   # wrong on purpose\n", encoding="utf-8")
    return str(path)


def test_a_script_replays_and_its_expects_show(runtime, tmp_path):
    async def steps(app, pilot):
        await keys(pilot, "M", "M")
        lines = [str(line.text) for line in app.w_script.lines]
        return app.session.script, lines, panel(app), app.w_script.border_title

    script, lines, shown, title = ui(runtime, steps, script=_script(tmp_path))
    assert (script.held, script.failed, script.due()) == (2, 1, None)
    assert any(line.startswith("✓") and "expect dit=armure" in line for line in lines)
    assert any(line.startswith("✗") and "expected etat=mort, got coma" in line
               for line in lines)
    assert shown["who"].startswith("Test ")     # the script's character wears it
    assert title == "script fight.txt: 2/3 expects held, 1 failed"   # nothing left next


def test_the_session_replays_a_script_without_the_terminal_ui(tmp_path):
    # The clock, the replay and the driver need no Textual (issue: the UI only draws).
    code = ("import sys; import host_tools.sim.session; "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('textual', 'rich')))")
    import subprocess
    import sys
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=REPO, check=True)
    assert out.stdout.strip() == "[]", out.stdout
    from host_tools.sim.session import Session
    driver, parsed, _ = prepare("cpython", script=_script(tmp_path))
    steps, logged = [], []
    try:
        session = Session(driver, parsed, paused=True, on_step=lambda *s: steps.append(s),
                          on_log=lambda text, kind: logged.append(kind))
        session.jump(600000)
    finally:
        driver.close()
    assert [(kind, ok) for kind, ok, _ in steps] == [
        ("act", True), ("expect", True), ("act", True), ("expect", True), ("expect", False)]
    assert steps[-1][2].endswith("expect etat=mort: expected etat=mort, got coma")
    assert session.script.title() == "script fight.txt: 2/3 expects held, 1 failed"
    assert "error" not in logged and session.frame["status"]["etat"] == "coma"


def test_the_rulebook_fight_replays_on_the_live_badge(micropython):
    async def steps(app, pilot):
        await keys(pilot, "M", "M", "M")
        return app.session.script

    script = ui("micropython", steps,
                script=os.path.join(SCENARIO_DIR, "exemple-godefroy.txt"))
    assert (script.held, script.failed, script.due()) == (5, 0, None)


def test_reboot_keeps_the_state_and_a_dead_badge_is_said(tmp_path):
    async def steps(app, pilot):
        await keys(pilot, "space", "r")
        kept = panel(app)["etat"]
        app.session.driver.proc.kill()
        app.session.driver.proc.wait()
        await keys(pilot, "space")
        return kept, app.session.dead, str(app.w_clock.content)

    kept, dead, clock = ui("cpython", steps)
    assert kept == "blesse"
    assert dead.startswith("the badge process (cpython) ended with exit")
    assert "the badge process is gone" in clock


# ---- who wears it ---------------------------------------------------------------------

def test_character_files(tmp_path):
    config = tmp_path / "badge.json"
    config.write_text(json.dumps({"board": "atom-matrix", "lang": "en",
                                  "character": {"name": "Ali", "armor": 2}}))
    assert read_wearer(str(config)) == ({"character": {"name": "Ali", "armor": 2},
                                         "lang": "en"}, "atom-matrix")
    bare = tmp_path / "ali.json"
    bare.write_text('{"name": "Ali", "armor": "cuir"}')
    assert read_wearer(str(bare)) == ({"character": {"name": "Ali", "armor": "cuir"}}, None)
    from_scenario = read_wearer(os.path.join(SCENARIO_DIR, "exemple-godefroy.txt"))
    assert from_scenario[0]["character"]["name"] == "Godefroy"
    # A byte-order mark, as some Windows editors write, and the keyword as players write it.
    marked = tmp_path / "marked.txt"
    marked.write_text("\ufeffPersonnage name=Ali armor=cuir\n0:00 coup\n", encoding="utf-8")
    assert read_wearer(str(marked))[0]["character"]["name"] == "Ali"
    marked_json = tmp_path / "marked.json"
    marked_json.write_text('\ufeff{"name": "Ali"}', encoding="utf-8")
    assert read_wearer(str(marked_json)) == ({"character": {"name": "Ali"}}, None)

    bad = tmp_path / "bad.json"
    bad.write_text('{"name": "Ali", "armor": -1}')
    with pytest.raises(CommandError) as e:
        prepare("cpython", character=str(bad))
    assert str(e.value) == ("%s: character.armor: expected a whole number from 0 to 99, got -1"
                            % bad)
    odd = tmp_path / "odd.json"
    odd.write_text('{"character": {}, "colour": "red"}')
    with pytest.raises(CommandError, match="odd.json: colour: unknown field"):
        prepare("cpython", character=str(odd))
    none = tmp_path / "plain.txt"
    none.write_text("# a character, in words only\n0:00 coup\n")
    with pytest.raises(CommandError, match="plain.txt: not JSON, and no character line"):
        read_wearer(str(none))
    broken = tmp_path / "broken.json"
    broken.write_text('{"name": ')
    with pytest.raises(CommandError, match="broken.json: not valid JSON"):
        read_wearer(str(broken))
    with pytest.raises(CommandError, match="unknown board 'nope'"):
        prepare("cpython", board="nope")


def test_without_a_terminal_it_prints_the_timeline(micropython):
    path = os.path.join(SCENARIO_DIR, "k5-agonisant-coma-mort.txt")
    r = run_cran("sim", "--script", path)   # stdout is a pipe here
    assert r.returncode == 0, r.stderr
    assert "k5-agonisant-coma-mort.txt" in r.stdout and " 0 failed" in r.stdout
    r = run_cran("sim", "--character", path)
    assert r.returncode == 2 and "--character needs the terminal UI" in r.stderr


# ---- the driver's protocol ------------------------------------------------------------

def test_the_driver_protocol(runtime):
    driver = BadgeDriver("esp32-devkitc", {}, runtime)
    try:
        hello, first = driver.hello, driver.first
        assert hello["buttons"] == ["a", "b"] and hello["buzzer"]
        assert hello["leds"]["count"] == 8 and hello["screen"]["columns"] == 16
        assert first["status"]["etat"] == "pleine-forme" and first["screen"] == ["Debout"]
        assert [e for _, e in first["journal"]][0]["boot"]

        hit = driver.send({"line": "coup"})
        assert hit["answer"][0].startswith("ok coup normal: etat=blesse")
        assert hit["view"]["etat"] == "blesse" and hit["screen"] == ["Blesse"]
        later = driver.send({"advance": 2000})
        assert later["now"] == hit["now"] + 2000
        # The buzzer played the firmware's own melody for the hit, note for note.
        _, cues = act(new_state(Character(), Settings()), parse_action("coup"), 0)
        melody = melody_for(cues)
        notes = hit["notes"] + later["notes"]
        assert [f for _, f in notes] == [f for f, _ in melody] + [0]
        assert [b[0] - a[0] for a, b in zip(notes, notes[1:])] == [ms for _, ms in melody]

        for command, error in (
                ({"zz": 1}, "unknown command {\"zz\": 1}"),
                ({"button": "c", "down": True}, "no button 'c' on esp32-devkitc (it has: a, b)"),
                ({"advance": -5}, "advance: expected whole ms from 0, got -5"),
                ([1, 2], "expected a JSON object")):
            answer = driver.send(command)
            assert list(answer) == ["error"] and error in answer["error"], answer
        driver.proc.stdin.write("coup\n")
        driver.proc.stdin.flush()
        assert "not JSON" in driver._read()["error"]
        # ... and the badge goes on.
        assert driver.send({"line": "soin"})["view"]["etat"] == "pleine-forme"
    finally:
        driver.close()


def test_a_show_loop_bug_is_reported_again_after_the_watchdog_reset(runtime, tmp_path):
    # The firmware with a bug: its show step raises once the wearer is wounded. The app
    # journals it, leaves its watchdog unfed, and the badge resets; the app booted after
    # the reset has the same bug, and the sim must hear of it again.
    firmware = tmp_path / "firmware"
    shutil.copytree(FIRMWARE_DIR, firmware)
    app_py = firmware / "cran" / "app.py"
    text = app_py.read_text()
    marker = "        self.wakeups += 1\n"
    assert marker in text
    app_py.write_text(text.replace(marker, marker + "        if self.badge.state.etat == 1:\n"
                                   "            raise ZeroDivisionError('a bug')\n", 1))
    driver = BadgeDriver("atom-lite", {}, runtime, str(firmware))
    try:
        hit = driver.send({"line": "coup"})
        assert "ZeroDivisionError" in hit["fault"]
        watchdog_ms = int(re.search(r"WDT_TIMEOUT_MS = (\d+)", text).group(1))
        later = driver.send({"advance": watchdog_ms + 2000})
        boots = [e for _, e in later["journal"] if "boot" in e]
        assert boots and boots[-1]["cause"] == "watchdog"
        assert "ZeroDivisionError" in later["fault"]
    finally:
        driver.close()


@pytest.mark.parametrize("runtime", ["micropython", "cpython"])
def test_a_whole_cran_config_boots(runtime, micropython, tmp_path):
    # A badge config as `cran config` writes it is ~700 bytes: more than the unix port
    # takes in one argv item (256), so the driver reads it from stdin.
    out = tmp_path / "badges"
    r = run_cran("config", os.path.join(REPO, "examples", "roster.csv"), "--out", str(out))
    assert r.returncode == 0, r.stderr
    path = sorted(out.glob("*.json"))[-1]
    config, board = read_wearer(str(path))
    assert len(json.dumps(config)) > 256
    driver = BadgeDriver(board, config, runtime)
    try:
        assert driver.first["status"]["personnage"] == json.loads(path.read_text())[
            "character"]["name"]
    finally:
        driver.close()


# ---- on a virtual field (`cran sim --field`; with a station: tests/test_field_e2e.py) ---

def _field_badge(tmp_path):
    """A badge config of a game with the radio, and its game.key, as `cran config`
    writes them -> the config's path."""
    from host_tools.game import roster
    template = roster.settings_template()
    template["radio"] = True
    (tmp_path / "game.json").write_text(json.dumps(template))
    (tmp_path / "roster.csv").write_text("name,armor,board,badge\nAude,none,atom-lite,b01\n")
    r = run_cran("config", str(tmp_path / "roster.csv"), "--settings",
                 str(tmp_path / "game.json"), "--out", str(tmp_path / "badges"))
    assert r.returncode == 0, r.stderr
    return tmp_path / "badges" / "b01.json"


def _on_field(character, field, at=None, settings=None):
    """prepare's options for a badge on a field."""
    return dict(character=character and str(character), field=field, at=at,
                settings=settings)


def test_the_field_options_are_checked(tmp_path):
    r = run_cran("sim", "--at", "3,4")
    assert r.returncode == 2 and "--at goes with --field" in r.stderr, r.stderr
    r = run_cran("sim", "--settings", "game.json")
    assert r.returncode == 2 and "--settings goes with --field" in r.stderr, r.stderr
    r = run_cran("sim", "--field", "rehearsal")   # stdout is a pipe here
    assert r.returncode == 2 and "--field needs the terminal UI" in r.stderr, r.stderr
    plain = tmp_path / "plain.json"
    plain.write_text('{"name": "Ali"}')
    config = _field_badge(tmp_path)
    for args, said in (
            (_on_field(None, "f"), "--field needs --character: a badge of a game with the "
                                   "radio, as `cran config ROSTER --settings GAME.json`"),
            (_on_field(plain, "f"), "--field: %s has no radio: a badge of a game" % plain),
            (_on_field(config, "nobody-runs-it"), "no virtual field 'nobody-runs-it' here: "
                                                  "start its air first"),
            (_on_field(config, "bad name!"), "a field's name is letters, digits")):
        with pytest.raises(CommandError) as e:
            prepare("cpython", **args)
        assert str(e.value).startswith(said), str(e.value)
    from host_tools.field import fieldnet
    hub = fieldnet.Hub("simat%d" % os.getpid())
    try:
        with pytest.raises(CommandError, match=r"--at 3000,4: X,Y in metres, each from 0"):
            prepare("cpython", **_on_field(config, hub.name, at="3000,4"))
    finally:
        hub.close()


def test_a_sim_badge_s_radio_counter_is_kept_per_game(tmp_path, monkeypatch):
    # Issue 35: what the computer keeps is kept per game. Two games' Aude (a rehearsal's
    # and the game's) are two badges, their radio ids alike (made from the name): each
    # keeps its own counter's mark.
    from host_tools.field import fieldnet
    from host_tools.sim import start
    monkeypatch.setattr(fieldnet, "member_env", lambda name, at=None: {})
    kept = []
    for game in ("one", "two", "one"):
        folder = tmp_path / game
        if not folder.exists():
            folder.mkdir()
            config = _field_badge(folder)
        config = folder / "badges" / "b01.json"
        _, key, where = start._on_field("f", None, None, str(config),
                                        json.loads(config.read_text()))
        kept.append(where)
    assert kept[0] == kept[2] != kept[1]


def test_on_a_field_the_badge_lives_in_real_time(tmp_path):
    # The sim's badge joins a field's air: its heartbeat goes out on it, its clock is
    # the field's real time (the clock keys say why they do nothing), its finger's moves
    # are done beat by beat (the hit: S2), and its console, locked by the game key, is
    # opened with it.
    from cran import radio
    from host_tools.field import fieldnet
    from host_tools.game.chains import radio_id
    from host_tools.sim.session import Session
    hub = fieldnet.Hub("simrt%d" % os.getpid())
    heard = []
    hub.on_carry = lambda frame, at: heard.append(frame)
    driver, _, key = prepare("micropython", **_on_field(_field_badge(tmp_path), hub.name))

    async def steps(app, pilot):
        start = app.session.now
        for key_name in ("2", "p", "m"):
            await keys(pilot, key_name)
        await keys(pilot, "space")
        for _ in range(100):   # the hit's press and release, beat by beat in real time
            await pilot.pause(0.1)
            if app.session.frame["view"]["etat"] == "blesse":
                break
        return (app.session.now - start, app.session.speed, app.session.paused,
                str(app.w_clock.content), app.session.frame["view"]["etat"],
                app.session.line("coup agonisant"))

    async def go():
        app = SimApp(driver, field=hub.name, game_key=key)
        async with app.run_test(size=(120, 45)) as pilot:
            return await steps(app, pilot)
    def counters():   # of the heartbeats heard on the air (radio._HEAD)
        return [int.from_bytes(f[12:16], "big") for f in heard if f[16] == radio.HEARTBEAT]
    try:
        waited, speed, paused, clock, etat, answer = asyncio.run(go())
        driver.close()
        first = counters()
        assert {f[5:11] for f in heard} == {radio_id("Aude")}
        # Started again, it goes on from its counter's mark, kept in the cran folder: a
        # station that heard the first run takes its frames (from 0, it would drop them).
        del heard[:]
        driver, _, key = prepare("cpython",
                                 **_on_field(tmp_path / "badges" / "b01.json", hub.name))
        session = Session(driver, field=hub.name, game_key=key)
        deadline = time.monotonic() + 20
        while not counters():
            assert time.monotonic() < deadline, "no heartbeat from the second run"
            session.tick()
            time.sleep(0.05)
    finally:
        driver.close()
        hub.close()
    assert 0 < waited < 11000 and (speed, paused) == (1, False), waited   # no jump
    assert "real time, on field simrt" in clock, clock
    assert etat == "blesse"
    assert answer[0].startswith("ok coup agonisant: etat=agonisant"), answer
    assert first and min(counters()) > max(first), (first, counters())


def test_a_circuitpython_board_is_drawn_on_circuitpythons_interpreter(tmp_path):
    # Its board's runtime, as `cran scenario --badge` takes it: the real CircuitPython
    # interpreter, the strict virtual CircuitPython modules and Adafruit's NeoPixel
    # library under the app; what the strip was sent is what the panel draws (the hit:
    # S2, the state back after a reboot).
    r = run_cran("sim", "--headless", "--runtime", "circuitpython")
    assert r.returncode == 2 and "board atom-lite runs on micropython: give --runtime " \
                                 "micropython, or leave it out" in r.stderr, r.stderr
    with pytest.raises(CommandError, match="board atoms3-lite runs on circuitpython: give "
                                           "--runtime circuitpython, or leave it out"):
        prepare("micropython", board="atoms3-lite", asked_runtime="micropython")
    from host_tools.virtual.runtimes import find_circuitpython
    if find_circuitpython() is None:
        pytest.skip("no CircuitPython unix port here (../shared/tools/circuitpython)")
    with pytest.raises(CommandError, match="--field: board atoms3-lite runs CircuitPython, "
                                           "whose badge has no radio"):
        prepare("micropython", board="atoms3-lite", field="f")
    r = run_cran("sim", "--board", "atoms3-lite")   # stdout is a pipe: headless
    assert r.returncode == 0, r.stderr
    assert "5 held, 0 failed (circuitpython, badge atoms3-lite)" in r.stdout, r.stdout[-300:]

    async def steps(app, pilot):
        out = [app.hello["runtime"], app.session.frame["leds"]]
        await keys(pilot, "space")
        out += [app.session.frame["view"]["etat"], app.session.frame["leds"]]
        await keys(pilot, "r")   # switched off and on: the state comes back from nvm
        return out + [app.session.frame["view"]["etat"]]
    on_cp = ui("micropython", steps, board="atoms3-lite")
    assert on_cp[0] == "circuitpython" and (on_cp[2], on_cp[4]) == ("blesse", "blesse")
    # The same looks as the Atom Lite's in MicroPython (one LED, capped at 60 both).
    on_mp = ui("micropython", steps, board="atom-lite")
    assert on_cp[1:] == on_mp[1:] and on_cp[1] != on_cp[3], (on_cp, on_mp)


# ---- as a person runs it ----------------------------------------------------------------

def test_quitting_the_sim_with_q_exits_0_without_a_traceback(micropython):
    # `make sim` then q, on a terminal: the README's main job, started and left as
    # everyone does. It ended in a traceback (SimApp has no `dead`) and exit 1.
    from conftest import Terminal
    term = Terminal("sim")
    term.wait_for("etat")
    term.type(" ")                 # a hit: the badge answers before it is left
    term.wait_for("1 answer left")
    term.type("q")
    code, drawn = term.finish()
    assert "Traceback" not in drawn and "Error" not in drawn, drawn[-3000:]
    assert code == 0, drawn[-3000:]


def test_the_sim_draws_on_stdout_so_its_stderr_can_go_to_a_file(micropython, tmp_path):
    # Issue 35: `make sim 2>err.log` gave a blank terminal (Textual draws on stderr).
    from conftest import Terminal
    log = tmp_path / "err.log"
    term = Terminal("sim", stderr=str(log))
    term.wait_for("etat")
    term.type("q")
    code, drawn = term.finish()
    assert code == 0, drawn[-3000:]
    assert "\x1b[" not in log.read_text(errors="replace")   # not a byte of the screen


def test_every_led_look_has_its_words_in_the_legend():
    from cran import cues
    from host_tools.sim.tui import LOOK_WORDS
    assert set(LOOK_WORDS) == set(cues._LOOKS)


def test_the_default_badge_is_worn_and_its_character_changes_from_the_console(micropython):
    # The first look had no name and no armour (never «Armure»), and `: character
    # armor=metal` was an unknown action. Now Godefroy in metal, as the rulebook's fight.
    from conftest import Terminal
    term = Terminal("sim", "--paused")
    term.wait_for("Godefroy")
    assert "2 answers left" in term.text()
    term.type(" ")                                   # a hit: the armour answers
    term.wait_for("say «Armure»")
    term.console("character armr=cuir helmet=oui")   # a typo: named, nothing changes
    term.wait_for("did you mean 'armor'")
    term.console("character armor=cuir helmet=oui")
    term.wait_for("ok character: Godefroy, armor 1, helmet, reset to full health (P3)")
    term.wait_for("1 answer left")
    term.type("q")
    code, drawn = term.finish()
    assert code == 0 and "Traceback" not in drawn, drawn[-3000:]


def test_a_late_double_press_is_in_the_journal(runtime):
    # A double press 5.3 s after a hit takes nothing back, and said nothing anywhere: the
    # wearer may think it did, and the debrief could not tell. The journal says so now.
    from host_tools.sim.session import Session
    driver, _, _ = prepare(runtime)
    logged = []
    try:
        session = Session(driver, None, paused=True, on_log=lambda text, kind: logged.append(text))
        session.press("a", "short")
        session.jump(5300)
        session.press("a", "double")
        etat = session.frame["status"]["etat"]
        session.press("a", "double")   # again at once: nothing left to take back
    finally:
        driver.close()
    assert etat == "blesse"
    late = [t for t in logged if "double press" in t]
    assert len(late) == 2, logged
    # (5.3 s after the hit's press was decided, plus the double press's own time)
    ago = re.search(r"double press (\d+\.\d) s after the action: too late to undo \(5 s\)$",
                    late[0])
    assert ago and 5.3 <= float(ago.group(1)) < 6.5, late
    assert late[1].endswith("double press: nothing to undo"), late


def test_keys_typed_right_after_the_colon_are_the_console_lines():
    # `:` opens the console's line, which takes the focus on Textual's next turn: keys
    # already waiting (a fast typist, a paste, a busy machine) went to the hotkeys, `e`
    # opening the effects' picker, `c` the hits'. They are the line's.
    from textual import events

    async def steps(app, pilot):
        for char in ":ec":   # all posted before any is handled
            app.post_message(events.Key("colon" if char == ":" else char, char))
        await pilot.pause()
        # The line has the focus now: the keys typed before it are kept, not selected
        # for the next key to replace (an Input selects its text as it takes the focus).
        app.post_message(events.Key("o", "o"))
        await pilot.pause()
        return isinstance(app.screen, Picker), app.w_console.display, app.w_console.value

    picker_open, console_open, typed = ui("cpython", steps)
    assert not picker_open and console_open and typed == "eco"
