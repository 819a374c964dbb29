# The battery estimate: what the virtual hardware counted through a game day
# (virtual/micropython/meter.py) times a table of currents, each with its source (docs/POWER.md
# says the same, with the reasoning). Pure arithmetic, so it is unit-tested against a hand
# computation.

# Currents in mA at the 3.3 V rail. (value, source)
CHIPS = {
    # The classic ESP32 (the Atom's ESP32-PICO-D4 is one, in a package).
    "esp32": {
        "light_sleep": (0.8, "ESP32 datasheet, Power Consumption by Power Modes: "
                             "Light-sleep 0.8 mA"),
        "awake": (44.0, "ESP32 datasheet, Modem-sleep (radio off), CPU at 160 MHz: "
                        "27-44 mA; the top of the range"),
    },
    "esp32c3": {
        "light_sleep": (0.13, "ESP32-C3 datasheet: Light-sleep 130 uA"),
        "awake": (28.0, "ESP32-C3 datasheet, Modem-sleep at 160 MHz, CPU running: "
                        "about 20-28 mA; the top of the range"),
    },
}
# Each light-sleep wake-up keeps the CPU up for longer than the virtual clock shows (its
# steps take no virtual time): waking (under 1 ms), one show step in MicroPython (an idle
# one takes ~20 us in this machine's unix port, docs/PERFORMANCE.md's device factor of
# 170-320 makes it 3-7 ms on an ESP32), a LED write. An assumption until measured on a
# badge.
WAKE_MS = (5.0, "assumed: wake-up, one show step and a LED write; not yet measured")
LED_IDLE = (1.0, "WS2812/SK6812 quiescent current per LED, lit or not: ~1 mA as "
                 "commonly measured (not given in the Worldsemi datasheet)")
LED_CHANNEL_FULL = (20.0, "one colour channel at 255: 12-20 mA (WS2812B datasheets by "
                          "version; Adafruit's NeoPixel guide uses 20 mA); the top")
BUZZER_ON = (5.0, "assumed for a passive piezo driven from a GPIO (a few mA; an "
                  "electromagnetic buzzer would draw ~30 mA); no datasheet for the part")
RADIO_ON = (100.0, "ESP32 datasheet, Wi-Fi/BT Rx and listening: 95-100 mA")

# Per board: parts off the chip that draw current. (mA or None if unknown, what)
BOARD_PARTS = {
    "atom-lite": [(None, "the 3.3 V regulator and USB-serial chip (not in M5Stack's docs)")],
    "atom-matrix": [(None, "the 3.3 V regulator and USB-serial chip (not in M5Stack's "
                           "docs)"),
                    (None, "the MPU6886 IMU (never started by the firmware: its sleep "
                           "current)")],
    "esp32-devkitc": [(None, "the DevKitC's LDO (AMS1117-class parts draw ~5 mA "
                             "quiescent; which part a given board carries varies), its "
                             "power LED and USB-serial chip"),
                      (None, "the optional SSD1306 screen")],
    "esp32c3-supermini": [(None, "the SuperMini's LDO and power LED"),
                          (None, "the optional SSD1306 screen")],
    "m5stickc-plus": [(None, "the ST7789 screen and its backlight (on all the time: "
                             "likely the largest draw of this board)"),
                      (None, "the AXP192 power chip's quiescent current")],
}


def estimate(counts, chip, led_count, capacity_mah=500.0, board_parts=()):
    """counts: meter.read() of a run -> {"sleep", "awake", "wakeups", "leds", "buzzer",
    "radio", "board", "total" (average mA each), "hours" (capacity / total),
    "unknown": [what is not counted]}."""
    ms = float(counts["elapsed_ms"])
    table = CHIPS[chip]
    sleep_ma = table["light_sleep"][0]
    awake_ma = table["awake"][0]
    out = {"sleep": counts["lightsleep_ms"] / ms * sleep_ma,
           "awake": counts["awake_ms"] / ms * awake_ma,
           # the wake-ups' own time: awake instead of asleep, unseen by the clock
           "wakeups": counts["lightsleeps"] * WAKE_MS[0] / ms * (awake_ma - sleep_ma)}
    lit = 0.0
    for sums in counts["leds"].values():
        lit += sum(sums) / 255.0 / ms * LED_CHANNEL_FULL[0]
    out["leds"] = led_count * LED_IDLE[0] + lit
    out["buzzer"] = sum(on[0] for on in counts["pwm"].values()) / ms * BUZZER_ON[0]
    out["radio"] = counts["radio_on_ms"] / ms * RADIO_ON[0]
    out["board"] = sum(ma for ma, _ in board_parts if ma is not None)
    out["total"] = sum(out[k] for k in ("sleep", "awake", "wakeups", "leds", "buzzer",
                                        "radio", "board"))
    out["hours"] = capacity_mah / out["total"]
    out["unknown"] = [what for ma, what in board_parts if ma is None]
    return out
