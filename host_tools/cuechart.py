# The one-page cue chart (docs/cue-chart.svg): what every light and sound of a badge
# means, drawn from the firmware's own cues.py so the picture can't drift from it.
# `python -m host_tools.cuechart [OUT.svg]`; tests check the committed file is current.
# The README shows a PNG of it: `rsvg-convert docs/cue-chart.svg -o docs/cue-chart.png`.
import os
import sys

from cran import cues, tunes
from cran.core.engine import act, new_state, tick
from cran.core.rules import Character, Settings
from cran.core.ticks import ticks_add
from cran.core.words import parse_action

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CHART = os.path.join(REPO, "docs", "cue-chart.svg")

STEP_MS = 128          # one column: the patterns' own step
COLUMNS = 64           # 8.2 s of each pattern
CELL = 9
LEFT = 250
ROW = 30
LEDS = 8               # drawn as a strip of 8 (DevKitC); one LED shows the first cell

WINDOW_START = 1 << 20   # every row is looked at over the same ticks, so rhythms line up

# (label, actions on a fresh badge, ms between the last action and the window)
ROWS = [
    ("pleine-forme (healthy)", [], 4000),
    ("blesse (wounded)", ["coup"], 4000),
    ("agonisant (dying)", ["coup agonisant"], 4000),
    ("agonisant, last minute", ["coup agonisant"], 250000),
    ("coma (looks like mort: S7)", ["coup coma"], 4000),
    ("mort (looks like coma: S7)", ["coup coma", "coup mort si coma"], 4000),
    ("effect running: peur", ["effet peur"], 4000),
    ("effect running: paralyse", ["effet paralyse"], 4000),
    ("desarme (3 s)", ["coup desarme"], 1000),
    ("hors-jeu (out of game)", ["hors-jeu"], 4000),
    ("game stop (K15)", ["stop"], 4000),
    ("etat inconnu (state lost: reset)", None, 4000),   # None: the app's UNKNOWN_LOOK
]
# Sounds alone: the answer the wearer must say (A1, K12, A6).
SOUNDS = [
    ("answer «Armure»", ["coup"], Character(armor=1)),
    ("answer «Résiste»", ["effet peur"], Character(resist=["peur"])),
    ("creature: shout", ["coup"], Character(creature=1)),
]


def _played(actions, lead, character=None):
    """Play the actions so the last lands `lead` ms before the window.
    -> (state, the public sound of the last change, as melody_for gives it)."""
    state = new_state(character or Character(), Settings())
    now = ticks_add(WINDOW_START, -lead - 1000 * len(actions))
    last = []
    for text in actions:
        now = ticks_add(now, 1000)
        state, last = act(state, parse_action(text), now)
    warning = cues.warning_cue(state, WINDOW_START)
    if warning is not None and lead > 60000:
        last = [warning]
    return state, tunes.melody_for(last)


def _rgb(color):
    # Brighten for paper: the badge caps brightness, the chart shows the hue.
    top = max(color) or 1
    return "#%02x%02x%02x" % tuple(min(255, c * 255 // top) if any(color) else 34
                                   for c in color)


def _describe(tune):
    if not tune:
        return "silent"
    return "%d notes, %d ms" % (len([f for f, _ in tune if f]), sum(d for _, d in tune))


def render():
    rows = len(ROWS) + len(SOUNDS)
    width = LEFT + COLUMNS * CELL + 190
    height = 70 + rows * ROW + 40
    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
           'font-family="sans-serif" font-size="12">' % (width, height),
           '<rect width="100%" height="100%" fill="white"/>',
           '<text x="10" y="22" font-size="16" font-weight="bold">cran: what the badge '
           'shows</text>',
           '<text x="10" y="42">Each row: an 8-LED strip over 8 s (one column = %d ms; '
           'a single-LED badge shows the first LED).</text>' % STEP_MS,
           '<text x="%d" y="60">sound as it starts</text>' % (LEFT + COLUMNS * CELL + 10)]
    y = 70
    for label, actions, lead in ROWS:
        state, tune = _played(actions or [], lead)
        seen = cues.UNKNOWN_LOOK if actions is None else None
        out.append('<text x="10" y="%d">%s</text>' % (y + ROW // 2 + 4, label))
        for col in range(COLUMNS):
            at = ticks_add(WINDOW_START, col * STEP_MS)
            state, _ = tick(state, at)      # effects run out as on a badge
            frame = cues.led_frame(state, at, LEDS, "strip", seen)
            for led, color in enumerate(frame):
                out.append('<rect x="%d" y="%d" width="%d" height="3" fill="%s"/>' % (
                    LEFT + col * CELL, y + 2 + led * 3, CELL - 1, _rgb(color)))
        out.append('<text x="%d" y="%d">%s</text>' % (
            LEFT + COLUMNS * CELL + 10, y + ROW // 2 + 4, _describe(tune)))
        y += ROW
    for label, actions, character in SOUNDS:
        _, tune = _played(actions, 0, character)
        out.append('<text x="10" y="%d">%s</text>' % (y + ROW // 2 + 4, label))
        out.append('<text x="%d" y="%d">LEDs unchanged; %s</text>' % (
            LEFT, y + ROW // 2 + 4, _describe(tune)))
        y += ROW
    out.append('<text x="10" y="%d">Press sequences: docs/controls.md. Colours help; '
               'rhythm and the number of lit LEDs carry the meaning.</text>' % (y + 20))
    out.append("</svg>")
    return "\n".join(out) + "\n"


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    path = argv[0] if argv else CHART
    with open(path, "w", encoding="utf-8") as f:
        f.write(render())
    print(path)


if __name__ == "__main__":
    main()
