# What the wearer is ordered, not hit by (docs/rules.md S9, S10, A4, K7, K15, K16, P2):
# a soin, a repair, the night, the game stopped or resumed, the wearer out of the game
# or back, renown; and a dissipe (K9), which takes back the hit just received.
# cran.core.engine.act hands it any action but a Coup or Effet received, after the
# state's copy, and freezes or thaws the timers after it; and an Effet Dissipe. Both
# are rare beside hits, so a badge loads this for one and lets it go after it
# (cran.badge): ~1.2 KB of a 32-bit heap less all day. The steps a hit takes too are
# cran.core.steps'; the engine's tick, which a dissipe replays, is given to it: it can't
# import the module that loads it.
from cran.core.steps import announce, end_combat, set_etat, start_combat
from cran.core.vocab import (
    AGONISANT,
    BLESSE,
    CUE_ARMOR,
    CUE_DISPELLED,
    CUE_END,
    CUE_FORGET,
    CUE_IGNORED,
    CUE_PLAY,
    CUE_RANK,
    CUE_REPAIRED,
    MAX_RENOWN,
    MORT,
    PLEINE_FORME,
)

_RANKS = ((20, "sommite"), (15, "grand-noble"), (10, "noble"), (5, "notable"), (0, "-"))


def rank(renown):
    """P2: the social rank for a renown score."""
    for floor, name in _RANKS:
        if renown >= floor:
            return name
    return "-"


def order(s, verb, action, now, cues):
    """The order verb (action's, or "stop" for K15's statue) applied to s, a copy of
    the state, in place; its cues added to cues."""
    if verb in ("soin", "soin-complet"):
        _heal(s, verb == "soin-complet", now, cues)
    elif verb == "repare":
        _repair(s, action.target, now, cues)
    elif verb == "nuit":
        if s.etat == BLESSE:                       # S9
            set_etat(s, PLEINE_FORME, now, cues)
        if s.in_combat():
            end_combat(s, now, cues)
    elif verb in ("stop", "reprise"):
        s.stopped = verb == "stop"
        cues.append((now, CUE_PLAY, s.play(), False))
    elif verb in ("hors-jeu", "en-jeu"):
        s.out_of_game = verb == "hors-jeu"
        cues.append((now, CUE_PLAY, s.play(), False))
    elif verb == "renommee":
        old = rank(s.renown)
        s.renown = min(MAX_RENOWN, max(0, s.renown + action.amount if action.target == "+"
                                       else action.amount))
        if rank(s.renown) != old:
            cues.append((now, CUE_RANK, rank(s.renown), False))
    else:
        raise ValueError("no rule for action %r" % verb)


def _heal(s, full, now, cues):
    if s.etat == MORT:                         # S6
        cues.append((now, CUE_IGNORED, "mort", True))
        return
    if s.etat == PLEINE_FORME:
        return
    was_down = s.etat >= AGONISANT
    if full or s.etat == BLESSE:               # S10
        target = PLEINE_FORME
    else:
        target = BLESSE if s.settings.soin_from_down == "blesse" else PLEINE_FORME
    set_etat(s, target, now, cues)
    if was_down:
        cues.append((now, CUE_FORGET, "-", True))   # S8: remembers nothing of it


def _repair(s, target, now, cues):
    if target == "armure":                     # A4, K7
        if s.armor_damaged or "armure" in s.broken:
            # Mended, not recharged: answers spent in this combat come back with the
            # next one (A1, A3), as for armor that only answered.
            s.armor_damaged = False
            cues.append((now, CUE_ARMOR, "reparee", False))
        else:
            cues.append((now, CUE_IGNORED, "pas-abimee", True))
    elif target in s.broken:                   # K7
        cues.append((now, CUE_REPAIRED, target, False))
    else:
        cues.append((now, CUE_IGNORED, "pas-brise", True))
    if target in s.broken:   # a new tuple: the one there is shared with other states
        broken = list(s.broken)
        broken.remove(target)
        s.broken = tuple(broken)


def dissipe(s, named, now, cues, tick):
    """K9: cancel the Coup/Effet just received (named or not), and end the named
    effect if it still runs (it may have run before, renewed or resisted). A dissipe
    is a keyword received: the combat goes on (C1). -> the new state. tick: the
    engine's."""
    done = False
    if s.before is not None and (named is None or named == s.last_kw):
        restored, fired = tick(s.before.copy(), now)
        cues.extend(fired)
        cues.append((now, CUE_DISPELLED, s.last_kw, False))
        if restored.etat != s.etat:   # the way back, its countdown as it was
            announce(s.etat, restored.etat, now, cues)
        restored.last_hit = s.last_hit
        s = restored
        done = True
    if named and named in s.effects():
        del s.timers[named]
        cues.append((now, CUE_END, named, False))
        done = True
    if not done:
        cues.append((now, CUE_IGNORED, "rien-a-dissiper", True))
    s.said = "-"
    s.answer = None
    s.before = None          # K9: nobody dissipates a dissipe
    s.last_kw = None
    start_combat(s, now, cues)
    return s
