# Every example scenario on both runtimes, with identical traces, also across the
# 2**30 ms tick wrap; and the command's contract (docs/scenarios.md).
import json
import os

import pytest

from conftest import WRAP_START, run_cran, scenario_files
from host_tools.game.scenarios import events_as_records, load
from host_tools.virtual.runtimes import run_scenario

FILES = scenario_files()
IDS = [os.path.basename(f) for f in FILES]


def _records(path, runtime, start_tick=0):
    text, parsed = load(path)
    return events_as_records(run_scenario(text, runtime, start_tick), parsed)


def _failures(records):
    return [(r["line"], r["failed"]) for r in records if r["event"] == "expect" and not r["ok"]]


def test_the_library_is_not_empty():
    assert len(FILES) >= 30


@pytest.mark.parametrize("path", FILES, ids=IDS)
def test_example_holds_on_both_runtimes_with_identical_traces(path, micropython):
    on_cpython = _records(path, "cpython")
    assert _failures(on_cpython) == []
    assert any(r["event"] == "expect" for r in on_cpython), "a scenario checks something"
    on_micropython = _records(path, "micropython")
    assert on_micropython == on_cpython


@pytest.mark.parametrize("path", FILES, ids=IDS)
def test_example_holds_across_the_tick_wrap(path, micropython):
    # S3/S4/C1/K3 deadlines land on the far side of 2**30: same story, same trace.
    reference = _records(path, "cpython")
    assert _records(path, "cpython", WRAP_START) == reference
    assert _records(path, "micropython", WRAP_START) == reference


def test_json_lines_are_identical_from_the_command(micropython):
    path = os.path.join("examples", "scenarios", "exemple-godefroy.txt")
    a = run_cran("scenario", path, "--json")
    b = run_cran("scenario", path, "--json", "--runtime", "micropython")
    assert a.returncode == b.returncode == 0, a.stderr + b.stderr
    assert a.stdout == b.stdout
    lines = [json.loads(x) for x in a.stdout.splitlines()]
    assert [x["event"] for x in lines].count("timer") == 2     # coma at 5:04, mort at 10:04
    coma = [x for x in lines if x["event"] == "timer"][0]
    assert (coma["t"], coma["state"]["etat"]) == ("5:04", "coma")


def test_the_rulebook_fight_exits_0():
    r = run_cran("scenario", "examples/scenarios/exemple-godefroy.txt")
    assert r.returncode == 0, r.stderr
    assert "5 expect lines, 5 held, 0 failed" in r.stdout


def test_a_failed_expect_exits_1_names_every_field_and_goes_on(tmp_path):
    f = tmp_path / "fail.txt"
    f.write_text("0:00 coup agonisant\n"
                 "5:00 expect etat=agonisant armure=1\n"
                 "10:00 expect etat=mort\n"
                 "10:00 expect state=coma\n")
    r = run_cran("scenario", str(f))
    assert r.returncode == 1
    assert "%s:2: expected etat=agonisant, got coma" % f in r.stderr
    assert "%s:2: expected armure=1, got 0" % f in r.stderr
    assert "%s:4: expected state=coma, got mort" % f in r.stderr
    assert ":3:" not in r.stderr        # it went on to the end, and line 3 held
    assert "3 expect lines, 1 held, 2 failed" in r.stdout


def test_a_countdown_runs_out_exactly_at_its_deadline(tmp_path):
    f = tmp_path / "exact.txt"
    f.write_text("0:00 coup agonisant\n"
                 "+4m59s expect etat=agonisant reste=1\n"
                 "+999ms expect etat=agonisant\n"
                 "5:00 expect etat=coma reste=300\n"
                 "9:59.999 expect etat=coma\n"
                 "10:00 expect etat=mort reste=-\n")
    for start in ("0", str(WRAP_START)):
        r = run_cran("scenario", str(f), "--start-tick", start)
        assert r.returncode == 0, r.stderr


def test_the_micropython_runtime_is_really_micropython(micropython, tmp_path):
    # The driver would fail under CPython: it is the unix port that answers.
    import subprocess
    out = subprocess.run([micropython, "-c", "import sys; print(sys.implementation.name)"],
                         capture_output=True, text=True, check=True).stdout
    assert out.strip() == "micropython"


def test_lines_further_apart_than_the_ticks_can_tell_still_fire_every_timer(micropython,
                                                                            tmp_path):
    # 2**29 ms (about 149 hours) between two lines: a tick difference read across it
    # flips its sign, and the timers due in between never fired (the wearer still
    # agonisant a week later). The runner strides there, in both runtimes and across the
    # wrap. (The whole badge's runner strides the same way,
    # host_tools/virtual/scripts/badge_driver.py; a week of its wake-ups takes minutes, so it is
    # not played here.)
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "week-apart.txt")
    reference = _records(path, "cpython")
    assert _failures(reference) == [] and [r["t"] for r in reference
                                           if r["event"] == "timer"] == ["5:00", "10:00"]
    assert _records(path, "micropython") == reference
    assert _records(path, "cpython", WRAP_START) == reference
    long = tmp_path / "1000-hours.txt"
    long.write_text("character name=A\n0:00 coup agonisant\n1000:00:00 expect etat=mort\n")
    assert _failures(_records(str(long), "micropython")) == []
