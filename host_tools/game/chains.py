# A game's radio chains, from its settings' radio secret: the game master's and each
# healer's or smith's seed, the tokens grown from them, and what each badge's config
# holds of them (its radio section). Made by `cran config` and `cran flash` (the roster)
# and by the station (host_tools/field), which holds the game master's seed.
import hashlib

from cran import radio
from cran.auth import derive

GM_NAME = "gm"                  # the game master's station, as a radio id is made from
ROLE_NAMES = ("badge", "healer", "smith")   # a roster's roles (radio.ROLES' first three)


def chain_token(seed, index):
    """Token `index` (0: the anchor badges hold) of the chain grown from seed. Made here
    only: a badge checks a token by stepping it back (cran.radio.chain_step) and a
    healer's badge steps its own chain from where it stands (cran.radio.treat)."""
    x = seed[:radio.TOKEN_BYTES]
    for _ in range(radio.CHAIN_STEPS - index):
        x = radio.chain_step(x)
    return x


def gm_anchor(seed):
    """What every badge's config holds of the game master's chain: its token 0."""
    return chain_token(seed, 0)


# ---- a game's radio, from its settings' secret -------------------------------------------
# The radio secret is the organisers' alone (the game settings file): no badge holds it.
# From it come the chains' seeds: the game master's, and each healer's or smith's (by
# the roster's name), which only that one badge gets. Badges get the anchors.

def radio_id(name):
    """A badge's 6-byte radio id, from its roster name: the station names who it hears."""
    return hashlib.sha256(b"cran radio id " + name.encode()).digest()[:radio.ID_BYTES]


def seed_of(secret, name):
    """The chain seed of the game master (GM_NAME) or of a healer or smith by name."""
    return derive(secret, b"chain " + name.encode())[:radio.TOKEN_BYTES]


def treater_anchors(secret, rows):
    """rows: [(name, role)] of the roster -> {radio id: (role, its chain's anchor)} of its
    healers and smiths, whose soins and repairs every badge (and the station) checks."""
    return {radio_id(name): (role, chain_token(seed_of(secret, name), 0))
            for name, role in rows if role != "badge"}


def radio_sections(secret, rows):
    """rows: [(name, role)] of the whole roster (role: ROLE_NAMES) -> {name: the radio
    section of that badge's config (cran.config's "radio")}."""
    authorities = {radio_id(GM_NAME).hex(): ["gm", gm_anchor(seed_of(secret, GM_NAME)).hex()]}
    for who, (role, anchor) in treater_anchors(secret, rows).items():
        authorities[who.hex()] = [role, anchor.hex()]
    out = {}
    for name, role in rows:
        section = {"id": radio_id(name).hex(), "role": role, "authorities": authorities}
        if role != "badge":
            section["seed"] = seed_of(secret, name).hex()
        out[name] = section
    return out
