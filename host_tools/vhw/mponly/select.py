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


_STREAM_POLL = 3   # MP_STREAM_POLL: the ioctl a pollable Python object answers


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
        ready = list(self._real.ipoll(0, flags))
        for obj, mask in self._soft.items():
            events = obj.ioctl(_STREAM_POLL, mask)
            if events:
                ready.append((obj, events))
        return ready

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
        found = []

        def ready():
            found[:] = self._ready(flags)
            return found
        vclock.advance_until(timeout, ready)
        return found


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
