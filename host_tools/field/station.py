# The game master's station: the organiser's computer speaking through a badge on USB
# (its radio). It holds what no badge holds, the game master's chain (cran.radio): its
# seed and the next token, saved before each command is sent, so a restarted station
# never gives a token twice. It reads every badge's heartbeat (the only reader of their
# private state, S7) into one table, the urgent rows first. Its clock is the badges':
# every command carries it (a badge refuses one heard late: cran.radio.orders), it says
# it every CLOCK_EVERY_MS, and it answers a badge that asks for it (after a power cut
# its clock is unknown) naming that badge's question.
import json
import os
import struct
import time

from cran import radio
from cran.core.vocab import ARMOR_DAMAGED, STATES
from cran.radio.link import (
    _HEARTBEAT,
    _HEARTBEAT_BYTES,
    _NO_TIME,
    _PLAYS,
    HEARTBEAT_MS,
    PERIOD_MS,
    REPEAT_MS,
    WINDOW_MS,
)
from cran.radio.orders import ANSWER, ANSWER_BYTES
from host_tools.game.chains import chain_token, gm_anchor
from host_tools.home import write_private
from host_tools.virtual.micropython.cpython import cryptolib

GM_STEPS = radio.CHAIN_STEPS
TAG_BYTES = radio._TAG_BYTES
TAGS_KEPT = 16        # a sender's last frames heard, told from a second badge's
DOUBLED_AFTER = 2     # frames behind a sender's counter, never heard: two badges
# The station's clock said to every badge this often: a badge's own drifts a few
# percent (an RC oscillator while it sleeps), and must stay within cran.radio.orders'
# FRESH_S of it. A token each time: ~430 of the chain's 4,096 in a 72-hour game.
CLOCK_EVERY_MS = 10 * 60000
# Badges that ask for the time are answered together, once a minute at most (a token
# each time, whoever asks: a key holder's flood of questions costs the chain ~60 an
# hour at worst). An answer names ANSWERS_AT_MOST of them.
ANSWERS_AT_MOST = (radio.MAX_PAYLOAD - radio._PROOF_BYTES) // ANSWER_BYTES


def read_heartbeat(payload):
    """A heartbeat's payload -> {field: value}, or None when it is not one. Its layout is
    cran.radio.link.heartbeat's; it is read here only (no badge reads another's state), so a
    badge keeps none of this reading in its heap."""
    if len(payload) < _HEARTBEAT_BYTES:
        return None
    etat, left, armor, damaged, play, renown, battery = struct.unpack_from(
        _HEARTBEAT, payload, 0)
    if etat >= len(STATES) or play >= len(_PLAYS):
        return None
    effects = {}
    try:
        text = bytes(payload[_HEARTBEAT_BYTES:]).decode()
        for item in text.split(",") if text else ():
            name, _, seconds = item.partition(":")
            effects[name] = int(seconds)
    except ValueError:
        return None
    return {"etat": STATES[etat], "reste": None if left == _NO_TIME else left,
            "armure": armor, ARMOR_DAMAGED: bool(damaged), "jeu": _PLAYS[play],
            "renommee": renown, "batterie": None if battery == 255 else battery,
            "effets": effects}


class Station:
    """game_key, seed: the game's key and the game master's chain seed; me: the
    station's 6-byte id; saved: a JSON file where its counter's mark and next token
    index live (None: kept in memory). air: its radio (cran.radio.link's driver methods; one
    with repeat(frame, every_ms, for_ms), the station badge on USB, sends a command's
    copies itself). on_heard(badge id, row, now), when set, hears each heartbeat read.
    treaters: {id: [role, 0, anchor]} of the game's healers and smiths, whose frames it
    then opens (and leaves) rather than counting them refused. clock: -> its wall
    clock, unix seconds (this computer's; a virtual field's own)."""

    def __init__(self, game_key, seed, me, air, saved=None, treaters=None, clock=None):
        self.keys = radio.Keys(game_key, cryptolib.aes)
        self.seed = seed
        self.me = me
        self.air = air
        self.saved = saved
        self.kept = self._load()
        self.next_index = max(1, self.kept.get("next_index", 1))
        self.counter = radio.Counter(self.kept.get("counter_mark", 0), self._save_mark)
        # It opens heartbeats (and its own chain's frames, if another station of the
        # same game is about); it keeps every badge's counter.
        authorities = {who: list(entry) for who, entry in (treaters or {}).items()}
        authorities[me] = [radio.GM, 0, gm_anchor(seed)]
        # A computer checks a token at once, however far along its chain.
        self.listener = radio.Listener(self.keys, authorities, max_senders=100000,
                                       check_steps=radio.CHAIN_STEPS)
        self.clock = clock or (lambda: int(time.time()))
        self.asking = {}       # badge id -> the counter of its question for the time
        self.answered_at = None   # when the last answer went
        self.clock_said_at = None
        self.repeating_until = None   # the last repeat's end
        self.badges = {}     # badge id -> its last heartbeat, with "heard" and "rssi"
        self.sending = []    # [frame, until, next copy], for a radio that sends once
        self.on_heard = None
        # Two badges answering as one (flashed from one row, or a cran sim of a row the
        # crowd of `cran air` plays too): one radio id, two counters. The one behind
        # sends frames the listener drops as no newer than the last taken, yet never
        # heard (a repeat or a replay is a copy of a frame heard). id -> their count,
        # and each id's last tags heard.
        self.doubled = {}
        self._tags = {}
        self.on_doubled = None
        air.on()   # on USB power: it listens all the time

    # ---- what it keeps ----------------------------------------------------------

    def _load(self):
        if self.saved is None or not os.path.exists(self.saved):
            return {}
        with open(self.saved, encoding="utf-8") as f:
            return json.load(f)

    def _store(self, **changes):
        self.kept.update(changes)
        if self.saved is not None:   # whole, then renamed: a cut leaves one or the other
            write_private(self.saved, json.dumps(self.kept))

    def _save_mark(self, mark):
        self._store(counter_mark=mark)

    # ---- commands -----------------------------------------------------------------

    def command(self, kind, payload=b"", now=0):
        """A game master's command (cran.radio's STOP, RESUME, NIGHT, MASS, RESET,
        CLOCK), sent as _repeat sends. -> the frame."""
        if radio.SENDERS.get(kind) != radio.GM:
            raise ValueError("not a game master's command: %r" % kind)
        index = self.next_index
        if index > GM_STEPS:
            raise ValueError("the game master's chain is spent: a new game key for a "
                             "new game (cran config), then reflash")
        self.next_index = index + 1
        self._store(next_index=self.next_index)   # before the token leaves
        frame = radio.seal(self.keys, self.me, radio.GM, self.counter.take(), kind, payload,
                           (index, chain_token(self.seed, index), self.clock()))
        self._repeat(frame, now)
        self.clock_said_at = now   # every command says the clock
        return frame

    def ask_all(self, now=0):
        """Every badge in range asked for its heartbeat (a SEEK, as a healer's, which any
        member of the game may send: no token), so the table fills within a second
        instead of each badge's next minute. -> the frame."""
        frame = radio.seal(self.keys, self.me, radio.BADGE, self.counter.take(), radio.SEEK)
        self._repeat(frame, now)
        return frame

    def _repeat(self, frame, now):
        """frame sent now and again every REPEAT_MS for a period and a window, so every
        badge in range hears it in a window."""
        self.repeating_until = now + PERIOD_MS + WINDOW_MS
        repeat = getattr(self.air, "repeat", None)
        if repeat is not None:   # the station badge sends its copies itself
            repeat(frame, REPEAT_MS, PERIOD_MS + WINDOW_MS)
        else:
            self.air.send(b"\xff" * 6, frame)
            self.sending.append([frame, now + PERIOD_MS + WINDOW_MS, now + REPEAT_MS])

    def tick(self, now):
        """Copies due by now sent; frames heard read; the clock said when due, and
        answered to those who asked."""
        # Not while a repeat goes on: its copies and the clock's, interleaved, would make
        # the older one's look replayed to a badge that heard the newer first. Nor with
        # the station badge unplugged: nothing would go out, a token spent.
        if (self.next_index <= GM_STEPS and not getattr(self.air, "lost_line", None)
                and (self.repeating_until is None or now >= self.repeating_until)):
            if self.asking and (self.answered_at is None
                                or now - self.answered_at >= HEARTBEAT_MS):
                self.answer_time(now)
            elif self.clock_said_at is None or now - self.clock_said_at >= CLOCK_EVERY_MS:
                self.command(radio.CLOCK, b"", now)
        for item in self.sending:
            if now >= item[2]:
                self.air.send(b"\xff" * 6, item[0])
                item[2] = now + REPEAT_MS
        self.sending = [s for s in self.sending if now < s[1]]
        while True:
            got = self.air.recv()
            if got is None:
                break
            self.hear(got[0], got[1], now)

    def answer_time(self, now):
        """The clock, naming the badges that asked for it with their questions'
        counters (cran.radio.orders takes no older one). -> the frame."""
        asking = sorted(self.asking.items())[:ANSWERS_AT_MOST]
        for who, _ in asking:
            del self.asking[who]
        self.answered_at = now
        return self.command(radio.CLOCK, b"".join(struct.pack(ANSWER, who, counter)
                                                  for who, counter in asking), now)

    def hear(self, frame, rssi, now):
        dropped = self.listener.dropped
        before = dropped.get("replay", 0) + dropped.get("again", 0)
        got = self.listener.open(frame)
        if got is None and dropped.get("replay", 0) + dropped.get("again", 0) > before:
            self._older(frame)
        if got is not None:
            tags = self._tags.setdefault(got[1], [])
            tags.append(bytes(frame[-TAG_BYTES:]))
            del tags[:-TAGS_KEPT]
        if got is not None and got[0] == radio.ASK_TIME:
            self.asking[got[1]] = self.listener.seen[got[1]]
            return
        if got is None or got[0] != radio.HEARTBEAT:
            return
        row = read_heartbeat(got[3])
        if row is None:
            return
        row["heard"] = now
        row["rssi"] = rssi
        self.badges[got[1]] = row
        if self.on_heard is not None:
            self.on_heard(got[1], row, now)

    def _older(self, frame):
        """A genuine frame of a sender, no newer than its last one taken: a copy of one
        heard (a repeat, a replay), or another badge's with the same radio id."""
        sender = struct.unpack_from(radio._HEAD, frame, 0)[2]
        if bytes(frame[-TAG_BYTES:]) in self._tags.get(sender, ()):
            return
        self.doubled[sender] = self.doubled.get(sender, 0) + 1
        if self.doubled[sender] == DOUBLED_AFTER and self.on_doubled is not None:
            self.on_doubled(sender)

    def twice(self):
        """The radio ids two badges answer to (DOUBLED_AFTER frames of one behind the
        other's counter, never heard before)."""
        return sorted(who for who, n in self.doubled.items() if n >= DOUBLED_AFTER)

    # ---- the table ------------------------------------------------------------------

    def rows(self, now):
        """Every badge heard, the urgent first: agonisant with the least time left, then
        coma, then the rest by state; with the seconds since it was last heard, and its
        countdown and effects run on since (unless the game is stopped)."""
        order = {"agonisant": 0, "coma": 1, "mort": 2, "blesse": 3, "pleine-forme": 4}

        def urgency(item):
            row = item[1]
            return (order[row["etat"]], row["reste"] if row["reste"] is not None else 0)

        out = []
        twice = set(self.twice())
        for badge, row in sorted(self.badges.items(), key=urgency):
            ago = (now - row["heard"]) // 1000
            row = dict(row, id=badge.hex(), ago_s=ago, twice=badge in twice)
            if row["jeu"] != "stop":   # K15: a stop freezes them; else they run on
                if row["reste"] is not None:
                    row["reste"] = max(0, row["reste"] - ago)
                row["effets"] = {k: max(0, v - ago) for k, v in row["effets"].items()}
            out.append(row)
        return out
