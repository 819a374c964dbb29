# The serial console: scenario words in, one line out; bad lines change nothing.
import json

import pytest

from cran.badge import Badge
from cran.console import Console, text_of
from cran.console import status as console_status
from cran.core.rules import Character, Settings
from cran.core.ticks import ticks_add
from cran.core.vocab import CUE_COMBAT, CUE_END, CUE_KINDS
from cran.start.restore import boot

START = (1 << 30) - 1000     # the console lives across the tick wrap too


class MemoryJournal:
    def __init__(self):
        self.lines = []

    def append(self, entry):
        self.lines.append(dict(entry))

    def entries(self):
        return list(self.lines)


def make_console(config_path=None, **who):
    badge = Badge(Character(**who), Settings(), journal=MemoryJournal(), board_id="atom-lite")
    boot(badge, START)
    return Console(badge, config_path)


def _app(tmp_path, key):
    # What cran.console.open_for reads of a cran.app.App.
    import types
    badge = Badge(Character(), Settings(), journal=MemoryJournal(), board_id="atom-lite")
    boot(badge, START)
    return types.SimpleNamespace(badge=badge, root=str(tmp_path), safe=False,
                                 resets_for_safe=0,
                                 game_key=None if key is None else (key, None),
                                 lock=None, console=None, link=None)


def test_the_lock_is_loaded_by_the_first_line_that_needs_it(tmp_path, monkeypatch):
    # A host's every look (status, journal) reads: it never loads cran.lock, ~2 KB of a
    # badge's heap. A line that changes the game makes the lock, which refuses it.
    from cran import lock
    from cran.console import LOCKED, open_for
    told = []
    monkeypatch.setattr(lock, "set_interrupt", told.append)   # Ctrl-C: MicroPython's
    app = _app(tmp_path, bytes(range(32)))
    console = open_for(app, None)
    assert app.console is console
    assert json.loads(console.handle("status", START)[0])["etat"] == "pleine-forme"
    assert json.loads(console.handle("journal", START)[0])["board"] == "atom-lite"
    assert app.lock is None and told == []
    assert console.handle("coup", START) == [LOCKED]
    assert app.lock is console.lock and told == [False]   # locked: Ctrl-C off
    assert console.handle("challenge", START)[0].startswith("challenge ")
    # No game key: the console is open, and no lock is ever made.
    app = _app(tmp_path, None)
    console = open_for(app, None)
    assert console.handle("coup", START)[0].startswith("ok coup")
    assert console.handle("challenge", START) == ["open"] and app.lock is None


def test_config_answers_the_file_in_one_line(tmp_path):
    path = tmp_path / "config.json"
    path.write_text('{\n  "board": "atom-lite",\n  "badge": "b07"\n}\n')
    assert make_console(str(path)).handle("config", START) == [
        '{"board": "atom-lite", "badge": "b07"}']
    missing = str(tmp_path / "none.json")
    [answer] = make_console(missing).handle("config", START)
    assert answer.startswith("error: %s: " % missing)


def test_actions_answer_in_one_line():
    console = make_console(armor=1)
    assert console.handle("coup", START) == [
        "ok coup normal: etat=pleine-forme armure=0 dit=armure"]
    assert console.handle("Coup : Blessé", ticks_add(START, 2000)) == [
        "ok coup blesse: etat=blesse armure=0 dit=-"]


def test_status_is_one_json_line():
    console = make_console(name="Ali")
    console.handle("coup agonisant", START)
    [line] = console.handle("status", ticks_add(START, 60000))
    status = json.loads(line)
    assert status["etat"] == "agonisant" and status["reste_ms"] == 240000
    assert status["board"] == "atom-lite" and status["personnage"] == "Ali"
    assert status["firmware"] and status["uptime_ms"] == 60000


@pytest.mark.parametrize("line, message", [
    ("coup tartempion", "error: unknown keyword 'tartempion'"),
    ("frappe", "error: unknown action 'frappe'"),
    ("clock demain", "error: clock needs"),
    # Every number from outside is range-checked before use (issue 13): a huge one
    # crashed the badge's interpreter in time.gmtime().
    ("clock 99999999999999999999999", "error: clock needs whole seconds since 1970, from "
                                      "2024 to 2099"),
    ("clock 9999999999", "error: clock needs"),
    ("clock 0001795000", "error: clock needs"),
    ("clock " + "9" * 5000, "error: clock needs"),
    ("clock 4102444800", "error: clock needs"),
    ("clock 1704067199", "error: clock needs"),
    ("clock -1795000000", "error: clock needs"),
    ("clock \u0661\u0667\u0669\u0665\u0660\u0660\u0660\u0660\u0660\u0660", "error: clock needs"),
    ("clock 1795000000\u00a0", "error: clock needs"),
    ("coup brise " + "x" * 25, "error: the target of brise is one word of at most 24"),
    ("renommee +1000", "error: renommee is at most 999"),
    ("status\u00a0", "error: character U+00A0"),   # no command: CPython split there
    ("soin partiel", "error: 'soin' takes no words after it"),
])
def test_a_bad_line_gets_one_error_and_changes_nothing(line, message):
    console = make_console(armor=1)
    before = console.handle("status", START)
    journal = len(console.badge.journal.lines)
    out = console.handle(line, START)
    assert len(out) == 1 and out[0].startswith(message)
    assert console.handle("status", START) == before
    assert len(console.badge.journal.lines) == journal


def test_journal_has_every_action_with_uptime_and_wall_clock_once_set():
    console = make_console()
    console.handle("coup", START)
    assert console.handle("clock 1795000000", ticks_add(START, 1000)) == ["ok clock 1795000000"]
    console.handle("effet peur", ticks_add(START, 3000))
    console.handle("status", ticks_add(START, 300000 + 3000))   # peur runs out
    entries = [json.loads(x) for x in console.handle("journal", ticks_add(START, 400000))]
    assert entries[0]["boot"]
    assert entries[1]["a"] == "coup normal" and entries[1]["up"] == 0 and "t" not in entries[1]
    assert entries[2]["a"] == "effet peur" and entries[2]["t"] == 1795000002
    # The timers' cues: each kind by its place in CUE_KINDS (docs/journal.md).
    assert entries[3]["timer"] == [[CUE_KINDS.index(CUE_COMBAT), "fin"],
                                   [CUE_KINDS.index(CUE_END), "peur"]]


def test_blank_lines_say_nothing_and_help_helps():
    console = make_console()
    assert console.handle("   ", START) == []
    assert "status" in console.handle("help", START)[0]


@pytest.mark.parametrize("cut_after_ms", [1, 7000, 9999, 10000, 25000, 61000, 295000])
def test_a_power_cut_during_a_countdown_never_leaves_the_wearer_healthier(
        tmp_path, cut_after_ms):
    # S3/S4 with power going at any instant: the badge saves while the countdown runs,
    # each time one checkpoint ahead, so the time it finds left is never more than the
    # time really left, and at most a checkpoint less.
    from cran.badge import _CHECKPOINT_MS as CHECKPOINT_MS
    from cran.core.words import parse_action
    from cran.storage import Journal, StateStore

    def badge():
        return Badge(Character(), Settings(), StateStore(str(tmp_path)), Journal(str(tmp_path)))
    first = badge()
    boot(first, START)
    first.apply(parse_action("coup agonisant"), START)
    for ms in range(0, cut_after_ms + 1, 500):        # the show loop's wake-ups
        first.tick(ticks_add(START, ms))
    really_left = 300000 - cut_after_ms
    # Power goes; back on one hour later (time off counts as paused).
    later = ticks_add(START, cut_after_ms + 3600000)
    second = badge()
    boot(second, later)
    status = console_status(second, later)
    if status["etat"] == "coma":
        # Less than a checkpoint was left: it comes back already fallen, never better.
        assert really_left < CHECKPOINT_MS and status["reste_ms"] <= 300000
    else:
        assert status["etat"] == "agonisant"
        assert really_left - CHECKPOINT_MS <= status["reste_ms"] <= really_left


@pytest.mark.parametrize("counts, wall_at_boot, etat", [
    (False, 1795003600, "agonisant"),   # default: time off is paused
    (True, 1795003600, "mort"),         # counted: 1 h off is past coma and death
    (True, None, "agonisant"),          # counted, but the badge woke without a clock
    (True, 1795000120, "agonisant"),    # counted: 2 minutes off
])
def test_time_switched_off_is_paused_unless_the_game_counts_it(tmp_path, counts,
                                                               wall_at_boot, etat):
    from cran.core.words import parse_action
    from cran.storage import StateStore
    settings = Settings(time_off_counts=counts)
    first = Badge(Character(), settings, StateStore(str(tmp_path)))
    boot(first, START, wall_s=1795000000)
    first.apply(parse_action("coup agonisant"), START)
    second = Badge(Character(), settings, StateStore(str(tmp_path)))
    later = ticks_add(START, 5000)
    boot(second, later, wall_s=wall_at_boot)
    status = console_status(second, later)
    assert status["etat"] == etat
    if wall_at_boot == 1795000120:
        assert 300000 - 120000 - 10000 <= status["reste_ms"] <= 300000 - 120000


def test_serial_bytes_become_the_line_as_typed():
    assert text_of(b"\x02status\r\n") == "status"          # a stray Ctrl-B is no letter
    assert text_of(b"coup\tblexx\x08\x08sse") == "coup\tblesse"   # backspace rubs out
    assert text_of(b"\x7f\x7fsoin") == "soin"              # nothing to rub out: no harm
    assert text_of("Coup : Bless\u00e9".encode()) == "Coup : Bless\u00e9"
    assert text_of(b"\xff\xfecoup") is None                 # line noise, not UTF-8
    # What MicroPython's decode() takes and CPython's refuses, refused on both: overlong
    # forms, surrogates, past U+10FFFF.
    for bad in (b"\xc0\xaf", b"\xe0\x80\xaf", b"\xed\xa0\x80", b"\xf4\x90\x80\x80", b"\xc3"):
        assert text_of(b"coup " + bad) is None, bad
    assert text_of("\U0010ffff\ud7ff\u00e9".encode()) == "\U0010ffff\ud7ff\u00e9"


def test_commands_are_ascii_words_on_every_runtime():
    from cran.console import command_of
    assert command_of("  STATUS  ") == ("status", "")
    assert command_of("echo\t a b ") == ("echo", "a b")
    assert command_of("cloc\u212a 1795000000") == ("cloc\u212a", "1795000000")  # no k
    assert command_of("status\u00a0x") == ("status\u00a0x", "")    # not a space
    assert command_of("") == ("", "")


def test_a_failed_save_is_journaled_and_status_says_it_until_one_works(tmp_path):
    from cran.storage import StateStore
    store = StateStore(str(tmp_path))
    badge = Badge(Character(), Settings(), store, MemoryJournal())
    boot(badge, START)
    console = Console(badge)
    assert json.loads(console.handle("status", START)[0])["save_error"] is None
    saving = store.save

    def refuse(payload):
        raise OSError(28, "ENOSPC")
    store.save = refuse
    console.handle("coup", START)
    assert json.loads(console.handle("status", START)[0])["save_error"] == \
        "OSError(28, 'ENOSPC')"
    assert badge.journal.lines[-1]["error"] == "state not saved: OSError(28, 'ENOSPC')"
    store.save = saving
    console.handle("coup", ticks_add(START, 1000))
    assert json.loads(console.handle("status", START)[0])["save_error"] is None
    assert json.loads(console.handle("status", START)[0])["etat"] == "agonisant"
