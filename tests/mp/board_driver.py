# Load each board file given on stdin (a JSON list of [where, text]) with gamefiles.board and
# print one JSON line each: ["ok", what the Board holds] or ["error", message]. Runs
# under MicroPython and CPython alike, so the two can be compared line for line.
import json
import sys

sys.path[:0] = [sys.argv[1], sys.argv[2]]   # FIRMWARE_DIR, GAMEFILES_ROOT

from gamefiles.board import BoardError, load_board  # noqa: E402

for where, text in json.loads(sys.stdin.read()):
    try:
        b = load_board(text, where)
    except BoardError as e:
        print(json.dumps(["error", str(e)]))
        continue
    print(json.dumps(["ok", {
        "id": b.id, "name": b.name, "chip": b.chip, "leds": b.leds, "buzzer": b.buzzer,
        "buttons": b.buttons, "display": b.display, "power": b.power, "imu": b.imu,
        "ir_tx": b.ir_tx, "status_led": b.status_led, "pins": b.pins,
        "led_count": b.led_count(), "button_count": b.button_count(),
        "has_screen": b.has_screen(), "sources": b.sources, "notes": b.notes}]))
