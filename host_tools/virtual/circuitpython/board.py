# Virtual `board` (shared-bindings/board): the pins of one CircuitPython board by their
# board names, the very microcontroller.pin objects (board.NEOPIXEL is pin.GPIO35 on an
# AtomS3 Lite). Which board: define(board_id), by the runner, from cp_boards.py; a name
# the board doesn't define is an AttributeError, as on the board.
import microcontroller

board_id = None


def define(cp_board_id):
    global board_id
    from cp_boards import BOARDS
    spec = BOARDS[cp_board_id]
    board_id = cp_board_id
    for name, number in spec["pins"].items():
        globals()[name] = getattr(microcontroller.pin, "GPIO%d" % number)
