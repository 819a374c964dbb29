# Virtual `espnow` (MicroPython's ESP32 API, as cran.hal.espnow uses it): frames out are
# kept in `sent` for the test; frames in come by deliver(). In a virtual field
# ($CRAN_FIELD_PORT: host_tools/fieldnet.py's hub, on loopback) they also go out to the
# hub and come in from it, the badge standing where $CRAN_FIELD_AT says ("X,Y" in m;
# else the hub picks a spot). Strict as the chip: nothing sent or heard unless both the
# station interface and ESP-NOW are active, a frame sent only to a registered peer, at
# most 250 bytes and 20 peers, a receive buffer (rxbuf, 526 bytes unless config() says
# another size before active(True)) that drops what does not fit, `peers_table` updated
# as frames are read, stats() counting what was sent, heard and dropped.
import os

import machine
import network

MAX_DATA_LEN = 250
MAX_TOTAL_PEER_NUM = 20
RXBUF = 526

sent = []       # (peer, frame) in order, as machine.history says; the test reads it
dropped = 0     # frames that came while the receive buffer was full
_the = None
_field = None   # (socket, the hub's address, its join datagram) in a virtual field
# The chip's: made here, with the virtual hardware, not when the firmware makes its
# ESPNow (on a badge they are C, not its heap).
_config = {"rxbuf": RXBUF, "timeout_ms": 300000, "rate": None}
_rxbuf = [RXBUF]           # the receive buffer made by the last active(True)
_stats = [0, 0, 0, 0, 0]   # as stats() gives them


def _join_field():
    global _field
    port = os.getenv("CRAN_FIELD_PORT")
    if not port or _field is not None:
        return
    import socket
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.setblocking(False)
    _field = (sock, socket.getaddrinfo("127.0.0.1", int(port))[0][-1],
              b"J" + (os.getenv("CRAN_FIELD_AT") or "").encode())


def _to_field(data):
    if _field is not None:
        try:
            _field[0].sendto(data, _field[1])
        except OSError:
            pass   # no hub (the station stopped): the air is empty


_STILL_HERE_MS = 1000
_joined = [None]   # when it last told the hub it is here (ticks ms)


def _from_field(keep):
    """Datagrams the hub carried here: into the inbox if keep (the radio listening).
    Listening, it says it is still here every second: an air started again (a hub
    knows its members by what they send) finds a station that never turns it off."""
    if _field is None:
        return
    import time
    now = time.ticks_ms()
    if keep and (_joined[0] is None or time.ticks_diff(now, _joined[0]) >= _STILL_HERE_MS):
        _joined[0] = now
        _to_field(_field[2])
    while True:
        try:
            data = _field[0].recv(300)
        except OSError:
            return   # nothing more (EAGAIN)
        if keep and data[:1] == b"F" and len(data) > 2:
            rssi = data[1] - 256 if data[1] > 127 else data[1]
            deliver(b"\x00" * 6, data[2:], rssi)


def _error(name):
    return OSError(-1, name)


class ESPNow:
    def __new__(cls):
        global _the
        if _the is None:   # a singleton, as on the chip
            _the = object.__new__(cls)
            _the._active = False
            _the._peers = []
            _the._inbox = []
            _the.peers_table = {}
        return _the

    def __init__(self):
        pass

    def active(self, on=None):
        if on is None:
            return self._active
        self._active = bool(on)
        if not on:   # deinit: peers and what was buffered are gone
            self._peers = []
            self._inbox = []
        else:
            _rxbuf[0] = _config["rxbuf"]   # the buffer is made now, as on the chip
            _join_field()
            _from_field(False)   # what came while it was off was never heard
            if _field is not None:   # here, and listening: the hub knows where to send
                _to_field(_field[2])
        return self._active

    def config(self, *name, **values):
        """config("rxbuf") -> its value; config(rxbuf=N, timeout_ms=..., rate=...) sets
        them (rxbuf takes effect at the next active(True), as on the chip)."""
        if name:
            if len(name) != 1 or values or name[0] not in _config:
                raise ValueError("unknown config param")
            return _config[name[0]]
        for key, value in values.items():
            if key not in _config:
                raise TypeError("unexpected keyword argument '%s'" % key)
            _config[key] = value
        return None

    def stats(self):
        """(tx_pkts, tx_responses, tx_failures, rx_packets, rx_dropped), as the chip's."""
        return tuple(_stats)

    def _ready(self):
        if not self._active:
            raise _error("ESP_ERR_ESPNOW_NOT_INIT")
        if not network.is_active():
            raise _error("ESP_ERR_ESPNOW_IF")

    def add_peer(self, mac):
        self._ready()
        if len(mac) != 6:
            raise ValueError("invalid peer")
        if mac in self._peers:
            raise _error("ESP_ERR_ESPNOW_EXIST")
        if len(self._peers) >= MAX_TOTAL_PEER_NUM:
            raise _error("ESP_ERR_ESPNOW_FULL")
        self._peers.append(bytes(mac))

    def send(self, mac, msg, sync=True):
        self._ready()
        if mac not in self._peers:
            raise _error("ESP_ERR_ESPNOW_NOT_FOUND")
        if not 0 < len(msg) <= MAX_DATA_LEN:
            raise ValueError("msg too long")
        _stats[0] += 1
        if machine.history >= 0:   # kept as the other parts keep theirs (machine.history)
            sent.append((bytes(mac), bytes(msg)))
            if machine.history and len(sent) > machine.history:
                del sent[0]
        _to_field(b"F" + msg)
        return True

    def recv(self, timeout_ms=None):
        self._ready()
        if timeout_ms != 0:
            raise ValueError("the virtual espnow reads without waiting: recv(0)")
        _from_field(True)
        if not self._inbox:
            return None, None
        mac, msg, rssi, at = self._inbox.pop(0)
        self.peers_table[mac] = [rssi, at]
        return mac, msg

    def irecv(self, timeout_ms=None):
        """recv() into one list kept for every call, as the chip's "callee-owned" tuple
        (its message overwritten by the next call: read it before)."""
        mac, msg = self.recv(timeout_ms)
        if msg is None:
            return _NONE
        _OWNED[0], _OWNED[1] = mac, msg
        return _OWNED


_NONE = (None, None)
_OWNED = [None, None]


def deliver(mac, msg, rssi=-60):
    """A frame from another badge, heard now if this one's radio is listening. -> whether
    it was heard."""
    global dropped
    import time
    the = _the
    if the is None or not the._active or not network.is_active():
        return False
    if sum(len(m) for _, m, _, _ in the._inbox) + len(msg) > _rxbuf[0]:
        dropped += 1
        _stats[4] += 1
        return False
    the._inbox.append((bytes(mac), bytes(msg), rssi, time.ticks_ms()))
    _stats[3] += 1
    return True


def _radio_off():
    _from_field(False)   # what came while it listened no more is lost, as on the chip
    if _the is not None:
        _the._inbox = []


def reset():
    """A new chip: ESP-NOW off, nothing sent or heard."""
    global _the, dropped
    _the = None
    dropped = 0
    _config.update(rxbuf=RXBUF, timeout_ms=300000, rate=None)
    _rxbuf[0] = RXBUF
    _stats[:] = [0, 0, 0, 0, 0]
    del sent[:]
    network.reset()
