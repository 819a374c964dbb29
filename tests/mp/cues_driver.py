# Inside MicroPython (or CPython): play each case of stdin (a JSON list of
# {"start", "armor", "lines": [[ms, action]], "at": [ms]}) and print what cran.cues
# shows and plays, then a fixed walk through cran.menu; one JSON list a line.
# Lists only: dict order differs between the two interpreters.
import json
import sys

sys.path.insert(0, sys.argv[1])

from cran import cues, ledviews, texts, tunes  # noqa: E402
from cran.core.engine import act, new_state, tick  # noqa: E402
from cran.core.rules import Character, Settings  # noqa: E402
from cran.core.ticks import ticks_add  # noqa: E402
from cran.core.words import parse_action  # noqa: E402
from cran.menu import Menu  # noqa: E402

LAYOUTS = ((1, "single"), (8, "strip"), (25, "matrix-5x5"))

for case in json.loads(sys.stdin.read()):
    start = case["start"]
    state = new_state(Character(armor=case["armor"]), Settings())
    for ms, text in case["lines"]:
        state, heard = act(state, parse_action(text), ticks_add(start, ms))
        print(json.dumps(["melody", text, tunes.melody_for(heard)]))
    for ms in case["at"]:
        now = ticks_add(start, ms)
        s, fired = tick(state, now)
        print(json.dumps(["at", ms, tunes.melody_for(fired), cues.warning_due(s, now),
                          texts.screen_lines(s, now), texts.screen_lines(s, now, "en", True, 21)]))
        for n, layout in LAYOUTS:
            print(json.dumps(["leds", n, cues.led_frame(s, now, n, layout),
                              cues.next_change_ms(s, now, n, layout),
                              ledviews.peek_frame(s, now, n, layout)]))
            code = cues.frame_code(s, now, n, layout, True)
            print(json.dumps(["fault", n, cues.frame_of(code, n, layout),
                              cues.next_change_ms(s, now, n, layout, True)]))

PRESSES = (("a", "long"), ("a", "short"), ("a", "long"), ("a", "short"), ("a", "long"),
           ("a", "double"), ("b", "double"), ("a", "long"), ("a", "double"), ("b", "short"),
           ("a", "short"), ("a", "double"), ("b", "long"), ("b", "short"))
for buttons, screen in ((1, False), (2, True)):
    menu = Menu(buttons, screen)
    now = (1 << 30) - 3000
    for button, kind in PRESSES:
        now = ticks_add(now, 700)
        got = [[r[0], r[1].text()] if r[0] == "action" else list(r)
               for r in menu.press(button, kind, now)]
        print(json.dumps(["menu", got, menu.where(), texts.menu_lines(menu), menu.tick(now)]))
