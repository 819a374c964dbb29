# `cran logs`: a badge's journal read (host_tools/debrief/journal.py), as a timeline (timeline.py)
# and drawn (timeline_svg.py), and the command
# (host_tools/commands/logs.py). Journals come from the real firmware: tests/data/ samples
# made by the badge app on virtual hardware, and small ones from cran.badge.Badge here.
import json
import os
import subprocess
import sys
import time
import xml.etree.ElementTree as ET

import pytest
from PIL import Image

import cran
import host_tools.device
from conftest import REPO, SCENARIO_DIR, overlapping, run_cran, svg_size, text_boxes
from cran.badge import Badge
from cran.console import status as console_status
from cran.core.rules import Character, Settings
from cran.core.view import FIELDS
from cran.core.words import parse_action
from cran.start.restore import boot
from cran.storage import Journal, StateStore
from gamefiles import scenario
from host_tools import cli
from host_tools.debrief import journal, timeline, timeline_svg
from host_tools.device import badgeport
from host_tools.game import times

DATA = os.path.join(REPO, "tests", "data")
GODEFROY = os.path.join(DATA, "journal-godefroy.jsonl")
LONG = os.path.join(DATA, "journal-long.jsonl")
# The same fights as journaled before the journal said the state (version 1), and the
# rules each one plays.
FIGHTS = {"godefroy": "a1-a4-s3-s4", "long": "a5-k1-k3-k8-k9-k12-k16-s8",
          "rules": "a4-k7-k13-k15-p2-p3-s6"}
GODEFROY_CONFIG = {"board": "atom-lite", "character": {"name": "Godefroy", "armor": "metal"}}
EPOCH_S = 1751104800
SVG = "{http://www.w3.org/2000/svg}"


def lines_of(path):
    with open(path, encoding="utf-8") as f:
        return f.read().splitlines()


def build(lines, config=None, source="journal"):
    entries, problems = journal.parse_lines(lines, source)
    assert problems == []
    return timeline.build(entries, config, source)


def spans(tl, lane):
    return [(s.value, s.start, s.end) for s in tl.spans if s.lane == lane]


def badge_journal(tmp_path, steps, character=None, wall_s=EPOCH_S):
    """A journal written by the firmware's own Badge: steps are (ms, action words),
    (ms, "tick") or (ms, "undo") taking back the action before. -> (lines, badge)."""
    journal = Journal(str(tmp_path))
    badge = Badge(character or Character(), Settings(), None, journal, "atom-lite")
    boot(badge, 0, "power-on", wall_s)
    for ms, words in steps:
        if words == "tick":
            badge.tick(ms)
        elif words == "undo":
            assert badge.undo(ms), (ms, "nothing to take back")
        else:
            badge.apply(parse_action(words), ms, undoable=True)
    return [json.dumps(e) for e in journal.entries()], badge


# ---- the samples ------------------------------------------------------------------------

def test_the_samples_are_what_the_firmware_journals_today(tmp_path):
    subprocess.run([sys.executable, os.path.join(DATA, "make_journals.py"), str(tmp_path)],
                   check=True, capture_output=True, timeout=60)
    for name in ("journal-godefroy.jsonl", "journal-long.jsonl", "journal-rules.jsonl"):
        assert (tmp_path / name).read_text() == open(os.path.join(DATA, name)).read(), (
            "%s is stale: run tests/data/make_journals.py" % name)


@pytest.mark.parametrize("fight", sorted(FIGHTS), ids=["%s-%s" % (f, FIGHTS[f])
                                                         for f in sorted(FIGHTS)])
def test_an_old_journal_and_a_new_one_of_the_same_fight_draw_alike(fight):
    # The old one's state is worked out from its cues (host_tools/debrief/journal.py's
    # version 1); the new one says it. The same fight: the same picture, the same text.
    old = build(lines_of(os.path.join(DATA, "journal-%s-v1.jsonl" % fight)))
    new = build(lines_of(os.path.join(DATA, "journal-%s.jsonl" % fight)))
    for scale in timeline_svg.SCALES:
        assert timeline_svg.svg(new, "j", scale) == timeline_svg.svg(old, "j", scale)
    assert timeline.text_lines(new) == timeline.text_lines(old)
    assert len(new.spans) >= 5 and len(new.markers) >= 5   # something was drawn


def test_the_old_samples_are_version_1_and_the_new_ones_version_2():
    for fight in FIGHTS:
        old = [json.loads(line) for line in lines_of(
            os.path.join(DATA, "journal-%s-v1.jsonl" % fight))]
        new = [json.loads(line) for line in lines_of(
            os.path.join(DATA, "journal-%s.jsonl" % fight))]
        assert [e for e in old if "s" in e] == [] and len(old) == len(new)
        said = [e for e in new if set(e) & {"boot", "a", "timer", "undo"}]
        assert said and [e for e in said if "s" not in e or "etat" in e] == []


def test_godefroy_states_are_the_scenarios():
    tl = build(lines_of(GODEFROY), GODEFROY_CONFIG)
    # The badge was switched on 1 s before the fight's 0:00 (make_journals.py).
    assert spans(tl, "etat") == [("pleine-forme", 0, 3000), ("blesse", 3000, 5000),
                                 ("agonisant", 5000, 305000), ("coma", 305000, 605000),
                                 ("mort", 605000, None)]
    # The same changes, at the same moments, as the bare engine playing the scenario.
    with open(os.path.join(SCENARIO_DIR, "exemple-godefroy.txt"), encoding="utf-8") as f:
        events = scenario.run(scenario.parse(f.read()))
    changes = []
    etat = "pleine-forme"
    for event in events:
        if event[0] == "expect":
            continue
        at, seen = (event[1], event[3]) if event[0] == "timer" else (event[2], event[5])
        now = dict(zip(FIELDS, seen))["etat"]
        if now != etat:
            changes.append((now, at + 1000))
            etat = now
    assert changes == [(value, start) for value, start, _ in spans(tl, "etat")[1:]]
    assert spans(tl, "armure") == [("2/2", 0, 1000), ("1/2", 1000, 3000),
                                   ("abimee", 3000, None)]
    assert tl.name == "Godefroy" and tl.board == "atom-lite" and tl.start_wall == EPOCH_S


def test_godefroy_markers():
    tl = build(lines_of(GODEFROY))
    marks = [(m.kind, m.label, m.at) for m in tl.markers]
    assert marks == [("boot", "boot 0.1.0 (power-on)", 0),
                     ("note", "fresh start: no state saved yet", 0),
                     ("answer", "coup normal «Armure»", 1000),
                     ("action", "coup blesse", 3000),
                     ("action", "coup normal", 5000)]
    # Without the config, the boot entry tells the armor's count.
    assert spans(tl, "armure") == [("2/2", 0, 1000), ("1/2", 1000, 3000),
                                   ("abimee", 3000, None)]


def test_a_long_day_with_an_undo_a_dissipe_and_a_power_cut():
    tl = build(lines_of(LONG))
    boots = [m.at for m in tl.markers if m.kind == "boot"]
    # The power cut: the second boot is where the wall clock puts it, 3:03 after the
    # undo (the badge ran on quietly for 64 s, then was off for 2 minutes).
    assert boots == [0, 245000] and not tl.chained
    assert [e.note for e in tl.entries if e.kind == "boot"][1] == (
        "power-on, 3:03 after the entry before")
    assert spans(tl, "effet douleur") == [("douleur", 45000, 60450),
                                          ("douleur", 61200, 265000)]   # undone hit
    assert spans(tl, "effet aveugle") == [("aveugle", 676000, 680000)]  # dissipated
    assert spans(tl, "effet paralyse") == [("paralyse", 20000, 30000)]  # K1 by a wound
    assert spans(tl, "jeu") == [("hors-jeu", 365000, 445000)]
    assert [value for value, _, _ in spans(tl, "etat")] == [
        "pleine-forme", "blesse", "agonisant", "blesse", "agonisant", "blesse"]
    assert [m.label for m in tl.markers if m.kind == "answer"] == [
        "coup normal «Armure»", "effet peur «Résiste»", "coup assomme «Résiste»",
        "coup normal «Armure»"]
    assert [m.kind for m in tl.markers].count("undo") == 1
    assert tl.lanes[:4] == ["etat", "armure", "combat", "jeu"]


def test_without_wall_clock_a_boot_follows_the_entry_before():
    lines = [json.dumps(dict((k, v) for k, v in json.loads(line).items() if k != "t"))
             for line in lines_of(LONG)]
    tl = build(lines)
    assert tl.chained and tl.start_wall is None
    boot = [e for e in tl.entries if e.kind == "boot"][1]
    assert boot.at == 61200 and "time off unknown" in boot.note
    # The boot right after the undo, the next hit 20 s of uptime later: what the badge
    # did quietly before its power went (64 s here) no entry tells, so it is not drawn.
    assert spans(tl, "effet douleur")[1] == ("douleur", 61200, 81200)


def test_a_wall_clock_going_back_is_overruled_and_said():
    lines = ['{"boot": "0.1.0", "up": 0, "t": 2000000000}',
             '{"a": "coup normal", "c": [["etat", "blesse"]], "etat": "blesse", "up": 5000, '
             '"t": 2000000005}',
             '{"boot": "0.1.0", "up": 0, "t": 1000000000}',
             '{"a": "soin", "c": [["etat", "pleine-forme"]], "etat": "pleine-forme", '
             '"up": 1000, "t": 1000000001}']
    tl = build(lines, source="j")
    assert tl.problems == ["j:3: the wall clock goes back here: placed right after the "
                           "entry before"]
    assert [e.at for e in tl.entries] == [0, 5000, 5000, 6000]


def test_a_journal_that_starts_mid_game():
    # Rotation dropped the oldest half: no boot, uptime already large, the state told
    # by the first entry that names it without changing it.
    lines = ['{"a": "effet peur", "c": [["effet", "peur"]], "etat": "blesse", "up": 90000}',
             '{"timer": [["fin", "peur"]], "etat": "blesse", "up": 390000}']
    tl = build(lines)
    assert spans(tl, "etat") == [("blesse", 0, None)]
    assert spans(tl, "effet peur") == [("peur", 0, 300000)]


def _last(tl, lane):
    found = [s.value for s in tl.spans if s.lane == lane and s.end is None]
    return found[0] if found else None


@pytest.mark.parametrize("steps, character", [
    ([(0, "effet paralyse"), (10000, "effet peur"), (12000, "effet dissipe")], None),
    ([(0, "coup"), (1000, "coup"), (2000, "undo"), (400000, "tick")], Character(armor=1)),
    ([(0, "coup peur"), (1000, "stop"), (200000, "reprise"), (500000, "tick")], None),
    ([(0, "coup agonisant"), (1000, "effet aveugle"), (300000, "coup mort")], None),
    ([(0, "coup desarme epee"), (5000, "coup vol bourse"), (200000, "coup brise bras"),
      (400000, "tick")], None),
    ([(0, "coup brise armure"), (5000, "coup"), (6000, "repare armure"), (7000, "coup"),
      (320000, "tick")], Character(armor=2)),
    ([(0, "coup blesse"), (2000, "effet peur"), (3000, "reset"), (4000, "hors-jeu")],
     Character(armor=2)),
    ([(0, "effet peur"), (1000, "coup assomme"), (2000, "effet charme divin")],
     Character(helmet=True, resist=["peur", "charme"], armor=1)),
])
def test_the_timeline_ends_where_the_badge_is(tmp_path, steps, character):
    """What the journal is read to say at its end is what the badge's status says."""
    from cran.core.choices import as_dict
    lines, badge = badge_journal(tmp_path, steps, character)
    config = {"character": as_dict(character or Character())}
    tl = build(lines, config)
    status = console_status(badge, steps[-1][0])
    assert _last(tl, "etat") == status["etat"]
    effects = sorted(s.value for s in tl.spans if s.lane.startswith("effet ") and s.end is None)
    assert effects == sorted(status["effets"])
    assert (_last(tl, "jeu") or "en-jeu") == status["jeu"]
    assert (_last(tl, "combat") is not None) == status["combat"]
    armor = _last(tl, "armure")
    if badge.character.armor:
        assert armor == ("abimee" if status["armure-abimee"] else
                         "%d/%d" % (status["armure"], badge.character.armor))
    assert sorted(lane[6:] for lane in tl.lanes if lane.startswith("brise ")
                  and _last(tl, lane)) == status["brises"]


# ---- bad lines -----------------------------------------------------------------------

def test_bad_lines_are_named_and_skipped():
    lines = ['{"boot": "0.1.0", "up": 0}',
             '{"a": "coup normal", "c": [["etat", "bl',           # torn by a power cut
             '',
             '[1, 2]',
             '{"a": "coup normal", "c": [["etat", "blesse"]], "etat": "blesse"}',
             '{"a": "coup", "c": "etat", "etat": "blesse", "up": 5}',
             '{"a": "coup", "c": [], "etat": "fine", "up": 5}',
             '{"a": "coup", "c": [], "etat": "blesse", "up": 5, "t": "noon"}',
             '\ufffd\ufffd',
             '{"a": "coup normal", "c": [["etat", "blesse"]], "etat": "blesse", "up": 9}']
    entries, problems = journal.parse_lines(lines, "j")
    assert problems == ["j:2: unreadable, skipped (not JSON)",
                        "j:4: unreadable, skipped (not a JSON object)",
                        "j:5: unreadable, skipped (no uptime \"up\" in whole ms)",
                        "j:6: unreadable, skipped (cues are not [kind, value] pairs)",
                        "j:7: unreadable, skipped (unknown etat 'fine')",
                        "j:8: unreadable, skipped (bad wall clock \"t\")",
                        "j:9: unreadable, skipped (not JSON)"]
    assert [e.line for e in entries] == [1, 10]
    tl = timeline.build(entries)
    assert spans(tl, "etat") == [("?", 0, 9), ("blesse", 9, None)]


def test_a_new_journal_with_a_bad_state_or_an_unknown_code_is_named():
    boot = '{"boot": "0.2.0", "armor": 2, "s": [0, 2, 0, 0, 0], "up": 0}'
    lines = [boot,
             '{"a": "coup normal", "c": [[3, "armure"]], "s": [0, 1, 0, 0, 8], "up": 1}',
             '{"a": "coup", "c": [], "s": [9, 1, 0, 0, 8], "up": 2}',
             '{"a": "coup", "c": [], "s": [0, 1, 0, 0], "up": 3}',
             '{"a": "coup", "c": [], "s": [0, 1, 0, 7, 8], "up": 4}',
             '{"a": "coup", "c": [], "s": [0, 1, 0, 0, 999999], "up": 5}',
             '{"a": "coup", "c": [[true, "x"]], "s": [0, 1, 0, 0, 8], "up": 6}',
             '{"a": "coup", "c": [[99, "neuf"]], "s": [1, 1, 0, 0, 8, 5], "up": 7}',
             '{"a": "coup", "c": [[99, "neuf"]], "s": [1, 1, 0, 0, 8], "up": 8}',
             '{"error": "something new", "e": 42, "up": 9}']
    entries, problems = journal.parse_lines(lines, "j")
    assert problems == [
        "j:3: unreadable, skipped (state \"s\": unknown etat code 9)",
        "j:4: unreadable, skipped (state \"s\" is not [etat, answers, damaged, jeu, "
        "timers, broken...])",
        "j:5: unreadable, skipped (state \"s\": unknown jeu code 7)",
        "j:6: unreadable, skipped (state \"s\": unknown timers 999999)",
        "j:7: unreadable, skipped (cues are not [kind, value] pairs)",
        "j:8: unreadable, skipped (state \"s\": a broken target is not text)",
        "j:9: cue kind code 99 is not one this cran knows (a newer firmware's?): shown "
        "as ?99",
        "j:10: error code 42 is not one this cran knows (a newer firmware's?): shown as "
        "its words"]
    tl = timeline.build(entries)
    assert [e.line for e in entries] == [1, 2, 9, 10]
    assert spans(tl, "etat") == [("pleine-forme", 0, 8), ("blesse", 8, None)]
    assert [(m.kind, m.label) for m in tl.markers][-1] == ("error", "error: something new")


def test_a_journal_of_both_versions_goes_on_across_the_reflash_a3():
    # Version 1 until a reflash, version 2 after: the lanes go on, each entry read as
    # its version wrote it.
    lines = ['{"boot": "0.1.0", "armor": 2, "up": 0, "t": %d}' % EPOCH_S,
             '{"a": "coup normal", "c": [["combat", "debut"], ["dit", "armure"]], '
             '"etat": "pleine-forme", "up": 1000, "t": %d}' % (EPOCH_S + 1),
             '{"boot": "0.2.0", "armor": 2, "s": [0, 1, 0, 0, 8], "up": 0, "t": %d}'
             % (EPOCH_S + 60),
             '{"timer": [[10, "fin"], [9, "rechargee"]], "s": [0, 2, 0, 0, 0], '
             '"up": 240000, "t": %d}' % (EPOCH_S + 300)]
    tl = build(lines)
    assert spans(tl, "armure") == [("2/2", 0, 1000), ("1/2", 1000, 300000),
                                   ("2/2", 300000, None)]
    assert spans(tl, "combat") == [("combat", 1000, 300000)]
    assert [m.kind for m in tl.markers] == ["boot", "answer", "boot", "config"]


def test_a_new_character_over_the_radio_counts_its_own_armor():
    # The game master's reset to a new character (cran.recast): armor 2 (metal) until
    # it, cuir's 1 after it, and the name the timeline gives is the new one.
    lines = ['{"boot": "0.1.0", "name": "Godefroy", "armor": 2, "s": [0, 2, 0, 0, 0], '
             '"up": 0, "t": %d}' % EPOCH_S,
             '{"recast": "radio", "name": "Aude", "armor": 1, "up": 5000, "t": %d}'
             % (EPOCH_S + 5),
             '{"a": "reset", "c": [[16, "-"], [1, "debout"]], "s": [0, 1, 0, 0, 0], '
             '"up": 5000, "t": %d}' % (EPOCH_S + 5)]
    tl = build(lines)
    assert spans(tl, "armure") == [("2/2", 0, 5000), ("1/1", 5000, None)]
    assert tl.name == "Aude"
    assert (tl.markers[1].kind, tl.markers[1].label) == (
        "config", "new character over the radio: Aude, armor 1")


def test_light_sleep_and_radio_notes_are_said_in_words():
    tl = build(['{"boot": "0.1.0", "up": 0}',
                '{"light_sleep": "off: woken 50 times with no press", "up": 10}',
                '{"radio": "offer", "value": "soin", "up": 20}',
                '{"radio": "offered", "value": "4e4e4e4e4e4e", "up": 30}',
                '{"radio": "offered", "value": null, "up": 40}'])
    assert [m.label for m in tl.markers[1:]] == [
        "light sleep off: woken 50 times with no press",
        "radio: soin offered to the wearer (a long press takes it)",
        "radio: this badge's offer made to badge 4e4e4e4e4e4e",
        "radio: this badge's offer made to nobody near enough"]


def test_an_unknown_entry_is_kept_and_shown():
    tl = build(['{"boot": "0.1.0", "up": 0}', '{"radio": "hello", "up": 10}'])
    assert [(m.kind, m.label) for m in tl.markers][-1] == (
        "note", '{"radio": "hello", "up": 10}')


# ---- the picture --------------------------------------------------------------------------

def test_the_svg_is_well_formed_with_every_lane_span_and_marker():
    tl = build(lines_of(LONG))
    text = timeline_svg.svg(tl, "long")
    assert text == timeline_svg.svg(build(lines_of(LONG)), "long")    # the same bytes
    root = ET.fromstring(text)
    lanes = [g.get("data-lane") for g in root.iter(SVG + "g") if g.get("class") == "lane"]
    assert lanes == tl.lanes
    assert "effet douleur" in lanes and "jeu" in lanes
    drawn = [(g.get("data-value"), int(g.get("data-start-ms")))
             for g in root.iter(SVG + "g") if g.get("class") == "span"]
    assert sorted(drawn) == sorted((s.value, s.start) for s in tl.spans)
    # Not colour alone: every span says what it is, in its text or at least its title.
    for g in root.iter(SVG + "g"):
        if g.get("class") == "span":
            assert g.find(SVG + "title").text.split(": ")[0].endswith(g.get("data-value"))
    etat_texts = [t.text for t in root.iter(SVG + "text")]
    assert "pleine-forme 0:30" in etat_texts and "blesse 10:55+" in etat_texts
    kinds = [g.get("class") for g in root.iter(SVG + "g")
             if (g.get("class") or "").startswith("marker ")]
    assert kinds.count("marker answer") == 4 and kinds.count("marker boot") == 2
    assert kinds.count("marker undo") == 1 and "marker action" in kinds
    legend, = [g for g in root.iter(SVG + "g") if g.get("class") == "legend"]
    # Every kind of marker the picture draws is in its legend, in its colour.
    shown = ET.tostring(legend).decode()
    assert [k for k, c in timeline_svg.MARKER_COLOURS.items() if c not in shown] == []
    assert "a note (a radio offer, light sleep...): its words above" in [
        t.text for t in legend.iter(SVG + "text")]
    assert len([t for t in etat_texts if t and t.startswith("boot 0.1.0")]) == 2


def test_the_svg_names_the_character_and_lists_errors():
    lines = lines_of(GODEFROY) + ['{"error": "show loop: boom", "up": 606000}']
    root = ET.fromstring(timeline_svg.svg(build(lines, GODEFROY_CONFIG), "g"))
    texts = [t.text for t in root.iter(SVG + "text")]
    assert "Journal: Godefroy (atom-lite)" in texts
    assert "10:06  error: show loop: boom" in texts


def test_the_scale_keeps_order_and_opens_up_bursts():
    scale = timeline_svg._Scale([0, 1000, 3000, 5000, 305000, 605000], 100, 800)
    xs = [scale.x(t) for t in (0, 1000, 3000, 5000, 305000, 605000)]
    assert xs == sorted(xs) and xs[0] == 100 and abs(xs[-1] - 900) < 1e-6
    assert xs[3] - xs[0] > 100          # the three blows of the fight get room


def ink_columns(image, top, bottom, below=128):
    """The x of every column with a dark pixel between rows top and bottom."""
    pixels = image.load()
    rows = range(max(0, int(top)), min(image.size[1], int(bottom) + 1))
    return [x for x in range(image.size[0]) if [y for y in rows if pixels[x, y] < below]]


# A day of a badge, written by the firmware's own Badge: fights in bursts (five blows in
# two seconds), long targets, two boots after the first, one with a new config (name and
# armor) and one with a new firmware; the last blow right at the end, its label long.
DAY = [
    # (seconds into the day, action words), or a boot: ("boot", cause, Character, version)
    ("boot", "power-on", Character(name="Godefroy", armor=1), "0.1.0"),
    (60, "coup"), (60.4, "coup"), (60.9, "effet peur"), (61.3, "coup assomme"),
    (61.8, "coup brise bras-gauche-du-chevalier"), (62.2, "effet douleur"),
    (70, "coup desarme epee-a-deux-mains-longue"), (75, "coup vol bourse-de-cuir-brodee"),
    (400, "soin"), (410, "repare armure"), (900, "hors-jeu"), (960, "en-jeu"),
    ("boot", "hard", Character(name="Godefroy le Hardi de Montfaucon", armor=2), "0.1.0"),
    (1300, "coup"), (1300.5, "coup"), (1301, "coup"), (1301.5, "coup"), (1302, "coup"),
    (1302.5, "effet paralyse"), (1310, "effet aveugle"), (1311, "effet dissipe"),
    ("boot", "soft", Character(name="Godefroy le Hardi de Montfaucon", armor=2), "0.2.0"),
    (2400, "coup"), (2400.3, "effet charme"), (2400.6, "coup blesse"), (2401, "effet peur"),
    (2401.2, "coup brise jambe-droite-du-seigneur"), (2401.5, "coup agonisant"),
    (2402, "coup desarme epee-a-deux-mains-longue"),
]


def day_journal(tmp_path, monkeypatch, steps=DAY, start_s=EPOCH_S):
    """The journal lines of a badge living `steps`, each boot a new Badge on the same
    flash folder (its uptime from 0), its wall clock set as cran flash sets it."""
    os.makedirs(str(tmp_path), exist_ok=True)
    journal = Journal(str(tmp_path))
    badge = booted_s = None
    for step in steps:
        if step[0] == "boot":
            _, cause, character, version = step
            monkeypatch.setattr(cran, "VERSION", version)
            booted_s = steps[steps.index(step) + 1][0] - 30
            badge = Badge(character, Settings(), StateStore(str(tmp_path)), journal,
                          "atom-lite")
            boot(badge, 0, cause, start_s + booted_s)
            continue
        at_s, words = step
        badge.apply(parse_action(words), int((at_s - booted_s) * 1000))
    return [json.dumps(e) for e in journal.entries()]


def check_layout(svg_text):
    """No text over another, none past the picture's edges, no marker's line through a
    text. -> the text boxes."""
    width, height = svg_size(svg_text)
    boxes = text_boxes(svg_text)
    assert overlapping(boxes) == []
    outside = [b for b in boxes if b.left < 0 or b.right > width or b.top < 0
               or b.bottom > height]
    assert outside == []
    root = ET.fromstring(svg_text)
    lines = [line for g in root.iter(SVG + "g") if (g.get("class") or "").startswith("marker ")
             for line in g.iter(SVG + "line")]
    assert lines
    for line in lines:
        x, y1, y2 = float(line.get("x1")), float(line.get("y1")), float(line.get("y2"))
        crossed = [b for b in boxes if b.left < x < b.right and b.top < y2 and y1 < b.bottom]
        assert crossed == [], "the line at x %.1f crosses %s" % (x, crossed)
    return boxes


@pytest.mark.parametrize("scale", timeline_svg.SCALES)
def test_a_dense_day_is_drawn_with_no_text_over_another(tmp_path, monkeypatch, scale):
    tl = build(day_journal(tmp_path, monkeypatch))
    text = timeline_svg.svg(tl, "day", scale)
    texts = [b.text for b in check_layout(text)]
    # Every marker has its label, whole (none here is past MAX_LABEL_W), in letters the
    # font has: a missing one is drawn as an empty box.
    root = ET.fromstring(text)
    drawn = [t.text for g in root.iter(SVG + "g") if (g.get("class") or "").startswith(
        "marker ") for t in g.iter(SVG + "text")]
    assert drawn == [m.label.replace("coup normal", "coup") for m in tl.markers]
    assert font_lacks("".join(texts)) == ""
    assert [m.label for m in tl.markers if m.kind == "config"] == [
        "new config: name Godefroy -> Godefroy le Hardi de Mo…, armor 1 -> 2",
        "reflashed: firmware 0.1.0 -> 0.2.0"]
    root = ET.fromstring(text)
    assert len([g for g in root.iter(SVG + "line") if g.get("class") == "config-line"]) == 2
    boots = [line for line in timeline.text_lines(tl) if "  boot 0." in line]
    assert boots[2].rstrip().endswith("; firmware 0.1.0 -> 0.2.0")


def axis_texts(svg_text):
    root = ET.fromstring(svg_text)
    axis = [g for g in root.iter(SVG + "g") if g.get("class") == "axis"][0]
    return [t.text for t in axis.iter(SVG + "text")]


def test_the_axis_is_on_the_wall_clock_when_the_journal_tells_it(monkeypatch):
    monkeypatch.setenv("TZ", "Europe/Paris")
    time.tzset()
    try:
        with_clock = axis_texts(timeline_svg.svg(build(lines_of(GODEFROY)), "g"))
        linear = axis_texts(timeline_svg.svg(build(lines_of(GODEFROY)), "g", "linear"))
    finally:
        monkeypatch.delenv("TZ")
        time.tzset()
    # The badge came on at 12:00:00 in Paris (10:00 UTC); blows at 12:00:01, :03, :05,
    # then coma and mort: each moment's time, where it has room.
    moments = ["12:00:00", "12:00:01", "12:00:03", "12:00:05", "12:05:05", "12:10:05"]
    assert with_clock[-1] == "time" and with_clock[0] == "12:00:00"
    assert [t for t in moments if t in with_clock] == with_clock[:-1]
    assert with_clock[-2] == "12:10:05" and len(with_clock) >= 5
    # Straight: ticks a round minute apart on the wall clock.
    assert linear == ["12:%02d:00" % m for m in range(11)] + ["time"]
    no_clock = [json.dumps(dict((k, v) for k, v in json.loads(line).items() if k != "t"))
                for line in lines_of(GODEFROY)]
    relative = axis_texts(timeline_svg.svg(build(no_clock), "g"))
    assert relative[0] == "0:00" and relative[-2:] == ["10:05", "m:ss"]


def test_the_linear_scale_is_straight():
    tl = build(lines_of(GODEFROY))
    root = ET.fromstring(timeline_svg.svg(tl, "g", "linear"))
    xs = dict((int(g.get("data-start-ms")), float(g.find(SVG + "rect").get("x")))
              for g in root.iter(SVG + "g") if g.get("class") == "span")
    # pleine-forme 0 s, blesse 3 s (after 1 s of uptime), agonisant 5 s, coma 305 s.
    per_ms = (xs[605000] - xs[0]) / 605000
    for ms in (1000, 3000, 5000, 305000):
        assert abs(xs[ms] - (xs[0] + per_ms * ms)) <= 0.1     # as the SVG rounds
    assert xs[3000] - xs[1000] < 3      # where the stretched scale opens up a fight


def font_lacks(text):
    """The characters of text the pictures' font has no glyph for."""
    from fontTools.ttLib import TTFont

    from host_tools.paper import picture
    cmap = TTFont(picture.font_file()).getBestCmap()
    return "".join(sorted(set(c for c in text if ord(c) not in cmap)))


def test_the_armor_lane_is_the_badges_own_count_of_each_boots_armor(tmp_path, monkeypatch):
    tl = build(day_journal(tmp_path, monkeypatch))
    # Armor 1 until the new config gives 2 (A1): the badge came back with the one answer
    # its record kept, of 2, and the next combat's end gives the other back (A3). A
    # version-1 journal did not say it, and its reading guessed 2/2 there.
    assert spans(tl, "armure") == [
        ("1/1", 0, 30000), ("0/1", 30000, 30400), ("abimee", 30400, 380000),
        ("1/1", 380000, 1240000), ("1/2", 1240000, 1270000), ("0/2", 1270000, 1270500),
        ("abimee", 1270500, None)]


def test_a_long_journal_widens_the_picture_and_stays_clear():
    lines = long_journal(600)
    text = timeline_svg.svg(build(lines))
    width, _ = svg_size(text)
    assert timeline_svg.MIN_WIDTH < width <= timeline_svg.MAX_WIDTH
    check_layout(text)


def test_labels_stack_down_a_step_and_move_left_at_the_edge():
    texts = ["boot 0.1.0 (power-on)", "fresh start", "coup", "soin", "effet dissipe"]
    placed = timeline_svg.place_labels(list(zip([100, 100, 130, 400, 990], texts)), 1000)
    assert [row for _, row in placed] == [0, 1, 2, 0, 0]
    x, _ = placed[-1]
    assert x + timeline_svg.text_width("effet dissipe", timeline_svg.LABEL_SIZE) == 1000
    # Two markers a pixel apart: the second label starts past the first one's line.
    (x1, _), (x2, _) = timeline_svg.place_labels([(200, "coup"), (201, "coup")], 1000)
    assert x1 == 196 and x2 == 200 + timeline_svg.LINE_GAP


def test_labels_at_the_end_widen_the_picture_rather_than_be_cut():
    # The last blows of the day, a second apart on a straight axis over 40 minutes:
    # their labels cannot all move left of the edge, so the picture grows to hold them.
    lines = ['{"boot": "0.1.0", "up": 0, "t": %d}' % EPOCH_S] + [
        json.dumps({"a": "coup desarme epee-a-deux-mains-longue", "c": [["effet", "desarme"]],
                    "etat": "pleine-forme", "up": up, "t": EPOCH_S + up // 1000})
        for up in (2400000, 2401000, 2402000)]
    text = timeline_svg.svg(build(lines), "j", "linear")
    width, _ = svg_size(text)
    boxes = check_layout(text)
    assert width > timeline_svg.MIN_WIDTH
    assert [b.text for b in boxes].count("coup desarme epee-a-deux-mains-longue") == 3


def long_journal(n):
    """n journal lines: the long sample again and again, its wall clock moving on, each
    round breaking a limb of its own (one lane more each time)."""
    sample = [json.loads(line) for line in lines_of(LONG)]
    span_s = sample[-1]["t"] - sample[0]["t"] + 60
    out = []
    rounds = 0
    while len(out) < n:
        for raw in sample[:n - len(out)]:
            raw = dict(raw, t=raw["t"] + rounds * span_s)
            out.append(json.dumps(raw))
        out.append(json.dumps({"a": "coup brise membre-%d" % rounds,
                               "c": [["brise", "membre-%d" % rounds]], "etat": "blesse",
                               "up": sample[-1]["up"] + 1000,
                               "t": sample[-1]["t"] + rounds * span_s + 1}))
        rounds += 1
    return out[:n]


class _TooMuch(Exception):
    pass


def lines_run(lines, budget=None, paths=None):
    """Lines of host_tools/debrief/journal.py, timeline.py and timeline_svg.py (or of
    `paths`) executed to read, place, print and draw a journal: their work, counted the
    same on any machine under any load (a clock would not be). Past `budget` it stops
    with _TooMuch: a quadratic run would take minutes here."""
    count = [0]
    paths = paths or (journal.__file__, timeline.__file__, timeline_svg.__file__)

    def local(frame, event, arg):
        if event == "line":
            count[0] += 1
            if budget is not None and count[0] > budget:
                raise _TooMuch()
        return local

    def calls(frame, event, arg):
        return local if frame.f_code.co_filename in paths else None

    sys.settrace(calls)
    try:
        entries, problems = journal.parse_lines(lines)
        assert problems == []
        tl = timeline.build(entries)
        timeline.text_lines(tl)
        timeline.as_json(tl)
        timeline_svg.svg(tl)
    finally:
        sys.settrace(None)
    return count[0]


def test_cran_logs_work_grows_linearly_with_the_journal():
    # 20,000 entries once took 15-50 s (every marker looked through every moment of the
    # time axis and every row of labels): now ~2 s. Eight times the entries must cost
    # about eight times the work, not sixty-four.
    small = lines_run(long_journal(250))
    try:
        lines_run(long_journal(2000), budget=10 * small)
    except _TooMuch:
        pytest.fail("8 times the entries took more than 10 times the work: quadratic again")


def test_cran_logs_work_grows_linearly_with_a_label_s_length():
    # A label cut to fit the picture was measured again from its start at each
    # character cut (host_tools.paper.picture.fit): a 10 KB label took 4.5 s, 100 KB
    # minutes, --json too. Ten times the label must cost about ten times the measuring.
    from host_tools.paper import picture
    sample = lines_of(GODEFROY)

    def with_label(n):
        label = json.dumps({"a": "coup normal " + "x" * n, "c": [], "s": [0, 1, 0, 0, 8],
                            "up": 2000, "t": json.loads(sample[2])["t"] + 1})
        return sample[:3] + [label] + sample[3:]

    try:
        small = lines_run(with_label(10000), budget=10 ** 6, paths=(picture.__file__,))
        lines_run(with_label(100000), budget=20 * small, paths=(picture.__file__,))
    except _TooMuch:
        pytest.fail("a label's cut costs more than linear work: quadratic again")


# ---- the command ------------------------------------------------------------------------

def test_cran_logs_prints_the_timeline_and_draws_it(tmp_path):
    out = tmp_path / "debrief.svg"
    r = run_cran("logs", "--file", LONG, "--out", str(out))
    assert r.returncode == 0, r.stderr
    assert "coup normal  «Armure»" in r.stdout and "etat=agonisant" in r.stdout
    assert r.stdout.splitlines()[0].startswith(LONG + ": Nico le Besogneux, atom-lite; 23 entries")
    ET.parse(str(out))
    assert "drew %s" % out in r.stderr


def test_cran_logs_json(tmp_path, capsys):
    out = tmp_path / "g.svg"
    config = tmp_path / "b01.json"
    config.write_text(json.dumps(GODEFROY_CONFIG))
    assert cli.main(["logs", "--file", GODEFROY, "--out", str(out), "--json",
                     "--config", str(config)]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["name"] == "Godefroy" and data["end_ms"] == 605000
    assert [s["value"] for s in data["spans"] if s["lane"] == "etat"] == [
        "pleine-forme", "blesse", "agonisant", "coma", "mort"]
    assert out.exists()


def test_cran_logs_names_bad_lines_and_goes_on(tmp_path, capsys):
    journal = tmp_path / "j.jsonl"
    journal.write_bytes(open(GODEFROY, "rb").read() + b'{"a": "coup\xff\n')
    assert cli.main(["logs", "--file", str(journal), "--out", str(tmp_path / "j.svg")]) == 0
    err = capsys.readouterr().err
    assert "%s:8: unreadable, skipped (not JSON)" % journal in err   # the line after 7


@pytest.mark.parametrize("args, message", [
    (["--file", "nope.jsonl"], "cran: nope.jsonl: no such file"),
    (["--file", GODEFROY, "--out", "x.pdf"], "cran: --out x.pdf: the picture is a .svg"),
    (["--file", GODEFROY, "--save", "x.jsonl"], "cran: --save is for --port"),
    (["--file", GODEFROY, "--config", "nope.json"], "cran: nope.json: no such file"),
])
def test_cran_logs_bad_input_exits_2(tmp_path, capsys, monkeypatch, args, message):
    monkeypatch.chdir(tmp_path)
    assert cli.main(["logs"] + args) == 2
    assert capsys.readouterr().err.startswith(message)
    assert os.listdir(str(tmp_path)) == []


def test_a_journal_with_nothing_readable_exits_2(tmp_path, capsys):
    journal = tmp_path / "j.jsonl"
    journal.write_text("garbage\n")
    assert cli.main(["logs", "--file", str(journal), "--out", str(tmp_path / "j.svg")]) == 2
    err = capsys.readouterr().err
    assert "j.jsonl:1: unreadable" in err and "no readable journal entry" in err


def test_a_line_nested_past_the_json_reader_is_named_not_a_traceback(tmp_path):
    # 200,000 "[" stopped cran logs with a RecursionError (issue 13): the real command,
    # one line a fault.
    journal = tmp_path / "j.jsonl"
    journal.write_bytes(b"[" * 200000 + b"\n" + open(GODEFROY, "rb").read())
    r = run_cran("logs", "--file", str(journal), "--out", str(tmp_path / "j.svg"))
    assert r.returncode == 0, r.stderr
    assert r.stderr.splitlines()[0] == (
        "%s:1: unreadable, skipped (not JSON: nested too deep)" % journal)
    journal.write_bytes(b"[" * 200000)
    r = run_cran("logs", "--file", str(journal), "--out", str(tmp_path / "j.svg"))
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert r.stderr.splitlines() == [
        "%s:1: unreadable, skipped (not JSON: nested too deep)" % journal,
        "%s: no readable journal entry: nothing to show" % journal]


def test_without_the_png_renderer_the_svg_is_drawn_and_said(tmp_path, capsys, monkeypatch):
    # A Python the resvg-py wheel is not made for (3.9): the SVG, and how to get PNGs.
    monkeypatch.setitem(sys.modules, "resvg_py", None)
    out = tmp_path / "g.png"
    assert cli.main(["logs", "--file", GODEFROY, "--out", str(out)]) == 3
    err = capsys.readouterr().err
    assert "PNG needs the resvg-py and fontpkg-noto-sans packages" in err
    assert "drew %s instead" % (tmp_path / "g.svg") in err
    assert not out.exists() and (tmp_path / "g.svg").exists()


def test_cran_logs_draws_a_png_with_its_text(tmp_path):
    out = tmp_path / "g.png"
    assert cli.main(["logs", "--file", GODEFROY, "--out", str(out)]) == 0
    image = Image.open(str(out)).convert("L")
    svg_text = timeline_svg.svg(build(lines_of(GODEFROY)), GODEFROY)
    assert image.size == tuple(int(v) for v in svg_size(svg_text))
    # The title's letters are drawn (a machine without fonts would leave it white),
    # within the box it was laid out in.
    title = text_boxes(svg_text)[0]
    assert title.text == "Journal: Godefroy (atom-lite)"
    ink = ink_columns(image, title.top, title.bottom)
    assert len(ink) > 100 and title.left - 1 <= min(ink) and max(ink) <= title.right + 1


def test_the_default_picture_goes_in_the_current_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert cli.main(["logs", "--file", GODEFROY]) == 0
    assert os.listdir(str(tmp_path)) == ["journal-godefroy.svg"]


class FakeLink:
    """host_tools.device.badgeport as `cran logs --port` uses it: ask(port, line) -> lines."""
    first_json = staticmethod(badgeport.first_json)

    def __init__(self):
        self.asked = []

    def ask(self, port, line, again=False, keys=None):
        self.asked.append((port, line))
        if line == "journal":
            return lines_of(GODEFROY)
        return [json.dumps(GODEFROY_CONFIG)]


def test_port_pulls_the_journal_and_the_config(tmp_path, capsys, monkeypatch):
    link = FakeLink()
    monkeypatch.setitem(sys.modules, "host_tools.device.badgeport", link)
    monkeypatch.setattr(host_tools.device, "badgeport", link, raising=False)
    monkeypatch.chdir(tmp_path)
    assert cli.main(["logs", "--port", "/dev/ttyUSB0", "--save", "saved.jsonl"]) == 0
    assert link.asked == [("/dev/ttyUSB0", "journal"), ("/dev/ttyUSB0", "config")]
    assert capsys.readouterr().out.startswith("journal: Godefroy, atom-lite; 7 entries")
    assert sorted(os.listdir(str(tmp_path))) == ["journal-ttyUSB0.svg", "saved.jsonl"]
    assert lines_of(str(tmp_path / "saved.jsonl")) == lines_of(GODEFROY)


def test_port_with_a_config_file_asks_only_the_journal(tmp_path, capsys, monkeypatch):
    link = FakeLink()
    monkeypatch.setitem(sys.modules, "host_tools.device.badgeport", link)
    monkeypatch.setattr(host_tools.device, "badgeport", link, raising=False)
    config = tmp_path / "ali.json"
    config.write_text(json.dumps({"board": "atom-matrix", "character": {"name": "Ali"}}))
    assert cli.main(["logs", "--port", "COM3", "--config", str(config),
                     "--out", str(tmp_path / "a.svg")]) == 0
    assert link.asked == [("COM3", "journal")]
    assert capsys.readouterr().out.startswith("journal: Ali, atom-matrix;")


def test_port_draws_even_when_the_config_is_not_read(tmp_path, capsys, monkeypatch):
    link = FakeLink()

    def ask(port, line, again=False, keys=None):
        if line == "config":
            raise host_tools.CommandError("%s: the badge's firmware does not answer" % port)
        return FakeLink.ask(link, port, line)
    link.ask = ask
    monkeypatch.setitem(sys.modules, "host_tools.device.badgeport", link)
    monkeypatch.setattr(host_tools.device, "badgeport", link, raising=False)
    assert cli.main(["logs", "--port", "COM3", "--out", str(tmp_path / "c.svg")]) == 0
    captured = capsys.readouterr()
    assert captured.out.startswith("journal: Godefroy, atom-lite; 7 entries")
    assert "config not read (COM3: " in captured.err and (tmp_path / "c.svg").exists()


def test_older_journals_with_two_missing_copies_start_fresh_too():
    # Before the "fresh" entry, a new badge journaled its two missing state copies.
    lines = ['{"boot": "0.1.0", "cause": "power-on", "up": 0}',
             '{"error": "state.a: missing", "up": 0}', '{"error": "state.b: missing", "up": 0}',
             '{"a": "coup normal", "c": [["etat", "blesse"]], "etat": "blesse", "up": 1000}']
    entries, problems = journal.parse_lines(lines)
    tl = timeline.build(entries)
    assert not problems
    assert [(m.kind, m.label) for m in tl.markers][:2] == [
        ("boot", "boot 0.1.0 (power-on)"), ("note", "fresh start: no state saved yet")]
    assert "error" not in [m.kind for m in tl.markers]


def test_a_state_restored_from_nvs_goes_on_and_a_lost_one_is_inconnu_until_reset():
    def at(t, **entry):   # t s into the day; each boot's up counts from 0 (t = its time)
        session = max(b for b in (0, 60, 120) if b <= t)
        return json.dumps(dict(entry, up=(t - session) * 1000, t=EPOCH_S + t))
    missing = [at(t, error="state.%s: missing" % c) for t in (60, 120) for c in "ab"]
    lines = [at(0, boot="0.1.0", cause="power-on"),
             at(1, a="coup blesse", c=[["etat", "blesse"]], etat="blesse"),
             at(60, boot="0.1.0", cause="power-on"),
             at(60, restored="state restored from its copy in NVS (record 2; the flash's "
                             "newest: none)")] + missing[:2] + [
             at(120, boot="0.1.0", cause="power-on"),
             at(120, inconnu="state lost: ...")] + missing[2:] + [
             at(125, a="reset", c=[["reset", "-"], ["vu", "debout"]], etat="pleine-forme")]
    tl = build(lines)
    # Restored: the wounded badge goes on wounded (no fresh start); lost: inconnu.
    assert [value for value, _, _ in spans(tl, "etat")] == ["?", "blesse", "inconnu",
                                                           "pleine-forme"]
    kinds = [(m.kind, m.label[:20]) for m in tl.markers]
    assert ("note", "restored from NVS") in kinds
    assert ("error", "etat inconnu: state ") in kinds
    assert "fresh start" not in " ".join(m.label for m in tl.markers)


def booted(tmp_path, wall_s):
    """A badge on tmp_path's flash, its state and journal, booted (again) at wall_s."""
    badge = Badge(Character(name="Ali"), Settings(), StateStore(str(tmp_path)),
                  Journal(str(tmp_path)), "atom-lite")
    boot(badge, 0, "power-on", wall_s)
    return badge


def test_the_debrief_draws_the_state_the_badge_came_back_with_s3(tmp_path):
    # The newest record copy is damaged by a power cut's time: the badge comes back
    # from the older one, agonisant, not coma. The journal's boot says so, and the
    # timeline draws it: a version-1 journal's reading went on from the entry before.
    badge = booted(tmp_path, EPOCH_S)
    badge.apply(parse_action("coup agonisant"), 1000)
    badge.tick(301000)                                  # coma (S3)
    newest = badge.store._slots[badge.store._newest]
    with open(newest, "r+b") as f:
        f.seek(-3, 2)
        f.write(b"###")
    again = booted(tmp_path, EPOCH_S + 400)
    tl = build([json.dumps(e) for e in again.journal.entries()])
    assert [value for value, _, _ in spans(tl, "etat")] == [
        "pleine-forme", "agonisant", "coma", "agonisant"]
    assert [m.label for m in tl.markers if m.kind == "error"] == [
        "error: state.%s: crc mismatch" % newest[-1]]


def test_a_lost_state_is_inconnu_until_an_organisers_reset_in_a_new_journal_p3(tmp_path):
    badge = booted(tmp_path, EPOCH_S)
    badge.apply(parse_action("coup"), 1000)
    badge.store.save({"v": 99})               # a record this firmware can't read
    again = booted(tmp_path, EPOCH_S + 60)
    again.apply(parse_action("coup"), 1000)   # refused: nothing happens, nothing written
    again.apply(parse_action("reset"), 2000)
    tl = build([json.dumps(e) for e in again.journal.entries()])
    assert [value for value, _, _ in spans(tl, "etat")] == [
        "pleine-forme", "blesse", "inconnu", "pleine-forme"]
    assert [m.kind for m in tl.markers] == ["boot", "note", "action", "boot", "error",
                                            "action"]


# ---- several badges: one fight ---------------------------------------------------------

def test_a_fight_of_dense_days_is_drawn_clear_on_one_wall_clock(tmp_path, monkeypatch):
    # Three badges: the dense day, the same day begun 90 s later, and a journal that
    # never had the wall clock (drawn from the fight's start, and said).
    first = build(day_journal(tmp_path / "a", monkeypatch))
    later = build(day_journal(tmp_path / "b", monkeypatch, start_s=EPOCH_S + 90))
    no_clock = build([json.dumps(dict((k, v) for k, v in json.loads(line).items()
                                      if k != "t")) for line in lines_of(LONG)])
    items = [(first, "/dev/ttyUSB0"), (later, "/dev/ttyUSB1"), (no_clock, "long.jsonl")]
    assert timeline.align([first, later, no_clock]) == ([0, 90000, 0], first.start_wall)
    for scale in timeline_svg.SCALES:
        text = timeline_svg.fight_svg(items, scale)
        texts = [b.text for b in check_layout(text)]
        assert texts[:1] == ["Fight: 3 badges"]
        assert "Nico le Besogneux (atom-lite) · long.jsonl · no wall clock: drawn from " \
               "the fight's start" in texts
    # The later badge's blows are the first's, 90 s on.
    root = ET.fromstring(text)
    blows = {}
    for group in root.iter(SVG + "g"):
        if group.get("class") == "markers":
            blows[group.get("data-source")] = [
                int(g.get("data-at-ms")) for g in group if g.get("class") == "marker action"]
    assert blows["/dev/ttyUSB0"] and blows["long.jsonl"]
    assert [at + 90000 for at in blows["/dev/ttyUSB0"]] == blows["/dev/ttyUSB1"]


def test_the_fight_as_text_is_every_entry_in_the_order_it_happened(tmp_path, monkeypatch):
    first = build(day_journal(tmp_path / "a", monkeypatch))
    later = build(day_journal(tmp_path / "b", monkeypatch, start_s=EPOCH_S + 1))
    lines = timeline.fight_lines([(first, "a"), (later, "b")])
    count = len(first.entries) + len(later.entries)
    assert lines[0] == "fight: 2 badges, %d entries over 39:33, from %s" % (
        count, times.wall(EPOCH_S + 30, True))
    assert lines[2].startswith("  Godefroy le Hardi de Montfaucon (atom-lite) · b: ")
    assert lines[2].endswith(", at 0:01")
    rows = lines[3:]
    assert len(rows) == count
    assert sorted(rows, key=lambda row: row[:8].strip().zfill(8)) == rows
    # A badge a second behind the other: its entries a second after the other's.
    boots = [row[:8].strip() for row in rows if "  boot 0.1.0 (power-on)" in row]
    assert boots == ["0:00", "0:01"]


def test_cran_logs_several_files_make_one_fight(tmp_path, capsys):
    out = tmp_path / "fight.svg"
    assert cli.main(["logs", "--file", GODEFROY, "--file", LONG, "--out", str(out),
                     "--json"]) == 0
    badges = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [(b["name"], b["offset_ms"]) for b in badges] == [("Godefroy", 0),
                                                            ("Nico le Besogneux", 0)]
    assert "<text" in out.read_text() and ">Fight: 2 badges<" in out.read_text()


def test_cran_logs_several_ports_leaves_out_the_one_that_fails(tmp_path, capsys, monkeypatch):
    link = FakeLink()

    def ask(port, line, again=False, keys=None):
        if port == "COM4":
            raise host_tools.CommandError("%s: no such port (is the badge plugged in?)" % port)
        return FakeLink.ask(link, port, line)
    link.ask = ask
    link.every_port = lambda: ["COM3", "COM4"]
    monkeypatch.setitem(sys.modules, "host_tools.device.badgeport", link)
    monkeypatch.setattr(host_tools.device, "badgeport", link, raising=False)
    monkeypatch.chdir(tmp_path)
    assert cli.main(["logs", "--all", "--port", "COM3"]) == 1
    captured = capsys.readouterr()
    assert "cran: COM4: left out of the fight: COM4: no such port" in captured.err
    assert captured.out.startswith("fight: 1 badge, 7 entries")
    assert os.listdir(str(tmp_path)) == ["fight.svg"]


@pytest.mark.parametrize("args, message", [
    (["--file", GODEFROY, "--file", LONG, "--config", "c.json"],
     "cran: --config is for one badge"),
    ([], "cran: which badge? give --port PORT (repeat it), --all, or --file JOURNAL"),
])
def test_cran_logs_several_bad_input_exits_2(tmp_path, capsys, monkeypatch, args, message):
    monkeypatch.chdir(tmp_path)
    assert cli.main(["logs"] + args) == 2
    assert capsys.readouterr().err.startswith(message)
    assert os.listdir(str(tmp_path)) == []


def test_cran_logs_all_with_no_badge_plugged_says_so(capsys, monkeypatch):
    # No badge there is a badge's fault, exit 1, as a missing port is (docs/COMMANDS.md;
    # it was 2, a wrong command's).
    monkeypatch.setattr(badgeport, "usb_ports", lambda: [])
    from host_tools.virtual import registry
    monkeypatch.setattr(registry, "ports", lambda: [])
    assert cli.main(["logs", "--all"]) == 1
    assert "no USB serial port found and no cran vbadge running here" in \
        capsys.readouterr().err


def test_the_boots_cran_check_makes_are_the_check_s_not_the_wearer_s():
    # Issue 35: `cran check --hands` on a badge left five "boot / fresh start" markers
    # in its wearer's lanes. The check notes each boot it makes in the journal first
    # ({"check": ...}, host_tools/device/check.py): that boot, and the fresh start it
    # finds, are the check's.
    fresh = '"fresh": "no state saved yet"'
    boot = '"boot": "0.1.0", "cause": "hard", "board": "atom-lite", "name": "Ali", ' \
           '"armor": 0, "s": [0, 0, 0, 0, 0]'
    lines = ['{%s, "up": 0, "t": 1000}' % boot, '{%s, "up": 0, "t": 1000}' % fresh,
             '{"check": "start", "up": 900, "t": 1001}',
             '{%s, "up": 0, "t": 1001}' % boot, '{%s, "up": 0, "t": 1001}' % fresh,
             '{"check": "reset", "up": 5000, "t": 1006}',
             '{%s, "up": 0, "t": 1006}' % boot, '{%s, "up": 0, "t": 1006}' % fresh,
             '{"a": "coup blesse", "c": [[0, "blesse"]], "s": [1, 0, 0, 0, 0], '
             '"up": 9000, "t": 1015}',
             '{%s, "up": 0, "t": 1020}' % boot]
    tl = build(lines)
    assert [(m.kind, m.label.split(" (")[0]) for m in tl.markers] == [
        ("boot", "boot 0.1.0"), ("note", "fresh start: no state saved yet"),
        ("tool", "cran check's start"), ("tool", "cran check's reset"),
        ("action", "coup blesse"), ("boot", "boot 0.1.0")]
    said = [journal.what(e) for e in tl.entries]
    assert said[3].endswith(", by cran check's start") and said[2] == "cran check: start"
    svg = timeline_svg.svg(tl, "journal")
    assert svg.count('class="boot-line"') == 2   # the wearer's boots alone cross the lanes
    assert "an organiser's tool (cran check): not the wearer's" in svg
