# The badge (cran.badge) owns the wearer's undo, and tells every cue through one channel
# (on_cues), whoever made the change: a press, the console, the radio, a timer.
from cran.badge import UNDO_MS, Badge
from cran.core.rules import Character, Settings
from cran.core.ticks import ticks_add
from cran.core.view import view
from cran.core.vocab import CUE_SAY
from cran.core.words import parse_action
from cran.start.restore import boot

WRAP_START = (1 << 30) - 3000   # the undo window across the tick wrap too


def make_badge(start=0, **who):
    badge = Badge(Character(**who), Settings(), board_id="atom-lite")
    boot(badge, start)
    told = []
    badge.on_cues = lambda kind, now, cues: told.append((kind, list(cues)))
    return badge, told


def etat(badge, now):
    return view(badge.state, now)["etat"]


def test_a_press_is_taken_back_within_five_seconds_once():
    badge, told = make_badge()
    badge.apply(parse_action("coup"), 1000, undoable=True)
    assert etat(badge, 1000) == "blesse"
    assert badge.undo(1000 + UNDO_MS)
    assert etat(badge, 6000) == "pleine-forme"
    assert [kind for kind, _ in told] == ["act", "undo"]
    assert not badge.undo(6100)                    # one undo per action
    badge.apply(parse_action("coup"), 10000, undoable=True)
    assert not badge.undo(10001 + UNDO_MS)         # too late: the hit stays
    assert etat(badge, 16000) == "blesse"
    assert [kind for kind, _ in told] == ["act", "undo", "act"]


def test_the_window_holds_across_the_tick_wrap():
    badge, _ = make_badge(WRAP_START)
    badge.apply(parse_action("coup"), ticks_add(WRAP_START, 1000), undoable=True)
    assert badge.undo(ticks_add(WRAP_START, 5000))
    assert etat(badge, ticks_add(WRAP_START, 5000)) == "pleine-forme"


def test_only_the_wearers_own_last_action_is_taken_back():
    # The console's and a game master's actions are not the wearer's to take back, and
    # they end the chance to take back the press before them.
    badge, _ = make_badge()
    badge.apply(parse_action("coup"), 1000)
    assert not badge.undo(2000)
    assert etat(badge, 2000) == "blesse"
    badge.apply(parse_action("soin"), 3000, undoable=True)
    badge.apply(parse_action("coup"), 3500)
    assert not badge.undo(4000)
    assert etat(badge, 4000) == "blesse"


def test_an_undone_action_leaves_its_timers_running_as_if_it_never_came():
    # agonisant's countdown (S3) keeps running under a heal taken back.
    badge, _ = make_badge()
    badge.apply(parse_action("coup agonisant"), 1000)
    badge.apply(parse_action("soin"), 200000, undoable=True)
    assert badge.undo(203000)
    assert etat(badge, 203000) == "agonisant"
    badge.tick(301001)
    assert etat(badge, 301001) == "coma"


def test_apply_tells_its_cues_and_returns_nothing():
    badge, told = make_badge(armor=1)
    assert badge.apply(parse_action("coup"), 1000) is None
    [(kind, cues)] = told
    assert kind == "act" and (1000, CUE_SAY, "armure", False) in cues
