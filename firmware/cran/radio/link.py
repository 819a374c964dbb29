# The badge's side of the radio: when it listens, what it says, and what it makes of
# what it hears (frames: cran.radio). The radio listens in windows, as a receiver costs
# ~100 mA: WINDOW_MS out of every PERIOD_MS. What must reach every badge (the game
# master's stop, a healer's offer) is sent again and again for a whole period, so a
# window catches it; what a badge says (its heartbeat) it says in its own window.
#
# A healer (S10) or a smith (A4) treats the nearest badge, with its wearer's consent:
#   1. the healer's badge, asked by its wearer, listens a whole period and sends SEEK
#      over it; each badge that hears a SEEK answers in its window with a heartbeat;
#   2. the healer picks the strongest answer at or above NEAR_DBM, and sends HEAL (or
#      REPAIR) to that badge alone, with its chain's token, for a whole period;
#   3. that badge shows the offer for OFFER_MS; its wearer's press takes it (accept()),
#      and only then is the soin applied. A badge never heals itself for a frame.
import json
import struct

from cran import radio
from cran.compat import forget
from cran.core.engine import COUNTDOWN
from cran.core.ticks import ticks_add, ticks_diff
from cran.core.vocab import Action, const
from cran.tags import to_hex

TYPE_CHECKING = False
if TYPE_CHECKING:   # mypy's reading only: a badge has no typing module
    from typing import Any  # noqa: F401

# [choice] The listening duty cycle: 25 ms in 900, 2.8 %. The radio draws ~100 mA and
# the CPU must stay awake beside it (a light sleep stops the radio): at 10 % an Atom
# Lite lasted 30 hours, here ~3 days. A stop reaches every badge in range within
# PERIOD_MS + WINDOW_MS, under a second, with REPEAT_MS between its copies: a window
# catches ~8 of them, so at 30 % loss it misses all of them once in ~15,000.
PERIOD_MS = const(900)
WINDOW_MS = const(25)
REPEAT_MS = const(3)
HEARTBEAT_MS = const(60000)   # a badge's heartbeat when nothing changes
OFFER_MS = const(10000)       # a healer's offer waits this long for the patient's press
NEAR_DBM = radio.NEAR_DBM
_EVERYONE = b"\xff" * 6       # ESP-NOW's broadcast address

_HEARTBEAT = ">BHBBBHB"       # etat, s left, armor, damaged, play, renown, battery
_HEARTBEAT_BYTES = const(9)
_NO_TIME = const(0xFFFF)
_PLAYS = ("en-jeu", "hors-jeu", "stop")
_NOTHING = ()                 # Link.tick's answer when nothing came
_ORDERS = const(("cran.radio.orders",))


def heartbeat(state, now, battery=None):
    """The wearer's state as a heartbeat's payload (encrypted by cran.radio: coma and
    mort are told apart here, for the game master's eyes)."""
    left = state.left_ms(COUNTDOWN, now)
    effects = ",".join(["%s:%d" % (name, (state.left_ms(name, now) + 999) // 1000)
                        for name in state.effects()])
    return struct.pack(_HEARTBEAT, state.etat,
                       _NO_TIME if left is None else min(_NO_TIME - 1, (left + 999) // 1000),
                       state.armor_answers(), state.armor_damaged, _PLAYS.index(state.play()),
                       state.renown, 255 if battery is None else battery) + effects.encode()


class Link:
    """One badge's radio. air: the driver (on(), off(), send(frame), recv() -> (frame,
    rssi) or None, the radio being on); listener: its cran.radio.Listener; counter: its
    cran.radio.Counter; me: its 6-byte id; chain: its Chain if it heals or repairs.

    tick(now, state) -> what the app must do, as (what, value): ("act", Action) to play
    at once, ("clock", unix seconds), ("offer", "soin" or "repare") to show until the
    wearer takes it (accept) or it runs out, ("offered", badge id in hex or None) for
    the healer. next_wake_ms(now): when tick has something to do. on_ms: radio-on time."""

    def __init__(self, air, keys, listener, counter, me, role=radio.BADGE, chain=None,
                 battery=None):
        self.air = air
        self.keys = keys
        self.listener = listener
        self.counter = counter
        self.me = me
        self.role = role
        self.chain = chain
        self.battery = battery   # -> percent, or None
        self.listening = False
        self.next_window = None  # the first tick() opens one
        self.window_end = None
        self.on_since = None
        self.on_ms = 0
        self.last_beat = None    # (tick, what it said)
        self.beat_state = None   # the state last looked at for a heartbeat
        self.answer = False      # a SEEK heard: a heartbeat in this window
        self.offer = None        # (verb, until): a healer's, for this wearer to take
        self.sending = None      # (frame, until, next copy): sent again and again
        self.seeking = None      # (until, [(rssi, badge id)]): a healer's search
        self.kept = None         # the file save() writes, or None

    def save(self, *_):
        """What must outlive a reboot (the counter's mark, the tokens spent, this badge's
        own chain's next token) written whole, then renamed over the old: a cut leaves
        one or the other. Called before what it covers goes out or is acted on."""
        if self.kept is None:
            return
        from cran.compat import replace
        spent = {}
        for who, entry in self.listener.authorities.items():
            if entry[1]:
                spent[to_hex(who)] = [entry[1], to_hex(entry[2])]
        kept = {"mark": self.counter.mark, "spent": spent}
        if self.chain is not None:
            kept["next"] = self.chain.next_index
        with open(self.kept + ".new", "w") as f:
            f.write(json.dumps(kept))
        replace(self.kept + ".new", self.kept)

    # ---- the window ------------------------------------------------------------

    def offered(self):
        """The verb of a healer's offer to this wearer on show ("soin", "repare"), or
        None: what the menu's long press takes (cran.menu)."""
        return self.offer[0] if self.offer is not None else None

    def tick(self, now, state):
        """The radio's part of the app's show step (cran.app.App.show): the window kept,
        the frames heard -> what they ask of the app, [(what, value)]: ("act", Action),
        a game master's command; ("recast", the new character's fields, bytes);
        ("clock", unix s); ("offer", verb) or ("offered", to whom: hex or None), for
        the journal. The offer on show: offered()."""
        # A list only when something was heard: most windows hear nothing.
        out = _NOTHING  # type: Any
        if self.listening:
            while True:
                got = self.air.recv()
                if got is None:
                    break
                if out is _NOTHING:
                    out = []
                self._heard(got[0], got[1], now, out)
            if out and ticks_diff(self.window_end, now) <= 0:
                # Open a moment longer: the app applies what came, and the window's
                # close says the change (below) before the radio goes off.
                self.window_end = ticks_add(now, 1)
        if self.next_window is None or ticks_diff(now, self.next_window) >= 0:
            self.next_window = ticks_add(now, PERIOD_MS)
            self.window_end = ticks_add(now, WINDOW_MS)
            self._on(now)
            if self.sending is None:
                # Frames go out in counter order: a heartbeat between two copies of a
                # repeat would make the later copies look replayed (radio.Listener) to
                # whoever heard it. It is said at the window's close, the repeat done.
                self._beat(state, now)
        sending = self.sending
        if sending is not None and ticks_diff(now, sending[2]) >= 0:
            self.air.send(_EVERYONE, sending[0])
            self.sending = (sending[0], sending[1], ticks_add(now, REPEAT_MS))
            if ticks_diff(now, sending[1]) >= 0:
                self.sending = None
        seeking = self.seeking
        if seeking is not None and ticks_diff(now, seeking[0]) >= 0:
            self.seeking = None
            if out is _NOTHING:
                out = []
            # Only a healer's or smith's badge seeks: loaded with its chain (cran.radio.treat).
            from cran.radio.treat import offer_nearest
            offer_nearest(self, seeking[1], now, out)
        if self.offer is not None and ticks_diff(now, self.offer[1]) >= 0:
            self.offer = None
        if (self.listening and ticks_diff(now, self.window_end) >= 0
                and self.sending is None and self.seeking is None):
            # What changed in the window (a stop heard, applied since) and a SEEK's
            # answer are said before the radio goes off, not a period later.
            self._beat(state, now)
            self._off(now)
        return out

    def next_wake_ms(self, now):
        if self.next_window is None:
            return 0
        wait = ticks_diff(self.next_window, now)
        if self.listening:
            wait = min(wait, ticks_diff(self.window_end, now))
            if self.sending is not None:
                wait = min(wait, ticks_diff(self.sending[2], now))
            if self.seeking is not None:
                wait = min(wait, ticks_diff(self.seeking[0], now))
        return max(0, wait)

    def _on(self, now):
        if not self.listening:
            self.air.on()
            self.listening = True
            self.on_since = now

    def _off(self, now):
        self.air.off()
        self.listening = False
        self.on_ms += ticks_diff(now, self.on_since)

    def _send(self, kind, payload=b"", proof=None):
        frame = radio.seal(self.keys, self.me, self.role if proof else radio.BADGE,
                           self.counter.take(), kind, payload, proof)
        self.air.send(_EVERYONE, frame)
        return frame

    def _repeat(self, kind, payload, now, proof=None):
        """kind sent now and every REPEAT_MS for a period and a window: every badge in
        range has a window in that time."""
        self._on(now)
        frame = self._send(kind, payload, proof)
        self.sending = (frame, ticks_add(now, PERIOD_MS + WINDOW_MS),
                        ticks_add(now, REPEAT_MS))

    def _beat(self, state, now):
        # Said when asked (a SEEK), when the state changed (its seconds left aside),
        # and every HEARTBEAT_MS. Most windows find the very state object of the last
        # look (the engine makes a new one for any change): nothing is made for them.
        last = self.last_beat
        due = (self.answer or last is None
               or ticks_diff(now, last[0]) >= HEARTBEAT_MS)
        if not due and state is self.beat_state:
            return
        self.beat_state = state
        what = (state.etat, state.armor_answers(), state.play(), state.renown,
                tuple(state.effects()))
        if due or last is None or last[1] != what:
            self._send(radio.HEARTBEAT, heartbeat(state, now,
                                                  self.battery() if self.battery else None))
            self.last_beat = (now, what)
            self.answer = False

    # ---- what it hears ------------------------------------------------------------

    def _heard(self, frame, rssi, now, out):
        got = self.listener.open(frame)
        if got is None:
            return
        kind, sender, role, payload = got
        if kind == radio.SEEK:
            self.answer = True   # said before this window closes
        elif kind == radio.HEARTBEAT:
            if self.seeking is not None:
                self.seeking[1].append((rssi, sender))
        elif kind in (radio.HEAL, radio.REPAIR):
            if payload[:radio.ID_BYTES] == self.me and rssi >= NEAR_DBM:
                self.offer = ("soin" if kind == radio.HEAL else "repare",
                              ticks_add(now, OFFER_MS))
                out.append(("offer", self.offer[0]))
        elif kind == radio.CLOCK:
            if len(payload) == 4:
                out.append(("clock", struct.unpack(">I", payload)[0]))
        elif (kind == radio.RESET and len(payload) > radio.ID_BYTES
              and payload[:radio.ID_BYTES] == self.me):   # with a new character
            out.append(("recast", bytes(payload[radio.ID_BYTES:])))
        else:   # a game master's order: rare, loaded for it
            from cran.radio.orders import command
            action = command(kind, payload, self.me)
            forget(_ORDERS)
            if action is not None:
                out.append(("act", action))

    # ---- what the wearer asks -------------------------------------------------------

    def treats(self):
        """What this badge's wearer offers: "soin" (a healer), "repare" (a smith), None."""
        if self.chain is None:
            return None
        return "soin" if self.role == radio.HEALER else "repare"

    def seek(self, now):
        """A healer's or smith's wearer treats the nearest badge: listen a period and a
        window for the badges around, then offer to the nearest (tick says which)."""
        if self.chain is None:
            return False
        self._repeat(radio.SEEK, b"", now)
        self.seeking = (ticks_add(now, PERIOD_MS + 2 * WINDOW_MS), [])
        return True

    def accept(self, now):
        """The wearer's press on an offer -> the Action to play, or None (no offer, or
        it ran out)."""
        offer = self.offer
        self.offer = None
        if offer is None or ticks_diff(now, offer[1]) >= 0:
            return None
        return Action(offer[0])
