# A State as plain data, for storage and the console: timers as milliseconds left,
# never raw ticks (a tick count means nothing after a reboot). Pure, like the engine.

from cran.core.engine import TIMER_NAMES, State, update_freeze
from cran.core.ticks import ticks_add, ticks_diff
from cran.core.vocab import AGONISANT, COMA, STATES, ParseError

RECORD_VERSION = 1
_LONG_AGO_MS = (1 << 29) - 1     # C2 only cares about the last few hundred ms


def to_record(state, now):
    """State -> dict of plain values (JSON-ready), K9's snapshot of the state before
    the action just received included, so a badge restarted is the badge it was."""
    timers = {}
    for name in state.timers:
        timers[name] = state.left_ms(name, now)
    return {
        "v": RECORD_VERSION,
        "etat": STATES[state.etat],
        "timers": timers,
        "stopped": state.stopped,
        "out_of_game": state.out_of_game,
        "armor_left": state.armor_left,
        "armor_damaged": state.armor_damaged,
        "creature_left": state.creature_left,
        "broken": sorted(state.broken),
        "said": state.said,
        "renown": state.renown,
        "hit_ago_ms": (None if state.last_hit is None
                       else min(_LONG_AGO_MS, max(0, ticks_diff(now, state.last_hit)))),
        "last_kw": state.last_kw,
        "before": None if state.before is None else to_record(state.before, now),
    }


def from_record(record, character, settings, now):
    """dict from to_record -> State, its timers running again from now.
    Raises ParseError naming the field when the record is not one of ours."""
    if not isinstance(record, dict):
        raise ParseError("state record is not an object")
    if record.get("v") != RECORD_VERSION:
        raise ParseError("state record version %r, expected %d"
                         % (record.get("v"), RECORD_VERSION))
    s = State(character, settings)
    etat = _field(record, "etat", str)
    if etat not in STATES:
        raise ParseError("state record: etat %r is not a state" % etat)
    s.etat = STATES.index(etat)
    s.stopped = _field(record, "stopped", bool)
    s.out_of_game = _field(record, "out_of_game", bool)
    s.armor_left = _count(record, "armor_left", character.armor)
    s.armor_damaged = _field(record, "armor_damaged", bool)
    s.creature_left = _count(record, "creature_left", character.creature)
    s.broken = [str(b) for b in _field(record, "broken", list)]
    s.said = _field(record, "said", str)
    s.renown = _count(record, "renown", None)
    timers = _field(record, "timers", dict)
    for name in timers:
        left = timers[name]
        if name not in TIMER_NAMES:
            raise ParseError("state record: unknown timer %r" % name)
        if not isinstance(left, int) or isinstance(left, bool) or not 0 <= left < 1 << 29:
            raise ParseError("state record: timer %s has %r ms left" % (name, left))
    ago = record.get("hit_ago_ms")
    if ago is not None:
        s.last_hit = ticks_add(now, -_count(record, "hit_ago_ms", _LONG_AGO_MS))
    last_kw = record.get("last_kw")
    if record.get("before") is not None:
        if not isinstance(last_kw, str):
            raise ParseError("state record: last_kw should be str, got %r" % (last_kw,))
        s.before = from_record(record["before"], character, settings, now)
        s.before.before = None
        s.last_kw = last_kw
    if ("countdown" in timers) != (s.etat in (AGONISANT, COMA)):
        raise ParseError("state record: %s with%s a countdown"
                         % (etat, "" if "countdown" in timers else "out"))
    # Timers are stored as ms left: start frozen, then let the engine's own rule decide
    # whether they run (a game stop saved stays frozen).
    s.timers = dict(timers)
    s.frozen = True
    update_freeze(s, now)
    return s


def _field(record, name, kind):
    if name not in record:
        raise ParseError("state record: %s is missing" % name)
    value = record[name]
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise ParseError("state record: %s should be %s, got %r"
                         % (name, kind.__name__, value))
    return value


def _count(record, name, most):
    value = _field(record, name, int)
    if isinstance(value, bool) or value < 0 or (most is not None and value > most):
        raise ParseError("state record: %s=%r out of range" % (name, value))
    return value
