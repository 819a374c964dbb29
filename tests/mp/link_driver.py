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
import struct  # noqa: E402
import time  # noqa: E402

import espnow  # noqa: E402
import machine  # noqa: E402
import vclock  # noqa: E402
from checks import check, fresh_badge, run_checks, run_for  # noqa: E402

from cran import radio  # noqa: E402
from cran.config import load  # noqa: E402
from cran.core.view import view  # noqa: E402
from cran.radio.treat import Chain  # noqa: E402
from cran.start.parts import build  # noqa: E402
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


def gm(kind, index, counter, payload=b"", made=None):
    """The game master's frame, made now by the badge's clock (vclock's: the RTC, set
    as cran flash sets it), or at made (unix seconds)."""
    return radio.seal(KEYS, GM_ID, radio.GM, counter, kind, payload,
                      (index, chain_token(GM_SEED, index),
                       int(time.time()) if made is None else made))


def aired(app, frame, ms=1000, rssi=-45, sender=GM_ID):
    """A station's copies of frame every 3 ms for ms, on the virtual clock (the chip
    may sleep between its windows meanwhile), the badge run through them."""
    Flood(lambda n: frame, ms // 3, 1, 3, sender, rssi)
    run_for(app, ms + 10)


def seek_answer(app, counter, sender=HEALER_ID):
    """A healer's search (SEEK, its copies over a period) heard by the badge -> the
    counter of the heartbeat it answered with, which the healer's offer names."""
    seek = radio.seal(KEYS, sender, radio.BADGE, counter, radio.SEEK)
    before = len(heard_beats())
    aired(app, seek, sender=sender)
    return struct.unpack(">I", heard_beats()[before][12:16])[0]


def heal(me, answer, index, counter):
    """A healer's soin offered to badge me, naming its answer to the search."""
    return radio.seal(KEYS, HEALER_ID, radio.HEALER, counter, radio.HEAL,
                      me + struct.pack(">I", answer),
                      (index, chain_token(HEALER_SEED, index), int(time.time())))


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
    # The code that checked their tokens, saved them and played them: loaded for them,
    # let go after (a badge keeps cran.radio and cran.radio.link all day).
    out["rare_still_in"] = [name for name in ("cran.radio.orders", "cran.radio.longcheck")
                            if name in sys.modules]
    # (here: the start lets its module go)
    from cran.radio.start import read_checked
    with open(root + "/radio.json", "rb") as f:
        out["kept"] = read_checked(f.read())
    # Rebooted: the old stop, replayed, is refused (its token was spent before).
    machine.reboot()
    app = build(root, load(root))
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
              radio.seal(KEYS, GM_ID, radio.GM, 1, radio.STOP, b"",
                         (1, b"t" * 16, int(time.time()))),
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
        "cran.recast", "cran.config", "cran.core.choices"))
    out["journal"] = [e for e in app.badge.journal.entries()
                      if e.get("radio") == "reset" or e.get("a") == "reset"
                      or "recast" in e]
    machine.reboot()   # it comes back as the new character
    app = build(root, load(root))
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
    answer = seek_answer(app, 0)   # the healer's search: this badge answers it
    far = heal(me, answer, 1, 1)
    run_for(app, 10, sent_again(far, 1000, rssi=-80, sender=HEALER_ID))
    out["far_offer"] = app.menu.offer
    answer = seek_answer(app, 2)
    near = heal(me, answer, 2, 3)
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
def a_damaged_radio_json_refuses_what_it_cannot_trust():
    # The tokens taken (radio.json) damaged between two boots: what the issue found,
    # `{"spent": []}` (an AttributeError out of wire(), then the REPL), and one flipped
    # bit (the index raised for good, or the anchor again: every captured stop works).
    from cran.radio.start import read_checked
    out = {}
    for damage in ("spent-a-list", "a-bit-flipped"):
        root, app = badge()
        run_for(app, 10, sent_again(gm(radio.STOP, 1, 0), 1000))
        run_for(app, 10, sent_again(gm(radio.RESUME, 2, 1), 1000))
        path = root + "/radio.json"
        with open(path, "rb") as f:
            data = bytearray(f.read())
        if damage == "spent-a-list":
            data = bytearray(b'{"spent": []}')
        else:
            data[len(data) // 2] ^= 0x04
        with open(path, "wb") as f:
            f.write(data)
        machine.reboot()
        app = build(root, load(root))
        run_for(app, 10, sent_again(gm(radio.STOP, 1, 7), 1000))   # captured, replayed
        replayed = jeu(app)
        run_for(app, 10, sent_again(gm(radio.STOP, 3, 8), 1000))   # a new one: untrusted
        with open(path, "rb") as f:
            kept = read_checked(f.read())
        out[damage] = {"replayed": replayed, "new": jeu(app), "kept": kept,
                       "errors": [e["error"] for e in app.badge.journal.entries()
                                  if "error" in e]}
    return out


@check
def radio_on_time_is_its_duty_cycle():
    root, app = badge()
    run_for(app, 1000)
    start, on = vclock.elapsed_ms(), machine.radio_on_ms
    run_for(app, 60000)
    return {"duty": (machine.radio_on_ms - on) / (vclock.elapsed_ms() - start)}


# ---- hostile hands: commands heard late, floods (docs/RELIABILITY.md) -----------------

def seen(app):
    v = view(app.badge.state, time.ticks_ms())
    return [v["etat"], v["armure"], v["jeu"], sorted(app.badge.state.effects())]


def refusals(app):
    return [[e["kind"], e["age_s"]] for e in app.badge.journal.entries()
            if e.get("radio") == "refused"]


def sent_kinds(kind):
    return [f for _, f in espnow.sent if f[16] == kind]


@check
def a_command_captured_while_the_badge_was_off_is_refused():
    # The station resets this badge and sends an effect de masse while it is off; every
    # copy is captured. Back on 5 minutes later, hit into coma, the badge hears all the
    # copies again, 3 ms apart: it stays in coma, and its journal says each command
    # refused with its age. Twice: its RTC kept through the reset (a watchdog's, a
    # soft one), and lost (a power cut: it starts again in 2000, so the badge cannot
    # judge a command's age at all until the station answers its question).
    from cran.core.words import parse_action
    out = {}
    for rtc in ("kept", "lost"):
        root, app = badge()
        run_for(app, 2000)
        me = machine.unique_id()
        captured = [gm(radio.RESET, 1, 0, me), gm(radio.MASS, 2, 1, b"peur")]
        machine.reboot()   # off
        del espnow.sent[:]
        vclock.advance(300000)
        if rtc == "lost":
            vclock.set_time(946684800)
        app = build(root, load(root))
        run_for(app, 2000)
        app.badge.apply(parse_action("coup coma"), time.ticks_ms())
        run_for(app, 1000)
        before = seen(app)
        for frame in captured:
            aired(app, frame)   # 333 copies each
        result = {"before": before, "after": seen(app), "refused": refusals(app),
                  "dropped": app.link.listener.dropped,
                  "asked": len(sent_kinds(radio.ASK_TIME))}
        if rtc == "lost" and result["asked"]:
            # The station answers the question: its clock, naming this badge with the
            # question's counter; a new stop then is taken, the old copies still not.
            asked = struct.unpack(">I", sent_kinds(radio.ASK_TIME)[-1][12:16])[0]
            now_s = 1735689600 + vclock.elapsed_ms() // 1000
            aired(app, gm(radio.CLOCK, 3, 2, me + struct.pack(">I", asked), made=now_s))
            result["clock"] = app.badge.wall_clock() - now_s
            for frame in captured:
                aired(app, frame)
            result["replayed_again"] = seen(app)
            aired(app, gm(radio.STOP, 4, 3, made=now_s + 2))
            result["fresh_stop"] = seen(app)[2]
        out[rtc] = result
    # Healers' offers captured as the patient walked away (it answered the search but
    # never heard the offer): one replayed a minute later, the other at once after a
    # search of the captor's own (any badge of the game may send one). Both refused.
    root, app = badge()
    run_for(app, 2000)
    me = machine.unique_id()
    app.badge.apply(parse_action("coup"), time.ticks_ms())
    first = heal(me, seek_answer(app, 0), 1, 1)
    run_for(app, 60000)
    aired(app, first, rssi=-40, sender=HEALER_ID)
    offers = [app.menu.offer]
    second = heal(me, seek_answer(app, 2), 2, 3)
    seek_answer(app, 0, sender=b"\x01" * 6)
    aired(app, second, rssi=-40, sender=HEALER_ID)
    offers.append(app.menu.offer)
    out["heal"] = {"offers": offers, "refused": refusals(app), "etat": seen(app)[0]}
    return out


class Chip:
    """What a badge's hashing costs an ESP32, charged to the virtual clock (the virtual
    hardware's steps take no time of their own): a frame's tag (HMAC-SHA256) 1.6 ms, a
    step back along a chain (one SHA-256) 0.265 ms, docs/PERFORMANCE.md's unix-port
    figures times its ESP32 factor at its top (x320). The watchdog and the frames that
    come meanwhile come at their time, as on the chip."""

    TAG_US = 1600
    STEP_US = 265

    def __init__(self):
        self.us = 0
        self.paused = 0   # not charged: what the test itself seals
        self.tag, self.step = radio.hmac_with, radio.chain_step

    def charge(self, us):
        if self.paused:
            return
        self.us += us
        if self.us >= 1000:
            ms, self.us = self.us // 1000, self.us % 1000
            vclock.advance(ms)

    def __enter__(self):
        def tag(pads, message):
            self.charge(self.TAG_US)
            return self.tag(pads, message)

        def step(token):
            self.charge(self.STEP_US)
            return self.step(token)
        radio.hmac_with, radio.chain_step = tag, step
        return self

    def __exit__(self, *_):
        radio.hmac_with, radio.chain_step = self.tag, self.step


class Flood:
    """count frames, make(n), delivered to the badge's radio per_ms at a time every
    every_ms of virtual time from now: an alarm of the virtual clock, so they come
    while the firmware hashes or the chip sleeps too, as on a field. chip: its Chip,
    which does not charge the badge for what the flood seals."""

    def __init__(self, make, count, per_ms=1, every_ms=1, sender=GM_ID, rssi=-60,
                 chip=None):
        self.chip, self.make, self.count = chip, make, count
        self.per_ms, self.every_ms, self.sender, self.rssi = per_ms, every_ms, sender, rssi
        self.n = 0
        self.due_ms = vclock.elapsed_ms()
        vclock.add_alarm(self)

    def fire(self):
        if self.chip is not None:
            self.chip.paused += 1
        try:
            for _ in range(self.per_ms):
                espnow.deliver(self.sender, self.make(self.n), self.rssi)
                self.n += 1
        finally:
            if self.chip is not None:
                self.chip.paused -= 1
        if self.n >= self.count:
            self.due_ms = None
            vclock.remove_alarm(self)
        else:
            self.due_ms += self.every_ms


class _Sink:
    def write(self, data):
        return len(data)


def _under_flood(make, count, per_ms, every_ms, ms, sender=GM_ID, hit_every_ms=5000):
    """A badge under a flood of frames for ms: a hit pressed every hit_every_ms and a
    `status` typed halfway between. -> the ms each hit and each status took to be
    answered, whether the badge reset (the watchdog) and its state after."""
    import builtins

    from cran import compat
    answers = []
    printed = builtins.print   # the console's answers (cran.console prints them)
    builtins.print = lambda *args: answers.append((vclock.elapsed_ms(), args[0]))
    compat.STDIN, compat.STDOUT = machine.console, _Sink()   # (its echo not ours)
    pin = 39   # the Atom Lite's button
    root, app = badge()
    run_for(app, 2000)
    acts = []
    cues = app.badge.on_cues

    def on_cues(kind, now, said):
        if kind == "act":
            acts.append(vclock.elapsed_ms())
        cues(kind, now, said)
    app.badge.on_cues = on_cues
    start = vclock.elapsed_ms()
    presses = list(range(hit_every_ms, ms, hit_every_ms))
    for at in presses:
        machine.drive_at(at, pin, 0)
        machine.drive_at(at + 100, pin, None)
        machine.console_at(at + hit_every_ms // 2, b"status\r\n")
    reset = None
    with Chip() as chip:
        Flood(make, count, per_ms, every_ms, sender, chip=chip)
        try:
            run_for(app, ms + 2000, console=True)
        except machine.VirtualReset as e:
            reset = [e.cause, vclock.elapsed_ms() - start, str(e)]
    for alarm in list(vclock._alarms):   # what is left of the flood
        if isinstance(alarm, Flood):
            vclock.remove_alarm(alarm)
    compat.STDIN, compat.STDOUT = sys.stdin, sys.stdout
    builtins.print = printed

    def took(asked, said):
        return [next((t - start - at for t in said if t - start >= at), None)
                for at in asked]
    status = [t for t, line in answers if line.startswith("{")]
    out = {"hits_ms": took(presses, acts),
           "status_ms": took([at + hit_every_ms // 2 for at in presses], status),
           "reset": reset, "safe": app.safe, "etat": seen(app)[0]}
    if reset is None:
        out["errors"] = [e["error"] for e in app.badge.journal.entries() if "error" in e]
        out["dropped"] = app.link.listener.dropped
        out["journal"] = [e["value"] for e in app.badge.journal.entries()
                          if e.get("radio") == "dropped"]
        out["status_radio"] = json.loads(app.line("status", time.ticks_ms())[0]).get(
            "radio")
    return out


@check
def a_key_holders_flood_of_forged_tokens_starves_nothing():
    # 200 frames a second for 2 minutes, each with a token claiming the game master's
    # chain's far end (a distinct one each: ~4,000 hashes to refuse, a second of an
    # ESP32's time), then the same with one frame's copies.
    def distinct(n):
        return radio.seal(KEYS, GM_ID, radio.GM, n, radio.STOP, b"",
                          (radio.CHAIN_STEPS, struct.pack(">I", n) * 4, int(time.time())))
    copy = distinct(0)
    return {"distinct": _under_flood(distinct, 24000, 1, 5, 120000),
            "copies": _under_flood(lambda n: copy, 24000, 1, 5, 120000)}


@check
def an_outsiders_flood_starves_nothing():
    # 10,000 frames in 5 s from someone without the key: this game's id, any tag.
    def forged(n):
        return (bytes([radio.VERSION]) + KEYS.game + b"\x01" * 6 + bytes([radio.GM])
                + struct.pack(">IB", n, radio.STOP) + struct.pack(">I", n) * 3)
    return _under_flood(forged, 10000, 2, 1, 5000, sender=b"\x01" * 6, hit_every_ms=1000)


run_checks()
