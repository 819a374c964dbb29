# Virtual `select` for Adafruit's asyncio on the virtual clock: it waits for its next
# timer with poller.ipoll(dt), and here that wait moves the virtual clock on by dt at
# once (or to the alarm that made something ready). Only pollable Python objects
# (ioctl) can be registered: the runner has no real stream for asyncio to wait on.
# The first poll() is asyncio.core making its IOQueue: its task queue is then swapped
# for the library's own pure-Python one (asyncio/task.py), as the built-in C queue
# (_asyncio, which no file can shadow) stamps a task it is given without a time with
# the host's real clock (on a board, the same clock as supervisor.ticks_ms).
# In `cran vbadge` (host_tools/virtual/scripts/cpbadge_boot.py) the clock is real and the console
# is the process's stdin: `host` is then the port's own select, which waits on such streams
# while the virtual parts' alarms (keypad's scans, the watchdog) fire on time.
import sys

import vclock

host = None          # the port's select module, for real streams (cran vbadge)
_REAL_STEP_MS = 10   # real time: the longest wait before the alarms are looked at again

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
        if host is not None:
            return self._ipoll_real(timeout)
        ready = self._ready()
        if ready or timeout == 0:
            return ready
        if timeout < 0:
            raise RuntimeError("virtual select: waiting forever with nothing to wait on")
        return vclock.wait_for(timeout, self._ready)

    def _ipoll_real(self, timeout):
        # Streams without an ioctl of their own (stdin) go to the port's poll; the rest
        # are looked at as in virtual time, and the alarms fire as they come due.
        streams = host.poll()
        pollable = {}
        for obj, mask in self._objects.items():
            if hasattr(obj, "ioctl"):
                pollable[obj] = mask
            else:
                streams.register(obj, mask)
        end = None if timeout < 0 else vclock.elapsed_ms() + timeout
        while True:
            vclock.catch_up()
            ready = vclock.polled(pollable, streams.poll(0))
            left = _REAL_STEP_MS if end is None else end - vclock.elapsed_ms()
            if ready or left <= 0:
                return ready
            streams.poll(min(left, _REAL_STEP_MS))


def poll():
    if "asyncio.core" in sys.modules:
        from asyncio import task
        vclock.use_tasks(task)
    return _Poll()
