# Button presses to actions (docs/controls.md). A normal hit is one press; everything
# else is a small menu. Pure: presses come in as (button, kind, now), timing by ticks_diff.

from cran.core.ticks import ticks_add, ticks_diff
from cran.core.vocab import TIMED_EFFECTS, Action, const

IDLE_MS = 8000   # an untouched menu closes by itself
# [choice] The Orga page behind a press code (the game settings' "orga_code", short and
# long presses, S and L): after this many wrong codes it stays shut this long.
_CODE_TRIES = const(3)
_CODE_LOCK_MS = const(300000)

# Two buttons and a screen: each input picks one entry of the page on show; b double
# always goes back. The screen names the inputs as below.
SLOTS = (("a", "short"), ("b", "short"), ("a", "long"), ("b", "long"), ("a", "double"))
SLOT_NAMES = ("a", "b", "A", "B", "aa")
BACK = ("b", "double")

PEEK = "peek"
DIVIN = "divin"
TREAT = "treat"   # a healer's or smith's: treat the nearest badge, over the radio
# A normal hit, made once: an action is a value, and a press allocates less before its
# LEDs show it.
_HIT = Action("coup")


class Page:
    """A menu page: its entries (Action, Page, PEEK or DIVIN) are made by make(*args)
    when the page is first shown. A page never opened costs one object, not the ~10 of
    its entries: the whole tree is ~5 KB of a badge's heap, the pages on the way to one
    action a fraction of it."""

    def __init__(self, fr, en, make, *args):
        self.fr = fr
        self.en = en
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
        Page("Etats", "States", _kws, verb, states),
        Page("Effets 1", "Effects 1", _kws, verb, TIMED_EFFECTS[:5]),
        Page("Effets 2", "Effects 2", _kws, verb, TIMED_EFFECTS[5:]),
        Page("Autres", "Others", _others, verb),
        DIVIN,
    ]


def _others(verb):
    return _kws(verb, ("brise", "desarme", "dissipe", "vol")) + [
        Page("Suite", "More", _more, verb)]


def _more(verb):
    more = _kws(verb, ("resiste", "invisible", "message", "regard"))
    if verb == "coup":
        more.append(Action("coup"))   # a normal hit from the menu: with divin (K10)
    return more


def _other_entries(treats):
    return [Action("soin"), Action("soin-complet"), Action("repare", target="armure"),
            Action("repare", target="membre"), Page("Jeu", "Game", _game, treats)]


def _game(treats):
    return [Action("hors-jeu"), Action("en-jeu"), Action("nuit"), ORGA] + (
        [TREAT] if treats else [])


def _orga():
    return [Action("stop"), Action("reprise"), Action("reset")]


ORGA = Page("Orga", "Organiser", _orga)
# The code's page: its presses are the code's, not a choice among entries (none: list()).
CODE = Page("Code", "Code", list)


def _top(treats):
    return [PEEK, Page("Coup", "Hit", _keyword_entries, "coup"),
            Page("Effet", "Effect", _keyword_entries, "effet"),
            Page("Autre", "Other", _other_entries, treats)]


def build_tree(treats=None):
    """The one-button top menu; its entries 1-3 are the two-button boards' menus.
    treats: "soin" or "repare" on a healer's or smith's badge (its Jeu page's last
    entry, TREAT), else None."""
    return Page("Menu", "Menu", _top, treats)


class Menu:
    """press() -> results: ("action", Action), ("undo",), ("peek",), ("treat",) (a
    healer's wearer treats the nearest badge), ("take",) (the wearer takes the offer on
    show: a long press while `offer` is set, cran.radio.link). One button, or two without a
    screen, scroll the menu; two with a screen pick entries directly."""

    def __init__(self, board_buttons, has_screen, treats=None, orga_code=None):
        self.direct = board_buttons >= 2 and has_screen
        self.treats = treats
        self.offer = None           # a healer's offer on show (set by the app), or None
        self.orga_code = orga_code  # "SLSL...": the Orga page's code, or None (open)
        self.code = ""              # the presses typed on the code's page
        self.wrong = 0              # wrong codes in a row
        self.shut_until = None      # tick the Orga page opens again after _CODE_TRIES
        # The tree (some 60 actions and pages, ~5 KB in 32-bit) exists only while the
        # menu is open: most presses are a plain hit, and a closed menu needs none of it.
        self.top = None
        self._stack = []            # [(page, cursor, group)]; empty: the menu is closed
        self.divin = False
        self._last_press = 0

    def is_open(self):
        return bool(self._stack)

    def tick(self, now):
        """Close an idle menu. -> True if it closed."""
        if self._stack and ticks_diff(now, self._last_press) >= IDLE_MS:
            self._close()
            return True
        return False

    def idle_ms(self, now):
        """ms until an open menu closes by itself (tick() does it)."""
        return max(0, IDLE_MS - ticks_diff(now, self._last_press))

    def press(self, button, kind, now):
        self.tick(now)
        self._last_press = now
        if not self._stack:
            return self._closed(button, kind, now)
        if self._stack[-1][0] is CODE:
            return self._code_press(kind, now)
        if not self.direct:
            return self._scroll(kind, now)
        if (button, kind) == BACK:
            return self._back()
        if (button, kind) in SLOTS:
            i = SLOTS.index((button, kind))
            page = self._stack[-1][0]
            if i < len(page.entries):
                return self._choose(page.entries[i], now)
        return []

    def _closed(self, button, kind, now):
        if kind == "long" and self.offer is not None and (button == "a" or not self.direct):
            self.offer = None
            return [("take",)]
        if kind == "short" and (button == "a" or not self.direct):
            return self._emit(_HIT, now)                    # a normal hit: one press
        if kind == "double" and (button == "a" or not self.direct):
            return [("undo",)]     # the badge takes back the last action, if it still may
        if not self.direct:
            if kind == "long":
                self._open(self._tree(), 0)
            return []
        if (button, kind) == ("b", "short"):
            return [("peek",)]
        group = {("a", "long"): 1, ("b", "long"): 2, ("b", "double"): 3}.get((button, kind))
        if group is not None:
            self._open(self._tree().entries[group], group)
        return []

    def _scroll(self, kind, now):
        page, cursor, group = self._stack[-1]
        if kind == "short":
            self._stack[-1] = (page, (cursor + 1) % len(page.entries), group)
            return []
        if kind == "double":
            return self._back()
        entry = page.entries[cursor]
        if len(self._stack) == 1:     # the top menu: its groups give the LED colour
            group = cursor
        return self._choose(entry, now, group)

    def _choose(self, entry, now, group=None):
        if entry is ORGA and self.orga_code:   # its code first, every time
            if self.shut_until is not None and ticks_diff(now, self.shut_until) < 0:
                self._close()   # too many wrong codes: shut for a while
                return []
            self.shut_until = None
            self.code = ""
            entry = CODE
        if isinstance(entry, Page):
            self._open(entry, self._stack[-1][2] if group is None else group)
            return []
        if entry == DIVIN:
            self.divin = not self.divin
            return []
        if entry == PEEK:
            self._close()
            return [("peek",)]
        if entry == TREAT:
            self._close()
            return [("treat",)]
        if self.divin:
            entry = Action(entry.verb, entry.kw, entry.target, True)
        return self._emit(entry, now)

    def _code_press(self, kind, now):
        # Any button: a short press is S, a long one L; a double goes back.
        if kind == "double":
            return self._back()
        self.code += "S" if kind == "short" else "L"
        code = self.orga_code
        if len(self.code) < len(code):
            return []
        group = self._stack[-1][2]
        self._stack.pop()
        if self.code == code:
            self.wrong = 0
            self._open(ORGA, group)
            return []
        self.wrong += 1
        if self.wrong >= _CODE_TRIES:
            self.wrong = 0
            self.shut_until = ticks_add(now, _CODE_LOCK_MS)
        self._close()
        return []

    def _tree(self):
        if self.top is None:
            self.top = build_tree(self.treats)
        return self.top

    def _open(self, page, group):
        self._stack.append((page, 0, group))

    def _back(self):
        self._stack.pop()
        if not self._stack:
            self._close()
        return []

    def _close(self):
        self._stack.clear()   # (in place: closing allocates nothing)
        self.divin = False
        self.top = None   # the GC takes the tree back

    def _emit(self, action, now):
        if self._stack:   # (a normal hit comes here from a closed menu: nothing to close)
            self._close()
        return [("action", action)]

    # ---- what to show ---------------------------------------------------------------

    def where(self):
        """None when closed, else (group, depth, index): group 0-3 (peek, coup, effet,
        other) gives the LED colour, depth the page level, index the 1-based entry under
        the cursor (0 on direct boards, which show the page's title)."""
        if not self._stack:
            return None
        page, cursor, group = self._stack[-1]
        if page is CODE:   # the presses typed so far
            return (group, len(self._stack) - 1, len(self.code))
        if self.direct:
            return (group, len(self._stack) - 1, 0)
        return (group, len(self._stack) - 1, cursor + 1)

    def page_here(self):
        """(page, cursor) of the open menu, or None: for the screen's words (cran.texts
        .menu_lines, .menu_here; only boards with a screen load them)."""
        if not self._stack:
            return None
        page, cursor, _ = self._stack[-1]
        return page, cursor
