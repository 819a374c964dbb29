# The world around a virtual badge: its flash folder laid out as `cran flash` would, and
# what the board has outside the chip (pull resistors, I2C chips). CPython and MicroPython.
import json
import os

import machine


def make_root(root, boards_dir, board_id, config):
    """A badge's flash folder: config.json and boards/<id>.json. -> the board's data."""
    os.mkdir(root)
    os.mkdir(root + "/boards")
    with open("%s/%s.json" % (boards_dir, board_id)) as f:
        text = f.read()
    # As cran flash writes it (host_tools.build.board_file_text): the parts, without
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
    board file lists answering on their bus. The chip decides the light-sleep wake
    sources the virtual esp32 module offers."""
    import esp32
    esp32.chip = board["chip"]
    for spec in board["buttons"]:
        if spec.get("pull") is None:
            machine.set_board_pull(spec["pin"], 1 if spec["active_low"] else 0)
    if not i2c:
        return
    for part in (board.get("display"), board.get("power"), board.get("imu")):
        if part and "i2c" in part:
            bus = part["i2c"]
            machine.attach_i2c(bus["scl"], bus["sda"], bus["addr"])


def _write(path, text):
    with open(path, "w") as f:
        f.write(text)
