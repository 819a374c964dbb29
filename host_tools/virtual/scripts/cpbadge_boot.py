# The chip of `cran vbadge` for a CircuitPython board (host_tools/virtual/vbadge.py starts it on
# a pty), inside the CircuitPython unix port:
#   circuitpython [-i] cpbadge_boot.py ACTION DRIVE BOARD_FILE CAUSE VCP_DIR NVM_FILE CHIP
#                                      WATCHDOG_FILE
# DRIVE, a folder standing for the CIRCUITPY drive (what `cran flash --drive` fills), is
# mounted at "/" as the board's file system, read-only to the code as CircuitPython's
# is while a computer has it, so paths are the board's and the host's files are out of
# reach; NVM_FILE keeps microcontroller.nvm across resets; CHIP names the chip (its uid
# is made from it); WATCHDOG_FILE tells the supervisor how long the firmware's watchdog
# has left (WatchdogFile, as vbadge_boot.py's). The parts are the strict virtual
# CircuitPython modules (VCP_DIR), on the virtual clock made real: the badge runs in
# real time, its console on stdin and stdout, its select the port's own for them.
# ACTION  boot: boot_out.txt written, code.py run, then exit (the supervisor starts the
# REPL); repl, repl-boot (with -i): the REPL, on the same drive and parts.
# Exit codes: EXIT_RESET + the reset's cause in machine's numbers (vbadge.py's).
import os
import select as _host_select  # the port's own, before VCP_DIR's virtual one shadows it
import sys
import time as _host_time  # the same: the real clock under the virtual parts

from watchdog_file import WatchdogFile  # beside this script (vbadge_boot.py's too)

EXIT_RESET = 80
# microcontroller.ResetReason <-> machine's numbers, which vbadge.py's supervisor keeps
_CAUSES = (("POWER_ON", 1), ("RESET_PIN", 2), ("WATCHDOG", 3), ("DEEP_SLEEP_ALARM", 4),
           ("SOFTWARE", 5))
# What CircuitPython writes at every boot (its version and the board's id): cran flash
# --drive reads it to check that the drive is the board's.
BOOT_OUT = "Adafruit CircuitPython %s on the vbadge; %s with %s\nBoard ID:%s\nUID:%s\n"


def load_virtual_parts(vcp_dir):
    """Import the virtual modules now, while the host's files are reachable: the
    firmware's imports then find them in sys.modules. The drive's lib/ comes after."""
    sys.path[:] = [vcp_dir]
    for name in sorted(os.listdir(vcp_dir)):
        if name.endswith(".py") and name != "__init__.py":
            __import__(name[:-3])
    sys.path[:] = ["", "/", ".frozen", "/lib"]   # a CircuitPython board's


def wire(board_file, cause, chip):
    import hashlib
    import json

    import board
    import microcontroller
    import vclock
    with open(board_file) as f:
        spec = json.loads(f.read())
    board.define(spec["circuitpython_board"])
    vclock.use_real_clock(_host_time.ticks_ms, _host_time.sleep_ms)
    # circuitpython/'s select, loaded above: the console's stream polled for real by the port's own
    sys.modules["select"].host = _host_select
    microcontroller.history = 16
    microcontroller.cpu.reset_reason = [r for r, n in _CAUSES if n == cause][0]
    microcontroller.cpu.uid = bytearray(hashlib.sha256(chip.encode()).digest()[:6])
    return spec


def mount(drive):
    # Read-only to the code, as CircuitPython mounts its drive while a computer has it
    # (the badge keeps what it writes in nvm).
    os.umount("/")
    os.mount(os.VfsPosix(drive), "/", readonly=True)
    os.chdir("/")


def write_boot_out(drive, spec):
    # CircuitPython's own write, before the code runs.
    import microcontroller
    uid = "".join("%02X" % b for b in microcontroller.cpu.uid)
    version = "%d.%d.%d" % sys.implementation.version[:3]
    with open(drive + "/boot_out.txt", "w") as f:
        f.write(BOOT_OUT % (version, spec["name"], spec["chip"].upper(),
                           spec["circuitpython_board"], uid))


def run_code():
    """code.py as CircuitPython runs it: an error printed, then the REPL. -> the reset
    that ended it (its microcontroller.ResetReason), or None."""
    import microcontroller
    print("code.py output:")
    try:
        with open("code.py") as f:
            source = f.read()
    except OSError:
        print("No code.py found.")
        return None
    try:
        exec(compile(source, "code.py", "exec"), {"__name__": "__main__"})
    except microcontroller.VirtualReset:
        pass   # the first reset's reason, below: the firmware may reset again handling it
    except BaseException as e:   # KeyboardInterrupt too: the REPL comes next, as on a board
        sys.print_exception(e)
    return microcontroller.resetting


def watchdog_left_ms():
    """The ms microcontroller.watchdog has left now, or None."""
    import microcontroller
    import vclock
    due = microcontroller.watchdog.due_ms
    return None if due is None else due - vclock.elapsed_ms()


def main():
    action, drive, board_file, cause, vcp_dir, nvm_file, chip, dog_file = sys.argv[1:9]
    load_virtual_parts(vcp_dir)
    spec = wire(board_file, int(cause), chip)
    import microcontroller
    microcontroller.nvm_keep_in(nvm_file)   # before "/" hides the host's files
    watchdog = None
    if action == "boot":
        write_boot_out(drive, spec)
        watchdog = WatchdogFile(open(dog_file, "w"))
        microcontroller.on_watchdog = watchdog.tell
    mount(drive)
    if action != "boot":
        return   # -i: the REPL follows
    reset = run_code()
    watchdog.close(watchdog_left_ms())
    if reset is not None:
        # The process ends; the supervisor boots the next one with this cause. Silent at
        # once, as a chip that resets.
        sys.stdout.close()
        sys.exit(EXIT_RESET + [n for r, n in _CAUSES if r == reset][0])
    print("\nCode done running.")


main()
