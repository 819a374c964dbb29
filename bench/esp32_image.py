# What host_tools/virtual/esp32image.py says of the stock MicroPython image, measured
# again (not part of `make bench`: it needs ../shared/tools/qemu-esp32):
#   python bench/esp32_image.py names   the image's own names (qstrs), read from its
#                                       pools' tables in the image: printed as Python
#   python bench/esp32_image.py heap    the image booted in QEMU's ESP32 (a LittleFS
#                                       holding a main.py written here, then its raw
#                                       REPL): the heap at main.py's start, what each
#                                       import and ESP-NOW's objects take, the pools of
#                                       names it takes as names are made one by one
# The figures are printed, not written: esp32image.py keeps them with how they came.
import json
import os
import re
import select
import struct
import subprocess
import sys
import tempfile
import time
import tty

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, REPO)

from host_tools.virtual import esp32image  # noqa: E402

TOOLS = os.path.join(os.path.dirname(REPO), "shared", "tools", "qemu-esp32")
IMAGE = os.path.join(TOOLS, "images", esp32image.IMAGE)
APP_OFFSET = 0x10000 - 0x1000   # the app's place in the merged image (written at 0x1000)
VFS_OFFSET = 0x200000


def _segments(app):
    """The app image's segments: [(load address, length, offset in app)]."""
    out, offset = [], 24
    for _ in range(app[1]):
        address, length = struct.unpack_from("<II", app, offset)
        out.append((address, length, offset + 8))
        offset += 8 + length
    return out


def static_names(image=IMAGE):
    """The image's own names, in the order of its static pools (qstr numbers 0...):
    the pools are found by their table of string pointers (the sorted pool's header:
    prev, total_prev_len | is_sorted, alloc, len, hashes, lengths, qstrs[])."""
    with open(image, "rb") as f:
        app = f.read()[APP_OFFSET:]
    if app[0] != 0xE9:
        raise ValueError("%s: no ESP32 app image at 0x10000" % image)
    segments = _segments(app)

    def at(address):
        for base, length, offset in segments:
            if base <= address < base + length:
                return offset + address - base
        return None

    def pool(address):
        i = at(address)
        prev, total, _alloc, count, _hashes, lengths = struct.unpack_from("<6I", app, i)
        pointers = struct.unpack_from("<%dI" % count, app, i + 24)
        sizes = app[at(lengths):at(lengths) + count]
        names = [app[at(p):at(p) + n].decode("utf-8", "surrogateescape")
                 for p, n in zip(pointers, sizes)]
        return prev, total & 0x7FFFFFFF, names

    # The last static pool is the one whose prev chain is longest: walk every header
    # that points at a pool, from each candidate pointer table found in the image.
    def looks_like_pool(i):
        try:
            prev, total, names = pool(_address(segments, i))
        except (struct.error, TypeError, UnicodeDecodeError):
            return None
        if not names or total > 100000:
            return None
        return prev, total, names

    best = None
    for i in range(0, len(app) - 24, 4):
        prev, total, _, count = struct.unpack_from("<4I", app, i)[:4]
        if count < 100 or count > 5000 or (total & 0x7FFFFFFF) > 5000:
            continue
        found = looks_like_pool(i)
        if found is None:
            continue
        chain = [found]
        while chain[-1][0]:
            back = at(chain[-1][0])
            step = looks_like_pool(back) if back is not None else None
            if step is None:
                break
            chain.append(step)
        if chain[-1][0] == 0 and chain[-1][1] == 0:   # back to the first pool
            names = [n for _, _, part in reversed(chain) for n in part]
            if best is None or len(names) > len(best):
                best = names
    return best


def _address(segments, offset):
    for base, length, start in segments:
        if start <= offset < start + length:
            return base + offset - start
    return None


def _lfs_image(files):
    """A 2 MB LittleFS (4096-byte blocks, as the image's "vfs" partition) holding files
    {name: text}, made by the 32-bit MicroPython."""
    mp = os.path.join(os.path.dirname(REPO), "shared", "tools", "micropython32")
    maker = """
import sys, vfs
class Ram:
    def __init__(s): s.d = bytearray(b"\\xff" * (512 * 4096))
    def readblocks(s, b, buf, off=0): i = b * 4096 + off; buf[:] = s.d[i:i + len(buf)]
    def writeblocks(s, b, buf, off=None): i = b * 4096 + (off or 0); s.d[i:i + len(buf)] = buf
    def ioctl(s, op, arg):
        if op == 4: return 512
        if op == 5: return 4096
        if op == 6: s.d[arg * 4096:(arg + 1) * 4096] = b"\\xff" * 4096
        return 0
ram = Ram()
vfs.VfsLfs2.mkfs(ram)
vfs.mount(vfs.VfsLfs2(ram), "/flash")
for name, text in %r.items():
    with open("/flash/" + name, "w") as f:
        f.write(text)
vfs.umount("/flash")
sys.stdout.buffer.write(ram.d)
""" % files
    return subprocess.run([mp, "-X", "heapsize=8m", "-c", maker], check=True,
                          capture_output=True).stdout


class _Chip:
    """The image booted in QEMU, its UART a pty."""

    def __init__(self, flash):
        self.proc = subprocess.Popen([os.path.join(TOOLS, "boot"), flash],
                                     stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT)
        line = b""
        while b"/dev/pts/" not in line:
            line = self.proc.stdout.readline()
            if not line:
                raise RuntimeError("qemu ended")
        self.fd = os.open(re.search(rb"/dev/pts/\d+", line).group().decode(),
                          os.O_RDWR | os.O_NOCTTY)
        tty.setraw(self.fd)
        self.got = b""

    def until(self, mark, timeout=120):
        end = time.time() + timeout
        while mark not in self.got:
            if time.time() > end:
                raise TimeoutError("no %r in %r" % (mark, self.got[-300:]))
            if select.select([self.fd], [], [], 1)[0]:
                self.got += os.read(self.fd, 4096)
        i = self.got.index(mark) + len(mark)
        out, self.got = self.got[:i], self.got[i:]
        return out

    def send(self, data):
        for i in range(0, len(data), 64):   # the emulated UART takes it in small pieces
            os.write(self.fd, data[i:i + 64])
            time.sleep(0.01)

    def run(self, code):
        """code at the raw REPL -> what it printed."""
        self.send(code.encode() + b"\x04")
        self.until(b"OK")
        out = self.until(b"\x04")[:-1]
        err = self.until(b"\x04")[:-1]
        self.until(b">")
        if err:
            raise RuntimeError(err.decode(errors="replace"))
        return out.decode(errors="replace")

    def close(self):
        self.proc.kill()
        self.proc.wait()


# Each step's bytes: gc.mem_alloc() after gc.collect() around it.
_PROBE = """import gc
R = {}
def d(k, f):
    gc.collect(); a = gc.mem_alloc(); v = f(); gc.collect(); R[k] = gc.mem_alloc() - a
    return v
"""
_STEPS = """m = d('machine', lambda: __import__('machine'))
np = d('neopixel', lambda: __import__('neopixel'))
net = d('network', lambda: __import__('network'))
en = d('espnow', lambda: __import__('espnow'))
w = d('WLAN', lambda: net.WLAN(net.STA_IF))
d('WLAN.active', lambda: w.active(True))
e = d('ESPNow()', lambda: en.ESPNow())
d('ESPNow.active', lambda: e.active(True))
p1 = d('NeoPixel 1', lambda: np.NeoPixel(m.Pin(27), 1))
p25 = d('NeoPixel 25', lambda: np.NeoPixel(m.Pin(26), 25))
print(R)
"""
_POOLS = """gc.collect()
L = []
p = gc.mem_alloc()
for i in range(3000):
    getattr(gc, 'zq%d' % i, None)
    gc.collect()
    n = gc.mem_alloc()
    if n - p > 200: L.append((i, n - p))
    p = n
print(L)
"""


def heap():
    """The image's heap figures, measured in QEMU. -> printed lines"""
    with tempfile.TemporaryDirectory(prefix="cran-esp32-") as tmp:
        flash = os.path.join(tmp, "flash.img")
        with open(IMAGE, "rb") as f:
            merged = f.read()
        image = bytearray(b"\xff" * 0x400000)
        image[0x1000:0x1000 + len(merged)] = merged
        lfs = _lfs_image({"main.py": "import gc\ngc.collect()\n"
                                     "print('MAINSTART', gc.mem_alloc())\n"})
        image[VFS_OFFSET:VFS_OFFSET + len(lfs)] = lfs
        with open(flash, "wb") as f:
            f.write(image)
        chip = _Chip(flash)
        try:
            chip.until(b"MAINSTART")
            print("heap in use at main.py's start (its code in):",
                  chip.until(b"\n").strip().decode())
            chip.until(b">>> ")
            time.sleep(3)   # bytes sent while it boots crash the emulator (its README)
            chip.send(b"\r\x03\x03")
            time.sleep(0.5)
            chip.send(b"\x01")
            chip.until(b"raw REPL; CTRL-B to exit\r\n>")
            chip.run(_PROBE)
            print("bytes each step keeps:", chip.run(_STEPS).strip())
            print("pools of names taken (name made, bytes):", chip.run(_POOLS).strip())
        finally:
            chip.close()


if __name__ == "__main__":
    what = sys.argv[1] if len(sys.argv) > 1 else "names"
    if what == "names":
        names = static_names()
        same = names == list(esp32image.STATIC_NAMES)
        print(json.dumps({"names": len(names), "as esp32image.py has them": same}))
    else:
        heap()
