# An authority's token checked (cran.radio.Listener.open): rare in a game (a game
# master's command, a healer's offer), so loaded for it and let go after (a long
# check's, once it ends: cran.radio.link). A check too long for one step: a key holder
# can claim the chain's far end, ~4,000 hashes, a second of an ESP32, and a badge that
# missed many commands needs as many. Put aside here and stepped by CHECK_STEPS hashes
# a step (cran.radio.link), the show loop running between, one at a time.
from cran.tags import same


def spend(listener, entry, index, token, frame, rssi, step):
    """Token `index` of a sender whose last token accepted is entry's (cran.radio.
    Listener's authorities; index after it, within the chain) is accepted if hashing it
    (index - last) times with step (the chain's, cran.radio.chain_step) gives that one:
    then it is the new last, and every token before it is spent. -> True (spent), False
    (not a token of the chain), None (a long check: put aside, or dropped as busy)."""
    steps = index - entry[1]
    if steps > listener.check_steps:
        if listener.proven != (token, entry[2]):   # (not proven by its long check)
            return put_aside(listener, frame, rssi, token, steps, entry[2])
    else:
        x = token
        for _ in range(steps):
            x = step(x)
        if not same(x, entry[2]):
            return False
    listener.proven = None
    entry[1], entry[2] = index, token
    return True


def put_aside(listener, frame, rssi, token, steps, target):
    """A token steps from the last one accepted (target), put aside for resume(); the
    one with fewer steps goes first (a genuine command, a few steps, before a forger's
    thousands), the other dropped as busy. -> None"""
    checking = listener.checking
    if checking is not None and checking[4] <= steps:
        return listener.drop("busy")
    if checking is not None:
        listener.drop("busy")   # the one put aside, for this shorter one
    listener.checking = [bytes(frame), rssi, token, token, steps, target]
    return None


def resume(listener, step):
    """The check put aside, stepped by at most listener.check_steps hashes of step (the
    chain's, cran.radio.chain_step). -> (frame, rssi) once its token came out right:
    listener.open(frame, rssi) again then takes it without hashing; None while it goes
    on, or when it failed (a "token" drop)."""
    checking = listener.checking
    steps = min(checking[4], listener.check_steps)
    x = checking[3]
    for _ in range(steps):
        x = step(x)
    checking[3] = x
    checking[4] -= steps
    if checking[4]:
        return None
    listener.checking = None
    if not same(x, checking[5]):
        return listener.token_failed(checking[0])
    listener.proven = (checking[2], checking[5])
    return checking[0], checking[1]
