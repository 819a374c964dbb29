# Virtual `select` for Adafruit's asyncio on the virtual clock: it waits for its next
# timer with poller.ipoll(dt), and here that wait moves the virtual clock on by dt at
# once (or to the alarm that made something ready). Only pollable Python objects
# (ioctl) can be registered: the runner has no real stream for asyncio to wait on.
# The first poll() is asyncio.core making its IOQueue: its task queue is then swapped
# for the library's own pure-Python one (asyncio/task.py), as the built-in C queue
# (_asyncio, which no file can shadow) stamps a task it is given without a time with
# the host's real clock (on a board, the same clock as supervisor.ticks_ms).
import sys

import vclock

POLLIN = 1
POLLOUT = 4
POLLERR = 8
POLLHUP = 16


class _Poll:
    def __init__(self):
        self._objects = {}   # object -> mask

    def register(self, obj, mask=POLLIN | POLLOUT):
        self._objects[obj] = mask

    def unregister(self, obj):
        del self._objects[obj]

    def modify(self, obj, mask):
        self._objects[obj] = mask

    def _ready(self):
        return vclock.polled(self._objects, [])

    def poll(self, timeout=-1):
        return list(self.ipoll(timeout))

    def ipoll(self, timeout=-1, flags=0):
        ready = self._ready()
        if ready or timeout == 0:
            return ready
        if timeout < 0:
            raise RuntimeError("virtual select: waiting forever with nothing to wait on")
        return vclock.wait_for(timeout, self._ready)


def poll():
    if "asyncio.core" in sys.modules:
        from asyncio import task
        vclock.use_tasks(task)
    return _Poll()
