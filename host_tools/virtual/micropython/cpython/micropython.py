# `micropython` for CPython only (under MicroPython the real one must be used: this
# folder is never on its sys.path). schedule() queues like MicroPython's (depth 8,
# RuntimeError when full); the virtual hardware runs the queue with run_pending() where
# MicroPython would run it by itself: after an IRQ and when the clock moves.
_DEPTH = 8
_queue = []


def const(value):
    return value


def schedule(func, arg):
    if len(_queue) >= _DEPTH:
        raise RuntimeError("schedule queue full")
    _queue.append((func, arg))


def run_pending():
    while _queue:
        func, arg = _queue.pop(0)
        func(arg)


def heap_lock():
    # CPython can't forbid allocation: a test of "no allocation" only means something
    # inside MicroPython.
    return 0


def heap_unlock():
    return 0


interrupt_char = 3   # what kbd_intr() last set: -1 while a locked badge ignores Ctrl-C


def kbd_intr(char):
    global interrupt_char
    interrupt_char = char
