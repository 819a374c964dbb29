# A badge on the desk: its serial port and console, its status and its check, the
# firmware built for it (mpy-cross, ROMFS, the manifest) and which badge gets what, a
# CIRCUITPY drive and Adafruit's libraries for it.
