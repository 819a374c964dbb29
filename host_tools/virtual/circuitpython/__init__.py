# Strict virtual CircuitPython: the modules a CircuitPython board has and the unix port
# of CircuitPython lacks (board, digitalio, neopixel_write, keypad, pwmio, microcontroller
# with nvm and its watchdog, supervisor, rtc, and a `time` as the board's), held to what
# the real ones do and refuse, as host_tools/virtual/micropython is for MicroPython. This
# folder goes first on the CircuitPython interpreter's path; the clock is micropython/'s
# vclock (loaded from there alone, not with its MicroPython modules). Each behaviour cites
# docs.circuitpython.org (shared-bindings/<module>).
import os

VCP_DIR = os.path.dirname(os.path.abspath(__file__))
