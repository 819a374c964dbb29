# Runs inside the MicroPython unix port: replays the scenario given on stdin and prints
# one JSON event a line.
# usage: micropython scenario_driver.py FIRMWARE_DIR GAMEFILES_ROOT START_TICK
# Read and run a line at a time: a scenario of any length fits the interpreter's heap
# (the host has parsed the whole file already, so nothing malformed comes this far).
import json
import sys

sys.path[:0] = [sys.argv[1], sys.argv[2]]

from cran.core.rules import Character  # noqa: E402
from gamefiles import scenario  # noqa: E402


def steps(reader):
    number = 0
    while True:
        raw = sys.stdin.readline()
        if not raw:
            return
        number += 1
        step = reader.line(number, raw)
        if step is not None:
            yield step


def main():
    reader = scenario.Reader()
    pending = steps(reader)
    first = next(pending, None)   # the character line, if any, comes before it

    def every_step():
        if first is not None:
            yield first
            yield from pending
    parsed = scenario.Scenario(reader.character or Character(), every_step())
    for event in scenario.run(parsed, int(sys.argv[3])):
        print(json.dumps(event))


main()
