# The badge on the real chip's own image: the stock MicroPython ESP32 image in QEMU
# (../shared/tools/qemu-esp32), the badge's files on its flash as cran flash writes
# them, started by its own main.py, the fight typed at its console (host_tools/device/
# qemu.py). Skipped, with the reason, where the emulator is not beside the repository.
import json
import os

import pytest

from host_tools import build
from host_tools.boards import read_board
from host_tools.device import flash, qemu
from host_tools.virtual.runtimes import find_micropython

QEMU_DIR = qemu.find_qemu()
pytestmark = pytest.mark.skipif(QEMU_DIR is None or find_micropython() is None,
                                reason=qemu.HOW_TO_GET_QEMU)


def test_the_chip_image_holds_the_badges_files(tmp_path):
    key = os.urandom(32)
    files = flash.player_files(flash.Builds(str(tmp_path)), qemu.IMPL,
                               read_board("atom-lite"), key)
    files["/config.json"] = json.dumps(qemu.chip_config("atom-lite", True)).encode()
    image = qemu.flash_image(QEMU_DIR, files)
    assert len(image) == qemu.FLASH_SIZE
    with open(qemu.stock_image(QEMU_DIR), "rb") as f:
        stock = f.read()
    assert image[qemu.IMAGE_OFFSET:qemu.IMAGE_OFFSET + len(stock)] == stock
    # Read back by MicroPython's own LittleFS, as the chip's _boot.py mounts it.
    vfs = image[qemu.VFS_OFFSET:qemu.VFS_OFFSET + qemu.VFS_BLOCKS * 4096]
    (tmp_path / "vfs.img").write_bytes(vfs)
    script = tmp_path / "read.py"
    script.write_text(
        "import sys, vfs, json\n"
        "class F:\n"
        "  def __init__(s, d): s.d = d\n"
        "  def readblocks(s, n, b, o=0): b[:] = s.d[n*4096+o:n*4096+o+len(b)]\n"
        "  def writeblocks(s, n, b, o=0): pass\n"
        "  def ioctl(s, op, a): return {4: len(s.d) // 4096, 5: 4096}.get(op, 0)\n"
        "d = bytearray(open(sys.argv[1], 'rb').read())\n"
        "vfs.mount(vfs.VfsLfs2(F(d)), '/chip')\n"
        "print(json.dumps({p: open('/chip' + p, 'rb').read().hex() for p in sys.argv[2:]}))\n")
    import subprocess
    wanted = ["/main.py", "/config.json", "/game.key", build.badge_path("/cran/app.mpy")]
    out = subprocess.run([find_micropython(), "-X", "heapsize=8M", str(script),
                          str(tmp_path / "vfs.img")] + wanted, capture_output=True,
                         text=True, check=True).stdout
    assert {p: bytes.fromhex(h) for p, h in json.loads(out).items()} == {
        p: files[p] for p in wanted}


def test_the_badge_runs_on_the_stock_image_from_its_main_py(tmp_path):
    """Booted by the stock image, the badge starts from its own main.py well inside its
    watchdog, plays the fight an organiser types at its console (challenge, unlock,
    every action answered as the rules say: S1-S3, K1), journals nothing wrong, and a
    quiet minute after the console's last line holds no more than after boot: the
    console and what it loaded are let go (the console loop keeps none of it)."""
    steps = []
    got = qemu.play(QEMU_DIR, "atom-lite", True, 0, str(tmp_path), on_step=steps.append)
    assert got["error"] is None, "\n".join(steps + [got["error"]])
    assert got["lived"]
    # The start in the chip's own time within main.py's 45 s watchdog (the emulator's is
    # off: each emulated flash operation costs ~7 ms, far more than a chip's, so this is
    # an upper bound; `CHIP_START=1 make chip` times it as a chip's).
    assert got["start_ms"] < 45000
    assert got["after_quiet"] - got["after_boot"] < 1024, got
    # The names in RAM once it started, as the real interpreter counts them, are the
    # ones the bench counts (runtimes.badge_names: where it charges a pool of names,
    # 4.4 KB at once). Its count once missed some: its names modules' own, and
    # characters taken one by one out of the board's id.
    from host_tools.virtual.esp32image import in_ram
    from host_tools.virtual.runtimes import badge_names, names_modules
    files = build.compile_firmware(str(tmp_path / "firmware"))
    job = {"board": "atom-lite", "config": qemu.chip_config("atom-lite", True)}
    assert got["names"] == len(in_ram(badge_names(files, names_modules(job))))


def test_the_harness_s_own_code_and_names_are_not_the_badge_s(tmp_path):
    """The harness (the chip's boot.py under measure) is compiled before its first line
    reads the heap: its code was in every figure of the badge's (~1.5 KB). Measured by
    two boots, it is given back and taken out. Its names are the image's: its own ~30
    took room in the first pools of names, and moved the badge's next pool."""
    import io
    import keyword
    import tokenize

    from host_tools.imagenames import STATIC_NAMES
    own = qemu.harness_own(QEMU_DIR, str(tmp_path))
    assert 512 < own < os.path.getsize(qemu.HARNESS), own
    text = qemu.harness_text(90112, 256, own)
    assert "= 90112 " in text and "= %d " % own in text
    names = set(t.string for t in tokenize.generate_tokens(io.StringIO(text).readline)
                if t.type == tokenize.NAME and not keyword.iskeyword(t.string))
    assert names <= set(STATIC_NAMES), names - set(STATIC_NAMES)
    with open(qemu.HARNESS) as f:
        assert "_HOWN = 0 " in f.read()   # (the line harness_text sets)
