# Virtual `esp32` module: the light-sleep wake sources, checked as the port checks them.
# ext0 and ext1 exist on the classic ESP32 only and take RTC GPIOs; wake_on_gpio is taken,
# conservatively, on deep-sleep-capable pins only (0-5 on the C3, RTC GPIOs on the ESP32).
import machine

WAKEUP_ALL_LOW = False
WAKEUP_ANY_HIGH = True
HEAP_DATA = 4
HEAP_EXEC = 1

# The classic ESP32's RTC GPIOs (ESP32 datasheet, RTC IO MUX).
_RTC_GPIOS = (0, 2, 4, 12, 13, 14, 15, 25, 26, 27, 32, 33, 34, 35, 36, 37, 38, 39)
_C3_WAKE_GPIOS = (0, 1, 2, 3, 4, 5)

chip = "esp32"   # set by world.wire() from the board file


def _classic():
    return not chip.startswith("esp32c")


def _ids(pins, allowed):
    out = []
    for pin in pins:
        pin_id = pin.id if isinstance(pin, machine.Pin) else pin
        if pin_id not in allowed:
            raise ValueError("invalid pin")   # the port's own words
        out.append(pin_id)
    return tuple(out)


def wake_on_ext0(pin, level):
    if not _classic():
        raise ValueError("ext0 wake: no such source on %s" % chip)
    if pin is None:
        machine.wake_sources.pop("ext0", None)
        return
    machine.wake_sources["ext0"] = (_ids([pin], _RTC_GPIOS), 1 if level else 0)


def wake_on_ext1(pins, level):
    if not _classic():
        raise ValueError("ext1 wake: no such source on %s" % chip)
    if not pins:
        machine.wake_sources.pop("ext1", None)
        return
    machine.wake_sources["ext1"] = (_ids(pins, _RTC_GPIOS), 1 if level else 0)


def wake_on_gpio(pins, level):
    if not pins:
        machine.wake_sources.pop("gpio", None)
        return
    allowed = _RTC_GPIOS if _classic() else _C3_WAKE_GPIOS
    machine.wake_sources["gpio"] = (_ids(pins, allowed), 1 if level else 0)
