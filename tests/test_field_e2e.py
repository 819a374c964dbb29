# A virtual field end to end, nothing faked on the host side: `cran field --virtual`
# (the game master's station and the field's air), two `cran vbadge --field` badges (the
# firmware in the MicroPython unix port) flashed by `cran flash` from a roster with a
# healer, their heartbeats read by the station with their names, a stop and a resume
# sent from the station's stdin, and a forged stop from a member of the air who holds the
# game key but not the game master's chain: nobody stops.
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
    """`cran field --json` in the background: its lines read as they come."""

    def __init__(self, args):
        self.process = subprocess.Popen(
            [sys.executable, "-m", "host_tools", "field", "--json"] + args,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            cwd=REPO)
        self.lines = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.process.stdout:
            self.lines.append(json.loads(line))

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


def test_a_station_sees_its_badges_stops_and_resumes_them_and_a_forgery_does_nothing(
        tmp_path):
    template = roster.settings_template()
    template["radio"] = True
    game = tmp_path / "game.json"
    game.write_text(json.dumps(template))
    name = "test%d" % os.getpid()
    station = Station(["--settings", str(game), "--virtual", name])
    try:
        deadline = time.monotonic() + 10
        while not os.path.exists(fieldnet.port_file(name)):
            assert time.monotonic() < deadline, station.process.stderr.read()
            time.sleep(0.1)
        with vbadge.running(field=name) as one, vbadge.running(field=name) as two:
            rows = tmp_path / "roster.csv"
            rows.write_text("name,armor,board,port,role\nGodefroy,metal,atom-lite,%s,\n"
                            "Ysolde,cuir,atom-lite,%s,soigneuse\n" % (one.port, two.port))
            r = run_cran("flash", "--roster", str(rows), "--settings", str(game))
            assert r.returncode == 0, r.stdout + r.stderr

            # Both heard by the station, under their radio ids (the roster's names).
            ids = {radio_id("Godefroy").hex(), radio_id("Ysolde").hex()}
            station.wait_for(lambda b: {r["id"] for r in b.values()} == ids)

            station.send("stop")
            station.wait_for(lambda b: len(b) == 2 and all(
                r["jeu"] == "stop" for r in b.values()))
            status = json.loads(run_cran("status", "--port", one.port, "--json").stdout)
            assert status["jeu"] == "stop"

            station.send("reprise")
            station.wait_for(lambda b: len(b) == 2 and all(
                r["jeu"] == "en-jeu" for r in b.values()))

            # A member of the air with the game key (as any badge has it) forges the game
            # master's stop: a good tag, no token of his chain.
            keys = radio.Keys(bytes.fromhex(template["game_key"]), cryptolib.aes)
            forged = radio.seal(keys, radio_id(GM_NAME), radio.GM, 1 << 20, radio.STOP, b"",
                                (50, b"\x00" * 16))
            rogue = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            hub = ("127.0.0.1", fieldnet.hub_port(name))
            for _ in range(700):   # over a period and more, as the station sends
                rogue.sendto(b"F" + forged, hub)
                time.sleep(0.002)
            rogue.close()
            time.sleep(2)
            for port in (one.port, two.port):
                status = json.loads(run_cran("status", "--port", port, "--json").stdout)
                assert status["jeu"] == "en-jeu"
    finally:
        station.stop()
    assert not os.path.exists(fieldnet.port_file(name))   # the field ends with its station
