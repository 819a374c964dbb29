# Inside MicroPython: parse each line of stdin as an action; print the canonical words
# or the error, one JSON line each, for comparison with CPython.
import json
import sys

sys.path.insert(0, sys.argv[1])

from cran.core.words import ParseError, parse_action  # noqa: E402

for line in sys.stdin.read().split("\n"):
    try:
        print(json.dumps(["ok", parse_action(line).text()]))
    except ParseError as e:
        print(json.dumps(["error", str(e)]))
