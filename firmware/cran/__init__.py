# cran: firmware of the GN effect badge.
# Importable by CPython (host tools, tests) and MicroPython (the badge). The package
# itself imports nothing of its own, so that no import of one of its modules is a cycle:
# the badge starts from cran.run, modules are let go with cran.compat.forget.

VERSION = "0.1.0"
