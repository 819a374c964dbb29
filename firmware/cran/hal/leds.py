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
    OFF = (0, 0, 0)

    def __init__(self, np, max_brightness):
        self.np = np
        self.count = len(np)
        self.max_brightness = max_brightness
        self._shown = None   # the capped frame last written; None: unknown (at boot)

    def cap(self, colour):
        """One colour within the board's cap (cues.frame_of's cap)."""
        return cap(colour, self.max_brightness)

    def capped(self, frame):
        """frame: (r, g, b) per LED (0-255 each); missing LEDs are off. -> the frame as
        write() takes it, each colour within the board's cap."""
        n = self.count
        out = [self.OFF] * n
        capped = {}   # one tuple per colour: a 25-LED frame is 25 references
        for i in range(min(n, len(frame))):
            colour = frame[i]
            if colour not in capped:
                capped[colour] = cap(colour, self.max_brightness)
            out[i] = capped[colour]
        return out

    def show(self, frame):
        """Cap and write a frame. -> True when it wrote, False when the LEDs already
        show this."""
        return self.write(self.capped(frame))

    def write(self, out):
        """A capped() frame to the LEDs, unless they show it already. Allocates
        nothing: the show step may run with the heap locked."""
        shown = self._shown
        if out == shown:
            return False
        np = self.np
        if shown is None:
            for i in range(self.count):
                np[i] = out[i]
        else:
            # Only the LEDs that change: the driver's __setitem__ is Python (neopixel.py)
            # and costs more than this comparison; a hit's new look is written sooner.
            for i in range(self.count):
                if out[i] != shown[i]:
                    np[i] = out[i]
        np.write()
        self._shown = out
        return True

    def off(self):
        return self.show(())
