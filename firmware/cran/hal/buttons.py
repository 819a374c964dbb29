# Push buttons on pin IRQs, after peterhinch's micropython-async Pushbutton: the IRQ only
# notes (tick, level read from the pin) and schedules the work; debounce, long press and
# short-vs-double are decided here by time, with wraparound-safe ticks.
import micropython
from micropython import const

from cran.core.ticks import ticks_add, ticks_diff

_EDGES = const(8)   # edges kept between two runs; more is a bounce storm: re-read the pin


class Button:
    _min_press_ms = 20    # shorter, and ended within the debounce window: a glitch
    debounce_ms = 50
    long_press_ms = 800
    double_click_ms = 350

    def __init__(self, pin, name, active_low, on_event, clock=None, on_edge=None):
        """on_event(name, "short" | "long" | "double", tick). clock() -> ticks ms, by
        default time.ticks_ms (on CPython: vclock.patch_cpython_time() first).
        on_edge(): after edges are handled, as their deadlines may have moved (a release
        starts the double-click window): the app's loop then sleeps no longer than it."""
        if clock is None:
            import time
            clock = time.ticks_ms
        self.pin = pin
        self.name = name
        self.active_low = active_low
        self._active = 0 if active_low else 1
        self._on_event = on_event
        self._on_edge = on_edge
        self._clock = clock
        # Ring of edges, allocated once: the IRQ handler must not allocate.
        self._edge_ticks = [0] * _EDGES
        self._edge_levels = [0] * _EDGES
        self._head = 0
        self._count = 0
        self._lost = False
        self._scheduled = False
        self._busy = False
        self._run_cb = self._run   # a bound method made now, not in the IRQ
        self._irq_cb = self._irq
        # A button held at boot is no press: its release is ignored.
        self.pressed = pin.value() == self._active
        self._settle = None     # tick the debounce window ends, or None
        self._bounce = -1       # level of the last edge ignored in the window; -1 none
        self._bounce_at = 0     # its tick
        self._press_at = None   # tick of a press its window has not confirmed yet
        self._held_short = None  # a click's short_due, held while a second press settles
        self._long_due = None   # tick a held press becomes "long"; None: not pending
        self._short_due = None  # tick a click becomes "short" unless a second press comes
        pin.irq(handler=self._irq, trigger=pin.IRQ_FALLING | pin.IRQ_RISING)

    def _irq(self, pin):
        # Interrupt context: no allocation (small ints and preallocated lists only).
        if self._count < _EDGES:
            i = (self._head + self._count) % _EDGES
            self._edge_ticks[i] = self._clock()
            self._edge_levels[i] = self.pin.value()
            self._count += 1
        else:
            self._lost = True
        if not self._scheduled:
            self._scheduled = True
            try:
                micropython.schedule(self._run_cb, 0)
            except RuntimeError:   # queue full: poll() will find the edge
                self._scheduled = False

    def catch_up(self):
        """After a light sleep: edges then raised no IRQ, so note what the pin reads
        now (the same level as known is noise). Through the scheduler, as the IRQ's own
        work goes: a pin IRQ scheduled meanwhile can't run in the middle of it."""
        try:
            micropython.schedule(self._irq_cb, self.pin)
        except RuntimeError:   # queue full: note it now, as the IRQ would
            self._irq(self.pin)

    def _run(self, _):
        self._scheduled = False
        self.handle(self._clock())
        if self._on_edge is not None:
            self._on_edge()

    def poll(self, now):
        """Handle noted edges and what is due by `now`. -> next_timeout_ms(now)."""
        self.handle(now)
        return self.next_timeout_ms(now)

    def handle(self, now):
        """poll() without its answer, which the app's show step does not need: a press
        it hears of goes on at once to be shown."""
        if not self._busy:   # a scheduled run may land in the middle of the app's call
            self._busy = True
            try:
                while self._count:
                    i = self._head
                    self._edge(self._edge_ticks[i], self._edge_levels[i])
                    self._head = (i + 1) % _EDGES
                    self._count -= 1
                if self._lost:   # edges were dropped: the pin says where it ended up
                    self._lost = False
                    self._due(now)
                    self._bounce = self.pin.value()
                    self._bounce_at = now
                    if self._settle is None:
                        self._settle = now
                self._due(now)
            finally:
                self._busy = False

    def next_timeout_ms(self, now):
        """ms until poll() has something to do (0: now), or None: only an edge will."""
        if self._count or self._lost:
            return 0
        # Three calls, not a loop over a tuple of them: every wake-up asks this, and
        # the show step of an idle badge allocates nothing.
        best = _sooner_left(None, self._settle, now)
        best = _sooner_left(best, self._long_due, now)
        return _sooner_left(best, self._short_due, now)

    def _edge(self, tick, level):
        self._due(tick)
        if self._settle is not None:
            self._bounce = level   # in the window: settled when the window ends
            self._bounce_at = tick
        elif (level == self._active) != self.pressed:
            self._change(tick)
        # else: the pin reads what we already know (noise): nothing happened

    def _due(self, now):
        # Deadlines up to `now`, earliest first, so events come out in time order. (The
        # loop's test spares three calls when none is left: a press is shown sooner.)
        while (self._settle is not None or self._long_due is not None
               or self._short_due is not None):
            due = _sooner_due(None, self._settle, now)
            due = _sooner_due(due, self._long_due, now)
            due = _sooner_due(due, self._short_due, now)
            if due is None:
                return
            if due == self._settle:
                self._settle = None
                level = self._bounce
                self._bounce = -1
                if self._press_at is not None and self._confirm(level):
                    continue
                if level != -1 and (level == self._active) != self.pressed:
                    self._change(due)
            elif due == self._long_due:
                self._long_due = None
                self._on_event(self.name, "long", due)
            else:
                self._short_due = None
                self._on_event(self.name, "short", due)

    def _confirm(self, level):
        """The window after a press has ended. -> True when it was a glitch: a pulse
        that ended within _min_press_ms (noise on a long wire, a floating pin waking the
        chip) is undone as if it never came. Else a second press makes a double click."""
        press_at = self._press_at
        self._press_at = None
        held_short = self._held_short
        self._held_short = None
        if level != -1 and level != self._active and ticks_diff(
                self._bounce_at, press_at) < self._min_press_ms:
            self.pressed = False
            self._long_due = None
            self._short_due = held_short   # the first click stands alone again
            return True
        if held_short is not None:
            self._on_event(self.name, "double", press_at)
        return False

    def _change(self, tick):
        self.pressed = not self.pressed
        self._settle = ticks_add(tick, self.debounce_ms)
        if self.pressed:
            # Nothing is said until the window confirms the press (_confirm).
            self._press_at = tick
            self._held_short = self._short_due   # second press in time: a double
            self._short_due = None
            if self._held_short is None:
                self._long_due = ticks_add(tick, self.long_press_ms)
        elif self._long_due is not None:     # released before long: a click
            self._long_due = None
            self._short_due = ticks_add(tick, self.double_click_ms)
        # released after "long" or a double click: nothing more to say


def _sooner_left(best, due, now):
    """The smaller of best and the ms left until due (0 if past); None counts as never."""
    if due is None:
        return best
    left = max(0, ticks_diff(due, now))
    return left if best is None or left < best else best


def _sooner_due(best, due, now):
    """due, if it is reached by now and comes before best; else best."""
    if due is not None and ticks_diff(now, due) >= 0 and (
            best is None or ticks_diff(due, best) < 0):
        return due
    return best
