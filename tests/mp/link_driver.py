# The badge app with its radio (cran.radio.link over cran.hal.espnow) on the virtual hardware,
# inside the MicroPython unix port: frames delivered to the virtual espnow as a game
# master's station or a healer would send them, the badge's own frames read back.
#   micropython link_driver.py FIRMWARE_DIR BOARDS_DIR FLASH_DIR VHW_DIR EXTRA_DIR
# Prints one JSON line per check: {"id", "result"} or {"id", "crash"}; tests/test_link.py
# holds the expectations.
import json
import sys

sys.path[:0] = [sys.argv[4], sys.argv[5], sys.argv[1]]

import asyncio  # noqa: E402
import time  # noqa: E402

import espnow  # noqa: E402
import machine  # noqa: E402
import vclock  # noqa: E402
from checks import check, fresh_badge, run_checks, run_for  # noqa: E402

from cran import radio  # noqa: E402
from cran.app import App  # noqa: E402
from cran.core.view import view  # noqa: E402
from cran.radio.treat import Chain  # noqa: E402
from cran.start.config import load  # noqa: E402
from cran.tags import to_hex  # noqa: E402

BOARDS, FLASH = sys.argv[2], sys.argv[3]
GAME_KEY = bytes(range(32))
GM_ID, HEALER_ID = b"\x5a" * 6, b"\x4e" * 6
GM_SEED, HEALER_SEED = b"G" * 16, b"H" * 16
KEYS = radio.Keys(GAME_KEY)


def chain_token(seed, index):
    """Token index of the chain grown from seed, as a healer's badge makes its own (it
    never gives token 0, the anchor: token 1 hashed once more)."""
    token = Chain(seed, max(1, index)).take()[1]
    return radio.chain_step(token) if index == 0 else token

def radio_config(role="badge", seed=None):
    out = {"role": role, "authorities": {
        to_hex(GM_ID): ["gm", to_hex(chain_token(GM_SEED, 0))],
        to_hex(HEALER_ID): ["healer", to_hex(chain_token(HEALER_SEED, 0))]}}
    if seed:
        out["seed"] = to_hex(seed)
    return out


def badge(board="atom-lite", config=None):
    """checks.fresh_badge with this game's radio and its key."""
    return fresh_badge(FLASH, BOARDS, board, config or {"radio": radio_config()},
                       game_key=GAME_KEY)


def sent_again(frame, ms, rssi=-45, sender=GM_ID):
    """A station's copies of frame every 3 ms for ms (as cran.radio.link sends them)."""
    async def go():
        for _ in range(ms // 3):
            espnow.deliver(sender, frame, rssi)
            await asyncio.sleep_ms(3)
    return go


def gm(kind, index, counter, payload=b""):
    return radio.seal(KEYS, GM_ID, radio.GM, counter, kind, payload,
                      (index, chain_token(GM_SEED, index)))


def jeu(app):
    return view(app.badge.state, time.ticks_ms())["jeu"]


def heard_beats():
    return [f for _, f in espnow.sent if f[16] == radio.HEARTBEAT]


@check
def stop_and_resume_over_the_radio():
    root, app = badge()
    run_for(app, 2000)
    out = {"beats_at_start": len(heard_beats())}
    run_for(app, 10, sent_again(gm(radio.STOP, 1, 0), 1000))
    out["after_stop"] = jeu(app)
    out["beats_after_stop"] = len(heard_beats())   # the change said at the next window
    run_for(app, 10, sent_again(gm(radio.RESUME, 2, 1), 1000))
    out["after_resume"] = jeu(app)
    with open(root + "/radio.json") as f:
        out["kept"] = json.loads(f.read())
    # Rebooted: the old stop, replayed, is refused (its token was spent before).
    machine.reboot()
    app = App(root, load(root))
    run_for(app, 10, sent_again(gm(radio.STOP, 1, 7), 1000))
    out["replayed_stop_after_reboot"] = jeu(app)
    out["dropped"] = app.link.listener.dropped
    out["journal"] = [e.get("a") for e in app.badge.journal.entries() if "a" in e]
    return out


@check
def forged_and_garbage_frames_change_nothing():
    root, app = badge()
    run_for(app, 1000)
    frames = [gm(radio.STOP, 1, 0)[:-1] + b"\x00",                  # a bad tag
              radio.seal(KEYS, GM_ID, radio.GM, 1, radio.STOP, b"", (1, b"t" * 16)),
              radio.seal(KEYS, b"\x01" * 6, radio.BADGE, 2, radio.STOP),
              b"\xc1" + bytes(40), b"", bytes(250)]
    for frame in frames:
        run_for(app, 10, sent_again(frame, 1000) if frame else None)
    return {"jeu": jeu(app), "dropped": app.link.listener.dropped,
            "state_saved": app.badge.save_error is None}


@check
def a_reset_to_a_new_character_over_the_radio():
    from cran.core.words import parse_action
    root, app = badge()
    run_for(app, 1000)
    me = machine.unique_id()
    app.badge.apply(parse_action("coup agonisant"), time.ticks_ms())

    def seen():
        v = view(app.badge.state, time.ticks_ms())
        c = app.badge.character
        return [v["etat"], v["armure"], c.name, c.armor, c.helmet]

    def config_character():
        with open(root + "/config.json") as f:
            return json.loads(f.read()).get("character")

    out = {"before": seen(), "config_before": config_character()}
    sends = ((me + b'{"armor":"metall"}', "refused"),        # not a character: nothing
             (me + b"\xff{", "garbage"),
             (b"\x01" * 6 + b'{"armor":1}', "another badge"),
             (me + b'{"name":"Aude","armor":2,"helmet":true}', "taken"))
    for i, (payload, name) in enumerate(sends):
        run_for(app, 10, sent_again(gm(radio.RESET, i + 1, i, payload), 1000))
        out[name] = seen()
    out["config_after"] = config_character()
    out["modules_left"] = sorted(m for m in sys.modules if m in (
        "cran.radio.recast", "cran.start.config", "cran.core.choices"))
    out["journal"] = [e for e in app.badge.journal.entries()
                      if e.get("radio") == "reset" or e.get("a") == "reset"
                      or "recast" in e]
    machine.reboot()   # it comes back as the new character
    app = App(root, load(root))
    run_for(app, 100)
    out["rebooted"] = seen()
    return out


@check
def a_healers_offer_is_taken_by_a_long_press():
    root, app = badge()
    run_for(app, 500)
    pin = 39   # the Atom Lite's button
    machine.drive_at(0, pin, 0)   # a hit: blesse
    machine.drive_at(80, pin, None)
    run_for(app, 1500)
    out = {"hit": view(app.badge.state, time.ticks_ms())["etat"]}
    me = machine.unique_id()
    far = radio.seal(KEYS, HEALER_ID, radio.HEALER, 0, radio.HEAL, me,
                     (1, chain_token(HEALER_SEED, 1)))
    run_for(app, 10, sent_again(far, 1000, rssi=-80, sender=HEALER_ID))
    out["far_offer"] = app.menu.offer
    near = radio.seal(KEYS, HEALER_ID, radio.HEALER, 1, radio.HEAL, me,
                      (2, chain_token(HEALER_SEED, 2)))
    run_for(app, 10, sent_again(near, 1000, rssi=-40, sender=HEALER_ID))
    out["near_offer"] = app.menu.offer
    seen = []   # the LED through a rhythm of 4 s, while the offer waits
    for _ in range(70):
        run_for(app, 60)
        seen.append(list(app.leds.np.last[0]))
    out["offer_colours"] = seen
    out["before_press"] = view(app.badge.state, time.ticks_ms())["etat"]
    machine.drive_at(0, pin, 0)      # a long press
    machine.drive_at(1200, pin, None)
    run_for(app, 2500)
    out["after_press"] = view(app.badge.state, time.ticks_ms())["etat"]
    out["offer_after"] = app.menu.offer
    return out


@check
def the_heartbeat_carries_the_battery_where_the_board_measures_it():
    import binascii

    import world
    out = []
    for board, mv, i2c in (("m5stickc-plus", 3900, True), ("m5stickc-plus", 4300, True),
                           ("m5stickc-plus", None, True), ("atom-lite", 3900, True),
                           ("m5stickc-plus", 3900, False)):   # its power chip silent
        world.battery_mv = mv
        root, app = fresh_badge(FLASH, BOARDS, board, {"radio": radio_config()},
                                game_key=GAME_KEY, i2c=i2c)
        del espnow.sent[:]
        run_for(app, 2000)
        kind, _, _, payload = radio.Listener(KEYS, {}).open(heard_beats()[-1])
        # The payload as heard: the station's reading of it is the host's (read_heartbeat).
        out.append([board, mv, binascii.hexlify(payload).decode(),
                    [e["error"] for e in app.badge.journal.entries() if "error" in e]])
    world.battery_mv = 3900
    return out


@check
def radio_on_time_is_its_duty_cycle():
    root, app = badge()
    run_for(app, 1000)
    start, on = vclock.elapsed_ms(), machine.radio_on_ms
    run_for(app, 60000)
    return {"duty": (machine.radio_on_ms - on) / (vclock.elapsed_ms() - start)}


run_checks()
