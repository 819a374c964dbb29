# The CircuitPython build's drivers and runtime: the same app, core and storage logic
# as on MicroPython, over CircuitPython's modules (supervisor, microcontroller, keypad,
# pwmio) and Adafruit's libraries (neopixel, asyncio). Nothing here is imported on a
# MicroPython badge: code.py installs the runtime (runtime.install), and cran.start.parts and
# cran.start.restore take these drivers for a board file whose "runtime" is "circuitpython".
