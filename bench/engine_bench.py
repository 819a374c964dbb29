# Engine speed, the same file under CPython and inside MicroPython:
#   python bench/engine_bench.py FIRMWARE_DIR   /   micropython bench/engine_bench.py FIRMWARE_DIR
# Prints one line: runtime, actions, seconds, actions per second, microseconds per action.
import sys
import time

sys.path.insert(0, sys.argv[1])

from cran.core.engine import act, new_state  # noqa: E402
from cran.core.rules import Character, Settings  # noqa: E402
from cran.core.ticks import ticks_add  # noqa: E402
from cran.core.words import parse_action  # noqa: E402

# A fight's worth of everything: hits, keywords, heals, repairs, stops.
MIX = ("coup", "coup", "coup blesse", "effet peur", "coup", "effet dissipe", "soin",
       "coup assomme", "effet charme divin", "repare armure", "coup brise bras", "coup",
       "effet dissipe peur", "coup desarme", "soin complet", "effet vol", "stop", "reprise",
       "coup agonisant", "soin", "nuit", "coup mort si coma", "reset")


def now_us():
    if hasattr(time, "ticks_us"):
        return time.ticks_us()
    return int(time.perf_counter() * 1000000)


def run(rounds):
    actions = [parse_action(text) for text in MIX]
    state = new_state(Character(armor=2, helmet=True, creature=1, resist=["peur"]),
                      Settings())
    now = (1 << 30) - 30000    # cross the tick wrap on the way
    count = 0
    start = now_us()
    for _ in range(rounds):
        for action in actions:
            now = ticks_add(now, 450)   # above the 300 ms mitraille interval
            state, _ = act(state, action, now)
            count += 1
    elapsed_us = now_us() - start
    return count, elapsed_us


def bytes_per_action():
    """Heap allocated per action, on MicroPython (gc.mem_alloc), GC held off meanwhile."""
    import gc
    if not hasattr(gc, "mem_alloc"):
        return -1
    gc.collect()
    gc.disable()
    before = gc.mem_alloc()
    count, _ = run(4)
    used = gc.mem_alloc() - before
    gc.enable()
    return used // count


count, elapsed_us = run(int(sys.argv[2]) if len(sys.argv) > 2 else 400)
name = sys.implementation.name
print("%s %d %.3f %.0f %.2f %d" % (name, count, elapsed_us / 1e6, count * 1e6 / elapsed_us,
                                  elapsed_us / count, bytes_per_action()))
