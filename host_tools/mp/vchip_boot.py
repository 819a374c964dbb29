# The chip of `cran vchip` (host_tools/commands/vchip.py execs it), inside the MicroPython unix
# port:
#   micropython vchip_boot.py BOARD_FILE VHW_DIR file PATH [ARGS...]
#   micropython vchip_boot.py BOARD_FILE VHW_DIR code     (the code in $CRAN_VCHIP_CODE)
#   micropython vchip_boot.py BOARD_FILE VHW_DIR stdin
# Any program on the virtual ESP32 hardware: machine, esp32 (NVS), network, espnow,
# aioespnow and neopixel are the virtual parts, wired as BOARD_FILE says; time and
# asyncio are the port's own (real time), as in `cran vbadge`. The program runs where
# an ESP32 runs its code, in __main__ after the port's _boot.py, whose names (gc, vfs)
# it finds there, as MicroPython's own tests do on a board. The host's files stay in
# reach (a program and its modules are the designer's own). A reset (machine.reset(),
# the watchdog, deepsleep) ends the process: exit 80 + the reset cause, as vbadge's chip.
# The code of -c comes in the environment, not as an argument: the unix port makes each
# argument a qstr, at most 255 bytes, and dies on a longer one before any code runs.
import gc
import os
import sys
import time  # the port's real clock, cached before VHW_DIR (whose time.py is virtual)

import vfs
from vbadge_boot import EXIT_RESET, load_virtual_parts, with_uname

ESPRESSIF_OUI = b"\x24\x0a\xc4"
CODE_ENV = "CRAN_VCHIP_CODE"


def wire(board_file):
    import json

    import machine
    import vclock
    import world
    with open(board_file) as f:
        board = json.loads(f.read())
    with_uname(board["chip"])
    vclock.use_real_clock(time.ticks_ms, time.sleep_ms)
    machine.reset_all(machine.PWRON_RESET)
    world.wire(board)
    machine.history = -1   # the parts keep no record: the heap is the program's alone
    machine.on_reset = _exit_for_reset
    # A chip of its own each run: its base MAC (machine.unique_id(), the station's MAC)
    # an Espressif one, two chips on one field never alike.
    machine._unique_id = ESPRESSIF_OUI + os.urandom(3)


def _exit_for_reset(cause, why):
    print("cran vchip: %s: the chip resets" % why, file=sys.stderr)
    sys.exit(EXIT_RESET + cause)


def main():
    board_file, vhw_dir, mode = sys.argv[1:4]
    rest = sys.argv[4:]
    load_virtual_parts(vhw_dir)
    wire(board_file)
    if mode == "file":
        name = rest[0]
        with open(name) as f:
            source = f.read()
        sys.path[0] = name.rsplit("/", 1)[0] if "/" in name else ""
    elif mode == "code":
        name, source = "<stdin>", os.getenv(CODE_ENV)
        os.unsetenv(CODE_ENV)   # the program's environment is its own
    else:
        name, source = "<stdin>", sys.stdin.read()
    sys.argv[:] = rest if mode == "file" else [""]
    code = compile(source, name, "exec")
    gc.collect()
    try:
        exec(code, {"__name__": "__main__", "gc": gc, "vfs": vfs})
    finally:
        _power_off()


def _power_off():
    """The program is over: the chip goes off the air at once (a field's hub would
    otherwise take it for a listening radio, and acknowledge frames for it, until it
    has been silent for a while)."""
    import espnow
    import network
    espnow.ESPNow().active(False)
    for interface in (network.STA_IF, network.AP_IF):
        network.WLAN(interface).active(False)


main()
