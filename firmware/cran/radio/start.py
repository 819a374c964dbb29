# The badge's radio wired at its start (cran.start.parts.build): what radio.json kept read
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
    or None with the reason journaled (cran.start.parts.build). power: the board's power
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
    link, damaged = wire(join(root, _KEPT), spec, key, air, spec.id or machine.unique_id())
    if damaged:
        badge.log({"error": "radio: %s: the game master's, healers' and smiths' commands "
                            "are refused until cran flash mends it" % damaged})
        try:
            link.save()   # checked again, as refused: so after a reboot too
        except OSError:
            pass   # refused all the same until the next boot, which finds it again
    # The badge's clock judges how late a command comes (cran.radio.orders); unknown,
    # it is asked of the station at the first window.
    link.clock = badge.wall_clock
    link.ask_time = badge.wall_clock() is None
    if power is not None:   # loaded here, not by the app's start: only a radio game's
        from cran.hal.battery import battery
        link.battery = battery(power, badge)
    return link


def read_checked(data):
    """radio.json's bytes -> what it keeps, {"mark": int, "spent": {authority id in
    hex: [index, token in hex]}, "next": int (a healer's or smith's)}, as cran.storage.
    write_checked wrote it; ValueError when it is not (a flipped bit, a cut, an older
    firmware's file without its check, a field of the wrong kind)."""
    from cran.storage import check_line
    at = data.find(b"\n") + 1
    if not at or data[:at] != check_line(data[at:]):
        raise ValueError("its check does not match")
    try:
        kept = json.loads(data[at:])
        mark, spent, next_index = kept.get("mark", 0), kept.get("spent", {}), kept.get(
            "next", 1)
        if type(mark) is not int or type(next_index) is not int or not isinstance(
                spent, dict) or mark < 0 or next_index < 1:
            raise TypeError
        for last in spent.values():
            if type(last[0]) is not int or len(from_hex(last[1])) != radio.TOKEN_BYTES:
                raise TypeError
    except (TypeError, KeyError, IndexError, AttributeError):
        raise ValueError("not what a badge keeps") from None
    return kept


def wire(path, spec, game_key, air, me):
    """A badge's Link from its config's radio (cran.radio.config.Radio), the game key,
    its driver and id, with what path kept (written at each change, atomically, with
    its check). -> (link, None), or (link, why) when path was there but damaged."""
    damaged = None
    try:
        with open(path, "rb") as f:
            kept = read_checked(f.read())
    except OSError:
        kept = {}   # none yet: a fresh badge
    except ValueError as e:   # (UnicodeError, a bad JSON: ValueErrors too)
        kept, damaged = {}, "%s damaged (%s)" % (path, e)
    authorities = spec.authorities
    spent = kept.get("spent", {})
    for who, entry in authorities.items():   # tokens spent before a reboot stay spent
        last = spent.get(to_hex(who))
        if last and last[0] > entry[1]:   # (read_checked checked its kinds)
            entry[1], entry[2] = last[0], from_hex(last[1])
        elif damaged:
            # What it spent is lost: a command captured before would work again from
            # the anchor. Refused, every one, until cran flash writes the file again.
            entry[1] = radio.CHAIN_STEPS
    keys = radio.Keys(game_key)
    chain = None
    if spec.seed:   # a healer's or smith's: its chain's code stays with it (cran.radio.treat)
        from cran.radio.treat import Chain
        chain = Chain(spec.seed, kept.get("next", 1))
    link = Link(air, keys, None, None, me, spec.role, chain)
    link.kept = path
    # (A token it spends is saved by cran.radio.orders, which judges what it came with.)
    link.listener = radio.Listener(keys, authorities)
    # A damaged file has lost the mark: the counter jumps to the upper half of its
    # range, past anything a game uses.
    link.counter = radio.Counter(kept.get("mark", 1 << 31 if damaged else 0), link.save)
    return link, damaged
