# A LittleFS image as an ESP32's vfs partition holds it, made by MicroPython's own
# LittleFS (the unix port's vfs.VfsLfs2, the code the chip mounts it with):
#   micropython -X heapsize=16M lfs_image.py OUT BLOCKS < FILES
# FILES: a JSON line [badge path, base64 of its bytes] a file, written in that order
# (folders made as they come). OUT: BLOCKS blocks of 4096 bytes, erased flash (0xff)
# where LittleFS wrote nothing, as the partition is after `esptool erase_flash`.
import binascii
import json
import sys

import vfs

BLOCK_SIZE = 4096


class Flash:
    def __init__(self, blocks):
        self.blocks = blocks
        self.data = bytearray(b"\xff" * (blocks * BLOCK_SIZE))

    def readblocks(self, block, buf, offset=0):
        at = block * BLOCK_SIZE + offset
        buf[:] = self.data[at:at + len(buf)]

    def writeblocks(self, block, buf, offset=0):
        at = block * BLOCK_SIZE + (offset or 0)
        self.data[at:at + len(buf)] = buf

    def ioctl(self, op, arg):
        if op == 4:
            return self.blocks
        if op == 5:
            return BLOCK_SIZE
        if op == 6:   # erase
            self.writeblocks(arg, b"\xff" * BLOCK_SIZE)
        return 0


def main():
    out, blocks = sys.argv[1], int(sys.argv[2])
    flash = Flash(blocks)
    vfs.VfsLfs2.mkfs(flash)
    fs = vfs.VfsLfs2(flash)
    made = set()
    for line in sys.stdin:
        if not line.strip():
            continue
        path, data = json.loads(line)
        parts = path.strip("/").split("/")
        for i in range(1, len(parts)):
            folder = "/" + "/".join(parts[:i])
            if folder not in made:
                made.add(folder)
                try:
                    fs.mkdir(folder)
                except OSError:
                    pass   # made already
        with fs.open(path, "wb") as f:
            f.write(binascii.a2b_base64(data))
    with open(out, "wb") as f:
        f.write(flash.data)


main()
