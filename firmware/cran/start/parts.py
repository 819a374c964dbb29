# Drivers built from a board file: the only place that knows which pin is which part
# (with cran.start.screen, a screen's).
# A missing optional part is None; a part that fails to answer is a message, not a crash.
# Each driver module is imported only when the board has its part: on a badge every
# module imported is bytecode in RAM (an Atom Lite needs no screen or buzzer code).

import machine


def leds(board):
    spec = board.leds
    if spec is None:
        return None
    import neopixel

    from cran.hal.leds import Leds
    np = neopixel.NeoPixel(machine.Pin(spec["pin"], machine.Pin.OUT), spec["count"])
    return Leds(np, spec["max_brightness"])


def buzzer_pwm(board):
    """The PWM of the board's buzzer, silent (cran.hal.buzzer.Buzzer plays on it), or
    None."""
    if board.buzzer is None:
        return None
    # duty 0 from the first instant: a PWM made with the port's default duty would
    # squeal through the boot.
    return machine.PWM(machine.Pin(board.buzzer["pin"], machine.Pin.OUT), freq=2000,
                       duty_u16=0)


def buttons(board, on_event, on_edge=None):
    from cran.hal.buttons import Button
    out = []
    for spec in board.buttons:
        pull = {"up": machine.Pin.PULL_UP, "down": machine.Pin.PULL_DOWN}.get(spec["pull"])
        if pull is None:
            pin = machine.Pin(spec["pin"], machine.Pin.IN)   # the board's own resistor
        else:
            pin = machine.Pin(spec["pin"], machine.Pin.IN, pull)
        out.append(Button(pin, spec["name"], spec["active_low"], on_event, on_edge=on_edge))
    return out


def wake_on_buttons(board, buttons):
    """Make every button a light-sleep wake source. -> None, or why light sleep must stay
    off (a press that can't wake the chip would wait for the next timer wake-up). Only
    documented sources: on the classic ESP32 ext0 takes one pin at a level and ext1
    (ALL_LOW) a second, each of them alone "all low"; on the ESP32-C3 wake_on_gpio."""
    if not buttons:
        return None
    try:
        import esp32
    except ImportError:
        return "no esp32 module"
    active_low = [b.active_low for b in buttons]
    if len(set(active_low)) > 1:
        return "buttons of both polarities"
    level = esp32.WAKEUP_ALL_LOW if active_low[0] else esp32.WAKEUP_ANY_HIGH
    pins = [b.pin for b in buttons]
    try:
        if board.chip.startswith("esp32c"):
            if not hasattr(esp32, "wake_on_gpio"):
                return "this MicroPython has no esp32.wake_on_gpio"
            esp32.wake_on_gpio(pins, level)
        elif not active_low[0]:
            esp32.wake_on_ext1(pins, level)        # any high
        elif len(pins) <= 2:
            esp32.wake_on_ext0(pins[0], esp32.WAKEUP_ALL_LOW)   # low: pressed
            if len(pins) == 2:
                esp32.wake_on_ext1(pins[1:], level)   # "all" of one pin low
        else:
            return "more than two active-low buttons"
    except ValueError as e:   # not a pin that can wake this chip
        return "buttons can't wake the chip (%s)" % (e,)
    return None


class Parts:
    """The board's parts, as cran.app.App takes them: its LEDs, its buzzer's PWM and
    its screen, those of the board's runtime (this module's on MicroPython,
    cran.hal_cp's on CircuitPython) with the LEDs' patterns (cran.cues), and the
    buttons' menu, made here; its buttons made by buttons(), with the handlers the app
    gives them, and whether a press wakes the chip from a light sleep (can_sleep()).
    Safe mode has neither buttons nor menu. Start-only, as this whole module."""

    def __init__(self, config, badge, safe):
        board = config.board
        if board.runtime != "micropython":
            from cran.hal_cp import parts as hal
        else:
            import cran.start.parts as hal
        self.leds = hal.leds(board)
        self.cues = None   # the LEDs' patterns, for a board with LEDs
        if self.leds is not None:
            from cran import cues
            self.cues = cues
        self.layout = board.leds["layout"] if board.leds else "single"
        self.buzzer_pwm = hal.buzzer_pwm(board)   # silent: cran.hal.buzzer plays on it
        self.screen = problem = None
        if board.display is not None:
            # Relative, as the screen's code is its board's alone: "cran.start.screen"
            # written here would be a name in every badge's RAM for good, and
            # "screen" is one already.
            from .screen import screen
            self.screen, problem = screen(board)
        if problem:
            badge.log({"error": problem})
        self.menu = None   # made by build, once the radio is there to offer it treats
        self._hal = hal
        self._config = config
        self._badge = badge
        self._safe = safe

    def buttons(self, on_event, on_edge):
        """The board's buttons, each press to on_event(name, kind, tick), on_edge() after
        its edges: [] in safe mode."""
        return [] if self._safe else self._hal.buttons(self._config.board, on_event, on_edge)

    def can_sleep(self, buttons):
        """Whether the badge may light-sleep: the config allows it and a press of one of
        buttons wakes the chip (why not journaled)."""
        if not self._config.light_sleep:
            return False
        why = self._hal.wake_on_buttons(self._config.board, buttons)
        if why is not None:
            self._badge.log({"light_sleep": "off: %s" % why})
        return why is None


def build(root, config, restored=None):
    """The badge app (cran.app.App) of config (cran.config.Config) with its flash at
    root, around restored (cran.start.restore.restored_badge's, read here if not given):
    the game key read, the radio started, the board's parts made, and the badge's cues
    sent to the app. Start-only, as this whole module."""
    from cran.app import App
    from cran.compat import forget
    from cran.lock import locks, read_key, set_interrupt
    from cran.storage import join
    if restored is None:
        from cran.start.restore import restored_badge
        restored = restored_badge(root, config)
    badge = restored[0]
    safe = restored[1] > 0
    # The game key locks the console and Ctrl-C from the moment the app runs (no key:
    # open for good; a damaged one: shut for good). The console and its lock are made
    # when a byte comes (App.session).
    key, problem = read_key(join(root, "game.key"))
    if problem:
        badge.log({"error": problem})
    game_key = (key, problem) if locks(key, problem) else None
    set_interrupt(game_key is None)
    # The lock's and the radio's wiring code let go as soon as each has served, not with
    # this module: the start's peak is the app's last modules loading beside them (the
    # DevKitC's start with the radio lived in 98 KB with both kept to the end, 90 without).
    del locks, read_key, set_interrupt
    forget(("cran.lock",))
    parts = Parts(config, badge, safe)
    # The radio (cran.radio.link), when the game has one.
    link = None
    if config.radio is not None and not safe:
        from cran.radio.start import start
        link = start(root, config.radio, key, badge, config.board.power)
        del start
        # The window's code, cran.radio.link, stays; the keys are made (cran.auth).
        forget(("cran.radio.start", "cran.auth"))
    if not safe:
        from cran.menu import Menu
        parts.menu = Menu(len(config.board.buttons), parts.screen is not None,
                          link.treats() if link is not None else None, config.orga_code)
    app = App(root, config, restored, parts, game_key, link)
    badge.on_cues = app.on_cues
    return app
