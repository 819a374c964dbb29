# A radio frame's tag checked, on every frame a badge hears (cran.radio): HMAC-SHA256
# with its key's two padded halves made once (cran.auth.hmac_pads), compared in a time
# that tells a forger nothing; and ids as hex. All a radio game keeps of its proofs'
# code: the keys are made at the start (cran.auth), which is let go then.
import hashlib


def hmac_with(pads, message):
    """HMAC-SHA256 of message under a key's padded halves (cran.auth.hmac_pads)."""
    inner = hashlib.sha256(pads[0])
    inner.update(message)
    outer = hashlib.sha256(pads[1])
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


def to_hex(data):
    return "".join(["%02x" % b for b in data])
