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
#      REPAIR) to that badge alone, with its chain's token and the counter of the
#      answer it picked, for a whole period;
#   3. that badge, if that answer is its last one and recent (a heal captured and
#      replayed later names an older one), shows the offer for OFFER_MS; its wearer's
#      press takes it (accept()), and only then is the soin applied. A badge never
#      heals itself for a frame.
#
# Bounded work: a step opens at most _FRAMES_PER_TICK frames and steps a long token
# check by a slice (cran.radio.Listener); a window opens _FRAMES_PER_WINDOW at most, and
# what it has not read when it closes goes with it (Listener.dropped["flood"] counts
# those windows). A flood of frames, forged or not, never holds the show loop, the
# console or the watchdog for more than a step's few milliseconds.
import struct

from cran import radio
from cran.compat import forget
from cran.core.steps import COUNTDOWN
from cran.core.ticks import ticks_add, ticks_diff
from cran.core.vocab import Action, const

TYPE_CHECKING = const(False)
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
HEARTBEAT_MS = const(60000)   # a badge's heartbeat when nothing changes; the time asked
OFFER_MS = radio.OFFER_MS     # a healer's offer waits this long for the patient's press
# Frames a step opens; more, and the next step comes at once (the show loop's first).
# A window opens _FRAMES_PER_WINDOW at most (a station's command: ~8 copies; it takes
# the first), the rest going with it when it closes: under a flood, a period's work is
# ~16 tags (~26 ms on an ESP32) and a token check's slices.
_FRAMES_PER_TICK = const(4)
_FRAMES_PER_WINDOW = const(16)
NEAR_DBM = radio.NEAR_DBM
_EVERYONE = b"\xff" * 6       # ESP-NOW's broadcast address

_HEARTBEAT = ">BHBBBHB"       # etat, s left, armor, damaged, play, renown, battery
_HEARTBEAT_BYTES = const(9)
_NO_TIME = const(0xFFFF)
_PLAYS = ("en-jeu", "hors-jeu", "stop")
_NOTHING = ()                 # Link.tick's answer when nothing came
_ORDERS = const(("cran.radio.orders",))
_LONGCHECK = const(("cran.radio.longcheck",))


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
    the healer, ("journal", an entry): a command refused, frames dropped.
    next_wake_ms(now): when tick has something to do. on_ms: radio-on time. clock: ->
    the badge's wall clock (unix seconds) or None, which judges a command's age
    (cran.radio.orders)."""

    def __init__(self, air, keys, listener, counter, me, role=radio.BADGE, chain=None,
                 battery=None, clock=None):
        self.air = air
        self.keys = keys
        self.listener = listener
        self.counter = counter
        self.me = me
        self.role = role
        self.chain = chain
        self.battery = battery   # -> percent, or None
        self.listening = False
        self._next_window = None  # the first tick() opens one
        self._window_end = None
        self.on_since = None
        self.on_ms = 0
        self.last_beat = None    # (tick, what it said)
        self._beat_state = None  # the state last looked at for a heartbeat
        self.answer = False      # a SEEK heard: a heartbeat in this window
        self.offer = None        # (verb, until): a healer's, for this wearer to take
        self.sending = None      # (frame, until, next copy): sent again and again
        self.seeking = None      # (until, [(rssi, badge id, counter)]): a healer's search
        self.kept = None         # the file save() writes, or None
        self.clock = clock
        self.ask_time = True     # the clock is unknown, or a command found it off
        # (the counter of the first ASK_TIME not answered yet, the tick of the last)
        self.time_asked = None
        self.answered = None     # (counter, tick) of the last answer to a SEEK
        self.more = False        # a step left frames unread: the next comes at once
        self.reads = 0           # frames opened in this window (a healer's search: all)
        self.cut = False         # ... as many as a window may: the rest left unread
        self._refused_said = None  # (listener.refused, tick) the journal last heard

    def save(self, *_):
        """What must outlive a reboot (the counter's mark, the tokens spent, this badge's
        own chain's next token) written to its file (cran.radio.orders.keep), before
        what it covers goes out or is acted on. Rare (an authority's frame taken, a
        counter's 256 frames sent): its code loaded for it."""
        if self.kept is not None:
            from cran.radio.orders import keep
            keep(self)
            forget(_ORDERS)

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
        listener = self.listener
        if listener.checking is not None:   # a long token check: a slice a step
            from cran.radio.longcheck import resume
            got = resume(listener, radio.chain_step)
            if listener.checking is None:
                forget(_LONGCHECK)
            if got is not None:
                out = []
                self._heard(got[0], got[1], now, out)
        if self.listening:
            self.more = False
            while True:
                got = self.air.recv()
                if got is None:
                    break
                if self.reads >= _FRAMES_PER_WINDOW and self.seeking is None:
                    self.cut = True   # a window's worth opened: the rest go with it
                    break
                self.reads += 1
                if out is _NOTHING:
                    out = []
                self._heard(got[0], got[1], now, out)
                if self.reads % _FRAMES_PER_TICK == 0:
                    self.more = True   # the rest at the next step, after the show loop's
                    break
            if out and ticks_diff(self._window_end, now) <= 0:
                # Open a moment longer: the app applies what came, and the window's
                # close says the change (below) before the radio goes off.
                self._window_end = ticks_add(now, 1)
        if self._next_window is None or ticks_diff(now, self._next_window) >= 0:
            self._next_window = ticks_add(now, PERIOD_MS)
            self._window_end = ticks_add(now, WINDOW_MS)
            self.reads, self.cut = 0, False
            self._on(now)
            if self.sending is None:
                # Frames go out in counter order: a heartbeat between two copies of a
                # repeat would make the later copies look replayed (radio.Listener) to
                # whoever heard it. It is said at the window's close, the repeat done.
                self._beat(state, now)
                if self.ask_time:
                    self._ask(now)
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
        if (self.listening and ticks_diff(now, self._window_end) >= 0
                and self.sending is None and self.seeking is None and not self.more):
            # What changed in the window (a stop heard, applied since) and a SEEK's
            # answer are said before the radio goes off, not a period later.
            self._beat(state, now)
            if self.cut:   # a flood: what the window has not read goes with it
                listener.drop("flood")
            said = self._refused_said
            if listener.refused and (said is None or listener.refused != said[0]
                                     and ticks_diff(now, said[1]) >= HEARTBEAT_MS):
                # Frames refused (forged, replayed, a flood's): the journal hears of
                # them once a minute at most, their counts so far.
                self._refused_said = (listener.refused, now)
                if out is _NOTHING:
                    out = []
                out.append(("journal", {"radio": "dropped",
                                        "value": dict(listener.dropped)}))
            self._off(now)
        return out

    def next_wake_ms(self, now):
        if self._next_window is None or self.listener.checking is not None:
            return 0
        wait = ticks_diff(self._next_window, now)
        if self.listening:
            if self.more:
                return 0
            wait = min(wait, ticks_diff(self._window_end, now))
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

    def repeat(self, kind, payload, now, proof=None):
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
        if not due and state is self._beat_state:
            return
        self._beat_state = state
        what = (state.etat, state.armor_answers(), state.play(), state.renown,
                tuple(state.effects()))
        if due or last is None or last[1] != what:
            if self.answer:   # what a healer's offer to this badge names (cran.radio.orders)
                self.answered = (self.counter.next, now)
            self._send(radio.HEARTBEAT, heartbeat(state, now,
                                                  self.battery() if self.battery else None))
            self.last_beat = (now, what)
            self.answer = False

    def _ask(self, now):
        # The station answers with its time and this badge's counter, which a frame
        # captured before cannot name (cran.radio.orders): once a minute at most.
        asked = self.time_asked
        if asked is None or ticks_diff(now, asked[1]) >= HEARTBEAT_MS:
            self.time_asked = (self.counter.next if asked is None else asked[0], now)
            self._send(radio.ASK_TIME)

    # ---- what it hears ------------------------------------------------------------

    def _heard(self, frame, rssi, now, out):
        listener = self.listener
        got = listener.open(frame, rssi)
        if got is None:
            return
        kind, sender, role, payload = got
        if kind == radio.SEEK:
            self.answer = True   # said before this window closes
        elif kind == radio.HEARTBEAT:
            if self.seeking is not None:
                self.seeking[1].append((rssi, sender, listener.seen[sender]))
        elif role != radio.BADGE:   # an authority's: rare, its judging loaded for it
            from cran.radio.orders import judge
            judge(self, kind, payload, rssi, now, out)
            del judge   # (it keeps its module's globals: all of it, past forget)
            if not out:   # else the app plays it with this module, then lets it go
                forget(_ORDERS)   # (cran.app.App.show)

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
        self.repeat(radio.SEEK, b"", now)
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
