# How a badge comes back at boot: its state records read and checked (the two copies on
# the flash, StateStore's), the newest turned back into a State, the boot journaled.
# Start-only, as cran.start.rescue (the copy in NVS): on a badge every module is bytecode in
# RAM, and this one is read once, then let go (cran.start.phases.start), or loaded again for a
# StateStore.load() after a failed save.
import binascii
import time

import cran
from cran.core import ticks
from cran.core.engine import TIMER_NAMES, State, summary, update_freeze
from cran.core.record import LONG_AGO_MS, RECORD_VERSION
from cran.core.ticks import ticks_add
from cran.core.vocab import (
    AGONISANT,
    ARMOR_DAMAGED,
    COMA,
    COPY_MISSING,
    NVS_BAD,
    STATES,
    ParseError,
    const,
)

# machine.reset_cause() -> the journal's word for it
_CAUSE_NAMES = {1: "power-on", 2: "hard", 3: "watchdog", 4: "deepsleep", 5: "soft"}
_PLAUSIBLE_WALL_S = const(1704067200)   # 2024-01-01: an RTC showing less was never set
# A reset the badge lived through (its watchdog's, a soft one) with its clock unknown:
# the time it could not see, at worst. The watchdog resets a badge stuck 45 s after
# its last step (cran.app.WDT_TIMEOUT_MS), whose save, pessimistic by a checkpoint,
# covers the moments before (cran.badge); then the start's few seconds, with room.
_UNSEEN_AT_WORST_MS = const(60000)


def restored_badge(root, config):
    """The wearer's badge as it was when it stopped, from root's flash: its state, its
    journal, its count of watchdog resets. -> (Badge, resets): resets is the count
    that puts the badge in safe mode (cran.boots), else 0. First of the start, before
    the app's modules: this module and those it loads go before they come."""
    import machine

    from cran import boots
    from cran.badge import Badge, epoch_shift
    from cran.start import rescue
    from cran.storage import Journal, StateStore, join
    # The clock first: restored timers run on from the instant the badge came back,
    # not after the screen's slow start.
    now = time.ticks_ms()
    cause = machine.reset_cause()
    board = config.board
    keep = None
    if board.runtime != "micropython":   # CircuitPython's: in microcontroller.nvm
        from cran.hal_cp import parts
        keep = parts.boots()
    safe = boots.note_boot(join(root, boots.FILE), cause == machine.WDT_RESET,
                           int(time.time()), keep)
    copy, nvs_problem = rescue.open_copy()
    if keep is not None:
        store, journal = parts.stores(root, copy)
    else:
        store, journal = StateStore(root, copy=copy), Journal(root)
    badge = Badge(config.character, config.settings, store, journal, board.id)
    # How the organisers' tools tell badges apart (cran flash --roster).
    badge.names = {"id": binascii.hexlify(machine.unique_id()).decode(),
                   "badge": config.badge}
    # The RTC runs on through resets but starts again in 2000 after a power cut:
    # only a plausible date may count the time switched off (time_off_counts).
    wall = int(time.time()) + epoch_shift()
    boot(badge, now, _CAUSE_NAMES.get(cause, cause),
         wall if wall > _PLAUSIBLE_WALL_S else None)
    if nvs_problem is not None:
        badge.log({"error": nvs_problem, "e": NVS_BAD})
    if safe:
        badge.log({"safe_mode": "%d watchdog resets within %d s: menu and sound off"
                                % (boots.LIMIT, boots.WINDOW_S)})
    return badge, boots.LIMIT if safe else 0


def boot(badge, now, reset_cause=None, wall_s=None):
    """Badge.boot: the saved state restored into badge, timers running again from now
    (time off counts as paused); what was found journaled."""
    if wall_s is not None:
        badge.set_wall_clock(wall_s, now)
    badge.advance(now)
    found = _restore(badge, now, reset_cause)
    # Who and what, so a journal pulled alone still says whose it is (cran logs), and
    # the state the badge came back with: the debrief reads it, never works it out
    # from what follows (a copy missing, a state lost). Its etat None when the state is
    # unknown: the one on hand is only a placeholder.
    seen = summary(badge.state)
    if badge.unknown:
        seen[0] = None
    badge.log({"boot": cran.VERSION, "cause": reset_cause, "board": badge.board_id,
               "name": badge.character.name, "armor": badge.character.armor, "s": seen})
    for entry in found:
        badge.log(entry)


def _restore(badge, now, reset_cause=None):
    """The saved state put back into badge. -> the journal's entries saying what was
    found, in order."""
    store = badge.store
    if store is None:
        return []
    record, problems = store.load()
    note = None
    found = []
    if store.copy is not None:
        from cran.start.rescue import with_copy  # start-only, as this module
        record, note, badge.unknown = with_copy(store, record, problems)
    if note is not None:   # first: what follows (state.a: missing...) is explained
        found.append({"inconnu" if badge.unknown else "restored": note})
    elif record is None and len(problems) == 2 and all(
            code == COPY_MISSING for code, _ in problems):
        problems = []
        found.append({"fresh": "no state saved yet"})   # a new badge, not a fault
    for code, problem in problems:
        found.append({"error": problem, "e": code})
    if record is None:
        return found
    off_ms = _time_off_ms(badge, record, reset_cause)
    try:
        # Timers restart from now; with time_off_counts, from when power went.
        badge.state = from_record(record, badge.character, badge.settings,
                                  ticks_add(now, -off_ms))
        badge.saved_at = now
    except ParseError as e:
        # A record this firmware can't read (another version's, a character changed
        # under it): the state is lost as well.
        badge.unknown = True
        found.append({"inconnu": "state record refused: %s: actions refused until an "
                                 "organiser's reset" % e})
    return found


def _time_off_ms(badge, record, reset_cause=None):
    """ms of the countdowns the badge could not see since its last save. Switched off
    (a power-on, or a cause unknown): if the game counts it and both ends of the gap are
    known by the wall clock; else 0 (paused, the rulebook's [choice]). Any other reset
    (the watchdog's after a freeze, a soft one) is the badge's, not its wearer's: the
    time counts, whatever time_off_counts says, by the RTC, which runs on through it,
    or at worst (_UNSEEN_AT_WORST_MS) when the clock is unknown: never healthier."""
    saved_wall = record.get("wall_s")
    wall = badge.wall_clock()
    known = isinstance(saved_wall, int) and wall is not None
    if reset_cause not in (None, "power-on") and not known:
        return _UNSEEN_AT_WORST_MS
    if not known or (reset_cause in (None, "power-on")
                     and not badge.settings.time_off_counts):
        return 0
    # Bounded: tick arithmetic holds up to half the runtime's tick period (2**29 ms on
    # MicroPython, 2**28 on CircuitPython); longer is "very long" anyway. Past it, a
    # countdown that ran out while the badge was off would read as far to come.
    return min(max(0, wall - saved_wall) * 1000, (ticks.TICKS_PERIOD >> 1) - 1)


# ---- the records on the flash (StateStore) ------------------------------------------

# ---- the record back to a State (core.record.to_record's way back) ---------------

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
    # A record saved before the badge said its status' words in its record too names
    # them armor_damaged, broken, said and renown: read back the same.
    s.armor_damaged = _field(record, _key(record, ARMOR_DAMAGED, "armor_damaged"), bool)
    s.creature_left = _count(record, "creature_left", character.creature)
    s.broken = tuple(str(b) for b in _field(record, _key(record, "brises", "broken"), list))
    s.said = _field(record, _key(record, "dit", "said"), str)
    s.renown = _count(record, _key(record, "renommee", "renown"), None)
    timers = _field(record, "timers", dict)
    for name in timers:
        left = timers[name]
        if name not in TIMER_NAMES:
            raise ParseError("state record: unknown timer %r" % name)
        if not isinstance(left, int) or isinstance(left, bool) or not 0 <= left < 1 << 29:
            raise ParseError("state record: timer %s has %r ms left" % (name, left))
    ago = record.get("hit_ago_ms")
    if ago is not None:
        s.last_hit = ticks_add(now, -_count(record, "hit_ago_ms", LONG_AGO_MS))
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


def _key(record, name, old):
    """The record's key for a field: its old spelling when that is the one it has."""
    return old if old in record else name


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
