# A State as plain data, for storage and the console: timers as milliseconds left,
# never raw ticks (a tick count means nothing after a reboot). Pure, like the engine.
# The way back (from_record) is read at boot only: it is in cran.start.restore.

import binascii

from cran.core.ticks import ticks_diff
from cran.core.vocab import ARMOR_DAMAGED, STATES

RECORD_VERSION = 1
# A record as a file: b"cran-state <FORMAT_VERSION> <seq> <body length> <crc32 hex>\n"
# and the JSON body (cran.storage writes it, cran.records reads it back).
FORMAT_VERSION = 1
MAGIC = "cran-state"
# A state record is 250-600 bytes; a bigger file is garbage, and reading it whole would
# take a block of the badge's heap it may not have.
MAX_RECORD_BYTES = 8192
LONG_AGO_MS = (1 << 29) - 1     # C2 only cares about the last few hundred ms


def to_record(state, now):
    """State -> dict of plain values (JSON-ready), K9's snapshot of the state before
    the action just received included, so a badge restarted is the badge it was."""
    timers = {}
    for name in state.timers:
        timers[name] = state.left_ms(name, now)
    ago = None
    if state.last_hit is not None:
        ago = ticks_diff(now, state.last_hit)
        if not 0 <= ago < LONG_AGO_MS:   # below 0: its tick has come round again (C2)
            ago = LONG_AGO_MS
    return {
        "v": RECORD_VERSION,
        "etat": STATES[state.etat],
        "timers": timers,
        "stopped": state.stopped,
        "out_of_game": state.out_of_game,
        "armor_left": state.armor_left,
        ARMOR_DAMAGED: state.armor_damaged,
        "creature_left": state.creature_left,
        "brises": sorted(state.broken),   # the status' words, as armure-abimee
        "dit": state.said,
        "renommee": state.renown,
        "hit_ago_ms": ago,
        "last_kw": state.last_kw,
        "before": None if state.before is None else to_record(state.before, now),
    }


def record_crc(prefix, body):
    # The header's own fields are covered too: a flipped digit in the sequence
    # number must not let a stale copy win.
    return binascii.crc32(body, binascii.crc32(prefix.encode())) & 0xFFFFFFFF
