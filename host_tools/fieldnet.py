# A virtual field on one machine: the radios of `cran vbadge --field NAME` badges and of
# the station (`cran field --virtual NAME`) joined over UDP on loopback through a hub,
# which carries every frame to every other member as the air would: lost at a given
# rate, at a signal strength from each member's place on a 30 m square (vhw/air.py's
# rssi_at). The hub runs in the station's process; the members find it by the field's
# name (a port file, locked while the hub runs: one air a name). Datagrams: b"J" a
# member joins (or is still there), b"J" + b"X,Y" one that says where it stands (in m,
# `cran vbadge --at`), b"F" + frame a member sends; to a member, b"F" + rssi (a signed
# byte) + frame.
import hashlib
import math
import os
import random
import socket
import tempfile
import threading
import time

from host_tools import CommandError
from host_tools.vhw.air import MAX_FRAME, Radio, rssi_at

try:
    import fcntl
except ImportError:   # Windows: no lock, a second air of the same name takes the file
    fcntl = None

FIELD_SIDE_M = 30.0
ENV = "CRAN_FIELD_PORT"   # how a virtual badge's espnow (vhw/espnow.py) finds the hub
AT_ENV = "CRAN_FIELD_AT"  # ... and says where it stands ("X,Y", in m)
MAX_PLACE_M = 1000.0


def port_file(name):
    if not name or [c for c in name if not (c.isalnum() or c in "-_")]:
        raise CommandError("a field's name is letters, digits, '-' and '_': %r" % name)
    return os.path.join(tempfile.gettempdir(), "cran-field-%s.port" % name)


def place(text):
    """"X,Y" (metres, 0 to 1000) -> (x, y), or None when it is not one."""
    try:
        x, y = (float(v) for v in text.split(","))
    except ValueError:
        return None
    ok = 0 <= x <= MAX_PLACE_M and 0 <= y <= MAX_PLACE_M
    return (x, y) if ok else None


def _own_port(name):
    """The UDP port a field's hub takes when it is free, from its name (20000-39999)."""
    return 20000 + int.from_bytes(hashlib.sha256(name.encode()).digest()[:4], "big") % 20000


def _take_name(name):
    """The field's port file, opened and locked for as long as its hub runs -> its
    descriptor. CommandError when another hub holds it (one left by a hub that died is
    taken over: its lock went with it)."""
    fd = os.open(port_file(name), os.O_RDWR | os.O_CREAT, 0o644)
    if fcntl is None:
        return fd
    for _ in range(20):   # a member looking it up holds it a moment (hub_port)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return fd
        except OSError:
            time.sleep(0.01)
    os.close(fd)
    raise CommandError("virtual field %r is in use: another `cran air --field %s` or "
                       "`cran field --virtual %s` holds its air; end it, or give another "
                       "name" % (name, name, name))


def hub_port(name):
    """The running field's hub port -> int; CommandError when nobody runs it (its file
    left by a hub that died is not locked any more)."""
    try:
        fd = os.open(port_file(name), os.O_RDONLY)
    except OSError:
        fd = None
    try:
        if fd is None or _unheld(fd):
            raise ValueError(name)
        return int(os.read(fd, 16))
    except ValueError:
        raise CommandError("no virtual field %r here: start its air first, `cran air "
                           "--field %s` (or `cran field --virtual %s`)"
                           % (name, name, name)) from None
    finally:
        if fd is not None:
            os.close(fd)


def _unheld(fd):
    if fcntl is None:
        return False   # no locks here: the file is taken at its word
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except OSError:
        return False   # a hub holds it
    return True


class Hub:
    """The field's air, in the station's process. radio(): the station's own member."""

    def __init__(self, name, loss=0.0, seed=None):
        self.name = name
        self.loss = loss
        self.random = random.Random(seed)
        self.path = port_file(name)
        self.held = _take_name(name)
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        try:   # the field's own port: an air started again finds its badges still there
            self.sock.bind(("127.0.0.1", _own_port(name)))
        except OSError:   # taken by another program, or another field's
            self.sock.bind(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.places = {}    # member address (or a Radio of this process) -> (x, y)
        self.lock = threading.Lock()
        self.carried = 0
        self.on_carry = None   # on_carry(frame): told of every frame, as carried
        os.ftruncate(self.held, 0)
        os.lseek(self.held, 0, os.SEEK_SET)
        os.write(self.held, str(self.port).encode())
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

    def radio(self, x=None, y=None):
        """A radio of this process on this air, at (x, y) or a random spot: vhw/air.py's,
        as strict (cran.link's driver methods): the station's, a crowd's badges'."""
        with self.lock:
            r = Radio(self, *((x, y) if x is not None else self._spot()))
            self.places[r] = (r.x, r.y)
        return r

    def _serve(self):
        while self.running:
            try:
                data, addr = self.sock.recvfrom(2048)
            except OSError:
                return   # closed
            if not self.running:
                return   # close()'s own datagram
            if data[:1] == b"F" and 0 < len(data) - 1 <= MAX_FRAME:
                self.carry(addr, data[1:])
            else:   # a member joining, or still there, perhaps saying where
                said = place(data[1:].decode("ascii", "replace")) if data[:1] == b"J" \
                    else None
                with self.lock:
                    if said is not None:
                        self.places[addr] = said
                    else:
                        self._place(addr)

    def carry(self, sender, frame):
        """frame from sender (an address, or a Radio of this process) to every other
        member. Several threads send: the hub's, the station's, the crowd's."""
        with self.lock:
            self.carried += 1
            if self.on_carry is not None:
                self.on_carry(frame)
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
        # The thread, waiting in recvfrom, would hold the port past the socket's close:
        # woken and ended first, the field's port is free for an air started again.
        self.sock.sendto(b"", ("127.0.0.1", self.port))
        self.thread.join(2)
        self.sock.close()
        try:
            os.remove(self.path)
        except OSError:
            pass
        os.close(self.held)   # the name free again
