# The battery's charge, where the board can measure it: the AXP192 power chip (the
# M5StickC Plus) has an ADC on the battery's voltage. Loaded only in a game with the
# radio, whose heartbeat carries it to the station (cran.radio.start.start); a board with no
# such part reports none, "unknown", never a guess.
import machine

from cran.core.vocab import const

_ADC_ENABLE = const(0x82)   # bit 7: the battery voltage's ADC
_VOLTAGE = const(0x78)      # 12 bits of 1.1 mV: 0x78 the high 8, 0x79 the low 4
_EMPTY_MV = const(3300)     # a LiPo under load: empty ...
_FULL_MV = const(4150)      # ... and full (4.2 V charging)
_NONE_MV = const(2500)      # below: no battery (the ADC reads ~0 without one)


def battery(power, badge):
    """The board's power part (an AXP192: the only kind a board file names) -> a
    function giving the battery's charge, 0-100, from its voltage (rough: a LiPo's
    voltage is not linear in its charge), None with no battery or no answer; None
    when the chip does not answer now (journaled on badge)."""
    bus = power["i2c"]
    addr = bus["addr"]
    i2c = machine.I2C(0, scl=machine.Pin(bus["scl"]), sda=machine.Pin(bus["sda"]),
                      freq=400000)
    try:
        on = i2c.readfrom_mem(addr, _ADC_ENABLE, 1)[0]
        if not on & 0x80:   # its battery voltage's ADC turned on
            i2c.writeto_mem(addr, _ADC_ENABLE, bytes([on | 0x80]))
    except OSError as e:
        badge.log({"error": "battery: the power chip does not answer (%s)" % (e,)})
        return None

    def percent():
        try:
            raw = i2c.readfrom_mem(addr, _VOLTAGE, 2)
        except OSError:
            return None
        mv = ((raw[0] << 4) | (raw[1] & 0x0F)) * 11 // 10
        if mv < _NONE_MV:
            return None
        return max(0, min(100, (mv - _EMPTY_MV) * 100 // (_FULL_MV - _EMPTY_MV)))
    return percent
