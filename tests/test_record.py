# A state saved as a record and restored later is the same badge: same view, and the
# rest of the story plays out the same, with the time switched off counted as paused.
import json

import pytest

from conftest import WRAP_START, scenario_files
from cran import scenario
from cran.core.engine import act, new_state, next_deadline, tick, view
from cran.core.record import RECORD_VERSION, from_record, to_record
from cran.core.rules import Settings
from cran.core.ticks import ticks_add, ticks_diff
from cran.core.words import ParseError

OFF_MS = 3 * 3600 * 1000 + 17     # switched off for three hours


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
    ({"broken": "bras"}, "broken should be list"),
    ({"renown": True}, "renown should be int"),
])
def test_a_record_not_of_ours_is_refused_by_field(change, message):
    character, settings = _character_settings()
    state, _ = act(new_state(character, settings), _action("coup agonisant"), 0)
    record = to_record(state, 0)
    record.update(change)
    with pytest.raises(ParseError) as err:
        from_record(record, character, settings, 0)
    assert message in str(err.value)


def test_missing_field():
    character, settings = _character_settings()
    record = to_record(new_state(character, settings), 0)
    del record["said"]
    with pytest.raises(ParseError, match="said is missing"):
        from_record(record, character, settings, 0)


def _character_settings():
    from cran.core.rules import Character
    return Character(armor=2), Settings()


def _action(text):
    from cran.core.words import parse_action
    return parse_action(text)
