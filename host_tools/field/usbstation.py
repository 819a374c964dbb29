# The game master's station badge on USB as the computer's radio (`cran field --port
# P`): the other half of cran.station's serial protocol. The badge relays; this side
# speaks it as host_tools/field/station.py's radio (on, off, send, recv) and hands it what
# must be sent again and again (repeat), which the badge does itself: a copy every 3 ms
# is more than a 115200-baud line can carry. Whatever the line brings that is not a
# frame heard (a station's error, noise) is kept, counted and shown, never a crash.
import json

from host_tools import CommandError
from host_tools.device import badgeport

KEEP_NOTES = 5   # the station's last words that were not frames, for the screen
MAX_LINE = 1024  # the longest the station says: "heard", a signal, 500 hex digits


def open_station(port):
    """The station on port, checked to be one (its `status`), its line opened for the
    session. -> UsbRadio; CommandError naming the port and what to do."""
    status = badgeport.status(port)   # a badge at its REPL is booted into its firmware
    if not status.get("station"):
        what = ("a player's badge (%s)" % (status.get("personnage") or "no character")
                if "etat" in status else "not a station (its status: %s)"
                % json.dumps(status)[:80])
        raise CommandError("%s: %s: make it the station with `cran flash --port %s "
                           "--station`" % (port, what, port))
    return UsbRadio(port, badgeport.open_port(port), status)


class UsbRadio:
    """conn: the open serial line (pyserial's). status: what the station said of itself
    when opened (its chip id, its firmware)."""

    def __init__(self, port, conn, status):
        self.port = port
        self.conn = conn
        self.status = status
        self.partial = b""
        self.inbox = []        # (frame, rssi) read, not yet taken by recv()
        self.notes = []        # the station's last lines that were not frames
        self.refused = 0       # its "error:" lines: what it did not take of ours
        self.garbled = 0       # lines that are none of its words (noise on the line)
        self.lost_line = None  # why the line is gone, once it is
        self.on_note = None    # on_note(text) hears each of them (the station's journal)

    # ---- as host_tools/field/station.py drives a radio -------------------------------------

    def on(self):
        pass   # the station listens all the time

    def off(self):
        pass

    def send(self, peer, frame):
        self.repeat(frame, 0, 0)

    def repeat(self, frame, every_ms, for_ms):
        """frame sent now, then every every_ms for for_ms, by the station itself."""
        self._write("send %s%s\n" % (frame.hex(), " %d %d" % (every_ms, for_ms)
                                     if for_ms else ""))

    def recv(self):
        if not self.inbox:
            self._read()
        return self.inbox.pop(0) if self.inbox else None

    # ---- the line ---------------------------------------------------------------------

    def _write(self, text):
        if self.lost_line is not None:
            return
        try:
            self.conn.write(text.encode())
        except OSError as e:   # pyserial's SerialException is one: unplugged
            self._lost(e)

    def _read(self):
        if self.lost_line is not None:
            return
        try:
            waiting = self.conn.in_waiting   # read only what is there: never wait here
            data = self.conn.read(waiting) if waiting else b""
        except OSError as e:
            self._lost(e)
            return
        if not data:
            return
        lines = (self.partial + data).split(b"\n")
        self.partial = lines.pop()
        if len(self.partial) > MAX_LINE:   # noise with no end: not kept growing
            self.hear_line(self.partial)
            self.partial = b""
        for raw in lines:
            self.hear_line(raw.rstrip(b"\r"))

    def _lost(self, e):
        self.lost_line = "%s: lost the station: %s (plugged out? plug it back in and start " \
                         "cran field again)" % (self.port, e)
        self._note(self.lost_line)

    def hear_line(self, raw):
        """One line from the station: a frame heard into the inbox; its error, or
        anything else, noted."""
        got = read_line(raw)
        if got[0] == "heard":
            self.inbox.append((got[1], got[2]))
        elif got[0] == "error":
            self.refused += 1
            self._note("the station refused a line: " + got[1])
        elif got[0] == "garbled":
            self.garbled += 1
            self._note("%s: a line that is none of the station's words: %s"
                       % (self.port, got[1]))

    def _note(self, text):
        self.notes = (self.notes + [text])[-KEEP_NOTES:]
        if self.on_note is not None:
            self.on_note(text)

    def close(self):
        try:
            self.conn.close()
        except OSError:
            pass


def read_line(raw):
    """A line from the station (bytes, without its end) -> ("heard", frame, rssi),
    ("error", its text), ("status", its JSON object), ("empty",) or ("garbled",
    the line as shown)."""
    text = raw.decode("ascii", "replace").strip()
    if not text:
        return ("empty",)
    words = text.split()
    if words[0] == "heard" and len(words) == 3:
        try:
            rssi, frame = int(words[1]), bytes.fromhex(words[2])
        except ValueError:
            frame = b""
        if frame and -128 <= rssi <= 0 and len(frame) <= 250:
            return ("heard", frame, rssi)
    elif text.startswith("error: "):
        return ("error", text[len("error: "):])
    elif text.startswith("{"):
        try:
            found = json.loads(text)
        except ValueError:
            found = None
        if isinstance(found, dict) and found.get("station"):
            return ("status", found)
    shown = raw[:60].decode("ascii", "backslashreplace")   # noise, byte for byte
    return ("garbled", '"%s%s"' % (shown, "..." if len(raw) > 60 else ""))
