# RGB LEDs: frames of (r, g, b) capped to the board's max_brightness, sent only when they
# change (a write to 25 WS2812s stalls interrupts ~0.8 ms; most frames repeat).


def cap(color, max_brightness):
    """Scale (r, g, b) so no channel exceeds max_brightness, keeping the hue. A colour
    within the cap comes back as it is (frames share their colours' tuples)."""
    r, g, b = color
    top = max(r, g, b)
    if top <= max_brightness:
        return color if isinstance(color, tuple) else (r, g, b)
    half = top >> 1   # round to nearest: the brightest channel lands on the cap exactly
    return ((r * max_brightness + half) // top, (g * max_brightness + half) // top,
            (b * max_brightness + half) // top)


class Leds:
    def __init__(self, np, max_brightness):
        """np: a neopixel.NeoPixel of 3 bytes a pixel (RGB parts: WS2812, SK6812)."""
        self.np = np
        self.count = len(np)
        self.max_brightness = max_brightness
        # Where each of r, g, b goes in the driver's buffer: its own ORDER (GRB).
        self._order = getattr(np, "ORDER", (1, 0, 2))
        self._shown = None   # the bytes last written; None: unknown (at boot)

    def cap(self, colour):
        """One colour within the board's cap (cues.frame_of's cap)."""
        return cap(colour, self.max_brightness)

    def pack(self, frame):
        """frame: (r, g, b) per LED, within the cap already (cues.frame_of's cap);
        missing LEDs are off. -> the bytes write() takes: the driver's buffer as its
        write() sends it."""
        order = self._order
        out = bytearray(3 * self.count)
        for i in range(min(self.count, len(frame))):
            colour = frame[i]
            out[3 * i + order[0]] = colour[0]
            out[3 * i + order[1]] = colour[1]
            out[3 * i + order[2]] = colour[2]
        return bytes(out)

    def _capped(self, frame):
        """pack() of frame's colours each brought within the board's cap."""
        return self.pack([cap(colour, self.max_brightness) for colour in frame])

    def show(self, frame):
        """Cap and write a frame. -> True when it wrote, False when the LEDs already
        show this."""
        return self.write(self._capped(frame))

    def write(self, out):
        """pack()ed bytes to the LEDs, unless they show them already. Allocates
        nothing: the show step may run with the heap locked."""
        if out == self._shown:
            return False
        # Into the driver's buffer in one copy: its __setitem__ is Python (neopixel.py,
        # frozen in MicroPython's firmware), three stores a pixel, which a hit's new
        # look paid 20 times on a 25-LED matrix before its write.
        self.np.buf[:] = out
        self.np.write()
        self._shown = out
        return True

    def off(self):
        return self.show(())
