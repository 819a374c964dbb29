# The CircuitPython badge's entry point (cran flash --drive copies it last, as it is):
# the firmware's MicroPython names (time, machine) over CircuitPython's own modules
# first (cran.hal_cp.runtime), then the app, as main.py starts it on MicroPython.
from cran.hal_cp import runtime

runtime.install()
__import__("cran.run", None, None, ("main",)).main()
