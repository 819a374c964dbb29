# A malformed scenario: exit 2, `FILE:LINE: what is wrong`, and nothing runs.
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
    ('character name="A" armor=mithril\n0:00 coup\n', 1, "armor (none, cuir, metal"),
    ("character helmet=peut-etre\n", 1, "expected yes/no"),
    ("character resist=peur,tartempion\n", 1, "unknown keyword 'tartempion' in resist"),
    ("character resist=dissipe\n", 1, "nobody resists dissipe"),
    ("character agonisant=bientot\n", 1, "bad duration"),
    ("character agonisant=0\n", 1, "agonisant must be a duration above 0"),
    ("character couleur=rouge\n", 1, "unknown character field 'couleur'"),
    ('character name="Godefroy\n', 1, "unclosed quote"),
    ("character armor=cuir\ncharacter armor=metal\n", 2, "only one character line"),
    ("0:00 coup\ncharacter armor=metal\n", 2, "before the first timed line"),
    ("coup\n", 1, "expected a time"),
    ("0:0 coup\n", 1, "bad time '0:0'"),
    ("0:75 coup\n", 1, "bad time '0:75'"),
    ("1:2:3:4 coup\n", 1, "bad time"),
    ("+5x coup\n", 1, "bad duration"),
    ("0:00\n", 1, "nothing to do at 0:00"),
    ("0:00 coup brise\n", 1, "brise needs a target"),
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
