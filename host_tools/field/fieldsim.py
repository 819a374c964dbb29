# A whole field in one process, in virtual time: badges (the rules engine and the
# firmware's radio, cran.radio.link and cran.radio, unchanged) and the game master's station on
# a virtual air (virtual/micropython/air.py) that loses frames, a millisecond a step. For tests and
# for `make bench`'s stop -> every badge frozen figure.
from cran import radio
from cran.core.engine import act, new_state
from cran.core.engine import tick as engine_tick
from cran.core.rules import Character, Settings
from cran.core.view import view
from cran.core.vocab import Action
from cran.radio.config import Radio as RadioSpec
from cran.radio.link import Link
from cran.radio.start import wire
from cran.radio.treat import Chain
from host_tools.field.station import Station
from host_tools.game.chains import chain_token, gm_anchor
from host_tools.virtual.micropython import air as vair
from host_tools.virtual.micropython.cpython import cryptolib

GAME_KEY = bytes(range(32))
GM_SEED, HEALER_SEED = b"G" * 16, b"H" * 16
STATION_ID, HEALER_ID = b"\x5a" * 6, b"\x4e" * 6
FIELD_EPOCH_S = 1767225600   # the wall clock at a field's ms 0: 2026-01-01


def _authorities():
    return {STATION_ID: [radio.GM, 0, gm_anchor(GM_SEED)],
            HEALER_ID: [radio.HEALER, 0, chain_token(HEALER_SEED, 0)]}


class FieldBadge:
    """A badge as the app wires one: the engine's state, its link (cran.radio.link, as the
    firmware has it), and what its wearer was offered. air: its radio
    (virtual/micropython/air.py's, or a hub's: cran.radio.link's driver methods); authorities: {id:
    [role, 0, anchor]} as cran.radio.Listener takes them (its own: the listener spends its tokens
    in it). kept: a file for what outlives a restart (its counter's mark, the tokens it spent,
    its own chain's next), read and written by the firmware's own code, as a badge's
    radio.json (cran.radio.start.wire, Link.save); None: kept in memory. clock: -> its
    wall clock (unix seconds), as cran flash sets a badge's; None: unknown."""

    def __init__(self, air, me, role=radio.BADGE, seed=None, key=GAME_KEY,
                 authorities=None, character=None, settings=None, kept=None, clock=None):
        self.me = me
        self.radio = air
        self.mark = 0
        authorities = authorities or _authorities()
        if kept is None:
            keys = radio.Keys(key, cryptolib.aes)
            self.link = Link(air, keys, radio.Listener(keys, authorities),
                             radio.Counter(0, self._save_mark), me, role,
                             Chain(seed, 1) if seed else None, battery=lambda: 80)
        else:
            spec = RadioSpec()
            spec.role, spec.seed, spec.authorities = role, seed, authorities
            self.link = wire(kept, spec, key, air, me)[0]
            self.link.keys.aes = cryptolib.aes   # a desktop's: CPython has no cryptolib
        self.link.clock = clock
        self.link.ask_time = clock is None
        self.state = new_state(character or Character(armor=1), settings or Settings())
        self.offers = []
        self.offered = []
        self.answered = []    # [(rssi, badge id, counter)]: its last search's answers (a healer)
        self.next_wake = 0
        self.play_since = 0   # when its game last stopped or went on (K15, K16)

    def _save_mark(self, mark):
        self.mark = mark

    def act(self, action, now):
        before = self.state.play()
        self.state, _ = act(self.state, action, now)
        if self.state.play() != before:
            self.play_since = now

    def step(self, now):
        if now < self.next_wake:
            return
        seeking = self.link.seeking
        for what, value in self.link.tick(now, self.state):
            if what == "act":
                self.act(value, now)
            elif what == "offer":
                self.offers.append((now, value))
            elif what == "offered":   # to whom, in hex as the journal has it
                self.offered.append(None if value is None else bytes.fromhex(value))
            elif what == "recast":
                self.recast(value, now)
        if seeking is not None and self.link.seeking is None:   # its search ended
            self.answered = list(seeking[1])
        self.state, _ = engine_tick(self.state, now)
        self.next_wake = now + self.link.next_wake_ms(now)

    def recast(self, fields, now):
        """The game master's reset to a new character (JSON fields), as cran.recast
        plays it on a badge: checked, then P3 with it; refused, nothing changes."""
        from cran.recast import read_character, with_character
        try:
            _, character = read_character(fields)
        except ValueError:
            return
        self.state = with_character(self.state, character)
        self.act(Action("reset"), now)

    def take(self, now):
        """The wearer's long press on the offer on show (cran.menu's "take"): its soin
        or repare played. -> the Action, or None when there was none to take."""
        taken = self.link.accept(now)
        if taken is not None:
            self.act(taken, now)
        return taken

    def treat(self, now):
        """A healer's (smith's) wearer picks Jeu -> Soigner (Réparer): the nearest badge
        is offered it (step() then says whom, in offered). -> False when it may not."""
        started = self.link.seek(now)
        self.next_wake = now   # its radio is on now: stepped from now on
        return started


class Field:
    def __init__(self, count=50, loss=0.0, seed=1):
        self.air = vair.Air(loss=loss, seed=seed)
        self.now = 0
        self.station = Station(GAME_KEY, GM_SEED, STATION_ID, self.air.radio(0, 0),
                               clock=self.clock)
        # In a 10 x 5 grid, 4 m apart: everyone in the station's range (no walls here).
        self.badges = [FieldBadge(self.air.radio(4 * (n % 10) + 2, 4 * (n // 10) + 2),
                                  bytes([0xB0, 0, 0, 0, 0, n]), clock=self.clock)
                       for n in range(count)]

    def clock(self):
        """The field's wall clock, every badge's and the station's, as cran flash sets
        them: unix seconds."""
        return FIELD_EPOCH_S + self.now // 1000

    def run(self, ms, until=None):
        """Virtual time on by ms, a millisecond a step (or until until() is true) ->
        the ms it took."""
        start = self.now
        for _ in range(ms):
            self.now += 1
            self.air.step(self.now)
            self.station.tick(self.now)
            for b in self.badges:
                b.step(self.now)
            if until is not None and until():
                break
        return self.now - start



def everyone(field, jeu):
    """-> a test: every badge of the field is in this jeu ("stop", "en-jeu")."""
    return lambda: all(view(b.state, field.now)["jeu"] == jeu for b in field.badges)
