# A badge that can't start (its config or board file missing or wrong): a fixed
# pattern on the LEDs and a console that says why. Loaded only then: a badge that
# starts never has this code in RAM.
import asyncio
import json
import os
import sys

import machine

import cran
from cran.console import NOT_TEXT, command_of, text_of
from cran.storage import join

_STDIN = getattr(sys.stdin, "buffer", sys.stdin)
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


def _guess_leds(root):
    """(pin, count) of the LEDs from the raw config and board files, as far as they go."""
    try:
        with open(join(root, "boards/%s.json" % _board_id(root))) as f:
            leds = json.loads(f.read()).get("leds")
    except (OSError, ValueError, AttributeError):
        return None
    if not isinstance(leds, dict):
        return None
    pin = leds.get("pin")
    count = leds.get("count", 1)
    if type(pin) is int and type(count) is int and 0 < count <= 256:
        return pin, count
    return None


def error_cue(root):
    """A fixed red/white pattern on the LEDs the board file names, if it names any."""
    guess = _guess_leds(root)
    if guess is None:
        return None
    import neopixel
    try:
        np = neopixel.NeoPixel(machine.Pin(guess[0], machine.Pin.OUT), guess[1])
    except ValueError:   # not a pin of this chip
        return None
    for i in range(guess[1]):
        np[i] = _ERROR_FRAME[i % 2]
    np.write()
    return np


async def error_console(message):
    reader = asyncio.StreamReader(_STDIN)
    while True:
        raw = await reader.readline()
        if not raw:
            return
        text = text_of(raw)
        command, rest = command_of(text) if text is not None else (None, None)
        if command is None:
            print(NOT_TEXT)
        elif command == "status":
            print(json.dumps({"error": message, "firmware": cran.VERSION}))
        elif command == "echo":
            print(rest)
        elif command:
            print("error: the badge could not start: %s" % message)
