# The radio's frames (cran.radio), run inside MicroPython by bench/run.py:
#   micropython radio_bench.py FIRMWARE_DIR time   -> JSON: microseconds per operation
#   micropython radio_bench.py FIRMWARE_DIR heap   -> JSON: bytes the radio keeps
#                                                     (cran.radio, cran.radio.link)
# The heap figure wants the 32-bit interpreter (an ESP32's object sizes); it has no
# cryptolib, so it leaves out the heartbeat's cipher (a C object made and dropped for
# each heartbeat, ~300 bytes while it lives on an ESP32: mbedtls's AES context).
import gc
import json
import sys

sys.path.insert(0, sys.argv[1])

try:
    from time import ticks_diff, ticks_us
except ImportError:
    from time import ticks_us  # noqa: F401

    def ticks_diff(a, b):
        return a - b

GAME_KEY = bytes(range(32))
GM_ID, BADGE_ID = b"\x01" * 6, b"\x03" * 6
HEARTBEAT_BYTES = 40   # a badge's state, packed: a generous guess


def timed(label, fn, rounds, out):
    fn()   # its modules loaded, its caches warm
    start = ticks_us()
    for _ in range(rounds):
        fn()
    out[label] = round(ticks_diff(ticks_us(), start) / rounds, 1)


def times():
    from cran import radio
    from cran.radio.treat import Chain
    keys = radio.Keys(GAME_KEY)
    seed = b"s" * 16
    chain = Chain(seed, 1)   # its tokens 1, 2...: in order, from one seed
    tokens = [chain.take()[1] for _ in range(201)]
    anchor = radio.chain_step(tokens[0])   # token 0, which badges hold
    out = {}
    made = 1767225600   # when the station made them (its clock, sealed in the frame)
    stops = [radio.seal(keys, GM_ID, radio.GM, i, radio.STOP, b"", (i + 1, tokens[i], made))
             for i in range(201)]
    beats = [radio.seal(keys, BADGE_ID, radio.BADGE, i, radio.HEARTBEAT,
                        bytes(HEARTBEAT_BYTES)) for i in range(201)]
    timed("seal_stop_us", lambda: radio.seal(keys, GM_ID, radio.GM, 0, radio.STOP, b"",
                                             (1, tokens[0], made)), 200, out)
    timed("seal_heartbeat_us", lambda: radio.seal(keys, BADGE_ID, radio.BADGE, 0,
                                                  radio.HEARTBEAT, bytes(HEARTBEAT_BYTES)),
          200, out)
    # Each frame opened once, in order (a fresh one each time: replays are dropped early).
    for label, frames, authorities in (("open_stop_us", stops, {GM_ID: [radio.GM, 0, anchor]}),
                                       ("open_heartbeat_us", beats, {})):
        ear = radio.Listener(keys, authorities)
        it = iter(frames)
        timed(label, lambda ear=ear, it=it: ear.open(next(it)), 200, out)
        assert not ear.dropped, ear.dropped
    ear = radio.Listener(keys, {})
    forged = stops[0][:-1] + bytes([stops[0][-1] ^ 1])
    timed("drop_forged_us", lambda: ear.open(forged), 200, out)
    chain = Chain(seed, 1)
    chain.take()   # its marks made: ~4,000 hashes, once
    timed("chain_next_us", chain.take, 200, out)
    timed("chain_from_seed_ms", lambda: Chain(seed, 1).take(), 3, out)
    out["chain_from_seed_ms"] = round(out["chain_from_seed_ms"] / 1000, 2)
    return out


class _Air:   # a radio that hears nothing: the driver's own share is not counted
    def on(self):
        pass

    def off(self):
        pass

    def send(self, peer, frame):
        pass

    def recv(self):
        return None


def heap():
    # The names the ESP32 image holds (stdin: a JSON list), made first: they cost a chip
    # nothing, and the firmware's own are given them on a badge (build.badge_renames).
    for name in json.loads(sys.stdin.read() or "[]"):
        getattr(gc, name, None)
    # What every badge has loaded already is not the radio's.
    from cran.core.engine import new_state
    from cran.core.rules import Character, Settings
    state = new_state(Character(), Settings())
    gc.collect()
    before = gc.mem_alloc()
    from cran import radio
    from cran.radio import link
    keys = radio.Keys(GAME_KEY)
    # The keys made, their making goes, as the badge's start lets it go (cran.start.parts).
    from cran.compat import forget
    forget(("cran.auth",))
    authorities = {}
    for n in range(8):   # a game master and seven healers or smiths
        authorities[bytes([n]) * 6] = [radio.HEALER, 0, bytes(16)]
    ear = radio.Listener(keys, authorities)
    for n in range(ear.max_senders):   # every sender's counter it keeps, heard
        ear.seen[bytes([n, 0, 0, 0, 0, 1])] = n
    counter = radio.Counter(0, lambda mark: None)
    counter.take()
    frame = radio.seal(keys, GM_ID, radio.GM, 0, radio.STOP, b"", (1, bytes(16), 0))
    ear.open(frame)
    # The badge's side, its first window opened (no heartbeat: no cryptolib here).
    wire = link.Link(_Air(), keys, ear, counter, BADGE_ID)
    wire.last_beat = (0, (state.etat, state.armor_answers(), state.play(), state.renown,
                          tuple(state.effects())))
    wire.tick(0, state)
    gc.collect()
    after = gc.mem_alloc()
    return {"radio_heap": after - before}


print(json.dumps(times() if sys.argv[2] == "time" else heap()))
