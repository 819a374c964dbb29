# The world around a virtual badge: its flash folder laid out as `cran flash` would, and
# what the board has outside the chip (pull resistors, I2C chips). CPython and MicroPython.
import json
import os

import machine


def make_root(root, boards_dir, board_id, config):
    """A badge's flash folder: config.json and boards/<id>.json (beside what the host
    put there first: a game key). -> the board's data."""
    try:
        os.mkdir(root)
    except OSError:
        pass   # made by the host, with its game key in
    os.mkdir(root + "/boards")
    with open("%s/%s.json" % (boards_dir, board_id)) as f:
        text = f.read()
    # As cran flash writes it (host_tools.boards.board_file_text): the parts, without
    # what is for people; boards/*.json spell every part out (tests/test_boards.py).
    data = json.loads(text)
    for key in ("sources", "notes"):
        data.pop(key, None)
    _write("%s/boards/%s.json" % (root, board_id), json.dumps(data))
    cfg = {"board": board_id}
    cfg.update(config)
    _write(root + "/config.json", json.dumps(cfg))
    return json.loads(text)


def wire(board, i2c=True):
    """Resistors on button lines without an internal pull and, with i2c, the chips the
    board file lists answering on their bus. The chip decides the GPIOs machine.Pin
    takes and the light-sleep wake sources the virtual esp32 module offers."""
    import esp32
    esp32.chip = machine.chip = board["chip"]   # (the GPIOs it has, its wake sources)
    for spec in board["buttons"]:
        if spec.get("pull") is None:
            machine.set_board_pull(spec["pin"], 1 if spec["active_low"] else 0)
    if not i2c:
        return
    for part in (board.get("display"), board.get("power"), board.get("imu")):
        if part and "i2c" in part:
            bus = part["i2c"]
            chip = Axp192() if part is board.get("power") else None
            machine.attach_i2c(bus["scl"], bus["sda"], bus["addr"], chip)


battery_mv = 3900   # the virtual battery's voltage (a LiPo about two thirds full); None: none


class Axp192:
    """The power chip's registers (the M5StickC Plus's AXP192): a write lands, a read
    gives it back, and its ADC's battery voltage (0x78-0x79: 12 bits of 1.1 mV, the
    high 8 then the low 4) reads battery_mv, only while that ADC is on (0x82, bit 7).
    It starts off here, whatever the chip's own power-on default, so a firmware that
    reads the battery must turn it on (M5Stack's library writes 0x82 = 0xff); with no
    battery, it reads 0."""

    # One board, one chip: its registers made with the virtual hardware, not with each
    # badge (counted as the runner's heap, as a chip is no part of a badge's).
    regs = bytearray(256)

    def __init__(self):
        self.regs[:] = bytes(256)

    def read(self, reg, n):
        if self.regs[0x82] & 0x80:
            raw = min(4095, (battery_mv or 0) * 10 // 11)
            self.regs[0x78], self.regs[0x79] = raw >> 4, raw & 0x0F
        return bytes(self.regs[reg:reg + n])

    def write(self, reg, data):
        self.regs[reg:reg + len(data)] = data


def _write(path, text):
    with open(path, "w") as f:
        f.write(text)
