# A virtual field end to end, nothing faked on the host side: `cran field --virtual`
# (the game master's station and the field's air), two `cran vbadge --field` badges (the
# firmware in the MicroPython unix port) flashed by `cran flash` from a roster with a
# healer, their heartbeats read by the station with their names, a stop and a resume
# sent from the station's stdin, and a forged stop from a member of the air who holds the
# game key but not the game master's chain: nobody stops. The same with the station a
# badge on USB: a vbadge flashed with `cran flash --station` on the air of `cran air`,
# and `cran field --port` on its port.
import json
import os
import socket
import subprocess
import sys
import threading
import time

import pytest

from conftest import REPO, run_cran
from cran import radio
from host_tools import fieldnet, roster, vbadge
from host_tools.station import GM_NAME, radio_id
from host_tools.vhw.cpython import cryptolib


@pytest.fixture(autouse=True)
def _needs_micropython(micropython):
    pass


class Station:
    """`cran field --json` (or another cran command) in the background: its lines read
    as they come."""

    def __init__(self, args, command="field"):
        self.process = subprocess.Popen(
            [sys.executable, "-m", "host_tools", command] + (
                ["--json"] if command == "field" else []) + args,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            cwd=REPO)
        self.lines = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.process.stdout:
            self.lines.append(json.loads(line))

    def said(self):
        """What it said on stderr, once it has ended."""
        return self.process.stderr.read()

    def send(self, word):
        self.process.stdin.write(word + "\n")
        self.process.stdin.flush()

    def wait_for(self, test, timeout=40):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            for line in reversed(self.lines):
                if "badges" in line:
                    if test({b["name"]: b for b in line["badges"]}):
                        return line
                    break
            time.sleep(0.2)
        raise AssertionError("not seen in %ds: %s" % (timeout, self.lines[-1:]))

    def stop(self):
        self.process.terminate()
        try:
            self.process.wait(10)
        finally:
            self.process.stdout.close()
            self.process.stderr.close()
            self.process.stdin.close()


def _game(tmp_path):
    template = roster.settings_template()
    template["radio"] = True
    game = tmp_path / "game.json"
    game.write_text(json.dumps(template))
    return game, template


def _wait_for_air(name, holder):
    deadline = time.monotonic() + 10
    while not os.path.exists(fieldnet.port_file(name)):
        assert time.monotonic() < deadline, holder.process.stderr.read()
        time.sleep(0.1)


def _stop_resume_and_a_forgery(station, template, name, ports):
    """The station stops both badges (their own status says so), resumes them, and a
    forged stop then stops nobody."""
    station.send("stop")
    station.wait_for(lambda b: len(b) == 2 and all(r["jeu"] == "stop" for r in b.values()))
    status = json.loads(run_cran("status", "--port", ports[0], "--json").stdout)
    assert status["jeu"] == "stop"
    station.send("reprise")
    station.wait_for(lambda b: len(b) == 2 and all(
        r["jeu"] == "en-jeu" for r in b.values()))
    _forged_stop(template, name)
    for port in ports:
        status = json.loads(run_cran("status", "--port", port, "--json").stdout)
        assert status["jeu"] == "en-jeu"


def _forged_stop(template, name):
    """A member of the air with the game key (as any badge has it) forges the game
    master's stop: a good tag, no token of his chain; sent over a period and more, as
    the station sends."""
    keys = radio.Keys(bytes.fromhex(template["game_key"]), cryptolib.aes)
    forged = radio.seal(keys, radio_id(GM_NAME), radio.GM, 1 << 20, radio.STOP, b"",
                        (50, b"\x00" * 16))
    rogue = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    hub = ("127.0.0.1", fieldnet.hub_port(name))
    for _ in range(700):
        rogue.sendto(b"F" + forged, hub)
        time.sleep(0.002)
    rogue.close()
    time.sleep(2)


def test_a_station_sees_its_badges_stops_and_resumes_them_and_a_forgery_does_nothing(
        tmp_path):
    game, template = _game(tmp_path)
    name = "test%d" % os.getpid()
    station = Station(["--settings", str(game), "--virtual", name])
    try:
        _wait_for_air(name, station)
        with vbadge.running(field=name) as one, vbadge.running(field=name) as two:
            rows = tmp_path / "roster.csv"
            rows.write_text("name,armor,board,port,role\nGodefroy,metal,atom-lite,%s,\n"
                            "Ysolde,cuir,atom-lite,%s,soigneuse\n" % (one.port, two.port))
            r = run_cran("flash", "--roster", str(rows), "--settings", str(game))
            assert r.returncode == 0, r.stdout + r.stderr

            # Both heard by the station, under their radio ids (the roster's names).
            ids = {radio_id("Godefroy").hex(), radio_id("Ysolde").hex()}
            station.wait_for(lambda b: {r["id"] for r in b.values()} == ids)

            _stop_resume_and_a_forgery(station, template, name, (one.port, two.port))
    finally:
        station.stop()
    assert not os.path.exists(fieldnet.port_file(name))   # the field ends with its station


def test_a_station_badge_on_usb_is_the_laptops_radio(tmp_path):
    game, template = _game(tmp_path)
    name = "usb%d" % os.getpid()
    air = Station(["--field", name], command="air")
    field = None
    try:
        _wait_for_air(name, air)
        with vbadge.running(field=name) as usb, vbadge.running(field=name) as one, \
                vbadge.running(field=name) as two:
            r = run_cran("flash", "--port", usb.port, "--station")
            assert r.returncode == 0, r.stdout + r.stderr
            assert "the game master's station" in r.stdout
            rows = tmp_path / "roster.csv"
            rows.write_text("name,armor,board,port,role\nGodefroy,metal,atom-lite,%s,\n"
                            "Ysolde,cuir,atom-lite,%s,soigneuse\n" % (one.port, two.port))
            r = run_cran("flash", "--roster", str(rows), "--settings", str(game))
            assert r.returncode == 0, r.stdout + r.stderr

            # Its port is a player's badge's: said, with what makes it a station.
            r = run_cran("field", "--settings", str(game), "--port", one.port, "--json")
            assert r.returncode == 2 and r.stderr.strip() == (
                "cran: %s: a player's badge (Godefroy): make it the station with `cran "
                "flash --port %s --station`" % (one.port, one.port)), r.stderr

            journal = tmp_path / "field.jsonl"
            field = Station(["--settings", str(game), "--roster", str(rows), "--port",
                             usb.port, "--journal", str(journal)])
            # Both heard at once (the station asks who is there), by their names.
            field.wait_for(lambda b: set(b) == {"Godefroy", "Ysolde"})
            _stop_resume_and_a_forgery(field, template, name, (one.port, two.port))
            last = field.wait_for(lambda b: len(b) == 2)
            assert last["radio"]["port"] == usb.port and last["radio"]["lost"] is None
            assert last["radio"]["refused"] == 0 and last["radio"]["garbled"] == 0
            field.stop()
            field = None
            # The station's journal: what it sent, what it heard of each badge.
            r = run_cran("logs", "--file", str(journal), "--out", str(tmp_path / "f.svg"))
            assert r.returncode == 0, r.stderr
            assert "sent: stop" in r.stdout and "sent: reprise" in r.stdout
            for who in ("Godefroy", "Ysolde"):
                assert who in r.stdout
    finally:
        if field is not None:
            field.stop()
        air.stop()
    assert not os.path.exists(fieldnet.port_file(name))
