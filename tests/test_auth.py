# The game key (cran.auth, cran.lock): HMAC-SHA256 against RFC 4231's vectors in both runtimes, the
# console's lock (challenge-response, one answer per nonce, a window that closes on its
# own across the tick wrap), and the whole badge locked in the MicroPython unix port,
# its challenges answered by the stdlib's own hmac.
import hashlib
import hmac
import json
import os
import subprocess

import pytest

from conftest import WRAP_START
from cran.auth import derive, from_hex, hmac_sha256
from cran.console import LOCKED
from cran.core.ticks import ticks_add
from cran.lock import _UNLOCK_MS as UNLOCK_MS
from cran.lock import ConsoleLock, key_id
from cran.tags import same
from host_tools import FIRMWARE_DIR, CommandError
from host_tools.boards import BOARDS_DIR
from host_tools.game import gamekey
from host_tools.virtual.micropython import sys_path

MP = os.path.join(os.path.dirname(os.path.abspath(__file__)), "mp")

# RFC 4231, section 4: (key, data, HMAC-SHA-256). Case 5 (a truncated output) is left
# out: the tags here are never truncated.
RFC4231 = [
    ("0b" * 20, b"Hi There".hex(),
     "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"),
    (b"Jefe".hex(), b"what do ya want for nothing?".hex(),
     "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"),
    ("aa" * 20, "dd" * 50,
     "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe"),
    ("0102030405060708090a0b0c0d0e0f10111213141516171819", "cd" * 50,
     "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b"),
    ("aa" * 131, b"Test Using Larger Than Block-Size Key - Hash Key First".hex(),
     "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"),
    ("aa" * 131, (b"This is a test using a larger than block-size key and a larger than "
                  b"block-size data. The key needs to be hashed before being used by the "
                  b"HMAC algorithm.").hex(),
     "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2"),
]
KEY = bytes(range(32))


def test_hmac_matches_rfc_4231_and_the_stdlib():
    for key, data, expected in RFC4231:
        key, data = bytes.fromhex(key), bytes.fromhex(data)
        assert hmac_sha256(key, data).hex() == expected
        assert hmac.new(key, data, hashlib.sha256).hexdigest() == expected


def test_hmac_matches_rfc_4231_in_micropython(micropython):
    code = ("import sys, json\nsys.path.insert(0, %r)\nfrom cran.auth import "
            "hmac_sha256, from_hex\nfrom cran.tags import to_hex\n"
            "print(json.dumps([to_hex(hmac_sha256(from_hex(k), "
            "from_hex(d))) for k, d in %r]))" % (FIRMWARE_DIR, [v[:2] for v in RFC4231]))
    out = subprocess.run([micropython, "-c", code], capture_output=True, text=True,
                         timeout=30)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout) == [v[2] for v in RFC4231]


def test_same_compares_everything():
    assert same(b"abc", b"abc") and not same(b"abc", b"abd") and not same(b"abc", b"ab")
    assert not same(b"\x00" * 32, b"\x00" * 31 + b"\x01")
    assert from_hex("0aFf") == b"\x0a\xff" and from_hex("abc") is None
    assert from_hex("zz") is None
    # ASCII hex digits only, as bytes.fromhex: no sign, space or other script's digits.
    assert [from_hex(t) for t in ("+1", " a", "a ", "\u0660\u0661", "-0")] == [None] * 5


def _tag(key, nonce_hex):
    # Made as an organiser's tool would, with the stdlib: not with cran.auth.
    console_key = hmac.new(key, b"cran console", hashlib.sha256).digest()
    return hmac.new(console_key, b"unlock:" + bytes.fromhex(nonce_hex),
                    hashlib.sha256).hexdigest()


class Interrupt:
    def __init__(self):
        self.said = []

    def __call__(self, on):
        self.said.append(on)


def test_unlock_opens_for_a_while_and_locks_again_across_the_wrap():
    ctrl_c = Interrupt()
    lock = ConsoleLock(KEY, None, ctrl_c)
    assert ctrl_c.said == [False] and not lock.is_open(0)
    words = lock.challenge().split()
    assert words[0] == "challenge" and len(words[1]) == 32 and words[2] == key_id(KEY)
    now = WRAP_START
    assert lock.unlock(_tag(KEY, words[1]), now) == "ok unlocked %d" % (UNLOCK_MS // 1000)
    assert ctrl_c.said == [False, True] and lock.is_open(now)
    later = ticks_add(now, UNLOCK_MS - 1)   # past the tick wrap
    lock.tick(later)
    assert lock.is_open(later) and ctrl_c.said[-1] is True
    closed = ticks_add(now, UNLOCK_MS)
    lock.tick(closed)
    assert not lock.is_open(closed) and lock.open_until is None
    assert ctrl_c.said[-1] is False


def test_a_nonce_takes_one_answer_and_a_wrong_one_opens_nothing():
    lock = ConsoleLock(KEY)
    nonce = lock.challenge().split()[1]
    assert lock.unlock("00" * 32, 0).startswith("error: unlock refused")
    # The right answer, too late: that nonce is spent.
    assert lock.unlock(_tag(KEY, nonce), 0).startswith("error: no challenge")
    assert not lock.is_open(0)
    # A tag for one nonce opens nothing under the next one (a replayed unlock).
    first = lock.challenge().split()[1]
    assert lock.unlock(_tag(KEY, first), 0).startswith("ok unlocked")
    lock.tick(UNLOCK_MS)
    lock.challenge()
    assert lock.unlock(_tag(KEY, first), UNLOCK_MS).startswith("error: unlock refused")
    # Another game's key, garbage, nothing: refused, never a crash.
    for answer in (_tag(bytes(32), lock.challenge().split()[1]), "zz", "", "0" * 500):
        lock.challenge()
        assert lock.unlock(answer, UNLOCK_MS).startswith("error: unlock refused")
    assert not lock.is_open(UNLOCK_MS)


def test_no_key_is_open_and_a_damaged_key_locks_for_good():
    ctrl_c = Interrupt()
    open_lock = ConsoleLock(None, None, ctrl_c)
    assert open_lock.is_open(0) and open_lock.challenge() == "open" and ctrl_c.said == [True]
    broken = ConsoleLock(None, "/game.key: 7 bytes, not a game key of 32")
    assert not broken.is_open(0)
    assert broken.challenge().startswith("error: game key damaged")
    assert broken.unlock("00" * 32, 0).startswith("error: no challenge")


def test_derived_keys_differ_by_use():
    assert derive(KEY, b"console") != derive(KEY, b"radio") != KEY
    assert len(key_id(KEY)) == 8 and key_id(KEY) != key_id(bytes(32))


# ---- the whole badge, locked, in the MicroPython unix port ----------------------------

class LockedBadge:
    def __init__(self, micropython, flash, key):
        self.proc = subprocess.Popen(
            [micropython, os.path.join(MP, "lock_driver.py"), FIRMWARE_DIR, BOARDS_DIR,
             str(flash), *sys_path("micropython"), key.hex() if key else ""],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self.booted = self._read()

    def _read(self):
        line = self.proc.stdout.readline()
        assert line, "the driver ended"
        return json.loads(line)

    def line(self, text):
        self.proc.stdin.write(json.dumps({"line": text}) + "\n")
        self.proc.stdin.flush()
        return self._read()

    def advance(self, ms):
        self.proc.stdin.write(json.dumps({"advance": ms}) + "\n")
        self.proc.stdin.flush()
        return self._read()

    def close(self):
        self.proc.stdin.close()
        assert self.proc.wait(10) == 0


@pytest.fixture
def locked(micropython, tmp_path):
    badge = LockedBadge(micropython, tmp_path, KEY)
    yield badge
    badge.close()


def test_a_keyed_badge_reads_freely_and_changes_nothing_until_unlocked(locked):
    assert locked.booted["ctrl_c"] is False   # Ctrl-C is a byte: no REPL for a player
    status = json.loads(locked.line("status")["answer"][0])
    assert status["etat"] == "pleine-forme"
    assert KEY.hex() not in json.dumps(status)
    for refused in ("coup", "soin", "renommee +3", "clock 1800000000", "config", "reboot",
                    "reset"):
        said = locked.line(refused)
        assert said["answer"] == [LOCKED] and not said["reboot"], refused
    assert json.loads(locked.line("status")["answer"][0])["etat"] == "pleine-forme"
    journal = locked.line("journal")["answer"]
    assert journal and KEY.hex() not in "".join(journal)

    said = locked.line("challenge")
    nonce = said["answer"][0].split()[1]
    assert said["auth_loaded"] is False   # the proof's code is let go after each use
    said = locked.line("unlock " + _tag(KEY, nonce))
    assert said["answer"] == ["ok unlocked %d" % (UNLOCK_MS // 1000)]
    assert said["ctrl_c"] is True   # an organiser's tool may now stop the app
    assert said["auth_loaded"] is False
    assert locked.line("coup")["answer"][0].startswith("ok coup normal: etat=blesse")
    assert "board" in json.loads(locked.line("config")["answer"][0])
    # The window closes on time: the app wakes for it, Ctrl-C is a byte again.
    said = locked.advance(UNLOCK_MS)
    assert said["ctrl_c"] is False
    assert locked.line("coup")["answer"] == [LOCKED]
    # An organiser's tool, done, locks it again at once.
    nonce = locked.line("challenge")["answer"][0].split()[1]
    assert locked.line("unlock " + _tag(KEY, nonce))["ctrl_c"] is True
    said = locked.line("lock")
    assert said["answer"] == ["ok locked"] and said["ctrl_c"] is False
    assert locked.line("coup")["answer"] == [LOCKED]
    # An organiser's reboot (how safe mode ends, too).
    nonce = locked.line("challenge")["answer"][0].split()[1]
    locked.line("unlock " + _tag(KEY, nonce))
    assert locked.line("reboot") == {"answer": ["ok reboot"], "ctrl_c": True,
                                     "reboot": True, "auth_loaded": False}


def test_a_badge_without_a_key_file_is_open(micropython, tmp_path):
    badge = LockedBadge(micropython, tmp_path, None)
    assert badge.booted["ctrl_c"] is True
    assert badge.line("challenge")["answer"] == ["open"]
    assert badge.line("coup")["answer"][0].startswith("ok coup normal")
    badge.close()


# ---- the organiser's side ---------------------------------------------------------------

def test_own_key_is_made_once_and_kept_private(tmp_path, monkeypatch):
    monkeypatch.setenv("CRAN_HOME", str(tmp_path / "home"))
    key = gamekey.own_key()
    assert len(key) == 32 and gamekey.own_key() == key
    path = tmp_path / "home" / "keys" / "own.key"
    assert path.read_text().strip() == key.hex()
    if os.name == "posix":
        assert path.stat().st_mode & 0o077 == 0
    assert gamekey.find(key_id(key)) == key
    other = gamekey.new_key()
    assert gamekey.find(key_id(other)) is None
    assert gamekey.find(key_id(other), [other]) == other
    gamekey.remember(other)
    assert gamekey.find(key_id(other)) == other


def test_a_key_file_that_is_not_a_key_is_named(tmp_path):
    bad = tmp_path / "game.key"
    bad.write_text("not hex")
    with pytest.raises(CommandError, match="game.key: a game key is 64 hex digits"):
        gamekey.read_key_file(str(bad))
    assert gamekey.unlock_tag(KEY, b"\x01" * 16) == _tag(KEY, "01" * 16)
