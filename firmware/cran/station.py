# The game master's station badge: the laptop's radio, on USB (cran flash --station).
# A relay and no more: each frame it hears goes up the serial line with its signal
# strength, each frame the laptop gives it goes out on ESP-NOW, again and again as
# asked. It holds no key and opens nothing: the laptop (host_tools/field/station.py) seals
# the game master's commands and opens the heartbeats. A station lost, or read by a
# player, gives nothing away; a player's badge never loads this module.
#
# The serial protocol, a line each way: ASCII, "\n" ends a line ("\r" is ignored).
#   laptop -> station
#     send HEX [EVERY_MS FOR_MS]  the frame (1-250 bytes, hex) sent now, then again every
#                                 EVERY_MS ms until FOR_MS ms have passed
#     status                      one JSON line: what it is, what it heard and sent
#     echo WORD                   WORD back (a host's knock, an answer's end: badgelink)
#     help                        the commands
#     (an empty line)             nothing: a host's knock
#   station -> laptop
#     heard RSSI HEX              a frame heard, its signal in dBm (a copy of one of the
#                                 last few heard is not said again: status counts it)
#     error: WHAT                 a line it did not take, and why; nothing else happens
# A line the station can't take changes nothing; only Ctrl-C stops it (cran flash
# stops it so, as mpremote does, to reach the REPL).
import binascii
import json

from cran import VERSION
from cran.auth import from_hex
from cran.core.ticks import ticks_add, ticks_diff
from cran.core.vocab import const

MAX_FRAME = const(250)         # ESP-NOW v1's payload limit
MAX_LINE = const(600)          # "send", 500 hex digits and two numbers, with room
MAX_REPEATING = const(8)       # frames sent again and again at once
MAX_EVERY_MS = const(1000)
MAX_FOR_MS = const(10000)
# ESP-NOW's receive buffer: its default, 526 bytes, holds two frames; a station hears a
# whole field's heartbeats at once after a stop.
RXBUF = const(8192)
_RECENT = const(8)             # frames heard last, whose copies are not said again
_WATCHDOG_MS = const(45000)    # cran.app's: main.py started it
_FEED_MS = const(1000)
_EVERYONE = b"\xff" * 6
COMMANDS = "send HEX [EVERY_MS FOR_MS], status, echo WORD, help"


class Relay:
    """The station's work, without its hardware: air (cran.hal.espnow.Air's on, send,
    recv), say(line) a line to the laptop, me the chip's id, now its tick at start.
    feed(bytes, now) takes what came on the serial line; tick(now) reads the air and
    sends the copies due. lost: a function -> frames ESP-NOW dropped, or None."""

    def __init__(self, air, say, me, now):
        self.air = air
        self.say = say
        self.me = me
        self.started = now
        self.lost = None
        self.line = bytearray()
        self.overlong = False
        self.repeating = []    # [frame, every ms, until tick, next copy's tick]
        self.recent = []
        self.counts = {"heard": 0, "again": 0, "sent": 0, "refused": 0}

    # ---- the serial line ----------------------------------------------------------

    def feed(self, data, now):
        for b in data:
            if b == 10:
                if self.overlong:
                    self._refuse(self.line, "longer than %d characters: not read"
                                 % MAX_LINE)
                else:
                    self.command(bytes(self.line), now)
                self.line = bytearray()
                self.overlong = False
            elif b != 13:
                if len(self.line) < MAX_LINE:
                    self.line.append(b)
                else:
                    self.overlong = True   # the rest of it is dropped, then said

    def command(self, line, now):
        words = line.split()
        if not words:
            return   # a knock
        verb = words[0]
        if verb == b"send":
            self._send(line, words, now)
        elif verb == b"status":
            self.say(json.dumps(self.status(now)))
        elif verb == b"echo" and len(words) == 2 and _printable(words[1]):
            self.say(words[1].decode())
        elif verb == b"help":
            self.say("station commands: " + COMMANDS)
        else:
            self._refuse(line, "not a station's command (%s); the station keeps no "
                               "journal: the computer's cran field does" % COMMANDS)

    def _refuse(self, line, why):
        self.counts["refused"] += 1
        self.say("error: %s: %s" % (_shown(line), why))

    def _send(self, line, words, now):
        if len(words) not in (2, 4):
            return self._refuse(line, "expected send HEX [EVERY_MS FOR_MS]")
        frame = from_hex(words[1].decode()) if _printable(words[1]) else None
        if frame is None or not 0 < len(frame) <= MAX_FRAME:
            return self._refuse(line, "HEX: a frame of 1 to %d bytes in hex digits (%d "
                                      "characters here)" % (MAX_FRAME, len(words[1])))
        every = for_ms = 0
        if len(words) == 4:
            every, for_ms = _whole(words[2]), _whole(words[3])
            if (every is None or for_ms is None or not 1 <= every <= MAX_EVERY_MS
                    or for_ms > MAX_FOR_MS):
                return self._refuse(line, "EVERY_MS from 1 to %d, FOR_MS from 0 to %d"
                                    % (MAX_EVERY_MS, MAX_FOR_MS))
            if len(self.repeating) >= MAX_REPEATING:
                return self._refuse(line, "%d frames are being sent again already: "
                                          "wait for one to end" % MAX_REPEATING)
        if self._out(line, frame) and for_ms:
            self.repeating.append([frame, every, ticks_add(now, for_ms),
                                   ticks_add(now, every)])

    def _out(self, line, frame):
        try:
            self.air.send(_EVERYONE, frame)
        except (OSError, ValueError) as e:   # the radio failing: said, and it goes on
            self._refuse(line, "the radio did not send it (%r)" % (e,))
            return False
        self.counts["sent"] += 1
        return True

    def status(self, now):
        return {"station": True, "firmware": VERSION,
                "id": binascii.hexlify(self.me).decode(),
                "uptime_ms": ticks_diff(now, self.started), "heard": self.counts["heard"],
                "again": self.counts["again"], "sent": self.counts["sent"],
                "refused": self.counts["refused"], "repeating": len(self.repeating),
                "lost": self.lost() if self.lost is not None else None}

    # ---- the air ------------------------------------------------------------------

    def tick(self, now):
        while True:
            got = self.air.recv()
            if got is None:
                break
            self._heard(bytes(got[0]), got[1])   # a copy: the driver's buffer is reused
        ended = False
        for item in self.repeating:
            if ticks_diff(now, item[3]) >= 0:
                item[3] = ticks_add(now, item[1])
                if not self._out(b"send (its copies: stopped)", item[0]):
                    item[2] = now   # said once, not at every copy
            ended = ended or ticks_diff(now, item[2]) >= 0
        if ended:
            self.repeating = [r for r in self.repeating if ticks_diff(now, r[2]) < 0]

    def _heard(self, frame, rssi):
        if frame in self.recent:
            self.counts["again"] += 1
            return
        self.recent.append(frame)
        if len(self.recent) > _RECENT:
            self.recent.pop(0)
        self.counts["heard"] += 1
        self.say("heard %d %s" % (rssi, binascii.hexlify(frame).decode()))


def _printable(word):
    for b in word:
        if not 32 < b < 127:
            return False
    return True


def _whole(word):
    """ASCII digits -> int (at most 6 of them), else None."""
    if not 0 < len(word) <= 6:
        return None
    for b in word:
        if not 48 <= b <= 57:
            return None
    return int(word)


def _shown(line):
    """A line as an error quotes it: its first 40 characters, what is not printable
    ASCII as \\xNN (a garbled line may be anything)."""
    out = "".join([chr(b) if 32 <= b < 127 else "\\x%02x" % b for b in line[:40]])
    return '"%s%s"' % (out, "..." if len(line) > 40 else "")


def main():
    """The station's loop: the air read between the serial line's bytes, a millisecond
    at most apart, the watchdog main.py started fed."""
    import select
    import sys
    import time

    import machine
    import micropython

    from cran.hal.espnow import Air
    # Ctrl-C stops it: main.py made it a byte for a player's sake, but a station has no
    # key to guard, and cran flash reaches its REPL so, as mpremote does.
    micropython.kbd_intr(3)
    wdt = machine.WDT(timeout=_WATCHDOG_MS)
    fed = time.ticks_ms()
    air = Air()
    air.now.config(rxbuf=RXBUF)   # before on(): ESP-NOW makes its buffer when made active
    air.on()                      # on USB power: it listens all the time
    relay = Relay(air, print, machine.unique_id(), fed)
    relay.lost = lambda: air.now.stats()[4]
    stdin = getattr(sys.stdin, "buffer", sys.stdin)
    poller = select.poll()
    poller.register(stdin, select.POLLIN)
    while True:
        now = time.ticks_ms()
        relay.tick(now)
        if ticks_diff(now, fed) >= _FEED_MS:
            wdt.feed()
            fed = now
        waiting = poller.poll(1)
        taken = 0
        while waiting and taken < 64:   # then the air again: copies are due every 3 ms
            relay.feed(stdin.read(1), now)
            taken += 1
            waiting = poller.poll(0)
