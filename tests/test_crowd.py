# The crowd a virtual field's air hosts (host_tools/field/crowd.py, `cran air --roster`): its
# badges from a roster and the game settings, what its wearers are told to do, what it
# keeps across a restart; and what `cran air`, `cran field --virtual` and `cran vbadge
# --field` refuse, by name. The crowd reached by a station badge on USB, end to end:
# tests/test_field_e2e.py.
import json
import os
import socket
import subprocess
import sys
import time

import pytest

from conftest import REPO, run_cran
from cran import radio
from cran.radio.link import PERIOD_MS, REPEAT_MS, WINDOW_MS
from host_tools import CommandError
from host_tools.field import fieldnet
from host_tools.field.crowd import Crowd, specs
from host_tools.field.crowdview import changes
from host_tools.game import roster
from host_tools.game.chains import GM_NAME, chain_token, radio_id
from host_tools.virtual.micropython.cpython import cryptolib


@pytest.fixture
def game(tmp_path):
    template = roster.settings_template()
    template["radio"] = True
    path = tmp_path / "game.json"
    path.write_text(json.dumps(template))
    return path


def _roster(tmp_path, text):
    path = tmp_path / "roster.csv"
    path.write_text("name,armor,board,badge,port,role\n" + text)
    return path


ROWS = ("Godefroy de Bouillon,metal,atom-lite,b01,,\nGodefroy,cuir,atom-lite,b02,,\n"
        "Ysolde,none,atom-lite,b03,,soigneuse\nAli,none,atom-lite,,/dev/ttyUSB0,\n")


def test_a_crowd_is_every_row_without_a_port_and_players_of_no_name(tmp_path, game):
    key, gm_seed, members, left = specs(str(game), str(_roster(tmp_path, ROWS)), count=2)
    assert [m["name"] for m in members] == ["Godefroy de Bouillon", "Godefroy", "Ysolde",
                                            "joueur-01", "joueur-02"]
    assert left == [("Ali", "/dev/ttyUSB0")]   # the badge flashed on that port
    assert [m["radio"].id for m in members] == [radio_id(m["name"]) for m in members]
    assert members[0]["character"].armor == 2 and members[2]["radio"].seed is not None
    # Every badge knows the game master and the healer, as cran config gives them.
    assert all(len(m["radio"].authorities) == 2 for m in members)


def _wait(test, timeout=10):
    deadline = time.monotonic() + timeout
    while not test():
        assert time.monotonic() < deadline
        time.sleep(0.02)


def test_a_crowds_wearers_do_what_they_are_told_by_name(tmp_path, game):
    key, gm_seed, members, left = specs(str(game), str(_roster(tmp_path, ROWS)))
    hub = fieldnet.Hub("crowd-words%d" % os.getpid())
    crowd = Crowd(hub, key, gm_seed, members, str(tmp_path / "kept"), ["Ali"])
    said = []
    try:
        crowd.start()
        first = crowd.status()
        # The longest name a line starts with: "Godefroy de Bouillon" is not "Godefroy".
        crowd.command("Godefroy de Bouillon coup blesse", said.append)
        crowd.command("godefroy  coup blesse", said.append)   # as typed: case, spaces
        crowd.command("Godefroy take", said.append)
        for line, error in (
                ("Nobody coup", "Nobody coup: NAME ACTION, NAME one of the crowd's "
                                "(Godefroy de Bouillon, Godefroy, Ysolde, ...)"),
                ("Godefroy cuop", "Godefroy cuop: unknown action 'cuop'; did you mean "
                                  "'coup'?"),
                ("Godefroy treat", "Godefroy treat: Godefroy treats nobody (a healer's or "
                                   "smith's badge does)")):
            with pytest.raises(CommandError) as caught:
                crowd.command(line, said.append)
            assert str(caught.value) == error
        _wait(lambda: len(said) == 3)
        assert said[2] == {"done": "Godefroy take", "took": None}   # nothing offered yet
        seen = {b["name"]: b for b in crowd.status()["badges"]}
        assert [seen[n]["etat"] for n in ("Godefroy de Bouillon", "Godefroy")] == [
            "blesse", "blesse"]
        # Placed 3 m apart in a row: Godefroy, 3 m from the healer, is just near enough
        # (-50 dBm); Godefroy de Bouillon, 6 m off, is not.
        assert [(seen[n]["x"], seen[n]["y"]) for n in seen] == [(2, 2), (5, 2), (8, 2)]
        crowd.command("Ysolde treat", said.append)
        _wait(lambda: crowd.status()["badges"][2]["offered"])
        seen = {b["name"]: b for b in crowd.status()["badges"]}
        assert seen["Ysolde"]["offered"] == ["Godefroy"]
        _wait(lambda: crowd.status()["badges"][1]["offer"] == "soin")
        crowd.command("Godefroy take", said.append)
        _wait(lambda: len(said) == 5)
        assert said[3].pop("at_ms") >= 0   # when the search began, on the crowd's clock
        assert said[3:] == [{"done": "Ysolde treat", "treats": True},
                            {"done": "Godefroy take", "took": "soin"}]
        seen = {b["name"]: b for b in crowd.status()["badges"]}
        assert [(seen[n]["etat"], seen[n]["offers"]) for n in seen] == [
            ("blesse", []), ("pleine-forme", ["soin"]), ("pleine-forme", [])]
        assert [c["kind"] for c in crowd.status()["commands"]] == ["soin"]
        # What `cran air` says of it on a terminal.
        assert changes(first, crowd.status()) == [
            "on the air: soin from Ysolde to Godefroy",
            "Godefroy is offered soin: 'Godefroy take' within 10 s takes it",
            "Ysolde offers soin to Godefroy",
            "etat blesse: Godefroy de Bouillon"]
    finally:
        crowd.stop()
        hub.close()


def test_a_restarted_crowd_goes_on_with_its_counters(tmp_path, game):
    """Each badge keeps its counter's mark as a badge keeps it (cran.radio.link's radio.json):
    a station that heard the crowd before a restart still takes its frames."""
    key, gm_seed, members, left = specs(str(game), None, count=3)
    hub = fieldnet.Hub("crowd-again%d" % os.getpid())
    try:
        first = Crowd(hub, key, gm_seed, members, str(tmp_path / "kept"))
        first.start()
        _wait(lambda: all(m.badge.link.counter.mark for m in first.members))   # a beat each
        first.stop()
        again = Crowd(hub, key, gm_seed, specs(str(game), None, count=3)[2],
                      str(tmp_path / "kept"))
        assert [m.badge.link.counter.next for m in again.members] == [
            m.badge.link.counter.mark for m in first.members]
    finally:
        hub.close()


def test_a_crowd_whose_thread_is_held_up_hears_what_its_badges_would_have_heard(
        tmp_path, game):
    """The crowd's thread stands still for more than a period (a busy laptop) while the
    station's stop goes over the air, each copy stamped with its time: every badge still
    takes the stop in its own window within that period, as it would have on time."""
    key, gm_seed, members, left = specs(str(game), None, count=12)
    hub = fieldnet.Hub("crowd-late%d" % os.getpid())
    crowd = Crowd(hub, key, gm_seed, members, str(tmp_path / "kept"), seed=4)
    try:
        crowd.start()
        _wait(lambda: all(m.badge.link.counter.mark for m in crowd.members))   # all going
        made = int(time.time())   # the station's clock, the crowd badges' too
        stop = radio.seal(radio.Keys(key, cryptolib.aes), radio_id(GM_NAME), radio.GM, 1,
                          radio.STOP, b"", (1, chain_token(gm_seed, 1), made))
        # ... and another game's stop beside it, which every badge drops.
        other = radio.seal(radio.Keys(bytes(32), cryptolib.aes), radio_id(GM_NAME),
                           radio.GM, 1, radio.STOP, b"", (1, chain_token(gm_seed, 1), made))
        before = crowd.status()
        with crowd.lock:   # the thread held up from here
            first = crowd.now()
            for copy in range(0, PERIOD_MS + WINDOW_MS, REPEAT_MS):   # as a station sends
                hub.carry(("127.0.0.1", 9), stop, first + copy)
                hub.carry(("127.0.0.1", 8), other, first + copy)
            time.sleep((PERIOD_MS + 300) / 1000)
        assert crowd.now() - first > PERIOD_MS + WINDOW_MS   # every copy's time went by
        _wait(lambda: all(b["jeu"] == "stop" for b in crowd.status()["badges"]))
        took = [b["jeu_ms"] - first for b in crowd.status()["badges"]]
        # Each in its first window after the first copy, each at a phase of its own.
        assert all(0 <= t <= PERIOD_MS + WINDOW_MS for t in took), took
        assert len(set(took)) == len(took), took
        assert crowd.status()["late_ms"] >= PERIOD_MS
        # As `cran air` says it on a terminal.
        after = crowd.status()
        foreign = sum(b["dropped"]["game"] for b in after["badges"])
        assert foreign >= 12 and changes(before, after) == [
            "on the air: stop from station",
            "dropped by the crowd's badges: %d of another game (its key)" % foreign,
            "jeu stop: joueur-01, joueur-02, joueur-03, joueur-04 and 8 more"]
    finally:
        crowd.stop()
        hub.close()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="SO_TIMESTAMPNS")
def test_a_frame_from_a_member_is_timed_when_it_came_not_when_the_hub_got_to_it():
    hub = fieldnet.Hub("stamped%d" % os.getpid())
    carried = []
    hub.on_carry = lambda frame, at: carried.append((frame, at))
    member = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        assert hub.stamped
        with hub.lock:   # the hub's thread held up (a busy laptop) for a second
            sent = hub.now_ms()
            member.sendto(fieldnet.frame_datagram(b"frame"), ("127.0.0.1", hub.port))
            time.sleep(1)
            held = hub.now_ms()
        _wait(lambda: carried)
        # (the wall clock read back to the air's: a ms or so either way)
        assert carried[0][0] == b"frame" and sent - 5 <= carried[0][1] < held, (sent, carried)
    finally:
        member.close()
        hub.close()


def test_a_member_gone_silent_is_no_longer_carried_to_nor_counted(monkeypatch):
    # A vbadge's or a sim's process ended: after GONE_S without a datagram the air stops
    # sending to its port and counting it; it is back with the next it sends. A radio
    # of the hub's own process (the station's, a crowd's badge) is never forgotten.
    monkeypatch.setattr(fieldnet, "GONE_S", 0.5)
    hub = fieldnet.Hub("gone%d" % os.getpid())
    hub.radio(1, 1)
    member = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        member.sendto(fieldnet.join_datagram("3,4"), ("127.0.0.1", hub.port))
        _wait(lambda: hub.members() == 2)
        time.sleep(0.7)
        assert hub.members() == 1
        member.sendto(fieldnet.frame_datagram(b"frame"), ("127.0.0.1", hub.port))
        _wait(lambda: hub.members() == 2)
    finally:
        member.close()
        hub.close()


@pytest.mark.parametrize("args, says", [
    (["--roster", "r.csv"], "cran: --roster and --crowd need --settings GAME.json"),
    (["--settings", "game.json"], "cran: --settings GAME.json goes with --roster or "
                                  "--crowd N"),
    (["--settings", "game.json", "--crowd", "501"], "cran: --crowd: from 0 to 500 badges"),
    (["--settings", "plain.json", "--crowd", "3"], "cran: plain.json: a game with the radio"),
    (["--settings", "game.json", "--roster", "bad.csv"],
     "bad.csv:3: armor: expected none, cuir, metal or a count from 0 to 99, got 'mithril'"),
])
def test_cran_air_says_what_is_wrong_and_takes_no_air(tmp_path, game, args, says):
    os.replace(game, tmp_path / "game.json")
    (tmp_path / "plain.json").write_text("{}")
    (tmp_path / "bad.csv").write_text("name,armor,board,badge\nA,cuir,atom-lite,b1\n"
                                      "B,mithril,atom-lite,b2\n")
    name = "refused%d" % os.getpid()
    r = subprocess.run([sys.executable, "-m", "host_tools", "air", "--field", name] + args,
                       capture_output=True, text=True, cwd=tmp_path, timeout=60,
                       env=dict(os.environ, PYTHONPATH=REPO))
    assert r.returncode == 2 and r.stderr.startswith(says), r.stderr
    assert "Traceback" not in r.stderr
    assert not os.path.exists(fieldnet.port_file(name))


def test_a_field_name_in_use_is_refused_and_one_left_behind_taken_over(game):
    name = "taken%d" % os.getpid()
    air = subprocess.Popen([sys.executable, "-m", "host_tools", "air", "--field", name],
                           cwd=REPO, stderr=subprocess.PIPE, text=True)
    try:
        assert "is on the air" in air.stderr.readline()
        in_use = "cran: virtual field %r is in use: another `cran air --field %s`" % (
            name, name)
        r = run_cran("air", "--field", name)
        assert r.returncode == 2 and r.stderr.startswith(in_use), r.stderr
        r = run_cran("field", "--settings", str(game), "--virtual", name, "--json")
        assert r.returncode == 2 and r.stderr.startswith(in_use), r.stderr
        assert fieldnet.hub_port(name) > 0   # the first one still holds it
        for at in ("5", "1001,3"):
            r = run_cran("vbadge", "--field", name, "--at=" + at)
            assert r.returncode == 2 and r.stderr.startswith(
                "cran: --at %s: X,Y in metres, each from 0 to 1000" % at), r.stderr
    finally:
        air.terminate()
        air.wait(10)
        air.stderr.close()
    r = run_cran("vbadge", "--at", "3,4")
    assert r.returncode == 2 and "--at goes with --field" in r.stderr
    # A port file left by an air that died (killed -9) names no field any more ...
    with open(fieldnet.port_file(name), "w") as f:
        f.write("9")
    with pytest.raises(CommandError) as caught:
        fieldnet.hub_port(name)
    assert str(caught.value).startswith("no virtual field %r here: start its air" % name)
    # ... and a new air takes it over, on the field's own port: an air started again is
    # where its badges (whose espnow found it once) still send.
    ports = []
    for _ in range(2):
        hub = fieldnet.Hub(name)
        try:
            ports.append(fieldnet.hub_port(name))
            assert ports[-1] == hub.port
        finally:
            hub.close()
    if ports[0] == fieldnet._own_port(name):   # (unless another program had it)
        assert ports[1] == ports[0]
