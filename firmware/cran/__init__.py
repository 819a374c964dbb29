# cran: firmware of the GN effect badge.
# Importable by CPython (host tools, tests) and MicroPython (the badge).
VERSION = "0.1.0"
