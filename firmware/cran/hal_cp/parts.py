# The CircuitPython drivers of a board's parts, as cran.start.parts wires MicroPython's: its
# LEDs through Adafruit's neopixel library, its buttons through keypad, its buzzer
# through pwmio; and the state and journal in microcontroller.nvm. cran.start.parts and
# cran.start.restore call these for a board file whose "runtime" is "circuitpython".
import microcontroller

# microcontroller.nvm: the state's two records first, the journal's ring after them,
# the count of watchdog resets (cran.boots) in the last bytes.
_RECORD_BYTES = 1536   # a record is 250-600 bytes; a bigger one is refused (StateStore)
_BOOTS_BYTES = 64      # "<crc> [three stamps]\n" is ~45


def gpio(number):
    """The board file's GPIO number -> the microcontroller.pin object (board.NEOPIXEL
    and the like are the same objects: the library compares them)."""
    # microcontroller.pin holds the chip's own pins: the stubs, for every chip, leave
    # it out.
    return getattr(microcontroller.pin, "GPIO%d" % number)  # type: ignore[attr-defined]


def leds(board):
    spec = board.leds
    if spec is None:
        return None
    from cran.hal.leds import Leds
    return Leds(strip(spec["pin"], spec["count"]), spec["max_brightness"])


def strip(pin, count):
    """The NeoPixels on GPIO pin as the MicroPython NeoPixel cran.hal.leds and the
    can't-start path (cran.fail) drive. AttributeError: no such pin on this chip."""
    import neopixel

    from cran.hal_cp.pixels import Strip
    # brightness 1.0: the board's cap is applied by Leds, as on MicroPython, so the
    # bytes sent are the frame's own; auto_write off: one show() a frame.
    return Strip(neopixel.NeoPixel(gpio(pin), count, brightness=1.0, auto_write=False,
                                   pixel_order=neopixel.GRB))


def buzzer_pwm(board):
    if board.buzzer is None:
        return None
    import pwmio

    from cran.hal_cp.tone import Tone
    # duty 0 from the first instant, as on MicroPython; variable_frequency for tunes.
    pwm = pwmio.PWMOut(gpio(board.buzzer["pin"]), duty_cycle=0, frequency=2000,
                       variable_frequency=True)
    return Tone(pwm)


def buttons(board, on_event, on_edge=None):
    from cran.hal_cp.keys import key_buttons
    return key_buttons(board.buttons, gpio, on_event, on_edge)


def wake_on_buttons(board, buttons):
    # keypad scans its pins in the background and queues what it sees, but nothing
    # wakes a light-sleeping chip on a key: the app stays awake, polling (keys.py).
    return "keypad has no wake-up: CircuitPython keeps the chip awake"


def stores(root, copy):
    """-> (StateStore, Journal) kept in microcontroller.nvm: CircuitPython's file system
    is read-only to the code while a computer has the drive (and a badge is plugged
    into one to be flashed)."""
    from cran.hal_cp.nvm import NvmJournal, NvmStateStore
    nvm = _nvm()
    return (NvmStateStore(nvm, 0, _RECORD_BYTES),
            NvmJournal(nvm, 2 * _RECORD_BYTES, len(nvm) - 2 * _RECORD_BYTES - _BOOTS_BYTES))


def boots():
    """-> where cran.boots keeps its stamps of watchdog resets: nvm too (boots.json could
    not be written while a computer has the drive, and safe mode would never come)."""
    from cran.hal_cp.nvm import NvmBoots
    nvm = _nvm()
    return NvmBoots(nvm, len(nvm) - _BOOTS_BYTES, _BOOTS_BYTES)


def _nvm():
    nvm = microcontroller.nvm
    if nvm is None:   # "None if there is no nvm" on this port: nowhere to keep a state
        raise OSError("this CircuitPython has no microcontroller.nvm")
    return nvm
