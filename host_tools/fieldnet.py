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
from host_tools.vhw.air import MAX_FRAME, Radio, rssi_at

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
        self.places = {}    # member address (or the station's Radio) -> (x, y)
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
            place = self.places[member] = self._spot()
        return place

    def _spot(self):
        return self.random.uniform(0, FIELD_SIDE_M), self.random.uniform(0, FIELD_SIDE_M)

    def radio(self):
        """The station's own radio on this air: vhw/air.py's, as strict (cran.link's
        driver methods; the station turns it on for good)."""
        with self.lock:
            r = Radio(self, *self._spot())
            self.places[r] = (r.x, r.y)
        return r

    def _serve(self):
        while self.running:
            try:
                data, addr = self.sock.recvfrom(2048)
            except OSError:
                return   # closed
            if data[:1] == b"F" and 0 < len(data) - 1 <= MAX_FRAME:
                self.carry(addr, data[1:])
            else:
                with self.lock:
                    self._place(addr)   # a member joining, or still there

    def carry(self, sender, frame):
        """frame from sender (an address, or the station's Radio) to every other
        member. Both threads send: the hub's, and the station's."""
        with self.lock:
            self.carried += 1
            x, y = self._place(sender)
            for member, (mx, my) in self.places.items():
                if member == sender or self.random.random() < self.loss:
                    continue
                rssi = rssi_at(math.hypot(mx - x, my - y))
                if isinstance(member, Radio):
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
