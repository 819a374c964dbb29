# A virtual field on one machine: the radios of `cran vbadge --field NAME` badges, of
# `cran vchip --field NAME` chips and of the station (`cran field --virtual NAME`) joined
# over UDP on loopback through a hub, which carries every frame as the air and the
# radios' MAC layer would: lost at a given rate, at a signal strength from each member's
# place on a 30 m square (virtual/micropython/air.py's rssi_at), only to radios listening on the
# sender's channel, a unicast frame only to the chip of that MAC (the sender told
# whether it was acknowledged), one at an LR rate only to a radio whose protocol has LR.
# The hub runs in the station's process; the members find it by the field's name (a port
# file, locked while the hub runs: one air a name). Datagrams (virtual/micropython/espnow.py's):
# b"J" a member joins or says what changed (its MACs, channel, protocols, whether it listens;
# then "X,Y", where it stands, in m, `cran vbadge --at`), b"F" a frame it sends; to a
# member, b"F" a frame it hears and b"A" the answer to a unicast frame it sent.
import hashlib
import math
import os
import random
import select
import socket
import struct
import sys
import tempfile
import threading
import time

from host_tools import CommandError
from host_tools.virtual.micropython.air import MAX_FRAME, RX_BUFFER, Radio, rssi_at

try:
    import fcntl
except ImportError:   # Windows: no lock, a second air of the same name takes the file
    fcntl = None

FIELD_SIDE_M = 30.0
# How a virtual badge's espnow (virtual/micropython/espnow.py) finds the hub ...
ENV = "CRAN_FIELD_PORT"
AT_ENV = "CRAN_FIELD_AT"  # ... and says where it stands ("X,Y", in m)
MAX_PLACE_M = 1000.0
# A member of another process that has sent nothing for this long has left (its process
# ended: a badge in a radio game says it is here at each window, a station every second):
# the air stops carrying frames to it and counting it, until it sends again.
GONE_S = 30
# Another process's badge (a `cran vbadge`) on a busy laptop is late: it opens its window
# after the time it set, and answers after it. A repeat of this process's (a command's,
# a healer's search or offer: copies over a period and a window) reaches every badge of
# a real field in a window; a window of a late member opened within LATE_WINDOW_S of a
# repeat's last copy, which it missed, is the one it had in the span: it is given the
# last copy then. A member owing an answer to a repeat (a healer's search) that it heard
# answers within ANSWER_WAIT_S, stamped as it would have come on time (answer_ms after
# the copy it heard): Hub.awaits() says the asker may wait for it. A real badge hears no
# more than it would: every badge in range has a window in a repeat's span.
LATE_WINDOW_S = 0.9
ANSWER_WAIT_S = 1.0
# Linux's SO_TIMESTAMPNS (not in Python's socket module): the kernel stamps each datagram
# as it arrives, so a frame's time on the air is when it came, not when the hub's thread
# (a process on a busy laptop) got to it.
_SO_TIMESTAMPNS = 35 if sys.platform.startswith("linux") else None


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


def member_env(name, at=None):
    """What a virtual badge's process is given to join the running field `name`
    (virtual/micropython/espnow.py reads it), standing at "X,Y" (or where the hub puts it) ->
    {variable: value}. CommandError when nobody runs the field or the place is not one."""
    env = {ENV: str(hub_port(name))}
    if at is not None:
        if place(at) is None:
            raise CommandError("--at %s: X,Y in metres, each from 0 to %d (e.g. 12,5.5)"
                               % (at, MAX_PLACE_M))
        env[AT_ENV] = at
    return env


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
        self.sock.setblocking(False)   # read by drain(), when select says so
        self.port = self.sock.getsockname()[1]
        self.start_s = time.monotonic()   # the air's clock (now_ms) starts here
        self.stamped = False
        if _SO_TIMESTAMPNS is not None:
            try:
                self.sock.setsockopt(socket.SOL_SOCKET, _SO_TIMESTAMPNS, 1)
                self.stamped = True
            except OSError:
                pass   # a kernel without it: a frame's time is when it is carried
        self.places = {}    # member address (or a Radio of this process) -> (x, y)
        self.states = {}    # member address -> its Radio state (what its last b"J" said)
        self.macs = {}      # a Radio of this process -> its MAC
        self.heard = {}     # member address -> when it last sent anything (monotonic s)
        self.lock = threading.Lock()
        self.carried = 0
        self.on_carry = None   # on_carry(frame, at): told of every frame, as carried
        # A late member's part (LATE_WINDOW_S): each radio of this process's last frame
        # sent, as _Repeat. answers: (asks(frame) -> whether a frame wants an answer of
        # every badge near enough, near_dbm, answer_ms), set by a crowd (track_answers).
        self.repeats = {}
        self.answers = None
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

    def radio(self, x=None, y=None, clock=None):
        """A radio of this process on this air, at (x, y) or a random spot:
        virtual/micropython/air.py's, as strict (cran.radio.link's driver methods): the station's.
        With clock (-> ms, the time stamped on what arrives), a StampedRadio: a crowd's badge's."""
        with self.lock:
            where = (x, y) if x is not None else self._spot()
            r = Radio(self, *where) if clock is None else StampedRadio(self, *where, clock)
            self.places[r] = (r.x, r.y)
            # A locally administered address of its own: 02:00:00:00 and its number.
            self.macs[r] = b"\x02\x00\x00\x00" + struct.pack(">H", len(self.macs) + 1)
        return r

    def now_ms(self):
        """The air's clock: ms since the hub was made (a frame's `at`)."""
        return int((time.monotonic() - self.start_s) * 1000)

    def _receive(self):
        """-> (datagram, its sender, when it arrived on the air's clock or None);
        BlockingIOError when none is waiting."""
        if not self.stamped:
            data, addr = self.sock.recvfrom(2048)
            return data, addr, None
        data, extra, _, addr = self.sock.recvmsg(2048, socket.CMSG_SPACE(16))
        for level, kind, value in extra:
            if level == socket.SOL_SOCKET and kind == _SO_TIMESTAMPNS and len(value) >= 16:
                s, ns = struct.unpack_from("qq", value)   # the wall clock's: made ours
                ago_s = time.time() - (s + ns / 1e9)
                return data, addr, max(0, int((time.monotonic() - ago_s - self.start_s)
                                              * 1000))
        return data, addr, None

    def _serve(self):
        while self.running:
            try:
                select.select([self.sock], [], [], 1)
            except (OSError, ValueError):
                return   # closed
            if not self.running:
                return   # close()'s own datagram
            self.drain()

    def drain(self):
        """Every datagram waiting on the air's socket read and carried, in the hub's lock
        (taken by the hub's thread, or a crowd's before it steps its badges: then all that
        came before, stamped earlier than now, is on their radios, none read but not yet
        carried)."""
        with self.lock:
            self._forget_the_gone()
            while True:
                try:
                    data, addr, at = self._receive()
                except OSError:   # nothing more waiting (BlockingIOError), or closed
                    return
                self.heard[addr] = time.monotonic()
                if data[:1] == b"F" and len(data) > _SENT_HEAD:
                    self._sent(addr, data, at)
                elif data[:1] == b"J" and len(data) >= 1 + _STATE.size:
                    before = self.states.get(addr)
                    self.states[addr] = _STATE.unpack_from(data, 1)
                    said = place(data[1 + _STATE.size:].decode("ascii", "replace"))
                    if said is not None:   # where it stands, if it says so
                        self.places[addr] = said
                    else:
                        self._place(addr)
                    was = bool(before and before[4])
                    if self.states[addr][4] and not was:
                        self._late_window(addr)
                    elif was and not self.states[addr][4]:
                        self._window_closed(addr)

    def _sent(self, addr, data, at):
        seq, dest, channel, rate, flags = _FRAME.unpack_from(data, 1)
        frame = data[_SENT_HEAD:]
        if not 0 < len(frame) <= MAX_FRAME:
            return
        # The sender's address as its own interface says it: the access point's when
        # its peer is on that interface (flags bit 1).
        state = self.states.get(addr)
        src = (state[1] if flags & 2 else state[0]) if state else bytes(6)
        at = self._answer_time(addr, at)
        acked = self._carry(addr, frame, at, _Sent(src, dest, channel, rate,
                                                   data[1 + _FRAME.size - 1:_SENT_HEAD]))
        if _unicast(dest):
            try:
                self.sock.sendto(b"A" + struct.pack(">HB", seq, 1 if acked else 0), addr)
            except OSError:
                pass   # the sender gone

    def carry(self, sender, frame, at=None):
        """frame from sender (an address, or a Radio of this process) to every other
        member; at: when it was sent, on the air's clock (now_ms; None: now). Several
        threads send: the hub's, the station's, the crowd's. A Radio of this process
        broadcasts on channel 1 at the default rate, as cran.hal.espnow does."""
        with self.lock:
            self._carry(sender, frame, at, _Sent(self.macs.get(sender, bytes(6))))

    def _carry(self, sender, frame, at, how):
        """-> whether a unicast frame reached the chip it is for."""
        self.carried += 1
        if self.on_carry is not None:
            self.on_carry(frame, at)
        x, y = self._place(sender)
        repeat = self._repeat(sender, frame, at, how) if isinstance(sender, Radio) else None
        reached = False
        for member, (mx, my) in self.places.items():
            if member == sender or not self._hears(member, how):
                continue
            if self.random.random() < self.loss:
                continue
            reached = True
            rssi = rssi_at(math.hypot(mx - x, my - y))
            if isinstance(member, Radio):
                member.arrive(frame, rssi, at)
            else:
                self._send_to(member, frame, rssi, how)
                if repeat is not None:
                    repeat.reach(member, at if at is not None else self.now_ms())
        return reached and _unicast(how.dest)

    def _send_to(self, member, frame, rssi, how):
        try:
            self.sock.sendto(b"F" + bytes([rssi & 0xFF]) + how.src + how.sealed + frame,
                             member)
        except OSError:
            pass   # a member gone, or not reading: the air does not care

    # ---- late members: another process's badge, late on a busy laptop ----------------

    def track_answers(self, asks, near_dbm, answer_ms):
        """A crowd's healers wait for the answers of other processes' badges near enough
        (near_dbm) to a frame that asks for one (asks(frame)), answered on time
        answer_ms after the copy heard (see LATE_WINDOW_S)."""
        self.answers = (asks, near_dbm, answer_ms)

    def _repeat(self, sender, frame, at, how):
        """The repeat sender (a radio of this process) is sending, this copy counted."""
        stamp = at if at is not None else self.now_ms()
        repeat = self.repeats.get(sender)
        if repeat is None or repeat.frame != frame:
            owed = set()
            if self.answers is not None and self.answers[0](frame):
                x, y = self._place(sender)
                owed = {m for m, (mx, my) in self.places.items() if not isinstance(
                    m, Radio) and rssi_at(math.hypot(mx - x, my - y)) >= self.answers[1]}
            repeat = self.repeats[sender] = _Repeat(sender, frame, how, owed)
        repeat.copies += 1
        repeat.last_stamp = stamp
        repeat.last_s = time.monotonic()
        return repeat

    def _late_window(self, member):
        """member (another process's) opened its window: a repeat it missed, whose last
        copy went within LATE_WINDOW_S, is given it now (its window was in the span)."""
        for repeat in list(self.repeats.values()):
            late_s = time.monotonic() - repeat.last_s
            if (repeat.copies < 2 or member in repeat.reached or late_s > LATE_WINDOW_S
                    or not self._hears(member, repeat.how)):
                continue
            if self.random.random() < self.loss:
                continue
            x, y = self._place(repeat.sender)
            mx, my = self._place(member)
            self._send_to(member, repeat.frame, rssi_at(math.hypot(mx - x, my - y)),
                          repeat.how)
            repeat.reach(member, repeat.last_stamp)

    def _window_closed(self, member):
        for repeat in self.repeats.values():
            if member in repeat.reached:
                repeat.owed.discard(member)   # it heard, and did not answer

    def _answer_time(self, member, at):
        """A frame of member's just came (at: when): the answer it owed a repeat it
        heard is stamped as it would have come on time."""
        if self.answers is None:
            return at
        for repeat in self.repeats.values():
            if member in repeat.owed and member in repeat.reached:
                repeat.owed.discard(member)
                on_time = repeat.reached[member][0] + self.answers[2]
                at = on_time if at is None else min(at, on_time)
        return at

    def awaits(self, sender):
        """Whether a badge near enough to sender's last repeat (a frame asking for an
        answer) may still answer it: one that heard it, within ANSWER_WAIT_S; one that
        did not yet, within LATE_WINDOW_S of the last copy (its window may be late)."""
        with self.lock:
            repeat = self.repeats.get(sender)
            if repeat is None or not repeat.owed:
                return False
            now = time.monotonic()
            for member in repeat.owed:
                heard = repeat.reached.get(member)
                if heard is not None and now - heard[1] <= ANSWER_WAIT_S:
                    return True
                if heard is None and now - repeat.last_s <= LATE_WINDOW_S:
                    return True
            return False

    def _hears(self, member, how):
        """Whether member's radio takes this frame: on its channel, at a rate its
        protocol has, for one of its addresses (or for all)."""
        lr = how.rate in _LR_RATES
        if isinstance(member, Radio):   # this process's: cran.hal.espnow's defaults
            return (how.channel == 1 and not lr
                    and (not _unicast(how.dest) or how.dest == self.macs.get(member)))
        state = self.states.get(member)
        if state is None:
            return False   # not yet told what it is
        sta, ap, channel, hears, listening, up = state
        if not listening or channel != how.channel or not hears & (2 if lr else 1):
            return False
        return (not _unicast(how.dest) or (how.dest == sta and up & 1)
                or (how.dest == ap and up & 2))

    def _forget_the_gone(self):
        gone_before = time.monotonic() - GONE_S
        for member in [m for m, t in self.heard.items() if t < gone_before]:
            del self.heard[member]
            self.places.pop(member, None)
            self.states.pop(member, None)

    def members(self):
        with self.lock:
            self._forget_the_gone()
            return len(self.places)

    def close(self):
        self.running = False
        # The thread, waiting in select, would hold the port past the socket's close:
        # woken and ended first, the field's port is free for an air started again.
        self.sock.sendto(b"", ("127.0.0.1", self.port))
        self.thread.join(2)
        self.sock.close()
        try:
            os.remove(self.path)
        except OSError:
            pass
        os.close(self.held)   # the name free again


_BROADCAST = b"\xff" * 6
_LR_RATES = (41, 42)   # espnow.RATE_LORA_250K, RATE_LORA_500K
# A member's b"J": its station and access-point MACs, channel, protocols heard (bit 0
# 802.11b/g/n, bit 1 LR), listening, interfaces up (bit 0 station, bit 1 access point).
_STATE = struct.Struct(">6s6sBBBB")
# A member's b"F": its number, to whom, channel, rate, flags (bit 0 encrypted, bit 1 sent
# from the access point), then the key tag (4 bytes) and the message.
_FRAME = struct.Struct(">H6sBBB")
_SENT_HEAD = 1 + _FRAME.size + 4


def _unicast(mac):
    return not mac[0] & 1


def join_datagram(at="", mac=b"\x02\x00\x00\x01\x00\x00"):
    """What a member says as it joins (a program of the host's own, as tests are): a
    listening station interface on channel 1, hearing 802.11b/g/n, at "X,Y" (or where
    the hub puts it)."""
    ap = mac[:5] + bytes([(mac[5] + 1) & 0xFF])
    return b"J" + _STATE.pack(mac, ap, 1, 1, 1, 1) + at.encode()


def frame_datagram(frame, dest=_BROADCAST, seq=0):
    """A frame a member sends (on channel 1 at the default rate, not encrypted)."""
    return b"F" + _FRAME.pack(seq, dest, 1, 0, 0) + bytes(4) + frame


class _Sent:
    """How a frame went out: its sender's MAC, to whom, channel, rate, and its seal
    (encrypted or not, and the key tag) as the receiver is given it."""

    def __init__(self, src, dest=_BROADCAST, channel=1, rate=0, sealed=bytes(5)):
        self.src = src
        self.dest = dest
        self.channel = channel
        self.rate = rate
        self.sealed = bytes([sealed[0] & 1]) + sealed[1:]


class _Repeat:
    """The last frame a radio of this process sent, as copies go (a repeat: a command,
    a healer's search or offer): which members of other processes it reached, with the
    copy's stamp and when (monotonic s); the near ones that owe an answer to it."""

    def __init__(self, sender, frame, how, owed):
        self.sender = sender
        self.frame = frame
        self.how = how
        self.copies = 0
        self.last_stamp = 0
        self.last_s = 0.0
        self.reached = {}
        self.owed = owed

    def reach(self, member, stamp):
        if member not in self.reached:
            self.reached[member] = (stamp, time.monotonic())


class StampedRadio(Radio):
    """A hub radio for a badge stepped on a clock that follows real time, late at
    times (a crowd's thread, host_tools/field/crowd.py): `now` is the badge's time, set before
    each step, and what arrives is stamped with the clock's time (or the sender's own
    `now`), then heard or not by when it came: heard if the radio was on at that time,
    as read at the step that reaches it. A thread that runs late then hears what the
    badge would have heard on time, not what came while it was behind; and it hears
    nothing early: a frame stamped after its `now` waits for it. Strict as
    virtual/micropython/air.py's: a receive buffer of RX_BUFFER bytes between two reads drops what
    does not fit."""

    def __init__(self, hub, x, y, clock):
        super().__init__(hub, x, y)
        self.clock = clock
        self.now = 0
        self.on_since = None
        self.coming = []    # (at, frame, rssi), in the order they came
        self.guard = threading.Lock()   # the hub's thread adds, the crowd's takes

    def on(self):
        super().on()
        self.on_since = self.now
        self._keep(lambda at: at >= self.now)   # what came while it was off was not heard

    def off(self):
        super().off()
        self.on_since = None
        self._keep(lambda at: at > self.now)    # what it held is gone with it

    def send(self, peer, frame):
        if not self.active:
            raise OSError("ESP-NOW: the radio is off")
        if len(frame) > MAX_FRAME:
            raise ValueError("ESP-NOW: %d bytes: at most %d" % (len(frame), MAX_FRAME))
        self.air.carry(self, bytes(frame), self.now)

    def arrive(self, frame, rssi, at=None):
        with self.guard:
            self.coming.append((self.clock() if at is None else at, frame, rssi))

    def recv(self):
        if not self.inbox and self.active:
            with self.guard:
                due = sorted((c for c in self.coming if c[0] <= self.now),
                             key=lambda c: c[0])
                self.coming = [c for c in self.coming if c[0] > self.now]
            held = 0
            for at, frame, rssi in due:
                if at >= self.on_since and held + len(frame) <= RX_BUFFER:
                    self.inbox.append((frame, rssi))
                    held += len(frame)
        return self.inbox.pop(0) if self.inbox else None

    def _keep(self, test):
        with self.guard:
            self.coming = [c for c in self.coming if test(c[0])]
