# A badge on the desk: its serial port and console, the firmware built for it (mpy-cross,
# ROMFS, the manifest), a CIRCUITPY drive and Adafruit's libraries for it.
