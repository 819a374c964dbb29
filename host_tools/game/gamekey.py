# Game keys on the organiser's computer. A game's key is in its settings file
# ("game_key", made by `cran config --settings-template`) and beside the configs
# `cran config` writes (game.key); a badge flashed without one gets this computer's own
# key, made once. Every key cran flash installs is remembered here (the key ring, in the
# user's cran folder), so this computer unlocks the badges it flashed, and nobody else's
# does. Badges only ever see proofs made with a key (cran.auth), never the key itself.
import os
import secrets
import threading

from cran import lock
from cran.lock import KEY_BYTES, key_id
from cran.tags import to_hex
from host_tools import CommandError

KEY_FILE = "game.key"       # beside a config (cran config --out), and on the badge
_OWN = "own.key"


def cran_home():
    """The user's cran folder: $CRAN_HOME, else the platform's config folder."""
    home = os.environ.get("CRAN_HOME")
    if home:
        return home
    if os.name == "nt" and os.environ.get("APPDATA"):
        return os.path.join(os.environ["APPDATA"], "cran")
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"),
                                                              ".config")
    return os.path.join(base, "cran")


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


def write_private(path, text):
    """text as the whole of path, in the user's cran folder: readable by the user
    alone, written to a temp file then renamed (a cut leaves the old file or the new)."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    # A temp name of its own: cran flash's threads (a badge each) may write at once.
    temp = "%s.%d-%d.tmp" % (path, os.getpid(), threading.get_ident())
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(text)
    os.replace(temp, path)


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
