# The badge in the page (`cran web`): the driver its JavaScript calls, inside MicroPython's
# WebAssembly port. It is cran sim's driver (host_tools/virtual/scripts/live_driver.py: the whole
# app, cran.app, on the virtual hardware, one command in, one frame out) with what a page
# adds: the screen's picture read back from its bus (panels.py), the flash a page holds
# (webflash.py), and a lesson's trace, the events `cran scenario --json` prints, made
# from what the badge itself tells (its cues), checked by the scenario's expect lines.
#   open_badge(BOARD, CONFIG_JSON, WHO) -> the boot frame, with "hello"; WHO: a scenario's
#                                    character fields ("name=Ali armor=cuir"), or ""
#   send(COMMAND_JSON) -> a frame: live_driver's commands, and
#     {"who": FIELDS}              a new character (checked as a scenario's line), reset
#     {"trace": true}              a lesson starts now (its 0:00): events recorded from here
#     {"step": LINE}               the lesson's step whose action comes next
#     {"check": [[F, V, W]...], "step": LINE}   an expect line, held or not ("failed")
#     {"events": true}             the events so far ("events", as badge_driver's)
# A frame adds "acts" ([[action, elapsed ms]] the badge took since the last frame), "panel"
# (the screen's glass, when it changed) and "lines" (the journal, as cran sim shows it).
import json

import machine
import panels
import vclock
import webflash
import world
from live_driver import Live, Refused, _traceback

FLASH = "/flash"             # the badge's flash, mounted here (its root)
FLASH_FILES = "/badge-flash"  # ... its files, in the page's memory
BOARDS = "/rom/boards"       # the board files, in the site's ROMFS image

_live = [None]
# The panel's D/C line, which tells its commands from its data: the virtual SPI records
# each write with that pin's level when it knows the pin (dc_pin_id, its own argument,
# not the port's). The board's wiring, given to every SPI the firmware makes.
_dc = [None]


def _spi_with_dc(init):
    def with_dc(self, *args, **kwargs):
        kwargs.setdefault("dc_pin_id", _dc[0])
        init(self, *args, **kwargs)
    return with_dc


machine.SPI.__init__ = _spi_with_dc(machine.SPI.__init__)


class WebLive(Live):
    def __init__(self, root, board):
        display = board["display"]
        self.panel = None if display is None else panels.panel_for(
            display["kind"], display["width"], display["height"])
        self.panel_changed = True
        self.trace = None      # the lesson's events, once {"trace": true}
        self.trace_at = 0      # its 0:00, in elapsed ms
        self.step = None
        self.act_cues = []
        self.acts = []
        Live.__init__(self, root, board)

    def _new_app(self):
        Live._new_app(self)
        self._hook(self.app.badge)

    def _hook(self, badge):
        """The badge's cues and actions, heard as cran.badge tells them (its on_cues, the
        app's own hook) and as they are applied: by a press, the console or a reset."""
        told, apply = badge.on_cues, badge.apply

        def on_cues(kind, now, cues):
            if kind == "timer" and self.trace is not None:
                self.trace.append(["timer", self.ms(now), _cues(cues), self.seen(now)])
            elif kind == "act":
                self.act_cues = cues
            elif kind == "undo" and self.trace and self.trace[-1][0] == "act":
                self.trace.pop()   # taken back: as if it never came
            told(kind, now, cues)

        def applied(action, now, save=True, undoable=False):
            self.act_cues = []
            apply(action, now, save, undoable)
            self.acts.append([action.text(), vclock.elapsed_ms()])
            if self.trace is not None:
                self.trace.append(["act", self.step, self.ms(now), action.text(),
                                   _cues(self.act_cues), self.seen(now)])
        badge.on_cues = on_cues
        badge.apply = applied

    def ms(self, now):
        """A tick of the badge near now -> ms since the lesson's 0:00."""
        import time
        return vclock.elapsed_ms() - self.trace_at + time.ticks_diff(now, time.ticks_ms())

    def seen(self, now):
        from cran.core.view import FIELDS, view
        seen = view(self.app.badge.state, now)
        return [seen[f] for f in FIELDS]

    def do(self, cmd):
        if "who" in cmd:
            self.recast(character_of(cmd["who"]))
        elif "trace" in cmd:
            self.trace, self.trace_at, self.step = [], vclock.elapsed_ms(), None
        elif "check" in cmd:
            return self.check(cmd["check"], cmd.get("step"))
        elif "events" in cmd:
            out = self.frame()
            out["events"] = self.trace or []
            return out
        elif "step" in cmd and "line" not in cmd and "button" not in cmd:
            self.step = cmd["step"]
        else:
            if "step" in cmd:
                self.step = cmd["step"]
            return Live.do(self, cmd)
        return self.frame()

    def check(self, expected, step):
        """An expect line ([[field, value, as written]]) against what the badge knows now,
        as a scenario's expect is checked."""
        import time

        from gamefiles import scenario
        now = time.ticks_ms()
        self.app.badge.tick(now)
        seen = self.seen(now)
        from cran.core.view import FIELDS
        failed = scenario.check(expected, dict(zip(FIELDS, seen)))
        if self.trace is not None:
            self.trace.append(["expect", step, self.ms(now), seen])
        out = self.frame()
        out["failed"] = [list(f) for f in failed]
        return out

    def frame(self, answer=None):
        screen = self.app.screen
        if self.panel is not None and screen is not None:
            writes = getattr(screen.bus[0], "writes", None)
            if writes and self.panel.feed(writes):
                self.panel_changed = True
        out = Live.frame(self, answer)
        if self.panel is not None and self.panel_changed:
            out["panel"] = panels.encoded(self.panel)
            self.panel_changed = False
        out["acts"], self.acts = self.acts, []
        out["lines"] = [_journal_line(entry) for _, entry in out["journal"]]
        return out


def _cues(cues):
    return [[kind, value, private] for _, kind, value, private in cues]


def _journal_line(entry):
    try:
        from journal import live_line  # host_tools/debrief/journal.py: cran sim's lines
        return live_line(entry)
    except Exception:   # an entry it can't read: shown as written
        return json.dumps(entry)


def character_of(fields):
    """A scenario's character fields ("name=Ali armor=cuir") -> the character's config
    object; a field wrong -> Refused naming each fault."""
    from cran.core.choices import as_dict
    from gamefiles import scenario
    try:
        return as_dict(scenario.parse_character(fields))
    except scenario.ParseError as e:
        raise Refused("; ".join(str(f) for f in getattr(e, "each", None) or [e])) from None


def open_badge(board_id, config_text, who=""):
    """A new badge of board_id: a fresh flash with its config (JSON: character, settings,
    lang...), booted. -> the boot frame as JSON, with "hello"; or {"error"}."""
    try:
        config = json.loads(config_text) if config_text else {}
        if who:
            config["character"] = character_of(who)
        webflash.fresh(FLASH, FLASH_FILES)
        vclock.start(0)
        machine.reset_all()
        board = world.make_root(FLASH, BOARDS, board_id, config)
        world.wire(board)
        _dc[0] = ((board["display"] or {}).get("spi") or {}).get("dc")
        _live[0] = live = WebLive(FLASH, board)
        first = live.frame()
        first["hello"] = live.hello()
        return json.dumps(first)
    except Exception as e:   # a config the firmware refuses: said, the page goes on
        _live[0] = None
        return json.dumps({"error": "cannot start: %s" % (e,)})


def send(command_text):
    """One command (JSON) -> its frame (JSON), or {"error": ...}."""
    live = _live[0]
    try:
        if live is None:
            raise Refused("no badge: open_badge() first")
        cmd = json.loads(command_text)
        if not isinstance(cmd, dict):
            raise Refused("expected a JSON object such as {\"advance\": 1000}")
        return json.dumps(live.do(cmd))
    except Refused as e:
        return json.dumps({"error": str(e)})
    except Exception as e:   # a firmware bug: said whole, the page goes on
        return json.dumps({"error": "%r\n%s" % (e, _traceback(e))})
