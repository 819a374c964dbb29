# The files a MicroPython build with a ROMFS partition needs (boards/romfs/, for those who
# build their own image; organisers flash the stock one): the partition table adds up on
# a 4 MiB flash, its NVS is the one the firmware's state copy is held to, its `romfs`
# partition takes the firmware's ROMFS image with room, and the variant and its sdkconfig
# name each other and the table.
import ast
import csv
import os

from host_tools import build
from host_tools.virtual.micropython import VHW_DIR

ROMFS_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                         "boards", "romfs")
TABLE = "partitions-cran-romfs.csv"
FLASH_BYTES = 4 << 20           # the boards' 4 MiB flash (ESP32-PICO-D4, WROOM, C3)
TABLE_END = 0x9000              # ESP-IDF's partition table at 0x8000, 4 KB
APP_ALIGN = 0x10000             # ESP-IDF: app partitions on 64 KB boundaries
DATA_ALIGN = 0x1000             # the others on a flash sector
ROMFS_SUBTYPE = 0x8F            # MicroPython's ROMFS partition (ports/esp32)
ROOM = 0.10                     # the image leaves at least this much of its partition free


def partitions():
    """The table's rows -> [{"name", "type", "subtype", "offset", "size"}], in order."""
    with open(os.path.join(ROMFS_DIR, TABLE), encoding="utf-8") as f:
        lines = [line for line in f if line.strip() and not line.startswith("#")]
    rows = []
    for cells in csv.reader(lines, skipinitialspace=True):
        name, kind, subtype, offset, size = (c.strip() for c in cells[:5])
        rows.append({"name": name, "type": kind, "subtype": subtype,
                     "offset": int(offset, 0), "size": int(size, 0)})
    return rows


def _virtual_nvs_bytes():
    # The size the virtual esp32.NVS holds the firmware to
    # (host_tools/virtual/micropython/esp32.py).
    with open(os.path.join(VHW_DIR, "esp32.py"), encoding="utf-8") as f:
        tree = ast.parse(f.read())
    for node in tree.body:
        if (isinstance(node, ast.Assign) and len(node.targets) == 1
                and getattr(node.targets[0], "id", None) == "NVS_PARTITION_BYTES"):
            return ast.literal_eval(node.value)
    raise AssertionError("host_tools/virtual/micropython/esp32.py: no NVS_PARTITION_BYTES")


def test_the_partitions_follow_each_other_aligned_and_fill_the_flash():
    rows = partitions()
    at = TABLE_END
    for row in rows:
        assert row["offset"] == at, (row, hex(at))
        align = APP_ALIGN if row["type"] == "app" else DATA_ALIGN
        assert row["offset"] % align == 0 and row["size"] % DATA_ALIGN == 0, row
        at += row["size"]
    assert at == FLASH_BYTES, hex(at)
    assert [r["name"] for r in rows] == ["nvs", "phy_init", "factory", "romfs", "vfs"]


def test_the_partitions_are_those_micropython_and_the_firmware_look_for():
    rows = dict((r["name"], r) for r in partitions())
    assert int(rows["romfs"]["subtype"], 0) == ROMFS_SUBTYPE and rows["romfs"]["type"] == "data"
    assert (rows["vfs"]["type"], rows["vfs"]["subtype"]) == ("data", "fat")   # LittleFS
    assert (rows["nvs"]["type"], rows["nvs"]["subtype"]) == ("data", "nvs")
    # The state's copy in NVS (cran.start.rescue) is tested against a partition of this size.
    assert rows["nvs"]["size"] == _virtual_nvs_bytes()
    assert rows["factory"]["type"] == "app" and rows["factory"]["size"] >= 0x1D0000


def test_the_romfs_partition_takes_the_firmwares_image_with_room(tmp_path):
    files = build.compile_firmware(str(tmp_path))
    modules = {}
    for path, local in files.items():
        with open(local, "rb") as f:
            modules[path] = f.read()
    image = build.romfs_image(modules)
    size = dict((r["name"], r["size"]) for r in partitions())["romfs"]
    assert len(image) <= size * (1 - ROOM), (len(image), size)


def test_the_variant_and_its_sdkconfig_name_the_table():
    with open(os.path.join(ROMFS_DIR, "sdkconfig.romfs"), encoding="utf-8") as f:
        config = dict(line.strip().split("=", 1) for line in f if "=" in line)
    assert config["CONFIG_PARTITION_TABLE_CUSTOM"] == "y"
    assert config["CONFIG_PARTITION_TABLE_CUSTOM_FILENAME"] == '"%s"' % TABLE
    with open(os.path.join(ROMFS_DIR, "mpconfigvariant_ROMFS.cmake"), encoding="utf-8") as f:
        variant = f.read()
    assert "${MICROPY_BOARD_DIR}/sdkconfig.romfs" in variant
    assert "MICROPY_VFS_ROM=1" in variant
