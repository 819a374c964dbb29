# A virtual field on one machine: the radios of `cran vbadge --field NAME` badges and of
# the station (`cran field --virtual NAME`) joined over UDP on loopback through a hub,
# which carries every frame to every other member as the air would: lost at a given
# rate, at a signal strength from each member's place on a 30 m square (vhw/air.py's
# rssi_at). The hub runs in the station's process; the members find it by the field's
# name (a port file). Datagrams: b"J" a member joins (or is still there), b"F" + frame
# a member sends; to a member, b"F" + rssi (a signed byte) + frame.
import math
import os
import random
import socket
import tempfile
import threading

from host_tools import CommandError
from host_tools.vhw.air import MAX_FRAME, rssi_at

FIELD_SIDE_M = 30.0
ENV = "CRAN_FIELD_PORT"   # how a virtual badge's espnow (vhw/espnow.py) finds the hub


def port_file(name):
    if not name or [c for c in name if not (c.isalnum() or c in "-_")]:
        raise CommandError("a field's name is letters, digits, '-' and '_': %r" % name)
    return os.path.join(tempfile.gettempdir(), "cran-field-%s.port" % name)


def hub_port(name):
    """The running field's hub port -> int; CommandError when nobody runs it."""
    try:
        with open(port_file(name)) as f:
            return int(f.read())
    except (OSError, ValueError):
        raise CommandError("no virtual field %r here: start its station first, `cran field "
                           "--virtual %s`" % (name, name)) from None


class Hub:
    """The field's air, in the station's process. radio(): the station's own member."""

    def __init__(self, name, loss=0.0, seed=None):
        self.name = name
        self.loss = loss
        self.random = random.Random(seed)
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.bind(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.places = {}    # member address (or a local radio) -> (x, y)
        self.local = []
        self.lock = threading.Lock()
        self.carried = 0
        self.path = port_file(name)
        with open(self.path, "w") as f:
            f.write(str(self.port))
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.running = True
        self.thread.start()

    def _place(self, member):
        place = self.places.get(member)
        if place is None:
            place = self.places[member] = (self.random.uniform(0, FIELD_SIDE_M),
                                           self.random.uniform(0, FIELD_SIDE_M))
        return place

    def radio(self):
        r = LocalRadio(self)
        with self.lock:
            self.local.append(r)
            self._place(r)
        return r

    def _serve(self):
        while self.running:
            try:
                data, addr = self.sock.recvfrom(2048)
            except OSError:
                return   # closed
            with self.lock:
                self._place(addr)
                if data[:1] == b"F" and 0 < len(data) - 1 <= MAX_FRAME:
                    self.carry(addr, data[1:])

    def carry(self, sender, frame):
        """frame from sender to every other member (the hub's lock held)."""
        self.carried += 1
        x, y = self._place(sender)
        for member, (mx, my) in self.places.items():
            if member == sender or self.random.random() < self.loss:
                continue
            rssi = rssi_at(math.hypot(mx - x, my - y))
            if isinstance(member, LocalRadio):
                member.arrive(frame, rssi)
            else:
                try:
                    self.sock.sendto(b"F" + bytes([rssi & 0xFF]) + frame, member)
                except OSError:
                    pass   # a member gone: the air does not care

    def members(self):
        with self.lock:
            return len(self.places)

    def close(self):
        self.running = False
        try:
            os.remove(self.path)
        except OSError:
            pass
        self.sock.close()


class LocalRadio:
    """The station's own radio on the hub: cran.link's driver methods (always on)."""

    def __init__(self, hub):
        self.hub = hub
        self.active = False
        self.inbox = []

    def on(self):
        self.active = True

    def off(self):
        self.active = False
        self.inbox = []

    def send(self, peer, frame):
        if not self.active:
            raise OSError("ESP-NOW: the radio is off")
        if len(frame) > MAX_FRAME:
            raise ValueError("ESP-NOW: %d bytes: at most %d" % (len(frame), MAX_FRAME))
        with self.hub.lock:
            self.hub.carry(self, frame)

    def arrive(self, frame, rssi):
        if self.active:
            self.inbox.append((frame, rssi))

    def recv(self):
        with self.hub.lock:
            return self.inbox.pop(0) if self.inbox else None
