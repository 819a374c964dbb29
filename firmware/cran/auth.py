# The game key: one secret per game, on every badge (/game.key, written by cran flash)
# and with the game's organisers. What it proves: that a console command comes from an
# organiser (ConsoleLock, a challenge-response: the key itself never crosses the wire),
# and later the radio's frames. Each use gets a key of its own (derive), so a proof made
# for one use is worth nothing in another.
import hashlib
import os

from cran.core.ticks import ticks_add, ticks_diff

KEY_BYTES = 32
UNLOCK_MS = 60000        # the console stays open this long after an unlock
_BLOCK = 64              # SHA-256's block size, which HMAC pads the key to
_NONCE_BYTES = 16


def hmac_sha256(key, message):
    """HMAC-SHA256 (RFC 2104): MicroPython has hashlib.sha256 but no hmac module."""
    if len(key) > _BLOCK:
        key = hashlib.sha256(key).digest()
    key = key + bytes(_BLOCK - len(key))
    inner = hashlib.sha256(bytes([b ^ 0x36 for b in key]))
    inner.update(message)
    outer = hashlib.sha256(bytes([b ^ 0x5C for b in key]))
    outer.update(inner.digest())
    return outer.digest()


def same(a, b):
    """a == b in a time that does not depend on where they differ: a tag compared byte
    by byte, stopping at the first wrong one, would tell a forger how much was right."""
    if len(a) != len(b):
        return False
    diff = 0
    for i in range(len(a)):
        diff |= a[i] ^ b[i]
    return diff == 0


def derive(key, purpose):
    """The key for one use of the game key (b"console", b"radio", b"id")."""
    return hmac_sha256(key, b"cran " + purpose)


def key_id(key):
    """8 hex digits naming a game key, so that a host knows which key a badge wants;
    they reveal nothing of it."""
    return to_hex(derive(key, b"id")[:4])


def to_hex(data):
    return "".join(["%02x" % b for b in data])


def from_hex(text):
    """Hex text -> bytes, or None when it is not an even number of hex digits."""
    if len(text) % 2:
        return None
    try:
        return bytes([int(text[i:i + 2], 16) for i in range(0, len(text), 2)])
    except ValueError:
        return None


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


def set_interrupt(on):
    """Ctrl-C on the console stops the app (on), or is a byte like any other (off)."""
    import micropython  # here: the host tools import this module too, on CPython
    micropython.kbd_intr(3 if on else -1)


class ConsoleLock:
    """Console commands that change the game, and Ctrl-C (the REPL), are for the game's
    organisers. `challenge` gives a fresh random nonce; `unlock TAG` with TAG =
    HMAC(derive(key, b"console"), b"unlock:" + nonce) opens the console for UNLOCK_MS.
    One answer per nonce, right or wrong. No key file: open for good (a badge set up by
    hand); a damaged one: locked for good (reflash it)."""

    def __init__(self, key, problem=None, set_interrupt=None):
        self._key = None if key is None else derive(key, b"console")
        self.key_id = None if key is None else key_id(key)
        self.problem = problem
        self._set_interrupt = set_interrupt   # set_interrupt(on): Ctrl-C stops the app
        self._nonce = None
        self.open_until = None   # the tick the open window ends, while it is open
        self._tell(self.locks())

    def locks(self):
        return self._key is not None or self.problem is not None

    def is_open(self, now):
        if not self.locks():
            return True
        return self.open_until is not None and ticks_diff(self.open_until, now) > 0

    def tick(self, now):
        """Lock again once the window has passed (the app wakes for open_until)."""
        if self.open_until is not None and not self.is_open(now):
            self.open_until = None
            self._tell(True)

    def challenge(self):
        if self.problem is not None:
            return "error: game key damaged (%s): reflash the badge" % self.problem
        if self._key is None:
            return "open"
        self._nonce = os.urandom(_NONCE_BYTES)
        return "challenge %s %s" % (to_hex(self._nonce), self.key_id)

    def unlock(self, tag_hex, now):
        if not self.locks():
            return "ok open"
        nonce, self._nonce = self._nonce, None   # spent, right or wrong
        if nonce is None:
            return "error: no challenge to answer: send `challenge` first"
        tag = from_hex(tag_hex.strip())
        if tag is None or not same(tag, hmac_sha256(self._key, b"unlock:" + nonce)):
            return "error: unlock refused (a new `challenge` for another try)"
        self.open_until = ticks_add(now, UNLOCK_MS)
        self._tell(False)
        return "ok unlocked %d" % (UNLOCK_MS // 1000)

    def _tell(self, locked):
        if self._set_interrupt is not None:
            self._set_interrupt(not locked)
