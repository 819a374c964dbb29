# Virtual `digitalio` (shared-bindings/digitalio): a DigitalInOut holds its pin until
# deinit() ("ValueError: GPIOn in use" for a second one); an input reads what drives it
# or a pull (floating: an error, not a guess); an output's value is set, not read back
# from outside; a deinited one refuses everything.
import microcontroller


class Direction:
    INPUT = "INPUT"
    OUTPUT = "OUTPUT"


class Pull:
    UP = "UP"
    DOWN = "DOWN"


class DriveMode:
    PUSH_PULL = "PUSH_PULL"
    OPEN_DRAIN = "OPEN_DRAIN"


class DigitalInOut:
    def __init__(self, pin):
        microcontroller.claim(pin, self)
        self.pin = pin
        self._direction = Direction.INPUT
        self._pull = None
        self._out = 0
        self._deinited = False

    def _check(self):
        if self._deinited:
            raise ValueError("Object has been deinitialized and can no longer be used. "
                             "Create a new object.")

    def deinit(self):
        if not self._deinited:
            microcontroller.release(self.pin)
            self._deinited = True

    def __enter__(self):
        return self

    def __exit__(self, *args):
        self.deinit()

    def switch_to_output(self, value=False, drive_mode=DriveMode.PUSH_PULL):
        self._check()
        self._direction = Direction.OUTPUT
        self._pull = None
        self._out = 1 if value else 0

    def switch_to_input(self, pull=None):
        self._check()
        if pull not in (None, Pull.UP, Pull.DOWN):
            raise ValueError("invalid pull")
        self._direction = Direction.INPUT
        self._pull = pull

    @property
    def direction(self):
        self._check()
        return self._direction

    @direction.setter
    def direction(self, value):
        if value == Direction.OUTPUT:
            self.switch_to_output()
        elif value == Direction.INPUT:
            self.switch_to_input()
        else:
            raise ValueError("invalid direction")

    @property
    def value(self):
        self._check()
        if self._direction == Direction.OUTPUT:
            return bool(self._out)
        pull = {Pull.UP: 1, Pull.DOWN: 0}.get(self._pull)
        return bool(microcontroller.level(self.pin.number, pull))

    @value.setter
    def value(self, value):
        self._check()
        if self._direction != Direction.OUTPUT:
            raise AttributeError("Cannot set value when direction is input.")
        self._out = 1 if value else 0

    @property
    def pull(self):
        self._check()
        if self._direction == Direction.OUTPUT:
            raise AttributeError("Pull not used when direction is output.")
        return self._pull
