# An authority's frame heard on the radio (cran.radio.link), its token spent already
# (cran.radio.Listener): a game master's order (the stop, its end, the night, an effect
# «de masse» (K11), a reset, the clock) or a healer's or smith's offer, judged here and
# what it asks of this badge said. Rare in a game, and none needs an answer within a
# frame: loaded when one is heard and let go after, as cran.recast is.
#
# Heard late, refused. A game master's frame carries the station's clock (sealed with
# it), and is good for _FRESH_S either side of it by the badge's clock: one heard later
# (by a badge that was off when it went out, or captured and replayed) is refused and
# journalled with its age, its token spent all the same, so its copies are dropped
# before this. The badge's clock is set by cran flash and by every game master's frame
# it takes; the station says its clock every few minutes (host_tools/field/station.py),
# so a badge's drift (its clock runs on an RC oscillator while it sleeps: a few percent)
# stays well inside _FRESH_S. A badge that cannot judge a frame (its clock unknown after
# a power cut, or found off) asks the station for the time (cran.radio.link's
# ASK_TIME): the station's CLOCK answer names it with that question's counter, which no
# frame made before the question can; that answer alone sets a clock the badge could
# not judge it by.
#
# A healer's or smith's offer names the patient's answer it picked (its counter): it is
# taken only if that is this badge's last answer to a search, made at most _ANSWERED_MS
# ago. A captured offer replayed later names an older one: refused, whatever the
# badges' clocks say (a game without a station keeps no clock in step).
import json
import struct

from cran import radio
from cran.core.ticks import ticks_add, ticks_diff
from cran.core.vocab import KEYWORDS, Action, const
from cran.tags import to_hex

_FRESH_S = const(60)     # [choice] a command's life either side of its making
_ANSWERED_MS = const(10000)  # a healer's offer names an answer at most this old
ANSWER = ">6sI"          # a CLOCK's answer to a badge: its id, its question's counter
ANSWER_BYTES = const(10)
# The journal's words for what was refused.
_WORDS = {radio.STOP: "stop", radio.RESUME: "reprise", radio.NIGHT: "nuit",
          radio.MASS: "masse", radio.RESET: "reset", radio.CLOCK: "clock",
          radio.HEAL: "soin", radio.REPAIR: "repare"}


def judge(link, kind, payload, rssi, now, out):
    """An authority's frame heard by link (cran.radio.link.Link): what it asks of this
    badge added to out, as Link.tick says them; refused when heard late."""
    if link.kept is not None:
        keep(link)   # its token spent, saved before what it asks goes further
    made = link.listener.made_s
    if kind in (radio.HEAL, radio.REPAIR):
        return _offer(link, kind, payload, rssi, made, now, out)
    if kind == radio.RESET and payload[:radio.ID_BYTES] != link.me:
        return None   # another badge's
    if kind == radio.CLOCK and _answers(link, payload):
        link.ask_time, link.time_asked = False, None
        out.append(("clock", made))
        return None
    age = _age(link, made)
    if age is None or not -_FRESH_S <= age <= _FRESH_S:
        link.ask_time = True   # the clock unknown or off; or a replay: asked all the same
        return _refused(link, kind, age, out)
    link.ask_time, link.time_asked = False, None
    out.append(("clock", made))   # the station's clock: this badge's kept to it
    if kind == radio.RESET:
        if len(payload) > radio.ID_BYTES:   # with a new character (cran.recast)
            out.append(("recast", bytes(payload[radio.ID_BYTES:])))
        else:
            out.append(("act", Action("reset")))
        return None
    action = command(kind, payload)
    if action is not None:
        out.append(("act", action))
    return None


def command(kind, payload):
    """A game master's order to every badge -> the Action it asks, or None."""
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
    return None


def _answers(link, payload):
    # Whether this CLOCK names this badge with the counter of a question it has asked
    # since its clock was last known (or a later frame of its).
    asked = link.time_asked
    if asked is None:
        return False
    for at in range(0, len(payload) - ANSWER_BYTES + 1, ANSWER_BYTES):
        who, counter = struct.unpack_from(ANSWER, payload, at)
        if who == link.me and counter >= asked[0]:
            return True
    return False


def _offer(link, kind, payload, rssi, made, now, out):
    if payload[:radio.ID_BYTES] != link.me or rssi < radio.NEAR_DBM:
        return None   # another's, or not the nearest's
    answered = link.answered
    if (answered is None or len(payload) < radio.ID_BYTES + 4
            or struct.unpack_from(">I", payload, radio.ID_BYTES)[0] < answered[0]
            or ticks_diff(now, answered[1]) > _ANSWERED_MS):
        return _refused(link, kind, _age(link, made), out)
    verb = "soin" if kind == radio.HEAL else "repare"
    link.offer = (verb, ticks_add(now, radio.OFFER_MS))
    out.append(("offer", verb))
    return None


def _age(link, made):
    # Seconds since the frame was made, by this badge's clock; None when either clock
    # is unknown.
    wall = link.clock() if link.clock is not None else None
    return None if wall is None or not made else wall - made


def _refused(link, kind, age, out):
    link.listener.drop("late")
    out.append(("journal", {"radio": "refused", "kind": _WORDS[kind], "age_s": age}))


def keep(link):
    """link's (cran.radio.link.Link.save) state that outlives a reboot, written whole
    after its check (cran.storage.write_checked), then renamed over the old: a cut
    leaves one or the other, a flipped bit is seen."""
    from cran.storage import write_checked
    spent = {}
    for who, entry in link.listener.authorities.items():
        if entry[1]:
            spent[to_hex(who)] = [entry[1], to_hex(entry[2])]
    kept = {"mark": link.counter.mark, "spent": spent}
    if link.chain is not None:
        kept["next"] = link.chain.next_index
    write_checked(link.kept, json.dumps(kept).encode())


def play(app, heard, now, on_clock):
    """What app's radio heard (cran.radio.link.Link.tick's (what, value) pairs), played
    on its badge (cran.app.App.show): a game master's command (no undo for it), a reset
    to a new character, the clock (on_clock(unix seconds) sets the chip's too); the
    rest journaled as it is (a command refused, frames dropped, an offer for this
    wearer or made by this healer)."""
    for what, value in heard:
        badge = app.badge   # (a new character's badge after a recast)
        if what == "act":
            badge.apply(value, now, save=False)
        elif what == "recast":
            app.recast(value, now)
        elif what == "clock":
            badge.set_wall_clock(value, now)
            on_clock(value)
        elif what == "journal":
            badge.log(value)
        else:
            badge.log({"radio": what, "value": value})
