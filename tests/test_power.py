# The battery estimate (host_tools/virtual/power.py): its arithmetic against a hand computation,
# and docs/POWER.md giving every current the estimate uses.
import os

import pytest

from host_tools.virtual import power

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_the_estimate_is_the_hand_computation():
    # One hour: 0.9 h in light sleep, 0.1 h awake, 720 wake-ups; one LED with green at
    # 60 for 6 minutes; the buzzer on for 36 s.
    counts = {"elapsed_ms": 3600000, "lightsleep_ms": 3240000, "awake_ms": 360000,
              "lightsleeps": 720, "radio_on_ms": 0,
              "leds": {"27": [0, 60 * 360000, 0]}, "pwm": {"25": [36000, 123]}}
    e = power.estimate(counts, "esp32", 1, 500, [(0.5, "a regulator"), (None, "a mystery")])
    # By hand, with the table's figures: 0.8 mA asleep, 44 mA awake, 5 ms per wake-up,
    # 1 mA per idle LED, 20 mA per channel at 255, 5 mA buzzing.
    assert e["sleep"] == pytest.approx(0.9 * 0.8)                        # 0.72
    assert e["awake"] == pytest.approx(0.1 * 44)                         # 4.4
    assert e["wakeups"] == pytest.approx(720 * 5 / 3600000 * (44 - 0.8))  # 0.0432
    assert e["leds"] == pytest.approx(1 + 0.1 * 60 / 255 * 20)           # 1.4706
    assert e["buzzer"] == pytest.approx(0.01 * 5)                        # 0.05
    assert e["radio"] == 0 and e["board"] == 0.5
    assert e["total"] == pytest.approx(7.1838, abs=1e-4)
    assert e["hours"] == pytest.approx(500 / 7.1838, abs=1e-2)           # 69.6 h
    assert e["unknown"] == ["a mystery"]


def test_the_table_is_the_one_the_hand_computation_used():
    assert power.CHIPS["esp32"]["light_sleep"][0] == 0.8
    assert power.CHIPS["esp32"]["awake"][0] == 44
    assert (power.WAKE_MS[0], power.LED_IDLE[0], power.LED_CHANNEL_FULL[0],
            power.BUZZER_ON[0]) == (5, 1, 20, 5)


def test_docs_give_every_current_and_its_source():
    with open(os.path.join(REPO, "docs", "POWER.md"), encoding="utf-8") as f:
        text = f.read()
    figures = [power.WAKE_MS, power.LED_IDLE, power.LED_CHANNEL_FULL, power.BUZZER_ON,
               power.RADIO_ON]
    for chip in power.CHIPS.values():
        figures.extend(chip.values())
    for value, source in figures:
        assert "| %g |" % value in text, (value, source)
    for board in power.BOARD_PARTS:
        assert "`%s`" % board in text
