# Runs inside the MicroPython unix port: replays the scenario given on stdin and prints
# one JSON event a line. usage: micropython scenario_driver.py FIRMWARE_DIR START_TICK
import json
import sys

sys.path.insert(0, sys.argv[1])

from cran import scenario  # noqa: E402


def main():
    parsed = scenario.parse(sys.stdin.read())
    for event in scenario.run(parsed, int(sys.argv[2])):
        print(json.dumps(event))


main()
