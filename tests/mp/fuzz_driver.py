# Inside MicroPython: the text readers on a batch of inputs (a JSON list of [kind,
# input] on stdin), one JSON answer a line, for comparison with CPython (tests/
# test_fuzz.py runs the same answer() there). kind: action, duration, line (a
# scenario's line), console (bytes as hex: the console's text_of and command_of).
import json
import sys

sys.path[:0] = [sys.argv[1], sys.argv[2]]   # FIRMWARE_DIR, GAMEFILES_ROOT

from fuzz_answers import answer  # noqa: E402

for kind, given in json.loads(sys.stdin.read()):
    print(json.dumps(answer(kind, given)))
