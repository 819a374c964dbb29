# The radio's frames (cran.radio): genuine frames open, in both runtimes and across
# them (the game master's station runs on CPython, badges in MicroPython); every
# forgery, replay, wrong game, wrong role, truncation and oversize is dropped and
# counted, and changes nothing; counters and tokens stay spent across reboots.
import copy
import json
import os
import subprocess

from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
from hypothesis import HealthCheck, given
from hypothesis import settings as hyp_settings
from hypothesis import strategies as st

from cran import radio
from cran.radio import _COUNTER_STEP as COUNTER_STEP
from cran.radio import (
    BADGE,
    CHAIN_STEPS,
    GM,
    HEAL,
    HEALER,
    HEARTBEAT,
    MAX_FRAME,
    MAX_PAYLOAD,
    STOP,
    Counter,
    Keys,
    Listener,
    seal,
)
from cran.radio.longcheck import resume
from host_tools import FIRMWARE_DIR
from host_tools.game.chains import chain_token
from host_tools.virtual.micropython.cpython import cryptolib

GAME_KEY = bytes(range(32))
OTHER_KEY = bytes(range(1, 33))
GM_ID, HEALER_ID, BADGE_ID, PATIENT_ID = (bytes([n]) * 6 for n in (1, 2, 3, 4))
GM_SEED, HEALER_SEED = b"g" * 16, b"h" * 16
MADE_S = 1767225600   # when the station made its frames (its clock, sealed in them)


def _keys(key=GAME_KEY):
    return Keys(key, cryptolib.aes)


def _authorities():
    # As every badge's config holds them: each authority's role and chain anchor.
    return {GM_ID: [GM, 0, chain_token(GM_SEED, 0)],
            HEALER_ID: [HEALER, 0, chain_token(HEALER_SEED, 0)]}


def _gm(counter, index, kind=STOP, payload=b"", keys=None):
    return seal(keys or _keys(), GM_ID, GM, counter, kind, payload,
                (index, chain_token(GM_SEED, index), MADE_S))


def _heartbeat(counter, payload=b"etat=coma", sender=BADGE_ID):
    return seal(_keys(), sender, BADGE, counter, HEARTBEAT, payload)


def test_genuine_frames_open_and_replays_do_not():
    saved = {}
    ear = Listener(_keys(), _authorities(), lambda who, e: saved.update({who: list(e)}))
    assert ear.open(_gm(0, 1)) == (STOP, GM_ID, GM, b"")
    assert ear.open(_gm(0, 1)) is None                       # a copy: the same frame
    assert ear.open(_gm(1, 1)) is None                       # a new counter, a spent token
    assert ear.open(_gm(2, 5, payload=b"x")) == (STOP, GM_ID, GM, b"x")   # 2-4 were lost
    assert saved == {GM_ID: [GM, 5, chain_token(GM_SEED, 5)]}
    assert ear.open(_gm(3, 4)) is None                       # older than the last accepted
    assert ear.open(_heartbeat(7)) == (HEARTBEAT, BADGE_ID, BADGE, b"etat=coma")
    assert ear.open(_heartbeat(7)) is None and ear.open(_heartbeat(6)) is None
    assert ear.dropped == {"again": 2, "replay": 1, "token": 2}


def test_a_new_game_key_retires_every_old_frame():
    ear = Listener(_keys(OTHER_KEY), _authorities())
    assert ear.open(_gm(0, 1)) is None and ear.open(_heartbeat(0)) is None
    assert ear.dropped == {"game": 2}


def test_forged_truncated_oversized_and_flipped_frames_are_dropped():
    ear = Listener(_keys(), _authorities())
    good = _gm(0, 1)
    cases = {
        "size": [b"", good[:28], good + bytes(MAX_FRAME + 1 - len(good)),
                 bytes([0xC2]) + good[1:]],
        "tag": [good[:-1] + bytes([good[-1] ^ 1]), good[:-12] + bytes(12),
                good[:20] + bytes([good[20] ^ 0x80]) + good[21:],
                good[:-13] + good[-12:]],                          # one byte cut out
    }
    for why, frames in cases.items():
        for frame in frames:
            assert ear.open(frame) is None, (why, frame)
    assert ear.dropped == {"size": 4, "tag": 4}
    assert ear.open(good) == (STOP, GM_ID, GM, b"")   # still unspent


def test_roles_matter():
    """Only the game master's chain stops; a healer can only heal; a badge of the game
    (which holds the game key) cannot make a stop or a heal, with or without a token."""
    ear = Listener(_keys(), _authorities())
    keys = _keys()
    made_up = (1, b"t" * 16, MADE_S)
    forged = [
        seal(keys, BADGE_ID, BADGE, 0, STOP),                         # a badge's stop
        seal(keys, BADGE_ID, GM, 0, STOP, b"", made_up),              # claiming the role
        seal(keys, GM_ID, GM, 0, STOP, b"", made_up),                 # the GM's id, no token
        seal(keys, GM_ID, GM, 1, STOP),                               # no proof at all
        seal(keys, HEALER_ID, HEALER, 0, STOP, b"",                   # a healer's stop
             (1, chain_token(HEALER_SEED, 1), MADE_S)),
        seal(keys, HEALER_ID, GM, 1, STOP, b"",                       # ... as a game master
             (1, chain_token(HEALER_SEED, 1), MADE_S)),
        seal(keys, GM_ID, GM, 2, STOP, b"", (CHAIN_STEPS + 1, b"t" * 16, MADE_S)),
    ]
    for frame in forged:
        assert ear.open(frame) is None
    assert ear.dropped == {"kind": 2, "token": 5}
    heal = seal(keys, HEALER_ID, HEALER, 2, HEAL, PATIENT_ID,
                (1, chain_token(HEALER_SEED, 1), MADE_S))
    assert ear.open(heal) == (HEAL, HEALER_ID, HEALER, PATIENT_ID)


def test_an_authoritys_frame_says_when_it_was_made():
    ear = Listener(_keys(), _authorities())
    assert ear.open(_gm(0, 1)) is not None and ear.made_s == MADE_S
    assert ear.open(_heartbeat(0)) is not None and ear.made_s is None


def _counting(monkeypatch):
    """radio's hashes counted: the chain's steps and the frames' tags."""
    spent = {"steps": 0, "tags": 0}
    step, tag = radio.chain_step, radio.hmac_with

    def counted_step(token):
        spent["steps"] += 1
        return step(token)

    def counted_tag(pads, message):
        spent["tags"] += 1
        return tag(pads, message)
    monkeypatch.setattr(radio, "chain_step", counted_step)
    monkeypatch.setattr(radio, "hmac_with", counted_tag)
    return spent


def test_a_failed_tokens_copies_cost_one_look_up(monkeypatch):
    # A key holder's frame with a token at the chain's far end: checked once, a slice a
    # call (cran.radio.longcheck), then every copy of it dropped before its tag is even
    # checked.
    ear = Listener(_keys(), _authorities())
    forged = seal(_keys(), GM_ID, GM, 9, STOP, b"", (CHAIN_STEPS, b"t" * 16, MADE_S))
    spent = _counting(monkeypatch)
    assert ear.open(forged) is None and ear.checking is not None
    assert spent["steps"] == 0
    calls = 0
    while ear.checking is not None:
        assert resume(ear, radio.chain_step) is None
        calls += 1
    assert calls == CHAIN_STEPS // radio.CHECK_STEPS and spent["steps"] == CHAIN_STEPS
    before = dict(spent)
    for _ in range(300):   # the copies a station's repeat makes
        assert ear.open(forged) is None
    assert spent == before and ear.dropped == {"token": 301}


def test_a_long_check_goes_after_a_shorter_one(monkeypatch):
    # A genuine command (a few steps) heard while a forger's far token is being checked
    # takes its place; a second far one waits its turn (busy). No call hashes more
    # than CHECK_STEPS.
    ear = Listener(_keys(), _authorities())
    far = [seal(_keys(), GM_ID, GM, 9 + n, STOP, b"", (CHAIN_STEPS - n, bytes([n]) * 16, 0))
           for n in range(2)]
    genuine, late = _gm(0, 3), _gm(5, 100)
    spent = _counting(monkeypatch)
    assert ear.open(far[0]) is None and ear.open(far[1]) is None
    assert ear.dropped == {"busy": 1} and spent["steps"] == 0
    resume(ear, radio.chain_step)
    assert spent["steps"] == radio.CHECK_STEPS
    assert ear.open(genuine) == (STOP, GM_ID, GM, b"")   # 3 steps, at once
    assert ear.checking is not None   # the far one goes on, against the token it had
    # A genuine token from far along the chain (a badge that missed 100 commands):
    # checked a slice a call, then taken when the frame is opened again.
    ear = Listener(_keys(), _authorities())
    assert ear.open(late, -40) is None
    got = None
    while got is None:
        before = spent["steps"]
        got = resume(ear, radio.chain_step)
        assert spent["steps"] - before <= radio.CHECK_STEPS
    assert got == (late, -40)
    assert ear.open(*got) == (STOP, GM_ID, GM, b"") and ear.authorities[GM_ID][1] == 100
    assert ear.open(late) is None and ear.dropped == {"again": 1}


def test_tokens_stay_spent_after_the_receiver_reboots():
    saved = {}
    ear = Listener(_keys(), _authorities(), lambda who, e: saved.update({who: list(e)}))
    frame = _gm(0, 3)
    assert ear.open(frame) is not None
    rebooted = Listener(_keys(), {**_authorities(), **copy.deepcopy(saved)})
    assert rebooted.open(frame) is None and rebooted.dropped == {"token": 1}
    assert rebooted.open(_gm(1, 4)) is not None


def test_the_counter_never_gives_a_number_twice_across_reboots():
    flash = {"mark": 0}
    writes = []

    def save(mark):
        writes.append(mark)
        flash["mark"] = mark

    given_out = []
    for run_length in (3, COUNTER_STEP + 5, 1, 0, 2):   # a power cut after each run
        counter = Counter(flash["mark"], save)
        given_out += [counter.take() for _ in range(run_length)]
    assert len(given_out) == len(set(given_out)) and given_out == sorted(given_out)
    # A mark written before any number it covers: 5 runs, one of them past a step.
    assert writes == [COUNTER_STEP, 2 * COUNTER_STEP, 3 * COUNTER_STEP, 4 * COUNTER_STEP,
                      5 * COUNTER_STEP] and len(writes) <= 5


def test_heartbeats_are_encrypted_with_aes_ctr():
    payload = b"etat=coma reste=120 " * 3
    frame = _heartbeat(9, payload)
    assert payload[:8] not in frame
    # The same cipher as the cryptography package's own CTR from the same first block.
    block = BADGE_ID + (9).to_bytes(4, "big") + bytes(6)
    ctr = Cipher(algorithms.AES(_keys().secret), modes.CTR(block)).encryptor()
    assert frame[17:-12] == ctr.update(payload) + ctr.finalize()


def test_a_frame_that_would_not_fit_is_refused():
    seal(_keys(), BADGE_ID, BADGE, 0, HEARTBEAT, bytes(MAX_PAYLOAD))
    try:
        seal(_keys(), BADGE_ID, BADGE, 0, HEARTBEAT, bytes(MAX_PAYLOAD + 1))
    except ValueError as e:
        assert "251 bytes: at most 250" in str(e)
    else:
        raise AssertionError("an oversized frame was made")


def _state(ear):
    return (copy.deepcopy(ear.authorities), dict(ear.seen))


@hyp_settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=300))
def test_random_bytes_are_dropped_cleanly(frame):
    ear = Listener(_keys(), _authorities())
    before = _state(ear)
    assert ear.open(frame) is None
    assert _state(ear) == before and sum(ear.dropped.values()) == 1


GENUINE = [_gm(0, 1), _heartbeat(0), seal(_keys(), HEALER_ID, HEALER, 0, HEAL, PATIENT_ID,
                                           (1, chain_token(HEALER_SEED, 1), MADE_S))]


@hyp_settings(max_examples=300, deadline=None)
@given(st.sampled_from(GENUINE), st.data())
def test_flipped_bits_of_genuine_frames_are_dropped(frame, data):
    flips = data.draw(st.lists(st.integers(0, len(frame) * 8 - 1), min_size=1, max_size=4,
                               unique=True))
    bad = bytearray(frame)
    for bit in flips:
        bad[bit // 8] ^= 1 << (bit % 8)
    ear = Listener(_keys(), _authorities())
    before = _state(ear)
    assert ear.open(bytes(bad)) is None
    assert _state(ear) == before


# ---- inside MicroPython, and across the two runtimes ------------------------------------

_MP_PROGRAM = """
import sys, json
sys.path.insert(0, %(firmware)r)
from cran import radio
from cran.auth import from_hex
from cran.tags import to_hex
keys = radio.Keys(from_hex(%(key)r))
gm, badge = from_hex(%(gm)r), from_hex(%(badge)r)
made = [radio.seal(keys, gm, radio.GM, 0, radio.STOP, b"", (2, from_hex(%(token)r),
                                                             %(made)d)),
        radio.seal(keys, badge, radio.BADGE, 5, radio.HEARTBEAT, b"etat=coma")]
ear = radio.Listener(keys, {gm: [radio.GM, 0, from_hex(%(anchor)r)]})
heard = []
for f in %(frames)r:
    got = ear.open(from_hex(f))
    heard.append(None if got is None else [got[0], to_hex(got[1]), got[2], to_hex(got[3])])
print(json.dumps({"made": [to_hex(f) for f in made], "heard": heard,
                  "dropped": ear.dropped}))
"""


def test_micropython_and_cpython_make_and_open_the_same_frames(micropython):
    cpython_frames = [_gm(0, 1), _gm(0, 1), _heartbeat(3), GENUINE[0][:-1] + b"\x00"]
    code = _MP_PROGRAM % {
        "firmware": FIRMWARE_DIR, "key": GAME_KEY.hex(), "gm": GM_ID.hex(),
        "badge": BADGE_ID.hex(), "token": chain_token(GM_SEED, 2).hex(),
        "anchor": chain_token(GM_SEED, 0).hex(), "frames": [f.hex() for f in cpython_frames],
        "made": MADE_S}
    out = subprocess.run([micropython, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    # Made in MicroPython: byte for byte what CPython makes, and CPython opens them.
    assert result["made"] == [_gm(0, 2).hex(), _heartbeat(5).hex()]
    ear = Listener(_keys(), _authorities())
    assert [ear.open(bytes.fromhex(f)) for f in result["made"]] == [
        (STOP, GM_ID, GM, b""), (HEARTBEAT, BADGE_ID, BADGE, b"etat=coma")]
    # Made in CPython, heard in MicroPython: the genuine ones, once.
    assert result["heard"] == [[STOP, GM_ID.hex(), GM, ""], None,
                               [HEARTBEAT, BADGE_ID.hex(), BADGE, b"etat=coma".hex()], None]
    assert result["dropped"] == {"again": 1, "tag": 1}


def test_the_frame_layout_is_as_documented():
    frame = _heartbeat(0x01020304)
    assert frame[0] == 0xC1 and frame[1:5] == _keys().game and frame[5:11] == BADGE_ID
    assert frame[11] == BADGE and frame[12:16] == bytes([1, 2, 3, 4])
    assert frame[16] == HEARTBEAT and len(frame) == 17 + len(b"etat=coma") + 12
    assert radio.ROLES[GM] == "gm"
    assert radio.__file__.endswith(os.path.join("radio", "__init__.py"))
