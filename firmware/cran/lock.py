# The console's lock: console commands that change the game, and Ctrl-C (the REPL), are
# for the game's organisers, who prove it with the game key (/game.key, written by cran
# flash) without sending it: `challenge` gives a fresh random nonce, `unlock TAG` with
# TAG = HMAC(derive(key, b"console"), b"unlock:" + nonce) opens the console for
# _UNLOCK_MS. The proof's code (cran.auth) is loaded only to make or check one, and let go
# after: a badge in play keeps 32 bytes of key and this.
from cran.compat import forget
from cran.core.ticks import ticks_add, ticks_diff
from cran.core.vocab import const

KEY_BYTES = 32
_UNLOCK_MS = 60000       # the console stays open this long after an unlock
_NONCE_BYTES = const(16)
_AUTH = const(("cran.auth",))


def key_id(key):
    """8 hex digits naming a game key, so that a host knows which key a badge wants;
    they reveal nothing of it."""
    from cran.auth import derive
    from cran.tags import to_hex
    return to_hex(derive(key, b"id")[:4])


def unlock_tag(key, nonce):
    """The proof that answers the console's challenge: made by the organiser's tool,
    checked by the badge."""
    from cran.auth import derive, hmac_sha256
    return hmac_sha256(derive(key, b"console"), b"unlock:" + nonce)


def read_key(path):
    """The game key in the file at path -> (key, None); (None, None) when there is no
    file (a badge set up without one: its console is open); (None, problem) when the
    file is there but not a key (damaged: the console stays locked)."""
    try:
        with open(path, "rb") as f:
            key = f.read(KEY_BYTES + 1)
    except OSError as e:
        if e.args and e.args[0] == 2:   # ENOENT
            return None, None
        return None, "%s: unreadable (%s)" % (path, e)
    if len(key) != KEY_BYTES:
        return None, "%s: %d bytes, not a game key of %d" % (path, len(key), KEY_BYTES)
    return key, None


def locks(key, problem):
    """Whether a badge locks its console, by what read_key gave: no key file, open for
    good (a badge set up by hand); a key, or a file there but damaged, locked."""
    return key is not None or problem is not None


def set_interrupt(on):
    """Ctrl-C on the console stops the app (on), or is a byte like any other (off)."""
    import micropython  # here: the host tools import this module too, on CPython
    micropython.kbd_intr(3 if on else -1)


class ConsoleLock:
    """No key file: open for good (a badge set up by hand); a damaged one: locked for
    good (reflash it)."""
    _open_ms = _UNLOCK_MS

    def __init__(self, key, problem=None, set_interrupt=None):
        self.key = key
        self.problem = problem
        self._set_interrupt = set_interrupt   # set_interrupt(on): Ctrl-C stops the app
        self.nonce = None         # the challenge's, until its one answer
        self.open_until = None   # the tick the open window ends, while it is open
        self._tell(self.locks())

    def locks(self):
        return locks(self.key, self.problem)

    def is_open(self, now):
        if not self.locks():
            return True
        return self.open_until is not None and ticks_diff(self.open_until, now) > 0

    def tick(self, now):
        """Lock again once the window has passed (the app wakes for open_until)."""
        if self.open_until is not None and not self.is_open(now):
            self.open_until = None
            self._tell(True)

    # The unlock's steps are here, not in cran.auth (the start's: let go, as these are
    # with the console) or cran.tags (what a game with the radio keeps for its frames).

    def challenge(self):
        """-> the answer to `challenge`: a fresh nonce and the key's name (cran.auth
        names it, and goes)."""
        if self.problem is not None:
            return "error: game key damaged (%s): reflash the badge" % self.problem
        if self.key is None:
            return "open"
        import os

        from cran.tags import to_hex
        try:
            self.nonce = os.urandom(_NONCE_BYTES)
            return "challenge %s %s" % (to_hex(self.nonce), key_id(self.key))
        finally:
            forget(_AUTH)

    def unlock(self, tag_hex, now):
        """-> the answer to `unlock TAG`; the console opens if TAG is right. One answer
        per nonce, right or wrong (cran.auth checks it, and goes)."""
        if not self.locks():
            return "ok open"
        nonce, self.nonce = self.nonce, None
        if nonce is None:
            return "error: no challenge to answer: send `challenge` first"
        from cran.auth import from_hex
        from cran.tags import same
        try:
            tag = from_hex(tag_hex.strip())
            if tag is None or not same(tag, unlock_tag(self.key, nonce)):
                return "error: unlock refused (a new `challenge` for another try)"
        finally:
            del from_hex   # (it keeps its module's globals: all of it, past forget)
            forget(_AUTH)
        self.opened(now)
        return "ok unlocked %d" % (self._open_ms // 1000)

    def close(self):
        """Lock again now (`lock`: an organiser's tool is done)."""
        if self.open_until is not None:
            self.open_until = None
            self._tell(True)

    def opened(self, now):
        self.open_until = ticks_add(now, self._open_ms)
        self._tell(False)

    def _tell(self, locked):
        if self._set_interrupt is not None:
            self._set_interrupt(not locked)
