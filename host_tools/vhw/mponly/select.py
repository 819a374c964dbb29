# `select` for MicroPython's asyncio on the virtual clock (MicroPython only: on CPython a
# select.py on sys.path WOULD shadow the real extension module, so it lives apart).
# asyncio waits for its next timer with poller.ipoll(dt): here that wait advances the
# virtual clock by dt at once, after a real non-blocking look at registered streams.
# The first poll() is asyncio.core making its IOQueue: that is when its task queue is
# swapped for vtasks' (see there why).
import sys

import uselect
import vclock
import vtasks

POLLIN = uselect.POLLIN
POLLOUT = uselect.POLLOUT
POLLERR = uselect.POLLERR
POLLHUP = uselect.POLLHUP
POLLPRI = getattr(uselect, "POLLPRI", 0)   # asyncio.core reads it


class _Poll:
    def __init__(self):
        self._real = uselect.poll()
        self._count = 0

    def register(self, obj, mask=POLLIN | POLLOUT):
        self._real.register(obj, mask)
        self._count += 1

    def unregister(self, obj):
        self._real.unregister(obj)
        self._count -= 1

    def modify(self, obj, mask):
        self._real.modify(obj, mask)

    def poll(self, timeout=-1):
        return list(self.ipoll(timeout))

    def ipoll(self, timeout=-1, flags=0):
        ready = list(self._real.ipoll(0, flags))
        if ready or timeout == 0:
            return ready
        if timeout < 0:
            if not self._count:
                raise RuntimeError("virtual select: waiting forever with nothing to wait on")
            # Only real input (a console line) can end this wait; virtual time stands still.
            return list(self._real.ipoll(-1, flags))
        vclock.advance(timeout)
        return list(self._real.ipoll(0, flags))


def _use_vtasks():
    core = sys.modules.get("asyncio.core")
    if core is not None and core.TaskQueue is not vtasks.TaskQueue:
        vtasks.core = core
        core.TaskQueue = vtasks.TaskQueue
        core.Task = vtasks.Task
        # new_event_loop() made its run queue just before its IOQueue: replace it.
        core._task_queue = vtasks.TaskQueue()


def poll():
    _use_vtasks()
    return _Poll()
