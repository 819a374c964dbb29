# A badge checked on its REPL (`cran check`): what it is (chip, MicroPython, flash), its
# heap after it starts as its main.py starts it (cran.start.phases.start), set beside what `make
# bench` measured for its board (bench_figures.py); and, with a person, its parts: each
# LED look's colour, the screen, the buzzer, each button. The snippets here run on the
# badge's REPL.
import json

from host_tools import CommandError, build
from host_tools.device import badgeport
from host_tools.virtual.runtimes import NO_RADIO_HEAP_KB

# Within this much of the bench's figure, the heap is as predicted.
CLOSE_PERCENT = 15
# The check's own watchdog, set (and so fed) at each of its steps: the firmware's keeps
# running at the REPL and would reset the badge mid-way (each step is shorter).
WATCHDOG_MS = 45000
PRESS_WAIT_S = 15
OLDEST = (1, 22)   # docs/ORGANISER.md: MicroPython 1.22 or later

_FEED = "import machine\nmachine.WDT(timeout=%d)\n" % WATCHDOG_MS


def on_badge(code):
    """A snippet that imports the firmware's modules, with their names on a badge
    (build.flattened)."""
    return build.flattened(code, build.badge_modules())

# What the badge is (one line of JSON): chip, MicroPython, the flash, where the firmware is.
# (No watchdog fed here: a CircuitPython badge has no machine module, and is told so.)
_READ = """import gc, json, os, sys
u = os.uname()
try:
    with open('/config.json') as f:
        c = json.loads(f.read())
except Exception:
    c = {}
def _size(p):
    try:
        st = os.stat(p)
    except OSError:
        return 0
    if st[0] & 0x4000:
        return sum(_size(p + '/' + n) for n in os.listdir(p))
    return st[6]
try:
    import vfs
    rom = any(m[1] == '/rom' for m in vfs.mount()) and any(
        n.endswith('.mpy') for n in os.listdir('/rom'))
except Exception:
    rom = False
s = os.statvfs('/')
print(json.dumps({'machine': u.machine, 'release': u.release, 'about': u.version,
                  'python': sys.implementation.name,
                  'version': list(sys.implementation.version[:3]),
                  'bits': 64 if sys.maxsize > 2 ** 32 else 32,
                  'board': c.get('board'), 'badge': c.get('badge'), 'rom': rom,
                  'flash_free': s[0] * s[3], 'flash_total': s[0] * s[2],
                  'firmware_bytes': sum(_size('/' + n) for n in os.listdir('/') if n.endswith(
                      ('.mpy', 'main.py', 'firmware_check.py'))) + _size('/cran')}))
"""

# The badge started as main.py starts it, its heap then; its buttons' IRQs let go (a
# press during the check is no hit).
_START = _FEED + """import gc, json
try:
    from cran.start.phases import start
    _check_app = start('/')
    gc.collect()
    _said = {'alloc': gc.mem_alloc(), 'free': gc.mem_free(), 'safe': _check_app.safe,
             'leds': _check_app.leds is not None, 'screen': _check_app.screen is not None,
             'buzzer': _check_app.buzzer_pwm is not None,
             'buttons': [b.name for b in _check_app.buttons]}
    for _b in _check_app.buttons:
        _b.pin.irq(handler=None)
except Exception as e:
    _said = {'error': '%s: %s' % (type(e).__name__, e)}
print(json.dumps(_said))
"""

# The LED looks' colours, as the firmware's cues paint them: {colour: [looks]}. Sent
# with the names the badge's .mpy give cues' private ones (build.renamed).
_LOOK_COLOURS = """import json
from cran import cues
_c = {}
for _n, _v in cues._LOOKS.items():
    _c.setdefault(json.dumps(list(_v[0])), []).append(_n)
print(json.dumps(_c))
"""

# (name, rgb) a colour is told by: the nearest, its brightness aside.
_COLOUR_NAMES = (("red", (255, 0, 0)), ("orange", (255, 140, 0)), ("yellow", (255, 255, 0)),
                 ("green", (0, 255, 0)), ("turquoise", (0, 160, 160)), ("blue", (0, 0, 255)),
                 ("purple", (90, 0, 160)), ("pink", (255, 0, 160)), ("magenta", (255, 0, 255)),
                 ("white", (255, 255, 255)), ("grey", (90, 90, 90)))


def colour_name(rgb):
    """A person's word for an (r, g, b): the nearest named colour in hue, "dim" before
    it when it is faint."""
    top = max(rgb) or 1

    def far(named):
        ntop = max(named) or 1
        return sum((a / top - b / ntop) ** 2 for a, b in zip(rgb, named))
    name = min(_COLOUR_NAMES, key=lambda n: far(n[1]))[0]
    if name == "grey" and max(rgb) > 200:
        name = "white"
    return ("dim " if max(rgb) < 64 else "") + name


def read(link):
    """-> what the badge on link is (a dict: machine, version, board, flash...)."""
    return json.loads(_last_line(badgeport.run(link, _READ)))


def start(link):
    """Starts the badge as its main.py does -> its heap then and its parts, or
    {"error": why it does not start}."""
    return json.loads(_last_line(badgeport.run(link, on_badge(_START), timeout=60)))


def _last_line(text):
    lines = [x for x in text.splitlines() if x.strip()]
    if not lines:
        raise CommandError("the badge said nothing to cran check's question")
    return lines[-1]


def describe(port, facts, started, figures):
    """-> the report's lines: the chip, MicroPython, the flash, the heap beside the
    bench's figure for the board."""
    version = tuple(facts["version"])
    out = ["%s: %s, MicroPython %s%s" % (
        port, facts["machine"], ".".join(str(v) for v in version),
        "" if version >= OLDEST else " (TOO OLD: cran needs %d.%d or later)" % OLDEST)]
    out.append("  board     %s%s" % (facts["board"] or "none in its config (cran flash)",
                                     ", badge %s" % facts["badge"] if facts["badge"] else ""))
    out.append("  flash     %s free of %s; the firmware takes %s%s" % (
        _kb(facts["flash_free"]), _kb(facts["flash_total"]), _kb(facts["firmware_bytes"]),
        " (its code in ROMFS)" if facts["rom"] else ""))
    if "error" in started:
        out.append("  heap      not measured: the badge does not start (%s)"
                   % build.module_names(started["error"]))
        return out
    total = started["alloc"] + started["free"]
    out.append("  heap      %s in use after the badge's start, %s free, %s in all%s" % (
        _kb(started["alloc"]), _kb(started["free"]), _kb(total),
        # The tests' budget without the radio: what the example fight may need on any
        # board (the radio's is above a stock ESP32's heap today: docs/PERFORMANCE.md).
        "" if total >= NO_RADIO_HEAP_KB * 1024 or facts["bits"] == 64 else
        " (LESS than the %d KB budget the bench holds every board to: a MicroPython "
        "built with a smaller heap)" % NO_RADIO_HEAP_KB))
    out.extend(_beside_bench(facts, started, figures))
    if started["safe"]:
        out.append("  SAFE MODE the badge started in safe mode (three watchdog resets in 5 "
                   "minutes): its buttons are off; `cran console --port %s reboot` ends it"
                   % port)
    return out


def _beside_bench(facts, started, figures):
    key = "romfs_after_boot" if facts["rom"] else "after_boot"
    board = (figures or {}).get("boards", {}).get(facts["board"] or "", {})
    predicted = board.get(key)
    if predicted is None:
        return ["  bench     no figure of make bench for board %s%s here (docs/"
                "PERFORMANCE.md): nothing to compare with"
                % (facts["board"], " in ROMFS" if facts["rom"] else "")]
    gap = started["alloc"] - predicted
    percent = 100.0 * gap / predicted
    out = ["  bench     make bench measured %s after the start of board %s%s (32-bit); "
           "this badge %s: %+.0f%%" % (_kb(predicted), facts["board"],
                                       " with its code in ROMFS" if facts["rom"] else "",
                                       _kb(started["alloc"]), percent)]
    if facts["bits"] == 64:
        out.append("            a 64-bit MicroPython%s: its objects are ~1.4x an ESP32's, so "
                   "the gap says nothing of a chip" % (
                       " whose heap the virtual hardware shares (a cran vbadge)"
                       if "vbadge" in facts["about"] else " (a unix port)"))
    elif abs(percent) <= CLOSE_PERCENT:
        out.append("            as predicted: the bench's day (docs/PERFORMANCE.md) holds "
                   "for this badge")
    elif gap > 0:
        out.append("            MORE than predicted: a MicroPython of another version or "
                   "build, or a firmware other than the one measured (flashed from an "
                   "older or newer clone). The day's peak and smallest heap move as much: "
                   "run make bench on this clone, and read docs/PERFORMANCE.md again")
    else:
        out.append("            LESS than predicted: a MicroPython that keeps more of "
                   "itself out of the heap, or a firmware other than the one measured; "
                   "no harm, but the bench's figures are not this badge's")
    return out


def _kb(n):
    return "%.1f KB" % (n / 1024)


def hands(link, started, ask):
    """The parts, with the organiser: ask(question) -> True for yes. Prints a verdict a
    part. -> True when every part did as it should. On a virtual badge (a cran vbadge),
    what its virtual parts show is printed before each question: nobody can see them."""
    verdicts = []
    virtual = _last_line(badgeport.run(link, _VIRTUAL)) == "True"
    if started["leds"]:
        looks = json.loads(_last_line(badgeport.run(link, build.renamed(
            on_badge(_LOOK_COLOURS), build.badge_renames()))))
        for colour, names in sorted(looks.items(), key=lambda kv: sorted(kv[1])):
            rgb = tuple(json.loads(colour))
            badgeport.run(link, _FEED + "_check_app.leds.show([%r] * _check_app.leds.count)"
                          % (rgb,))
            if virtual:
                print(shown_leds(json.loads(_last_line(badgeport.run(link, _LEDS_SHOWN)))),
                      flush=True)
            word = colour_name(rgb)
            seen = ask("LEDs: is every LED lit %s (the look%s %s)?" % (
                word, "s" if len(names) > 1 else "", ", ".join(sorted(names))))
            verdicts.append(("LED look %s" % "/".join(sorted(names)),
                             "ok, %s" % word if seen else "NOT SEEN %s: an LED dead, or its "
                             "colours in another order than the board file says" % word))
        badgeport.run(link, _FEED + "_check_app.leds.off()")
    if started["screen"]:
        badgeport.run(link, _FEED + "_check_app.screen.show_lines(['cran check', 'ecran'])")
        if virtual:
            print(shown_screen(json.loads(_last_line(badgeport.run(link, _SCREEN_SHOWN)))),
                  flush=True)
        seen = ask("Screen: does it read «cran check» and «ecran»?")
        verdicts.append(("screen", "ok" if seen else "NOT SEEN: check its cable and the "
                                                     "board file's display"))
        badgeport.run(link, _FEED + "_check_app.screen.show_lines([])")
    if started["buzzer"]:
        if virtual:
            badgeport.run(link, "del _check_app.buzzer_pwm.timeline[:]")
        badgeport.run(link, on_badge(_FEED + _BEEP))
        if virtual:
            print(played(json.loads(_last_line(badgeport.run(link, _TUNE_PLAYED)))),
                  flush=True)
        heard = ask("Buzzer: did you hear two beeps?")
        verdicts.append(("buzzer", "ok" if heard else "NOT HEARD: check its pin in the "
                                                      "board file"))
    for name in started["buttons"]:
        print("Button %s: press button %s now (within %d s)%s" % (
            name, name, PRESS_WAIT_S, " (a virtual badge: in its cran vbadge --buttons "
            "terminal, %s then Enter)" % name if virtual else ""), flush=True)
        pressed = _last_line(badgeport.run(link, _FEED + _PRESS % (name, PRESS_WAIT_S * 1000),
                                           timeout=PRESS_WAIT_S + 10))
        verdicts.append(("button %s" % name, "ok, pressed" if pressed == "pressed" else
                         "NO PRESS seen in %d s: the button, or its pin in the board file"
                         % PRESS_WAIT_S))
    if started["safe"]:
        verdicts.append(("buttons", "NOT CHECKED: the badge is in safe mode"))
    for part, verdict in verdicts:
        print("%-24s %s" % (part, verdict))
    return all(v.startswith("ok") for _, v in verdicts)


# ---- what a virtual badge shows (cran vbadge: host_tools/virtual/micropython/'s parts) ---

# Whether the badge's parts are virtual ones (host_tools/virtual/micropython/machine.py has pwm_on;
# an ESP32's machine has not).
_VIRTUAL = "import machine\nprint(hasattr(machine, 'pwm_on'))"
# The colours its LEDs show, as a person looking at them sees them
# (virtual/micropython/neopixel.py).
_LEDS_SHOWN = """import json, neopixel
_np = _check_app.leds.np
print(json.dumps([list(c) for c in (neopixel.shown(getattr(_np.pin, 'id', _np.pin)) or ())]))
"""
# The lines its screen shows (its driver's mirror of them).
_SCREEN_SHOWN = "import json\nprint(json.dumps(list(_check_app.screen.shown or [])))"
# What its buzzer's PWM did: (tick ms, Hz, duty).
_TUNE_PLAYED = "import json\nprint(json.dumps(list(_check_app.buzzer_pwm.timeline)))"


def _paint(rgb):
    """A block of the colour rgb, on a terminal that draws colours (NO_COLOR aside)."""
    import os
    import sys
    if os.environ.get("NO_COLOR") or not (sys.stdout.isatty() or os.environ.get(
            "FORCE_COLOR")):
        return ""
    return "\x1b[38;2;%d;%d;%dm\u2588\u2588\x1b[0m " % tuple(rgb)


def shown_leds(colours):
    """A virtual badge's LEDs, for the person asked whether they are lit: how many,
    each colour (r, g, b) in words, and a block of it on a terminal."""
    if not colours:
        return "  the virtual badge's LEDs: all dark (nothing written to them)"
    groups = []
    for c in colours:
        if groups and groups[-1][0] == c:
            groups[-1][1] += 1
        else:
            groups.append([c, 1])
    return "  the virtual badge's LEDs: " + ", ".join(
        "%s%d lit %s (%d, %d, %d)" % ((_paint(c), n, colour_name(c)) + tuple(c))
        if any(c) else "%d dark" % n for c, n in groups)


def shown_screen(lines):
    """A virtual badge's screen, its lines in a box."""
    if not lines:
        return "  the virtual badge's screen: blank"
    width = max(len(x) for x in lines)
    return "\n".join(["  the virtual badge's screen:", "  +" + "-" * (width + 2) + "+"]
                     + ["  | %s |" % x.ljust(width) for x in lines]
                     + ["  +" + "-" * (width + 2) + "+"])


def played(timeline):
    """A virtual badge's buzzer, from its PWM's changes [(tick ms, Hz, duty)]: each
    note it sounded, in Hz and ms."""
    notes = []
    for (t, hz, duty), after in zip(timeline, timeline[1:] + [None]):
        if duty and after is not None:
            notes.append("%d Hz for %d ms" % (hz, after[0] - t))
    if not notes:
        return "  the virtual badge's buzzer: silent"
    return "  the virtual badge's buzzer sounded: " + ", then ".join(notes)


# ---- the check's own marks in the badge's journal ---------------------------------------

# Appended to the badge's journal through its firmware's own (cran.storage.Journal),
# as the firmware writes an entry: {"check": "start"} before the check starts the badge
# on its REPL (a boot entry follows), {"check": "reset"} before its reset at the end
# (the boot after is the check's too). The debrief (host_tools/debrief) draws those
# boots as the check's, not as a wearer's. Its wall clock as a boot entry takes it.
_MARK = """import time
try:
    from cran.storage import Journal
    _e = {'check': %r, 'up': time.ticks_ms() & 0x3fffffff}
    _w = int(time.time()) + (946684800 if time.gmtime(0)[0] == 2000 else 0)
    if _w > 1577836800:
        _e['t'] = _w
    Journal('/').append(_e)
    del _e, _w
except Exception as _x:
    print('not marked: %%r' %% (_x,))
"""


def mark(link, what):
    """The check's next step (what: "start", "reset") noted in the badge's journal,
    so that the boot it makes is read as the check's. Best effort: a badge whose
    journal cannot take it is checked all the same."""
    try:
        badgeport.run(link, on_badge(_MARK % what))
    except CommandError:
        pass


# Two beeps on the badge's buzzer, as its driver plays a tune: (Hz, ms) notes.
_BEEP = """import time
from cran.hal.buzzer import Buzzer
_z = Buzzer(_check_app.buzzer_pwm, _check_app.volume_percent)
_z.play(((2000, 200), (0, 150), (2000, 200)), time.ticks_ms())
while _z.playing():
    time.sleep_ms(10)
    _z.update(time.ticks_ms())
_z.stop()
"""

# Waits for the button named %r to be pressed, up to %d ms (its level, not its IRQ).
_PRESS = """import time
_p = [b for b in _check_app.buttons if b.name == %r][0]
_t = time.ticks_ms()
_s = 'none'
while time.ticks_diff(time.ticks_ms(), _t) < %d:
    if _p.pin.value() == (0 if _p.active_low else 1):
        _s = 'pressed'
        break
    time.sleep_ms(5)
print(_s)
"""
