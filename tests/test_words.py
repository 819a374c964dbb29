# The action grammar of docs/scenarios.md, shared with the serial console.
import pytest

from cran.core.choices import parse_duration
from cran.core.words import ParseError, parse_action, plain

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
    # Every field that reaches a saved record is bounded here (issue 13): a target is one
    # word of at most 24 letters, digits or '-', renown a number up to 999.
    ("coup brise " + "x" * 25, "the target of brise is one word of at most 24 letters, "
                              "digits or '-', got 'xxxxxxxxxxxxxxxxxxxxxxxx...'"),
    ("coup brise " + "x" * 5000, "at most 24 letters"),
    ("effet vol " + "bourse" * 10, "the target of vol is one word of at most 24"),
    ("coup desarme " + "e" * 30, "the target of desarme is one word of at most 24"),
    ("repare " + "b" * 30, "the thing to repair is one word of at most 24"),
    ('coup brise bras"gauche', "the target of brise is one word of at most 24 letters, "
                               "digits or '-', got 'bras\"gauche'"),
    ("coup brise bras/gauche", "letters, digits or '-', got 'bras/gauche'"),
    ("renommee 1000", "renommee is at most 999, got '1000'"),
    ("renommee +" + "9" * 5000, "renommee is at most 999, got '9999999999"),
    ("renommee -" + "9" * 5000, "renommee is at most 999"),
    # One definition of a space and a digit, ASCII, on every runtime: CPython's split()
    # and isdigit() would take these, MicroPython's not.
    ("coup\u00a0blesse", "character U+00A0 is not one the badge reads (a no-break space"),
    ("Coup\u00a0: Blessé", "character U+00A0"),
    ("coup\u2003blesse", "character U+2003 is not one the badge reads"),
    ("coup\u202fblesse", "character U+202F"),
    ("renommee +\u0663", "character U+0663"),
    ("renommee +²", "character U+00B2"),
    ("coup ñ", "character U+00F1"),
    ("cloc\u212a", "character U+212A"),   # CPython's lower() makes it a k
    ("coup\x0bblesse\x01", "unknown keyword 'blesse\\u0001'"),
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


def test_a_target_of_24_characters_is_kept_whole():
    assert parse_action("coup brise " + "b" * 24).target == "b" * 24
    assert parse_action("Coup : Brisé Épée-d'Or").text() == "coup brise epee-d'or"


@pytest.mark.parametrize("text, ms", [
    ("90", 90000), ("90s", 90000), ("500ms", 500), ("5m", 300000), ("1h", 3600000),
    ("1m30s", 90000), ("5min", 300000), (" 5M ", 300000), ("149h", 149 * 3600000),
])
def test_durations(text, ms):
    assert parse_duration(text) == ms


@pytest.mark.parametrize("text, message", [
    ("", "empty duration"), ("m", "bad duration"), ("5x", "bad duration"),
    ("1.5m", "bad duration"), ("-3s", "bad duration"),
    ("\u0665m", "bad duration: character U+0665"),      # an Arabic-Indic 5: no digit here
    ("5\u00a0m", "bad duration: character U+00A0"),
    ("5\x01m", "bad duration: character U+0001"),
    ("9" * 5000, "bad duration '999999999"),       # no 5,000-digit number reaches int()
    ("150h", "duration '150h' is longer than a badge can count (149 hours)"),
    ("999999999h", "longer than a badge can count"),
])
def test_bad_durations(text, message):
    with pytest.raises(ParseError) as err:
        parse_duration(text)
    assert message in str(err.value)


def test_messages_quote_what_cannot_be_seen_and_no_more_than_40_characters():
    from cran.core.words import shown
    assert shown("coup") == "'coup'"
    assert shown("a\u00a0b\x01") == "'a\\u00a0b\\u0001'"
    assert shown("x" * 100) == "'%s...'" % ("x" * 40)


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
    lines += ["COUP : BLESSÉ !", "Effet Statue Divin De Masse", "EFFET PEUR DE MASSE",
              "coup\u3000blesse", "renommee +\u0967", "\u00c9ffet peur",
              "coup brise \u00e9p\u00e9e", "coup\x1cblesse"]
    driver = os.path.join(os.path.dirname(__file__), "mp", "parse_driver.py")
    out = subprocess.run([micropython, driver, FIRMWARE_DIR], input="\n".join(lines),
                         capture_output=True, text=True, timeout=60, check=True).stdout
    got = [json.loads(x) for x in out.splitlines()]
    assert got == [_cpython_parse(line) for line in lines]
