# A badge with a game key (cran.lock.ConsoleLock) on the virtual hardware, inside the
# MicroPython unix port, talked to line by line so that the test (CPython, the stdlib's
# own hmac) answers its challenges:
#   micropython lock_driver.py FIRMWARE_DIR BOARDS_DIR FLASH_DIR VHW_DIR EXTRA_DIR KEY_HEX
# stdin, one JSON a line: {"line": TEXT} (a console line) or {"advance": MS} (virtual
# time, then a show step). stdout, one JSON a line: {"answer": [...] or null, "ctrl_c":
# whether Ctrl-C would stop the app (the unix port catches SIGINT only then), "reboot":
# whether the console asked for one, "auth_loaded": whether cran.auth is in RAM}.
import json
import sys

sys.path[:0] = [sys.argv[4], sys.argv[5], sys.argv[1]]

import time  # noqa: E402

import machine  # noqa: E402
import vclock  # noqa: E402
import world  # noqa: E402

from cran.start.phases import start  # noqa: E402


def ctrl_c_stops_the_app():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("SigCgt:"):
                return bool(int(line.split()[1], 16) & 2)   # bit 1: SIGINT
    return None


def main():
    vclock.start(0)
    machine.reset_all()
    root = sys.argv[3] + "/badge"
    world.wire(world.make_root(root, sys.argv[2], "atom-lite", {}))
    key = sys.argv[6]
    if key:
        with open(root + "/game.key", "wb") as f:
            f.write(bytes([int(key[i:i + 2], 16) for i in range(0, len(key), 2)]))
    app = start(root)
    print(json.dumps({"answer": None, "ctrl_c": ctrl_c_stops_the_app(), "reboot": False}))
    while True:
        raw = sys.stdin.readline()
        if not raw:
            return
        ask = json.loads(raw)
        answer = None
        if "line" in ask:
            answer = app.line(ask["line"], time.ticks_ms())
        else:
            vclock.advance(ask["advance"])
            app.show(time.ticks_ms())
        print(json.dumps({"answer": answer, "ctrl_c": ctrl_c_stops_the_app(),
                          "reboot": app.console is not None and app.console.reboot,
                          "auth_loaded": "cran.auth" in sys.modules}))


main()
