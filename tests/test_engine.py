# The engine itself: pure, wrap-safe, every setting of a [choice] of docs/rules.md at
# work; and the refined cases of docs/rules.md's rules, one test each.
import ast
import os

import pytest

from conftest import REPO, WRAP_START
from cran.core.engine import act, new_state, next_deadline, tick
from cran.core.rules import Character, Settings
from cran.core.ticks import TICKS_PERIOD, ticks_add, ticks_diff
from cran.core.view import view
from cran.core.words import ParseError, parse_action

CORE = os.path.join(REPO, "firmware", "cran", "core")


def play(lines, character=None, settings=None, start=0, state=None):
    """[(ms, action text)] -> (state, all cues, last now); on a new state, or on the
    one given."""
    if state is None:
        state = new_state(character or Character(), settings or Settings())
    cues = []
    now = start
    for ms, text in lines:
        now = ticks_add(start, ms)
        state, more = act(state, parse_action(text), now)
        cues += more
    return state, cues, now


def at(state, ms, start=0):
    now = ticks_add(start, ms)
    return view(tick(state, now)[0], now)


def test_core_imports_nothing_but_itself():
    # Pure rules: no I/O, clock or hardware modules anywhere in cran/core. micropython
    # only for const(), which mpy-cross resolves before anything runs (cran.core.vocab);
    # binascii, a pure codec, only for a record's CRC (cran.core.record).
    for name in os.listdir(CORE):
        if not name.endswith(".py"):
            continue
        tree = ast.parse(open(os.path.join(CORE, name)).read())
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                mods = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                mods = [node.module]
            else:
                continue
            assert all(m.startswith("cran.core") or (m == "micropython" and name == "vocab.py")
                       or (m == "binascii" and name == "record.py")
                       for m in mods), (name, mods)


def test_ticks_wrap_like_an_esp32():
    assert TICKS_PERIOD == 1 << 30
    assert ticks_add(TICKS_PERIOD - 10, 25) == 15
    assert ticks_diff(15, TICKS_PERIOD - 10) == 25
    assert ticks_diff(TICKS_PERIOD - 10, 15) == -25
    assert ticks_diff(ticks_add(WRAP_START, 300000), WRAP_START) == 300000


def test_act_never_changes_the_state_it_is_given():
    state, _, now = play([(0, "coup"), (1000, "effet peur")], Character(armor=1))
    before = view(state, now)
    timers = dict(state.timers)
    for text in ("coup", "coup blesse", "soin", "effet dissipe", "reset", "stop", "nuit"):
        act(state, parse_action(text), now + 5000)
    tick(state, now + 10 ** 6)
    assert view(state, now) == before and state.timers == timers


def test_chained_countdowns_start_at_the_previous_deadline():
    # S3, S4: noticed late (one tick at 20 min) and still coma at 5:00, mort at 10:00.
    state, _, _ = play([(0, "coup agonisant")])
    later, cues = tick(state, 20 * 60000)
    assert [(t, v) for t, k, v, _ in cues if k == "etat"] == [(300000, "coma"),
                                                            (600000, "mort")]
    assert view(later, 20 * 60000)["etat"] == "mort"


def test_next_deadline_is_the_earliest_timer_and_none_when_frozen():
    state, _, _ = play([(0, "effet peur"), (1000, "coup desarme")], start=WRAP_START)
    assert next_deadline(state) == ticks_add(WRAP_START, 4000)     # desarme: 1 s + 3 s
    stopped, _ = act(state, parse_action("stop"), ticks_add(WRAP_START, 2000))
    assert next_deadline(stopped) is None


def _public(cues):
    return [(t, kind, value) for t, kind, value, private in cues if not private]


@pytest.mark.parametrize("text", ["coup", "coup blesse", "effet peur", "coup brise bras",
                                  "coup desarme", "effet message", "coup mort si coma",
                                  "coup agonisant", "effet peur divin"])
def test_coma_and_mort_look_the_same_in_public(text):
    # S7: only a doctor tells them apart. Whatever lands on the body, and whatever its
    # timers do afterwards, the public sees the same; the wearer alone learns which.
    character = Character(armor=1, resist=["peur"])
    comatose, _, _ = play([(0, "coup coma")], character)
    dead, _, _ = play([(0, "coup coma"), (1000, "coup mort si coma")], character)
    assert (comatose.etat, dead.etat) == (3, 4)
    action = parse_action(text)
    comatose, on_coma = act(comatose, action, 2000)
    dead, on_mort = act(dead, action, 2000)
    assert _public(on_coma) == _public(on_mort)
    later_coma = tick(comatose, 20 * 60000)[1]
    later_mort = tick(dead, 20 * 60000)[1]
    assert _public(later_coma) == _public(later_mort)
    if comatose.etat == 3:
        assert ("etat", "mort") in [(k, v) for _, k, v, p in later_coma if p]


def test_falling_to_the_ground_is_public_and_coma_to_mort_is_not():
    wounded, _, _ = play([(0, "coup")])
    comatose, to_coma = act(wounded, parse_action("coup coma"), 1000)
    assert [(k, v) for _, k, v in _public(to_coma)] == [("vu", "inerte")]
    _, to_mort = tick(comatose, 20 * 60000)
    assert _public(to_mort) == []
    assert [(k, v) for _, k, v, p in to_mort if p] == [("etat", "mort"), ("combat", "fin")]


@pytest.mark.parametrize("setting, value, who, lines, when, field, default, changed", [
    # S10: what a soin gives from agonisant
    ("soin_from_down", "pleine-forme", {}, [(0, "coup agonisant"), (1000, "soin")], 2000,
     "etat", "blesse", "pleine-forme"),
    # A6: creature absorption per combat, or once per character
    ("creature_per_combat", False, {"creature": 1}, [(0, "coup"), (400000, "coup")], 400000,
     "etat", "pleine-forme", "blesse"),
    # K1: an absorbed action ends the running effect too
    ("effect_ends_on_absorbed", True, {"resist": ["charme"]},
     [(0, "effet peur"), (1000, "effet charme")], 2000, "effets", "peur", "-"),
    # K2: effects stack instead of replacing each other
    ("single_effect", False, {}, [(0, "effet peur"), (1000, "effet charme")],
     2000, "effets", "charme", "charme,peur"),
    # K4: coup blesse on agonisant
    ("blesse_from_agonisant", "agonisant", {}, [(0, "coup agonisant"), (1000, "coup blesse")],
     2000, "etat", "coma", "agonisant"),
    # K5: a keyword state may raise
    ("keyword_state_raises", True, {}, [(0, "coup coma"), (1000, "coup agonisant")], 2000,
     "etat", "coma", "agonisant"),
    # K15: a stop does not freeze
    ("stop_freezes_timers", False, {}, [(0, "coup agonisant"), (1000, "stop")], 360000,
     "etat", "agonisant", "coma"),
    # K16: timers stop out of game
    ("timers_run_out_of_game", False, {}, [(0, "coup agonisant"), (1000, "hors-jeu")], 360000,
     "etat", "coma", "agonisant"),
    # C1: the rest that ends a combat
    ("combat_rest_ms", "10m", {}, [(0, "coup")], 360000, "combat", "non", "oui"),
    # C2: the mitraille interval
    ("mitraille_ms", 0, {}, [(0, "coup"), (100, "coup")], 200, "etat", "blesse", "agonisant"),
])
def test_every_choice_is_a_setting(setting, value, who, lines, when, field, default, changed):
    state, _, _ = play(lines, Character(**who))
    assert at(state, when)[field] == default
    state, _, _ = play(lines, Character(**who), Settings(**{setting: value}))
    assert at(state, when)[field] == changed


def test_settings_reject_bad_values_by_name():
    with pytest.raises(ParseError, match="unknown setting 'vitesse'"):
        Settings(vitesse=3)
    with pytest.raises(ParseError, match="combat_rest_ms must be a duration"):
        Settings(combat_rest_ms=-5)
    with pytest.raises(ParseError, match="soin_from_down must be one of"):
        Settings(soin_from_down="mort")
    with pytest.raises(ParseError, match="expected yes/no"):
        Settings(single_effect="peut-etre")
    assert Settings(combat_rest_ms="10m").combat_rest_ms == 600000


def test_what_is_private_does_not_depend_on_how_often_the_badge_ticks():
    # S7 is decided at each deadline: the desarme ending at 0:03 was public then, even
    # if the badge only looks again after the fall into coma at 5:00.
    state, _, _ = play([(0, "coup agonisant"), (0, "coup desarme")])
    _, at_once = tick(state, 300000)
    early, first = tick(state, 3000)
    _, second = tick(early, 300000)
    assert at_once == list(first) + list(second)
    assert (3000, "fin", "desarme", False) in at_once


def test_broken_things_and_renown_are_bounded():
    # K7 with free names: at most MAX_BROKEN at once, so the state record stays bounded
    # (tests/test_record.py); one more is ignored and said privately, never half-kept.
    from cran.core.engine import MAX_BROKEN
    state = new_state(Character(), Settings())
    for i in range(MAX_BROKEN):
        state, _ = act(state, parse_action("coup brise objet-%d" % i), i * 1000)
    state, cues = act(state, parse_action("coup brise objet-0"), 20000)   # again: kept
    assert len(state.broken) == MAX_BROKEN and ("brise", "objet-0") in _kv(cues)
    state, cues = act(state, parse_action("coup brise un-de-trop"), 21000)
    assert len(state.broken) == MAX_BROKEN and "un-de-trop" not in state.broken
    assert [c for c in cues if c[1] == "ignore"] == [(21000, "ignore", "trop-de-brises", True)]
    state, _ = act(state, parse_action("repare objet-3"), 22000)
    state, cues = act(state, parse_action("coup brise un-de-trop"), 23000)   # room again
    assert "un-de-trop" in state.broken
    for text, renown in (("renommee 999", 999), ("renommee +999", 999), ("renommee -5", 994),
                         ("renommee -999", 0)):
        state, _ = act(state, parse_action(text), 30000)
        assert state.renown == renown, text


def _kv(cues):
    return [(kind, value) for _, kind, value, _ in cues]


def test_the_timed_effects_are_listed_sorted():
    # The engine ends running effects in this order (their cues' order) without sorting.
    from cran.core.vocab import TIMED_EFFECTS
    assert list(TIMED_EFFECTS) == sorted(TIMED_EFFECTS)


# ---- the rules as docs/rules.md decides them: one test per refined case ----------

def test_s6_death_ends_every_timed_effect_and_objects_can_still_be_repaired():
    # S6 [choice]: at death the 5-minute effect, desarme and vol end; armor and limbs
    # can still be repaired; nothing else changes mort.
    state, _, _ = play([(0, "coup brise bras"), (1000, "effet vol bourse"),
                        (2000, "coup desarme"), (2500, "effet peur")], Character(armor=1))
    assert view(state, 2500)["effets"] == "desarme,peur,vol"
    state, cues, _ = play([(3000, "coup mort")], state=state)
    seen = view(state, 3000)
    assert (seen["etat"], seen["effets"]) == ("mort", "-")
    assert seen["armure-abimee"] == "oui"   # killed through it (A4)
    later, more = tick(state, 10 * 60000)
    assert [c for c in more if c[1] in ("fin", "remarque")] == []   # no vol noticed
    for text in ("soin", "soin complet", "nuit", "coup", "effet dissipe", "coup blesse"):
        later, _ = act(later, parse_action(text), 11 * 60000)
        assert view(later, 11 * 60000)["etat"] == "mort", text
    later, _ = act(later, parse_action("repare bras"), 12 * 60000)
    later, _ = act(later, parse_action("repare armure"), 12 * 60000)
    seen = view(later, 12 * 60000)
    assert (seen["etat"], seen["brises"], seen["armure-abimee"]) == ("mort", "-", "non")


def test_s9_a_night_heals_the_wounded_and_ends_the_combat():
    # S9 [choice]: the night ends the combat (C1): armor answers and creature hits are
    # back; agonisant is not a wound a night mends; damaged armor stays damaged (A4).
    who = Character(armor=2, creature=1)
    state, _, _ = play([(0, "coup"), (1000, "coup"), (2000, "coup"), (3000, "effet blesse")],
                       who)
    seen = view(state, 3000)
    assert (seen["etat"], seen["armure"], seen["combat"]) == ("blesse", "0", "oui")
    rested, _ = act(state, parse_action("nuit"), 4000)
    seen = view(rested, 4000)
    assert (seen["etat"], seen["armure"], seen["combat"]) == ("pleine-forme", "2", "non")
    assert rested.creature_left == 1
    dying, _, _ = play([(0, "coup agonisant")], Character(armor=1))
    dying, _ = act(dying, parse_action("nuit"), 1000)
    seen = view(dying, 1000)
    assert (seen["etat"], seen["armure-abimee"], seen["armure"]) == ("agonisant", "oui", "0")


def test_a4_a_repair_in_the_same_combat_gives_no_spent_answer_back():
    # A4 [choice]: mended, the armor answers again, but its answers spent in this
    # combat come back only with the next combat (A3).
    state, _, _ = play([(0, "coup"), (1000, "coup"), (2000, "coup")], Character(armor=2))
    seen = view(state, 2000)
    assert (seen["etat"], seen["armure"], seen["armure-abimee"]) == ("blesse", "0", "oui")
    state, _ = act(state, parse_action("repare armure"), 3000)
    seen = view(state, 3000)
    assert (seen["armure"], seen["armure-abimee"], seen["combat"]) == ("0", "non", "oui")
    state, _ = act(state, parse_action("coup"), 4000)          # no answer: wounded again
    seen = view(state, 4000)
    assert (seen["etat"], seen["dit"], seen["armure-abimee"]) == ("agonisant", "-", "oui")
    state, _ = act(state, parse_action("repare armure"), 5000)
    assert at(state, 4000 + 300000)["armure"] == "2"           # the next combat: both back
    # Armor that only answered needs no repair (the organiser's repare is refused).
    answered, _, _ = play([(0, "coup")], Character(armor=1))
    _, cues = act(answered, parse_action("repare armure"), 1000)
    assert _kv(cues) == [("ignore", "pas-abimee")]


@pytest.mark.parametrize("who, lines, ends", [
    ({"armor": 1}, [(1000, "coup")], False),                        # armor answers
    ({"helmet": True}, [(1000, "coup assomme")], False),            # the helmet (A5)
    ({"creature": 1}, [(1000, "coup")], False),                     # a creature shouts
    ({"resist": ["charme"]}, [(1000, "effet charme")], False),      # resisted (K12)
    ({}, [(1000, "coup resiste")], False),                          # «Résiste» received
    ({}, [(1000, "coup agonisant"), (1000, "effet peur"), (2000, "coup agonisant")],
     False),                                                        # as it was (K5)
    ({}, [(1000, "coup coma"), (1000, "effet peur"), (2000, "coup blesse")], False),  # K4
    ({}, [(1000, "coup mort si coma")], False),                     # not in coma (K6)
    ({}, [(1000, "coup")], True),                                   # wounded
    ({}, [(1000, "effet message")], True),                          # any keyword harms
    ({"armor": 1}, [(1000, "coup divin")], True),                   # K10: through armor
])
def test_k1_an_effect_ends_only_when_the_new_action_takes_hold(who, lines, ends):
    state, _, now = play([(0, "effet peur")] + lines, Character(**who))
    assert view(state, now)["effets"] == ("-" if ends else "peur")


@pytest.mark.parametrize("who, lines", [
    ({"armor": 1}, [(0, "coup")]),                         # answered by armor
    ({"creature": 1}, [(0, "coup")]),                      # absorbed by a creature
    ({"resist": ["peur"]}, [(0, "effet peur")]),           # resisted
    ({"helmet": True}, [(0, "coup assomme")]),             # the helmet
    ({}, [(0, "coup coma"), (1000, "coup blesse")]),       # left as it was (K4)
])
def test_k9_an_action_that_changed_nothing_leaves_nothing_to_cancel(who, lines):
    # K9 [choice]: a dissipe after it cancels nothing (no spent answer comes back),
    # and not what came before it either (it was not the last action received).
    state, _, now = play([(0, "effet blesse")] + [(t + 500, a) for t, a in lines],
                         Character(**who))
    before = view(state, now + 1000)
    after, cues = act(state, parse_action("effet dissipe"), now + 1000)
    assert ("ignore", "rien-a-dissiper") in _kv(cues) and ("dissipe", "coup") not in _kv(cues)
    seen = view(after, now + 1000)
    assert dict(seen, combat="-", dit="-") == dict(before, combat="-", dit="-")
    assert after.creature_left == state.creature_left


def test_k9_dissipe_undoes_the_last_action_whole():
    # K9 [choice]: the effect the cancelled action replaced comes back, its time as it was.
    state, _, _ = play([(0, "effet peur"), (60000, "effet charme"), (61000, "effet dissipe")])
    seen = view(state, 61000)
    assert seen["effets"] == "peur" and state.left_ms("peur", 61000) == 239000


def test_k15_a_stop_and_hors_jeu_are_separate():
    # K15 [choice]: reprise ends the stop only, en-jeu ends hors-jeu only; anything
    # received while either holds is ignored; a stop freezes, hors-jeu (K16) does not.
    state, _, _ = play([(0, "coup agonisant"), (60000, "hors-jeu"), (70000, "stop"),
                        (80000, "en-jeu")])
    assert at(state, 200000)["jeu"] == "stop" and at(state, 200000)["reste"] == "230"
    state, cues = act(state, parse_action("coup"), 90000)
    assert _kv(cues) == [("ignore", "stop")]
    state, _, _ = play([(100000, "hors-jeu"), (110000, "reprise")], state=state)
    seen = at(state, 120000)
    assert (seen["jeu"], seen["reste"]) == ("hors-jeu", "220")   # runs again out of game
    state, cues = act(state, parse_action("effet peur"), 130000)
    assert _kv(cues) == [("ignore", "hors-jeu")]
    state, _ = act(state, parse_action("en-jeu"), 140000)
    assert at(state, 140000)["jeu"] == "en-jeu"


def test_c1_an_ignored_hit_does_not_prolong_the_combat():
    # C1 [choice]: the combat ends 5 minutes after the last hit or keyword received;
    # a hit ignored in coma (S5), or during a stop that freezes nothing, does not count.
    state, _, _ = play([(0, "coup coma"), (200000, "coup")])
    assert at(state, 299999)["combat"] == "oui" and at(state, 300000)["combat"] == "non"
    loose = Settings(stop_freezes_timers=False)
    state, _, _ = play([(0, "coup"), (100000, "stop"), (200000, "coup")], settings=loose)
    assert at(state, 300000)["combat"] == "non"
    state, _, _ = play([(0, "coup"), (200000, "coup brise bouclier")])   # a keyword counts
    assert at(state, 300000)["combat"] == "oui" and at(state, 500000)["combat"] == "non"
