# A simulated badge's session, without any drawing (no Textual here): its clock
# (pause, x1/x10/x60, jumps), the driver to the badge process (driver.BadgeDriver), a scenario
# replayed on it with its expect lines checked as they pass, whole button gestures, and
# the buzzer's last melody. The terminal UI (tui.SimApp) reads it and tells it what the
# keys asked; what there is to show comes back through the `on_*` callbacks.
import os
import time

from cran.console import LOCKED
from gamefiles import scenario
from host_tools.debrief import journal
from host_tools.game.times import elapsed
from host_tools.sim.driver import DriverError

MELODY_GAP_MS = 200   # silence longer than the rests inside a melody: the next is new


class ClockRefused(Exception):
    """A pause, speed or jump asked of a badge whose time is not the session's."""


class Script:
    """A scenario file replayed on the badge: its steps at their times from `start`."""

    def __init__(self, path, parsed, start_ms):
        self.name = os.path.basename(path)
        self.steps = parsed.steps
        self.start_ms = start_ms
        self.next = 0
        self.held = 0
        self.failed = 0
        self.expects = sum(1 for s in self.steps if s[2] == "expect")

    def due(self):
        """The elapsed ms of the next step, or None when all have played."""
        if self.next >= len(self.steps):
            return None
        return self.start_ms + self.steps[self.next][1]

    def title(self):
        done = "" if self.due() is None else ", next at %s" % elapsed(self.steps[self.next][1])
        return "script %s: %d/%d expects held, %d failed%s" % (
            self.name, self.held, self.expects, self.failed, done)


def _ignore(*_):
    pass


class Session:
    """The badge behind `driver`, its clock and a script. script: (path, parsed Scenario).
    Callbacks, each optional: on_frame(frame) after every frame the badge sends;
    on_log(text, kind) for a journal line, a fault or an error (kind "", "fault",
    "error", "dead"); on_step(kind, ok, text) for each script step played ("act" or
    "expect", whether it went as written, a line saying it); on_melody() when a
    new melody starts on the buzzer. field: the virtual field's name when the badge is
    on one (driver.field): its time is real then, no pause, speed or jump; game_key: the
    key its console is locked with, which the session unlocks it with (as `cran
    console` does) for a line it refuses."""

    def __init__(self, driver, script=None, paused=False, on_frame=_ignore, on_log=_ignore,
                 on_step=_ignore, on_melody=_ignore, field=None, game_key=None):
        self.driver = driver
        self.field = field
        self.game_key = game_key
        self.fingers = []          # on a field: [(elapsed ms, button, down)] still to do
        self.finger_free = 0       # ... and when the badge has decided the last gesture
        self.hello = driver.hello
        self.frame = driver.first
        self.now = self.frame["now"]
        self.target = self.now     # where the clock wants the badge (elapsed ms, float)
        self.speed = 1
        self.paused = paused
        self.dead = None           # why the badge process is gone, once it is
        self.script = Script(script[0], script[1], self.now) if script else None
        self.notes = []            # the last melody's notes: [[elapsed ms, freq Hz]]
        self.sounding = 0          # the buzzer's frequency now (0: silent)
        self._quiet_at = -MELODY_GAP_MS   # elapsed ms the buzzer last fell silent
        self._last_tick = None
        self.on_frame, self.on_log = on_frame, on_log
        self.on_step, self.on_melody = on_step, on_melody

    # ---- talking to the badge ---------------------------------------------------------

    def call(self, command):
        """Send one command -> the frame, applied; None when refused or gone."""
        if self.dead:
            return None
        try:
            frame = self.driver.send(command)
        except DriverError as e:
            self.dead = str(e)
            self.on_log(self.dead, "dead")
            return None
        if "error" in frame:
            self.on_log(frame["error"], "error")
            return None
        self.absorb(frame)
        return frame

    def absorb(self, frame):
        self.frame = frame
        self.now = frame["now"]
        self.target = max(self.target, self.now)   # a press took its own time
        for at, entry in frame["journal"]:
            self.on_log("%8s  %s" % (elapsed(at), journal.live_line(entry)),
                        "error" if "error" in entry else "")
        if frame.get("fault"):
            self.on_log(frame["fault"], "error")
        for at, freq_hz in frame["notes"]:
            if freq_hz and not self.sounding and at - self._quiet_at > MELODY_GAP_MS:
                self.notes = []   # a new melody: one bell for it, not one per note
                self.on_melody()
            if freq_hz:
                self.notes = (self.notes + [[at, freq_hz]])[-12:]
            elif self.sounding:
                self._quiet_at = at
            self.sounding = freq_hz
        self.on_frame(frame)

    def line(self, text):
        """A console line -> the badge's answer lines ([] when refused or gone). A
        scenario's `character` line is the sim's own: the wearer becomes that character
        (the fields it gives changed, the others kept), reset to full health (P3)."""
        words = text.split(None, 1)
        if words and words[0].lower() in ("character", "personnage"):
            return self.recast(words[1] if len(words) > 1 else "")
        answer = (self.call({"line": text}) or {}).get("answer", [])
        if answer[:1] == [LOCKED] and self.game_key is not None and self._unlock():
            answer = (self.call({"line": text}) or {}).get("answer", [])
        return answer

    def _unlock(self):
        """The console opened with the game key, as `cran console` opens it."""
        from host_tools.game import gamekey
        said = (self.call({"line": "challenge"}) or {}).get("answer", [])
        words = said[0].split() if said else []
        if len(words) != 3 or words[0] != "challenge":
            return False
        tag = gamekey.unlock_tag(self.game_key, bytes.fromhex(words[1]))
        said = (self.call({"line": "unlock " + tag}) or {}).get("answer", [])
        opened = bool(said) and said[0].startswith("ok ")
        self.on_log("(the console unlocked with the game key %s: %s)"
                    % (words[2], said[0] if said else "no answer"), "" if opened else "error")
        return opened

    def recast(self, fields):
        """`character FIELD=VALUE ...` -> the answer lines: the new character, or the
        fault of every field that is wrong (the word meant for a misspelt one)."""
        from cran.config import character_from
        from cran.core.choices import as_dict
        from gamefiles import scenario
        from host_tools.game.roster import describe
        from host_tools.game.suggest import did_you_mean
        base = character_from("the sim's character", self.driver.config.get("character", {}))
        if not fields.strip():
            return ["error: character: give the fields to change, e.g. character "
                    "armor=metal helmet=oui (name, armor, helmet, creature, resist, "
                    "agonisant, coma)"]
        try:
            character = scenario.parse_character(fields, base)
        except scenario.ParseError as e:
            faults = getattr(e, "each", None) or [e]
            return ["error: character: %s%s" % (f, did_you_mean(f)) for f in faults]
        self.driver.config["character"] = as_dict(character)
        if self.call({"character": as_dict(character)}) is None:
            return []
        return ["ok character: %s, %s, reset to full health (P3)" % (
            character.name or "(no name)", describe(as_dict(character)))]

    def reboot(self):
        self.call({"reboot": True})

    # ---- time -------------------------------------------------------------------------

    def run_to(self, target):
        """Move the badge on to elapsed ms `target`, playing the script's steps due on
        the way at their own times."""
        script = self.script
        while script is not None and script.due() is not None and script.due() <= target:
            self.advance_to(script.due())
            step = script.steps[script.next]
            script.next += 1   # before it plays: the title then names the step after
            self.play_step(step)
            if self.dead:
                return
        self.advance_to(target)

    def advance_to(self, target):
        if target > self.now:
            self.call({"advance": target - self.now})

    def tick(self, wall_s=None):
        """The clock's beat: the badge moved on by the wall-clock time since the last
        beat, times the speed, unless paused. On a field, where it runs on by itself:
        a look, the finger's moves due, the script's steps due."""
        if self.field is not None:
            if self.call({"frame": True}) is not None:
                self._fingers_due()
                self.run_to(self.now)
            return
        t = time.monotonic() if wall_s is None else wall_s
        dt = 0 if self._last_tick is None else t - self._last_tick
        self._last_tick = t
        if not self.paused and not self.dead:
            self.target += dt * 1000 * self.speed   # float: no ms lost per beat
            self.run_to(int(self.target))

    def jump(self, ms):
        self._own_clock()
        self.target = max(self.target, self.now) + ms
        self.run_to(int(self.target))

    def set_speed(self, speed):
        self._own_clock()
        self.speed = speed
        self.paused = False

    def pause(self):
        self._own_clock()
        self.paused = not self.paused

    def _own_clock(self):
        if self.field is not None:
            raise ClockRefused("on field %s the clock is real time: the field's other "
                               "badges and its station do not wait" % self.field)

    # ---- the script and the buttons ---------------------------------------------------

    def play_step(self, step):
        """One step of the script: an action said to the console, or an expect line
        checked against what the badge knows now. -> on_step(kind, ok, text)."""
        line, t, kind, payload = step
        when = elapsed(t).rjust(7)
        if kind == "act":
            answer = self.line(payload.text()) or ["(no answer)"]
            ok = answer[0].startswith("ok ")
            self.on_step(kind, ok, "%s  %s%s" % (when, payload.text(),
                                                 "" if ok else "  " + answer[0]))
            return
        failed = scenario.check(payload, self.frame["view"])
        text = "%s  expect %s" % (when, " ".join(w for _, _, w in payload))
        if failed:
            self.script.failed += 1
            self.on_step(kind, False, "%s: %s" % (text, "; ".join(
                "expected %s, got %s" % f for f in failed)))
        else:
            self.script.held += 1
            self.on_step(kind, True, text)

    def press(self, name, kind):
        """One whole gesture on a button, taking its own virtual time, and waited out so
        the badge has decided what it was before the next key (a tap then another is
        two taps, whatever the clock's speed). On a field, in real time: the finger's
        moves are done by the beats as their time comes, after those of the last key."""
        moves, decided = self._gesture(kind)
        if self.field is not None:
            start = max(self.now, self.finger_free)
            self.fingers += [(start + at, name, down) for at, down in moves]
            self.finger_free = start + decided
            self._fingers_due()
            return
        start = self.now
        for at, down in moves:
            self.run_to(start + at)
            if self.call({"button": name, "down": down}) is None and down:
                return
        self.run_to(start + decided)

    def _gesture(self, kind):
        """A gesture's finger moves -> ([(ms from its start, down)], the ms from its start
        when the badge has told it apart: past a double press's window)."""
        p = self.hello["press_ms"]
        presses, hold = {"short": (1, p["debounce"] + 30), "long": (1, p["long"] + 200),
                         "double": (2, p["debounce"] + 30)}[kind]
        moves, at = [], 0
        for i in range(presses):
            if i:
                at += p["debounce"] + 50   # between the two presses
            moves += [(at, True), (at + hold, False)]
            at += hold
        return moves, at + p["double"] + p["debounce"]

    def _fingers_due(self):
        while self.fingers and self.fingers[0][0] <= self.now and not self.dead:
            _, name, down = self.fingers.pop(0)
            self.call({"button": name, "down": down})
