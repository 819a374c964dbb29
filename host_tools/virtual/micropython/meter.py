# Power counters of the virtual hardware, for the battery estimate (bench/power_day.py,
# host_tools/virtual/power.py): what each part did, integrated on the virtual clock, never
# sampled. CPython and MicroPython.
import machine
import neopixel
import vclock


def reset():
    """Count everything from now (machine.reset_all() also zeroes the chip's own)."""
    for pwm in machine._pwms.values():
        pwm._account()
    machine.pwm_totals.clear()
    machine._counting_since = vclock.elapsed_ms()
    machine.lightsleep_ms = 0
    machine.wakeups = 0
    machine.radio_on_ms = 0
    neopixel.reset_counters()


def read():
    """-> {"elapsed_ms", "awake_ms", "lightsleep_ms", "lightsleeps", "radio_on_ms",
    "leds": {pin: [r, g, b] value x ms}, "pwm": {pin: [on ms, duty_u16 x ms]}}"""
    for pwm in machine._pwms.values():
        pwm._account()
    return {"elapsed_ms": vclock.elapsed_ms() - machine._counting_since,
            "awake_ms": machine.awake_ms(), "lightsleep_ms": machine.lightsleep_ms,
            "lightsleeps": machine.wakeups, "radio_on_ms": machine.radio_on_ms,
            "leds": dict((str(k), v) for k, v in neopixel.lit().items()),
            "pwm": dict((str(k), list(v)) for k, v in machine.pwm_totals.items())}
