# The radio's frames (ESP-NOW, at most 250 bytes): who may say what to whom, and proof
# of it. Pure: bytes in, bytes or a verdict out; the driver that sends and hears them,
# and the app that acts on them, are elsewhere.
#
# A frame:  version | game id | sender | role | counter | kind | payload | tag
#              1         4        6       1       4        1      0-221     12
#
# Two locks, because every badge holds the game key (its console's lock needs it):
# - Membership. The tag is HMAC-SHA256 under the game's radio key (cran.auth.derive):
#   without the game key nothing can be forged or altered, and a new key retires every
#   old frame (the game id, read first, sorts the other games' frames out cheaply).
# - Authority. What only a game master, a healer or a smith may say carries the next
#   token of the sender's own hash chain (S/KEY): token i is sha256 applied
#   CHAIN_STEPS - i times to a seed only that sender holds. Badges hold the chain's
#   anchor (token 0) and the last token they accepted, and accept token i when hashing
#   it the difference in steps gives that one: a player who reads his own badge's flash
#   still cannot stop the game or heal himself, as hashing cannot be run backwards.
#
# Replay: each sender's counter only grows (Counter keeps it so across reboots); a
# receiver drops a counter it has seen, and a token it has seen. An authority's frame
# also says when it was made (its maker's clock, sealed with it): a game master's
# command heard late, by a badge that was off when it went out, is refused
# (cran.radio.orders), so a captured one replayed later does nothing.
#
# Bounded work: checking a token costs a hash a step back along its chain, and a key
# holder can claim the chain's far end (~4,000 hashes, about a second on an ESP32).
# A check longer than CHECK_STEPS is carried on a slice a call (cran.radio.longcheck),
# the show loop running between slices, one such check at a time; a frame whose token
# failed is remembered, so its copies cost one look-up. The heartbeat's payload
# is encrypted too (AES-128-CTR, from cryptolib's ECB, which every MicroPython with
# cryptolib has): coma and mort look the same to anyone but the game master (S7).
import hashlib
import struct

from cran.compat import forget
from cran.core.vocab import const
from cran.tags import hmac_with, same

TYPE_CHECKING = const(False)
if TYPE_CHECKING:   # mypy's reading only: a badge has no typing module
    from typing import Any  # noqa: F401

VERSION = const(0xC1)
MAX_FRAME = const(250)         # ESP-NOW v1's payload limit
_HEAD = ">B4s6sBIB"
_HEAD_BYTES = const(17)
_TAG_BYTES = const(12)          # 96 bits: a forger's odds, 2**-96 a try
ID_BYTES = const(6)            # a badge's id: its chip's 6-byte MAC
NEAR_DBM = const(-50)          # [choice] "the nearest badge": within ~3 m in the open
OFFER_MS = const(10000)        # a healer's offer waits this long for the patient's press
TOKEN_BYTES = const(16)
# An authority's proof, before its payload: its chain index and token, and when it was
# made (its maker's wall clock, unix seconds; 0: unknown).
_PROOF = ">H16sI"
_PROOF_BYTES = const(22)
CHAIN_STEPS = const(4096)      # authority frames a sender can make in one game
CHECK_STEPS = const(32)        # hashes a token check spends a call (~8 ms on an ESP32)
_FAILED_KEPT = const(8)        # tags of frames whose token failed, remembered
_LONGCHECK = const(("cran.radio.longcheck",))
MAX_PAYLOAD = MAX_FRAME - _HEAD_BYTES - _TAG_BYTES

# Roles, as the roster names them.
BADGE = const(0)
HEALER = const(1)
_SMITH = const(2)
GM = const(3)
ROLES = ("badge", "healer", "smith", "gm")

# Kinds of frame.
STOP = const(1)        # K15: the game stops ...
RESUME = const(2)      # ... and goes on
NIGHT = const(3)       # S9
MASS = const(4)        # K11: an effect «de masse», to the badges in range
RESET = const(5)       # one badge (by id) to a new character
CLOCK = const(6)       # the wall clock
HEAL = const(16)       # S10: a healer offers soin to one badge (by id)
REPAIR = const(17)     # A4: a smith offers to repair one badge's armor
HEARTBEAT = const(32)  # a badge's state, for the game master's eyes only
SEEK = const(33)       # a healer or smith asks the badges around for a heartbeat
ASK_TIME = const(34)   # a badge whose clock is unknown or off asks the station for it
# Who may send each kind: a role's kinds carry its chain's token; BADGE's need none.
SENDERS = {STOP: GM, RESUME: GM, NIGHT: GM, MASS: GM, RESET: GM, CLOCK: GM,
           HEAL: HEALER, REPAIR: _SMITH, HEARTBEAT: BADGE, SEEK: BADGE,
           ASK_TIME: BADGE}
_SECRET = (HEARTBEAT,)   # kinds whose payload is encrypted

# Why a frame was dropped, as Listener.dropped counts them. "again": a copy of the
# last frame taken from its sender (frames that must reach everyone are sent many times);
# "busy": a token that needs a long check while another one is under way; "flood": a
# listening window closed with frames unread (cran.radio.link reads a few a step); "late":
# an authority's frame made too long ago, or at a time the badge cannot judge
# (cran.radio.orders).
_DROPS = ("size", "game", "tag", "kind", "again", "replay", "token", "busy", "flood",
         "late")


class Keys:
    """What the game key gives the radio: the game's id, the tag's key (as HMAC's two
    padded keys, made once: a frame's tag then costs two sha256 runs), the payload key
    and its cipher (aes: cryptolib.aes's signature; a desktop's, where it has none)."""

    def __init__(self, game_key, aes=None):
        # Made at the start (cran.radio.start), which lets cran.auth go once they are.
        from cran.auth import derive, hmac_pads
        self.game = derive(game_key, b"id")[:4]
        self.pads = hmac_pads(derive(game_key, b"radio"))
        self.secret = derive(game_key, b"radio secret")[:16]
        self.aes = aes


def seal(keys, sender, role, counter, kind, payload=b"", proof=None):
    """A frame -> bytes. proof: (index, token, made_s) of the sender's chain and its
    clock (unix seconds, 0 unknown), for a kind only its role may send. ValueError when
    it would not fit in MAX_FRAME."""
    if proof is not None:
        payload = struct.pack(_PROOF, proof[0], proof[1], proof[2]) + payload
    if kind in _SECRET:
        payload = _crypt(keys, sender, counter, payload)
    body = struct.pack(_HEAD, VERSION, keys.game, sender, role, counter, kind) + payload
    if len(body) + _TAG_BYTES > MAX_FRAME:
        raise ValueError("radio frame of %d bytes: at most %d"
                         % (len(body) + _TAG_BYTES, MAX_FRAME))
    return body + hmac_with(keys.pads, body)[:_TAG_BYTES]


class Listener:
    """Opens the frames a badge hears: open(frame, rssi) -> (kind, sender, role, payload)
    when it is genuine, fresh and its sender may say it; else None, and dropped[why]
    counts it (why in _DROPS). Cheapest checks first: a flood of garbage costs little.
    made_s: when the last authority's frame opened was made (its maker's clock, 0:
    unknown), None after a badge's frame.

    authorities: {sender id: [role, index, token]}, the chains' anchors (index 0) or
    the last token accepted from each, updated in place; on_authority(sender, entry),
    when given, hears each update, to save it: a token accepted before a reboot then
    stays spent after it.

    max_senders: the senders whose counters are kept, the oldest heard going when a new
    one comes (~45 bytes each on an ESP32). A badge needs few: what it acts on is an
    authority's, whose spent tokens stop replays on their own; the game master's
    station, which reads every badge's heartbeat, keeps them all.

    check_steps: the hashes one call may spend on a token. A token further from the
    last one accepted is put aside (checking) and stepped by cran.radio.longcheck's
    resume(listener), a slice a call, one at a time."""

    def __init__(self, keys, authorities, on_authority=None, max_senders=16,
                 check_steps=CHECK_STEPS):
        self.keys = keys
        self.authorities = authorities
        self.on_authority = on_authority
        self.max_senders = max_senders
        self.check_steps = check_steps
        self.seen = {}   # sender -> highest counter accepted
        self.dropped = {}
        self.refused = 0        # the drops but the copies of a frame taken ("again")
        self.made_s = None
        self.failed = []        # the tags of the last frames whose token failed
        # A long token check (cran.radio.longcheck): [frame, rssi, token, reached, steps
        # left, target]; and the last one that came out right, (token, target).
        self.checking = None  # type: Any
        self.proven = None

    def drop(self, why):
        self.dropped[why] = self.dropped.get(why, 0) + 1
        if why != "again":
            self.refused += 1

    def token_failed(self, frame):
        # Its copies (a command is sent ~300 times) are then dropped at one look-up,
        # before their tag is even checked.
        failed = self.failed
        if len(failed) >= _FAILED_KEPT:
            failed.pop(0)
        failed.append(bytes(frame[-_TAG_BYTES:]))
        return self.drop("token")

    def open(self, frame, rssi=None):
        if not _HEAD_BYTES + _TAG_BYTES <= len(frame) <= MAX_FRAME or frame[0] != VERSION:
            return self.drop("size")
        keys = self.keys
        if frame[1:5] != keys.game:
            return self.drop("game")
        tag = frame[-_TAG_BYTES:]
        if tag in self.failed:
            return self.drop("token")
        body = memoryview(frame)[:-_TAG_BYTES]
        if not same(hmac_with(keys.pads, body)[:_TAG_BYTES], tag):
            return self.drop("tag")
        _, _, sender, role, counter, kind = struct.unpack_from(_HEAD, frame, 0)
        if SENDERS.get(kind) != role:
            return self.drop("kind")
        seen = self.seen
        last = seen.get(sender, -1)
        if counter <= last:
            return self.drop("again" if counter == last else "replay")
        payload = bytes(body[_HEAD_BYTES:])
        if kind in _SECRET:
            payload = _crypt(keys, sender, counter, payload)
        self.made_s = None
        if role != BADGE:
            entry = self.authorities.get(sender)
            if entry is None or entry[0] != role or len(payload) < _PROOF_BYTES:
                return self.token_failed(frame)
            index, token, made_s = struct.unpack_from(_PROOF, payload, 0)
            if not entry[1] < index <= CHAIN_STEPS:
                return self.token_failed(frame)
            # Its token checked by code loaded for it: rare, as authorities' frames are.
            from cran.radio.longcheck import spend
            spent = spend(self, entry, index, token, frame, rssi, chain_step)
            if self.checking is None:   # (a long check put aside: cran.radio.link steps it)
                forget(_LONGCHECK)
            if not spent:
                return None if spent is None else self.token_failed(frame)
            self.made_s = made_s
            payload = payload[_PROOF_BYTES:]
            if self.on_authority is not None:
                self.on_authority(sender, entry)
        if sender not in seen and len(seen) >= self.max_senders:
            seen.pop(next(iter(seen)))   # the oldest heard (dicts keep their order)
        seen[sender] = counter
        return kind, sender, role, payload


def chain_step(token):
    """The token before token in its chain (one hash). A badge checks a token by
    stepping it back; a healer's badge steps its own chain from its seed
    (cran.radio.treat.Chain); the host makes any token of one (host_tools.field.
    station.chain_token)."""
    return hashlib.sha256(token).digest()[:TOKEN_BYTES]


def _crypt(keys, sender, counter, data):
    """AES-128-CTR under keys.secret, the same both ways. The counter block starts with
    the frame's sender and counter, which never come twice under one key (Counter), so
    no keystream is used twice."""
    maker = keys.aes
    if maker is None:
        import cryptolib  # loaded by the first heartbeat
        maker = cryptolib.aes
    aes = maker(keys.secret, 1)   # ECB: mode 1; CTR (6) is not built in every firmware
    out = bytearray(data)
    block = bytearray(16)
    block[:ID_BYTES] = sender
    struct.pack_into(">I", block, ID_BYTES, counter)
    for start in range(0, len(out), 16):
        struct.pack_into(">H", block, 14, start // 16)
        stream = aes.encrypt(block)
        for i in range(start, min(start + 16, len(out))):
            out[i] ^= stream[i - start]
    return bytes(out)


_COUNTER_STEP = const(256)  # frames between two writes of the counter's high-water mark


class Counter:
    """This sender's frame counter, which must never give a number twice in one game,
    power cuts included, without writing the flash at every frame: the high-water mark
    saved (save(mark)) is _COUNTER_STEP ahead of the counter, written before any number
    it covers is given, and a reboot starts at the saved mark (LoRaWAN's frame counters
    do the same). stored: the saved mark, 0 at first."""

    def __init__(self, stored, save):
        self.next = self.mark = stored
        self.save = save

    def take(self):
        if self.next >= self.mark:
            self.mark = self.next + _COUNTER_STEP
            self.save(self.mark)
        n = self.next
        self.next += 1
        return n
