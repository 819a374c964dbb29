# Inside MicroPython: cran.storage on LittleFS (os.VfsLfs2) in a RAM flash that behaves
# like NOR flash and can lose power at any program or erase. Reads cases, one JSON line
# each ({"id", "cmds"}), from stdin; prints {"id", "results"} per case. The plain file
# commands also run under CPython on a directory (run_case with rig=None).
import binascii
import json
import os
import sys

if __name__ == "__main__":
    sys.path.insert(0, sys.argv[1])

from cran.storage import Journal, StateStore  # noqa: E402

BLOCK_SIZE = 512
BLOCK_COUNT = 128
MOUNT = "/flash"
_EIO = 5


class RamFlash:
    """Erase sets a block to 0xFF; a program can only clear bits, as on the badge's
    flash, so a program without its erase shows up as corruption. After cut_after(n),
    n more program/erase operations go through; the next one is lost (torn: half done)
    and the chip is dead from then on: every change fails with EIO, changing nothing."""

    def __init__(self, data):
        self.data = data
        self.ops = 0            # program + erase operations done
        self.left = None        # operations until the power cut; None: no cut coming
        self.torn = False
        self.dead = False

    def cut_after(self, n, torn=False):
        self.left = n
        self.torn = torn

    def _allowed(self):
        # -> True: do it all; False: do nothing; None: do half (the torn one).
        if self.dead:
            return False
        if self.left is not None:
            if self.left == 0:
                self.dead = True
                return None if self.torn else False
            self.left -= 1
        self.ops += 1
        return True

    def readblocks(self, n, buf, off=0):
        start = n * BLOCK_SIZE + off
        buf[:] = memoryview(self.data)[start:start + len(buf)]

    def writeblocks(self, n, buf, off=0):
        go = self._allowed()
        if go is False:
            return -_EIO
        start = n * BLOCK_SIZE + off
        size = len(buf) if go else len(buf) // 2
        end = start + size
        # AND, not copy: programming turns bits 1 -> 0 only.
        bits = int.from_bytes(self.data[start:end], "big") & int.from_bytes(buf[:size], "big")
        self.data[start:end] = bits.to_bytes(size, "big")
        return None if go else -_EIO

    def ioctl(self, op, arg):
        if op == 4:
            return len(self.data) // BLOCK_SIZE
        if op == 5:
            return BLOCK_SIZE
        if op == 6:
            go = self._allowed()
            if go is False:
                return -_EIO
            start = arg * BLOCK_SIZE
            size = BLOCK_SIZE if go else BLOCK_SIZE // 2
            self.data[start:start + size] = b"\xff" * size
            return 0 if go else -_EIO
        return 0


class Rig:
    """The RAM flash formatted with LittleFS and mounted at MOUNT, and its reboots.
    One bytearray is the chip for a whole case: allocating 64 KB per power cut would
    fragment MicroPython's heap past use."""

    def __init__(self, data=None):
        if data is None:
            data = bytearray(b"\xff" * (BLOCK_SIZE * BLOCK_COUNT))
            os.VfsLfs2.mkfs(RamFlash(data))
        self.dev = RamFlash(data)
        os.mount(os.VfsLfs2(self.dev), MOUNT)

    def unmount(self):
        os.umount(MOUNT)

    def reboot(self):
        """Power back on: the same chip, as the cut left it, mounted afresh.
        -> None, or the mount error as text."""
        self.unmount()
        self.dev = RamFlash(self.dev.data)
        try:
            os.mount(os.VfsLfs2(self.dev), MOUNT)
        except OSError as e:
            return "mount failed: %s" % e
        return None


def _ls(directory):
    out = {}
    for name in os.listdir(directory):
        out[name] = os.stat(directory + "/" + name)[6]
    return out


def _read(path):
    with open(path, "rb") as f:
        return f.read()


def _write(path, data, mode="wb"):
    with open(path, mode) as f:
        f.write(data)


def _attempt(do, *args):
    try:
        do(*args)
    except (OSError, ValueError) as e:
        return "%s: %s" % (type(e).__name__, e)
    return "ok"


class Case:
    def __init__(self, directory, rig=None):
        self.directory = directory
        self.rig = rig
        self.journal_bytes = 16384
        self.base = None        # the flash before the change a sweep cuts short
        self.boot()

    def boot(self):
        self.store = StateStore(self.directory)
        self.journal = Journal(self.directory, self.journal_bytes)

    def path(self, name):
        return self.directory + "/" + name

    # ---- commands: name(args) -> a JSON-ready result ---------------------------------

    def do_save(self, payload):
        return _attempt(self.store.save, payload)

    def do_load(self):
        return _loaded(self.store)

    def do_reboot(self):
        error = self.rig.reboot() if self.rig else None
        self.boot()
        return error or "ok"

    def do_ls(self):
        return _ls(self.directory)

    def do_read(self, name):
        return _read(self.path(name)).decode()

    def do_put(self, name, text):
        _write(self.path(name), text.encode())
        return "ok"

    def do_puthex(self, name, hex_text):
        _write(self.path(name), binascii.unhexlify(hex_text))
        return "ok"

    def do_edit(self, name, old, new):
        # Replace the first `old` with `new` (same length: a few flipped bits).
        data = _read(self.path(name))
        at = data.find(old.encode())
        if at < 0:
            return "not found"
        _write(self.path(name), data[:at] + new.encode() + data[at + len(old):])
        return "ok"

    def do_append(self, name, text):
        _write(self.path(name), text.encode(), "ab")
        return "ok"

    def do_flip(self, name, offset):
        # One corrupted byte; a negative offset counts from the end.
        data = bytearray(_read(self.path(name)))
        data[offset] ^= 0x20
        _write(self.path(name), data)
        return "ok"

    def do_truncate(self, name, keep):
        data = _read(self.path(name))
        _write(self.path(name), data[:keep])
        return "ok"

    def do_remove(self, name):
        os.remove(self.path(name))
        return "ok"

    def do_journal(self, max_bytes):
        self.journal_bytes = max_bytes
        self.boot()
        return "ok"

    def do_jappend(self, entry):
        return _attempt(self.journal.append, entry)

    def do_jentries(self):
        return [self.journal.entries(), self.journal.problems]

    # ---- flash failures and power cuts (LittleFS only) -------------------------------

    def do_glitch(self, n, torn):
        # The flash fails from its n-th next program/erase on, until healed; no reboot.
        self.rig.dev.cut_after(n, torn)
        return "ok"

    def do_heal(self):
        self.rig.dev.dead = False
        self.rig.dev.left = None
        return "ok"

    def do_cut_saves(self, payloads, after, torn):
        """Save each payload in turn; before each real save, replay it from the same
        flash bytes once per program/erase operation it makes, with the power cut at
        that operation, then reboot, load, save `after`, reboot and load again."""
        saves = []
        for payload in payloads:
            saves.append(self._sweep(torn, _booted_store, _save, payload, after, _loaded))
            self.store.save(payload)
        return saves

    def do_cut_appends(self, entries, torn):
        """The same sweep for journal appends: the entries seen after each cut, then
        after one more append ({"i": "after"}) once rebooted."""
        appends = []
        for entry in entries:
            appends.append(self._sweep(torn, self._booted_journal, _append, entry,
                                       {"i": "after"}, _seen))
            self.journal.append(entry)
        return appends

    def _booted_journal(self):
        return Journal(MOUNT, self.journal_bytes)

    def _sweep(self, torn, make, change, arg, after, look):
        # Cut at operation n = 0, 1, ... until a run finishes before its cut comes.
        chip = self.rig.dev.data
        if self.base is None:
            self.base = bytearray(len(chip))
        self.base[:] = chip
        self.rig.unmount()
        points = []
        n = 0
        while True:
            chip[:] = self.base
            rig = Rig(chip)
            thing = make()
            rig.dev.cut_after(n, torn)
            point = {"n": n, "error": _attempt(change, thing, arg)}
            finished = not rig.dev.dead
            point["mount"] = rig.reboot()
            if point["mount"] is None:
                point["seen"] = look(make())
                point["files"] = _ls(MOUNT)
                point["then_error"] = _attempt(change, make(), after)
                point["then_mount"] = rig.reboot()
                if point["then_mount"] is None:
                    point["then"] = look(make())
                    point["then_files"] = _ls(MOUNT)
                    rig.unmount()
            points.append(point)
            if finished:
                break
            n += 1
        chip[:] = self.base
        self.rig = Rig(chip)
        self.boot()
        return {"ops": n, "points": points}


def _booted_store():
    store = StateStore(MOUNT)
    store.load()        # as at boot: the badge loads before it saves
    return store


def _save(store, payload):
    store.save(payload)


def _append(journal, entry):
    journal.append(entry)


def _loaded(store):
    record, problems = store.load()
    return [record, [list(p) for p in problems]]   # (code, line)s, as JSON has them


def _seen(journal):
    return [[e.get("i") for e in journal.entries()], journal.problems]


def run_case(cmds, directory, rig=None):
    case = Case(directory, rig)
    results = []
    for cmd in cmds:
        results.append(getattr(case, "do_" + cmd[0])(*cmd[1:]))
    return results


def main():
    for line in sys.stdin:
        if not line.strip():
            continue
        case = json.loads(line)
        rig = Rig()
        try:
            # json.dump streams: one string of a whole sweep would not fit the heap.
            json.dump({"id": case["id"], "results": run_case(case["cmds"], MOUNT, rig)},
                      sys.stdout)
            print()
        except Exception as e:  # one broken case must not hide the others
            print(json.dumps({"id": case["id"], "crash": "%s: %s" % (type(e).__name__, e)}))
        try:
            os.umount(MOUNT)
        except OSError:
            pass        # the case left it unmounted (a failed mount after a cut)


if __name__ == "__main__":
    main()
