# Watchdog resets remembered across resets: three within 5 minutes and the badge starts
# in safe mode. Stamps are time.time(): the ESP32's RTC keeps counting through a WDT reset
# (not through a power cut: then the stamps mean nothing, and a power-on clears them).
import json

from cran.compat import replace

FILE = "boots.json"   # in the flash's root; the console's `reboot` removes it
WINDOW_S = 300
LIMIT = 3


def note_boot(path, watchdog, now_s, keep=None):
    """Record this boot in the file at `path`, or in keep (an object whose read() and
    write(text) keep the stamps elsewhere; read() raises OSError or ValueError, write()
    OSError, when they can't: cran.hal_cp.nvm.NvmBoots). -> True when it makes LIMIT
    watchdog resets within WINDOW_S: start in safe mode. A bad file counts as empty."""
    stamps = []
    if watchdog:
        try:
            if keep is None:
                with open(path) as f:
                    old = json.loads(f.read())
            else:
                old = json.loads(keep.read())
        except (OSError, ValueError):
            old = []
        if isinstance(old, list):
            stamps = [s for s in old if isinstance(s, int) and 0 <= now_s - s < WINDOW_S]
        stamps = stamps[-(LIMIT - 1):] + [now_s]
    try:
        if keep is not None:
            keep.write(json.dumps(stamps))
        else:
            with open(path + ".tmp", "w") as f:
                f.write(json.dumps(stamps))
            replace(path + ".tmp", path)
    except OSError:
        pass   # a flash that can't write must not stop the boot; safe mode is a bonus
    return len(stamps) >= LIMIT


def reboot(badge, root):
    """The console's `reboot` (an organiser's, cran.app): the state saved as of now, the
    count of watchdog resets forgotten (so safe mode ends), the chip reset."""
    import os
    import time

    import machine

    from cran.storage import join
    badge.checkpoint(time.ticks_ms())
    try:
        os.remove(join(root, FILE))
    except OSError:
        pass   # none yet
    machine.reset()
