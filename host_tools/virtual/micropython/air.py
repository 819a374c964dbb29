# The air between virtual badges: ESP-NOW frames carried with a delay, lost at a given
# rate, and heard only by a radio that is on when they arrive, at a signal strength
# that falls with distance. Strict as the hardware: at most 250 bytes a frame, nothing
# sent by a radio that is off, a receive buffer that drops what does not fit. Virtual
# time: the field's driver says what time it is (now) and delivers what is due (step).
import math
import random

MAX_FRAME = 250       # ESP-NOW v1
RX_BUFFER = 526       # MicroPython espnow's default rxbuf, in bytes
DELAY_MS = 2          # a frame's time on air and through the stack


def rssi_at(metres):
    """Signal strength in dBm at a distance: -40 at a metre, 20 dB less a decade
    (free space; a body in the way costs more, which the loss rate stands for)."""
    return round(-40 - 20 * math.log10(max(metres, 0.1)))


class Air:
    def __init__(self, loss=0.0, seed=0, delay_ms=DELAY_MS):
        self.loss = loss
        self.delay_ms = delay_ms
        self.random = random.Random(seed)
        self.radios = []
        self.in_flight = []   # (arrives at, radio, frame, rssi)
        self.now = 0
        self.sent = 0

    def radio(self, x=0.0, y=0.0):
        r = Radio(self, x, y)
        self.radios.append(r)
        return r

    def carry(self, sender, frame):
        self.sent += 1
        for r in self.radios:
            if r is not sender and self.random.random() >= self.loss:
                metres = math.hypot(r.x - sender.x, r.y - sender.y)
                self.in_flight.append((self.now + self.delay_ms, r, bytes(frame),
                                       rssi_at(metres)))

    def step(self, now):
        """Time is now: every frame due by now reaches its radio, if that radio is on."""
        self.now = now
        due = [f for f in self.in_flight if f[0] <= now]
        if due:
            self.in_flight = [f for f in self.in_flight if f[0] > now]
            for _, r, frame, rssi in due:
                r.arrive(frame, rssi)


class Radio:
    """A badge's ESP-NOW, as cran.radio.link drives it: on(), off(), send(peer, frame),
    recv() -> (frame, rssi) or None."""

    def __init__(self, air, x, y):
        self.air = air
        self.x, self.y = x, y
        self.active = False
        self.inbox = []
        self.on_count = 0

    def on(self):
        self.active = True
        self.on_count += 1

    def off(self):
        self.active = False
        self.inbox = []   # what the stack held is gone with it

    def send(self, peer, frame):
        if not self.active:
            raise OSError("ESP-NOW: the radio is off")
        if len(frame) > MAX_FRAME:
            raise ValueError("ESP-NOW: %d bytes: at most %d" % (len(frame), MAX_FRAME))
        self.air.carry(self, frame)

    def arrive(self, frame, rssi, at=None):
        # at: when it arrived, for a radio on a clock of its own (fieldnet.StampedRadio)
        if self.active and sum(len(f) for f, _ in self.inbox) + len(frame) <= RX_BUFFER:
            self.inbox.append((frame, rssi))

    def recv(self):
        return self.inbox.pop(0) if self.inbox else None
