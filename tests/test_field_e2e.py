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
from host_tools.field import fieldnet
from host_tools.game import roster
from host_tools.game.chains import GM_NAME, radio_id
from host_tools.sim.session import ClockRefused
from host_tools.virtual import vbadge
from host_tools.virtual.micropython.cpython import cryptolib


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
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

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
        raise AssertionError("not seen in %ds: %s" % (timeout, str(self.lines[-1:])[:3000]))

    def stop(self):
        self.process.terminate()
        try:
            self.process.wait(10)
            self.reader.join(10)   # to the end of its output: not closed under its read
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


def _forged_stop(template, name, key=None, wait_s=2):
    """A member of the air with the game key (as any badge has it; or key, another)
    forges the game master's stop: a good tag, no token of his chain; sent over a
    period and more, as the station sends."""
    _forge(template, name, [(radio_id(GM_NAME), radio.GM, radio.STOP, b"")], key)
    time.sleep(wait_s)


def _forge(template, name, frames, key=None):
    """frames [(sender, role, kind, payload)] forged under the game key (or key) with a
    token of no chain, sent in turn over a period and more, as the station sends."""
    keys = radio.Keys(key or bytes.fromhex(template["game_key"]), cryptolib.aes)
    forged = [radio.seal(keys, sender, role, 1 << 20, kind, payload,
                         (50, b"\x00" * 16, int(time.time())))
              for sender, role, kind, payload in frames]
    rogue = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    hub = ("127.0.0.1", fieldnet.hub_port(name))
    for n in range(700):
        rogue.sendto(fieldnet.frame_datagram(forged[n % len(forged)]), hub)
        time.sleep(0.002)
    rogue.close()


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


def _rehearsal_roster(path, patient_port):
    """docs/radio.md's rehearsal roster (examples/rehearsal.csv: 49 rows for the crowd, a
    healer and a smith among them, and Ali on /tmp/ali), Ali's port made this test's
    vbadge's. -> the healer's and the patient's names."""
    with open(os.path.join(REPO, "examples", "rehearsal.csv"), encoding="utf-8") as f:
        text = f.read()
    assert text.count(",/tmp/ali,") == 1
    path.write_text(text.replace(",/tmp/ali,", ",%s," % patient_port))
    return "Ysolde", "Ali"


def _badge_status(port):
    return json.loads(run_cran("status", "--port", port, "--json").stdout)


def _when_stopped(crowd_line, word, since_ms):
    """On the crowd's clock: when the air first carried the station's `word` after
    since_ms, and when the last of the crowd's badges took it -> (first copy, last)."""
    first = [c["at_ms"] for c in crowd_line["commands"]
             if c["kind"] == word and c["from"] == "station" and c["at_ms"] >= since_ms]
    return first[0], max(b["jeu_ms"] for b in crowd_line["badges"])


def _everyone_takes(word, jeu, field, air, patient_port, figures):
    """The station sends word: its table, the crowd and the patient's badge all say jeu.
    A badge that missed it (the station badge and the patient are MicroPython processes
    in real time: on a busy machine one may send its copies or open its window late) is
    seen on the table, and the organiser sends it again, as on a field; at most 4 times."""
    since = air.wait_for(lambda b: True)["t_ms"]   # the crowd's clock now
    sent = time.monotonic()
    for sends in range(1, 6):
        field.send(word)
        try:
            field.wait_for(lambda b: len(b) == 50 and all(
                r["jeu"] == jeu for r in b.values()), timeout=10)
            break
        except AssertionError:
            if sends == 5:
                raise
            last = [line for line in field.lines if "badges" in line][-1]
            figures.setdefault(word + ": missed", []).append(
                [r["name"] for r in last["badges"] if r["jeu"] != jeu])
    figures[word + ": sent (times)"] = sends
    line = air.wait_for(lambda b: all(r["jeu"] == jeu for r in b.values()))
    first, last = _when_stopped(line, word, since)
    # On the crowd's badges' own clock (each took it in a window at its own ms, however
    # late the crowd's thread ran): a figure, not a test of this machine's speed; the
    # second is tested in virtual time (tests/test_field.py).
    figures[word + ": first copy -> all 49 (ms)"] = last - first
    figures[word + ": typed -> all 49 (ms)"] = round(
        (line["clock_s"] + last / 1000 - sent) * 1000)
    figures["crowd's thread late at worst (ms)"] = line["late_ms"]
    assert _badge_status(patient_port)["jeu"] == jeu


def _until(test, what, timeout=30, must=True):
    deadline = time.monotonic() + timeout
    while True:
        got = test()
        if got or (not must and time.monotonic() >= deadline):
            return got
        assert time.monotonic() < deadline, "not seen in %ds: %s" % (timeout, what)
        time.sleep(0.2)


def _forgeries_stop_and_heal_nobody(template, name, air, patient_port, healer,
                                    patient_name, neighbour):
    """Stops forged by a member with the game key and by one with another key, then
    heals forged in the healer's name to the patient and to a player of the crowd:
    every badge of the crowd hears them in its windows and drops them (no token of the
    chain; another game), stops not, is offered nothing; nor is the patient. Forged
    again and again until every badge heard them, as a rogue would: this test's own
    sends, on a busy machine, may leave gaps a window falls in."""
    def latest():
        return [x for x in air.lines if "badges" in x][-1]

    def until_all(test, forge):
        deadline = time.monotonic() + 60
        while not all(test(b) for b in latest()["badges"]):
            assert time.monotonic() < deadline, latest()
            forge()
        return latest()

    gm = [(radio_id(GM_NAME), radio.GM, radio.STOP, b"")]
    line = until_all(lambda b: b["dropped"].get("token") and b["dropped"].get("game"),
                     lambda: (_forge(template, name, gm), _forge(template, name, gm,
                                                                  key=bytes(32))))
    assert all(b["jeu"] == "en-jeu" for b in line["badges"])
    assert _badge_status(patient_port)["jeu"] == "en-jeu"
    before = {b["name"]: b["dropped"]["token"] for b in line["badges"]}
    heals = [(radio_id(healer), radio.HEALER, radio.HEAL, radio_id(who))
             for who in (patient_name, neighbour)]
    line = until_all(lambda b: b["dropped"]["token"] > before[b["name"]],
                     lambda: (_forge(template, name, heals), _forge(template, name, heals,
                                                                     key=bytes(32))))
    assert all(b["offers"] == [] and b["etat"] == "pleine-forme" for b in line["badges"])
    assert _offers_shown(patient_port) == []


def _offers_shown(port):
    journal = run_cran("console", "--port", port, "journal").stdout
    return [(e["radio"], e["value"]) for e in map(json.loads, journal.splitlines())
            if e.get("radio") in ("offer", "offered")]


def _the_nearest_is_healed_once_pressed(healer, crowd, air, patient, patient_name,
                                        patient_port, game):
    """The crowd's healer treats the nearest badge: the vbadge 1 m away, not the two
    players 3 m away (near enough too). The vbadge shows the offer and is healed only
    once its wearer's long press takes it."""
    spot = {b["name"]: (b["x"], b["y"]) for b in crowd["badges"]}[healer]
    neighbours = [b["name"] for b in crowd["badges"] if b["name"] != healer and abs(
        b["x"] - spot[0]) + abs(b["y"] - spot[1]) <= 3]
    assert len(neighbours) == 2   # the healer in a corner of the crowd's grid
    for who in neighbours:
        air.send(who + " coup blesse")
    r = run_cran("console", "--port", patient_port, "--settings", str(game), "coup blesse")
    assert r.returncode == 0 and _badge_status(patient_port)["etat"] == "blesse"
    air.wait_for(lambda b: all(b[who]["etat"] == "blesse" for who in neighbours))
    # The healer listens a period and two windows for the answers, then sends its offer
    # for a period. The patient's badge, a MicroPython process in real time, may on a
    # busy machine answer too late (its window among the search's last, it answers
    # 25 ms after plus its lateness, measured at 400 ms under `nice -n 19` on a loaded
    # machine: the next nearest is offered; missed in ~1 try in 5 at a load of 4 on 2
    # cores, the whole suite's) or open its window after the offer's last copy (nothing
    # shown): its wearer tries again, as a healer on the field would.
    for tries in range(1, 11):
        air.send(healer + " treat")
        line = air.wait_for(lambda b, n=tries: len(b[healer]["offered"]) == n)
        offered = {b["name"]: b for b in line["badges"]}[healer]["offered"]
        answered = {b["name"]: b for b in line["badges"]}[healer]["answered"]
        treated = [x for x in air.lines if x.get("done") == healer + " treat"][-1]
        print("treat %d at %d ms: offered %s, answered by %s; %s heard at %s" % (
            tries, treated["at_ms"], offered[-1], answered[-3:], patient_name,
            [at for who, at in line["others_heard"] if who == patient_name]))
        if offered[-1] == patient_name and _until(
                lambda: _offers_shown(patient_port), "the offer", timeout=5, must=False):
            break
    assert _offers_shown(patient_port) == [("offer", "soin")], (offered, answered)
    assert _badge_status(patient_port)["etat"] == "blesse"   # nothing without the press
    patient.press("A")   # the patient's long press takes it
    _until(lambda: _badge_status(patient_port)["etat"] == "pleine-forme",
           "the patient healed: %s" % patient.stderr()[-800:])
    line = air.wait_for(lambda b: True)
    assert [b["etat"] for b in line["badges"] if b["name"] in neighbours] == [
        "blesse"] * 2   # an offer to a neighbour (a try missed) is not taken unpressed
    return tries


def test_a_rehearsal_one_laptop_one_usb_station_a_crowd_of_50_and_a_healer(tmp_path):
    """docs/radio.md's rehearsal: cran air hosts 49 badges of examples/rehearsal.csv, a
    vbadge is the 50th (its port in the roster), another the station on USB; cran
    field sees all 50 by name, stops and resumes them, forgeries stop and heal nobody,
    the crowd's healer heals the vbadge, only once it is pressed, and the table says
    every badge's state."""
    game, template = _game(tmp_path)
    name = "crowd%d" % os.getpid()
    rows = tmp_path / "roster.csv"
    patient_link = tmp_path / "patient"
    healer, patient_name = _rehearsal_roster(rows, patient_link)
    air = Station(["--field", name, "--settings", str(game), "--roster", str(rows),
                   "--json"], command="air")
    field = None
    figures = {}
    try:
        crowd = air.wait_for(lambda b: len(b) == 49)
        spot = {b["name"]: (b["x"], b["y"]) for b in crowd["badges"]}[healer]
        with vbadge.running(field=name) as usb, vbadge.running(
                field=name, link=patient_link, at=(spot[0] + 1, spot[1]),
                buttons=True) as patient:
            r = run_cran("flash", "--port", usb.port, "--station")
            assert r.returncode == 0, r.stdout + r.stderr
            r = run_cran("flash", "--roster", str(rows), "--settings", str(game), "--port",
                         str(patient_link))
            assert r.returncode == 0, r.stdout + r.stderr

            started = time.monotonic()
            field = Station(["--settings", str(game), "--roster", str(rows), "--port",
                             usb.port])
            # Within a second or so; a badge whose window missed the station's first call
            # (a process of a busy machine, late) shows at its next heartbeat, a minute on.
            field.wait_for(lambda b: len(b) == 50, timeout=90)
            figures["all 50 seen by name (s)"] = round(time.monotonic() - started, 1)

            for word, jeu in (("stop", "stop"), ("reprise", "en-jeu")):
                _everyone_takes(word, jeu, field, air, str(patient_link), figures)

            _forgeries_stop_and_heal_nobody(template, name, air, str(patient_link),
                                            healer, patient_name, "Joueur 01")   # 3 m off
            figures["treat: tries"] = _the_nearest_is_healed_once_pressed(
                healer, crowd, air, patient, patient_name, str(patient_link), game)
            # The station's table says what every badge says of itself.
            etats = {b["name"]: b["etat"] for b in air.wait_for(lambda b: True)["badges"]}
            etats[patient_name] = _badge_status(str(patient_link))["etat"]
            assert sorted(etats.values()).count("blesse") == 2
            field.wait_for(lambda b: {n: r["etat"] for n, r in b.items()} == etats)
    finally:
        if field is not None:
            field.stop()
        air.stop()
    print("rehearsal figures:", figures)
    assert not os.path.exists(fieldnet.port_file(name))


# ---- `cran sim --field`: the badge on the desktop, on a field --------------------------

def _sim_badge(tmp_path, rows, game, name, at=None, runtime="micropython"):
    """The first row's badge config, as `cran config` writes it, booted by `cran sim
    --field` -> (its BadgeDriver, its Session, the journal entries it writes)."""
    from host_tools.sim.session import Session
    from host_tools.sim.start import prepare
    roster_file = tmp_path / "roster.csv"
    roster_file.write_text(rows)
    r = run_cran("config", str(roster_file), "--settings", str(game), "--out",
                 str(tmp_path / "badges"))
    assert r.returncode == 0, r.stdout + r.stderr
    config = sorted((tmp_path / "badges").glob("*.json"))[0]
    driver, _, key = prepare(runtime, character=str(config), field=name, at=at)
    journal = []
    session = Session(driver, field=name, game_key=key,
                      on_frame=lambda f: journal.extend(e for _, e in f["journal"]))
    return driver, session, journal


def _rows(station):
    """The station's last table: {badge id: row}."""
    for line in reversed(station.lines):
        if "badges" in line:
            return {r["id"]: r for r in line["badges"]}
    return {}


def _lives_until(session, test, what, timeout=20):
    """The sim's beats (as its terminal UI gives them, 20 a second) until test()."""
    deadline = time.monotonic() + timeout
    while not test():
        assert time.monotonic() < deadline, "not in %ds: %s" % (timeout, what)
        session.tick()
        time.sleep(0.05)


def test_a_sim_badge_on_a_field_is_seen_stopped_and_resumed(tmp_path):
    # `cran sim --field`: the desktop's badge lives in real time on the station's field;
    # the station sees its wearer's hit (S2), its stop and resume (K15) reach it, and
    # the console lines of its pickers, locked by the game key, go unlocked with it.
    game, _ = _game(tmp_path)
    name = "simf%d" % os.getpid()
    station = Station(["--settings", str(game), "--virtual", name])
    driver = None
    try:
        _wait_for_air(name, station)
        driver, sim, journal = _sim_badge(
            tmp_path, "name,armor,board,badge\nAude,none,atom-lite,b01\n", game, name)
        aude = radio_id("Aude").hex()
        row = lambda: _rows(station).get(aude, {})  # noqa
        _lives_until(sim, lambda: row(), "the station hears the sim badge")
        sim.press("a", "short")   # a hit: the finger's moves in real time, beat by beat
        _lives_until(sim, lambda: sim.frame["view"]["etat"] == "blesse", "the hit")
        _lives_until(sim, lambda: row()["etat"] == "blesse", "the station sees it blesse")
        for word, jeu in (("stop", "stop"), ("reprise", "en-jeu")):
            station.send(word)
            _lives_until(sim, lambda j=jeu: sim.frame["view"]["jeu"] == j, word)
            _lives_until(sim, lambda j=jeu: row()["jeu"] == j, "the station sees " + jeu)
        answer = sim.line("coup agonisant")
        assert answer[0].startswith("ok coup agonisant: etat=agonisant"), answer
        assert sim.frame["status"]["personnage"] == "Aude"
        for change in (lambda: sim.set_speed(10), sim.pause, lambda: sim.jump(60000)):
            with pytest.raises(ClockRefused, match="on field simf.* the clock is real time"):
                change()
        assert [e for e in journal if "error" in e] == []
    finally:
        if driver is not None:
            driver.close()
        station.stop()


def test_a_crowds_healer_heals_the_sim_badge_once_its_wearer_presses(tmp_path):
    # The sim's wearer, 1 m from the crowd's healer (`cran air --roster`), hit (S2): the
    # healer treats, the sim badge shows the offer, and only the long press takes it (S10).
    game, _ = _game(tmp_path)
    name = "simh%d" % os.getpid()
    rows = ("name,armor,board,badge,port,role\nAude,none,atom-lite,,%s,\n"
            "Ysolde,none,atom-lite,b02,,soigneuse\n" % (tmp_path / "aude"))
    (tmp_path / "crowd.csv").write_text(rows)
    air = Station(["--field", name, "--settings", str(game), "--roster",
                   str(tmp_path / "crowd.csv"), "--json"], command="air")
    driver = None
    try:
        crowd = air.wait_for(lambda b: len(b) == 1)
        healer = crowd["badges"][0]
        driver, sim, journal = _sim_badge(tmp_path, rows, game, name,
                                        at="%g,%g" % (healer["x"] + 1, healer["y"]))
        assert sim.line("coup blesse")[0].startswith("ok coup blesse: etat=blesse")
        offered = lambda: [e["value"] for e in journal if e.get("radio") == "offer"]  # noqa
        for _ in range(5):   # a window missed on a busy machine: treat again
            air.send("Ysolde treat")
            deadline = time.monotonic() + 4
            while not offered() and time.monotonic() < deadline:
                sim.tick()
                time.sleep(0.05)
            if offered():
                break
        assert offered() == ["soin"]
        assert sim.frame["view"]["etat"] == "blesse"   # nothing without the press
        sim.press("a", "long")
        _lives_until(sim, lambda: sim.frame["view"]["etat"] == "pleine-forme",
                     "the offer taken by the long press")
    finally:
        if driver is not None:
            driver.close()
        air.stop()


class _BusyLaptop:
    """A laptop's load, made by the test: a busy loop per core and as many again (a
    load of ~4 on 2 cores, the issue's was 4 to 9), at the badges' own priority."""

    def __init__(self):
        count = 2 * (os.cpu_count() or 2)
        self.loops = [subprocess.Popen([sys.executable, "-c", "while True: pass"])
                      for _ in range(count)]

    def __enter__(self):
        return self

    def __exit__(self, *_):
        for p in self.loops:
            p.kill()
        for p in self.loops:
            p.wait(10)


def test_the_rehearsal_s_heal_reaches_the_nearest_badge_on_a_busy_laptop(tmp_path):
    # Issue 35: on a loaded laptop `Ysolde treat` reached Joueur 01 (3 m off) 8 times out
    # of 8, never Ali, 1 m off: Ali's vbadge, a process of its own, answered the search
    # late, or opened its window after the offer's last copy. The air makes up for the
    # lateness of another process (host_tools/field/fieldnet.py, crowd.py); a real badge
    # hears no more than before. 9 tries in 10 at least, the laptop busy.
    game, _ = _game(tmp_path)
    name = "busy%d" % os.getpid()
    rows = tmp_path / "roster.csv"
    patient_link = tmp_path / "ali"
    healer, patient_name = _rehearsal_roster(rows, patient_link)
    air = Station(["--field", name, "--settings", str(game), "--roster", str(rows),
                   "--json"], command="air")
    try:
        crowd = air.wait_for(lambda b: len(b) == 49)
        spot = {b["name"]: (b["x"], b["y"]) for b in crowd["badges"]}[healer]
        with vbadge.running(field=name, link=patient_link, at=(spot[0] + 1, spot[1]),
                            buttons=True) as patient:
            r = run_cran("flash", "--roster", str(rows), "--settings", str(game), "--port",
                         str(patient_link))
            assert r.returncode == 0, r.stdout + r.stderr
            r = run_cran("console", "--port", str(patient_link), "--settings", str(game),
                         "coup blesse")
            assert r.returncode == 0, r.stdout + r.stderr
            reached, said = 0, []
            with _BusyLaptop():
                for tries in range(1, 11):
                    shown = len(_offers_shown(str(patient_link)))
                    air.send(healer + " treat")
                    line = air.wait_for(
                        lambda b, n=tries: len(b[healer]["offered"]) == n, timeout=60)
                    offered = {b["name"]: b for b in line["badges"]}[healer]["offered"][-1]
                    got = offered == patient_name and _until(
                        lambda n=shown: len(_offers_shown(str(patient_link))) > n,
                        "the offer on Ali's badge", timeout=10, must=False)
                    reached += bool(got)
                    said.append(offered if got else "%s (not shown)" % offered)
                    time.sleep(1.5)   # the offer's copies over
            print("treated, the laptop busy:", said)
            assert reached >= 9, said
            # With consent, as ever: ten offers shown, none taken unpressed; the long
            # press takes the next.
            assert _badge_status(str(patient_link))["etat"] == "blesse"
            # Treated again until the offer shows on Ali's badge (the 1 in 10 the test
            # above allows may fall here: the doc's "treat again").
            for tries in range(11, 16):
                shown = len(_offers_shown(str(patient_link)))
                air.send(healer + " treat")
                air.wait_for(lambda b, n=tries: len(b[healer]["offered"]) == n, timeout=60)
                if _until(lambda n=shown: len(_offers_shown(str(patient_link))) > n,
                          "an offer", timeout=10, must=False):
                    break
                time.sleep(1.5)
            else:
                raise AssertionError("no offer shown on Ali's badge in 5 treats")
            patient.press("A")
            _until(lambda: _badge_status(str(patient_link))["etat"] == "pleine-forme",
                   "Ali healed, once pressed")
    finally:
        air.stop()
