# The page's lessons (`cran web`): scenario files with words. A lesson is a scenario
# (docs/scenarios.md) that `cran scenario` plays and checks as any other; its `#=` comment
# is its title, and each run of `#:` comments is what the page says with the step after
# it (an action: before the wearer enters it; an expect line: once it is checked).
# The presses that enter each action come from the firmware's own menu tree
# (host_tools.paper.card.presses, the card's), for each kind of menu.
import os

from cran import menutree
from cran.core.words import parse_action
from gamefiles import scenario
from host_tools.game.times import elapsed
from host_tools.paper import card

LESSONS_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "lessons")
# The menus (docs/controls.md): one button with LEDs (S short, L long), or two buttons
# and a screen (a b short, A B long, aa bb double).
MENUS = ("one", "two")
# The organisers' actions (their Orga page, behind their code): in a lesson the page says
# them at the console for them, as an organiser's own badge or station would.
ORGANISERS = ("stop", "reprise", "reset")


class _Menu:
    """What card.presses reads of a card: which menu the board has."""

    def __init__(self, menu):
        self.direct = menu == "two"


def menu_of(board):
    """A board file (a dict) -> its menu, as cran.menu chooses it ("one" or "two")."""
    return "two" if card.Card(board, board["display"] is not None).direct else "one"


def presses(words, menu):
    """The presses that enter the action `words` on a menu, or None when the menu has
    no way to it (the console takes it: an organiser's or game master's)."""
    action = parse_action(words)
    if action.verb == "coup" and action.kw is None and not action.divin:
        return "a" if menu == "two" else "S"   # the closed menu's short press on a
    if not action.divin:
        try:
            return card.presses(_Menu(menu), words)
        except ValueError:
            return None
    # Divin: the Coup (Effet) page's switch, then the action from that page on.
    plain = action.text()[:-len(" divin")]
    try:
        keys = card.presses(_Menu(menu), plain).split()
    except ValueError:
        return None
    page = menutree.build_tree().entries[1 if action.verb == "coup" else 2]
    switch = page.entries.index(menutree.DIVIN)
    if menu == "two":
        return " ".join(keys[:1] + [menutree.SLOT_NAMES[switch]] + keys[1:])
    # L, S x group, L: on the page; S x switch, L: divin on; one more S wraps to the
    # page's first entry, where the action's own path starts again.
    opened = 2 + keys[1:].index("L")
    rest = keys[opened:]
    return " ".join(keys[:opened] + ["S"] * switch + ["L", "S"] + rest)


def read(path):
    """A lesson file -> the page's lesson: {"id", "title", "intro", "character",
    "text" (the file), "steps": [{"line", "t", "at", "kind", "words", ...}]}; an act
    has "action" and "presses" ({menu: keys, or None: the console says it}), an expect
    "expect" ([[field, value, as written]]) and "wanted" (its words). A malformed file
    -> scenario.ScenarioError, as for any scenario."""
    from cran.core.choices import as_dict
    with open(path, encoding="utf-8") as f:
        text = f.read()
    parsed = scenario.parse(text)
    title, intro, words_at = _words(text)
    steps = []
    for line, t, kind, payload in parsed.steps:
        step = {"line": line, "t": t, "at": elapsed(t), "kind": kind,
                "words": words_at.get(line, "")}
        if kind == "act":
            step["action"] = payload.text()
            mine = payload.verb not in ORGANISERS
            step["presses"] = dict((menu, presses(payload.text(), menu) if mine else None)
                                   for menu in MENUS)
        else:
            step["expect"] = [list(field) for field in payload]
            step["wanted"] = " ".join(w for _, _, w in payload)
        steps.append(step)
    name = os.path.splitext(os.path.basename(path))[0]
    return {"id": name, "title": title or name, "intro": intro, "text": text,
            "character": as_dict(parsed.character), "steps": steps}


def _words(text):
    """-> (title, the words before the first step, {line of a step: its words})."""
    title, pending, intro, at = "", [], None, {}
    for number, raw in enumerate(text.split("\n"), 1):
        line = raw.strip()
        if line.startswith("#="):
            title = line[2:].strip()
        elif line.startswith("#:"):
            pending.append(line[2:].strip())
        elif line and not line.startswith("#"):
            said = " ".join(pending)
            pending = []
            if line.split()[0].lower() in ("character", "personnage"):
                intro = said if intro is None else intro
            elif intro is None:
                intro, at[number] = "", said
            else:
                at[number] = said
    return title, intro or "", at


def read_all(folder=LESSONS_DIR):
    """Every lesson of folder, in the order of their file names."""
    return [read(os.path.join(folder, name)) for name in sorted(os.listdir(folder))
            if name.endswith(".txt")]
