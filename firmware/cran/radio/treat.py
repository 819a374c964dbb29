# A healer's or smith's side of the radio (cran.radio.link): its own chain's tokens, and its
# offer to the nearest badge once a search ends. Only their badges load it (with their
# chain, at the start: cran.radio.start); a player's badge, most of a field, keeps none
# of it in its heap.
import struct

from cran import radio
from cran.core.vocab import const
from cran.tags import to_hex

_MARK_SPACING = const(256)    # Chain: hashes between two tokens kept


class Chain:
    """The tokens of this badge's own chain (a healer's, a smith's), given in order.
    Token i is the seed hashed CHAIN_STEPS - i times; from the seed alone the first
    costs ~4,000 hashes (about a second on an ESP32), so every 256th on the way
    is kept (16 of them, ~0.5 KB) and any token is then at most that many hashes away.
    next_index: the first unspent one (saved by the app, as a counter's mark is)."""

    def __init__(self, seed, next_index):
        self.seed = seed
        self.next_index = max(1, next_index)
        self._marks = None

    def take(self):
        """-> (index, token), or None when the chain is spent."""
        i = self.next_index
        if i > radio.CHAIN_STEPS:
            return None
        if self._marks is None:  # hashes from the seed: marks[k] is 256*k of them
            self._marks = []
            x = self.seed[:radio.TOKEN_BYTES]
            for n in range(radio.CHAIN_STEPS):
                if n % _MARK_SPACING == 0:
                    self._marks.append(x)
                x = radio.chain_step(x)
        hashes = radio.CHAIN_STEPS - i
        x = self._marks[hashes // _MARK_SPACING]
        for _ in range(hashes % _MARK_SPACING):
            x = radio.chain_step(x)
        self.next_index = i + 1
        return i, x


def offer_nearest(link, heard, now, out):
    """A search's end (cran.radio.link.Link.tick): the strongest answer at or above
    radio.NEAR_DBM, heard as (rssi, badge id, its counter), gets this chain's next token
    in a HEAL or REPAIR naming that answer (cran.radio.orders takes no other), sent for
    a period (link.repeat); out hears ("offered", its id in hex), or ("offered", None)
    when none was near or the chain is spent."""
    near = [h for h in heard if h[0] >= radio.NEAR_DBM]
    if not near:
        out.append(("offered", None))
        return
    _, target, counter = max(near)   # (the latest answer of the nearest, if it gave two)
    proof = link.chain.take()
    if proof is None:
        out.append(("offered", None))
        return
    link.save()   # before the token goes out
    kind = radio.HEAL if link.role == radio.HEALER else radio.REPAIR
    made = link.clock() if link.clock is not None else None
    link.repeat(kind, target + struct.pack(">I", counter), now,
                 (proof[0], proof[1], made or 0))
    out.append(("offered", to_hex(target)))
