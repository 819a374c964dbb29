# Virtual `pwmio` (shared-bindings/pwmio): PWMOut(pin, *, duty_cycle=0, frequency=500,
# variable_frequency=False) holds its pin; duty_cycle is 16-bit (0-65535), frequency
# above 0 and only writable with variable_frequency. Every change is recorded as
# (tick, frequency, duty_cycle) in .timeline (0 after deinit).
import microcontroller
import supervisor

outputs = {}   # GPIO number -> the PWMOut on it, for the tests


class PWMOut:
    def __init__(self, pin, *, duty_cycle=0, frequency=500, variable_frequency=False):
        _check_duty(duty_cycle)
        _check_frequency(frequency)
        microcontroller.claim(pin, self)
        self.pin = pin
        self._duty = duty_cycle
        self._frequency = frequency
        self._variable = variable_frequency
        self._deinited = False
        self.timeline = []
        outputs[pin.number] = self
        self._record()

    def _record(self):
        keep = microcontroller.history
        if keep < 0:
            return
        self.timeline.append((supervisor.ticks_ms(), self._frequency,
                              0 if self._deinited else self._duty))
        if keep and len(self.timeline) > keep:
            del self.timeline[0]

    def _check(self):
        if self._deinited:
            raise ValueError("Object has been deinitialized and can no longer be used. "
                             "Create a new object.")

    @property
    def duty_cycle(self):
        self._check()
        return self._duty

    @duty_cycle.setter
    def duty_cycle(self, value):
        self._check()
        _check_duty(value)
        self._duty = value
        self._record()

    @property
    def frequency(self):
        self._check()
        return self._frequency

    @frequency.setter
    def frequency(self, value):
        self._check()
        if not self._variable:
            raise AttributeError("PWM frequency not writable when variable_frequency is "
                                 "False.")
        _check_frequency(value)
        self._frequency = value
        self._record()

    def deinit(self):
        if not self._deinited:
            self._deinited = True
            microcontroller.release(self.pin)
            self._record()


def _check_duty(value):
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 0xFFFF:
        raise ValueError("duty_cycle must be 0-65535")


def _check_frequency(value):
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise ValueError("Invalid PWM frequency")
