# Rules: K3 K8
# One source for the effects, cran.core.vocab.EFFECTS: its order numbers them on the LEDs
# (cran.cues) and, for the 5-minute ones, as the journal's timer bits
# (cran.core.engine.TIMER_NAMES). Badges in the field and their journals have those
# numbers, so they are pinned here, and an effect added (docs/ARCHITECTURE.md's recipe:
# the vocabulary, its words, its docs) takes the next one and moves none: a copy of the
# repository with one more effect in its vocabulary, and nothing else changed, plays it
# everywhere an effect goes and draws every other one as before.
import json
import os
import shutil
import subprocess
import sys

from conftest import REPO
from cran.core.engine import EFFECT_TIMERS, TIMER_NAMES
from cran.core.vocab import EFFECTS, KEYWORDS, TIMED_EFFECTS

# The LEDs' code of each effect: n // 5 long flashes, then n % 5 short ones.
LED_NUMBERS = {"assomme": 1, "aveugle": 2, "charme": 3, "douleur": 4, "faiblesse": 5,
               "immobilise": 6, "obeis": 7, "paralyse": 8, "peur": 9, "statue": 10,
               "desarme": 11}
# The journal's state summary: bit i for a running TIMER_NAMES[i] (docs/journal.md).
JOURNAL_BITS = {"countdown": 0, "desarme": 1, "vol": 2, "combat": 3, "assomme": 4,
                "aveugle": 5, "charme": 6, "douleur": 7, "faiblesse": 8, "immobilise": 9,
                "obeis": 10, "paralyse": 11, "peur": 12, "statue": 13}


def test_the_effects_numbers_on_the_leds_and_in_the_journal_are_pinned():
    assert {name: i + 1 for i, name in enumerate(EFFECTS)} == LED_NUMBERS
    assert {name: i for i, name in enumerate(TIMER_NAMES)} == JOURNAL_BITS


def test_every_list_of_effects_is_read_from_the_one():
    assert TIMED_EFFECTS == tuple(n for n in EFFECTS if n != "desarme")
    assert set(EFFECT_TIMERS) == set(EFFECTS) | {"vol"}
    assert set(EFFECTS) <= set(KEYWORDS)


# Run in a repository (the original, or the copy): what an effect is, everywhere it goes.
_PROBE = r"""
import json, sys
from cran import menutree
from cran.menuwords import title
from cran.core.engine import TIMER_NAMES, act, new_state, summary, tick
from cran.core.rules import Character, Settings
from cran.core.vocab import CUE_END, EFFECTS, Action
from cran.core.words import parse_action
from host_tools.debrief.journal import summary_seen
from host_tools.paper import card


def menu_paths(page, path=()):
    out = {}
    for entry in page.entries if isinstance(page, menutree.Page) else page:
        if isinstance(entry, menutree.Page):
            out.update(menu_paths(entry, path + (title(entry, "fr"),)))
        elif isinstance(entry, Action) and entry.kw in EFFECTS:
            out[entry.kw] = path
    return out


new = sys.argv[1]
action = parse_action("effet " + new)
s = new_state(Character(), Settings())
s, _ = act(s, action, 0)
running = s.effects()
seen = summary_seen(summary(s), of=None).effects
s, cues = tick(s, 5 * 60 * 1000)
drawn = card.build(card.read_board("atom-lite"))
print(json.dumps({
    "action": [action.verb, action.kw],
    "running": running, "journal_reads": seen, "after_5_min": s.effects(),
    "ended": [value for _, kind, value, _ in cues if kind == CUE_END],
    "timer_bits": list(TIMER_NAMES),
    "led_codes": {e: i + 1 for i, e in enumerate(EFFECTS)},
    "menu": {kw: list(p) for kw, p in menu_paths(menutree._keyword_entries("effet")).items()},
    "card": [[row.text, [list(f[0]) for f in row.frames]] for row in drawn.effects],
}))
"""


def _copy(dest):
    def skip(folder, names):
        return [n for n in names if n in ("__pycache__", ".venv", ".git", "artefacts")
                or n.startswith(".")]
    for part in ("firmware", "gamefiles", "host_tools", "boards", "examples"):
        shutil.copytree(os.path.join(REPO, part), os.path.join(dest, part), ignore=skip)


def _run(repo, *args, stdin=None):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([repo, os.path.join(repo, "firmware")]))
    done = subprocess.run([sys.executable] + list(args), cwd=repo, env=env, input=stdin,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def _add_effect(repo, name):
    # The vocabulary's two lists, as the recipe says: at the end of EFFECTS, and in its
    # place among the sorted keywords.
    path = os.path.join(repo, "firmware", "cran", "core", "vocab.py")
    with open(path, encoding="utf-8") as f:
        text = f.read()
    end = '"statue", "desarme")'
    assert text.count(end) == 1
    text = text.replace(end, '"statue", "desarme",\n           "%s")' % name)
    before = '"agonisant", "assomme", "aveugle", "blesse", "brise",'
    assert text.count(before) == 1
    text = text.replace(before, '"agonisant", "assomme", "aveugle", "blesse", "brise", "%s",'
                        % name)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def test_an_effect_added_to_the_vocabulary_plays_everywhere_and_moves_no_other(
        tmp_path, micropython):
    new = "brule"   # sorts among the others: its number is still the next one
    repo = str(tmp_path)
    _copy(repo)
    _add_effect(repo, new)
    before = json.loads(_run(REPO, "-c", _PROBE, "peur"))
    after = json.loads(_run(repo, "-c", _PROBE, new))

    assert after["action"] == ["effet", new]
    assert after["running"] == [new] and after["journal_reads"] == [new]
    assert after["after_5_min"] == [] and after["ended"] == [new]   # K3: 5 minutes
    # Every number an effect had, it keeps; the new one is the next.
    assert after["timer_bits"] == before["timer_bits"] + [new]
    assert after["led_codes"] == dict(before["led_codes"], **{new: len(EFFECTS) + 1})
    # The menu: a page holds five entries and every one is taken, so the last effect of
    # "Effets 2" makes room for a "Suite" page, where it goes on with the new one; every
    # other effect stays where it was.
    last = TIMED_EFFECTS[-1]
    assert {k: v for k, v in after["menu"].items() if k not in (new, last)} == {
        k: v for k, v in before["menu"].items() if k != last}
    assert before["menu"][last] == ["Effets 2"]
    assert after["menu"][last] == after["menu"][new] == ["Effets 2", "Suite"]
    # The card: every effect drawn as before; the new one's code is none of theirs.
    assert after["card"][:-1] == before["card"]
    text, frames = after["card"][-1]
    assert text == "Brule" and frames not in [f for _, f in before["card"]]

    # A scenario plays it on both runtimes, MicroPython the real interpreter.
    scenario = os.path.join(repo, "effect.txt")
    with open(scenario, "w", encoding="utf-8") as f:
        f.write("# Rules: K3\n0:00 effet %s\n0:00 expect effets=%s\n"
                "4:59.999 expect effets=%s\n5:00 expect effets=-\n" % (new, new, new))
    for runtime in ("cpython", "micropython"):
        out = _run(repo, "-m", "host_tools", "scenario", scenario, "--runtime", runtime)
        assert "3 expect lines, 3 held, 0 failed (%s)" % runtime in out, out

