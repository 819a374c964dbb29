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
_STREAM_POLL = 3   # MP_STREAM_POLL: the ioctl a pollable Python object answers


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
        ready = []
        for obj, mask in self._objects.items():
            events = obj.ioctl(_STREAM_POLL, mask)
            if events:
                ready.append((obj, events))
        return ready

    def poll(self, timeout=-1):
        return list(self.ipoll(timeout))

    def ipoll(self, timeout=-1, flags=0):
        ready = self._ready()
        if ready or timeout == 0:
            return ready
        if timeout < 0:
            raise RuntimeError("virtual select: waiting forever with nothing to wait on")
        found = []

        def seen():
            found[:] = self._ready()
            return found
        vclock.advance_until(timeout, seen)
        return found


def _use_python_tasks():
    core = sys.modules.get("asyncio.core")
    if core is None:
        return
    from asyncio import task
    if core.TaskQueue is not task.TaskQueue:
        core.TaskQueue = task.TaskQueue
        core.Task = task.Task
        # new_event_loop() made its run queue just before its IOQueue: replace it.
        core._task_queue = task.TaskQueue()


def poll():
    _use_python_tasks()
    return _Poll()
