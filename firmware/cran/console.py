# The serial console: one line in, one line out. The same action words as scenario
# files (docs/scenarios.md), plus status, journal, config, clock and reboot. What
# changes the game is the organisers' (cran.lock.ConsoleLock): reading is free.

import json
import time

import cran
from cran import compat
from cran.compat import forget
from cran.core.steps import COUNTDOWN
from cran.core.view import view
from cran.core.vocab import (
    ARMOR_DAMAGED,
    DIGITS,
    INCONNU,
    SPACE_CHARS,
    SPACES,
    ParseError,
    const,
)

LOCKED = ("error: locked: for the game's organisers (`challenge`, then `unlock` with "
          "the game key: `cran console` does it)")

NOT_TEXT = "error: the line is not UTF-8 text"
# The grammar (~5.5 KB of a badge's heap) is loaded to read an action line and let go
# once it is read: an organiser's lines come seconds apart, a load takes milliseconds,
# and the heap's peak is such a line's action played beside the console and its lock.
_GRAMMAR = const(("cran.core.words",))
# The longest line read; a longer one is answered with _TOO_LONG, and nothing of it is
# kept past the bound (a badge's heap is small, and no command needs more).
_MAX_LINE_BYTES = const(256)
_TOO_LONG = "error: a line of more than %d bytes: dropped" % _MAX_LINE_BYTES
# What a badge in safe mode (cran.boots) still answers: what reads, and the lock's.
_SAFE_COMMANDS = const(("status", "journal", "config", "clock", "echo", "help", "?",
                        "challenge", "unlock", "lock", "reboot"))
UNKNOWN = ("error: etat inconnu: the badge lost its saved state; an organiser sets it "
           "with `reset` (or the Orga menu's reset), then plays what is known")


def status(badge, now, link=None):
    """The `status` answer of a cran.badge.Badge: everything a host or an organiser asks
    about. Here, not the badge's: only an organiser's read needs it, and the console
    is loaded then. link: its radio (cran.radio.link), whose refused frames it counts."""
    badge.tick(now)
    state = badge.state
    seen = view(state, now)
    effects = {}
    for name in state.effects():
        effects[name] = state.left_ms(name, now)
    answer = {"etat": seen["etat"], "armure": int(seen["armure"]),
              ARMOR_DAMAGED: state.armor_damaged, "effets": effects,
              "brises": sorted(state.broken), "dit": seen["dit"],
              "reste_ms": state.left_ms(COUNTDOWN, now),
              "combat": state.in_combat(), "jeu": seen["jeu"],
              "renommee": state.renown, "personnage": badge.character.name,
              "casque": badge.character.helmet,
              "board": badge.board_id, "firmware": cran.VERSION,
              "id": badge.names.get("id"), "badge": badge.names.get("badge"),
              "uptime_ms": badge.uptime_ms, "clock": badge.wall_clock(),
              "save_error": badge.save_error}
    if link is not None:   # frames refused by reason (cran.radio.DROPS): a flood shows
        answer["radio"] = link.listener.dropped
    if badge.unknown:   # nothing of the wearer is known: no field says more than that
        for key in ("armure", ARMOR_DAMAGED, "reste_ms", "combat", "jeu", "renommee"):
            answer[key] = None
        answer["etat"] = INCONNU
    return answer


def command_of(line):
    """A console line -> (its first word in ASCII lower case, the rest), split at SPACES:
    one answer on every runtime (CPython's split() and lower() go beyond ASCII). Found
    with find(), never a character taken out (cran.core.vocab.chars says why)."""
    line = line.strip(SPACES)
    i = len(line)
    for space in SPACE_CHARS:
        j = line.find(space)
        if 0 <= j < i:
            i = j
    return line[:i].encode().lower().decode(), line[i:].strip(SPACES)


def text_of(raw):
    """Bytes from the serial port -> the line's text as typed: control characters (a
    terminal's stray Ctrl-B, or one that reaches a badge rebooted under a host tool) are
    not part of a word, and backspace rubs out. None when the bytes are not UTF-8."""
    if isinstance(raw, bytes):
        try:
            text = raw.decode()
        except UnicodeError:
            return None
        if len(text) != len(raw):
            # Beyond ASCII, MicroPython's decode() takes what CPython's refuses: the
            # check is loaded for that rare line (RAM on a badge).
            from cran.utf8 import well_formed
            ok = well_formed(raw)
            forget(("cran.utf8",))
            if not ok:
                return None
    else:
        raw = raw.encode()
    # Byte by byte, not character by character (cran.core.vocab.chars says why).
    kept = bytearray()
    for b in raw:
        if b == 0x08 or b == 0x7F:   # backspace, as a terminal sends it: one character
            _rub_out(kept)
        elif b >= 0x20 or b == 0x09:
            kept.append(b)
    return str(kept, "utf-8")


def _rub_out(typed):
    """The last character typed off (its UTF-8 continuation bytes with it)."""
    end = len(typed)
    while end and typed[end - 1] & 0xC0 == 0x80:
        end -= 1
    typed[max(0, end - 1):] = b""


def typed_byte(line, got, echo):
    """One byte from the serial port (got: bytes of one) into the line being typed (line:
    a bytearray, grown in place; past _MAX_LINE_BYTES + 1, bytes are dropped) -> True when
    it ends the line. Enter ends it: a terminal sends \r (an ESP32 passes it on as it is:
    only its text stdin reads it as \n), cran's tools \r\n or \n. A UART has no local
    echo: what the line takes is written back to echo (a stream), so that a person at a
    terminal (mpremote connect) sees what they type and rubs it out; its end as \r\n,
    after a line that had anything (a host's knock of empty lines gets nothing back)."""
    b = got[0]
    if b == 0x0D or b == 0x0A:
        if line:
            echo.write(b"\r\n")
        return True
    if b == 0x08 or b == 0x7F:
        if line:
            _rub_out(line)
            echo.write(b"\b \b")
    elif len(line) <= _MAX_LINE_BYTES:
        line.append(b)
        if b >= 0x20 or b == 0x09:   # other control bytes are not part of a word
            echo.write(got)
    return False


def open_for(app, on_clock):
    """The console of a cran.app.App (on_clock: Console's), made by the first byte that
    comes after a quiet spell (App.session). Its lock (cran.lock) is made by the first
    line that needs it: what reads (status, journal: a host's every look) never loads
    it. A badge without a game key has none: its console is open."""
    from cran.storage import join
    console = app.console = Console(app.badge, join(app.root, "config.json"), on_clock)
    console.safe_after = app.resets_for_safe if app.safe else 0
    console.link = app.link
    if app.game_key is not None:
        def make_lock():
            from cran.lock import ConsoleLock, set_interrupt
            app.lock = ConsoleLock(app.game_key[0], app.game_key[1], set_interrupt)
            return app.lock
        console.make_lock = make_lock
    return console


class Console:
    def __init__(self, badge, config_path=None, on_clock=None, lock=None):
        self.badge = badge
        self.safe_after = 0         # in safe mode: the watchdog resets that caused it
        self.lock = lock            # cran.lock.ConsoleLock; None: open (a desktop run)
        self.make_lock = None       # or: make_lock() -> the lock, when a line needs it
        self.reboot = False         # `reboot` said: the app resets after the answer
        # Read again for each `config` (a host's, rare): a roster's config kept parsed
        # would hold ~1.6 KB of the badge's heap for it.
        self.config_path = config_path
        self.on_clock = on_clock    # on_clock(unix seconds): also set the chip's RTC
        self.link = None            # the badge's radio, if it has one (status says it)

    def take_byte(self, line, got, app):
        """One byte from the serial port, read by app's loop (cran.app.App.console_loop),
        into the line being typed (typed_byte): a whole line answered, printed, and the
        reboot it asked for made. -> the line to go on typing into (a new one after an
        answer). Here, not in the loop: its code goes with the console's."""
        if not (typed_byte(line, got, compat.STDOUT) and line):
            return line
        for out in self.answer(line, time.ticks_ms()):
            print(out)
        if self.reboot:   # rare, so its code is loaded for it (cran.boots)
            from cran.boots import reboot
            reboot(app.badge, app.root)
        return bytearray()

    def answer(self, raw, now):
        """The bytes of one line from the serial port (its newline off, at most
        _MAX_LINE_BYTES + 1 kept) -> the answer lines. A bug is said and journaled: the
        badge plays on."""
        if len(raw) > _MAX_LINE_BYTES:
            return [_TOO_LONG]
        text = text_of(bytes(raw))
        if text is None:
            return [NOT_TEXT]
        try:
            return self.line(text, now)
        except Exception as e:
            self.badge.log({"error": "console %r: %r" % (text[:40], e)})
            return ["error: the badge failed on this line: %r" % (e,)]

    def line(self, text, now):
        """One line's text -> the answer lines. Safe mode answers only what reads."""
        if self.safe_after:
            command = command_of(text)[0]
            if command and command not in _SAFE_COMMANDS:
                return ["error: safe mode after %d watchdog resets: actions are off (%s "
                        "answer; an organiser's `reboot` ends it)"
                        % (self.safe_after, ", ".join(_SAFE_COMMANDS[:4]))]
        return self.handle(text, now)

    def handle(self, line, now):
        """-> the answer lines for one console line. A bad line gets one error line and
        changes nothing."""
        command, rest = command_of(line)
        if not command:
            return []
        if command == "status":
            return [json.dumps(status(self.badge, now, self.link))]
        if command == "journal":
            journal = self.badge.journal
            return [json.dumps(e) for e in journal.entries()] if journal else []
        if command == "echo":   # a host marks the end of an answer with it
            return [rest]
        if command in ("help", "?"):   # rare: its words come with the grammar's
            from cran.core.words import HELP
            forget(_GRAMMAR)
            return [HELP]
        lock = self.lock
        if lock is None and self.make_lock is not None:
            lock = self.lock = self.make_lock()
        if command == "challenge":
            return [lock.challenge() if lock else "open"]
        if command == "unlock":
            return [lock.unlock(rest, now) if lock else "ok open"]
        if command == "lock":   # an organiser's tool, done: no window left open
            if lock is not None:
                lock.close()
            return ["ok locked" if lock is not None and lock.locks() else "ok open"]
        if lock is not None and not lock.is_open(now):
            return [LOCKED]
        if command == "reboot":    # also how an organiser takes a badge out of safe mode
            self.reboot = True
            return ["ok reboot"]
        if command == "config":
            return [self._config()]
        if command == "clock":
            return [self._clock(rest, now)]
        from cran.core.words import parse_action
        try:
            action = parse_action(line)
        except ParseError as e:
            return ["error: %s" % e]
        finally:   # let go before the action plays: its look and sound load their own
            del parse_action   # (a function keeps its module's globals: all of it)
            forget(_GRAMMAR)
        if self.badge.unknown and action.verb != "reset":
            return [UNKNOWN]
        self.badge.apply(action, now)
        seen = status(self.badge, now)   # "dit": what this action asks to say, or "-"
        return ["ok %s: etat=%s armure=%d dit=%s" % (
            action.text(), seen["etat"], seen["armure"], seen["dit"])]

    def _config(self):
        """The badge's config.json as one line of JSON."""
        if self.config_path is None:
            return "{}"
        try:
            with open(self.config_path) as f:
                return json.dumps(json.loads(f.read()))
        except (OSError, ValueError) as e:
            return "error: %s: %s" % (self.config_path, e)

    def _clock(self, rest, now):
        # Checked before any use (time.gmtime() crashes the interpreter on a huge number):
        # from 2024 (an RTC showing less was never set) to 2099, ten ASCII digits, which
        # compare as their numbers do (and make no big int on a badge to do it).
        if len(rest) != 10 or rest.strip(DIGITS) or not "1704067200" <= rest < "4102444800":
            return "error: clock needs whole seconds since 1970, from 2024 to 2099"
        seconds = int(rest)
        self.badge.set_wall_clock(seconds, now)
        if self.on_clock is not None:
            self.on_clock(seconds)
        return "ok clock %d" % seconds
