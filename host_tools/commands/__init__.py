# The commands of `cran`, one module each, named as it is typed: its arguments (setup)
# and its run, nothing else; what they share is in the packages by domain beside this
# one. No command module imports another (tests/test_shape.py).
