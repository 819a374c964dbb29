# The command itself: both entry points, the contract's own example, the demo.
import os
import re

import pytest

from conftest import REPO, run_cran

# The scenario contract's own example (docs/scenarios.md), kept here so that the test
# runs in any clone. The contract itself (SCENARIOS.md) is shared by the game's projects
# and sits beside the repository when it is there: then the copy must still match it.
CONTRACT_COPY = os.path.join(REPO, "tests", "data", "contract-example.txt")
SHARED_CONTRACT = os.path.join(os.path.dirname(REPO), "shared", "SCENARIOS.md")


def test_help_lists_the_commands():
    r = run_cran("--help")
    assert r.returncode == 0
    assert "scenario" in r.stdout and "sim" in r.stdout


def test_sim_plays_the_example_fight():
    r = run_cran("sim")
    assert r.returncode == 0, r.stderr
    assert "10:04" in r.stdout and "etat=mort" in r.stdout
    assert "5 held, 0 failed" in r.stdout


def contract_examples(text):
    """The scenario examples of the contract's text: its code blocks with timed lines."""
    blocks = re.findall(r"```\n(.*?)```", text, re.S)
    return [b for b in blocks if re.search(r"^\d+:\d\d ", b, re.M)]


@pytest.mark.parametrize("runtime", ["cpython", "micropython"])
def test_the_contracts_own_example_runs_unchanged(runtime, request):
    # The contract gives no trace to compare with, only its expect lines: every one
    # must hold (exit 0).
    if runtime == "micropython":
        request.getfixturevalue("micropython")
    r = run_cran("scenario", CONTRACT_COPY, "--runtime", runtime)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "5 expect lines, 5 held, 0 failed" in r.stdout


def test_the_kept_copy_of_the_contracts_example_is_current():
    if not os.path.exists(SHARED_CONTRACT):
        pytest.skip("no shared SCENARIOS.md beside the repository: the kept copy stands")
    with open(SHARED_CONTRACT, encoding="utf-8") as f:
        examples = contract_examples(f.read())
    with open(CONTRACT_COPY, encoding="utf-8") as f:
        kept = f.read()
    assert examples == [kept], (
        "tests/data/contract-example.txt is stale: the example of %s differs from it; "
        "copy the example again (and check docs/scenarios.md against the contract)"
        % SHARED_CONTRACT)


def test_windows_files_run_too(tmp_path):
    # A byte-order mark and CRLF line ends, as Notepad writes them.
    f = tmp_path / "windows.txt"
    f.write_bytes("\ufeffcharacter armor=cuir\r\n0:00 coup\r\n0:00 expect dit=armure\r\n"
                  .encode("utf-8"))
    r = run_cran("scenario", str(f))
    assert r.returncode == 0, r.stderr


def test_the_cue_chart_in_the_readme_is_drawn_from_the_firmware():
    from host_tools.paper import cuechart
    with open(cuechart.CHART, encoding="utf-8") as f:
        assert f.read() == cuechart.render(), "run: python -m host_tools.paper.cuechart"
    controls = open(os.path.join(REPO, "docs", "controls.md"), encoding="utf-8").read()
    assert "(cue-chart.png)" in controls


def test_the_cue_chart_says_what_the_badge_does():
    # S7 in the chart's words: one sound by every way into coma or mort, none at the fall
    # from coma into mort; a single LED's 4 s of state then 4 s of effect code; the
    # answers' flashes; white (the game stop's strobe, the answers) on the lanes' ground.
    from host_tools.paper import cuechart
    sounds, fall = cuechart.inert_sounds()
    assert len(sounds) == len(cuechart.INERT_WAYS) and fall == []
    assert len(set(tuple(s) for s in sounds.values())) == 1 and list(sounds.values())[0]
    chart = cuechart.render()
    for words in ("2 notes, 1300 ms, by every way in", "coma falls into mort (S7)",
                  "silent: nothing changes", "4 s of the state, then 4 s of the running",
                  "say «Armure»", "White flashes on every LED for 3 s"):
        assert words in chart, words
    assert "shows the first LED" not in chart and "LEDs unchanged" not in chart
    assert chart.count('fill="%s"' % cuechart.BOARD_RGB) == 2 * (len(cuechart.ROWS) + 1)
    assert 'fill="#ffffff"' in chart


def test_the_cue_chart_will_not_say_coma_and_mort_sound_alike_when_they_do_not(monkeypatch):
    from host_tools.paper import cuechart
    played = cuechart.tunes.melody_for

    def louder_death(cues):   # a badge that beeps at death
        return played(cues) + ([(440, 100)] if ("etat", "mort") in [c[1:3] for c in cues]
                               else [])
    monkeypatch.setattr(cuechart.tunes, "melody_for", louder_death)
    with pytest.raises(ValueError, match=r"S7"):
        cuechart.render()


def test_every_command_names_the_boards_it_knows():
    # One check for all: an unknown board is refused in the same words, with the list.
    for args in (["scenario", "--badge", "nope", "examples/scenarios/s1-cinq-etats.txt"],
                 ["sim", "--board", "nope", "--headless"], ["vbadge", "--board", "nope"],
                 ["flash", "--board", "nope", "--port", "/dev/null"]):
        r = run_cran(*args)
        assert r.returncode == 2, (args, r.stderr)
        assert "unknown board 'nope' (known: atom-lite, atom-matrix, " in r.stderr, args


def test_cran_alone_prints_its_commands(capsys):
    from host_tools import cli
    assert cli.main([]) == 2
    out = capsys.readouterr().out
    for name, _ in cli.COMMANDS:
        assert "\n    %s " % name in out, name


def test_the_status_table_says_a_badge_clock_that_is_off_or_not_set():
    import time

    from host_tools.device.status import clock
    now = time.time()
    assert clock(None) == "not set (cran flash sets it)"
    assert clock(now + 30) == time.strftime("%H:%M", time.localtime(now + 30))
    assert clock(now - 600).endswith("(-10 min off)")


def test_status_shows_the_helmet(capsys):
    # A5's helmet answers «Résiste» to an assomme: an organiser checking a badge sees it.
    from host_tools.device import status
    s = {"etat": "pleine-forme", "armure": 1, "armure-abimee": False, "effets": {},
         "jeu": "en-jeu", "combat": False, "personnage": "Godefroy", "casque": True,
         "board": "atom-lite", "id": "8fd5bcd63deb", "badge": "b01", "firmware": "0.1.0",
         "uptime_ms": 1000, "reste_ms": None, "clock": None}
    assert status.one("/dev/ttyUSB0", s, False) == 0
    assert "\n  casque    oui\n" in capsys.readouterr().out
    status.table(["/dev/ttyUSB0", "/dev/ttyUSB1"], [s, dict(s, casque=False)])
    rows = capsys.readouterr().out.splitlines()
    assert " 1, casque " in rows[1] and "casque" not in rows[2], rows


def test_the_status_of_a_badge_flashed_before_armure_abimee_reads_as_today(monkeypatch,
                                                                           capsys):
    # An older badge's status says armure_abimee; `cran status` (its table, its detail,
    # its --json) reads it as today's armure-abimee, the scenario's word.
    import json

    from host_tools.device import badgeport, status
    old = {"etat": "blesse", "armure": 0, "armure_abimee": True, "effets": {},
           "jeu": "en-jeu", "combat": True, "personnage": "Godefroy", "casque": False,
           "board": "atom-lite", "id": "8fd5bcd63deb", "badge": "b01", "firmware": "0.1.0",
           "uptime_ms": 1000, "reste_ms": None, "clock": None}
    monkeypatch.setattr(badgeport, "ask", lambda *a, **k: ["", json.dumps(old)])
    s = badgeport.status("/dev/ttyUSB0")
    assert s["armure-abimee"] is True and "armure_abimee" not in s
    assert status.one("/dev/ttyUSB0", s, False) == 0
    assert "\n  armure    0 (abimee)\n" in capsys.readouterr().out


def test_the_cue_chart_is_drawn_again_by_its_command(tmp_path):
    # `python -m host_tools.paper.cuechart`, what the chart's test says to run when it is stale,
    # ended in an ImportError (it took its PNG converter from a command that had lost it).
    import subprocess
    import sys

    from PIL import Image
    r = subprocess.run([sys.executable, "-m", "host_tools.paper.cuechart",
                        str(tmp_path / "c.svg")], capture_output=True, text=True, cwd=REPO)
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "c.svg").read_text(encoding="utf-8").startswith("<svg")
    with Image.open(tmp_path / "c.png") as png:
        assert png.width > 800 and png.height > 600
