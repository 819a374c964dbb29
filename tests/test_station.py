# The game master's station badge (cran.station): its relay inside the real MicroPython
# unix port and under CPython (tests/mp/station_driver.py, the same expectations for
# both), and its firmware as cran flash builds it: the relay and what it imports, the
# badge's own main.py starting it, nothing of it on a player's badge.
import json
import os
import subprocess
import sys

import pytest

from conftest import check_results
from host_tools import FIRMWARE_DIR, build

DRIVER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "mp", "station_driver.py")
RUNTIMES = ("micropython", "cpython")
WRAP = 1 << 30


def _run(exe):
    out = subprocess.run([exe, DRIVER, FIRMWARE_DIR], capture_output=True, text=True,
                         timeout=60)
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-2000:]
    return {r["id"]: r for r in map(json.loads, out.stdout.splitlines())}


@pytest.fixture(scope="module")
def on_micropython(micropython):
    return _run(micropython)


@pytest.fixture(scope="module")
def on_cpython():
    return _run(sys.executable)


@pytest.fixture(params=RUNTIMES)
def result(request):
    return check_results(request.getfixturevalue("on_" + request.param))


def test_frames_heard_go_up_once_with_their_signal(result):
    r = result("frames_heard_go_up_once_with_their_signal")
    assert r["said"] == ["heard -48 c1" + "00" * 30, "heard -70 c1" + "02" * 40]
    assert (r["status"]["heard"], r["status"]["again"]) == (2, 2)
    assert r["status"]["station"] is True and r["status"]["id"] == "240ac4000001"


def test_a_frame_is_sent_again_and_again_as_asked_across_the_wrap(result):
    r = result("a_frame_is_sent_again_and_again_as_asked_across_the_wrap")
    start = WRAP - 20
    assert r["sent_at"] == [(start + 3 * n) % WRAP for n in range(11)]   # 30 ms, every 3
    assert r["frames"] == ["c10203"] * 11 + ["c1ff"] and r["said"] == []
    assert r["repeating"] == 0


def test_garbled_lines_are_refused_by_name_and_change_nothing(result):
    r = result("garbled_lines_are_refused_by_name_and_change_nothing")
    said = r["said"]
    assert r["sent"] == 1 and r["refused"] == 12   # "send c1": a frame of one byte
    assert said[0].startswith('error: "sned c101": not a station\'s command (send HEX')
    assert said[1] == 'error: "send": expected send HEX [EVERY_MS FOR_MS]'
    assert said[2] == ('error: "send zz": HEX: a frame of 1 to 250 bytes in hex digits (2 '
                       'characters here)')
    assert said[3] == 'error: "send c1 0 100": EVERY_MS from 1 to 1000, FOR_MS from 0 to 10000'
    assert said[6].startswith('error: "send ababab') and "(502 characters here)" in said[6]
    assert said[7].startswith('error: "\\xff\\xfe\\x00garbage": not a station')
    assert "the station keeps no journal" in said[10]
    assert said[11].startswith('error: "xxxxxxxx') and said[11].endswith(
        '...": longer than 600 characters: not read')
    assert said[12:] == ["cran-42", "station commands: send HEX [EVERY_MS FOR_MS], status, "
                                    "echo WORD, help"]


def test_no_more_than_eight_frames_repeat_and_a_failing_radio_is_said_once(result):
    r = result("no_more_than_eight_frames_repeat_at_once_and_a_failing_radio_is_said")
    said = r["said"]
    assert said[0] == ('error: "send c108 3 900": 8 frames are being sent again already: '
                       'wait for one to end')
    assert said[1].startswith('error: "send c1aa": the radio did not send it (OSError(')
    # Each repeating frame's failed copy said once, and its copies stopped.
    assert len(said) == 2 + 8 and r["repeating"] == 0 and r["sent"] == 8


def test_status_is_one_json_line(result):
    r = result("status_is_one_json_line")
    assert r == {"station": True, "firmware": r["firmware"], "id": "240ac4000001",
                 "uptime_ms": 1000, "heard": 0, "again": 0, "sent": 0, "refused": 0,
                 "repeating": 0, "lost": 3}


def test_a_station_gets_the_relay_alone_and_a_player_never_gets_it(tmp_path):
    station = build.compile_station(str(tmp_path / "station"))
    on_badge = build.badge_path   # (each module a file of its own: build.flattened)
    assert on_badge("/cran/station.mpy") in station and on_badge("/cran/hal/espnow.mpy") in station
    for module in ("/cran/app.mpy", "/cran/radio/__init__.mpy", "/cran/radio/link.mpy",
                   "/cran/lock.mpy", "/cran/fail.mpy"):
        assert on_badge(module) not in station   # no app, no frames' keys, no lock: a relay
    with open(station["/main.py"]) as f:
        main = f.read()
    modules = build.badge_modules()
    assert main.count("__import__(%r, None, None, (\"main\",)).main()"
                      % modules["cran.station"]) == 1
    assert "__import__(%r" % modules["cran.run"] not in main
    with open(os.path.join(FIRMWARE_DIR, "main.py")) as f:
        assert main.replace(repr(modules["cran.station"]), repr(modules["cran.run"])) == (
            build.flattened(f.read(), modules))
    player = build.compile_firmware(str(tmp_path / "player"))
    assert on_badge("/cran/station.mpy") not in player
    names = build.names_of(player)
    assert not [n for group in names.values() for n in group[1] if "station" in n]


# ---- the computer's half: host_tools/field/usbstation.py, the station's journal ---------------

class _Line:
    """pyserial's Serial as UsbRadio reads and writes it: what the station says comes
    in the pieces given; a write after `fail_after` writes raises, as an unplugged port."""

    def __init__(self, pieces, fail_after=None):
        self.pieces = list(pieces)
        self.written = []
        self.fail_after = fail_after

    @property
    def in_waiting(self):
        return len(self.pieces[0]) if self.pieces else 0

    def read(self, n):
        return self.pieces.pop(0) if self.pieces else b""

    def write(self, data):
        if self.fail_after is not None and len(self.written) >= self.fail_after:
            raise OSError(5, "Input/output error")
        self.written.append(data)

    def close(self):
        pass


def test_the_computer_reads_what_the_station_says_and_names_the_rest():
    from host_tools.field.usbstation import UsbRadio, read_line
    assert read_line(b"heard -52 c10203") == ("heard", b"\xc1\x02\x03", -52)
    assert read_line(b"error: \"sned\": not a station's command")[0] == "error"
    assert read_line(b'{"station": true, "id": "ab"}') == ("status", {"station": True,
                                                                    "id": "ab"})
    assert read_line(b"  \r") == ("empty",)
    for noise in (b"heard -52 c1020", b"heard 40 c1", b"heard -52 " + b"ab" * 251,
                  b"\xff\x00 MicroPython v1.28", b"{[", b"heard"):
        assert read_line(noise)[0] == "garbled", noise
    heard = []
    usb = UsbRadio("P", _Line([b"heard -40 c1", b"0203\r\nheard -41 c1ff\r\n",
                               b"error: \"send zz\": HEX: ...\r\n\xfe\xfe\n",
                               b"x" * 3000]), {"id": "ab"})
    usb.on_note = heard.append
    got = []
    for _ in range(6):
        frame = usb.recv()
        if frame is not None:
            got.append(frame)
    assert got == [(b"\xc1\x02\x03", -40), (b"\xc1\xff", -41)]
    assert (usb.refused, usb.garbled) == (1, 2) and usb.partial == b""
    assert heard[0] == 'the station refused a line: "send zz": HEX: ...'
    assert heard[1] == "P: a line that is none of the station's words: \"\\xfe\\xfe\""
    usb.repeat(b"\xc1\x01", 3, 925)
    usb.send(None, b"\xc1\x02")
    assert usb.conn.written == [b"send c101 3 925\n", b"send c102\n"]


def test_a_station_unplugged_is_said_once_and_nothing_more_is_tried():
    from host_tools.field.usbstation import UsbRadio
    usb = UsbRadio("/dev/ttyUSB0", _Line([], fail_after=0), {"id": "ab"})
    usb.send(None, b"\xc1")
    usb.send(None, b"\xc1")
    assert usb.recv() is None
    assert usb.lost_line.startswith("/dev/ttyUSB0: lost the station: [Errno 5]")
    assert "plug it back in and start cran field again" in usb.lost_line
    assert usb.notes == [usb.lost_line]


def _row(etat="pleine-forme", jeu="en-jeu", effets=None, abimee=False, rssi=-50):
    return {"etat": etat, "reste": None, "armure": 1, "armure-abimee": abimee, "jeu": jeu,
            "renommee": 0, "batterie": None, "effets": effets or {}, "heard": 0,
            "rssi": rssi}


def test_the_stations_journal_says_each_change_once_and_reads_back_as_a_fight(tmp_path):
    from host_tools.debrief import fieldread, timeline
    from host_tools.field import fieldlog
    path = tmp_path / "field.jsonl"
    one, two = b"\x01" * 6, b"\x02" * 6
    clock = [0]
    journal = fieldlog.FieldJournal(str(path), {one.hex(): "Ali"}, "usb P", "abcd1234",
                                    lambda: clock[0])

    def at(ms):
        clock[0] = ms
        return ms
    journal.heard(one, _row(), at(900))
    journal.heard(one, _row(), at(1900))                # the same again: nothing written
    journal.heard(one, _row("blesse", effets={"peur": 200}, abimee=True), at(5000))
    journal.heard(one, _row("blesse", effets={"peur": 150}, abimee=True), at(6000))
    at(7000)
    journal.sent("stop")
    journal.heard(two, _row("coma", jeu="stop"), at(7400))
    journal.heard(one, _row("blesse", jeu="stop", abimee=True), at(7500))
    at(8000)
    journal.error("the station refused a line: ...")
    journal.close()
    lines = path.read_text().splitlines()
    entries = [json.loads(x) for x in lines]
    assert [e.get("heard") for e in entries if "badge" in e] == [
        [["etat", "pleine-forme"]],
        [["etat", "blesse"], ["effet", "peur"], ["armure", "abimee"]],
        [["etat", "coma"], ["jeu", "stop"]],
        [["fin", "peur"], ["jeu", "stop"]]]
    assert entries[0]["station"] == "usb P" and entries[0]["game"] == "abcd1234"
    assert [e["name"] for e in entries if "badge" in e] == ["Ali", "Ali", "0202" * 3, "Ali"]

    lines.insert(3, "{not json")                   # a torn line, named, skipped
    lines.append('{"badge": "%s", "heard": "x", "up": 9000}' % one.hex())   # edited by hand
    assert fieldread.is_journal(lines) and not fieldread.is_journal(['{"up": 0, "boot": 1}'])
    items, problems = fieldread.timelines(lines, "field.jsonl")
    assert problems == [   # by the station journal's own lines
        "field.jsonl:4: unreadable, skipped (not a station's journal entry)",
        "field.jsonl:%d: unreadable, skipped (cues are not [kind, value] pairs)"
        % len(lines)]
    assert [tl.name for tl, _ in items] == ["GM station", "Ali", "0202" * 3]
    station, ali, other = (tl for tl, _ in items)
    assert station.lanes == ["jeu"] and [m.label for m in station.markers][1:] == [
        "sent: stop", "error: station: the station refused a line: ..."]
    assert ali.lanes[0] == "etat" and "effet peur" in ali.lanes
    # Every group from the station's start: one clock, whole seconds or not.
    assert {tl.start_wall for tl, _ in items} == {entries[0]["t"]}
    assert timeline.align([tl for tl, _ in items])[0] == [0, 0, 0]
    assert [s.value for s in other.spans if s.lane == "etat"] == ["?", "coma"]


def test_cran_field_says_what_is_wrong_with_its_port(tmp_path):
    from conftest import run_cran
    from host_tools.game import roster
    template = roster.settings_template()
    template["radio"] = True
    game = tmp_path / "game.json"
    game.write_text(json.dumps(template))
    r = run_cran("field", "--settings", str(game), "--port", "/dev/no-such-badge", "--json")
    assert r.returncode == 1 and r.stderr.strip() == (
        "cran: /dev/no-such-badge: no such port (is the badge plugged in? `ls /dev/tty*`)")
    r = run_cran("field", "--settings", str(game), "--port", "P", "--loss", "0.3")
    assert r.returncode == 2 and "--loss is the virtual air's" in r.stderr
    r = run_cran("field", "--settings", str(game), "--port", "P", "--virtual", "x")
    assert r.returncode == 2 and "not allowed with argument" in r.stderr
    (tmp_path / "a-file").write_text("")
    r = run_cran("field", "--settings", str(game), "--virtual", "x", "--journal",
                 str(tmp_path / "a-file" / "field.jsonl"))
    assert r.returncode == 2 and r.stderr.startswith(
        "cran: --journal %s: cannot write it: " % (tmp_path / "a-file" / "field.jsonl"))


def test_cran_flash_makes_a_station_keeps_it_one_and_makes_it_a_player_again(micropython,
                                                                             tmp_path):
    from conftest import run_cran
    from host_tools.virtual import vbadge
    look = "import os\nprint(sorted(os.listdir('/')))"
    station, app = (build.badge_path(p)[1:] for p in ("/cran/station.mpy", "/cran/app.mpy"))
    with vbadge.running() as badge:
        r = run_cran("flash", "--port", badge.port, "--board", "atom-lite")
        assert r.returncode == 0, r.stderr
        r = run_cran("flash", "--port", badge.port, "--station")
        assert r.returncode == 0, r.stderr
        assert "status: the game master's station (cran field --port %s)" % badge.port \
            in r.stdout and "repaired" not in r.stdout
        status = json.loads(run_cran("status", "--port", badge.port, "--json").stdout)
        assert status["station"] is True and "etat" not in status
        r = run_cran("status", "--port", badge.port)
        assert r.stdout.startswith("%s: the game master's station" % badge.port)
        # A station holds no key, no app: its files are the relay's.
        from host_tools.device import badgeport
        link = badgeport.connect(badge.port)
        try:
            top = badgeport.run(link, look).strip()
        finally:
            badgeport.close(link)
        assert "'game.key'" not in top and "'main.py.off'" not in top
        assert "'%s'" % station in top and "'%s'" % app not in top   # (build.flattened)
        # Flashed again as it is, it stays one.
        r = run_cran("flash", "--port", badge.port)
        assert r.returncode == 0 and "(already up to date)" in r.stdout
        assert "the game master's station" in r.stdout
        r = run_cran("flash", "--port", badge.port, "--station", "--board", "atom-lite")
        assert r.returncode == 2 and r.stderr.startswith("cran: --station takes no --board")
        # A roster's flash does not give the station a free row.
        rows = tmp_path / "roster.csv"
        rows.write_text("name,armor,board,badge\nAli,cuir,atom-lite,b01\n")
        r = run_cran("flash", "--roster", str(rows), "--port", badge.port)
        assert r.returncode == 1 and "is the game master's station: left as it is" in r.stderr
        # A board given: a player's badge again, a blank character.
        r = run_cran("flash", "--port", badge.port, "--board", "atom-lite")
        assert r.returncode == 0, r.stderr
        assert json.loads(run_cran("status", "--port", badge.port, "--json").stdout)[
            "etat"] == "pleine-forme"


class _Field:
    """cran field's Field as the screen uses it: rows that change order, a radio's
    state, what was sent."""

    def __init__(self):
        self.order = ["aa", "bb", "cc"]
        self.sent = []
        self.lost = None
        self.doubled = []   # the ids two badges answer as (Station.twice)

        class _Listener:
            dropped = {}

        class _Station:
            listener = _Listener()
        self.station = _Station()

    def step(self):
        pass

    def rows(self):
        return [{"id": i, "name": "badge " + i, "etat": "blesse", "reste": None,
                 "effets": {}, "armure": 0, "armure-abimee": False, "jeu": "en-jeu",
                 "batterie": 70 if i == "cc" else None, "ago_s": 1, "rssi": -50,
                 "twice": i in self.doubled} for i in self.order]

    def twice(self):
        from host_tools.field.gamemaster import twice_text
        return [twice_text("badge " + i) for i in self.doubled]

    def radio(self):
        return {"port": "/dev/ttyUSB0", "station": "240ac4c0a701", "refused": 0,
                "garbled": 0, "notes": [self.lost] if self.lost else [], "lost": self.lost,
                "journal": "/tmp/field.jsonl"}

    def send(self, word):
        from host_tools import CommandError
        if self.lost:
            raise CommandError("%s: not sent: %s" % (word, self.lost), 1)
        self.sent.append(word)


def test_the_stations_screen_counts_the_field_at_a_glance():
    from host_tools.field.tui import glance
    rows = [{"jeu": jeu, "etat": etat} for jeu, etat in (
        ("stop", "pleine-forme"), ("stop", "coma"), ("en-jeu", "blesse"),
        ("stop", "blesse"), ("hors-jeu", "agonisant"))]
    assert glance(rows) == ("stop 3, hors-jeu 1, en-jeu 1 | agonisant 1, coma 1, blesse 2, "
                            "pleine-forme 1")
    assert glance([]) == ""


def test_the_stations_screen_resets_the_badge_under_its_cursor_and_says_a_lost_line():
    import asyncio

    from textual.widgets import DataTable, Static

    from host_tools.field.tui import FieldApp
    field = _Field()

    async def go():
        app = FieldApp(field)
        async with app.run_test(size=(120, 20)) as pilot:
            await pilot.pause(0.7)
            await pilot.press("down", "down")          # on "badge cc"
            field.order = ["cc", "aa", "bb"]            # it becomes the most urgent
            app.refresh_table()
            await pilot.pause()
            assert app.query_one(DataTable).cursor_row == 0   # the cursor went with it
            await pilot.press("x")   # Enter alone: its own character, fresh
            await pilot.pause()
            await pilot.press("enter")
            await pilot.pause()
            question = str(app.screen.query_one("#question", Static).content)
            await pilot.press("y")
            await pilot.pause()
            # A new character: a typo is named and nothing goes; then the right one.
            await pilot.press("x")
            await pilot.pause()
            await pilot.press(*"armor=metall", "enter")
            await pilot.pause()
            await pilot.press("x")
            await pilot.pause()
            await pilot.press(*"armor=metal", "enter")
            await pilot.pause()
            question2 = str(app.screen.query_one("#question", Static).content)
            await pilot.press("y")
            await pilot.pause()
            field.lost = "/dev/ttyUSB0: lost the station: [Errno 5] EIO"
            app.refresh_table()
            status = str(app.query_one("#status", Static).content)
            await pilot.press("s", "y")
            await pilot.pause()
            return question, question2, status
    question, question2, status = asyncio.run(go())
    assert question.startswith("Reset badge cc to a fresh character (P3)?")
    assert question2.startswith("Reset badge cc to a new character: armor=metal (P3)?")
    # ... and nothing for the typo, nothing once the line is lost.
    assert field.sent == ["reset:cc", "reset:cc armor=metal"]
    assert status.splitlines() == [
        "station badge 240ac4c0a701 on /dev/ttyUSB0, LOST: 3 badge(s) heard; frames "
        "refused: 0", "en-jeu 3 | blesse 3", "journal /tmp/field.jsonl (cran logs --file)",
        "/dev/ttyUSB0: lost the station: [Errno 5] EIO"]


def test_the_station_opens_the_roster_healers_soins_and_refuses_forged_ones(tmp_path):
    """With the roster, the station knows its healers' and smiths' chains: a genuine soin
    heard on the air is opened (and left: the patient takes it), not counted refused as a
    forged one is, which an organiser would take for an attack."""
    from cran import radio
    from host_tools.field.fieldsim import GAME_KEY
    from host_tools.field.gamemaster import names_of
    from host_tools.field.station import Station
    from host_tools.game.chains import chain_token, radio_id, seed_of
    from host_tools.virtual.micropython import air
    from host_tools.virtual.micropython.cpython import cryptolib
    rows = tmp_path / "roster.csv"
    rows.write_text("name,armor,board,badge,role\nYsolde,cuir,atom-lite,b1,soigneuse\n"
                    "Ali,none,atom-lite,b2,\n")
    secret = bytes(range(32))
    names, treaters = names_of(str(rows), secret)
    assert sorted(names.values()) == ["Ali", "Ysolde"]
    assert list(treaters) == [radio_id("Ysolde")]
    station = Station(GAME_KEY, b"G" * 16, b"\x5a" * 6, air.Air().radio(), None, treaters)
    keys = radio.Keys(GAME_KEY, cryptolib.aes)
    seed = seed_of(secret, "Ysolde")
    for counter, token in ((1, chain_token(seed, 1)), (2, b"\x00" * 16)):
        station.hear(radio.seal(keys, radio_id("Ysolde"), radio.HEALER, counter, radio.HEAL,
                                radio_id("Ali"), (counter, token, 0)), -50, 0)
    assert station.listener.dropped == {"token": 1}   # the forged one alone
    assert station.badges == {}   # a soin is no heartbeat: no row made of it


def test_the_stations_screen_asks_an_effect_de_masse_and_names_a_wrong_keyword():
    import asyncio

    from textual.widgets import Static

    from host_tools.field.tui import FieldApp
    field = _Field()

    async def go():
        app = FieldApp(field)
        async with app.run_test(size=(120, 20)) as pilot:
            await pilot.pause(0.7)
            await pilot.press("m", *"peurr", "enter")   # not a keyword: nothing asked
            await pilot.pause()
            await pilot.press("m", *"peur", "enter")
            await pilot.pause()
            question = str(app.screen.query_one("#question", Static).content)
            await pilot.press("y")
            await pilot.pause()
            return question
    question = asyncio.run(go())
    assert question.startswith("Effet peur de masse on every badge in range?")
    assert field.sent == ["masse:peur"]


def test_the_stations_screen_says_two_badges_answering_as_one_in_red():
    # Issue 35: two badges flashed as one character were one row, the other nowhere.
    import asyncio

    from textual.widgets import DataTable, Static

    from host_tools.field.tui import FieldApp
    field = _Field()
    field.doubled = ["bb"]

    async def go():
        app = FieldApp(field)
        async with app.run_test(size=(160, 20)) as pilot:
            await pilot.pause(0.7)
            status = app.query_one("#status", Static).content
            cell = app.query_one(DataTable).get_cell_at((1, 0))
            return status, cell
    status, cell = asyncio.run(go())
    said = [span for span in status.spans if "red" in str(span.style)]
    assert len(said) == 1
    red = str(status)[said[0].start:said[0].end].strip()
    assert red.startswith("TWO BADGES answer as badge bb (one radio id, two counters")
    assert "cran flash --roster ROSTER --port P --as NAME" in red
    assert str(cell) == "badge bb TWICE" and "red" in str(cell.style)
