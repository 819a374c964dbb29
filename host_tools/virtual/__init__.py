# The firmware off a badge: the interpreters that run it (MicroPython, CPython,
# CircuitPython) and the boards they stand for, a virtual badge behind a pty, and the
# battery estimate from what the virtual parts counted. The virtual parts themselves
# (vhw/, vcp/) and the scripts MicroPython runs (mp/) are put on its path by folder.
