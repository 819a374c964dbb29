# Game keys on the organiser's computer. A game's key is in its settings file
# ("game_key", made by `cran config --settings-template`) and beside the configs
# `cran config` writes (game.key); a badge flashed without one gets this computer's own
# key, made once. Every key cran flash installs is remembered here (the key ring, in the
# user's cran folder), so this computer unlocks the badges it flashed, and nobody else's
# does. Badges only ever see proofs made with a key (cran.auth), never the key itself.
import os
import secrets

from cran import lock
from cran.lock import KEY_BYTES, key_id
from cran.tags import to_hex
from host_tools import CommandError
from host_tools.home import cran_home, write_private

KEY_FILE = "game.key"       # beside a config (cran config --out), and on the badge
_OWN = "own.key"


def new_key():
    return secrets.token_bytes(KEY_BYTES)


def parse_key(text, where):
    """A key as written in a file (64 hex digits) -> bytes; CommandError naming where."""
    text = text.strip()
    try:
        key = bytes.fromhex(text)
    except ValueError:
        key = b""
    if len(key) != KEY_BYTES:
        raise CommandError("%s: a game key is %d hex digits (cran config "
                           "--settings-template makes one)" % (where, 2 * KEY_BYTES))
    return key


def read_key_file(path):
    with open(path, encoding="ascii", errors="replace") as f:
        return parse_key(f.read(), path)


def _ring():
    return os.path.join(cran_home(), "keys")


def write_key_file(path, key):
    write_private(path, to_hex(key) + "\n")


def own_key():
    """This computer's own key, made the first time it is asked for."""
    path = os.path.join(_ring(), _OWN)
    if not os.path.exists(path):
        write_key_file(path, new_key())
    return read_key_file(path)


def remember(key):
    """Keep a key in the ring (cran flash does, for each key it installs)."""
    path = os.path.join(_ring(), key_id(key) + ".key")
    if not os.path.exists(path):
        write_key_file(path, key)


def find(wanted_id, extra=()):
    """The key named wanted_id (cran.lock.key_id) among extra and the ring, or None."""
    for key in extra:
        if key_id(key) == wanted_id:
            return key
    ring = _ring()
    names = sorted(os.listdir(ring)) if os.path.isdir(ring) else []
    for name in names:
        if name.endswith(".key"):
            try:
                key = read_key_file(os.path.join(ring, name))
            except (OSError, CommandError):
                continue
            if key_id(key) == wanted_id:
                return key
    return None


def unlock_tag(key, nonce):
    """The answer to a badge's challenge (cran.lock.ConsoleLock.unlock)."""
    return to_hex(lock.unlock_tag(key, nonce))
