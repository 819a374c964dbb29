# Buttons through CircuitPython's keypad: it scans and debounces the pins in C, in the
# background, and queues each press and release with the tick it was seen at
# (docs.circuitpython.org shared-bindings/keypad). cran.hal.buttons.Button then tells
# short, long and double presses apart exactly as on MicroPython, fed those events in
# place of its pin's IRQ edges. keypad calls nothing back: a small task looks at the
# queue every poll_ms and, when something came, wakes the app (on_edge, as the IRQ's
# scheduled work does on MicroPython), whose show step then reads it. A look costs far
# less than a show step: the app itself sleeps until it has something to do.
import keypad
import supervisor

from cran.hal.buttons import Button


class _KeyLine:
    """What Button asks of its pin: the level keypad last reported (as the pin would
    read it), and an IRQ that never fires (the queue stands in for it)."""
    IRQ_FALLING = 2
    IRQ_RISING = 1

    def __init__(self, level):
        self.level = level

    def value(self):
        return self.level

    def irq(self, handler=None, trigger=0):
        return None


class KeyButton(Button):
    # How often the queue is looked at. A press is only told apart from a double
    # click 350 ms after its release (Button.double_click_ms), a long one at 800: 50 ms
    # more is not seen, and each look is a wake-up of the chip (and of a test's run).
    poll_ms = 50

    def __init__(self, keys, name, active_low, on_event, on_edge=None, held=False):
        """held: the key was down as the badge started (key_buttons reads it)."""
        self.keys = keys
        self._event = keypad.Event()   # one, refilled by get_into: no garbage a poll
        self._watcher = None
        # keypad starts with every key released, and a key held at boot comes as a
        # press on its first scan. Told it is held, Button takes that press for what
        # it already knows and its release for nothing, as MicroPython's pin read at
        # boot makes it: a button held at boot is no press.
        active = 0 if active_low else 1
        Button.__init__(self, _KeyLine(active if held else 1 - active), name, active_low,
                        on_event, clock=supervisor.ticks_ms, on_edge=on_edge)

    async def _watch(self):
        import asyncio
        queue = self.keys.events
        while True:
            # (Adafruit's asyncio has MicroPython's sleep_ms; mypy reads CPython's.)
            await asyncio.sleep_ms(self.poll_ms)  # type: ignore[attr-defined]
            if queue:
                self._on_edge()

    def handle(self, now):
        if self._watcher is None and self._on_edge is not None:
            # Started by the first show step, which runs in the app's loop.
            import asyncio
            self._watcher = asyncio.create_task(self._watch())
        queue = self.keys.events
        event = self._event
        while queue.get_into(event):
            level = self._active if event.pressed else 1 - self._active
            self.pin.level = level
            self._edge(event.timestamp, level)   # in order, as the IRQ's ring would
        if queue.overflowed:   # presses were lost: the last level known stands
            queue.clear()
            self._lost = True
        Button.handle(self, now)


def key_buttons(specs, gpio, on_event, on_edge=None):
    """The board file's buttons -> [KeyButton], one keypad.Keys each (a pull and a
    polarity of its own). gpio(number) -> the microcontroller.pin."""
    out = []
    for spec in specs:
        low = spec["active_low"]
        pin = gpio(spec["pin"])
        held = _held(pin, low, spec["pull"] is not None)
        # keypad's pull is the one against the pressed level; null in the board file
        # means the board has its own resistor.
        keys = keypad.Keys((pin,), value_when_pressed=not low,
                           pull=spec["pull"] is not None)
        out.append(KeyButton(keys, spec["name"], low, on_event, on_edge, held))
    return out


def _held(pin, active_low, pull):
    """Whether the key on pin is down now: read once through digitalio, before keypad
    takes the pin (keypad tells no state, only changes)."""
    import digitalio
    line = digitalio.DigitalInOut(pin)
    try:
        if pull:
            line.switch_to_input(pull=digitalio.Pull.UP if active_low else digitalio.Pull.DOWN)
        else:
            line.switch_to_input()
        return line.value != active_low
    finally:
        line.deinit()
