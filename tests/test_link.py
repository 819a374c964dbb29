# The badge app with its radio, inside the MicroPython unix port (tests/mp/link_driver.py):
# a game master's stop and resume reach it in its listening windows, a replayed command
# after a reboot does nothing, forged and garbage frames change nothing, a healer's offer
# is taken only by the wearer's long press, and the radio is on its duty cycle.
import pytest

from conftest import app_driver_checks
from cran.radio.link import PERIOD_MS, WINDOW_MS
from host_tools.field.station import read_heartbeat


@pytest.fixture(scope="module")
def link_checks(micropython, tmp_path_factory):
    return app_driver_checks(micropython, "link_driver.py",
                             str(tmp_path_factory.mktemp("flash")))


def test_stop_and_resume_reach_the_badge_and_stay_spent(link_checks):
    r = link_checks("stop_and_resume_over_the_radio")
    assert (r["after_stop"], r["after_resume"]) == ("stop", "en-jeu")
    assert r["beats_at_start"] >= 1 and r["beats_after_stop"] > r["beats_at_start"]
    assert r["kept"]["spent"] == {"5a" * 6: [2, r["kept"]["spent"]["5a" * 6][1]]}
    assert r["kept"]["mark"] >= 1   # the counter's mark, written before its first frame
    assert r["replayed_stop_after_reboot"] == "en-jeu"
    assert set(r["dropped"]) == {"token"} and r["journal"] == ["stop", "reprise"]


def test_forged_and_garbage_frames_change_nothing(link_checks):
    r = link_checks("forged_and_garbage_frames_change_nothing")
    assert r["jeu"] == "en-jeu" and r["state_saved"]
    assert set(r["dropped"]) >= {"tag", "token", "kind", "size"}


def test_a_healers_offer_is_taken_only_near_and_by_a_long_press(link_checks):
    r = link_checks("a_healers_offer_is_taken_by_a_long_press")
    assert r["hit"] == "blesse" and r["far_offer"] is None
    assert r["near_offer"] == "soin" and r["before_press"] == "blesse"
    # The offer shows: the menu's soin green (capped by the board), flashing, on the
    # badge's one LED; blesse's own look (red) waits until it is taken or runs out.
    lit = {tuple(c) for c in r["offer_colours"]} - {(0, 0, 0)}
    assert len(lit) == 1 and (0, 0, 0) in {tuple(c) for c in r["offer_colours"]}, lit
    (r_, g, b), = lit
    assert g > r_ and g > b, lit
    assert r["after_press"] == "pleine-forme" and r["offer_after"] is None


def test_the_heartbeat_carries_the_battery_where_the_board_measures_it(link_checks):
    # The StickC's AXP192 reads its battery's voltage (3.9 V: ~70 %, rough; 4.3 V
    # charging: 100); no battery, or a board with no way to measure it: unknown.
    r = link_checks("the_heartbeat_carries_the_battery_where_the_board_measures_it")
    assert [(board, mv, read_heartbeat(bytes.fromhex(payload))["batterie"])
            for board, mv, payload, _ in r] == [
        ("m5stickc-plus", 3900, 70), ("m5stickc-plus", 4300, 100),
        ("m5stickc-plus", None, None), ("atom-lite", 3900, None),
        ("m5stickc-plus", 3900, None)]
    assert all(errors == [] for *_, errors in r[:4])
    # A power chip that does not answer: unknown, and journaled, the badge plays on.
    assert [e for e in r[4][3] if e.startswith("battery:")] == [
        "battery: the power chip does not answer ([Errno 19] ENODEV)"]


def test_the_radio_is_on_its_duty_cycle(link_checks):
    duty = link_checks("radio_on_time_is_its_duty_cycle")["duty"]
    assert abs(duty - WINDOW_MS / PERIOD_MS) < 0.01, duty


def test_a_game_master_resets_one_badge_to_a_new_character(link_checks):
    # Over the radio, to that badge alone: the character checked as the config checks
    # it, written into config.json (it comes back so after a reboot), then P3.
    r = link_checks("a_reset_to_a_new_character_over_the_radio")
    assert r["before"][:2] == ["agonisant", "0"] and r["config_before"] is None
    for refused in ("refused", "garbage", "another badge"):
        assert r[refused] == r["before"], refused
    assert r["taken"] == ["pleine-forme", "2", "Aude", 2, True]
    assert r["config_after"] == {"name": "Aude", "armor": 2, "helmet": True}
    assert r["rebooted"] == r["taken"]
    assert r["modules_left"] == []   # the checker loaded for it, and let go
    errors = [e["error"] for e in r["journal"] if "error" in e]
    assert len(errors) == 2 and "character.armor" in errors[0] and "metal" in errors[0]
    assert [(e.get("recast"), e.get("name"), e.get("armor"), e.get("a"))
            for e in r["journal"] if "error" not in e] == [
        ("radio", "Aude", 2, None), (None, None, None, "reset")]
