# What the badge shows and plays (cran.cues): patterns told apart without colour, coma
# and mort alike in public (S7), the game stop unmistakable (K15), wrap-safe rhythm.
import json
import os
import re
import subprocess
import sys

import pytest

from conftest import REPO, WRAP_START, scenario_files
from cran import cues, ledviews, texts, tunes
from cran.core.engine import act, new_state, tick
from cran.core.rules import Character, Settings
from cran.core.steps import PUBLIC_LOOK
from cran.core.ticks import ticks_add, ticks_diff
from cran.core.vocab import CUE_KINDS
from cran.core.words import ParseError, parse_action
from cran.looks import saying, warning_cue
from cran.screenwords import news_of
from gamefiles import scenario

LAYOUTS = ((1, "single"), (8, "strip"), (25, "matrix-5x5"))
OFF = (0, 0, 0)
STEP = cues.SLOT_MS
PERIOD = 64 * STEP   # the longest pattern: 8 s (one LED: state, then effect code)


def play(lines, start=0, armor=0, **settings):
    """[(ms, action)] -> (state, cues of each line)."""
    state = new_state(Character(armor=armor), Settings(**settings))
    heard = []
    for ms, text in lines:
        state, more = act(state, parse_action(text), ticks_add(start, ms))
        heard.append(more)
    return state, heard


def at(state, now):
    return tick(state, now)[0]


def shape(state, n, layout, start=0):
    """On/off of every LED at every step of one period: the pattern without colour."""
    return tuple(tuple(p != OFF for p in cues.led_frame(state, ticks_add(start, k * STEP + 1),
                                                         n, layout))
                 for k in range(PERIOD // STEP))


def canonical(seq):
    # A pattern is seen from any moment: compare up to rotation.
    return min(seq[i:] + seq[:i] for i in range(len(seq)))


def looks():
    """name -> a state showing it, at tick 0 (agonisant's countdown started at 0)."""
    out = {
        "pleine-forme": play([]),
        "blesse": play([(0, "coup")]),
        "agonisant": play([(0, "coup agonisant")]),
        "coma": play([(0, "coup coma")]),
        "stop": play([(0, "stop")]),
        "hors-jeu": play([(0, "hors-jeu")]),
    }
    out = dict((k, v[0]) for k, v in out.items())
    # The last minute before coma: state built 4:30 earlier.
    out["alerte"] = play([(0, "coup agonisant")], start=ticks_add(0, -270000))[0]
    for base, first in (("pleine-forme", []), ("blesse", [(0, "coup")]),
                        ("agonisant", [(0, "coup agonisant")])):
        for effect in cues.EFFECTS:
            out[base + "+" + effect] = play(first + [(0, "effet " + effect)])[0]
    return out


def test_every_look_and_effect_has_its_own_pattern_without_colour():
    states = looks()
    assert cues.look(states["alerte"], 0) == "alerte"
    for n, layout in LAYOUTS:
        seen = {}
        for name, state in states.items():
            key = canonical(shape(state, n, layout))
            assert key not in seen, (layout, name, seen.get(key))
            seen[key] = name


def test_bar_length_tells_the_state_on_several_leds():
    lit = {}
    for name in ("pleine-forme", "blesse", "agonisant", "coma"):
        state = looks()[name]
        lit[name] = max(sum(p != OFF for p in cues.led_frame(state, t, 8, "strip"))
                        for t in range(0, 4096, STEP))
    assert lit == {"pleine-forme": 4, "blesse": 3, "agonisant": 2, "coma": 1}


def test_coma_and_mort_look_sound_and_read_the_same_in_public():
    # S7: even with an effect running in coma, or through the countdown into mort.
    coma, heard_coma = play([(0, "coup coma"), (1000, "effet peur")], armor=2)
    mort, heard_mort = play([(0, "coup mort"), (1000, "effet peur")], armor=2)
    assert [tunes.melody_for(c) for c in heard_coma] == [tunes.melody_for(c) for c in heard_mort]
    assert tunes.melody_for(heard_coma[0]) != []
    fell, heard = play([(0, "coup agonisant")])
    died, fired = tick(fell, 600000)      # agonisant -> coma -> mort, both fired
    assert tunes.melody_for(fired) == tunes.melody_for(tick(fell, 300000)[1])
    for state in (mort, at(died, 600000)):
        for now in (1000, 5000, 299000, 301000):
            for n, layout in LAYOUTS:
                assert (cues.led_frame(coma, now, n, layout)
                        == cues.led_frame(state, now, n, layout))
                assert (cues.next_change_ms(coma, now, n, layout)
                        == cues.next_change_ms(state, now, n, layout))
            for lang in ("fr", "en"):
                assert texts.screen_lines(coma, now, lang) == texts.screen_lines(state, now, lang)
    assert texts.screen_lines(coma, 0) == ["Inerte"]
    # Only the wearer's peek tells them apart.
    assert texts.screen_lines(coma, 0, private=True)[0] == "Coma 5:00"
    assert texts.screen_lines(mort, 1000, private=True)[0] == "Mort"
    assert ledviews.peek_frame(coma, 0, 8, "strip") != ledviews.peek_frame(mort, 0, 8, "strip")


@pytest.mark.parametrize("idle_look", ["blink", "steady"])
def test_every_path_into_coma_and_mort_looks_the_same_in_public(idle_look):
    # S7, whatever the idle look: coma by a keyword, by the countdown, by «Coup : Blessé»
    # on the ground, with an effect running; mort by the countdown, by the finishing blow,
    # by a keyword. Every LED frame for 16 s, on every layout, and the screen, alike.
    paths = [
        [(200000, "coup coma")],
        [(200000, "effet peur"), (200000, "coup coma")],
        [(0, "coup agonisant"), (300000, "effet peur")],
        [(200000, "coup"), (201000, "coup"), (202000, "coup blesse")],
        [(0, "coup coma"), (100000, "effet charme")],
        [(0, "coup coma"), (0, "coup mort si coma")],
        [(0, "effet douleur"), (0, "coup mort")],
    ]
    start = 400000
    states = []
    for lines in paths:
        state = play(lines, idle_look=idle_look)[0]
        states.append(at(state, start))
    assert [s.etat for s in states] == [3, 3, 3, 3, 4, 4, 4]
    for n, layout in LAYOUTS:
        for t in range(start, start + 16384, STEP // 2):
            seen = [cues.led_frame(s, t, n, layout) for s in states]
            assert all(f == seen[0] for f in seen), (n, t)
            assert any(p != OFF for p in seen[0]) or t % 4096 >= 2 * STEP
    for lang in ("fr", "en"):
        assert len(set(tuple(texts.screen_lines(s, start, lang)) for s in states)) == 1


@pytest.mark.parametrize("idle_look", ["blink", "steady"])
def test_the_idle_look_at_full_health(idle_look):
    state = new_state(Character(), Settings(idle_look=idle_look))
    assert cues.look(state, 0) == ("veille" if idle_look == "blink" else "debout")
    for n, layout in LAYOUTS:
        lit = [any(p != OFF for p in cues.led_frame(state, k * STEP + 1, n, layout))
               for k in range(PERIOD // STEP)]
        if idle_look == "steady":
            assert all(lit) and cues.next_change_ms(state, 5, n, layout) is None
        else:
            # One 128 ms flash in 8.192 s: two wake-ups (its edges) per 8.192 s.
            assert lit == [True] + [False] * (PERIOD // STEP - 1)
            assert cues.next_change_ms(state, 5, n, layout) == STEP - 5
            assert cues.next_change_ms(state, STEP, n, layout) == PERIOD - STEP
    # The bar is the same length (4 cells) either way: only the rhythm changes.
    lit_cells = [p != OFF for p in cues.led_frame(state, 1, 8, "strip")]
    assert lit_cells == [True] * 4 + [False] * 4


def test_the_idle_look_setting_is_checked():
    with pytest.raises(ParseError, match="idle_look must be one of blink/steady, got 'dim'"):
        Settings(idle_look="dim")


def test_the_last_minute_before_coma_warns_and_before_death_only_privately():
    state = play([(0, "coup agonisant")])[0]
    assert cues.warning_due(state, 0) == 240000
    assert cues.look(state, 239999) == "au-sol"
    assert cues.look(state, 240000) == "alerte"
    assert cues.next_change_ms(state, 239000, 8, "strip") <= 1000
    assert tunes.melody_for([warning_cue(state, 240000)]) != []
    coma = at(state, 300000)
    assert cues.warning_due(coma, 300000) == 240000
    assert cues.look(coma, 541000) == "inerte"           # S7: no public warning in coma
    assert tunes.melody_for([warning_cue(coma, 541000)]) == []
    assert texts.screen_lines(coma, 541000, private=True)[0] == "Coma 0:59 !"
    assert cues.warning_due(new_state(Character(), Settings()), 0) is None
    assert cues.warning_due(play([(0, "coup agonisant"), (1, "stop")])[0], 2) is None


def test_game_stop_is_unmistakable_on_every_badge():
    stop = looks()["stop"]
    for n, layout in LAYOUTS:
        frames = [cues.led_frame(stop, t, n, layout) for t in range(0, 4096, STEP)]
        colours = set(p for f in frames for p in f)
        assert colours == {(255, 255, 255), (0, 0, 255), OFF}
        assert any(all(p != OFF for p in f) for f in frames)   # every LED lit
    for lang in ("fr", "en"):
        assert texts.screen_lines(stop, 0, lang)[0].startswith("STOP")
    assert tunes.melody_for(play([(0, "stop")])[1][0]) != []
    assert tunes.melody_for(play([(0, "stop"), (1, "reprise")])[1][1]) != []


def test_next_change_is_when_the_frame_changes():
    states = looks()
    for name, state in states.items():
        for n, layout in LAYOUTS:
            for now in (0, 77, 3000, WRAP_START + 59990, (1 << 30) - 5):
                now &= (1 << 30) - 1
                d = cues.next_change_ms(state, now, n, layout)
                frame = cues.led_frame(state, now, n, layout)
                if d is None:
                    assert name == "pleine-forme"
                    assert all(cues.led_frame(state, ticks_add(now, t), n, layout) == frame
                               for t in range(0, PERIOD, STEP // 2))
                    continue
                for t in (0, 1, d // 2, d - 1):
                    assert cues.led_frame(state, ticks_add(now, t), n, layout) == frame
                if name != "alerte" or d < 1000:
                    assert cues.led_frame(state, ticks_add(now, d), n, layout) != frame


FAULT_STEPS = (28, 29, 30, 31)   # of each 32: where a failed save shows


def _with_fault(state, now, n, layout):
    return cues.frame_of(cues.frame_code(state, now, n, layout, True), n, layout)


def test_a_failed_save_shows_on_every_look_alike_and_leaves_the_rest():
    # The error cue (issue 13): every LED red, dark, white, dark over the last 4 steps of
    # each 4 s, whatever the look, so coma and mort stay alike (S7); every other step is
    # the look's own, and next_change_ms() wakes for the cue's steps.
    red, white = (255, 0, 0), (255, 255, 255)
    states = looks()
    for n, layout in LAYOUTS:
        for name, state in states.items():
            for k in range(64):
                now = k * STEP + 5
                frame = _with_fault(state, now, n, layout)
                if k % 32 in FAULT_STEPS:
                    assert frame == [(red, OFF, white, OFF)[k % 32 - 28]] * n, (name, k)
                else:
                    assert frame == cues.led_frame(state, now, n, layout), (name, k)
            for now in (0, 77, 3000, 3600, 3700, 3900, 4095, WRAP_START + 59990):
                # (By the frame's code: a dark step of the cue may meet a dark step of
                # the look, one wake-up for nothing.)
                d = cues.next_change_ms(state, now, n, layout, fault=True)
                code = cues.frame_code(state, now, n, layout, fault=True)
                for t in (0, d // 2, d - 1):
                    assert cues.frame_code(state, ticks_add(now, t), n, layout, True) == code
                if name != "alerte" or d < 1000:
                    assert cues.frame_code(state, ticks_add(now, d), n, layout, True) != code
                assert d <= 4096
        coma, mort = play([(0, "coup coma"), (1000, "effet peur")])[0], play(
            [(0, "coup mort")])[0]
        for t in range(0, 8192, STEP // 2):
            assert _with_fault(coma, t, n, layout) == _with_fault(mort, t, n, layout)


def test_patterns_keep_their_rhythm_across_the_tick_wrap():
    # Same phase, one far from the wrap and one across it: the same frames each ms.
    far = WRAP_START - 8192 * 1000
    for lines in ([(0, "coup agonisant")], [(0, "stop")], [(0, "coup"), (0, "effet peur")]):
        near_state = play(lines, start=WRAP_START)[0]
        far_state = play(lines, start=far)[0]
        for n, layout in LAYOUTS:
            for ms in range(0, 120000, 37):
                assert (cues.led_frame(near_state, ticks_add(WRAP_START, ms), n, layout)
                        == cues.led_frame(far_state, far + ms, n, layout))


def test_a_melody_for_every_change_and_every_prompt():
    changes = [
        [(0, "coup")],                                   # pleine-forme -> blesse
        [(0, "coup"), (1000, "coup")],                   # -> agonisant
        [(0, "coup agonisant"), (1000, "soin")],         # -> blesse
        [(0, "coup"), (1000, "soin complet")],           # -> pleine-forme
        [(0, "effet peur")],                             # effect starts
        [(0, "effet peur"), (1000, "effet dissipe")],    # dissipated
        [(0, "coup brise bras")],
    ]
    for lines in changes:
        assert tunes.melody_for(play(lines)[1][-1]) != [], lines
    fell = play([(0, "coup agonisant")])[0]
    assert tunes.melody_for(tick(fell, 300000)[1]) != []    # -> coma, public part
    ended = tick(play([(0, "effet peur")])[0], 300000)[1]
    assert tunes.melody_for(ended) != []                     # effect ends
    prompts = {}
    for said, lines, armor in (("armure", [(0, "coup")], 1),
                               ("resiste", [(0, "coup assomme")], 0)):
        character = Character(armor=armor, helmet=True)
        state, heard = new_state(character, Settings()), None
        for ms, text in lines:
            state, heard = act(state, parse_action(text), ms)
        prompts[said] = tunes.melody_for(heard)
    state, heard = act(new_state(Character(creature=1), Settings()), parse_action("coup"), 0)
    prompts["cri"] = tunes.melody_for(heard)
    assert len(set(tuple(p) for p in prompts.values())) == 3
    assert all(f >= 0 and d > 0 for p in prompts.values() for f, d in p)


def test_private_cues_make_no_sound():
    assert tunes.melody_for([(0, "combat", "debut", True), (0, "remarque", "vol", True)]) == []
    assert tunes.melody_for([(0, "etat", "mort", True), (0, "vu", "inerte", False)]) == \
        tunes.melody_for([(0, "vu", "inerte", False)])


@pytest.mark.parametrize("width", [16, 21])
def test_screen_lines_are_short_and_ascii(width):
    states = list(looks().values())
    states.append(play([(0, "coup"), (1, "coup brise bras-gauche"), (2, "coup desarme")],
                       armor=2)[0])
    for state in states:
        for lang in ("fr", "en"):
            for private in (False, True):
                lines = texts.screen_lines(state, 1000, lang, private, width)
                assert lines and all(len(x) <= width and x.isascii() for x in lines)


def test_private_peek_says_everything():
    state = play([(0, "coup"), (1000, "coup agonisant"), (2000, "effet peur")], armor=1)[0]
    assert texts.screen_lines(state, 49000, private=True) == [
        "Agonisant 4:12", "Armure abimee", "Peur 4:13"]
    assert texts.screen_lines(state, 49000, "en", private=True) == [
        "Dying 4:12", "Armor damaged", "Fear 4:13"]
    answered = play([(0, "coup")], armor=2)[0]
    assert texts.screen_lines(answered, 0, private=True) == ["Pleine forme", "Dis: ARMURE",
                                                            "Armure 1"]
    assert texts.screen_lines(state, 48000) == ["Au sol", "Peur"]
    stolen = play([(0, "coup vol")])[0]
    assert "Vol" not in " ".join(texts.screen_lines(stolen, 0, private=True))   # K13


def test_menu_position_shows_by_colour_and_count():
    a = ledviews.menu_frame((1, 0, 2), 0, 1, "single")
    b = ledviews.menu_frame((2, 0, 2), 0, 1, "single")
    assert a != b
    counts = [sum(any(p != OFF for p in ledviews.menu_frame((1, 0, i), t, 1, "single"))
                  for t in range(64, 4096, STEP)) for i in (1, 2, 3)]
    assert counts == [1, 2, 3]


def test_micropython_shows_and_plays_like_cpython(micropython):
    from host_tools import FIRMWARE_DIR
    cases = [
        {"start": 0, "armor": 2, "lines": [[0, "coup"], [500, "coup blesse"],
                                           [1000, "effet peur"]], "at": [1000, 3000, 9000]},
        {"start": WRAP_START, "armor": 0, "lines": [[0, "coup agonisant"]],
         "at": [0, 59000, 240500, 300000, 541000, 600000]},
        {"start": 12345, "armor": 0, "lines": [[0, "coup desarme"], [100, "hors-jeu"],
                                               [200, "stop"]], "at": [300, 4000]},
        # «Armure» asked for across the tick wrap: its flashes, then the look again.
        {"start": (1 << 30) - 1500, "armor": 1, "lines": [[0, "coup"]],
         "at": [0, 200, 1400, 1600, 3000, 3100]},
    ]
    driver = os.path.join(os.path.dirname(__file__), "mp", "cues_driver.py")
    runs = [subprocess.run([exe, driver, FIRMWARE_DIR], input=json.dumps(cases),
                           capture_output=True, text=True, timeout=60, check=True).stdout
            for exe in (micropython, sys.executable)]
    assert runs[0].splitlines() == runs[1].splitlines()
    assert len(runs[0].splitlines()) > 40


@pytest.mark.parametrize("width", [16, 21])
def test_the_wearers_news_go_on_the_peek_under_the_state(width):
    # S8: healed from agonisant, a reminder; K13: the theft noticed 5 minutes on.
    healed, heard = play([(0, "coup agonisant"), (60000, "soin")])
    news = news_of(heard[1])
    assert news == (("oubli", "-"), 60000)
    words = texts._NEWS_WORDS[news[0]]
    assert words == ("Oubli agonie", "Forget: dying")
    assert texts.screen_lines(healed, 61000, private=True, width=width, news=words) == [
        "Blesse", "Oubli agonie"]
    assert texts.screen_lines(healed, 61000, "en", True, width, words) == [
        "Wounded", "Forget: dying"]
    assert texts.screen_lines(healed, 61000, news=words) == ["Blesse"]   # public: never
    stolen = play([(0, "coup vol")])[0]
    stolen, noticed = tick(stolen, 300000)
    assert news_of(noticed) == (("remarque", "vol"), 300000)
    assert texts._NEWS_WORDS[news_of(noticed)[0]] == ("Vol remarque", "Theft noticed")
    assert news_of(heard[0]) is None   # a blow is no news


def test_next_change_finds_each_rhythm_s_flip_as_a_step_by_step_scan_would():
    # next_change_ms() finds a look's next flip by a string search (the idle path);
    # stepping key by key through the next 64 steps must agree, for every look and step.
    for seen, (_, mask, _) in cues._LOOKS.items():
        if seen == "stop":
            continue   # its colours swap every step: the scan handles it
        for step in range(64):
            for single in (True, False):
                key = cues._key(seen, None, step, single, False)
                flips = [k for k in range(1, 65)
                         if cues._key(seen, None, (step + k) % 64, single, False) != key]
                assert cues._next_flip(mask, step) == (flips[0] if flips else None)


# ---- the answers to say aloud (cues.SAYS) ---------------------------------------------

def answered(said, start=0):
    """A fresh wearer asked, at tick start, to say `said` -> (state, the cues)."""
    character, line = {"armure": (Character(armor=1), "coup"),
                       "resiste": (Character(helmet=True), "coup assomme"),
                       "cri": (Character(creature=1), "coup")}[said]
    state, heard = act(new_state(character, Settings()), parse_action(line), start)
    assert state.said == said and ("dit", said) in [c[1:3] for c in heard]
    return state, heard


def lit_steps(state, start, n=1, layout="single", steps=32):
    """Which steps from start light the LEDs (a "1" or "0" each), and in which colours."""
    frames = [cues.led_frame(state, ticks_add(start, k * STEP + 1), n, layout)
              for k in range(steps)]
    return "".join("1" if any(p != OFF for p in f) else "0" for f in frames), set(
        p for f in frames for p in f if p != OFF)


def test_each_answer_flashes_its_own_motif_on_every_led_then_the_look_comes_back():
    fresh = new_state(Character(), Settings(idle_look="steady"))
    rhythms = {}
    for said in cues.SAYS:
        state, _ = answered(said)
        state.settings = fresh.settings    # steady green after it: the end is plain
        for n, layout in LAYOUTS:
            rhythm, colours = lit_steps(state, 0, n, layout)
            assert colours == {(255, 255, 255)} | {(0, 255, 0)}, (said, layout)
            for k in range(cues.SAY_MS // STEP):   # every LED alike while it shows
                frame = cues.led_frame(state, k * STEP + 1, n, layout)
                assert len(set(frame)) == 1, (said, layout, k)
            assert rhythm[cues.SAY_MS // STEP:] == "1" * (32 - cues.SAY_MS // STEP)
            rhythms.setdefault(said, rhythm)
            assert rhythm == rhythms[said]     # the same motif on every layout
        assert rhythms[said][0] == "1"           # lit at the hit itself
        assert cues.look(state, cues.SAY_MS) == "debout"
    # Three answers, three rhythms, each its motif three times over.
    assert len(set(rhythms.values())) == 3
    for rhythm in rhythms.values():
        motif = rhythm[:8]
        assert rhythm[:24] == motif * 3 and "0" in motif
    assert rhythms["armure"][:8].count("1") == 3 and rhythms["cri"][:8] == "11111000"


def test_an_answer_starts_whole_at_the_hit_wherever_the_rhythms_stand():
    # Its steps count from the answer: a hit at any instant, across the wrap too, shows
    # the same flashes from that instant, and next_change_ms() wakes for each edge.
    reference = None
    for start in (0, 77, 1000, 4095, 5000, (1 << 30) - 1000, (1 << 30) - 64):
        state, _ = answered("armure", start)
        frames = [cues.led_frame(state, ticks_add(start, ms), 1, "single")
                  for ms in range(0, cues.SAY_MS, 16)]
        reference = reference or frames
        assert frames == reference, start
        now = start
        while True:
            d = cues.next_change_ms(state, now, 1, "single")
            frame = cues.led_frame(state, now, 1, "single")
            assert all(cues.led_frame(state, ticks_add(now, t), 1, "single") == frame
                       for t in range(0, d, 16)), (start, now)
            now = ticks_add(now, d)
            if cues.look(state, now) != "armure":
                assert ticks_diff(now, start) == cues.SAY_MS
                break
            assert cues.led_frame(state, now, 1, "single") != frame


def test_an_answer_shows_through_a_mitraille_and_ends_with_the_next_change():
    state, _ = answered("armure")
    state = act(state, parse_action("coup"), 100)[0]   # C2: ignored
    assert state.said == "-" and cues.look(state, 1000) == "armure"      # still to say
    for line, at in (("coup blesse", 1000), ("soin", 1000), ("effet dissipe", 1000)):
        after = act(answered("armure")[0], parse_action(line), at)[0]
        assert cues.look(after, at) != "armure", line   # the new look, at once
    kept = act(answered("armure")[0], parse_action("effet peur"), 1000)[0]
    assert cues.look(kept, 1000) == "armure"    # the same look: the answer goes on
    again = act(kept, parse_action("coup"), 2000)[0]   # the armor spent: wounded
    assert again.etat == 1 and cues.look(again, 2000) == "blesse"


def test_an_answer_in_coma_shows_nothing_in_public():
    # S7: what a body in coma is asked to say is the wearer's alone (the peek says it).
    coma = play([(0, "coup coma")])[0]
    coma.character = Character(resist=["peur"])
    resisted, heard = act(coma, parse_action("effet peur"), 1000)
    assert resisted.said == "resiste" and ("dit", "resiste", True) in [c[1:] for c in heard]
    assert saying(resisted, 1000) is None
    for n, layout in LAYOUTS:
        for now in range(1000, 1000 + cues.SAY_MS, STEP):
            assert cues.led_frame(resisted, now, n, layout) == cues.led_frame(coma, now, n,
                                                                             layout)
    assert texts.screen_lines(resisted, 1000) == texts.screen_lines(coma, 1000) == ["Inerte"]
    assert "Dis: RESISTE" in texts.screen_lines(resisted, 1000, private=True)


@pytest.mark.parametrize("lang, line", [("fr", "Dis: ARMURE"), ("en", "Say: ARMOR")])
def test_a_screen_shows_the_answer_while_the_leds_do(lang, line):
    state, _ = answered("armure")
    assert texts.screen_lines(state, 0, lang)[1] == line
    assert texts.screen_lines(state, cues.SAY_MS - 1, lang)[1] == line
    assert texts._say_left_ms(state, 1000) == cues.SAY_MS - 1000
    assert len(texts.screen_lines(state, cues.SAY_MS, lang)) == 1
    assert texts._say_left_ms(state, cues.SAY_MS) is None
    assert texts.screen_lines(state, cues.SAY_MS, lang, private=True)[1] == line   # peek


def test_every_look_has_one_number_and_a_hit_s_looks_come_first():
    # frame_code() numbers a look by its place in _LOOK_NAMES, found by a search on a
    # hit's path: each look once, those a hit leads to first.
    assert sorted(cues._LOOK_NAMES) == sorted(cues._LOOKS)
    hit_looks = set(PUBLIC_LOOK[1:]) | set(cues.SAYS)
    assert set(cues._LOOK_NAMES[:len(hit_looks)]) == hit_looks


def test_code_names_a_cue_kind_by_its_constant_never_by_its_word():
    # One name for a kind (cran.core.vocab's CUE_*): a comparison with a word would
    # miss a kind renamed, or match a value spelled the same ("armure" is both).
    sources = []
    for top in ("firmware/cran", "host_tools"):
        for folder, _, files in os.walk(os.path.join(REPO, top)):
            sources += [os.path.join(folder, f) for f in files if f.endswith(".py")]
    words = "[\"'](%s)[\"']" % "|".join(CUE_KINDS)
    # A comparison (kind == "dit", c[0] == "dit"), or a cue made ((now, "vu", ...)).
    compared = re.compile(r"(\bkind\"?\]?|\[0\]) *[!=]= *%s|[(\[]\(\w+, %s, " % (words, words))
    found = ["%s:%d" % (os.path.relpath(path, REPO), n)
             for path in sources for n, line in enumerate(open(path, encoding="utf-8"), 1)
             if compared.search(line) and not line.lstrip().startswith("#")]
    assert found == []


def test_every_cue_the_engine_gives_has_a_kind_the_journal_can_write():
    kinds = set()
    for path in scenario_files():
        for event in scenario.run(scenario.parse(open(path, encoding="utf-8").read())):
            if event[0] != "expect":   # ["timer", t, cues, view], ["act", ..., cues, view]
                kinds |= set(kind for kind, _, _ in event[-2])
    assert kinds <= set(CUE_KINDS) and len(kinds) >= 15
