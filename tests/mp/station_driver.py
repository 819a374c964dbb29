# The station badge's relay (cran.station.Relay) on a strict air of its own, run the
# same way by the MicroPython unix port and by CPython:
#   <python> station_driver.py FIRMWARE_DIR
# Prints one JSON line per check: {"id", "result"} or {"id", "crash"}; the assertions are
# in tests/test_station.py, so both runtimes are held to the same expectations.
import sys

if __name__ == "__main__":
    sys.path[:0] = [sys.argv[1]]

from checks import check, run_checks  # noqa: E402

from cran.station import MAX_FRAME, Relay  # noqa: E402

WRAP = 1 << 30


class Air:
    """cran.hal.espnow.Air as the relay drives it, strict: a frame of 1-250 bytes to the
    broadcast peer, and the frames heard (each its driver's buffer, overwritten by the
    next recv, as ESP-NOW's irecv)."""

    def __init__(self):
        self.sent = []
        self.coming = []
        self.buffer = bytearray(MAX_FRAME)
        self.fail = None

    def send(self, peer, frame):
        if self.fail is not None:
            raise self.fail
        if peer != b"\xff" * 6 or not 0 < len(frame) <= MAX_FRAME:
            raise ValueError("bad send: %r, %d bytes" % (peer, len(frame)))
        self.sent.append(bytes(frame))

    def recv(self):
        if not self.coming:
            return None
        frame, rssi = self.coming.pop(0)
        self.buffer[:len(frame)] = frame
        return memoryview(self.buffer)[:len(frame)], rssi


def relay(now=0):
    said = []
    air = Air()
    return Relay(air, said.append, b"\x24\x0a\xc4\x00\x00\x01", now), air, said


@check
def frames_heard_go_up_once_with_their_signal():
    r, air, said = relay()
    one, two = b"\xc1" + bytes(30), b"\xc1" + b"\x02" * 40
    air.coming = [(one, -48), (one, -48), (two, -70), (one, -50)]
    r.tick(5)
    return {"said": said, "status": r.status(5)}


@check
def a_frame_is_sent_again_and_again_as_asked_across_the_wrap():
    start = WRAP - 20
    r, air, said = relay(start)
    r.feed(b"send c10203 3 30\n", start)
    sent_at = [start] if air.sent else []
    now = start
    for _ in range(60):
        now = (now + 1) % WRAP
        before = len(air.sent)
        r.tick(now)
        if len(air.sent) > before:
            sent_at.append(now)
    r.feed(b"send c1ff\r\n", now)   # once, \r\n as a terminal ends it
    return {"sent_at": sent_at, "frames": [f.hex() for f in air.sent], "said": said,
            "repeating": len(r.repeating)}


@check
def garbled_lines_are_refused_by_name_and_change_nothing():
    r, air, said = relay()
    lines = [b"sned c101", b"send", b"send zz", b"send c1", b"send c1 0 100",
             b"send c1 3", b"send c1 3 99999", b"send " + b"ab" * 251,
             b"\xff\xfe\x00garbage", b"send c1 -3 100", b"echo", b"journal",
             b"x" * 700, b""]
    for line in lines:
        r.feed(line + b"\n", 0)
    r.feed(b"ec", 0)   # half a line, then the rest
    r.feed(b"ho cran-42\n\n", 0)
    r.feed(b"help\n", 0)
    return {"said": said, "sent": len(air.sent), "refused": r.status(0)["refused"]}


@check
def no_more_than_eight_frames_repeat_at_once_and_a_failing_radio_is_said():
    r, air, said = relay()
    for n in range(9):
        r.feed(b"send c1%02x 3 900\n" % n, 0)
    air.fail = OSError(-1, "ESP_ERR_ESPNOW_IF")
    r.feed(b"send c1aa\n", 0)
    r.tick(3)   # the copies due fail too: said, and the relay goes on
    air.fail = None
    r.tick(6)
    return {"said": said, "repeating": len(r.repeating), "sent": len(air.sent)}


@check
def status_is_one_json_line():
    import json
    r, air, said = relay(100)
    r.lost = lambda: 3
    r.feed(b"status\n", 1100)
    return json.loads(said[0])


run_checks()
