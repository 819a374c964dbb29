# What the LEDs show while the wearer looks at the badge: the private peek, and where
# the menu stands (or a healer's offer, as the menu's Autre page). Loaded for them and
# let go when the public look comes back (cran.app): most of a game shows the look, on
# its patterns (cran.cues) alone.

from cran.core.vocab import const
from cran.cues import _flashes, _lit, _single, _step  # the looks' rhythm, shared

_OFF = const((0, 0, 0))
# The colour of each state's bar, pleine-forme to mort.
_STATE_RGB = const(((0, 255, 0), (255, 140, 0), (255, 0, 0), (90, 0, 160), (90, 90, 90)))


def peek_frame(state, now, led_count, layout="strip"):
    """The private view on LEDs (the wearer hides the badge): 5 - etat lit LEDs, steady
    (pleine-forme 5 ... mort 1); one LED flashes that many times."""
    count = 5 - state.etat
    colour = _STATE_RGB[state.etat]
    if _single(layout, led_count):
        on = _lit(_flashes(0, count), _step(now))
        return [colour if on else _OFF] * led_count
    frame = [_OFF] * led_count
    cells = range(25 - 5 * count, 25) if layout == "matrix-5x5" else range(count)
    for i in cells:
        frame[i] = colour
    return frame


_MENU_RGB = const(((255, 255, 255), (255, 0, 0), (200, 0, 255), (0, 255, 0)))


def menu_frame(where, now, led_count, layout="strip"):
    """The menu position on LEDs. where = Menu.where(): (group, depth, index).
    Colour: the group; rhythm: depth long flashes then index short ones; several LEDs
    also light index of them."""
    group, depth, index = where
    on = _lit(_flashes(depth, index), _step(now))
    colour = _MENU_RGB[group % len(_MENU_RGB)]
    if _single(layout, led_count):
        return [colour if on else _OFF] * led_count
    frame = [_OFF] * led_count
    if on:
        for i in range(min(index, led_count)):
            frame[i] = colour
    return frame
