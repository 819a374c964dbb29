# Damaged flash, inside MicroPython: a badge played on LittleFS (os.VfsLfs2, 4 KB blocks
# as an ESP32's) with its state's copy in the virtual esp32.NVS; then, one at a time,
# every bit of the image's first two blocks (the superblock and root directory pair:
# state.a, state.b, the journal, the config) flipped, and the badge booted on it.
#   micropython flip_driver.py FIRMWARE_DIR VHW_DIR EXTRA_DIR play IMAGE NVS_FILE
#   micropython flip_driver.py FIRMWARE_DIR VHW_DIR EXTRA_DIR flip IMAGE NVS_FILE
#                              FIRST COUNT nvs|no-nvs STEP
# play: plays the badge, keeps its flash in IMAGE and its NVS in NVS_FILE (every batch
# flips the same image: LittleFS's file times make each new one differ), prints
# {"bits": N}, the bits of those blocks' written part (past it the flash is erased).
# flip: flips bits FIRST .. FIRST+COUNT-1, every STEP-th (bit b: byte b // 8, bit b % 8),
# booting with the copy in NVS or without; prints one JSON line:
#   {"bits": N, "outcomes": {outcome: count}, "bad": [[bit, what], ...] (at most 20)}
# outcome: "same" (booted as acknowledged, nothing to say), "restored" (from NVS, said),
# "unknown" (etat inconnu, said), "unmountable" (the chip's _boot.py would format the
# flash: booted again on it, flashed anew, it must restore from NVS); "bad": anything
# else (an older, healthier state, or a fresh start).
import json
import os
import sys

sys.path[:0] = [sys.argv[2], sys.argv[3], sys.argv[1]]

import esp32  # noqa: E402
import machine  # noqa: E402

from cran.badge import Badge  # noqa: E402
from cran.core.record import to_record  # noqa: E402
from cran.core.rules import Character, Settings  # noqa: E402
from cran.core.words import parse_action  # noqa: E402
from cran.start.restore import boot as restore_boot  # noqa: E402
from cran.storage import Journal, StateStore  # noqa: E402

BLOCK_SIZE = 4096
BLOCK_COUNT = 48
MOUNT = "/flash"
CHARACTER = Character(name="Godefroy", armor=2)
# A fight and what follows it, ms after boot: hits, an effect, a countdown saved at its
# checkpoints, a heal, more hits. The last acknowledged state is where it ends.
PLAY = [(1000, "coup"), (3000, "coup blesse"), (5000, "effet peur"), (8000, "coup"),
        (20000, "tick"), (40000, "tick"), (60000, "soin"), (61000, "coup brise bras"),
        (62000, "renommee +2"), (70000, "coup"), (90000, "tick"), (95000, "coup douleur")]
FILES = {"main.py": "__import__('cran.run', None, None, ('main',)).main()\n",
         "config.json": '{"board": "atom-lite", "character": {"name": "Godefroy"}}',
         "boots.json": "[]"}


class RamFlash:
    """The flash in RAM (tests/mp/storage_driver.py's RamFlash checks that programs
    only clear bits; here speed matters, and LittleFS erases before it programs)."""

    def __init__(self, data):
        self.data = data

    def readblocks(self, n, buf, off=0):
        start = n * BLOCK_SIZE + off
        buf[:] = memoryview(self.data)[start:start + len(buf)]

    def writeblocks(self, n, buf, off=0):
        start = n * BLOCK_SIZE + off
        self.data[start:start + len(buf)] = buf

    def ioctl(self, op, arg):
        if op == 4:
            return len(self.data) // BLOCK_SIZE
        if op == 5:
            return BLOCK_SIZE
        if op == 6:
            start = arg * BLOCK_SIZE
            self.data[start:start + BLOCK_SIZE] = b"\xff" * BLOCK_SIZE
        return 0


def mount(data):
    os.mount(os.VfsLfs2(RamFlash(data)), MOUNT)


def badge(nvs):
    return Badge(CHARACTER, Settings(), StateStore(MOUNT, copy=nvs), Journal(MOUNT),
                 "atom-lite")


def flash_firmware():
    for name, text in FILES.items():
        with open(MOUNT + "/" + name, "w") as f:
            f.write(text)


def play(data, nvs):
    """The badge flashed and played on a new flash."""
    os.VfsLfs2.mkfs(RamFlash(data))
    mount(data)
    os.mkdir(MOUNT + "/cran")
    os.mkdir(MOUNT + "/boards")
    flash_firmware()
    b = badge(nvs)
    restore_boot(b, 0, "power-on")
    for ms, text in PLAY:
        if text == "tick":
            b.tick(ms)
        else:
            b.apply(parse_action(text), ms)
    os.umount(MOUNT)


def boot(data, nvs):
    """A boot on data, as the app's. -> (record of the state it shows, or "unknown";
    what it journaled of the state: restored, inconnu, fresh)."""
    b = badge(nvs)
    said = []
    log = b.log

    def heard(entry):   # what the boot says, as it goes to the journal
        for key in ("restored", "inconnu", "fresh"):
            if key in entry:
                said.append(key)
        log(entry)
    b.log = heard
    restore_boot(b, 10 ** 6, "power-on")
    os.umount(MOUNT)
    return ("unknown" if b.unknown else to_record(b.state, 10 ** 6)), said


def main():
    action, image, nvs_file = sys.argv[4:7]
    machine.reset_all()
    if action == "play":
        esp32.nvs_keep_in(open(nvs_file, "w+b"))
        base = bytearray(b"\xff" * (BLOCK_SIZE * BLOCK_COUNT))
        play(base, esp32.NVS("cran"))
        with open(image, "wb") as f:
            f.write(base)
        print(json.dumps({"bits": sum(8 * (end - start) for start, end in spans(base))}))
        return
    first, count, with_nvs, step = (int(sys.argv[7]), int(sys.argv[8]),
                                    sys.argv[9] == "nvs", int(sys.argv[10]))
    esp32.nvs_keep_in(open(nvs_file, "r+b"))
    nvs = esp32.NVS("cran") if with_nvs else None
    with open(image, "rb") as f:
        base = bytearray(f.read())
    mount(base)
    acknowledged = boot(base, nvs)[0]    # the image as played: where the badge stands
    with open(image, "rb") as f:
        base = bytearray(f.read())
    where = spans(base)
    bits = sum(8 * (end - start) for start, end in where)
    wear = esp32.nvs_written
    data = bytearray(len(base))
    outcomes = {}
    bad = []
    for bit in range(first, min(first + count, bits), step):
        data[:] = base
        at = bit // 8
        for start, end in where:
            if at < end - start:
                data[start + at] ^= 1 << (bit % 8)
                break
            at -= end - start
        try:
            mount(data)
        except OSError:
            # An ESP32 formats a flash it can't mount (_boot.py); the organiser finds a
            # badge without firmware and flashes it again: the state must come back.
            outcome = "unmountable"
            os.VfsLfs2.mkfs(RamFlash(data))
            mount(data)
            flash_firmware()
            shown, said = boot(data, nvs)
            if shown != acknowledged or said != ["restored"]:
                bad.append([bit, "unmountable, then %s %s" % (said, shown)])
        else:
            shown, said = boot(data, nvs)
            if shown == "unknown" and said == ["inconnu"]:
                outcome = "unknown"
            elif shown == acknowledged and said in ([], ["restored"]):
                outcome = "restored" if said else "same"
            else:
                outcome = "bad"
                if len(bad) < 20:
                    bad.append([bit, "%s %s" % (said, shown)])
        outcomes[outcome] = outcomes.get(outcome, 0) + 1
    if esp32.nvs_written != wear:
        bad.append([-1, "a boot wrote NVS"])
    print(json.dumps({"bits": bits, "outcomes": outcomes, "bad": bad}))


def spans(data):
    """The written part of blocks 0 and 1: up to each one's last byte not erased."""
    out = []
    for block in (0, 1):
        end = (block + 1) * BLOCK_SIZE
        while end > block * BLOCK_SIZE and data[end - 1] == 0xFF:
            end -= 1
        out.append((block * BLOCK_SIZE, end))
    return out


main()
