# The badge's radio wired at its start (cran.start.parts.assemble): what radio.json kept read
# back, the game's keys, the listener, the counter and, on a healer's or smith's badge,
# its chain (cran.radio.treat). Start-only: let go with cran.start.parts once the app is built, as
# the window's code (cran.radio.link) is all a badge keeps of the radio in play.
import json

from cran import radio
from cran.auth import from_hex
from cran.radio.link import Link
from cran.tags import to_hex

_KEPT = "radio.json"   # beside the state: the counter's mark, spent tokens, own chain


def start(root, spec, key, badge, power=None):
    """The badge's radio from its config's (cran.radio.config.Radio) and the game key,
    or None with the reason journaled (cran.start.parts.assemble). power: the board's power
    part, whose battery its heartbeats then carry (cran.hal.battery)."""
    if key is None:
        badge.log({"error": "radio: no game key on this badge (cran flash installs it)"})
        return None
    try:
        from cran.hal.espnow import Air
        air = Air()
    except (ImportError, OSError) as e:   # a firmware without espnow, a radio that fails
        badge.log({"error": "radio: %s" % (e,)})
        return None
    import machine

    from cran.storage import join
    link = wire(join(root, _KEPT), spec, key, air, spec.id or machine.unique_id())
    if power is not None:   # loaded here, not by the app's start: only a radio game's
        from cran.hal.battery import battery
        link.battery = battery(power, badge)
    return link


def wire(path, spec, game_key, air, me):
    """A badge's Link from its config's radio (cran.radio.config.Radio), the game key,
    its driver and id, with what path kept (written at each change, atomically)."""
    damaged = False
    try:
        with open(path) as f:
            kept = json.loads(f.read())
        if not isinstance(kept, dict):
            raise ValueError(path)
    except OSError:
        kept = {}   # none yet: a fresh badge
    except ValueError:
        kept, damaged = {}, True
    authorities = spec.authorities
    spent = kept.get("spent", {})
    for who, entry in authorities.items():   # tokens spent before a reboot stay spent
        last = spent.get(to_hex(who))
        try:
            token = from_hex(last[1]) if last else None
            if token is not None and len(token) == radio.TOKEN_BYTES and last[0] > entry[1]:
                entry[1], entry[2] = last[0], token
        except (TypeError, IndexError):
            pass   # not as save() writes it: the anchor, as after a new flash
    keys = radio.Keys(game_key)
    chain = None
    if spec.seed:   # a healer's or smith's: its chain's code stays with it (cran.radio.treat)
        from cran.radio.treat import Chain
        chain = Chain(spec.seed, kept.get("next", 1))
    link = Link(air, keys, None, None, me, spec.role, chain)
    link.kept = path
    link.listener = radio.Listener(keys, authorities, link.save)
    # A damaged file (written by rename, it takes a failing flash) has lost the mark:
    # the counter jumps to the upper half of its range, past anything a game uses.
    link.counter = radio.Counter(kept.get("mark", 1 << 31 if damaged else 0), link.save)
    return link
