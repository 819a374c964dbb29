# A whole field on one machine: 50 badges (the rules engine and the firmware's radio,
# cran.radio.link and cran.radio, unchanged) and the game master's station, on a virtual air
# (host_tools/virtual/micropython/air.py) that loses frames, in virtual time (a millisecond a
# step). The field itself: host_tools/field/fieldsim.py.
import json
import os

import pytest

from cran import radio
from cran.core.engine import act, new_state
from cran.core.rules import Character, Settings
from cran.core.view import view
from cran.core.vocab import Action
from cran.radio.link import NEAR_DBM, OFFER_MS, PERIOD_MS, WINDOW_MS
from host_tools.field.fieldsim import (
    GAME_KEY,
    GM_SEED,
    HEALER_ID,
    HEALER_SEED,
    STATION_ID,
    Field,
    FieldBadge,
)
from host_tools.field.fieldsim import everyone as _everyone
from host_tools.field.station import read_heartbeat
from host_tools.game.chains import chain_token, gm_anchor
from host_tools.virtual.micropython import air as vair
from host_tools.virtual.micropython.cpython import cryptolib


def _agonisant(badge, now):
    badge.state, _ = act(badge.state, Action("coup", "blesse"), now)
    badge.state, _ = act(badge.state, Action("coup"), now)


@pytest.mark.parametrize("loss", [0.0, 0.3])
def test_a_stop_freezes_every_badge_within_a_second(loss):
    field = Field(loss=loss, seed=7)
    field.run(1200)   # every badge has had windows, heartbeats sent
    for b in field.badges:   # a fight going on: a countdown running on some
        if b.me[-1] % 5 == 0:
            _agonisant(b, field.now)
    field.station.command(radio.STOP, now=field.now)
    took = field.run(3000, until=_everyone(field, "stop"))
    assert _everyone(field, "stop")(), [view(b.state, field.now)["jeu"] for b in field.badges]
    assert took <= PERIOD_MS + WINDOW_MS + 10 <= 1000, took
    frozen = [view(b.state, field.now)["reste"] for b in field.badges]
    field.run(5000)
    assert [view(b.state, field.now)["reste"] for b in field.badges] == frozen   # K15

    field.station.command(radio.RESUME, now=field.now)
    field.run(1000, until=_everyone(field, "en-jeu"))
    assert _everyone(field, "en-jeu")()


def test_a_forged_stop_from_a_badge_with_the_game_key_stops_nobody():
    field = Field(count=10)
    field.run(600)
    # A rogue badge's radio: it holds the game key (every badge does) and the game
    # master's anchor, not his seed. A token made up, one of a chain of its own, the
    # anchor itself, none at all; as the game master and as itself.
    rogue = field.air.radio(10, 10)
    rogue.on()
    keys = radio.Keys(GAME_KEY, cryptolib.aes)
    made = field.clock()   # fresh: only the token is wrong
    proofs = [(1, b"\x00" * 16, made), (1, chain_token(b"guess" * 4, 1), made),
              (2, gm_anchor(GM_SEED), made), None]
    counter = 100
    for sender, role in ((STATION_ID, radio.GM), (b"\x66" * 6, radio.GM),
                         (b"\x66" * 6, radio.BADGE)):
        for proof in proofs:
            counter += 1
            frame = radio.seal(keys, sender, role, counter, radio.STOP, b"", proof)
            for _ in range(60):   # sent over a whole period, as the station would
                rogue.send(b"\xff" * 6, frame)
                field.run(10)
    assert not any(view(b.state, field.now)["jeu"] == "stop" for b in field.badges)
    for b in field.badges:   # each badge saw the forgeries, and counted them
        assert b.link.listener.dropped.get("token", 0) >= 6
        assert b.link.listener.dropped.get("kind", 0) >= 1
    # The real one still works: none of its tokens was spent by the forgeries.
    field.station.command(radio.STOP, now=field.now)
    field.run(1000, until=_everyone(field, "stop"))
    assert _everyone(field, "stop")()


def test_a_healer_heals_only_the_nearest_patient_who_presses():
    field = Field(count=6, seed=3)
    healer = FieldBadge(field.air.radio(50, 50), HEALER_ID, radio.HEALER, HEALER_SEED)
    field.badges.append(healer)
    patient, neighbour = field.badges[0], field.badges[1]
    # The patient at 1 m, a neighbour at 2.5 m (both near enough), the rest 40 m away.
    patient.radio.x, patient.radio.y = 51, 50
    neighbour.radio.x, neighbour.radio.y = 50, 52.5
    assert vair.rssi_at(2.5) >= NEAR_DBM
    field.run(1000)
    for b in (patient, neighbour):
        b.state, _ = act(b.state, Action("coup"), field.now)
        b.state, _ = act(b.state, Action("coup"), field.now + 400)   # blesse
    field.run(1000)
    assert view(patient.state, field.now)["etat"] == "blesse"

    assert healer.link.seek(field.now)
    field.run(2 * PERIOD_MS + 3 * WINDOW_MS + 50, until=lambda: healer.offered)
    assert healer.offered == [patient.me]
    field.run(PERIOD_MS + 2 * WINDOW_MS)
    assert [v for _, v in patient.offers] == ["soin"] and not neighbour.offers
    assert all(not b.offers for b in field.badges[2:])
    # Nothing happens without the patient's press ...
    field.run(1000)
    assert view(patient.state, field.now)["etat"] == "blesse"
    # ... which takes it.
    taken = patient.link.accept(field.now)
    patient.state, _ = act(patient.state, taken, field.now)
    assert view(patient.state, field.now)["etat"] == "pleine-forme"
    assert neighbour.link.accept(field.now) is None
    # An offer runs out.
    assert healer.link.seek(field.now)
    field.run(2 * PERIOD_MS + 3 * WINDOW_MS + 50 + OFFER_MS + 10)
    assert patient.link.accept(field.now) is None


def test_a_badge_sends_its_frames_in_counter_order():
    # S10 over the radio: a healer hit while it repeats its search; the heartbeat that
    # says so waits for the repeat's end. Sent between two copies, its newer counter
    # would make every later copy look replayed (radio.Listener) to whoever heard it,
    # and a badge whose window opened just before it would hear the heartbeat and never
    # the search.
    field = Field(count=6, seed=3)
    healer = FieldBadge(field.air.radio(50, 50), HEALER_ID, radio.HEALER, HEALER_SEED)
    field.badges.append(healer)
    sent = []
    send = healer.radio.send
    healer.radio.send = lambda peer, frame: (sent.append(frame), send(peer, frame))
    field.run(1000)
    assert healer.link.seek(field.now)
    for _ in range(0, PERIOD_MS + WINDOW_MS, 97):   # hit again and again meanwhile
        field.run(97)
        healer.state, _ = act(healer.state, Action("coup"), field.now)
    field.run(2 * PERIOD_MS)
    counters = [int.from_bytes(f[12:16], "big") for f in sent]   # radio._HEAD
    assert counters == sorted(counters) and len(set(counters)) > 2, counters
    kinds = {f[16] for f in sent}
    assert {radio.SEEK, radio.HEARTBEAT} <= kinds, kinds
    assert all("replay" not in b.link.listener.dropped for b in field.badges)
    assert "replay" not in field.station.listener.dropped


def test_a_badge_of_another_game_hears_nothing_and_the_station_sees_every_badge():
    field = Field(count=12)
    stranger = FieldBadge(field.air.radio(3, 3), b"\x99" * 6, key=bytes(32))
    field.badges.append(stranger)
    field.run(1200)
    for b in field.badges[:3]:
        _agonisant(b, field.now - 1000 * b.me[-1])   # 0, 1 and 2 s ago
    field.badges[3].state, _ = act(field.badges[3].state, Action("coup", "mort"), field.now)
    field.badges[4].state, _ = act(field.badges[4].state, Action("effet", "peur"), field.now)
    field.run(1200)
    field.station.command(radio.STOP, now=field.now)
    field.run(1200)
    assert view(stranger.state, field.now)["jeu"] == "en-jeu"
    assert stranger.link.listener.dropped.get("game", 0) > 0
    rows = field.station.rows(field.now)
    assert len(rows) == 12   # the stranger's heartbeats are not the game's
    by_id = {r["id"]: r for r in rows}
    for b in field.badges[:12]:
        seen = view(b.state, field.now)
        row = by_id[b.me.hex()]
        assert (row["etat"], row["jeu"], row["batterie"]) == (seen["etat"], "stop", 80)
    # The urgent first: the agonisants, the least time left first; then the dead.
    assert [(r["id"], r["etat"]) for r in rows[:4]] == [
        (field.badges[n].me.hex(), etat)
        for n, etat in ((2, "agonisant"), (1, "agonisant"), (0, "agonisant"), (3, "mort"))]
    assert by_id[field.badges[4].me.hex()]["effets"].keys() == {"peur"}


def test_heartbeats_read_back_and_garbage_is_refused():
    state = new_state(Character(armor=2), Settings())
    state, _ = act(state, Action("effet", "peur"), 0)
    from cran.radio.link import heartbeat
    row = read_heartbeat(heartbeat(state, 1000, 55))
    assert row == {"etat": "pleine-forme", "reste": None, "armure": 2,
                   "armure-abimee": False, "jeu": "en-jeu", "renommee": 0, "batterie": 55,
                   "effets": {"peur": 299}}
    assert read_heartbeat(b"") is None and read_heartbeat(b"\x09" + bytes(8)) is None
    assert read_heartbeat(bytes(9) + b"peur:x") is None


def test_radio_on_time_is_the_duty_cycle():
    field = Field(count=3)
    field.run(60000)
    for b in field.badges:
        duty = b.link.on_ms / 60000
        assert WINDOW_MS / PERIOD_MS * 0.9 <= duty <= WINDOW_MS / PERIOD_MS * 1.1, duty


_MP_LINK = """
import sys, json
sys.path.insert(0, %(firmware)r)
from cran import radio
from cran.radio.link import Link
from cran.radio.orders import command
from cran.radio.treat import Chain
from cran.core.engine import new_state
from cran.core.rules import Character, Settings
from cran.tags import to_hex

class Air:
    def __init__(self):
        self.sent, self.active = [], False
    def on(self):
        self.active = True
    def off(self):
        self.active = False
    def send(self, peer, frame):
        assert self.active
        self.sent.append(to_hex(frame))
    def recv(self):
        return None

air = Air()
keys = radio.Keys(bytes(range(32)))
link = Link(air, keys, radio.Listener(keys, {}), radio.Counter(0, lambda m: None),
            b"\\xb0" * 6, radio.HEALER, Chain(b"H" * 16, 1))
state = new_state(Character(armor=1), Settings())
link.tick(0, state)
print(json.dumps({"sent": air.sent, "token": to_hex(link.chain.take()[1]),
                  "mass": command(radio.MASS, b"peur").text(),
                  "bad": command(radio.MASS, b"\\xff"), "wake": link.next_wake_ms(0)}))
"""


def test_the_link_runs_in_micropython(micropython):
    import json
    import subprocess

    from host_tools import FIRMWARE_DIR
    out = subprocess.run([micropython, "-c", _MP_LINK % {"firmware": FIRMWARE_DIR}],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    got = json.loads(out.stdout)
    assert got["token"] == chain_token(HEALER_SEED, 1).hex()
    assert got["mass"] == "effet peur de masse" and got["bad"] is None
    assert got["wake"] == WINDOW_MS
    # Its heartbeat, made in MicroPython, read by the station's code in CPython.
    keys = radio.Keys(GAME_KEY, cryptolib.aes)
    frame, ask = got["sent"]   # its state, then the time asked (its clock unknown)
    kind, sender, role, payload = radio.Listener(keys, {}).open(bytes.fromhex(frame))
    assert (kind, sender, role) == (radio.HEARTBEAT, b"\xb0" * 6, radio.BADGE)
    assert bytes.fromhex(ask)[16] == radio.ASK_TIME
    assert read_heartbeat(payload)["etat"] == "pleine-forme"


def test_a_reset_reaches_its_badge_alone_and_an_effect_de_masse_everyone():
    field = Field(count=5, seed=11)
    field.run(1200)
    for b in field.badges:
        _agonisant(b, field.now)
    target = field.badges[2]
    field.station.command(radio.RESET, target.me, now=field.now)
    field.run(PERIOD_MS + WINDOW_MS + 20)
    assert [view(b.state, field.now)["etat"] for b in field.badges] == [
        "agonisant", "agonisant", "pleine-forme", "agonisant", "agonisant"]
    field.station.command(radio.MASS, b"peur", now=field.now)
    field.run(PERIOD_MS + WINDOW_MS + 20)
    assert view(target.state, field.now)["effets"] == "peur"
    # To a new character: that badge alone, with the new one's armor; one refused
    # (a typo a station would have named) changes nothing.
    other = field.badges[3]
    field.station.command(radio.RESET, other.me + b'{"armor":"metall"}', now=field.now)
    field.run(PERIOD_MS + WINDOW_MS + 20)
    assert view(other.state, field.now)["etat"] == "agonisant"
    field.station.command(radio.RESET, other.me + b'{"name":"Aude","armor":2}',
                          now=field.now)
    field.run(PERIOD_MS + WINDOW_MS + 20)
    assert [(view(b.state, field.now)["etat"], b.state.character.armor)
            for b in field.badges] == [("agonisant", 1), ("agonisant", 1),
                                       ("pleine-forme", 1), ("pleine-forme", 2),
                                       ("agonisant", 1)]
    assert view(other.state, field.now)["armure"] == "2"


def test_the_stations_command_words_are_checked():
    from host_tools import CommandError
    from host_tools.field.gamemaster import command
    assert command("stop") == (radio.STOP, b"")
    assert command("masse:peur") == (radio.MASS, b"peur")
    assert command("reset:" + "ab" * 6) == (radio.RESET, b"\xab" * 6)
    # A new character: only the fields given, as JSON after the badge's id.
    assert command("reset:%s name='Aude de Vaux' armure=metal casque=oui" % ("ab" * 6)) == (
        radio.RESET, b"\xab" * 6 + b'{"name":"Aude de Vaux","armor":2,"helmet":true}')
    long_name = "reset:%s name=%s" % ("ab" * 6, "\u00e9" * 64)   # (\u00e9 in the frame)
    for word, says in (("stp", "stp: not a command (stop, reprise"),
                       ("masse:peurr", "masse:peurr: not a keyword"),
                       ("reset:abc", "reset:abc: reset:ID, ID a badge's radio id"),
                       ("reset:%s armr=metal helmet=peut" % ("ab" * 6),
                        "reset:%s armr=metal helmet=peut: unknown character field 'armr'; "
                        "did you mean 'armor'?; helmet: expected yes/no" % ("ab" * 6)),
                       (long_name, "reset:%s: the character takes 395 bytes, a radio "
                        "frame has room for 193: a shorter name" % ("ab" * 6)),
                       ("reset:%s name=%s" % ("ab" * 6, "x" * 190),
                        "reset:%s name=%s: name: a name of 190 characters: at most 64"
                        % ("ab" * 6, "x" * 190))):
        with pytest.raises(CommandError) as caught:
            command(word)
        assert str(caught.value).startswith(says), str(caught.value)


def test_a_restarted_station_gives_no_token_or_counter_twice(tmp_path):
    from host_tools.field.station import Station
    air = vair.Air()
    saved = str(tmp_path / "station.json")
    ear = radio.Listener(radio.Keys(GAME_KEY, cryptolib.aes),
                         {STATION_ID: [radio.GM, 0, gm_anchor(GM_SEED)]})
    first = Station(GAME_KEY, GM_SEED, STATION_ID, air.radio(), saved)
    heard = [ear.open(first.command(radio.STOP))]
    # The station's computer restarts (or a second one takes over with the same file).
    again = Station(GAME_KEY, GM_SEED, STATION_ID, air.radio(), saved)
    heard.append(ear.open(again.command(radio.RESUME)))
    assert [h[0] for h in heard] == [radio.STOP, radio.RESUME], ear.dropped
    assert again.next_index == 3 and again.counter.next > first.counter.next


@pytest.mark.parametrize("loss", [0.0, 0.3])
def test_two_badges_answering_as_one_are_flagged_by_the_station(loss):
    # Issue 35: a copied roster gave a new badge the name (and the character) of one
    # already flashed; on a field both are one radio id, and the station showed one row,
    # the other badge nowhere. The station tells them apart: frames of one id, no newer
    # than the last taken, never heard before (a repeat or a replay is a copy).
    field = Field(count=6, loss=loss, seed=5)
    twin = FieldBadge(field.air.radio(30, 30), field.badges[2].me)
    twin.link.counter = radio.Counter(5000, lambda mark: None)   # flashed later: ahead
    field.run(1200)
    assert field.station.twice() == []   # six badges, their repeats: nobody twice
    field.badges.append(twin)
    field.station.ask_all(field.now)     # every badge answers, the twins too
    field.run(2000)
    for b in (field.badges[2], twin):    # each wearer hit: a heartbeat each
        b.state, _ = act(b.state, Action("coup"), field.now)
    field.run(2000)
    field.station.ask_all(field.now)
    field.run(2000)
    assert field.station.twice() == [field.badges[2].me]
    rows = field.station.rows(field.now)
    assert [r["id"] for r in rows if r["twice"]] == [field.badges[2].me.hex()]
    assert len(rows) == 6


def test_the_station_says_its_clock_and_answers_a_badge_that_asks_for_it():
    # Its clock goes out as it starts and every 10 minutes (a badge's drifts), never over
    # a repeat going on; a badge that asks (its clock unknown after a power cut) is named
    # in the next answer with its question's counter, which alone tells it the answer
    # was made after it asked (cran.radio.orders).
    from host_tools.field.station import CLOCK_EVERY_MS
    field = Field(count=2, seed=5)
    said = []
    command = field.station.command

    def counted(kind, payload=b"", now=0):
        said.append((kind, bytes(payload), now))
        return command(kind, payload, now)
    field.station.command = counted
    asker = field.badges[0]
    asker.link.ask_time = True
    asks = []
    send = asker.radio.send
    asker.radio.send = lambda peer, frame: (
        asks.append(int.from_bytes(frame[12:16], "big")) if frame[16] == radio.ASK_TIME
        else None, send(peer, frame))
    field.run(PERIOD_MS * 2 + 500)
    assert said[0] == (radio.CLOCK, b"", 1)   # as it starts
    answer = [(kind, payload) for kind, payload, _ in said[1:]]
    assert answer and answer[0][0] == radio.CLOCK and answer[0][1][:6] == asker.me
    assert asker.link.ask_time is False and field.badges[1].link.ask_time is False
    counter = int.from_bytes(answer[0][1][6:10], "big")
    assert len(asks) == 1 and counter == asks[0] and asker.link.time_asked is None
    field.run(CLOCK_EVERY_MS)
    assert [(kind, payload) for kind, payload, _ in said[2:]] == [(radio.CLOCK, b"")]


def test_the_station_asks_who_is_there_again_while_a_roster_badge_is_unheard(tmp_path):
    # cran field asks every badge in range for its heartbeat as it starts; a badge that
    # missed it (its window lost on a busy radio) would wait for its next minute. So
    # the station asks again every ASK_AGAIN_MS while one of the roster is unheard,
    # never over a command's copies, and not after a heartbeat's period.
    import argparse

    from host_tools.field import gamemaster
    from host_tools.game import roster
    template = roster.settings_template()
    template["radio"] = True
    (tmp_path / "game.json").write_text(json.dumps(template))
    (tmp_path / "roster.csv").write_text("name,armor,board,port,role\n"
                                         "Godefroy,metal,atom-lite,/tmp/p1,\n"
                                         "Ysolde,cuir,atom-lite,/tmp/p2,\n")
    args = argparse.Namespace(settings=str(tmp_path / "game.json"),
                              roster=str(tmp_path / "roster.csv"), loss=None, port=None,
                              virtual="ask%d" % os.getpid(), journal=str(tmp_path / "f.jsonl"))
    field = gamemaster.Field(args)
    try:
        clock, asked = [0], []
        field.now = lambda: clock[0]
        field.asked_at = 0
        field.station.ask_all = asked.append
        field.station.tick = lambda now: None   # (its clock's copies: none here)
        field.station.repeating_until = None

        def at(ms):
            clock[0] = ms
            field.step()
        at(gamemaster.ASK_AGAIN_MS - 1)
        at(gamemaster.ASK_AGAIN_MS)
        field.station.repeating_until = 2 * gamemaster.ASK_AGAIN_MS + 500   # a command's
        at(2 * gamemaster.ASK_AGAIN_MS)
        at(2 * gamemaster.ASK_AGAIN_MS + 500)
        assert asked == [gamemaster.ASK_AGAIN_MS, 2 * gamemaster.ASK_AGAIN_MS + 500]
        # Every roster badge heard: no more asking.
        ids = [bytes.fromhex(i) for i in field.names]
        field.station.badges[ids[0]] = {}
        at(4 * gamemaster.ASK_AGAIN_MS)
        field.station.badges[ids[1]] = {}
        at(6 * gamemaster.ASK_AGAIN_MS)
        assert asked[2:] == [4 * gamemaster.ASK_AGAIN_MS]
        # One still unheard past a heartbeat's period: its own heartbeat will say it.
        del field.station.badges[ids[1]]
        at(gamemaster.HEARTBEAT_MS)
        assert asked[3:] == []
    finally:
        field.close()
