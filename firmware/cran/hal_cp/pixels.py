# Adafruit's NeoPixel (adafruit_pixelbuf) as the MicroPython NeoPixel that cran.hal.leds
# drives: a frame is written as bytes into `buf`, in RGB order here, and write() hands
# it to the library, which orders the bytes for the strip (GRB) and sends them.


class Strip:
    ORDER = (0, 1, 2)   # where r, g, b go in buf: the library takes (r, g, b) tuples

    def __init__(self, pixels):
        self.pixels = pixels
        self.buf = bytearray(3 * len(pixels))

    def __len__(self):
        return len(self.pixels)

    def __setitem__(self, i, rgb):   # as MicroPython's NeoPixel: (r, g, b) of LED i
        self.buf[3 * i:3 * i + 3] = bytes(rgb)

    def write(self):
        buf = self.buf
        pixels = self.pixels
        for i in range(len(pixels)):
            pixels[i] = (buf[3 * i], buf[3 * i + 1], buf[3 * i + 2])
        pixels.show()
