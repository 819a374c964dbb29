# The action grammar of ../shared/SCENARIOS.md, shared with the serial console.
import pytest

from cran.core.words import ParseError, parse_action, parse_duration, plain

SPELLINGS = [
    ("coup", "coup normal"),
    ("Coup normal", "coup normal"),
    ("coup : Blessé", "coup blesse"),
    ("COUP: BLESSE", "coup blesse"),
    ("«Coup : Assommé !»", "coup assomme"),
    ("hit wounded", "coup blesse"),
    ("effet peur", "effet peur"),
    ("effect fear", "effet peur"),
    ("Effet : Peur de Masse", "effet peur de masse"),
    ("effet peur divin de masse", "effet peur de masse divin"),
    ("coup désarme divin", "coup desarme divin"),
    ("coup mort si coma", "coup mort si coma"),
    ("Coup : Mort si tu étais dans le coma", "coup mort si coma"),
    ("coup de grâce", "coup mort si coma"),
    ("coup brise bras-gauche", "coup brise bras-gauche"),
    ("effet dissipe", "effet dissipe"),
    ("effet dissipe peur", "effet dissipe peur"),
    ("effet dissipé fear", "effet dissipe peur"),
    ("soin", "soin"),
    ("soin complet", "soin-complet"),
    ("heal", "soin"),
    ("répare armure", "repare armure"),
    ("repair armor", "repare armure"),
    ("repare bouclier", "repare bouclier"),
    ("nuit", "nuit"),
    ("hors-jeu", "hors-jeu"),
    ("Hors jeu", "hors-jeu"),
    ("en-jeu", "en-jeu"),
    ("stop", "stop"),
    ("reprise", "reprise"),
    ("reset", "reset"),
    ("renommée +2", "renommee +2"),
    ("renommee 7", "renommee 7"),
]
MISTAKES = [
    ("frappe", "unknown action 'frappe'"),
    ("coup tartempion", "unknown keyword 'tartempion'"),
    ("effet", "'effet' needs a keyword"),
    ("coup brise", "brise needs a target"),
    ("coup peur bras", "unexpected 'bras' after 'peur'"),
    ("soin partiel", "'soin' takes no words after it"),
    ("repare", "needs one thing to repair"),
    ("effet dissipe tartempion", "unknown keyword 'tartempion' to dissipate"),
    ("renommee beaucoup", "whole number"),
    ("", "empty action"),
]


@pytest.mark.parametrize("text, canonical", SPELLINGS)
def test_actions_in_any_spelling(text, canonical):
    assert parse_action(text).text() == canonical


@pytest.mark.parametrize("text, canonical", SPELLINGS)
def test_canonical_words_parse_back_to_the_same_action(text, canonical):
    # Journals and traces are read back in: what text() writes, parse_action reads.
    assert parse_action(canonical).text() == canonical


@pytest.mark.parametrize("text, message", MISTAKES)
def test_bad_actions_say_what_is_wrong(text, message):
    with pytest.raises(ParseError) as err:
        parse_action(text)
    assert message in str(err.value)


@pytest.mark.parametrize("text, ms", [
    ("90", 90000), ("90s", 90000), ("500ms", 500), ("5m", 300000), ("1h", 3600000),
    ("1m30s", 90000), ("5min", 300000),
])
def test_durations(text, ms):
    assert parse_duration(text) == ms


@pytest.mark.parametrize("text", ["", "m", "5x", "1.5m", "-3s"])
def test_bad_durations(text):
    with pytest.raises(ParseError):
        parse_duration(text)


def test_plain_drops_accents_and_case():
    assert plain("Blessé ÉTAT Œuvre") == "blesse etat oeuvre"


def _cpython_parse(line):
    try:
        return ["ok", parse_action(line).text()]
    except ParseError as e:
        return ["error", str(e)]


def test_micropython_parses_every_line_like_cpython(micropython):
    # The badge's console speaks these words: MicroPython's str is ASCII-only in
    # lower(), has no translate(); the same table must give the same answers there.
    import json
    import os
    import subprocess

    from host_tools import FIRMWARE_DIR
    lines = [t for t, _ in SPELLINGS + MISTAKES]
    lines += ["COUP : BLESSÉ !", "Effet Statue Divin De Masse", "EFFET PEUR DE MASSE"]
    driver = os.path.join(os.path.dirname(__file__), "mp", "parse_driver.py")
    out = subprocess.run([micropython, driver, FIRMWARE_DIR], input="\n".join(lines),
                         capture_output=True, text=True, timeout=60, check=True).stdout
    got = [json.loads(x) for x in out.splitlines()]
    assert got == [_cpython_parse(line) for line in lines]
