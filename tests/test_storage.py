# Power-safe storage: the state store and the journal run inside the real MicroPython
# on LittleFS in a RAM flash that loses power at every program and erase, and the same
# file cases run under CPython on a directory (the code is shared).
import importlib.util
import json
import os
import subprocess

import pytest

from conftest import scenario_files
from cran.core.engine import act, new_state
from cran.core.record import to_record
from cran.core.rules import Settings
from cran.core.vocab import COPY_BAD, COPY_MISSING
from cran.records import decode_record
from cran.storage import FORMAT_VERSION, record_parts
from gamefiles import scenario
from host_tools import FIRMWARE_DIR

DRIVER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "mp", "storage_driver.py")
_spec = importlib.util.spec_from_file_location("storage_driver", DRIVER)
driver = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(driver)


def encode_record(payload, seq):
    """A record file's bytes, as cran.storage writes them (in two pieces)."""
    return b"".join(record_parts(payload, seq))


def _real_records(count):
    """Records the badge really saves: the state after each action of the scenarios,
    each one different (240-590 bytes of JSON)."""
    out = []
    for path in scenario_files():
        parsed = scenario.parse(open(path, encoding="utf-8").read())
        state = new_state(parsed.character, Settings())
        for _, t, kind, payload in parsed.steps:
            if kind == "act":
                state, _ = act(state, payload, t)
                record = json.loads(json.dumps(to_record(state, t)))
                if record not in out:
                    out.append(record)
                if len(out) == count:
                    return out
    return out


R = _real_records(12)
TINY = {"n": 1}                                  # inline in LittleFS metadata
BIG = dict(R[-1], pad="x" * 3000)                # spans seven 512-byte blocks
SAVED = [R[0], R[1], TINY, R[2], R[3], BIG, R[4], TINY, R[5], R[6], BIG, R[7]] + R[8:]
AFTER = {"after": True}
# Lines of 40-100 bytes, as the journal's (a shorter one lands in one flash write, and
# a power cut then has nothing to cut).
APPENDED = [{"i": i, "t": 1000 * i, "pad": "y" * (12 + i % 7 * 9)} for i in range(48)]
JOURNAL_BYTES = 1024

# ---- file cases: on LittleFS inside MicroPython, and under CPython ----------------

CASES = {}


def missing(name):
    """A copy load() finds missing: its code and line."""
    return [COPY_MISSING, name + ": missing"]


def bad(line):
    """A copy load() skips as unreadable or not a record."""
    return [COPY_BAD, line]


def case(*cmds):
    def register(check):
        CASES[check.__name__] = (list(cmds), check)
        return check
    return register


def _header(text):
    return text.split("\n", 1)[0].split(" ")


@case(["save", R[0]], ["load"], ["reboot"], ["load"])
def round_trip(r):
    assert r[1] == [R[0], [missing("state.b")]]
    assert r[3] == r[1]


@case(["save", R[0]], ["save", R[1]], ["save", R[2]], ["save", R[3]], ["load"], ["reboot"],
      ["load"])
def newest_wins(r):
    assert r[4] == [R[3], []]
    assert r[6] == [R[3], []]


@case(["save", R[0]], ["ls"], ["read", "state.a"],
      ["save", R[1]], ["read", "state.b"],
      ["save", R[2]], ["read", "state.a"], ["read", "state.b"],
      ["reboot"], ["save", R[3]], ["read", "state.b"], ["ls"])
def saves_alternate_between_slots(r):
    assert sorted(r[1]) == ["state.a"]
    for at, seq, payload in ((2, 1, R[0]), (4, 2, R[1]), (6, 3, R[2]), (7, 2, R[1]),
                             (10, 4, R[3])):
        assert _header(r[at])[:3] == ["cran-state", str(FORMAT_VERSION), str(seq)]
        assert decode_record(r[at].encode()) == (seq, payload)
    # After a reboot the store finds the newest slot on disk, not by remembering.
    assert sorted(r[11]) == ["state.a", "state.b"]


@case(["save", R[0]], ["save", R[1]], ["flip", "state.b", -5], ["load"],
      ["save", R[2]], ["read", "state.b"], ["load"])
def corrupted_newest_falls_back_to_older(r):
    assert r[3] == [R[0], [bad("state.b: crc mismatch")]]
    # The next save replaces the bad copy, keeping the good older one.
    assert decode_record(r[5].encode()) == (2, R[2])
    assert r[6] == [R[2], []]


@case(["save", R[0]], ["save", R[1]], ["flip", "state.a", 40], ["load"])
def corrupted_older_copy_is_named_but_harmless(r):
    assert r[3] == [R[1], [bad("state.a: crc mismatch")]]


@case(["save", R[0]], ["save", R[1]], ["edit", "state.a", "cran-state 1 1 ", "cran-state 1 7 "],
      ["load"])
def crc_covers_the_sequence_number(r):
    # A flipped digit must not make a stale copy the newest.
    assert r[2] == "ok"
    assert r[3] == [R[1], [bad("state.a: crc mismatch")]]


@case(["save", R[0]], ["save", R[1]], ["edit", "state.b", "cran-state 1 ", "cran-state 9 "],
      ["load"], ["edit", "state.a", "cran-state 1 ", "cran-state x "], ["load"])
def unknown_format_version(r):
    assert r[3] == [R[0], [bad("state.b: format version 9, expected 1")]]
    assert r[5] == [None, [bad("state.a: bad header"),
                           bad("state.b: format version 9, expected 1")]]


@case(["save", R[0]], ["save", R[1]], ["truncate", "state.b", -10], ["load"],
      ["truncate", "state.a", 12], ["load"], ["truncate", "state.b", 0], ["load"])
def truncated_files(r):
    body = len(json.dumps(R[1]))
    assert r[3] == [R[0], [bad("state.b: truncated: %d of %d body bytes" % (body - 10, body))]]
    assert r[5] == [None, [bad("state.a: no header line (12 bytes)"),
                           bad("state.b: truncated: %d of %d body bytes" % (body - 10, body))]]
    assert r[7] == [None, [bad("state.a: no header line (12 bytes)"),
                           bad("state.b: no header line (0 bytes)")]]


@case(["load"], ["save", R[0]], ["save", R[1]], ["remove", "state.a"], ["load"],
      ["remove", "state.b"], ["load"], ["reboot"], ["load"])
def missing_files(r):
    both = [None, [missing("state.a"), missing("state.b")]]
    assert r[0] == both
    assert r[4] == [R[1], [missing("state.a")]]
    assert r[6] == both
    assert r[8] == both


@case(["puthex", "state.a", "fffe00ff0a41"], ["put", "state.b", "hello\nworld"], ["load"],
      ["append", "state.a", "x" * 9000], ["load"],
      ["save", R[0]], ["load"], ["ls"])
def garbage_files(r):
    assert r[2] == [None, [bad("state.a: header is not text"),
                           bad("state.b: not a state record")]]
    assert r[4] == [None, [bad("state.a: 9006 bytes, at most 8192"),
                           bad("state.b: not a state record")]]
    # Nothing valid: the next save starts again at sequence 1 in slot A.
    assert r[6] == [R[0], [bad("state.b: not a state record")]]
    assert sorted(r[7]) == ["state.a", "state.b"]


@case(["save", R[0]], ["save", {"pad": "x" * 8200}], ["ls"], ["load"])
def record_too_big_is_refused_before_writing(r):
    size = len(encode_record({"pad": "x" * 8200}, 2))
    assert r[1] == "ValueError: state record of %d bytes, at most 8192" % size
    assert sorted(r[2]) == ["state.a"]
    assert r[3] == [R[0], [missing("state.b")]]


@case(["puthex", "state.a", encode_record(R[0], 1).hex() + "7a"],
      ["puthex", "state.b", encode_record([1, 2], 2).hex()], ["load"])
def well_checked_but_not_ours(r):
    assert r[2] == [None, [bad("state.a: 1 bytes past the body"),
                           bad("state.b: body is not an object")]]


@case(["save", R[0]], ["puthex", "state.tmp", encode_record(R[5], 99).hex()], ["load"],
      ["reboot"], ["save", R[1]], ["ls"], ["load"])
def leftover_temp_file_is_ignored_then_replaced(r):
    # A finished temp file that was never renamed is a save the power cut undid.
    assert r[2] == [R[0], [missing("state.b")]]
    assert sorted(r[5]) == ["state.a", "state.b"]
    assert r[6] == [R[1], []]


@case(*[["jappend", {"i": i, "etat": "blesse"}] for i in range(10)],
      ["jentries"], ["reboot"], ["jentries"], ["jappend", {"i": 10, "w": "COUP : BLESSÉ !"}],
      ["jentries"])
def journal_keeps_order(r):
    assert r[:10] == ["ok"] * 10
    assert r[10] == [[{"i": i, "etat": "blesse"} for i in range(10)], []]
    assert r[12] == r[10]
    assert r[14][0][-1] == {"i": 10, "w": "COUP : BLESSÉ !"}
    assert [e["i"] for e in r[14][0]] == list(range(11))


@case(["journal", JOURNAL_BYTES], *[x for e in APPENDED for x in (["jappend", e], ["ls"])],
      ["jentries"])
def journal_stays_bounded(r):
    longest = max(len(json.dumps(e)) + 1 for e in APPENDED)
    rotated = 0
    for listing in r[2::2][:len(APPENDED)]:
        total = listing.get("journal.0", 0) + listing.get("journal.1", 0)
        assert total <= JOURNAL_BYTES + longest
        rotated += "journal.1" in listing
    assert rotated > len(APPENDED) // 2         # the bound was really exercised
    seen = [e["i"] for e in r[-1][0]]
    assert seen == list(range(seen[0], len(APPENDED)))      # newest kept, in order
    assert len(seen) * longest >= JOURNAL_BYTES // 2          # and at least half a budget
    assert r[-1][1] == []


@case(["jappend", {"i": 0}], ["jappend", {"i": 1}], ["jappend", {"i": 2}],
      ["append", "journal.0", '{"i": 3, "pad": "ab'], ["jentries"],
      ["reboot"], ["jappend", {"i": 4}], ["jentries"])
def journal_skips_a_torn_last_line(r):
    assert r[4] == [[{"i": 0}, {"i": 1}, {"i": 2}], ["journal.0: line 4 unreadable, skipped"]]
    # The next entry starts on its own line instead of gluing onto the torn one.
    assert r[7] == [[{"i": 0}, {"i": 1}, {"i": 2}, {"i": 4}],
                    ["journal.0: line 4 unreadable, skipped"]]


@case(["jappend", {"i": 0}], ["append", "journal.0", '{"i": 1}'], ["reboot"],
      ["jappend", {"i": 2}], ["append", "journal.0", "garbage\n[3]\n"], ["jappend", {"i": 4}],
      ["jentries"])
def journal_line_cut_before_its_newline_is_kept(r):
    assert r[6] == [[{"i": 0}, {"i": 1}, {"i": 2}, {"i": 4}],
                    ["journal.0: line 4 unreadable, skipped",
                     "journal.0: line 5 unreadable, skipped"]]


# ---- flash failures and power cuts: LittleFS only -----------------------------------

GLITCH_POINTS = 12
# The saves the flash fails in: records with a block of their own (over 400 bytes of
# JSON), whose save lasts long enough for a failure at its n-th flash write to hit it.
LONG = [r for r in R if len(json.dumps(r)) > 400]


def _glitches(torn):
    cmds = [["save", R[0]], ["save", R[1]]]
    for n in range(GLITCH_POINTS):
        cmds += [["glitch", n, torn], ["save", LONG[n % len(LONG)]], ["heal"],
                 ["save", R[n % 8]], ["load"]]
    return cmds



SWEEPS = {
    "saves_clean": ["cut_saves", SAVED, AFTER, False],
    "saves_torn": ["cut_saves", SAVED, AFTER, True],
    "appends_clean": ["cut_appends", APPENDED, False],
    "appends_torn": ["cut_appends", APPENDED, True],
}
GLITCHES = {"glitches_clean": _glitches(False), "glitches_torn": _glitches(True)}


@pytest.fixture(scope="module")
def littlefs(micropython):
    """Every case and sweep in one MicroPython run -> {case id: results}."""
    lines = [json.dumps({"id": name, "cmds": cmds}) for name, (cmds, _) in CASES.items()]
    for name, cmd in SWEEPS.items():
        cmds = [cmd] if cmd[0] == "cut_saves" else [["journal", JOURNAL_BYTES], cmd]
        lines.append(json.dumps({"id": name, "cmds": cmds}))
    for name, cmds in GLITCHES.items():
        lines.append(json.dumps({"id": name, "cmds": cmds}))
    # The heap holds a sweep's results (hundreds of parsed records) until printed: the
    # harness's memory, not the badge's.
    out = subprocess.run([micropython, "-X", "heapsize=8M", DRIVER, FIRMWARE_DIR],
                         input="\n".join(lines) + "\n", capture_output=True, text=True,
                         timeout=120, check=True).stdout
    return {r["id"]: r for r in map(json.loads, out.splitlines())}


def _results(littlefs, name):
    assert "crash" not in littlefs[name], littlefs[name]
    return littlefs[name]["results"]


@pytest.mark.parametrize("name", sorted(CASES))
def test_on_littlefs_in_micropython(littlefs, name):
    CASES[name][1](_results(littlefs, name))


@pytest.mark.parametrize("name", sorted(CASES))
def test_on_cpython(tmp_path, name):
    cmds, check = CASES[name]
    check(driver.run_case(json.loads(json.dumps(cmds)), str(tmp_path)))


def _points(sweep):
    assert sweep["ops"] >= 2
    assert [p["n"] for p in sweep["points"]] == list(range(sweep["ops"] + 1))
    for p in sweep["points"]:
        assert p["mount"] is None, p                # the filesystem always mounts again
        assert p["then_mount"] is None, p
        assert p["then_error"] == "ok", p           # and takes the next write
    return sweep["points"]


@pytest.mark.parametrize("torn", [False, True], ids=["clean", "torn"])
def test_power_cut_at_every_flash_write_of_a_save(littlefs, torn):
    saves = _results(littlefs, "saves_torn" if torn else "saves_clean")[0]
    assert len(saves) == len(SAVED)
    before = None
    for k, (sweep, new) in enumerate(zip(saves, SAVED)):
        for p in _points(sweep):
            where = "save %d, cut at flash write %d of %d" % (k, p["n"], sweep["ops"])
            payload, problems = p["seen"]
            # The old record or the new one: never older, never garbage.
            assert payload in (before, new), where
            if p["error"] == "ok":
                assert payload == new, where
            # The copy being replaced is never seen half-written: no crc/truncated.
            assert all(code == COPY_MISSING for code, _ in problems), (where, problems)
            assert p["then"] == [AFTER, []] or (k == 0 and p["then"][0] == AFTER), where
            assert set(p["then_files"]) <= {"state.a", "state.b"}, where   # temp gone
        # Every cut is reported to the caller (the badge journals it); only the run the
        # cut never reached succeeds.
        assert [p["error"] == "ok" for p in sweep["points"]] == [False] * sweep["ops"] + [True]
        assert sweep["points"][0]["seen"][0] == before
        assert sweep["points"][-1]["seen"][0] == new
        before = new


@pytest.mark.parametrize("torn", [False, True], ids=["clean", "torn"])
def test_power_cut_at_every_flash_write_of_a_journal_append(littlefs, torn):
    appends = _results(littlefs, "appends_torn" if torn else "appends_clean")[1]
    longest = max(len(json.dumps(e)) + 1 for e in APPENDED)
    before = []
    for k, sweep in enumerate(appends):
        after = sweep["points"][-1]["seen"][0]
        assert after[-1] == k and after == list(range(after[0], k + 1))
        for p in _points(sweep):
            where = "append %d, cut at flash write %d of %d" % (k, p["n"], sweep["ops"])
            seen, problems = p["seen"]
            # Nothing happened, or it all did; or the rotation did and the append not.
            assert seen in (before, after, after[:-1]), where
            assert problems == [], where
            files = p["files"]
            assert files.get("journal.0", 0) + files.get("journal.1", 0) <= (
                JOURNAL_BYTES + longest), where
            then, then_problems = p["then"]
            assert then[-1] == "after" and then == (seen + ["after"])[-len(then):], where
            assert then_problems == []
        before = after


@pytest.mark.parametrize("torn", [False, True], ids=["clean", "torn"])
def test_flash_failing_mid_save_then_recovering_without_a_reboot(littlefs, torn):
    # The badge keeps the same store after a failed save (it journals the error and
    # goes on): the next save must still land, and be the one loaded.
    r = _results(littlefs, "glitches_torn" if torn else "glitches_clean")
    failed = 0
    for n in range(GLITCH_POINTS):
        glitch, save, heal, resave, load = r[2 + 5 * n:7 + 5 * n]
        failed += save != "ok"
        assert save == "ok" or save.startswith("OSError"), (n, save)
        assert resave == "ok", (n, resave)
        assert load == [R[n % 8], []], n
    assert failed >= GLITCH_POINTS - 2      # most of those saves really hit the failure
