# A malformed scenario: exit 2, `FILE:LINE: what is wrong`, and nothing runs.
import json
import os

import pytest

from conftest import run_cran


@pytest.mark.parametrize("text, line, message", [
    ("0:00 coup\n0:01 coup tartempion\n", 2, "unknown keyword 'tartempion'"),
    ("0:00 frappe\n", 1, "unknown action 'frappe'"),
    ("0:10 coup\n\n# a comment\n0:05 coup\n", 4, "time goes backwards"),
    ("0:00 coup\n0:00 expect humeur=bonne\n", 2, "unknown expect field 'humeur'"),
    ("0:00 expect etat=endormi\n", 1, "bad value for etat: 'endormi'"),
    ("0:00 expect armure=beaucoup\n", 1, "bad value for armure"),
    ("0:00 expect effets=peur,blesse\n", 1, "'blesse' is not a timed effect"),
    ("0:00 expect dit=bonjour\n", 1, "bad value for dit"),
    ("0:00 expect reste=5m\n", 1, "bad value for reste"),
    ("0:00 expect jeu=dehors\n", 1, "bad value for jeu"),
    ("0:00 expect combat=peut-etre\n", 1, "expected yes/no"),
    ("0:00 expect\n", 1, "expect needs at least one FIELD=VALUE"),
    ("0:00 expect etat\n", 1, "expected FIELD=VALUE, got 'etat'"),
    ('character name="A" armor=mithril\n0:00 coup\n', 1,
     "armor: expected none, cuir, metal or a count from 0 to 99, got 'mithril'"),
    ("character helmet=peut-etre\n", 1, "helmet: expected yes/no"),
    ("character resist=peur,tartempion\n", 1, "resist: unknown keyword 'tartempion'"),
    ("character resist=dissipe\n", 1, "nobody resists dissipe"),
    ("character agonisant=bientot\n", 1, "bad duration"),
    ("character agonisant=0\n", 1, "agonisant: expected a duration above 0 and under 149 hours"),
    ("character couleur=rouge\n", 1, "unknown character field 'couleur'"),
    ('character name="Godefroy\n', 1, "unclosed quote"),
    ("character armor=cuir\ncharacter armor=metal\n", 2, "only one character line"),
    ("0:00 coup\ncharacter armor=metal\n", 2, "before the first timed line"),
    ("coup\n", 1, "expected a time"),
    ("0:0 coup\n", 1, "bad time '0:0'"),
    (": character armor=cuir\n", 1, "in a scenario file, an action has its time"),
    ("0:75 coup\n", 1, "bad time '0:75'"),
    ("1:2:3:4 coup\n", 1, "bad time"),
    ("+5x coup\n", 1, "bad duration"),
    ("0:00\n", 1, "nothing to do at 0:00"),
    ("0:00 coup brise\n", 1, "brise needs a target"),
    # Numbers and words from outside are bounded before any use (issue 13): no
    # traceback, however long the number or the word.
    ("0:00 coup\n" + "9" * 5000 + ":00 coup\n", 2, "time '9999999999"),
    ("10001:00:00 coup\n", 1, "time '10001:00:00' is past 10,000 hours"),
    ("+" + "9" * 5000 + "s coup\n", 1, "bad duration"),
    ("0:00.\u0661 coup\n", 1, "character U+0661 is not one the badge reads"),
    ("\u0660:00 coup\n", 1, "character U+0660"),
    ("0:00 coup brise " + "x" * 5000 + "\n", 1, "at most 24 letters"),
    ("0:00 renommee +" + "9" * 5000 + "\n", 1, "renommee is at most 999"),
    ("character armor=" + "9" * 5000 + "\n", 1, "armor: expected a whole number from 0 to 99"),
    ("character creature=100\n", 1, "creature: expected a whole number from 0 to 99, got '100'"),
    ("character agonisant=" + "9" * 5000 + "\n", 1, "bad duration"),
    ("0:00 expect armure=" + "9" * 5000 + "\n", 1, "armure is at most 99"),
    ("0:00 expect renommee=1000\n", 1, "renommee is at most 999"),
    ("0:00 expect reste=" + "9" * 5000 + "\n", 1, "reste is at most"),
    ("0:00\u00a0coup\n", 1, "character U+00A0"),
    ("0:00 Coup\u00a0: Blessé\n", 1, "character U+00A0 is not one the badge reads"),
    ("0:00 coup\u2003blesse\n", 1, "character U+2003"),
    ("0:00 expect armure=\u0661\n", 1, "character U+0661"),
])
def test_malformed_file_exits_2_with_line_and_reason(tmp_path, text, line, message):
    f = tmp_path / "bad.txt"
    f.write_text(text)
    r = run_cran("scenario", str(f))
    assert r.returncode == 2
    first = r.stderr.strip().splitlines()[0]
    assert first.startswith("%s:%d: " % (f, line)), r.stderr
    assert message in first, r.stderr
    assert r.stdout == ""           # nothing ran


# A file with a fault on many lines, and several on one: every one is named in one run.
MANY_FAULTS = """character name="Test" armor=metall helmet=peut-etre resist=peur,charmme
0:00 coup blese
0:01 cuop
0:02 expect etat=blessee armure=x
0:03 coup
0:04 expect stat=blesse
0:05 hors-jeux
0:06 expect jeu=horsjeu effets=peurr
"""


def test_every_fault_of_a_file_is_named_in_one_run_with_the_word_meant(tmp_path):
    f = tmp_path / "bad.txt"
    f.write_text(MANY_FAULTS)
    r = run_cran("scenario", str(f))
    assert (r.returncode, r.stdout) == (2, "")
    assert r.stderr.replace(str(f), "F").splitlines() == [
        "F:1: armor: expected none, cuir, metal or a count from 0 to 99, got 'metall'; "
        "did you mean 'metal'?",
        "F:1: helmet: expected yes/no (oui/non), got 'peut-etre'",
        "F:1: resist: unknown keyword 'charmme'; did you mean 'charme'?",
        "F:2: unknown keyword 'blese'; did you mean 'blesse'?",
        "F:3: unknown action 'cuop'; did you mean 'coup'?",
        "F:4: bad value for etat: 'blessee' (pleine-forme, blesse, agonisant, coma or mort); "
        "did you mean 'blesse'?",
        "F:4: bad value for armure: 'x' (a whole number)",
        "F:6: unknown expect field 'stat'; did you mean 'state'?",
        "F:7: unknown action 'hors-jeux'; did you mean 'hors-jeu'?",
        "F:8: bad value for jeu: 'horsjeu' (en-jeu, hors-jeu or stop); did you mean "
        "'hors-jeu'?",
        "F:8: bad value for effets: 'peurr' is not a timed effect (%s); did you mean 'peur'?"
        % ", ".join(scenario_effects()),
    ]


def scenario_effects():
    from cran.core.words import TIMED_EFFECTS
    return TIMED_EFFECTS + ("desarme", "vol")


@pytest.mark.parametrize("line, meant", [
    ("charactr armor=cuir", "character"),
    ("0:00 expct etat=blesse", "expect"),
    ("0:00 efet peur", "effet"),
    ("0:00 coup norml", "normal"),
    ("0:00 effet dissipe pour", "peur"),
    ("0:00 expect dit=armue", "armure"),
    ("0:00 expect combat=nonn", "non"),
    ("0:00 expect efets=peur", "effets"),
    ("character armr=cuir", "armor"),
    ("character armor=cuire", "cuir"),
    ("character helmet=nn", "non"),
])
def test_a_misspelt_word_is_offered_the_one_meant(tmp_path, line, meant):
    f = tmp_path / "typo.txt"
    f.write_text(line + "\n")
    r = run_cran("scenario", str(f))
    assert r.returncode == 2
    assert r.stderr.strip().endswith("; did you mean '%s'?" % meant), r.stderr


def test_nothing_is_offered_for_a_word_far_from_any(tmp_path):
    f = tmp_path / "far.txt"
    f.write_text("character armor=bronze\n0:00 coup tartempion\n")
    r = run_cran("scenario", str(f))
    assert r.returncode == 2 and "did you mean" not in r.stderr, r.stderr
    assert len(r.stderr.splitlines()) == 2


def test_a_file_that_is_no_scenario_names_its_first_faults_only(tmp_path):
    f = tmp_path / "essay.txt"
    f.write_text("Once upon a time\n" * 100)
    r = run_cran("scenario", str(f))
    lines = r.stderr.splitlines()
    assert r.returncode == 2 and len(lines) == 31, r.stderr
    assert lines[0] == "%s:1: expected a time (M:SS, H:MM:SS or +DURATION), got 'Once'" % f
    assert lines[-1] == "%s: 70 more faults" % f


def test_micropython_finds_the_same_faults(micropython):
    # gamefiles.scenario runs in MicroPython too (--runtime micropython): the same faults,
    # with the same words and tables for the host's suggestion.
    import subprocess

    from gamefiles import scenario
    from host_tools import FIRMWARE_DIR, GAMEFILES_ROOT
    code = ("import sys, json; sys.path[:0] = [%r, %r]\nfrom gamefiles import scenario\n"
            "try:\n scenario.parse(%r)\nexcept scenario.ScenarioError as e:\n"
            " print(json.dumps([[f.line, f.message, f.word] for f in e.faults]))"
            % (FIRMWARE_DIR, GAMEFILES_ROOT, MANY_FAULTS))
    out = subprocess.run([micropython, "-c", code], capture_output=True, text=True,
                         timeout=30)
    with pytest.raises(scenario.ScenarioError) as err:
        scenario.parse(MANY_FAULTS)
    assert json.loads(out.stdout) == [[f.line, f.message, f.word] for f in err.value.faults]
    assert len(err.value.faults) == 11


def test_malformed_file_is_refused_in_micropython_too(tmp_path, micropython):
    # The host reads the file first, with the same words as the badge: what MicroPython
    # would refuse never reaches it, and both say the same.
    from gamefiles import scenario
    f = tmp_path / "nbsp.txt"
    f.write_text("0:00 Coup\u00a0: Blessé\n", encoding="utf-8")
    r = run_cran("scenario", "--runtime", "micropython", str(f))
    assert (r.returncode, r.stdout) == (2, "")
    assert r.stderr == "%s:1: character U+00A0 is not one the badge reads (a no-break " \
                       "space: type a plain one)\n" % f
    # And the MicroPython side says it in the same words (ScenarioError there too).
    import subprocess

    from host_tools import FIRMWARE_DIR, GAMEFILES_ROOT
    code = ("import sys; sys.path[:0] = [%r, %r]\nfrom gamefiles import scenario\n"
            "try:\n scenario.parse(%r)\nexcept scenario.ScenarioError as e:\n"
            " print(e.line, e.message)"
            % (FIRMWARE_DIR, GAMEFILES_ROOT, "0:00 Coup\u00a0: Blessé\n"))
    out = subprocess.run([micropython, "-c", code], capture_output=True, text=True,
                         timeout=30)
    with pytest.raises(scenario.ScenarioError) as err:
        scenario.parse("0:00 Coup\u00a0: Blessé\n")
    assert out.stdout == "1 %s\n" % err.value.message, out.stdout + out.stderr


def test_a_long_scenario_runs_in_micropython_a_line_at_a_time(micropython):
    # MicroPython reads and runs one line at a time, in a heap that stays flat: 10,000
    # lines live in 128 KB (holding the whole file's steps needed ~1 MB, and a 100,000-line
    # scenario died of MemoryError in the unix port's own heap).
    import subprocess

    from host_tools import FIRMWARE_DIR, GAMEFILES_ROOT
    from host_tools.virtual import SCRIPTS_DIR
    text = "character armor=1\n" + "+1s coup\n+1s soin\n" * 5000 + "+1s expect etat=pleine-forme\n"
    out = subprocess.run([micropython, "-X", "heapsize=128k",
                          os.path.join(SCRIPTS_DIR, "scenario_driver.py"), FIRMWARE_DIR,
                          GAMEFILES_ROOT, "0"],
                         input=text, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr[-2000:]
    events = [json.loads(line) for line in out.stdout.splitlines()]
    assert len(events) == 10001 and events[-1][:3] == ["expect", 10002, 10001000]
    assert events[-2][3] == "soin" and events[-1][3][0] == "pleine-forme"


def test_malformed_file_runs_nothing_even_after_good_lines(tmp_path):
    f = tmp_path / "late.txt"
    f.write_text("0:00 coup\n0:00 expect etat=blesse\n" * 3 + "0:01 coup de pied\n")
    r = run_cran("scenario", str(f), "--json")
    assert (r.returncode, r.stdout) == (2, "")
    assert ":7: unknown keyword 'de'" in r.stderr


def test_missing_file(tmp_path):
    r = run_cran("scenario", str(tmp_path / "nope.txt"))
    assert r.returncode == 2
    assert "nope.txt: no such file" in r.stderr


def test_not_text(tmp_path):
    f = tmp_path / "binary.txt"
    f.write_bytes(b"\xff\xfe\x00coup")
    r = run_cran("scenario", str(f))
    assert r.returncode == 2
    assert "cannot read" in r.stderr
