# A state saved as a record and restored later is the same badge: same view, and the
# rest of the story plays out the same, with the time switched off counted as paused.
import json

import pytest
from hypothesis import given
from hypothesis import settings as hyp_settings
from hypothesis import strategies as st

from conftest import WRAP_START, scenario_files
from cran.core.engine import act, new_state, next_deadline, tick
from cran.core.record import RECORD_VERSION, to_record
from cran.core.rules import Settings
from cran.core.ticks import ticks_add, ticks_diff
from cran.core.view import view
from cran.core.words import ParseError
from cran.start.restore import from_record
from gamefiles import scenario

OFF_MS = 3 * 3600 * 1000 + 17     # switched off for three hours
# Targets as long as the grammar takes, mostly distinct.
TARGETS = st.text("abcdefghijklmnopqrstuvwxyz0123456789-", min_size=20, max_size=24)


def _replay(parsed, cut_after=None, start=0):
    """Replay steps; after step index cut_after, save, power off OFF_MS, restore.
    -> list of (step index, view) with times relative to the story."""
    settings = Settings()
    state = new_state(parsed.character, settings)
    views = []
    shift = 0
    for i, (_, t, kind, payload) in enumerate(parsed.steps):
        now = ticks_add(start, t + shift)
        deadline = next_deadline(state)
        while deadline is not None and ticks_diff(now, deadline) >= 0:
            state, _ = tick(state, deadline)
            deadline = next_deadline(state)
        if kind == "act":
            state, _ = act(state, payload, now)
        views.append((i, view(state, now)))
        if i == cut_after:
            saved = json.loads(json.dumps(to_record(state, now)))
            shift += OFF_MS
            state = from_record(saved, parsed.character, settings, ticks_add(now, OFF_MS))
            assert view(state, ticks_add(now, OFF_MS)) == views[-1][1]
    return views


@pytest.mark.parametrize("path", scenario_files())
def test_power_cut_after_any_step_changes_nothing(path):
    parsed = scenario.parse(open(path, encoding="utf-8").read())
    reference = _replay(parsed)
    for cut in range(len(parsed.steps)):
        assert _replay(parsed, cut, WRAP_START) == reference, "cut after step %d" % cut


def test_record_holds_ms_left_not_ticks():
    state = new_state(*_character_settings())
    state, _ = act(state, _action("coup agonisant"), WRAP_START)
    record = to_record(state, ticks_add(WRAP_START, 100000))
    assert record["timers"] == {"countdown": 200000, "combat": 200000}
    assert record["v"] == RECORD_VERSION and record["etat"] == "agonisant"


@pytest.mark.parametrize("change, message", [
    ({"v": 99}, "version 99"),
    ({"etat": "zombie"}, "'zombie' is not a state"),
    ({"armor_left": 7}, "armor_left=7 out of range"),
    ({"armor_left": -1}, "out of range"),
    ({"stopped": "yes"}, "stopped should be bool"),
    ({"timers": {"countdown": -5}}, "timer countdown has -5 ms left"),
    ({"timers": {"horloge": 5}}, "unknown timer 'horloge'"),
    ({"timers": {}}, "agonisant without a countdown"),
    ({"brises": "bras"}, "brises should be list"),
    ({"renommee": True}, "renommee should be int"),
])
def test_a_record_not_of_ours_is_refused_by_field(change, message):
    character, settings = _character_settings()
    state, _ = act(new_state(character, settings), _action("coup agonisant"), 0)
    record = to_record(state, 0)
    record.update(change)
    with pytest.raises(ParseError) as err:
        from_record(record, character, settings, 0)
    assert message in str(err.value)


@pytest.mark.parametrize("damaged", [True, False])
def test_a_record_saved_as_armor_damaged_still_loads(tmp_path, damaged):
    # The damaged armour is armure-abimee in everything the badge says, its record too,
    # and the broken limbs, the words said and the renown are the status' brises, dit
    # and renommee; a record saved before (armor_damaged, broken, said, renown) is read
    # back the same, so a badge flashed anew mid-game keeps its state as it was.
    from cran.storage import StateStore
    character, settings = _character_settings()
    state, _ = act(new_state(character, settings), _action("coup"), 0)   # an answer used
    state, _ = act(state, _action("coup brise bras"), 10)
    state.armor_damaged = damaged
    state.renown = 3
    record = to_record(state, 0)
    assert record["armure-abimee"] is damaged and "armor_damaged" not in record
    assert record["brises"] == ["bras"] and record["renommee"] == 3 and "dit" in record
    old = dict(record)
    for new_key, old_key in (("armure-abimee", "armor_damaged"), ("brises", "broken"),
                             ("dit", "said"), ("renommee", "renown")):
        old[old_key] = old.pop(new_key)
    StateStore(str(tmp_path)).save(old)
    saved, problems = StateStore(str(tmp_path)).load()
    assert saved == old and [p for p in problems if "missing" not in p[1]] == []
    back = from_record(saved, character, settings, 0)
    assert back.armor_damaged is damaged and view(back, 0) == view(state, 0)


def test_missing_field():
    character, settings = _character_settings()
    record = to_record(new_state(character, settings), 0)
    del record["dit"]
    with pytest.raises(ParseError, match="dit is missing"):
        from_record(record, character, settings, 0)


def _character_settings():
    from cran.core.rules import Character
    return Character(armor=2), Settings()


def _action(text):
    from cran.core.words import parse_action
    return parse_action(text)


# ---- a record never outgrows its slot (issue 13) ------------------------------------
# Every field that reaches a record is bounded: states, timers and keywords by the
# vocabulary, counts by MAX_ANSWERS, renown by MAX_RENOWN, ms left below 2**29, and the
# only free text, broken targets, by the grammar (MAX_TARGET_CHARS) and the engine
# (MAX_BROKEN). So the biggest record is the one with each field at its bound at once,
# the state before (K9) as big again: built here, it must fit storage.MAX_RECORD_BYTES.

def _worst_state(now):
    from cran.core.choices import MAX_ANSWERS
    from cran.core.engine import MAX_BROKEN, TIMER_NAMES
    from cran.core.rules import Character
    from cran.core.vocab import KEYWORDS, MAX_RENOWN, STATES
    from cran.core.words import _MAX_TARGET_CHARS as MAX_TARGET_CHARS
    longest = (1 << 29) - 1
    s = new_state(Character(armor=MAX_ANSWERS, creature=MAX_ANSWERS), Settings())
    s.etat = max(range(len(STATES)), key=lambda i: len(STATES[i]))
    for name in TIMER_NAMES:
        s.timers[name] = ticks_add(now, longest)
    s.armor_left = s.creature_left = MAX_ANSWERS
    s.broken = [("%02d" % i) * (MAX_TARGET_CHARS // 2) for i in range(MAX_BROKEN)]
    s.said = max(("-", "armure", "resiste", "cri"), key=len)
    s.renown = MAX_RENOWN
    s.last_hit = ticks_add(now, -longest)
    s.last_kw = max(KEYWORDS + ("mort-si-coma", "coup"), key=len)
    return s


WORST_RECORD_BYTES = 2100   # what the worst record takes, rounded up (2088 today)


def _record_bytes(state, now):
    from cran.storage import record_parts
    record = to_record(state, now)
    record["wall_s"] = 10 ** 12   # the badge adds its wall clock: 2099 + centuries of uptime
    return len(b"".join(record_parts(record, 10 ** 12)))


def test_the_biggest_record_fits_its_slot_four_times_over():
    from cran.storage import MAX_RECORD_BYTES
    state = _worst_state(WRAP_START)
    state.before = _worst_state(WRAP_START)
    assert _record_bytes(state, WRAP_START) <= WORST_RECORD_BYTES <= MAX_RECORD_BYTES // 3


OTHERS = st.one_of(
    st.builds("effet vol {}".format, TARGETS), st.builds("repare {}".format, TARGETS),
    st.builds("coup desarme {}".format, TARGETS),
    st.sampled_from(["coup", "effet peur", "effet dissipe", "soin", "coup agonisant",
                     "renommee +999", "renommee -5", "renommee 999", "stop", "reprise",
                     "coup brise armure", "effet statue de masse divin", "effet charme"]))


@hyp_settings(max_examples=100, deadline=None)
@given(st.lists(TARGETS, min_size=30, max_size=40, unique=True),
       st.lists(st.tuples(OTHERS, st.integers(0, 400000)), max_size=40))
def test_no_sequence_of_actions_makes_a_record_bigger_than_the_worst(targets, others):
    # 30-40 long distinct targets broken one after the other (past MAX_BROKEN), renown
    # pushed up, effects and countdowns between: each record the badge would save stays
    # within the worst one's size.
    from cran.core.rules import Character
    state = new_state(Character(armor=2, creature=3), Settings(single_effect=False))
    now = WRAP_START
    for i in range(max(len(targets), len(others))):
        lines = ["coup brise " + targets[i]] if i < len(targets) else []
        if i < len(others):
            lines.append(others[i][0])
            now = ticks_add(now, others[i][1])
        for text in lines:
            state, _ = act(state, _action(text), now)
            assert _record_bytes(state, now) <= WORST_RECORD_BYTES
