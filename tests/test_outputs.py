# What reaches the wearer, on every board, as its own parts show it: the whole badge app
# on each board's virtual hardware (tests/mp/outputs_driver.py), with the LED writes,
# buzzer notes and screen draws it recorded compared. Every answer the engine can ask
# the wearer to say and every change of what people see must show, each its own way,
# with whatever the board has; and coma and mort must show the same (S7), in light,
# sound and screen, whichever way the wearer came to them.
import json
import os
import subprocess
import tempfile

import pytest

from cran import cues
from cran.core.engine import act, new_state
from cran.core.rules import Character, Settings
from cran.core.steps import PUBLIC_LOOK
from cran.core.vocab import Action
from cran.menu import Menu
from cran.menutree import Page, build_tree
from host_tools import FIRMWARE_DIR
from host_tools.boards import BOARDS_DIR, board_ids
from host_tools.virtual.micropython import sys_path

DRIVER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "mp", "outputs_driver.py")
BOARDS = board_ids()
PARTS = ("leds", "notes", "screen")
# Long enough for everything a change shows: one LED shows an effect's code in the second
# 4 s of its 8 s.
WINDOW_MS = 8192


def run_jobs(micropython, jobs):
    """Each job through the driver -> its outputs, in order."""
    with tempfile.TemporaryDirectory(prefix="cran-outputs-") as flash:
        # A roomy heap: the records of 5 minutes of a 25-LED matrix are the driver's.
        out = subprocess.run([micropython, "-X", "heapsize=64m", DRIVER, FIRMWARE_DIR,
                              BOARDS_DIR, flash] + sys_path("micropython"),
                             input="".join(json.dumps(j) + "\n" for j in jobs),
                             capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    results = [json.loads(line) for line in out.stdout.splitlines()]
    assert len(results) == len(jobs), out.stderr[-2000:]
    for job, result in zip(jobs, results):
        assert "error" not in result, (job, result["error"])
    return results


def seen(outputs, start, ms=WINDOW_MS):
    """What the board's parts show from elapsed `start` for `ms`: for each part, what it
    shows at start (its last change by then, None if none yet) and each change after,
    at its time from start. Equal: nobody could tell the two apart."""
    out = []
    for part in PARTS:
        events = outputs[part]
        before = [value for t, value in events if t <= start]
        out.append((part, before[-1] if before else None,
                    [(t - start, value) for t, value in events if start < t < start + ms]))
    return out


def board(board_id):
    with open(os.path.join(BOARDS_DIR, board_id + ".json"), encoding="utf-8") as f:
        return json.load(f)


def parts_of(board_id):
    b = board(board_id)
    return ", ".join(name for name, part in (("LEDs", "leds"), ("buzzer", "buzzer"),
                                             ("screen", "display")) if b[part]) or "nothing"


# ---- what the engine can ask for, found by playing it --------------------------------

def menu_actions():
    """Every action the badge's menu offers (cran.menu's own tree, walked)."""
    found, pages = {}, [build_tree()]
    while pages:
        for entry in pages.pop().entries:
            if isinstance(entry, Page):
                pages.append(entry)
            elif isinstance(entry, Action):
                found.setdefault(entry.text(), entry)
    return [found[text] for text in sorted(found)]


# One character for each trait of P1 that makes the badge answer for the wearer, and one
# with none: which answers there are, and when, is the engine's to say.
CHARACTERS = ({}, {"armor": 1}, {"helmet": True}, {"creature": 1}, {"resist": ["peur"]})
# Cues of these kinds change what the wearer must say or what people see: each must show.
SHOWN_KINDS = ("dit", "vu", "jeu", "effet")


def changes(before, kind, value):
    """Whether a public cue (kind, value) tells of a change from the state before: an
    answer always; a look, a game state or an effect that was not already so (a reset
    or an en-jeu on a badge that was so already says so and changes nothing)."""
    if kind == "vu":
        return PUBLIC_LOOK[before.etat] != value
    if kind == "jeu":
        return before.play() != value
    if kind == "effet":
        return value not in before.timers
    return True


def public_cues():
    """(kind, value) -> (character, [action text]): every public cue of SHOWN_KINDS
    telling of a change that an action of the menu can give, on a fresh badge or one
    second after another action, for each of CHARACTERS; the first way found to each."""
    actions = menu_actions()
    found = {}
    for fields in CHARACTERS:
        fresh = new_state(Character(**fields), Settings())
        todo = [(fresh, [])]
        for _ in range(2):
            later = []
            for state, done in todo:
                for action in actions:
                    now = 1000 * (len(done) + 1)
                    after, heard = act(state, action, now)
                    for _, kind, value, private in heard:
                        if kind in SHOWN_KINDS and not private and changes(state, kind,
                                                                            value):
                            found.setdefault((kind, value), (fields, done + [action.text()]))
                    later.append((after, done + [action.text()]))
            todo = later
    return found


FOUND = public_cues()
ACTION_AT = 3000   # the last action of each way, elapsed ms from boot


def job(board_id, fields, actions, until=ACTION_AT + WINDOW_MS, steps=()):
    first = ACTION_AT - 1000 * (len(actions) - 1)
    return {"board": board_id, "config": {"character": fields},
            "steps": [[first + 1000 * i, "line", text] for i, text in enumerate(actions)]
            + list(steps), "until": until}


def test_the_engine_asks_for_every_answer_the_badge_can_show_and_no_other():
    # The answers found by playing the engine are the ones cues.py has a look for, and
    # the looks of what people see all came up.
    said = set(value for kind, value in FOUND if kind == "dit")
    assert said == set(cues.SAYS)
    assert set(value for kind, value in FOUND if kind == "vu") == {
        "debout", "blesse", "au-sol", "inerte"}
    assert set(value for kind, value in FOUND if kind == "effet") == set(cues.EFFECTS)
    assert {"stop", "hors-jeu", "en-jeu"} <= set(v for k, v in FOUND if k == "jeu")


@pytest.mark.parametrize("board_id", BOARDS)
def test_every_cue_reaches_the_wearer_on_every_board(micropython, board_id):
    # Each answer to say and each change people see, played on the board with and
    # without its action: what the board's own parts show afterwards must differ. And
    # two answers, two looks or two effects must never show the same.
    keys = sorted(FOUND)
    jobs = []
    for key in keys:
        fields, actions = FOUND[key]
        jobs += [job(board_id, fields, actions), job(board_id, fields, actions[:-1])]
    outputs = run_jobs(micropython, jobs)
    shown = {}
    for i, key in enumerate(keys):
        with_it, without = outputs[2 * i], outputs[2 * i + 1]
        fields, actions = FOUND[key]
        heard = [c for c in with_it["cues"] if c[0] == ACTION_AT and c[1:3] == list(key)]
        assert heard and not heard[0][3], (board_id, key, with_it["cues"])
        shown[key] = seen(with_it, ACTION_AT)
        assert shown[key] != seen(without, ACTION_AT), (
            "%s: «%s %s» (character %s, %s) shows nothing: its %s show the same "
            "as without it" % (board_id, key[0], key[1], fields,
                               " then ".join(actions), parts_of(board_id)))
    for kind in ("dit", "vu", "effet"):
        values = [key for key in keys if key[0] == kind]
        for a in values:
            for b in values:
                assert a >= b or shown[a] != shown[b], (
                    "%s: «%s %s» and «%s %s» show the same" % (board_id, a[0], a[1], b[0],
                                                              b[1]))


# ---- S7: coma and mort alike, in light, sound and screen -------------------------------

INERT_AT = 301000     # when each way below reaches coma or mort (elapsed ms)
S7_UNTIL = INERT_AT + 310000   # past coma's 5 minutes: its fall into mort is watched too
# (elapsed ms, action, character) of each way into the inert look.
WAYS = {
    "coma by a keyword": [(INERT_AT, "coup coma", {})],
    "coma by the countdown": [(INERT_AT - 300000, "coup agonisant", {})],
    "coma, hit on the ground": [(INERT_AT - 2000, "coup", {}), (INERT_AT - 1000, "coup", {}),
                                (INERT_AT, "coup blesse", {})],
    "coma with an effect running": [(INERT_AT - 1000, "effet peur", {}),
                                    (INERT_AT, "coup coma", {})],
    "coma, then an effect": [(INERT_AT, "coup coma", {}), (INERT_AT + 30000, "effet charme",
                                                           None)],
    # Armor damaged, a resisted effect and a normal hit, in coma: said to the wearer alone.
    "coma, answered and hit": [(INERT_AT, "coup coma", {"armor": 2, "resist": ["peur"]}),
                               (INERT_AT + 30000, "effet peur", None),
                               (INERT_AT + 240000, "coup", None)],
    "mort by a keyword": [(INERT_AT, "coup mort", {})],
    "mort from agonisant": [(INERT_AT - 1000, "coup agonisant", {}),
                            (INERT_AT, "coup mort", {})],
    "mort with an effect running": [(INERT_AT - 1000, "effet douleur", {}),
                                    (INERT_AT, "coup mort", {})],
    "mort, finished in coma": [(INERT_AT, "coup coma", {}),
                               (INERT_AT + 30000, "coup mort si coma", None)],
}


def way_job(board_id, name, steps=()):
    lines = WAYS[name]
    fields = lines[0][2]
    return {"board": board_id, "config": {"character": fields},
            "steps": [[at, "line", text] for at, text, _ in lines] + list(steps),
            "until": S7_UNTIL}


def peek_presses(board_id):
    """The presses [(button, hold ms)] that open the wearer's private view on this
    board, found in its menu (cran.menu) as the badge has it."""
    b = board(board_id)
    hold = {"short": 100, "long": 1000}
    todo = [[]]
    while todo:
        seq = todo.pop(0)
        for button in [x["name"] for x in b["buttons"]]:
            for kind in ("short", "long"):
                menu = Menu(len(b["buttons"]), b["display"] is not None)
                results = []
                for i, (name, k) in enumerate(seq + [(button, kind)]):
                    results = menu.press(name, k, 2000 * i)
                if ("peek",) in results:
                    return [(name, hold[k]) for name, k in seq + [(button, kind)]]
                if len(seq) < 2:
                    todo.append(seq + [(button, kind)])
    raise AssertionError("%s: no presses open the peek" % board_id)


PEEK_AT = INERT_AT + 100000


@pytest.mark.parametrize("board_id", BOARDS)
def test_every_way_into_coma_and_mort_shows_the_same_in_public(micropython, board_id):
    # From the instant each way reaches the inert look, through coma's 5 minutes (a
    # private warning a minute before death) and its fall into mort, the board's LEDs,
    # buzzer and screen do the very same: only the private peek tells coma from mort.
    names = sorted(WAYS)
    peek = [[PEEK_AT + 2000 * i, "press", [button, ms]]
            for i, (button, ms) in enumerate(peek_presses(board_id))]
    outputs = run_jobs(micropython, [way_job(board_id, n) for n in names] + [
        way_job(board_id, "coma by a keyword", peek), way_job(board_id, "mort by a keyword",
                                                              peek)])
    public = dict((n, seen(o, INERT_AT, S7_UNTIL - INERT_AT))
                  for n, o in zip(names, outputs))
    first = public[names[0]]
    assert first[0][1] is not None or first[2][1] is not None   # the board shows something
    for name in names[1:]:
        for (part, at_start, changes), (_, want_start, want_changes) in zip(public[name],
                                                                           first):
            assert (at_start, changes) == (want_start, want_changes), (
                "%s: %s: its %s differ from %s's" % (board_id, name, part, names[0]))
    if board(board_id)["buzzer"]:   # the fall into the inert look is heard
        assert first[1][1] or any(f for _, f in first[1][2])
    peeked_coma, peeked_mort = (seen(o, PEEK_AT) for o in outputs[-2:])
    assert peeked_coma != peeked_mort, "%s: the peek does not tell coma from mort" % board_id
