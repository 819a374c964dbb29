# The `board` module of each CircuitPython board a board file names, as CircuitPython
# 10.2.1 defines it (ports/espressif/boards/<id>/pins.c, which circuitpython-stubs'
# board_definitions/<id>/__init__.pyi repeat name by name): name -> GPIO number, the
# names our firmware or Adafruit's libraries use. tests/test_circuitpython.py checks
# every entry against the stubs where they are installed.
BOARDS = {
    "m5stack_atoms3_lite": {
        "chip": "esp32s3",
        "pins": {"NEOPIXEL": 35, "BTN": 41, "IR_LED": 4, "PORTA_SCL": 1, "PORTA_SDA": 2,
                 "D39": 39, "D38": 38},
    },
    "adafruit_qtpy_esp32s3_4mbflash_2mbpsram": {
        "chip": "esp32s3",
        "pins": {"NEOPIXEL": 39, "NEOPIXEL_POWER": 38, "BUTTON": 0, "SDA": 7, "SCL": 6,
                 "A0": 18, "A1": 17, "TX": 5, "RX": 16},
    },
}
