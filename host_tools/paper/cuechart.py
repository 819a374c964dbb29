# The one-page cue chart (docs/cue-chart.svg and .png): what every light and sound of a
# badge means, drawn from the firmware's own cues.py and tunes.py so the picture can't
# drift from it. `python -m host_tools.paper.cuechart [OUT.svg]` writes the SVG and, beside
# it, its PNG (rsvg-convert or cairosvg, as `cran logs` makes its PNGs); the tests
# check the committed SVG is current.
import os
import sys

from cran import cues, looks, tunes
from cran.core.engine import act, new_state, tick
from cran.core.rules import Character, Settings
from cran.core.ticks import ticks_add
from cran.core.words import parse_action
from host_tools import FIRMWARE_DIR, CommandError

REPO = os.path.dirname(FIRMWARE_DIR)
CHART = os.path.join(REPO, "docs", "cue-chart.svg")

STEP_MS = 128          # one column: the patterns' own step
COLUMNS = 64           # 8.2 s: a single LED's whole cycle, state then effect code
CELL = 9
LEFT = 250
STRIP = 8              # the lower lane: a strip of 8 (DevKitC, C3)
LED_PX = 3             # a strip LED's lane: 2 px lit, 1 px of the board between them
SINGLE_PX = 9          # the upper lane: a badge of one LED (Atom Lite)
ROW = SINGLE_PX + 3 + STRIP * LED_PX + 9
BOARD_RGB = "#222222"  # the lanes' ground, an unlit LED's colour: white shows on it

WINDOW_START = 1 << 20   # every row is looked at over the same ticks, so rhythms line up

# (label, actions on a fresh badge, ms between the last action and the window,
# character): the actions' last change is the sound beside the row.
ROWS = [
    ("pleine-forme (healthy)", [], 4000, None),
    ("blesse (wounded)", ["coup"], 4000, None),
    ("agonisant (dying)", ["coup agonisant"], 4000, None),
    ("agonisant, last minute", ["coup agonisant"], 250000, None),
    ("coma or mort (alike: S7)", ["coup coma"], 4000, None),
    ("effect running: peur", ["effet peur"], 4000, None),
    ("effect on a wound: paralyse", ["coup", "effet paralyse"], 4000, None),
    ("desarme (3 s)", ["coup desarme"], 1000, None),
    ("hors-jeu (out of game)", ["hors-jeu"], 4000, None),
    ("game stop (K15)", ["stop"], 4000, None),
    ("etat inconnu (state lost: reset)", None, 4000, None),   # None: the app's UNKNOWN_LOOK
    # The answers to say aloud (A1, A5, K12, A6): the window starts at the answer.
    ("say «Armure» (armor)", ["coup"], 0, Character(armor=1)),
    ("say «Résiste» (helmet, resisted)", ["coup assomme"], 0, Character(helmet=True)),
    ("shout (a creature)", ["coup"], 0, Character(creature=1)),
]
INERT = "coma or mort (alike: S7)"
# S7: every way into the inert look, as the row above plays it: each must sound the same.
INERT_WAYS = [["coup coma"], ["coup mort"], ["coup agonisant", "5 minutes"],
              ["coup", "coup", "coup blesse"], ["effet douleur", "coup mort"]]


def _played(actions, lead, character=None):
    """Play the actions (or "5 minutes": the clock runs on) so the last lands `lead` ms
    before the window. -> (state, the public sound of the last change, as melody_for
    gives it)."""
    state = new_state(character or Character(), Settings())
    now = ticks_add(WINDOW_START, -lead - 1000 * len(actions))
    last = []
    for text in actions:
        if text == "5 minutes":
            now = ticks_add(now, 300000)
            state, last = tick(state, now)
            continue
        now = ticks_add(now, 1000)
        state, last = act(state, parse_action(text), now)
    warning = looks.warning_cue(state, WINDOW_START)
    if warning is not None and lead > 60000:
        last = [warning]
    return state, tunes.melody_for(last)


def inert_sounds():
    """S7 as the chart says it: {way in: its sound} for each of INERT_WAYS, and the
    sound of coma's fall into mort. ValueError when two ways in sound apart or the fall
    into mort makes a sound: the chart would say what the badge does not."""
    sounds = dict((" then ".join(way), _played(way, 0)[1]) for way in INERT_WAYS)
    if len(set(tuple(s) for s in sounds.values())) != 1:
        raise ValueError("coma and mort do not sound alike (S7): %r" % sounds)
    coma, _ = _played(["coup coma"], 0)
    _, fall = tick(coma, ticks_add(WINDOW_START, 300000))
    died = tunes.melody_for(fall)
    if died:
        raise ValueError("coma's fall into mort makes a sound (S7): %r" % died)
    return sounds, died


def _rgb(color):
    # Brighten for paper: the badge caps brightness, the chart shows the hue.
    if not any(color):
        return BOARD_RGB
    top = max(color)
    return "#%02x%02x%02x" % tuple(min(255, c * 255 // top) for c in color)


def _describe(tune):
    if not tune:
        return "silent"
    return "%d notes, %d ms" % (len([f for f, _ in tune if f]), sum(d for _, d in tune))


def _lanes(state, seen, y):
    """The row's two lanes over the window: one LED above, the strip below."""
    out = []
    single_y, strip_y = y + 3, y + 3 + SINGLE_PX + 3
    for lane_y, height in ((single_y, SINGLE_PX), (strip_y, STRIP * LED_PX)):
        out.append('<rect x="%d" y="%d" width="%d" height="%d" fill="%s"/>' % (
            LEFT - 1, lane_y - 1, COLUMNS * CELL + 1, height + 1, BOARD_RGB))
    for col in range(COLUMNS):
        at = ticks_add(WINDOW_START, col * STEP_MS)
        state, _ = tick(state, at)      # effects run out as on a badge
        x = LEFT + col * CELL
        one = cues.led_frame(state, at, 1, "single", seen)[0]
        if any(one):
            out.append('<rect x="%d" y="%d" width="%d" height="%d" fill="%s"/>' % (
                x, single_y, CELL - 1, SINGLE_PX - 1, _rgb(one)))
        for led, color in enumerate(cues.led_frame(state, at, STRIP, "strip", seen)):
            if any(color):
                out.append('<rect x="%d" y="%d" width="%d" height="%d" fill="%s"/>' % (
                    x, strip_y + led * LED_PX, CELL - 1, LED_PX - 1, _rgb(color)))
    return out


def render():
    inert_sounds()   # the chart says coma and mort sound alike: only if they do
    rows = len(ROWS) + 1
    sound_x = LEFT + COLUMNS * CELL + 12
    width = sound_x + 230
    height = 88 + rows * ROW + 40
    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
           'font-family="sans-serif" font-size="12">' % (width, height),
           '<rect width="100%" height="100%" fill="white"/>',
           '<text x="10" y="22" font-size="16" font-weight="bold">cran: what the badge '
           'shows</text>',
           '<text x="10" y="42">Each row over 8.2 s (a column = %d ms). Above: a badge of one '
           'LED (Atom Lite): 4 s of the state, then 4 s of the running effect\'s code.'
           '</text>' % STEP_MS,
           '<text x="10" y="58">Below: a strip of %d LEDs (DevKitC, C3): the state as a bar '
           'from the first LED, the effect on the last two; the Atom Matrix shows the same in '
           'rows.</text>' % STRIP,
           '<text x="10" y="74">White flashes on every LED for %d s: say it aloud. '
           'Rhythm and the number of lit LEDs carry the meaning; colours help.</text>'
           % round(cues.SAY_MS / 1000.0),
           '<text x="%d" y="88">sound as it starts</text>' % sound_x]
    y = 94
    for label, actions, lead, character in ROWS:
        state, tune = _played(actions or [], lead, character)
        seen = looks.UNKNOWN_LOOK if actions is None else None
        out.append('<text x="10" y="%d">%s</text>' % (y + ROW // 2 + 2, label))
        out += _lanes(state, seen, y)
        sound = _describe(tune)
        if label == INERT:
            sound += ", by every way in"
        out.append('<text x="%d" y="%d">%s</text>' % (sound_x, y + ROW // 2 + 2, sound))
        y += ROW
        if label == INERT:   # S7: the fall from coma into mort changes nothing at all
            coma, _ = _played(["coup coma"], 300000 - 4000)
            out.append('<text x="10" y="%d">coma falls into mort (S7)</text>'
                       % (y + ROW // 2 + 2))
            out += _lanes(coma, None, y)
            x = LEFT + 4000 // STEP_MS * CELL - 1   # its countdown runs out 4 s in
            out.append('<rect x="%d" y="%d" width="2" height="%d" fill="#c00000"/>'
                       % (x, y, ROW - 6))
            out.append('<text x="%d" y="%d" font-size="10" fill="white">mort from here'
                       '</text>' % (x + 5, y + ROW - 10))
            out.append('<text x="%d" y="%d">%s: nothing changes</text>' % (
                sound_x, y + ROW // 2 + 2, _describe(inert_sounds()[1])))
            y += ROW
    out.append('<text x="10" y="%d">Press sequences: docs/controls.md. Only the private '
               'peek tells coma from mort.</text>' % (y + 20))
    out.append("</svg>")
    return "\n".join(out) + "\n"


def main(argv=None):
    """python -m host_tools.paper.cuechart [PATH.svg]: the chart written, and its PNG beside it
    (drawn as every picture of cran is, host_tools.paper.picture)."""
    from host_tools.paper import picture
    argv = sys.argv[1:] if argv is None else argv
    path = argv[0] if argv else CHART
    svg = render()
    png = os.path.splitext(path)[0] + ".png"
    try:
        picture.write(path, svg)
        print(path)
        picture.write(png, picture.png(svg))
    except CommandError as e:
        print(e, file=sys.stderr)
        return 1
    print(png)
    return 0


if __name__ == "__main__":
    sys.exit(main())
