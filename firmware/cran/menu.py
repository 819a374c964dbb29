# Button presses to actions (docs/controls.md). A normal hit is one press; everything
# else is a small menu. Pure: presses come in as (button, kind, now), timing by ticks_diff.
# What a closed menu does is here, resident; the open menu's pages and presses are
# cran.menutree, loaded while it is open.

from cran.compat import forget
from cran.core.ticks import ticks_diff
from cran.core.vocab import Action, const

_IDLE_MS = const(8000)   # an untouched menu closes by itself

# A normal hit, made once: an action is a value, and a press allocates less before its
# LEDs show it.
_HIT = Action("coup")
# A direct board's closed-menu presses that open one of the top page's groups.
_GROUPS = {("a", "long"): 1, ("b", "long"): 2, ("b", "double"): 3}
# The open menu's code: its pages and presses, and on a screen its words.
_OPEN_ONLY = ("cran.menuwords", "cran.menutree")


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
        self.shut_until = None      # tick the Orga page opens again after its wrong codes
        # The tree (some 60 actions and pages, ~5 KB in 32-bit, made by cran.menutree
        # as the menu opens and held by the stack alone) and the code that walks it
        # (~2 KB) exist only while the menu is open: most presses are a plain hit, and a
        # closed menu needs none of it. cran.menutree moves on it by push() and pop(),
        # and reads it by where() and page_here().
        self._stack = []           # [(page, cursor, group)]; empty: the menu is closed
        self.divin = False
        self._last_press = 0

    def is_open(self):
        return bool(self._stack)

    def tick(self, now):
        """Close an idle menu. -> True if it closed."""
        if self._stack and ticks_diff(now, self._last_press) >= _IDLE_MS:
            self.close()
            return True
        return False

    def idle_ms(self, now):
        """ms until an open menu closes by itself (tick() does it)."""
        return max(0, _IDLE_MS - ticks_diff(now, self._last_press))

    def press(self, button, kind, now):
        self.tick(now)
        self._last_press = now
        if self._stack:
            from cran.menutree import press
            return press(self, button, kind, now)
        hit_button = button == "a" or not self.direct
        if kind == "long" and self.offer is not None and hit_button:
            self.offer = None
            return [("take",)]
        if kind == "short" and hit_button:
            return [("action", _HIT)]                       # a normal hit: one press
        if kind == "double" and hit_button:
            return [("undo",)]     # the badge takes back the last action, if it still may
        if self.direct and (button, kind) == ("b", "short"):
            return [("peek",)]
        # The menu opens: on a direct board at one of the top page's groups, else at
        # the top page, by a long press.
        group = _GROUPS.get((button, kind)) if self.direct else None
        if group is not None or kind == "long":
            from cran.menutree import open_top
            open_top(self, group)
        return []

    def push(self, page, cursor, group):
        """Show page (cran.menutree's), its entry `cursor` under the cursor, over the one on
        show; group gives the LED colour."""
        self._stack.append((page, cursor, group))

    def pop(self):
        """Take the page on show away: the one under it shows again (none: see
        is_open())."""
        self._stack.pop()

    def close(self):
        self._stack.clear()   # (in place: closing allocates nothing)
        self.divin = False
        forget(_OPEN_ONLY)    # the GC takes the tree back, and the code that walked it

    # ---- what to show ---------------------------------------------------------------

    def where(self):
        """None when closed, else (group, depth, index): group 0-3 (peek, coup, effet,
        other) gives the LED colour, depth the page level, index the 1-based entry under
        the cursor (0 on direct boards, which show the page's title)."""
        if not self._stack:
            return None
        page, cursor, group = self._stack[-1]
        from cran.menutree import CODE  # (loaded: the menu is open)
        if page is CODE:   # the presses typed so far
            index = len(self.code)
        elif self.direct:
            index = 0
        else:
            index = cursor + 1
        return (group, len(self._stack) - 1, index)

    def page_here(self):
        """(page, cursor) of the open menu, or None: for the screen's words
        (cran.menuwords, loaded on boards with a screen while the menu is open)."""
        if not self._stack:
            return None
        page, cursor, _ = self._stack[-1]
        return page, cursor
