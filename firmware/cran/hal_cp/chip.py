# MicroPython's `machine` as the firmware uses it, on CircuitPython (runtime.install
# puts it in the place of `machine`): the watchdog, resets and their cause, the chip's
# id and its RTC, over microcontroller and rtc (docs.circuitpython.org shared-bindings:
# microcontroller, watchdog, rtc). No pins: the CircuitPython drivers take
# microcontroller.pin objects (cran.hal_cp.parts).
import microcontroller

PWRON_RESET = 1   # machine's numbers, which cran.start.restore names
HARD_RESET = 2
WDT_RESET = 3
DEEPSLEEP_RESET = 4
SOFT_RESET = 5


def reset_cause():
    reason = microcontroller.cpu.reset_reason
    causes = microcontroller.ResetReason
    if reason == causes.WATCHDOG:
        return WDT_RESET
    if reason == causes.DEEP_SLEEP_ALARM:
        return DEEPSLEEP_RESET
    if reason == causes.SOFTWARE:
        return SOFT_RESET
    if reason == causes.RESET_PIN:
        return HARD_RESET
    return PWRON_RESET


def unique_id():
    return bytes(microcontroller.cpu.uid)


def reset():
    microcontroller.reset()


def lightsleep(time_ms=None):
    # Never asked: cran.hal_cp.parts.wake_on_buttons keeps light sleep off (keypad
    # scans in the background; nothing here wakes a sleeping chip on a key).
    raise OSError("no light sleep in the CircuitPython build")


class WDT:
    """machine.WDT over microcontroller.watchdog: a timeout in seconds, then RESET mode
    starts it ("the watchdog timer can't be stopped once it is started in RESET mode"
    on the ESP32-S2/S3, as MicroPython's WDT can't)."""

    def __init__(self, id=0, timeout=5000):
        from watchdog import WatchDogMode
        dog = microcontroller.watchdog
        if dog is None:   # "None if there is no watchdog" on this port
            raise OSError("this CircuitPython has no microcontroller.watchdog")
        self._dog = dog
        dog.timeout = timeout / 1000
        dog.mode = WatchDogMode.RESET
        dog.feed()

    def feed(self):
        self._dog.feed()


class RTC:
    def datetime(self, dt=None):
        import rtc
        clock = rtc.RTC()
        if dt is None:
            t = clock.datetime
            return (t[0], t[1], t[2], t[6], t[3], t[4], t[5], 0)
        y, m, d, weekday, hh, mm, ss = dt[:7]
        import time
        clock.datetime = time.struct_time((y, m, d, hh, mm, ss, weekday, -1, -1))
