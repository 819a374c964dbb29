# A game master's orders heard on the radio (cran.radio.link): the stop, its end, the
# night, an effect «de masse» (K11), a reset. Rare in a game, and none needs an answer
# within a frame: loaded when one is heard and let go after, as cran.radio.recast is.
from cran import radio
from cran.core.vocab import KEYWORDS, Action


def command(kind, payload, me):
    """A game master's frame -> the Action it asks of this badge, or None."""
    if kind == radio.STOP:
        return Action("stop")
    if kind == radio.RESUME:
        return Action("reprise")
    if kind == radio.NIGHT:
        return Action("nuit")
    if kind == radio.MASS:   # K11: an effect «de masse», named by its keyword
        try:
            name = bytes(payload).decode()
        except UnicodeError:
            return None
        return Action("effet", name, masse=True) if name in KEYWORDS else None
    if kind == radio.RESET and payload[:radio.ID_BYTES] == me:
        return Action("reset")
    return None
