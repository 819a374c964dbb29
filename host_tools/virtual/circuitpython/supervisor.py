# Virtual `supervisor`: ticks_ms() wraps at 2**29 ms ("wrapping after 2**29ms ... so that
# it is always possible to add or subtract two ticks_ms values without overflow on a
# board without long ints", shared-bindings/supervisor), on the virtual clock.
import vclock

_PERIOD = 1 << 29


def ticks_ms():
    # 2**29 divides vclock's 2**30: the same clock, wrapping twice as often.
    return vclock.ticks_ms() & (_PERIOD - 1)


class _Runtime:
    serial_connected = False
    serial_bytes_available = 0
    usb_connected = False


runtime = _Runtime()


def reload():
    import microcontroller
    microcontroller._reset(microcontroller.ResetReason.SOFTWARE, "supervisor.reload()")
