# gamefiles: the files an organiser writes, read on the host as a badge would read them:
# scenario files (gamefiles.scenario) and board files (gamefiles.board). Never copied to a
# badge; written in the firmware's dialect, since they also run inside the MicroPython
# and CircuitPython unix ports (host_tools/virtual/scripts/, tests/mp/), on the firmware's
# cran.core.
