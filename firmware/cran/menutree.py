# The open menu (docs/controls.md): its pages and what a press does while one is on
# show. Loaded by cran.menu when the menu opens and let go when it closes: on a badge
# every module is its bytecode in RAM, and a closed menu (a plain hit, a peek, an undo:
# most presses) needs none of this.

from cran.core.ticks import ticks_add, ticks_diff
from cran.core.vocab import TIMED_EFFECTS, Action, const

# [choice] The Orga page behind a press code (the game settings' "orga_code", short and
# long presses, S and L): after this many wrong codes it stays shut this long.
_CODE_TRIES = const(3)
_CODE_LOCK_MS = const(300000)

# Two buttons and a screen: each input picks one entry of the page on show; b double
# always goes back. The screen names the inputs as below.
_SLOTS = (("a", "short"), ("b", "short"), ("a", "long"), ("b", "long"), ("a", "double"))
SLOT_NAMES = ("a", "b", "A", "B", "aa")
_BACK = const(("b", "double"))

PEEK = "peek"
DIVIN = "divin"
TREAT = "treat"   # a healer's or smith's: treat the nearest badge, over the radio


# The pages' titles, by number: their words are the screen's (cran.menuwords.title, by
# these numbers). A board without a screen never shows them, and here every short word
# would be a name in its RAM for good (each short string of a loaded module is one).
_TITLE_MENU = const(0)
_TITLE_COUP = const(1)
_TITLE_EFFET = const(2)
_TITLE_AUTRE = const(3)
_TITLE_ETATS = const(4)
_TITLE_EFFETS_1 = const(5)
_TITLE_EFFETS_2 = const(6)
_TITLE_AUTRES = const(7)
_TITLE_SUITE = const(8)
_TITLE_JEU = const(9)
_TITLE_ORGA = const(10)
_TITLE_CODE = const(11)


class Page:
    """A menu page: its title (a number: cran.menuwords.title says its words), its
    entries (Action, Page, PEEK or DIVIN) made by make(*args) when the page is first
    shown. A page never opened costs one object, not the ~10 of its entries: the whole
    tree is ~5 KB of a badge's heap, the pages on the way to one action a fraction of
    it."""

    def __init__(self, title, make, *args):
        self.title = title
        self._make = make
        self._args = args
        self._entries = None

    @property
    def entries(self):
        if self._entries is None:
            self._entries = self._make(*self._args)
        return self._entries


def _kw(verb, kw):
    # One word per target on a badge without keyboard: "membre" stands for any limb.
    return Action(verb, kw, "membre" if kw == "brise" else None)


def _kws(verb, kws):
    return [_kw(verb, k) for k in kws]


def _keyword_entries(verb):
    states = ("blesse", "agonisant", "coma", "mort") + (
        ("mort-si-coma",) if verb == "coup" else ())
    return [
        Page(_TITLE_ETATS, _kws, verb, states),
        Page(_TITLE_EFFETS_1, _kws, verb, TIMED_EFFECTS[:5]),
        Page(_TITLE_EFFETS_2, _effects, verb, TIMED_EFFECTS[5:]),
        Page(_TITLE_AUTRES, _others, verb),
        DIVIN,
    ]


def _effects(verb, names):
    # A page holds five entries: an effect added beyond them goes on, behind "Suite".
    if len(names) <= 5:
        return _kws(verb, names)
    return _kws(verb, names[:4]) + [Page(_TITLE_SUITE, _effects, verb, names[4:])]


def _others(verb):
    return _kws(verb, ("brise", "desarme", "dissipe", "vol")) + [
        Page(_TITLE_SUITE, _more, verb)]


def _more(verb):
    more = _kws(verb, ("resiste", "invisible", "message", "regard"))
    if verb == "coup":
        more.append(Action("coup"))   # a normal hit from the menu: with divin (K10)
    return more


def _other_entries(treats):
    return [Action("soin"), Action("soin-complet"), Action("repare", target="armure"),
            Action("repare", target="membre"), Page(_TITLE_JEU, _game, treats)]


def _game(treats):
    return [Action("hors-jeu"), Action("en-jeu"), Action("nuit"), _ORGA] + (
        [TREAT] if treats else [])


def _orga():
    return [Action("stop"), Action("reprise"), Action("reset")]


_ORGA = Page(_TITLE_ORGA, _orga)
# The code's page: its presses are the code's, not a choice among entries (none: list()).
CODE = Page(_TITLE_CODE, list)


def _top(treats):
    return [PEEK, Page(_TITLE_COUP, _keyword_entries, "coup"),
            Page(_TITLE_EFFET, _keyword_entries, "effet"),
            Page(_TITLE_AUTRE, _other_entries, treats)]


def build_tree(treats=None):
    """The one-button top menu; its entries 1-3 are the two-button boards' menus.
    treats: "soin" or "repare" on a healer's or smith's badge (its Jeu page's last
    entry, TREAT), else None."""
    return Page(_TITLE_MENU, _top, treats)


def press(menu, button, kind, now):
    """A press while menu (cran.menu.Menu) is open -> its results, as Menu.press. The
    menu's pages are its own: this reads them by its where() and page_here() and moves
    on them by its push() and pop()."""
    page = menu.page_here()[0]
    if page is CODE:
        return _code_press(menu, kind, now)
    if not menu.direct:
        return _scroll(menu, kind, now)
    if (button, kind) == _BACK:
        return _back(menu)
    if (button, kind) in _SLOTS:
        i = _SLOTS.index((button, kind))
        if i < len(page.entries):
            return _choose(menu, page.entries[i], now)
    return []


def open_top(menu, group=None):
    """Open the top page (group None: one button, or two without a screen), or on a
    direct board the top page's entry `group` (1-3) with its LED colour."""
    top = build_tree(menu.treats)   # the menu's pages hold what of it is on the way
    if group is None:
        menu.push(top, 0, 0)
    else:
        menu.push(top.entries[group], 0, group)


def _scroll(menu, kind, now):
    page, cursor = menu.page_here()
    group, depth, _ = menu.where()
    if kind == "short":   # the cursor moves on: the page again, its next entry under it
        menu.pop()
        menu.push(page, (cursor + 1) % len(page.entries), group)
        return []
    if kind == "double":
        return _back(menu)
    entry = page.entries[cursor]
    if depth == 0:     # the top menu: its groups give the LED colour
        group = cursor
    return _choose(menu, entry, now, group)


def _choose(menu, entry, now, group=None):
    if entry is _ORGA and menu.orga_code:  # its code first, every time
        if menu.shut_until is not None and ticks_diff(now, menu.shut_until) < 0:
            menu.close()   # too many wrong codes: shut for a while
            return []
        menu.shut_until = None
        menu.code = ""
        entry = CODE
    if isinstance(entry, Page):
        menu.push(entry, 0, menu.where()[0] if group is None else group)
        return []
    if entry == DIVIN:
        menu.divin = not menu.divin
        return []
    if entry == PEEK:
        menu.close()
        return [("peek",)]
    if entry == TREAT:
        menu.close()
        return [("treat",)]
    if menu.divin:
        entry = Action(entry.verb, entry.kw, entry.target, True)
    menu.close()
    return [("action", entry)]


def _code_press(menu, kind, now):
    # Any button: a short press is S, a long one L; a double goes back.
    if kind == "double":
        return _back(menu)
    menu.code += "S" if kind == "short" else "L"
    code = menu.orga_code
    if len(menu.code) < len(code):
        return []
    group = menu.where()[0]
    menu.pop()
    if menu.code == code:
        menu.wrong = 0
        menu.push(_ORGA, 0, group)
        return []
    menu.wrong += 1
    if menu.wrong >= _CODE_TRIES:
        menu.wrong = 0
        menu.shut_until = ticks_add(now, _CODE_LOCK_MS)
    menu.close()
    return []


def _back(menu):
    menu.pop()
    if not menu.is_open():
        menu.close()
    return []
