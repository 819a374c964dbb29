# What a badge's own parts show, as the virtual hardware records them: the whole app
# (cran.start.phases.start) on a board, console lines at set times, and every LED write, buzzer
# change and screen draw with its time. tests/test_outputs.py compares them.
#   <python> outputs_driver.py FIRMWARE_DIR BOARDS_DIR FLASH_DIR VHW...
# stdin: one job a line, {"board": ID, "config": {...}, "steps": [[MS, WHAT, ARG], ...],
#   "until": MS}: the badge boots at elapsed 0, each step comes at elapsed MS (in order):
#   ["line", TEXT] a console line, ["press", [BUTTON, HOLD_MS]] a finger on a button;
#   and it runs on to `until`, waking whenever it asks, as on a chip.
# stdout: one line a job, {"leds": [[MS, [[R, G, B], ...]], ...], "notes": [[MS, HZ], ...]
#   (0 Hz: silent), "screen": [[MS, [LINE, ...]], ...], "cues": [[MS, KIND, VALUE,
#   PRIVATE], ...]} (the cues the badge was told of, for the test to know what it heard),
#   or {"error": TEXT}.
import json
import sys

if __name__ == "__main__":
    sys.path[:0] = sys.argv[4:] + [sys.argv[1]]

import machine  # noqa: E402
import vclock  # noqa: E402
import world  # noqa: E402

if sys.implementation.name != "micropython":
    vclock.patch_cpython_time()

import time  # noqa: E402

from cran.start.phases import start  # noqa: E402

_MAX_ZERO_WAITS = 1000   # a show step that keeps asking to run at once: a firmware bug


class Recorder:
    def __init__(self, app, board):
        self.app = app
        self.leds, self.notes, self.screen, self.cues = [], [], [], []
        self.buzzer_pin = board["buzzer"]["pin"] if board["buzzer"] else None
        self.sounding = 0
        if app.leds is not None:
            np = app.leds.np
            write = np.write

            def written():
                write()
                self.leds.append([vclock.elapsed_ms(), [list(c) for c in np.last]])
            np.write = written
        if app.screen is not None:
            screen = app.screen
            show_lines = screen.show_lines

            def drawn(lines):
                sent = show_lines(lines)
                if sent:
                    self.screen.append([vclock.elapsed_ms(), list(screen.shown)])
                return sent
            screen.show_lines = drawn
        told = app.badge.on_cues

        def heard(kind, now, cues):
            for _, what, value, private in cues:
                self.cues.append([vclock.elapsed_ms(), what, value, private])
            told(kind, now, cues)
        app.badge.on_cues = heard

    def take_notes(self):
        """The buzzer's changes since the last call, from its PWM's own record."""
        pwm = None if self.buzzer_pin is None else machine.pwm_on(self.buzzer_pin)
        if pwm is None:
            return
        now, elapsed = time.ticks_ms(), vclock.elapsed_ms()
        for tick, freq_hz, duty in pwm.timeline:
            sound = freq_hz if duty else 0
            if sound != self.sounding:
                self.sounding = sound
                self.notes.append([elapsed - vclock.ticks_diff(now, tick), sound])
        del pwm.timeline[:]


def run_to(app, recorder, target):
    """Wake the app at every instant it asks for, up to elapsed ms target."""
    zero_waits = 0
    while True:
        wait = app.step(time.ticks_ms())
        recorder.take_notes()
        left = target - vclock.elapsed_ms()
        if left <= 0:
            return
        if wait <= 0:
            zero_waits += 1
            if zero_waits > _MAX_ZERO_WAITS:
                raise RuntimeError("the app asks to wake at once, for ever, at %d ms"
                                   % vclock.elapsed_ms())
            continue
        zero_waits = 0
        vclock.advance(min(wait, left))


def play(job, boards_dir, flash_dir, n):
    vclock.start(0)
    machine.reset_all()
    machine.history = 0   # the PWM keeps every change (take_notes empties it)
    root = "%s/badge%d" % (flash_dir, n)
    board = world.make_root(root, boards_dir, job["board"], job.get("config") or {})
    world.wire(board, i2c=True)
    app = start(root)
    recorder = Recorder(app, board)
    pins = dict((b["name"], (b["pin"], 0 if b["active_low"] else 1))
                for b in board["buttons"])
    for at, what, arg in job["steps"]:
        run_to(app, recorder, at)
        if what == "line":
            answer = app.line(arg, time.ticks_ms())
            if not answer or not answer[0].startswith("ok "):
                raise ValueError("%s at %d ms: the console answered %r" % (arg, at, answer))
        elif what == "press":
            pin, down = pins[arg[0]]
            machine.drive(pin, down)            # its IRQ fires, as under a finger
            machine.drive_at(arg[1], pin, None)  # let go: back to its pull
        else:
            raise ValueError("unknown step %r" % (what,))
    run_to(app, recorder, job["until"])
    return {"leds": recorder.leds, "notes": recorder.notes, "screen": recorder.screen,
            "cues": recorder.cues}


def main():
    n = 0
    while True:
        raw = sys.stdin.readline()
        if not raw:
            return
        n += 1
        try:
            out = play(json.loads(raw), sys.argv[2], sys.argv[3], n)
        except Exception as e:   # said with the job, the next one goes on
            out = {"error": "job %d: %r" % (n, e)}
        print(json.dumps(out))


main()
