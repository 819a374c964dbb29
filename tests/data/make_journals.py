# Makes the sample badge journals in this folder: the real badge app (cran.app) on the
# virtual hardware, driven through its console and its button, its journal read back
# from its flash. Run again after a change to what the badge journals:
#   .venv/bin/python tests/data/make_journals.py
# journal-godefroy.jsonl   the rulebook's fight (examples/scenarios/exemple-godefroy.txt)
# journal-long.jsonl       a longer day: answers, effects, an undo, a power cut, a reboot
# journal-rules.jsonl      the rules a debrief must not guess: a theft noticed late (K13),
#                          limbs and armor broken and mended (K7, A4), a game stop (K15),
#                          renown (P2), death's end of every effect, a reset (P3)
# journal-*-v1.jsonl       the same three fights as the firmware journaled them before its
#                          journal said the state (version 1): written once, never again,
#                          so that `cran logs` is held to reading old journals
import json
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path[:0] = [REPO]

from host_tools import FIRMWARE_DIR  # noqa: E402
from host_tools.boards import BOARDS_DIR  # noqa: E402
from host_tools.virtual.micropython import sys_path  # noqa: E402

sys.path[:0] = sys_path("cpython") + [FIRMWARE_DIR]

import time  # noqa: E402

import machine  # noqa: E402
import vclock  # noqa: E402
import world  # noqa: E402

vclock.patch_cpython_time()
# The app reads the wall clock with time.time(): the virtual one, so every run is the same.
time.time = vclock.time

from cran.config import load  # noqa: E402
from cran.start.parts import build  # noqa: E402
from cran.storage import Journal  # noqa: E402
from gamefiles import scenario  # noqa: E402

EPOCH_S = 1751104800     # 2025-06-28 10:00:00 UTC: a game day
BUTTON_PIN = 39          # atom-lite's only button


class Driven:
    """One badge: booted on a flash folder, time moved by its own show loop."""

    def __init__(self, root, character):
        self.root = root
        vclock.start(0, EPOCH_S)
        machine.reset_all()
        board = world.make_root(root, BOARDS_DIR, "atom-lite", {"character": character})
        world.wire(board)
        self.boot()

    def boot(self):
        self.app = build(self.root, load(self.root))
        self.app.start_watchdog()
        self.t0 = vclock.elapsed_ms()

    def run_to(self, ms):
        """Let the badge live until ms after this boot, waking when it asks to."""
        target = self.t0 + ms
        while True:
            wait = self.app.show(time.ticks_ms())
            left = target - vclock.elapsed_ms()
            if left <= 0:
                return
            vclock.advance(max(1, min(wait, left)))

    def say(self, ms, line):
        self.run_to(ms)
        answer = self.app.line(line, time.ticks_ms())
        if not answer or answer[0].startswith("error"):
            raise RuntimeError("console refused %r: %r" % (line, answer))

    def press(self, ms, hold_ms=100):
        self.run_to(ms)
        machine.drive(BUTTON_PIN, 0)
        self.run_to(ms + hold_ms)
        machine.drive(BUTTON_PIN, None)

    def power_cut(self, off_ms):
        """Power goes (no checkpoint), stays off off_ms, comes back: a power-on boot."""
        machine.reset_all()
        world.wire(json.loads(open(os.path.join(BOARDS_DIR, "atom-lite.json")).read()))
        vclock.advance(off_ms)
        self.boot()

    def journal(self):
        j = Journal(self.root)
        entries = j.entries()
        assert not j.problems, j.problems
        return entries


def godefroy(root):
    from cran.core.choices import as_dict
    path = os.path.join(REPO, "examples", "scenarios", "exemple-godefroy.txt")
    with open(path, encoding="utf-8") as f:
        parsed = scenario.parse(f.read())
    badge = Driven(root, as_dict(parsed.character))
    start = 1000   # switched on a second before the fight's 0:00
    for _, t, kind, payload in parsed.steps:
        if kind == "act":
            badge.say(start + t, payload.text())
    badge.run_to(start + 10 * 60000 + 30000)
    return badge.journal()


def long_day(root):
    character = {"name": "Nico le Besogneux", "armor": 1, "helmet": True,
                 "resist": ["peur"], "agonisant_ms": 180000}
    b = Driven(root, character)
    b.press(10000)                      # a normal hit: the leather armor answers
    b.say(12000, "effet peur")          # resisted
    b.say(15000, "coup assomme")        # the helmet: resisted
    b.say(20000, "effet paralyse")      # 5 minutes
    b.say(30000, "coup")                # armor used up: wounded, armor damaged, K1
    b.say(45000, "effet douleur")
    b.press(60000)                      # a hit pressed by mistake...
    b.press(61000, 60)                  # ...taken back: a double press
    b.press(61150, 60)
    b.run_to(125000)
    b.power_cut(120000)                 # the battery falls out for two minutes
    b.say(20000, "coup agonisant")      # 3 minutes for this character
    b.say(80000, "soin")
    b.say(90000, "repare armure")
    b.say(100000, "coup desarme epee")
    b.say(120000, "hors-jeu")
    b.say(200000, "en-jeu")
    b.run_to(420000)                    # the combat ends: armor back
    b.say(430000, "coup")
    b.say(431000, "effet aveugle")
    b.say(435000, "effet dissipe")      # the blindness is dissipated
    b.run_to(760000)
    return b.journal()


def rules_day(root):
    character = {"name": "Ali le Voleur", "armor": 2, "creature": 1}
    b = Driven(root, character)
    b.say(5000, "effet vol bourse")     # K13: nothing shows until it is noticed
    b.say(8000, "coup brise bras")      # K7
    b.say(9000, "effet charme de masse")
    b.say(12000, "coup")                # the metal armor answers
    b.say(14000, "coup brise armure")   # A4: a broken armor answers nothing
    b.say(20000, "stop")                # K15: the game stops, timers frozen
    b.say(80000, "reprise")
    b.say(90000, "repare bras")
    b.say(95000, "repare armure")
    b.say(100000, "renommee +6")        # P2: a new rank
    b.run_to(400000)                    # the theft noticed, the charm over, combat over
    b.say(410000, "effet peur")
    b.say(415000, "coup mort")          # S6: every effect ends with death
    b.say(420000, "soin")               # ignored: the dead are not healed
    b.say(430000, "reset")              # P3: a fresh character
    b.run_to(440000)
    return b.journal()


def write(folder, name, entries):
    with open(os.path.join(folder, name), "w") as f:
        for e in entries:
            f.write(json.dumps(e) + "\n")
    print("wrote %s (%d entries)" % (name, len(entries)))


def main(folder=HERE):
    with tempfile.TemporaryDirectory(prefix="cran-journal-") as flash:
        write(folder, "journal-godefroy.jsonl", godefroy(flash + "/godefroy"))
        write(folder, "journal-long.jsonl", long_day(flash + "/long"))
        write(folder, "journal-rules.jsonl", rules_day(flash + "/rules"))


if __name__ == "__main__":
    main(*sys.argv[1:2])
