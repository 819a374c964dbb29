# Button presses to actions (docs/controls.md). A normal hit is one press; everything
# else is a small menu. Pure: presses come in as (button, kind, now), timing by ticks_diff.

from cran.core.ticks import ticks_diff
from cran.core.vocab import TIMED_EFFECTS, Action

UNDO_MS = 5000   # a double press undoes the last action this long after it
IDLE_MS = 8000   # an untouched menu closes by itself

# Two buttons and a screen: each input picks one entry of the page on show; b double
# always goes back. The screen names the inputs as below.
SLOTS = (("a", "short"), ("b", "short"), ("a", "long"), ("b", "long"), ("a", "double"))
SLOT_NAMES = ("a", "b", "A", "B", "aa")
BACK = ("b", "double")

_PEEK = "peek"
_DIVIN = "divin"


class Page:
    def __init__(self, fr, en, entries):
        self.fr = fr
        self.en = en
        self.entries = entries   # Action, Page, _PEEK or _DIVIN


def _kw(verb, kw):
    # One word per target on a badge without keyboard: "membre" stands for any limb.
    return Action(verb, kw, "membre" if kw == "brise" else None)


def _keyword_page(verb, fr, en):
    coup = verb == "coup"
    states = ["blesse", "agonisant", "coma", "mort"] + (["mort-si-coma"] if coup else [])
    more = [_kw(verb, k) for k in ("resiste", "invisible", "message", "regard")]
    if coup:
        more.append(Action("coup"))   # a normal hit from the menu: with divin (K10)
    return Page(fr, en, [
        Page("Etats", "States", [_kw(verb, k) for k in states]),
        Page("Effets 1", "Effects 1", [_kw(verb, k) for k in TIMED_EFFECTS[:5]]),
        Page("Effets 2", "Effects 2", [_kw(verb, k) for k in TIMED_EFFECTS[5:]]),
        Page("Autres", "Others", [_kw(verb, k) for k in ("brise", "desarme", "dissipe", "vol")]
             + [Page("Suite", "More", more)]),
        _DIVIN,
    ])


def _other_page():
    orga = Page("Orga", "Organiser", [Action("stop"), Action("reprise"), Action("reset")])
    game = Page("Jeu", "Game", [Action("hors-jeu"), Action("en-jeu"), Action("nuit"), orga])
    return Page("Autre", "Other", [
        Action("soin"), Action("soin-complet"), Action("repare", target="armure"),
        Action("repare", target="membre"), game])


def build_tree():
    """The one-button top menu; its entries 1-3 are the two-button boards' menus."""
    return Page("Menu", "Menu", [
        _PEEK,
        _keyword_page("coup", "Coup", "Hit"),
        _keyword_page("effet", "Effet", "Effect"),
        _other_page(),
    ])


class Menu:
    """press() -> results: ("action", Action), ("undo",), ("peek",). One button, or two
    without a screen, scroll the menu; two with a screen pick entries directly."""

    def __init__(self, board_buttons, has_screen):
        self.direct = board_buttons >= 2 and has_screen
        # The tree (some 60 actions and pages, ~5 KB in 32-bit) exists only while the
        # menu is open: most presses are a plain hit, and a closed menu needs none of it.
        self.top = None
        self._stack = []            # [(page, cursor, group)]; empty: the menu is closed
        self._divin = False
        self._last_press = 0
        self._last_action = None    # tick of the last action, while it may be undone

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
        if kind == "short" and (button == "a" or not self.direct):
            return self._emit(Action("coup"), now)        # a normal hit: one press
        if kind == "double" and (button == "a" or not self.direct):
            last = self._last_action
            if last is not None and ticks_diff(now, last) <= UNDO_MS:
                self._last_action = None                    # one undo per action
                return [("undo",)]
            return []
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
        if isinstance(entry, Page):
            self._open(entry, self._stack[-1][2] if group is None else group)
            return []
        if entry == _DIVIN:
            self._divin = not self._divin
            return []
        if entry == _PEEK:
            self._close()
            return [("peek",)]
        if self._divin:
            entry = Action(entry.verb, entry.kw, entry.target, True)
        return self._emit(entry, now)

    def _tree(self):
        if self.top is None:
            self.top = build_tree()
        return self.top

    def _open(self, page, group):
        self._stack.append((page, 0, group))

    def _back(self):
        self._stack.pop()
        if not self._stack:
            self._close()
        return []

    def _close(self):
        self._stack = []
        self._divin = False
        self.top = None   # the GC takes the tree back

    def _emit(self, action, now):
        self._close()
        self._last_action = now
        return [("action", action)]

    # ---- what to show ---------------------------------------------------------------

    def where(self):
        """None when closed, else (group, depth, index): group 0-3 (peek, coup, effet,
        other) gives the LED colour, depth the page level, index the 1-based entry under
        the cursor (0 on direct boards, which show the page's title)."""
        if not self._stack:
            return None
        page, cursor, group = self._stack[-1]
        if self.direct:
            return (group, len(self._stack) - 1, 0)
        return (group, len(self._stack) - 1, cursor + 1)

    def here(self, lang="fr"):
        """The words for where(): the page's title on direct boards, else the entry
        under the cursor. None when closed. (For screens and the desktop sim: it loads
        the screen's words, cran.texts.)"""
        if not self._stack:
            return None
        page, cursor, _ = self._stack[-1]
        if self.direct:
            return page.en if lang == "en" else page.fr
        return self.entry_label(page.entries[cursor], lang)

    def entry_label(self, entry, lang="fr"):
        en = lang == "en"
        if isinstance(entry, Page):
            return entry.en if en else entry.fr
        if entry == _PEEK:
            return "Peek" if en else "Voir"
        if entry == _DIVIN:
            if en:
                return "Divine: " + ("on" if self._divin else "off")
            return "Divin: " + ("oui" if self._divin else "non")
        return action_label(entry, lang)

    def lines(self, lang="fr", width=16):
        """Screen lines for the open menu: its title, then 'input entry' lines."""
        if not self._stack:
            return []
        page, cursor, _ = self._stack[-1]
        out = [page.en if lang == "en" else page.fr]
        if self._divin:
            out[0] += " (divin)"
        for i, entry in enumerate(page.entries):
            if self.direct:
                out.append("%-2s %s" % (SLOT_NAMES[i], self.entry_label(entry, lang)))
            else:
                out.append(("> " if i == cursor else "  ") + self.entry_label(entry, lang))
        if self.direct:
            out.append("bb " + ("Back" if lang == "en" else "Retour"))
        return [line[:width] for line in out]


_ACTION_EN = {"soin": "Heal", "soin-complet": "Full heal", "nuit": "Night",
              "hors-jeu": "Out of game", "en-jeu": "Back in game", "stop": "Stop game",
              "reprise": "Resume game", "reset": "Reset"}


def action_label(action, lang="fr"):
    """A menu entry's words: the keyword alone inside a Coup/Effet page."""
    from cran.texts import label  # screens only: a board without one never loads it
    verb = action.verb
    if verb in ("coup", "effet"):
        if action.kw is None:
            return "Hit" if lang == "en" else "Normal"
        return label(action.kw, lang)
    if verb == "repare":
        if lang == "en":
            return "Repair " + ("armor" if action.target == "armure" else "limb")
        return "Repare " + action.target
    if lang == "en":
        return _ACTION_EN[verb]
    return label(verb)
