# A badge that can't start (its config or board file missing or wrong): a fixed
# pattern on the LEDs and a console that says why. Loaded only then: a badge that
# starts never has this code in RAM.
import asyncio
import json
import os
import time

import machine

import cran
import cran.readback  # noqa: F401 (Journal.entries reads with it: in fail_needs)
from cran import compat
from cran.console import NOT_TEXT, command_of, text_of, typed_byte
from cran.lock import ConsoleLock, read_key, set_interrupt
from cran.storage import Journal, join

WDT_TIMEOUT_MS = 45000   # cran.app's: not imported, a badge that can't start never loads it
_ERROR_FRAME = ((60, 0, 0), (60, 60, 60))   # red, white: "not started", steady


def _board_id(root):
    """The board the config names; else, when the config can't be read, the one board
    file there is (cran flash writes one)."""
    try:
        with open(join(root, "config.json")) as f:
            return json.loads(f.read()).get("board")
    except (OSError, ValueError, AttributeError):   # UnicodeError is a ValueError
        pass
    try:
        names = [n for n in os.listdir(join(root, "boards")) if n.endswith(".json")]
    except OSError:
        return None
    return names[0][:-5] if len(names) == 1 else None


def _read_board(root):
    """The board file as far as it reads (a dict, maybe empty)."""
    try:
        with open(join(root, "boards/%s.json" % _board_id(root))) as f:
            data = json.loads(f.read())
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _hal(board):
    # The drivers of the board's runtime, chosen here as cran.start.parts.build chooses
    # them: CircuitPython's (cran.hal_cp.parts) for a board file that says so.
    if board.get("runtime", "micropython") != "micropython":
        from cran.hal_cp import parts
        return parts
    return None


def _guess_leds(board):
    """(pin, count) of the LEDs from the raw board file, as far as it goes."""
    leds = board.get("leds")
    if not isinstance(leds, dict):
        return None
    pin = leds.get("pin")
    count = leds.get("count", 1)
    if type(pin) is int and type(count) is int and 0 < count <= 256:
        return pin, count
    return None


def error_cue(root, board=None):
    """A fixed red/white pattern on the LEDs the board file names, if it names any."""
    board = _read_board(root) if board is None else board
    guess = _guess_leds(board)
    if guess is None:
        return None
    hal = _hal(board)
    try:
        if hal is not None:
            np = hal.strip(guess[0], guess[1])
        else:
            import neopixel
            np = neopixel.NeoPixel(machine.Pin(guess[0], machine.Pin.OUT), guess[1])
    except (ValueError, AttributeError):   # not a pin of this chip
        return None
    for i in range(guess[1]):
        np[i] = _ERROR_FRAME[i % 2]
    np.write()
    return np


def cannot_start(message, root="/", console=True):
    """Everything a badge that can't start does: the error cue, the journal's entry, then
    (console) its console, the watchdog fed (main.py started it)."""
    board = _read_board(root)
    error_cue(root, board)
    hal = _hal(board)
    journal = None
    try:
        journal = Journal(root) if hal is None else hal.stores(root, None)[1]
        journal.append({"error": "cannot start: %s" % message, "up": 0})
    except (OSError, ValueError):   # ValueError: an entry too long for nvm's journal
        pass   # a flash that fails too: the console still says it
    if console:
        asyncio.run(_fed(error_console(message, root, journal)))


async def _fed(task):
    wdt = machine.WDT(timeout=WDT_TIMEOUT_MS)   # the one main.py started
    feeder = asyncio.create_task(_feed(wdt))
    try:
        await task
    finally:
        feeder.cancel()


async def _feed(wdt):
    while True:
        wdt.feed()
        await asyncio.sleep_ms(WDT_TIMEOUT_MS // 3)


async def error_console(message, root="/", journal=None):
    """The console of a badge that can't start: it says why, and opens to the game's
    organisers as the app's does (cran flash mends the badge through it). journal: where
    the badge keeps its journal (the files' at root when None)."""
    key, problem = read_key(join(root, "game.key"))
    lock = ConsoleLock(key, problem, set_interrupt)
    reader = asyncio.StreamReader(compat.STDIN)
    raw = bytearray()
    while True:
        got = await reader.read(1)
        if not got:
            return
        if not typed_byte(raw, got, compat.STDOUT):   # echoed as typed, \r or \n ends it
            continue
        if not raw:
            continue
        now = time.ticks_ms()
        lock.tick(now)
        text = text_of(bytes(raw))
        raw = bytearray()
        command, rest = command_of(text) if text is not None else (None, None)
        if command is None:
            print(NOT_TEXT)
        elif command == "status":
            print(json.dumps({"error": message, "firmware": cran.VERSION}))
        elif command == "echo":
            print(rest)
        elif command == "journal":   # cran logs reads why, and what came before
            for entry in (journal or Journal(root)).entries():
                print(json.dumps(entry))
        elif command == "challenge":
            print(lock.challenge())
        elif command == "unlock":
            print(lock.unlock(rest, now))
        elif command == "lock":
            lock.close()
            print("ok locked" if lock.locks() else "ok open")
        elif command:
            print("error: the badge could not start: %s" % message)
