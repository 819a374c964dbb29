# `select` for MicroPython's asyncio on the virtual clock (MicroPython only: on CPython a
# select.py on sys.path WOULD shadow the real extension module, so it lives apart).
# asyncio waits for its next timer with poller.ipoll(dt): here that wait advances the
# virtual clock by dt at once, after a real non-blocking look at registered streams.
# The first poll() is asyncio.core making its IOQueue: that is when its task queue is
# swapped for vtasks' (see there why).

import uselect
import vclock
import vtasks

POLLIN = uselect.POLLIN
POLLOUT = uselect.POLLOUT
POLLERR = uselect.POLLERR
POLLHUP = uselect.POLLHUP
POLLPRI = getattr(uselect, "POLLPRI", 0)   # asyncio.core reads it



class _Poll:
    """Objects without a file descriptor (asyncio.ThreadSafeFlag) are asked through
    their ioctl here: the unix port's poll sleeps 1 ms for each look at one, which the
    ESP32's doesn't, and the show loop looks at one on every wake-up."""

    def __init__(self):
        self._real = uselect.poll()
        self._count = 0
        self._soft = {}    # object -> mask, for objects with no fileno()

    def register(self, obj, mask=POLLIN | POLLOUT):
        if hasattr(obj, "fileno"):
            self._real.register(obj, mask)
        else:
            self._soft[obj] = mask
        self._count += 1

    def unregister(self, obj):
        if obj in self._soft:
            del self._soft[obj]
        else:
            self._real.unregister(obj)
        self._count -= 1

    def modify(self, obj, mask):
        if obj in self._soft:
            self._soft[obj] = mask
        else:
            self._real.modify(obj, mask)

    def _ready(self, flags):
        return vclock.polled(self._soft, list(self._real.ipoll(0, flags)))

    def poll(self, timeout=-1):
        return list(self.ipoll(timeout))

    def ipoll(self, timeout=-1, flags=0):
        ready = self._ready(flags)
        if ready or timeout == 0:
            return ready
        if timeout < 0:
            if self._count == len(self._soft):   # nothing real to wait on
                raise RuntimeError("virtual select: waiting forever with nothing to wait on")
            # Only real input (a console line) can end this wait; virtual time stands still.
            return list(self._real.ipoll(-1, flags))
        # Time runs on to the timeout, or to the alarm (a button's IRQ) that made
        # something ready, as a real poll returns at once.
        return vclock.wait_for(timeout, lambda: self._ready(flags))


def poll():
    core = vclock.use_tasks(vtasks)
    if core is not None:
        vtasks.core = core
    return _Poll()
