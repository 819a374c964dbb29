# Virtual `neopixel_write` (shared-bindings/neopixel_write): neopixel_write(digitalinout,
# buf) sends buf's bytes as they are (GRB for a WS2812: the library orders them) down a
# DigitalInOut set as an output. Every write is recorded per GPIO, as the strip got it.
import digitalio
import microcontroller

writes = {}   # GPIO number -> [bytes of each write]; the tests read it


def neopixel_write(digitalinout, buf):
    if not isinstance(digitalinout, digitalio.DigitalInOut):
        raise TypeError("DigitalInOut expected, got %s" % type(digitalinout).__name__)
    if digitalinout.direction != digitalio.Direction.OUTPUT:
        raise ValueError("the NeoPixel pin must be an output")
    keep = microcontroller.history
    if keep < 0:
        return
    sent = writes.setdefault(digitalinout.pin.number, [])
    sent.append(bytes(buf))
    if keep and len(sent) > keep:
        del sent[0]


def last(number):
    """The bytes of the last write on GPIO number, or None."""
    sent = writes.get(number)
    return sent[-1] if sent else None
