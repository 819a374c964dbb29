# The badge app: everything built from the config and board files, then one asyncio
# loop: the show loop (timers, buttons, cues, drivers, watchdog) and the serial console.
import asyncio
import select
import time

import machine
from micropython import const

from cran import compat
from cran.badge import epoch_shift
from cran.compat import forget, wake_flag
from cran.core.steps import COUNTDOWN
from cran.core.ticks import ticks_add, ticks_diff
from cran.looks import SLOT_MS, UNKNOWN_LOOK, warning_cue, warning_due

# mypy's reading only: a constant False, so that MicroPython compiles nothing of the block
# (a badge has no typing module, and its names would be the badge's).
TYPE_CHECKING = const(False)
if TYPE_CHECKING:
    from typing import Any  # noqa: F401

    from cran.badge import Badge
    from cran.console import Console
    from cran.hal.buttons import Button
    from cran.hal.buzzer import Buzzer
    from cran.hal.display import Screen
    from cran.hal.leds import Leds
    from cran.lock import ConsoleLock
    from cran.menu import Menu
    from cran.radio.link import Link

# The show loop sleeps at most MAX_SLEEP_MS, so an idle badge wakes twice a minute to
# feed a watchdog whose whole-second timeout leaves it half a sleep of slack.
WDT_TIMEOUT_MS = 45000
MAX_SLEEP_MS = 30000
_PEEK_MS = const(5000)             # the private view stays up this long
_FAULT_RETRY_MS = const(1000)      # a show step that raised: try again, without feeding the dog
_MIN_LIGHT_SLEEP_MS = const(50)    # shorter, and waking costs more than it saves
# No light sleep this soon after boot or after any console byte: a byte that comes
# while the chip sleeps is lost (its UART is not clocked, nothing wakes it), so a host
# must find it awake, and then it stays awake for the rest of the line and the next ones.
CONSOLE_QUIET_MS = 60000
_EARLY_WAKE_MS = const(10)         # a light sleep that ended this much before its time: woken
_SPURIOUS_WAKES = const(3)         # woken early more often with no press: sleep no more
# The console (cran.console, with the wearer's fields it says: cran.core.view) is loaded
# by the first byte that comes, its lock (cran.lock) by the first line that needs it,
# the journal's reading by `journal`; all are let go when it has been quiet this long
# and no organiser's window is open: a badge in play hears no console. (The grammar
# comes and goes with each action line.)
_CONSOLE = const(("cran.console", "cran.core.view", "cran.lock", "cran.readback"))
# A healer's offer on the LEDs: the menu's Autre (soin) green, a short flash a rhythm.
_OFFER = const((3, 0, 1))
# The melodies (~1.2 KB of a badge's heap, 32-bit) are loaded by a change that has cues
# and let go once its notes are made; the player of those notes (cran.hal.buzzer, ~1.3
# KB) is let go when they are played. The rest of the time (most wake-ups, and the peaks:
# an open menu, an organiser's line) neither is needed.
_TUNES = const(("cran.tunes",))
_PLAYER = const(("cran.hal.buzzer",))

# What the radio heard (cran.radio.link.Link.tick), played by the game master's orders'
# module (cran.radio.orders.play), which judged most of it: loaded for it, let go after.
_ORDERS = const(("cran.radio.orders",))

# The LEDs' frames of the open menu and of the peek, loaded while they show.
_LEDVIEWS = const(("cran.ledviews",))
# The LEDs' patterns (cran.cues, ~4 KB of a badge's heap with their names), bound by
# App.__init__ on a board with LEDs: a board without any never loads them. Globals, as
# an import would make them: a hit's path reads them with no frame or lookup more.
KEY_BITS: "Any" = None
frame_code: "Any" = None
frame_of: "Any" = None
next_change_ms: "Any" = None


class App:
    """The badge's app: its state, drivers, menu, console and radio, and the loops that
    run them. Made once a boot by the start (cran.start.parts.build) from what it read
    and made: the config, the restored badge, the board's parts, the game key and the
    radio's link. The start's code and this constructor's are let go once it is built
    (bytecode in a badge's RAM: cran.start.phases)."""
    # Every field the app keeps, typed for mypy and a reader (annotations alone are no
    # code on MicroPython), all set by __init__.
    lang: "str"
    resets_for_safe: "int"  # the resets in a row that put the badge in safe mode
    safe: "bool"
    badge: "Badge"
    lock: "ConsoleLock | None"
    # (the key or None, what is wrong with it or None) as cran.lock read game.key, when
    # it locks the console and Ctrl-C; None without a key file: open for good.
    game_key: "tuple | None"
    root: "str"
    console: "Console | None"
    layout: "str"
    leds: "Leds"           # None without LEDs: used behind a check of it
    buzzer: "Buzzer | None"
    buzzer_pwm: "Any"
    volume_percent: "int"
    screen: "Screen | None"
    events: "list"
    buttons: "list[Button]"
    menu: "Menu"           # None in safe mode, which has no buttons
    can_sleep: "bool"
    _spurious_wakes: "int"
    pending: "list"
    peek_until: "int | None"
    news: "Any"
    _news_before: "Any"
    _warned: "Any"
    wakeups: "int"
    _faulted: "bool"
    on_fault: "Any"
    _flag: "Any"
    _clock_due: "int"
    _in_show: "bool"
    frame_code: "Any"
    frames: "dict"
    _frames_look: "Any"
    _old_look: "Any"
    _fault_shown: "bool"
    wdt: "Any"
    _last_input: "Any"     # a tick (time.ticks_ms())
    unread: "Any"
    link: "Link"           # None without the radio: used behind a check of it

    def __init__(self, root, config, restored, parts, game_key, link):
        """The app of config (cran.config.Config) with its flash at root, around
        restored (cran.start.restore.restored_badge's: the Badge, and the resets in a
        row that put it in safe mode, or 0), with the board's parts (cran.start.parts.
        Parts: its drivers and the buttons' menu), game_key (App.game_key) and the
        radio's link (None without one, or in safe mode). Called once a boot: the
        boot's start lets its bytecode go after it."""
        global KEY_BITS, frame_code, frame_of, next_change_ms
        self.root = root
        self.lang = config.lang
        self.badge = restored[0]
        self.resets_for_safe = restored[1]
        self.safe = restored[1] > 0
        self.game_key = game_key
        self.console = self.lock = None   # made when a byte comes (App.session)
        self.layout = parts.layout
        self.leds = parts.leds
        cues = parts.cues   # the LEDs' patterns, with them
        if cues is not None:
            KEY_BITS = cues.KEY_BITS
            frame_code = cues.frame_code
            frame_of = cues.frame_of
            next_change_ms = cues.next_change_ms
        # The buzzer's PWM; its player (cran.hal.buzzer) is made by a change that sounds
        # and let go when its notes are played (App._sound).
        self.buzzer_pwm = parts.buzzer_pwm
        self.volume_percent = config.volume_percent
        self.buzzer = None
        self.screen = parts.screen
        self.link = link
        self.events = []        # (button, kind, tick) waiting for the show loop
        self.buttons = parts.buttons(self.on_button, self._poke)  # none in safe mode
        self.menu = parts.menu
        self.can_sleep = parts.can_sleep(self.buttons)
        self._spurious_wakes = 0
        self.pending = []       # cues not yet played
        self.peek_until = None
        self.news = None        # the wearer's latest private news (cran.screenwords.news_of)
        self._news_before = None  # the news before the last action: an undo puts it back
        self._warned = None     # the countdown already warned about
        self.wakeups = 0
        self._faulted = False
        self.on_fault = None
        self._flag = None       # wakes the show loop; made inside the running loop
        self._clock_due = 0     # tick the show loop's clock sleeps until
        self._in_show = False
        self.frame_code = None  # the public look's frame on the LEDs (cues.frame_code)
        self.frames = {}        # frame_code -> capped frame, of the look on show and the one
        self._frames_look = None  # before it (App._show_look); frame_code >> KEY_BITS of the
        self._old_look = None   # look on show (its look and effect), and of the one before
        self._fault_shown = False  # whether the draw showed a failed save (Badge.save_error)
        self.wdt = None
        self._last_input = time.ticks_ms()  # tick of the last console byte; boot is one
        self.unread = None      # a poll of the console's input, once it is read

    # ---- inputs -----------------------------------------------------------------

    def on_button(self, name, kind, tick):
        # Runs from micropython.schedule (the button's IRQ) or from show(): note it only.
        self.events.append((name, kind, tick))
        self._spurious_wakes = 0
        self._poke()

    def on_cues(self, kind, now, cues):
        if kind != "timer" and self._in_show and self.leds is not None:
            # A press's action or undo (the menu closed by it): its look first, then
            # the bookkeeping, here and in the show step (which finds it shown). Not
            # while the wearer peeks: the show step draws the peek.
            self._fault_shown = self.badge.save_error is not None
            if self.peek_until is None or self.badge.unknown:
                self._show_look(self.badge.state, now)
        self.pending.extend(cues)
        if self.screen is not None:   # news is read on the screen's peek
            if kind == "undo":
                self.news = self._news_before  # a heal taken back reminds of nothing
            else:
                if kind == "act":
                    self._news_before = self.news
                self.news = self.screen.news_of(cues) or self.news
        self._poke()

    def _poke(self):
        if self._flag is not None and not self._in_show:
            self._flag.set()

    def line(self, text, now):
        """One console line -> answer lines. Safe mode answers only what reads."""
        self._last_input = now
        return self.session().line(text, now)

    def session(self):
        """The console (cran.console.Console), made by the first byte that comes after a
        quiet spell (its lock by the first line that needs it: cran.console.open_for);
        show() lets them go again."""
        console = self.console
        if console is None:
            from cran.console import open_for
            console = open_for(self, _set_rtc)
        return console

    def console_open(self, now):
        """Whether an organiser has the console and Ctrl-C now (cran.lock)."""
        if self.lock is not None:
            return self.lock.is_open(now)
        return self.game_key is None

    # ---- the show step ----------------------------------------------------------

    def show(self, now):
        """Everything due by now: timers, presses, sound, LEDs, screen; feeds the
        watchdog. -> ms until there is something to do again."""
        self.wakeups += 1
        self._in_show = True
        try:
            self.badge.tick(now)
            if self.console is not None:
                lock = self.lock   # (None until a line needed it: cran.console.open_for)
                if lock is not None:
                    lock.tick(now)
                if (ticks_diff(now, self._last_input) >= CONSOLE_QUIET_MS
                        and (lock is None or lock.open_until is None)):   # none open
                    self.console = self.lock = None
                    forget(_CONSOLE)
            menu = self.menu   # (None only in safe mode, which has no buttons)
            link = self.link
            if link is not None:   # a game with the radio: what it heard, played here
                heard = link.tick(now, self.badge.state)
                if heard:   # rare (most windows hear nothing): its code loaded for it
                    from cran.radio.orders import play
                    play(self, heard, now, _set_rtc)
                    del play   # (it keeps its module's globals: all of it, past forget)
                    forget(_ORDERS)
                menu.offer = link.offered()
            for button in self.buttons:
                button.handle(now)
                # Its presses at once, before the next button's poll: a press shows
                # sooner on a board of two buttons, in the same order.
                while self.events:
                    name, kind, tick = self.events.pop(0)
                    for result in menu.press(name, kind, tick):
                        self._result(result, now)
            if menu is not None:
                menu.tick(now)
            if self.peek_until is not None and ticks_diff(now, self.peek_until) >= 0:
                self.peek_until = None
            # The LEDs first, then the flash write (in _draw), then the screen and the
            # sound: a hit answers within the frame, and a power cut in between loses
            # only that hit (the badge comes back as before it, never healthier). The
            # warning is a sound cue, for _sound() alone.
            self._draw(now)
            self._warn(now)
            self._sound(now)
        finally:
            self._in_show = False
            self.badge.flush(now)
        if self._fault_shown != (self.badge.save_error is not None):
            self._draw(now)   # that save failed, or one worked again: said at once
        if self.wdt is not None:
            self.wdt.feed()
        return self._next_wake(now)

    def recast(self, fields, now):
        """A reset to a new character, heard on the radio (cran.radio.orders.play):
        rare, its code loaded for it (cran.recast, which checks it as the config is)."""
        from cran.recast import recast
        recast(self, fields, now)

    def _result(self, result, now):
        if result[0] in ("action", "take"):
            action = result[1] if result[0] == "action" else self.link.accept(now)
            if action is None:
                return   # the offer ran out as the press came
            self.badge.apply(action, now, save=False, undoable=True)   # saved once shown
        elif result[0] == "treat":
            self.link.seek(now)
        elif result[0] == "undo":
            self.badge.undo(now, save=False)
        else:   # ("peek",)
            self.peek_until = ticks_add(now, _PEEK_MS)

    def _warn(self, now):
        state = self.badge.state
        if warning_due(state, now) == 0:
            key = (state.etat, state.timers.get(COUNTDOWN))
            if key != self._warned:
                self._warned = key
                self.pending.append(warning_cue(state, now))

    def _sound(self, now):
        cues = self.pending
        if cues:
            self.pending = []
        if self.buzzer_pwm is None:
            return
        melody = None
        if cues and not self.safe:
            from cran.tunes import melody_for
            melody = melody_for(cues)
            del melody_for   # (it keeps its module's globals: all of it, past forget)
            forget(_TUNES)
        buzzer = self.buzzer
        if melody:
            if buzzer is None:
                from cran.hal.buzzer import Buzzer
                buzzer = self.buzzer = Buzzer(self.buzzer_pwm, self.volume_percent)
            buzzer.play(melody, now)
        elif buzzer is not None and buzzer.update(now) is None:   # played: silent
            self.buzzer = None
            forget(_PLAYER)

    def _draw(self, now):
        state = self.badge.state
        unknown = self.badge.unknown   # its own look: the state on hand is a placeholder
        fault = self._fault_shown = self.badge.save_error is not None
        peeking = self.peek_until is not None and not unknown
        menu = self.menu
        where = menu.where() if menu is not None else None
        if where is None and menu is not None and menu.offer is not None:
            where = _OFFER   # a healer's offer (cran.radio.link): a long press takes it
        if self.leds is not None:
            if where is not None or peeking:
                self._show_private(state, now, where)
            else:
                self._show_look(state, now)
        # The save before the screen and the sound: their words and melodies are
        # loaded from flash to draw and to play, which on an ESP32 would hold the save
        # back by hundreds of ms, the time a power cut would lose the hit in.
        self.badge.flush(now)
        if self.screen is not None:   # drawn by its words' modules
            self.screen.draw(self, state, now, where, peeking, unknown, fault)

    def _show_private(self, state, now, where):
        # Where the menu stands (an offer as its Autre page), else the wearer's peek:
        # their frames' module is loaded for them (_show_look lets it go).
        from cran.ledviews import menu_frame, peek_frame
        leds = self.leds
        if where is not None:
            leds.show(menu_frame(where, now, leds.count, self.layout))
        else:
            leds.show(peek_frame(state, now, leds.count, self.layout))
        self.frame_code = None

    def _show_look(self, state, now):
        """The public look on the LEDs. Most wake-ups find the frame already shown or
        one of the few of its rhythm drawn before: then nothing is allocated (frames
        are kept by frame_code, those of the look on show and of the one before it:
        at most 2**KEY_BITS each, 8 in fact, most looks 1 or 2)."""
        code = frame_code(state, now, self.leds.count, self.layout,
                          self._fault_shown, UNKNOWN_LOOK if self.badge.unknown else None)
        if code == self.frame_code:
            return
        # (No more locals: a press's path keeps its frames within 11 words, on the C
        # stack; see cran.core.engine.act.) code >> KEY_BITS: the look and its effect,
        # without the step's key.
        if code >> KEY_BITS != self._frames_look:  # another look or effect
            # The frames of the look before stay: a hit goes back and forth between
            # two looks (the next hit after a heal), and one painted already shows
            # sooner. Their cost (32-bit): a frame is bytes, ~16 on one LED, ~90 on
            # 25, and a look has 1 or 2 of them (at most 8: effect codes and a failed
            # save's steps), so ~200 bytes more on the matrix, at worst ~750.
            # A third look lets both go.
            if code >> KEY_BITS != self._old_look:
                self.frames.clear()
            self._old_look = self._frames_look
            self._frames_look = code >> KEY_BITS
        if code not in self.frames:   # painted in capped colours, packed: ready to write
            self.frames[code] = self.leds.pack(
                frame_of(code, self.leds.count, self.layout, self.leds.cap))
        self.leds.write(self.frames[code])
        if self.frame_code is None:   # back from the menu or the peek (or the first)
            forget(_LEDVIEWS)
        self.frame_code = code

    def _next_wake(self, now):
        # A running minimum, not a list: this runs at every wake-up and allocates nothing.
        state = self.badge.state
        wait = MAX_SLEEP_MS
        deadline = self.badge.next_deadline()
        if deadline is not None:
            wait = min(wait, ticks_diff(deadline, now))
        menu = self.menu
        showing_menu = menu is not None and (menu.is_open() or menu.offer is not None)
        if self.leds is not None:
            if showing_menu or self.peek_until is not None:
                wait = min(wait, SLOT_MS - (now & (SLOT_MS - 1)))   # their rhythm's step
            else:
                wait = _least(wait, next_change_ms(
                    state, now, self.leds.count, self.layout, self._fault_shown,
                    UNKNOWN_LOOK if self.badge.unknown else None))
        screen = self.screen
        if screen is not None and screen.look_until is not None:   # its answer's line goes
            wait = min(wait, max(0, ticks_diff(screen.look_until, now)))
        if self.peek_until is not None:
            wait = min(wait, ticks_diff(self.peek_until, now))
            if self.screen is not None:
                wait = min(wait, 1000 - now % 1000)   # the countdown on the private screen
        if menu is not None and menu.is_open():
            wait = _least(wait, menu.idle_ms(now))
        due = warning_due(state, now)
        if due:
            wait = min(wait, due)
        if self.buzzer is not None:
            wait = _least(wait, self.buzzer.update(now))
        for button in self.buttons:
            wait = _least(wait, button.next_timeout_ms(now))
        lock = self.lock
        if lock is not None and lock.open_until is not None:   # lock again on time
            wait = min(wait, ticks_diff(lock.open_until, now))
        if self.link is not None:
            wait = min(wait, self.link.next_wake_ms(now))
        return max(0, wait)

    def _may_light_sleep(self, now, wait_ms):
        """Light sleep halts the CPU and, on the classic ESP32, the buzzer's PWM and the
        console's UART; a press wakes it. So: only when the config allows it, silent,
        with no press being timed, the console quiet since boot or its last byte, and a
        wait worth it."""
        if not self.can_sleep or wait_ms < _MIN_LIGHT_SLEEP_MS or self.events:
            return False
        if self.link is not None and self.link.listening:
            return False   # its window: a light sleep would stop the radio
        if self.buzzer is not None and self.buzzer.playing():
            return False
        for button in self.buttons:
            if button.pressed or button.next_timeout_ms(now) is not None:
                return False
        if self.unread is not None and self.unread.poll(0):
            return False   # bytes came during this step: read them before sleeping
        return ticks_diff(now, self._last_input) >= CONSOLE_QUIET_MS

    def _woke(self, slept_at, wait_ms):
        """Back from a light sleep: a press that woke the chip raised no IRQ, so read the
        buttons. A wake source that keeps firing with no press coming of it (a floating
        pin) would make every sleep a busy loop: after a few, light sleep is turned off."""
        for button in self.buttons:
            button.catch_up()
        if ticks_diff(time.ticks_ms(), slept_at) < wait_ms - _EARLY_WAKE_MS:
            self._spurious_wakes += 1   # until a press comes of it (on_button)
            if self._spurious_wakes >= _SPURIOUS_WAKES:
                self.can_sleep = False
                self.badge.log({"light_sleep": "off: woken %d times with no press"
                                               % _SPURIOUS_WAKES})

    # ---- the asyncio app --------------------------------------------------------

    def step(self, now):
        """show(now) as the loop runs it: a step that raises (a bug) is journaled once
        and tried again a second later, the watchdog left unfed to decide. -> ms to
        wait. on_fault(exception), when set, hears of it when the journal does (the
        desktop sim shows its traceback)."""
        try:
            return self.show(now)
        except Exception as e:
            self._in_show = False
            if not self._faulted:
                self._faulted = True
                self.badge.log({"error": "show loop: %r" % (e,)})
                if self.on_fault is not None:
                    self.on_fault(e)
            return _FAULT_RETRY_MS

    async def show_loop(self):
        """The show step, run by two loops. The clock's (a task of its own) sleeps until
        the next thing to do, steps, sleeps again: asyncio.sleep_ms allocates nothing,
        so an idle wake-up makes no garbage. This one waits for a press or a console
        action (the flag) and steps at once; when that step wants the next wake-up
        sooner than the clock's, the clock's sleep is made again (a press's
        allocations, never an idle wake-up's)."""
        if self._flag is None:
            self._flag = wake_flag()
        clock = asyncio.create_task(self._clock_loop(0))
        try:
            while True:
                await self._flag.wait()
                if isinstance(self._flag, asyncio.Event):
                    self._flag.clear()  # a ThreadSafeFlag clears itself; an Event stays set
                now = time.ticks_ms()
                wait = self.step(now)
                if ticks_diff(ticks_add(now, wait), self._clock_due) < 0:
                    clock.cancel()
                    clock = asyncio.create_task(self._clock_loop(wait))
        finally:
            clock.cancel()

    async def _clock_loop(self, wait):
        while True:
            now = time.ticks_ms()
            self._clock_due = ticks_add(now, wait)
            if self._may_light_sleep(now, wait):
                machine.lightsleep(wait)
                self._in_show = True  # what woke it is read now, and stepped just below:
                try:                  # no poke for it (one step per wake-up)
                    self._woke(now, wait)
                finally:
                    self._in_show = False
                await asyncio.sleep_ms(0)   # let the other tasks see the time it took
            else:
                await asyncio.sleep_ms(wait)
            wait = self.step(time.ticks_ms())

    async def console_loop(self):
        reader = asyncio.StreamReader(compat.STDIN)
        self.unread = select.poll()
        self.unread.register(compat.STDIN, select.POLLIN)
        raw = bytearray()   # grown in place (a bytes joined a byte at a time: quadratic)
        while True:
            # Byte by byte: every byte, not only a whole line, keeps the badge awake
            # (_may_light_sleep), and a half-sent line never holds up the show loop.
            got = await reader.read(1)
            if not got:
                return   # stdin closed: only on a desktop
            self._last_input = time.ticks_ms()
            # Echoed, and a whole line answered, by the console's own code (cran.console):
            # nothing of it held here while the next byte is awaited, as this frame would
            # keep it, and its module's every function with it (4.4 KB), all day after a
            # quiet minute let it go (show()).
            raw = self.session().take_byte(raw, got, self)

    def start_watchdog(self):
        if self.wdt is None:   # once: a started WDT can't be stopped or made again
            self.wdt = machine.WDT(timeout=WDT_TIMEOUT_MS)

    async def run(self, console=True):
        self._flag = wake_flag()
        self.start_watchdog()
        show = asyncio.create_task(self.show_loop())
        if console:
            # On a badge stdin never closes; on a desktop (`micropython main.py < FILE`)
            # its end is the end of the run.
            await self.console_loop()
            show.cancel()
        else:
            await show


def _least(wait, other):
    return wait if other is None or wait <= other else other


def _set_rtc(unix_s):
    """The console's `clock` also sets the chip's RTC: it runs on through a watchdog or
    soft reset (not a power cut), so the badge still knows the date after one."""
    t = time.gmtime(unix_s - epoch_shift())
    machine.RTC().datetime((t[0], t[1], t[2], t[6], t[3], t[4], t[5], 0))
