# Proofs made with the game key (one secret per game, on every badge and with the
# organisers): HMAC-SHA256, and a key of its own for each use (derive), so a proof made
# for one use is worth nothing in another. Keys are made here, at the start (the radio's,
# cran.radio.Keys) or for an unlock (cran.lock), and this module is let go after: what
# checks a frame's tag on every frame heard is cran.tags, all a radio game keeps.
import hashlib

from cran.core.vocab import const
from cran.tags import hmac_with

_BLOCK = const(64)              # SHA-256's block size, which HMAC pads the key to


def hmac_sha256(key, message):
    """HMAC-SHA256 (RFC 2104): MicroPython has hashlib.sha256 but no hmac module."""
    return hmac_with(hmac_pads(key), message)


def hmac_pads(key):
    """HMAC's inner and outer padded keys: made once for a key that tags many messages
    (the radio's), they save two 64-byte buffers and their loops a message."""
    if len(key) > _BLOCK:
        key = hashlib.sha256(key).digest()
    key = key + bytes(_BLOCK - len(key))
    return bytes([b ^ 0x36 for b in key]), bytes([b ^ 0x5C for b in key])


def derive(key, purpose):
    """The key for one use of the game key (b"console", b"radio", b"id")."""
    return hmac_sha256(key, b"cran " + purpose)


def from_hex(text):
    """Hex text -> bytes, or None when it is not an even number of ASCII hex digits (int()
    alone would take a sign, spaces, and on CPython digits beyond ASCII)."""
    raw = text.encode()
    if len(raw) % 2:
        return None
    for b in raw:
        if not (48 <= b <= 57 or 65 <= b <= 70 or 97 <= b <= 102):
            return None
    return bytes([int(text[i:i + 2], 16) for i in range(0, len(text), 2)])
