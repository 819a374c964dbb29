# A badge on the desktop, as `cran sim` plays it: the real firmware app in its driver
# process (link.BadgeLink), its clock (paused, x1, x10, x60, jumps), its buttons pressed
# a whole gesture at a time, its console, and a scenario replayed at its own times with
# its expect lines checked. Nothing is drawn here, and nothing needs a terminal:
# host_tools/sim/tui.py draws what a session tells it (Listener).
import os

from cran import scenario
from host_tools.scenario_cmd import fmt_time
from host_tools.sim.link import LinkError

MELODY_GAP_MS = 200      # silence longer than the rests inside a melody: the next is new


class Listener:
    """What a session tells whoever shows it; each does nothing here."""

    def shown(self, frame):
        """The badge's new frame (its LEDs, screen, notes, status): redraw."""

    def journaled(self, at, entry):
        """An entry the badge wrote to its journal, at elapsed ms `at`."""

    def said(self, text):
        """An error about the badge: a fault it survived, a command it refused."""

    def gone(self, why):
        """The badge's process has ended: nothing more will come."""

    def melody(self):
        """A new melody began on the buzzer (once per melody, not per note)."""

    def played(self, step, ok, text):
        """A script's step played: ok False for an action refused or an expect failed;
        text says it."""


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
        done = "" if self.due() is None else ", next at %s" % fmt_time(self.steps[self.next][1])
        return "script %s: %d/%d expects held, %d failed%s" % (
            self.name, self.held, self.expects, self.failed, done)


class Session:
    """The badge behind `link`, driven. script: (path, parsed Scenario)."""

    def __init__(self, link, script=None, paused=False, listener=None):
        self.link = link
        self.listener = listener or Listener()
        self.hello = link.hello
        self.frame = link.first
        self.now = self.frame["now"]
        self.target = self.now     # where the clock wants the badge (elapsed ms, float)
        self.speed = 1
        self.paused = paused
        self.dead = None           # why the badge process is gone, once it is
        self.script = Script(script[0], script[1], self.now) if script else None
        self.notes = []            # the last melody's notes: [[elapsed ms, freq Hz]]
        self.sounding = 0          # the buzzer's frequency now (0: silent)
        self._last_tick = None     # time.monotonic() at the clock's last tick
        self._quiet_at = -MELODY_GAP_MS   # elapsed ms the buzzer last fell silent

    # ---- talking to the badge ---------------------------------------------------------

    def call(self, command):
        """Send one command -> the frame, applied; None when refused or gone."""
        if self.dead:
            return None
        try:
            frame = self.link.send(command)
        except LinkError as e:
            self.dead = str(e)
            self.listener.gone(self.dead)
            return None
        if "error" in frame:
            self.listener.said(frame["error"])
            return None
        self.absorb(frame)
        return frame

    def absorb(self, frame):
        """A frame from the badge: its journal, faults and notes told, then shown."""
        self.frame = frame
        self.now = frame["now"]
        self.target = max(self.target, self.now)   # a press took its own time
        for at, entry in frame["journal"]:
            self.listener.journaled(at, entry)
        if frame.get("fault"):
            self.listener.said(frame["fault"])
        for at, freq_hz in frame["notes"]:
            if freq_hz and not self.sounding and at - self._quiet_at > MELODY_GAP_MS:
                self.notes = []   # a new melody: told once, not once per note
                self.listener.melody()
            if freq_hz:
                self.notes = (self.notes + [[at, freq_hz]])[-12:]
            elif self.sounding:
                self._quiet_at = at
            self.sounding = freq_hz
        self.listener.shown(frame)

    def line(self, text):
        """A console line -> its answer lines ([] when the badge could not take it)."""
        return (self.call({"line": text}) or {}).get("answer", [])

    def reboot(self):
        self.call({"reboot": True})

    # ---- time ---------------------------------------------------------------------------

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

    def tick(self, monotonic_s):
        """The clock, at the host's time.monotonic(): the badge moved on by what passed
        since the last tick, at the clock's speed, unless paused."""
        dt = 0 if self._last_tick is None else monotonic_s - self._last_tick
        self._last_tick = monotonic_s
        if not self.paused and not self.dead:
            self.target += dt * 1000 * self.speed   # float: no ms lost per tick
            self.run_to(int(self.target))

    def set_speed(self, speed):
        self.speed = speed
        self.paused = False

    def jump(self, ms):
        self.target = max(self.target, self.now) + ms
        self.run_to(int(self.target))

    # ---- the script and the buttons -----------------------------------------------------

    def play_step(self, step):
        line, t, kind, payload = step
        script = self.script
        when = fmt_time(t).rjust(7)
        if kind == "act":
            answer = self.line(payload.text()) or ["(no answer)"]
            ok = answer[0].startswith("ok ")
            self.listener.played(step, ok, "%s  %s  %s" % (when, payload.text(),
                                                             "" if ok else answer[0]))
            return
        failed = scenario.check(payload, self.frame["view"])
        text = "%s  expect %s" % (when, " ".join(w for _, _, w in payload))
        if failed:
            script.failed += 1
            text += ": " + "; ".join("expected %s, got %s" % f for f in failed)
        else:
            script.held += 1
        self.listener.played(step, not failed, text)

    def press(self, name, kind):
        """One whole gesture on a button, taking its own virtual time, and waited out so
        the badge has decided what it was before the next key (a tap then another is
        two taps, whatever the clock's speed)."""
        p = self.hello["press_ms"]
        presses, hold = {"short": (1, p["debounce"] + 30), "long": (1, p["long"] + 200),
                         "double": (2, p["debounce"] + 30)}[kind]
        for i in range(presses):
            if i:
                self.run_to(self.now + p["debounce"] + 50)   # between the two presses
            if self.call({"button": name, "down": True}) is None:
                return
            self.run_to(self.now + hold)
            self.call({"button": name, "down": False})
        self.run_to(self.now + p["double"] + p["debounce"])
