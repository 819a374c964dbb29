# The badge on a desktop terminal (Textual): the real firmware app runs in a driver
# process (driver.BadgeDriver) and its session (session.Session: the clock, the script
# replayed, the presses) moves it on; this only draws what it shows (LEDs, screen,
# buzzer, the wearer's state, the journal) and turns keys into the session's calls.
# The board's panel holds only what the board's own parts show; what the badge knows
# besides (its state, its menu, a peek) is the wearer's panel, which `w` hides with the
# journal: play with only what the board shows, as its wearer does.
import math
import sys

from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.suggester import SuggestFromList
from textual.widgets import Footer, Input, RichLog, Static

from cran.core.vocab import ARMOR_DAMAGED
from cran.core.words import KEYWORDS, TIMED_EFFECTS
from host_tools.game.times import elapsed, time_left
from host_tools.sim.session import ClockRefused, Session
from host_tools.terminal import driver_class

TICK_S = 0.05            # the clock moves the badge on 20 times a second
_OFF_RGB = (40, 40, 40)  # an unlit LED: dark, but still a cell you can see

# The action pickers (c, e, o): every action of docs/scenarios.md a key away. A
# badge without keyboard says `membre` for a limb; any other target: the console (:).
_KEYWORD_ENTRIES = (["blesse", "agonisant", "coma", "mort"] + list(TIMED_EFFECTS)
                    + ["brise membre", "desarme", "dissipe", "vol", "resiste", "invisible",
                       "message", "regard"])
_COUP_WORDS = (["normal"] + _KEYWORD_ENTRIES[:4] + ["mort si coma"] + _KEYWORD_ENTRIES[4:])
_OTHER_WORDS = ["soin", "soin complet", "repare armure", "repare membre", "nuit", "hors-jeu",
                "en-jeu", "stop", "reprise", "reset", "renommee +1", "renommee -1"]


def pick_keys(words):
    """One key per entry: its first letter still free, else another of its letters,
    else the first free letter or digit. Stable, and shown beside each entry."""
    used = set("*+")   # the divin / de masse switches
    keys = []
    for word in words:
        letters = [ch for ch in word if ch.isalpha()]
        spare = [ch for ch in "abcdefghijklmnopqrstuvwxyz0123456789" if ch not in used]
        key = next((ch for ch in letters if ch not in used), spare[0])
        used.add(key)
        keys.append(key)
    return keys


# page -> (verb, [(key, entry)]); coup and effet share their keys (u: peur on both).
_COUP = list(zip(pick_keys(_COUP_WORDS), _COUP_WORDS))
PICKERS = {
    "coup": ("coup", _COUP),
    "effet": ("effet", [(k, w) for k, w in _COUP if w in _KEYWORD_ENTRIES]),
    "autre": (None, list(zip(pick_keys(_OTHER_WORDS), _OTHER_WORDS))),
}
_CONSOLE_WORDS = (["coup", "coup mort si coma"] + ["coup " + k for k in KEYWORDS]
                  + ["effet " + k for k in KEYWORDS] + _OTHER_WORDS
                  + ["status", "journal", "config", "help", "character armor=",
                     "character name=", "character helmet=oui", "character resist="])

def legend():
    """Every look of the LEDs, a line each (? shows it with the keys)."""
    return "\n".join("  %-9s %s" % (name, words) for name, words in LOOK_WORDS.items()) + (
        "\n  %s\n  %s" % (_EFFECT_CODE, _MENU_LOOK))


KEYS_HELP = """\
buttons: space or a = press a · A = hold a (long) · d = double press a
         b B D = the same for button b, on boards that have one
actions: c = coup…  e = effet…  o = other actions…  : = a console line
clock:   p = pause · 1 2 3 = x1 x10 x60 · . = +1 s · m = +1 min · M = +5 min
also:    r = reboot the badge · t = terminal bell · ? = these keys and the LEDs' looks · q = quit
         w = the board alone: hide the wearer's panel and the journal (w again: back)"""


# What each of the LEDs' looks (cran.cues) tells whoever sees it, as docs/controls.md
# and the cue chart say it: the line under the board's LEDs, and the legend (?).
LOOK_WORDS = {
    "debout": "green, steady: pleine forme",
    "veille": "green, a flash every 8 s: pleine forme",
    "blesse": "orange, slow blink: blesse",
    "au-sol": "red, double flash: agonisant, on the ground",
    "alerte": "red, fast blink: agonisant, under a minute to coma",
    "inerte": "dim violet, a blip every 4 s: coma or mort",
    "hors-jeu": "cyan, long on: hors-jeu",
    "stop": "white strobe: the game is stopped",
    "inconnu": "magenta glow, 4 quick flashes: state lost, an organiser resets it",
    "armure": "white, 3 short flashes: say «Armure»",
    "resiste": "white, short then long: say «Résiste»",
    "cri": "white, one long flash: shout (a creature's hit absorbed)",
}
_EFFECT_CODE = ("an effect running: its code in the second half of the 4 s (long flashes "
                "count 5, short ones 1)")
_MENU_LOOK = ("menu open: white Menu, red Coup, violet Effet, green Autre; long flashes "
              "= page level, short = entry")


def note_name(freq_hz):
    n = int(round(12 * math.log2(freq_hz / 440.0))) + 69   # MIDI number
    return "%s%d" % (("C", "C#", "D", "D#", "E", "F", "F#", "G", "G#", "A", "A#", "B")[n % 12],
                     n // 12 - 1)


def shown_rgb(rgb, max_brightness):
    """What the eye sees of an LED: the board caps it (max_brightness) and it still
    glows; drawn at full terminal brightness with the same hue."""
    if not any(rgb):
        return _OFF_RGB
    scale = 255.0 / max(max_brightness, max(rgb))
    return tuple(min(255, int(round(c * scale))) for c in rgb)


class Picker(ModalScreen):
    """A page of actions, one key each; * and + switch divin / de masse."""

    DEFAULT_CSS = """
    Picker { align: center middle; }
    #picker { width: auto; max-width: 100; height: auto; border: round $accent;
              background: $panel; padding: 0 1; }
    """
    def __init__(self, verb, entries):
        super().__init__()
        self.verb = verb
        self.keys = [k for k, _ in entries]
        self.words = [w for _, w in entries]
        self.divin = False
        self.masse = False

    def compose(self):
        yield Static(self._text(), id="picker")

    def _text(self):
        out = Text()
        for i, (key, word) in enumerate(zip(self.keys, self.words)):
            out.append(" %s " % key, "bold reverse")
            out.append(" %-14s" % word)
            if i % 4 == 3:
                out.append("\n")
        if self.verb:
            out.append("\n\n * divin: %s   + de masse: %s   esc: close" % (
                "oui" if self.divin else "non", "oui" if self.masse else "non"))
        else:
            out.append("\n\n esc: close")
        return out

    def on_key(self, event):
        # Every key is the picker's (none reaches the badge behind it): Esc too, here,
        # since a key stopped in on_key never reaches a binding.
        event.stop()
        event.prevent_default()
        char = event.character
        if event.key == "escape":
            self.dismiss(None)
        elif self.verb and char in ("*", "+"):
            if char == "*":
                self.divin = not self.divin
            else:
                self.masse = not self.masse
            self.query_one("#picker", Static).update(self._text())
        elif char in self.keys:
            word = self.words[self.keys.index(char)]
            text = ("%s %s" % (self.verb, word)) if self.verb else word
            self.dismiss(text + (" de masse" if self.masse else "")
                         + (" divin" if self.divin else ""))


class SimApp(App):
    """The badge behind `driver`, drawn and driven. script: (path, parsed Scenario)."""

    TITLE = "cran sim"
    ENABLE_COMMAND_PALETTE = False
    CSS = """
    #top { height: auto; }
    #badge { width: 46; height: auto; border: round $accent; padding: 0 1; }
    #state { width: 1fr; height: auto; border: round $accent; padding: 0 1; }
    #clock { height: 1; padding: 0 1; }
    #journal { height: 1fr; border: round $accent; }
    #script { height: 9; border: round $accent; }
    #console { dock: bottom; display: none; }
    """
    BINDINGS = [
        Binding("space", "press('a', 'short')", "hit (a)"),
        Binding("a", "press('a', 'short')", "a", show=False),
        Binding("A", "press('a', 'long')", "hold a"),
        Binding("d", "press('a', 'double')", "double a"),
        Binding("b", "press('b', 'short')", "b", show=False),
        Binding("B", "press('b', 'long')", "hold b", show=False),
        Binding("D", "press('b', 'double')", "double b", show=False),
        Binding("c", "pick('coup')", "coup…"),
        Binding("e", "pick('effet')", "effet…"),
        Binding("o", "pick('autre')", "other…"),
        Binding("colon", "console", "console"),
        Binding("p", "pause", "pause"),
        Binding("1", "speed(1)", "x1", show=False),
        Binding("2", "speed(10)", "x10", show=False),
        Binding("3", "speed(60)", "x60", show=False),
        Binding("period", "jump(1000)", "+1s", show=False),
        Binding("m", "jump(60000)", "+1min"),
        Binding("M", "jump(300000)", "+5min"),
        Binding("r", "reboot", "reboot", show=False),
        Binding("t", "bell", "bell", show=False),
        Binding("w", "board_alone", "board alone"),
        Binding("question_mark", "keys", "keys"),
        Binding("q", "quit", "quit"),
    ]

    def __init__(self, driver, script=None, paused=False, bell=False, watch_terminal=False,
                 field=None, game_key=None):
        super().__init__(driver_class=driver_class())   # on stdout
        self.session = Session(driver, script, paused, on_frame=self._new_frame,
                               on_log=self._logged, on_step=self._stepped,
                               on_melody=self._melody, field=field, game_key=game_key)
        self.hello = driver.hello
        self.watch_terminal = watch_terminal
        self.bell_on = bell
        self.led_colours = []      # the colours drawn for the LEDs, as shown
        self._drawn = {}           # id(widget) -> what it shows, to redraw only changes

    # ---- layout -----------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        # Kept by reference: while a picker is up, queries would look in the picker.
        self.w_leds, self.w_screen, self.w_buzzer = Static(), Static(), Static()
        self.w_buttons, self.w_menu, self.w_clock = Static(), Static(), Static(id="clock")
        self.w_state = Static()
        self.w_journal = RichLog(id="journal", wrap=True, max_lines=5000)
        self.w_script = RichLog(id="script", wrap=True) if self.session.script else None
        self.w_console = Input(
            placeholder="a console line: coup blesse, effet peur divin, soin, status…",
            suggester=SuggestFromList(_CONSOLE_WORDS, case_sensitive=False), id="console",
            # Opened empty: what it holds as it takes the focus was typed ahead (on_key),
            # not text to select for the next key to replace.
            select_on_focus=False)
        with Horizontal(id="top"):
            with Vertical(id="badge"):
                yield self.w_leds
                yield self.w_screen
                yield self.w_buzzer
                yield self.w_buttons
            # All the badge knows: not on the board (a one-LED badge shows no menu's
            # words, no armor count), so never in the board's panel.
            with Vertical(id="state"):
                yield self.w_state
                yield self.w_menu
        yield self.w_clock
        yield self.w_journal
        if self.w_script is not None:
            yield self.w_script
        yield self.w_console
        yield Footer()

    def on_mount(self):
        h = self.hello
        self.query_one("#badge").border_title = h["name"] if h["runtime"] in h["name"].lower() \
            else "%s (%s)" % (h["name"], h["runtime"])   # "... (CircuitPython)" says it
        self.query_one("#state").border_title = (
            "the wearer: what the badge knows, not what the board shows (w: hide)")
        self.w_journal.border_title = "journal (w: hide)"
        self.w_buttons.update(Text("  ".join(
            "button %s: %s" % (name, ("space/a A d", "b B D")[i] if i < 2 else "-")
            for i, name in enumerate(h["buttons"])), "dim"))
        self.action_keys(looks=False)
        self.session.absorb(self.session.frame)
        if self.w_script is not None:
            self.w_script.border_title = self.session.script.title()
        self.set_interval(TICK_S, self.tick)
        if self.watch_terminal:
            self.set_interval(1.0, self._terminal_gone)

    def _terminal_gone(self):
        # A terminal closed under a `make sim` may send no SIGHUP to this process: its
        # input then fails for ever, and the UI would spin. Gone, we go.
        import termios  # POSIX: only a terminal UI started for real watches it
        try:
            termios.tcgetattr(sys.__stdin__.fileno())
        except (OSError, termios.error, ValueError):
            self.exit()

    # ---- what the session says ------------------------------------------------------

    def _new_frame(self, frame):
        if self.is_running:
            self.draw()

    def _logged(self, text, kind):
        self.log_line(text, {"dead": "bold red", "error": "red"}.get(kind, ""))
        if kind == "dead":
            self.notify("the badge process has stopped", severity="error")

    def _stepped(self, kind, ok, text):
        mark = ("·" if kind == "act" else "✓") if ok else "✗"
        style = "" if kind == "act" else "green"
        if not ok:
            style = "red" if kind == "act" else "bold red"
        self.w_script.write(Text("%s %s" % (mark, text), style))
        self.w_script.border_title = self.session.script.title()

    def _melody(self):
        if self.bell_on:
            self.bell()

    def tick(self):
        self.session.tick()
        self.draw_clock()

    # ---- drawing ----------------------------------------------------------------------

    def draw(self):
        self.draw_leds()
        self.draw_screen()
        self.draw_buzzer()
        self.draw_menu()
        self.draw_state()
        self.draw_clock()

    def draw_leds(self):
        spec = self.hello["leds"]
        widget = self.w_leds
        if spec is None:
            self.put(widget, Text("(no LEDs on this board)", "dim"))
            return
        colours = [shown_rgb(c, spec["max_brightness"]) for c in self.session.frame["leds"]]
        self.led_colours = colours
        layout = spec["layout"]
        # Cells about square (a terminal cell is twice as tall as wide); the index order
        # is the wire's: the matrix's LED 0 is its top left.
        if layout == "single":
            rows, width, height = [colours], 10, 3
        elif layout == "matrix-5x5":
            rows, width, height = [colours[i:i + 5] for i in range(0, 25, 5)], 4, 2
        else:
            rows, width, height = [colours], 3, 1
        lines = []
        for r, row in enumerate(rows):
            if r:
                lines.append(Text())   # a dark line between rows, as between the LEDs
            for _ in range(height):
                line = Text()
                for rgb in row:
                    line.append(" " * width, "on rgb(%d,%d,%d)" % rgb)
                    line.append(" ")
                lines.append(line)
        lines.append(Text("%s  (?: what its looks mean)" % ("LED" if len(colours) == 1
                                                             else "LEDs"), "dim"))
        self.put(widget, Text("\n").join(lines))

    def _look_words(self):
        """What the LEDs' look says now, for the wearer's panel (the legend: ?). Not in
        the board's panel, which holds only what the board shows."""
        frame = self.session.frame
        if frame.get("menu"):
            words = _MENU_LOOK
        elif frame.get("peek"):
            words = "the peek: the wearer's private view (state bar, countdown)"
        else:
            look = frame.get("look")
            words = "%s: %s" % (look, LOOK_WORDS.get(look, "?"))
            if frame["status"].get("effets") and look in ("debout", "veille", "blesse",
                                                          "au-sol", "alerte"):
                words += "; " + _EFFECT_CODE.split(":")[0]
        return words

    def draw_screen(self):
        spec = self.hello["screen"]
        widget = self.w_screen
        lines = self.session.frame["screen"]
        if spec is None or lines is None:
            widget.display = False
            return
        width = spec["columns"]
        shown = (lines + [""] * 3)[:max(3, len(lines))]
        out = Text("┌%s┐\n" % ("─" * width), "dim")
        for line in shown:
            out.append("│", "dim")
            out.append(line.ljust(width), "bold #ffffff on #000028")
            out.append("│\n", "dim")
        out.append("└%s┘" % ("─" * width), "dim")
        self.put(widget, out)

    def draw_buzzer(self):
        widget = self.w_buzzer
        if not self.hello["buzzer"]:
            self.put(widget, Text("buzzer: none on this board", "dim"))
            return
        sounding = self.session.sounding
        out = Text("buzzer: ")
        out.append("♪ " if sounding else "  ", "bold yellow")
        out.append(" ".join(note_name(f) for _, f in self.session.notes) or "silent",
                   "bold" if sounding else "dim")
        out.append("  (bell %s)" % ("on" if self.bell_on else "off"), "dim")
        self.put(widget, out)

    def draw_menu(self):
        frame = self.session.frame
        where = frame["menu"]
        if where:
            group, depth, index, label = where
            text = "menu       open: %s, level %d%s" % (
                ("Menu/Voir", "Coup", "Effet", "Autre")[group % 4], depth,
                (", entry %d: %s" % (index, label)) if index else ": " + label)
        elif frame["peek"]:
            text = "menu       closed; the peek (the wearer's private view) on show"
        else:
            text = "menu       closed" + ("  SAFE MODE" if frame["safe"] else "")
        self.put(self.w_menu, Text(text, "cyan" if where else "dim"))

    def draw_state(self):
        s = self.session.frame["status"]
        out = Text()
        out.append("etat       ")
        out.append(s["etat"], "bold")
        out.append("\n")
        if s["armure"] is None:   # etat inconnu: nothing of the wearer is known
            armor = "-"
        else:
            armor = "%d answer%s left" % (s["armure"], "" if s["armure"] == 1 else "s")
        out.append("armure     %s%s\n" % (armor, ", damaged" if s[ARMOR_DAMAGED] else ""))
        effects = ", ".join("%s %s" % (name, time_left(ms))
                            for name, ms in sorted(s["effets"].items())) or "-"
        out.append("effets     %s\n" % effects)
        out.append("brises     %s\n" % (", ".join(s["brises"]) or "-"))
        left = s["reste_ms"]
        if left is None:
            countdown = "-"
        else:
            after = {"agonisant": "coma", "coma": "mort"}.get(s["etat"], "?")
            countdown = "%s in %s%s" % (after, time_left(left),
                                        " (stopped)" if s["jeu"] == "stop" else "")
        out.append("countdown  ")
        out.append(countdown, "bold red" if left is not None else "")
        out.append("\ndit        %s\n" % s["dit"])
        if self.hello["leds"] is not None:
            out.append("led look   %s\n" % self._look_words())
        out.append("jeu        %s   combat %s   renommee %s\n" % (
            s["jeu"], "oui" if s["combat"] else "non", s["renommee"]))
        out.append("who        %s on %s" % (s["personnage"] or "(no name)", s["board"]), "dim")
        self.put(self.w_state, out)

    def draw_clock(self):
        session = self.session
        now = session.now
        if session.dead:
            state = Text("stopped: the badge process is gone", "bold red")
        elif session.field is not None:
            state = Text("real time, on field %s" % session.field, "bold cyan")
        else:
            state = Text("paused" if session.paused else "x%d" % session.speed,
                         "bold yellow" if session.paused else "bold green")
        out = Text("clock %s  " % elapsed(now - now % 100).ljust(9))
        out.append_text(state)
        if session.script is not None:
            out.append("   script %s" % elapsed(max(0, now - session.script.start_ms)))
        self.put(self.w_clock, out)

    def put(self, widget, content):
        # 20 frames a second, most the same as the last: only a change costs a redraw.
        if self._drawn.get(id(widget)) != content:
            self._drawn[id(widget)] = content
            widget.update(content)

    def log_line(self, text, style=""):
        self.w_journal.write(Text(text, style))

    # ---- keys -------------------------------------------------------------------------

    def action_press(self, name, kind):
        self.session.press(name, kind)

    def action_pick(self, page):
        verb, entries = PICKERS[page]
        self.push_screen(Picker(verb, entries), self.do_line)

    def do_line(self, text):
        if not text:
            return
        self.log_line("> " + text, "bold")
        for line in self.session.line(text):
            self.log_line("  " + line, "red" if line.startswith("error") else "")

    def action_console(self):
        box = self.w_console
        box.display = True
        box.focus()

    def on_input_submitted(self, event):
        event.input.value = ""
        event.input.display = False
        self.set_focus(None)
        self.do_line(event.value.strip())

    def on_key(self, event):
        box = self.w_console
        if event.key == "escape" and box.display:
            box.value = ""
            box.display = False
            self.set_focus(None)
        elif box.display and not box.has_focus:
            # `:` gave the line the focus for Textual's next turn: a key already waiting
            # (typed fast, pasted, a busy machine) is the line's, not a hotkey's.
            event.stop()
            event.prevent_default()
            box.focus()
            if event.key == "enter":
                self.call_later(box.action_submit)
            elif event.is_printable:
                box.insert_text_at_cursor(event.character)

    def action_pause(self):
        self._clock(self.session.pause)

    def action_speed(self, speed):
        self._clock(self.session.set_speed, speed)

    def action_jump(self, ms):
        self._clock(self.session.jump, ms)

    def _clock(self, change, *args):
        try:
            change(*args)
        except ClockRefused as e:
            self.notify(str(e), severity="warning")
        self.draw_clock()

    def action_reboot(self):
        self.log_line("(the badge is switched off and on)", "bold")
        self.session.reboot()

    def action_board_alone(self):
        """Hide all the badge knows (the wearer's panel, the journal and a script's
        checks), or show it again: hidden, the board alone tells what to do and say,
        as on the day, and what it fails to show goes unseen."""
        hidden = [self.query_one("#state"), self.w_journal] + (
            [self.w_script] if self.w_script is not None else [])
        shown = not hidden[0].display
        for widget in hidden:
            widget.display = shown

    def action_bell(self):
        self.bell_on = not self.bell_on
        self.draw_buzzer()

    def action_keys(self, looks=True):
        """The keys in the journal; looks: every look of the LEDs too (?, not at the
        start: the wearer's panel says the look on show)."""
        for line in KEYS_HELP.splitlines():
            if line.startswith("clock:") and self.session.field is not None:
                line = "clock:   real time, the field's: no pause, speed or jump on a field"
            self.log_line(line, "dim")
        if looks and self.hello["leds"] is not None:
            self.log_line("the LEDs' looks:", "dim")
            for line in legend().splitlines():
                self.log_line(line, "dim")

    def check_action(self, action, parameters):
        # While the console's line is open, its keys are its own (on_key), none a
        # hotkey's; on a field the clock keys are not offered (nor shown in the footer).
        if self.w_console.display and action != "console":
            return False
        return self.session.field is None or action not in ("pause", "speed", "jump")


