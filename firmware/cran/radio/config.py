# The config's radio section (cran.config loads it, in a game with the radio only: its
# checker and the names it makes cost the others nothing): this badge's radio id, its
# role, the anchors of the chains of those who may command or treat (cran.radio), and
# its own chain's seed if it treats.
# A fault is a ValueError("FIELD: PROBLEM"): cran.config, which loads this module while
# it reads the file, names the file (this module imports nothing of it).
from cran.auth import from_hex
from cran.core.choices import said

FIELDS = ("id", "role", "authorities", "seed")
_ROLES = ("badge", "healer", "smith", "gm")


class Radio:
    """The config's radio: id (6 bytes, made from the roster name by cran config; None:
    the chip's own), role (an index of cran.radio.ROLES), authorities ({6-byte id:
    [role index, 0, 16-byte anchor]}, as cran.radio.Listener takes them), seed (16
    bytes, a healer's or smith's own chain) or None."""
    id: bytes | None
    role: int
    authorities: dict
    seed: bytes | None


def _fail(field, problem):
    raise ValueError("%s: %s" % (field, problem))


def _hex(field, value, size):
    data = from_hex(value) if isinstance(value, str) else None
    if data is None or len(data) != size:
        _fail(field, "expected %d hex digits, got %s" % (2 * size, said(value)))
    return data


def read(raw):
    """The config's "radio", an object of FIELDS only (cran.config checks that) ->
    Radio; a fault is a ValueError naming the field."""
    r = Radio()
    r.id = None if raw.get("id") is None else _hex("radio.id", raw["id"], 6)
    role = raw.get("role", "badge")
    if role not in _ROLES[:3]:
        _fail("radio.role", "expected badge, healer or smith, got %s" % said(role))
    r.role = _ROLES.index(role)
    authorities = raw.get("authorities", {})
    if not isinstance(authorities, dict):
        _fail("radio.authorities", "expected an object: badge id -> [role, anchor]")
    r.authorities = {}
    for badge_id in sorted(authorities):
        field = "radio.authorities." + badge_id[:12]   # (an id is 12 hex digits)
        entry = authorities[badge_id]
        if (not isinstance(entry, list) or len(entry) != 2
                or entry[0] not in _ROLES[1:]):
            _fail(field, "expected [\"gm\", \"healer\" or \"smith\", anchor]")
        who = _hex(field, badge_id, 6)
        r.authorities[who] = [_ROLES.index(entry[0]), 0, _hex(field, entry[1], 16)]
    seed = raw.get("seed")
    r.seed = None if seed is None else _hex("radio.seed", seed, 16)
    if (r.seed is None) != (r.role == 0):
        _fail("radio.seed", "a healer or smith has a seed, and only they do")
    return r
