# Buttons to actions (cran.menu, docs/controls.md): one press for a normal hit, every
# action reachable on one button, at most 4 presses with two buttons and a screen.
import copy

from conftest import WRAP_START
from cran import texts
from cran.core.ticks import ticks_add
from cran.core.words import KEYWORDS, Action, parse_action
from cran.menu import Menu
from cran.menutree import _SLOTS as SLOTS
from cran.menuwords import title

ONE = (1, False)     # Atom Lite, Atom Matrix
TWO = (2, True)      # StickC Plus, DevKitC / C3 with their SSD1306
INPUTS = SLOTS + (("b", "double"),)
GAP_MS = 600         # between presses in a walk: well inside the menu's idle time


def every_action():
    """The docs/scenarios.md action words a badge's buttons offer (docs/controls.md):
    text -> Action."""
    texts = ["coup", "coup mort si coma", "soin", "soin complet", "repare armure",
             "repare membre", "nuit", "hors-jeu", "en-jeu", "stop", "reprise", "reset"]
    for verb in ("coup", "effet"):
        texts += ["%s %s%s" % (verb, kw, " membre" if kw == "brise" else "") for kw in KEYWORDS]
    return dict((a.text(), a) for a in (parse_action(t) for t in texts))


def run(board, presses, start=0):
    """-> (menu, results of the last press)."""
    menu = Menu(*board)
    now = start
    results = []
    for button, kind in presses:
        now = ticks_add(now, GAP_MS)
        results = menu.press(button, kind, now)
    return menu, results


def walk_one_button():
    """Walk the one-button menu by presses only: text -> presses that give it."""
    found = {}

    def page(prefix):
        menu, _ = run(ONE, prefix)
        depth = menu.where()[1]
        n = 1
        while True:   # count the entries: scroll until the cursor comes back
            run_menu = menu
            run_menu.press("a", "short", 0)
            if run_menu.where()[2] == 1:
                break
            n += 1
            assert n < 20
        for i in range(n):
            seq = prefix + [("a", "short")] * i + [("a", "long")]
            menu, results = run(ONE, seq)
            for r in results:
                if r[0] == "action":
                    found.setdefault(r[1].text(), seq)
                else:
                    found.setdefault(r[0], seq)
            where = menu.where()
            if where is not None and where[1] > depth:
                page(seq)

    page([("a", "long")])
    return found


def test_a_normal_hit_is_one_press_on_every_board():
    for board in (ONE, TWO, (2, False)):
        assert run(board, [("a", "short")])[1] == [("action", Action("coup"))]


def test_one_button_reaches_every_action_and_peek():
    found = walk_one_button()
    assert set(found) - {"peek"} == set(every_action())
    assert "peek" in found
    assert found["peek"] == [("a", "long"), ("a", "long")]


def test_one_button_divin_applies_to_the_next_coup_only():
    # Menu > Coup > Divin (toggle) > Etats > Blesse
    go = [("a", "long"), ("a", "short"), ("a", "long")] + [("a", "short")] * 4 + [
        ("a", "long"), ("a", "short"), ("a", "long"), ("a", "long")]
    menu, results = run(ONE, go)
    assert results == [("action", parse_action("coup blesse divin"))]
    now = 20 * GAP_MS
    for kind in ("long", "short", "long", "long", "long"):
        now += GAP_MS
        results = menu.press("a", kind, now)
    assert results == [("action", parse_action("coup blesse"))]


def test_two_buttons_reach_every_action_in_four_presses():
    best = {}

    def search(menu, now, depth, seq):
        for button, kind in INPUTS:
            m = copy.copy(menu)   # its own pages (lists), the tree's shared
            m.__dict__.update((k, list(v)) for k, v in vars(menu).items()
                              if isinstance(v, list))
            for r in m.press(button, kind, ticks_add(now, GAP_MS)):
                key = r[1].text() if r[0] == "action" else r[0]
                if key not in best or len(best[key]) > depth:
                    best[key] = seq + [(button, kind)]
            if depth < 5 and m.is_open():
                search(m, ticks_add(now, GAP_MS), depth + 1, seq + [(button, kind)])

    search(Menu(*TWO), 0, 1, [])
    plain = dict((k, v) for k, v in best.items() if "divin" not in k)
    assert set(plain) - {"peek", "undo"} == set(every_action())
    assert max(len(v) for v in plain.values()) <= 4, max(plain.items(), key=lambda x: len(x[1]))
    assert len(plain["peek"]) == 1 and len(plain["coup normal"]) == 1
    # K10: divin is one more press (a toggle on the Coup/Effet page).
    divin = [Action(a.verb, a.kw, a.target, True).text() for a in every_action().values()
             if a.verb in ("coup", "effet")]
    assert all(len(best[t]) <= 5 for t in divin)
    assert len(best[parse_action("coup blesse divin").text()]) == 4


def test_a_double_press_of_a_closed_menu_asks_for_an_undo():
    # Whether there is an action to take back, and still time, is the badge's to say
    # (test_badge.py): the menu only tells the press.
    for board in (ONE, TWO):
        menu = Menu(*board)
        assert menu.press("a", "double", 1000) == [("undo",)]
        assert menu.press("a", "short", 2000)[0][0] == "action"
        assert menu.press("a", "double", 60000) == [("undo",)]


def test_undo_after_a_menu_action():
    menu, results = run(TWO, [("a", "long"), ("a", "short"), ("a", "short")])
    assert results == [("action", parse_action("coup blesse"))]
    assert not menu.is_open()
    assert menu.press("a", "double", ticks_add(3 * GAP_MS, 4000)) == [("undo",)]


def test_menu_closes_after_eight_idle_seconds():
    for board in (ONE, TWO):
        menu = Menu(*board)
        menu.press("a", "long", WRAP_START)
        assert menu.is_open()
        assert menu.tick(ticks_add(WRAP_START, 7999)) is False and menu.is_open()
        assert menu.tick(ticks_add(WRAP_START, 8000)) is True and not menu.is_open()
        # A press after the timeout is a press outside the menu: a normal hit.
        menu.press("a", "long", 0)
        assert menu.press("a", "short", 9000) == [("action", Action("coup"))]


def test_double_press_goes_back_in_the_one_button_menu():
    menu, _ = run(ONE, [("a", "long"), ("a", "short"), ("a", "long")])
    assert menu.where()[:3] == (1, 1, 1)
    menu.press("a", "double", 5000)
    assert menu.where()[:3] == (0, 0, 2)
    menu.press("a", "double", 5100)
    assert menu.where() is None


def test_peek_on_two_buttons_is_b():
    assert run(TWO, [("b", "short")])[1] == [("peek",)]


def test_menu_screen_lines_fit_and_name_the_inputs():
    menu, _ = run(TWO, [("a", "long"), ("a", "double")])    # Coup, divin on
    assert texts.menu_lines(menu) == ["Coup (divin)", "a  Etats", "b  Effets 1",
                                      "A  Effets 2", "B  Autres", "aa Divin: oui",
                                      "bb Retour"]
    for board in (ONE, TWO):
        for lang in ("fr", "en"):
            stack = [[("a", "long")]]
            while stack:
                seq = stack.pop()
                menu, _ = run(board, seq)
                lines = texts.menu_lines(menu, lang)
                assert all(len(x) <= 16 and x.isascii() for x in lines), lines
                if len(seq) < 4:
                    stack += [seq + [i] for i in INPUTS if i[1] != "double"]


def test_every_page_has_its_own_title_in_both_languages():
    # cran.menutree numbers its pages' titles, cran.menuwords holds their words: each
    # page of a healer's tree (every page there is) has words of its own in each language.
    from cran.menutree import CODE, Page, build_tree
    pages, todo = [], [build_tree("soin"), CODE]
    while todo:
        page = todo.pop()
        if all(page is not p for p in pages):
            pages.append(page)
            todo += [e for e in page.entries if isinstance(e, Page)]
    for lang in ("fr", "en"):
        words = {}
        for page in pages:
            words.setdefault(title(page, lang), set()).add(page.title)
        assert None not in words, (lang, words)
        assert all(len(numbers) == 1 for numbers in words.values()), (lang, words)
        assert len(set(p.title for p in pages)) == len(words), (lang, words)
    assert title(build_tree(), "en") == "Menu" and title(CODE, "fr") == "Code"
    assert [title(p, "en") for p in build_tree().entries[1:]] == ["Hit", "Effect", "Other"]


def test_the_press_examples_in_docs_controls_md_work():
    import os
    import re

    from conftest import REPO
    text = open(os.path.join(REPO, "docs", "controls.md"), encoding="utf-8").read()
    rows = re.findall(r"^\| ([a-z ()]+) \| ([SL ]+) \|$", text, re.M)
    assert len(rows) >= 9
    for action, presses in rows:
        action = re.sub(r" \(.*\)", "", action)
        seq = [("a", "short" if p == "S" else "long") for p in presses.split()]
        want = [("peek",)] if action.startswith("peek") else [("action", parse_action(action))]
        assert run(ONE, seq)[1] == want, action
    keys = {"a": ("a", "short"), "b": ("b", "short"), "A": ("a", "long"), "B": ("b", "long"),
            "aa": ("a", "double"), "bb": ("b", "double")}
    examples = re.findall(r"(coup [a-z ]+|effet [a-z ]+) = `([abAB ]+)`", text)
    assert len(examples) >= 4
    for action, presses in examples:
        seq = [keys[p] for p in presses.split()]
        assert run(TWO, seq)[1] == [("action", parse_action(action))], action


# ---- the Orga page's code, the radio's entries --------------------------------------

# One button: Menu (L), Autre (S S S L), Jeu (S S S S L), Orga (S S S L).
TO_ORGA = [("a", s) for s in ("long", "short", "short", "short", "long", "short", "short",
                              "short", "short", "long", "short", "short", "short", "long")]
CODE = "SLLSLS"


def _typed(code):
    return [("a", "short" if c == "S" else "long") for c in code]


def _orga_open(menu):
    here = menu.page_here()
    return here is not None and title(here[0], "fr") == "Orga"


def test_the_orga_page_opens_only_with_its_code():
    menu = Menu(*ONE, orga_code=CODE)
    now = WRAP_START   # the shut spell below crosses the tick wrap
    for button, kind in TO_ORGA:
        now = ticks_add(now, GAP_MS)
        assert menu.press(button, kind, now) == []
    assert title(menu.page_here()[0], "fr") == "Code" and menu.where()[2] == 0
    for button, kind in _typed(CODE):
        now = ticks_add(now, GAP_MS)
        menu.press(button, kind, now)
    assert _orga_open(menu)
    now = ticks_add(now, GAP_MS)
    assert menu.press("a", "long", now) == [("action", Action("stop"))]


def test_wrong_codes_close_the_menu_and_three_shut_the_page_five_minutes():
    menu = Menu(*ONE, orga_code=CODE)
    now = WRAP_START

    def attempt(code):
        nonlocal now
        for button, kind in TO_ORGA + _typed(code):
            now = ticks_add(now, GAP_MS)
            menu.press(button, kind, now)
        return _orga_open(menu)

    assert not attempt("SSSSSS") and not menu.is_open()   # wrong: the menu closes
    assert not attempt("LLLLLL") and not attempt("SLLSLL")
    assert not attempt(CODE)    # the right one, but the page is shut
    now = ticks_add(now, 300000)
    assert attempt(CODE)        # five minutes on: open again


def test_without_a_code_the_orga_page_is_open_and_a_double_backs_out_of_the_code():
    assert _orga_open(run(ONE, TO_ORGA)[0])
    menu, _ = run(ONE, TO_ORGA + [("a", "short"), ("a", "double")], 0)
    assert not _orga_open(menu)
    menu = Menu(*ONE, orga_code=CODE)
    now = 0
    for button, kind in TO_ORGA + [("a", "short"), ("a", "double")]:
        now = ticks_add(now, GAP_MS)
        menu.press(button, kind, now)
    assert title(menu.page_here()[0], "fr") == "Jeu"   # back where it was, no page opened


def test_the_code_on_two_buttons_and_on_the_screen():
    # Two buttons and a screen: bb (Autre), aa (Jeu: 5th), B (Orga: 4th), then the code
    # on any button: short or long.
    menu = Menu(*TWO, orga_code="SLSL")
    now = 0
    for button, kind in [("b", "double"), ("a", "double"), ("b", "long"), ("a", "short"),
                         ("b", "long"), ("b", "short")]:
        now = ticks_add(now, GAP_MS)
        menu.press(button, kind, now)
    assert texts.menu_lines(menu)[:2] == ["Code", "***"]
    now = ticks_add(now, GAP_MS)
    menu.press("b", "long", now)
    assert _orga_open(menu)


def test_a_healer_treats_from_the_jeu_page_and_takes_an_offer_with_a_long_press():
    menu, results = run(ONE, TO_ORGA[:10] + [("a", "short")] * 4 + [("a", "long")])
    # A player's Jeu page has four entries: a fifth step wraps round to hors-jeu.
    assert results == [("action", Action("hors-jeu"))]
    menu = Menu(*ONE, treats="soin")
    now = 0
    for button, kind in TO_ORGA[:10] + [("a", "short")] * 4:
        now = ticks_add(now, GAP_MS)
        menu.press(button, kind, now)
    assert texts.menu_lines(menu)[-1] == "> Soigner"
    assert menu.press("a", "long", ticks_add(now, GAP_MS)) == [("treat",)]
    menu.offer = "soin"   # the app sets it while a healer's offer shows
    assert menu.press("a", "long", ticks_add(now, 2 * GAP_MS)) == [("take",)]
    assert not menu.is_open() and menu.offer is None


def test_the_menu_s_pages_move_by_its_own_verbs():
    # The open pages are the menu's own: cran.menutree shows one by push(page, cursor,
    # group) and takes it away by pop(), and reads them by where() and page_here().
    menu = Menu(*ONE)
    menu.press("a", "long", 0)
    top = menu.page_here()[0]
    coup = top.entries[1]
    menu.push(coup, 2, 1)
    assert menu.page_here() == (coup, 2) and menu.where() == (1, 1, 3)
    menu.pop()
    assert menu.page_here() == (top, 0) and menu.where() == (0, 0, 1)
    menu.pop()
    assert not menu.is_open() and menu.where() is None and menu.page_here() is None


def test_each_press_of_a_closed_menu_on_each_kind_of_board():
    # -> its results and where the menu then is (None: still closed).
    hit, undo = [("action", Action("coup"))], [("undo",)]
    scroll = {"short": (hit, None), "long": ([], (0, 0, 1)), "double": (undo, None)}
    boards = {ONE: {("a", k): v for k, v in scroll.items()},
              (2, False): {(b, k): v for b in "ab" for k, v in scroll.items()},
              TWO: {("a", "short"): (hit, None), ("a", "long"): ([], (1, 0, 0)),
                    ("a", "double"): (undo, None), ("b", "short"): ([("peek",)], None),
                    ("b", "long"): ([], (2, 0, 0)), ("b", "double"): ([], (3, 0, 0))}}
    for board, presses in boards.items():
        for (button, kind), expected in presses.items():
            menu = Menu(*board)
            assert (menu.press(button, kind, 0), menu.where()) == expected, (board, button, kind)
