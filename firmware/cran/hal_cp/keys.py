# Buttons through CircuitPython's keypad: it scans and debounces the pins in C, in the
# background, and queues each press and release with the tick it was seen at
# (docs.circuitpython.org shared-bindings/keypad). cran.hal.buttons.Button then tells
# short, long and double presses apart exactly as on MicroPython, fed those events in
# place of its pin's IRQ edges. keypad calls nothing back: the app reads the queue at
# every show step, and wakes at least every poll_ms for it.
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
    poll_ms = 20    # keypad's own scan interval: a press shows within two of them

    def __init__(self, keys, name, active_low, on_event):
        self.keys = keys
        self._event = keypad.Event()   # one, refilled by get_into: no garbage a poll
        # keypad starts with every key released: a key held at boot comes as a press
        # on its first scan.
        Button.__init__(self, _KeyLine(1 if active_low else 0), name, active_low,
                        on_event, clock=supervisor.ticks_ms)

    def handle(self, now):
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

    def next_timeout_ms(self, now):
        left = Button.next_timeout_ms(self, now)
        return self.poll_ms if left is None or left > self.poll_ms else left


def key_buttons(specs, gpio, on_event):
    """The board file's buttons -> [KeyButton], one keypad.Keys each (a pull and a
    polarity of its own). gpio(number) -> the microcontroller.pin."""
    out = []
    for spec in specs:
        low = spec["active_low"]
        # keypad's pull is the one against the pressed level; null in the board file
        # means the board has its own resistor.
        keys = keypad.Keys((gpio(spec["pin"]),), value_when_pressed=not low,
                           pull=spec["pull"] is not None)
        out.append(KeyButton(keys, spec["name"], low, on_event))
    return out
