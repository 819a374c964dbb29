# asyncio's task queue on the ESP32's 2**30 tick period, for the MicroPython unix port.
# Its built-in C queue (_asyncio, which no file can shadow) orders tasks with the unix
# port's tick period, 2**62: with our ticks wrapping at 2**30 a task due just after the
# wrap would sort before one due just before it. select.py puts these in asyncio.core.
# Same interface as asyncio's pure-Python TaskQueue and Task (MicroPython extmod/asyncio);
# a sorted list is plenty for a badge's handful of tasks.
core = None   # asyncio.core, set by select.py


class TaskQueue:
    def __init__(self):
        self.tasks = []

    def peek(self):
        return self.tasks[0] if self.tasks else None

    def push(self, task, key=None):
        task.data = None
        task.ph_key = core.ticks() if key is None else key
        tasks = self.tasks
        i = len(tasks)
        # After every task due at the same time or earlier: equal keys run first come,
        # first served, as in asyncio's pairing heap.
        while i and core.ticks_diff(tasks[i - 1].ph_key, task.ph_key) > 0:
            i -= 1
        tasks.insert(i, task)

    def pop(self):
        return self.tasks.pop(0)

    def remove(self, task):
        for i in range(len(self.tasks)):
            if self.tasks[i] is task:
                del self.tasks[i]
                return


class Task:
    def __init__(self, coro, globals=None):
        self.coro = coro
        self.data = None    # the queue it waits on, an exception to throw in, or its result
        self.state = True   # True: running; TaskQueue: tasks awaiting it; None/False: done
        self.ph_key = 0     # tick it is due at on the run queue

    def __iter__(self):
        if not self.state:
            self.state = False          # done: mark its result as retrieved
        elif self.state is True:
            self.state = TaskQueue()    # the first task to await this one
        elif type(self.state) is not TaskQueue:
            raise RuntimeError("can't wait")
        return self

    def __next__(self):
        if not self.state:
            raise self.data             # StopIteration(result) or the task's exception
        self.state.push(core.cur_task)  # wake the awaiting task when this one ends
        core.cur_task.data = self

    def done(self):
        return not self.state

    def cancel(self):
        if not self.state:
            return False
        if self is core.cur_task:
            raise RuntimeError("can't cancel self")
        task = self
        while isinstance(task.data, Task):   # cancel what it is awaiting, innermost first
            task = task.data
        if hasattr(task.data, "remove"):     # parked on an Event, Lock or stream queue
            task.data.remove(task)
            core._task_queue.push(task)
        elif core.ticks_diff(task.ph_key, core.ticks()) > 0:   # asleep: wake it now
            core._task_queue.remove(task)
            core._task_queue.push(task)
        task.data = core.CancelledError
        return True
