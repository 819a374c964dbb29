# Virtual `espnow` (MicroPython's ESP32 API, as cran.hal.espnow uses it): frames out are
# kept in `sent` for the test or the field; frames in come by deliver(). Strict as the
# chip: nothing sent or heard unless both the station interface and ESP-NOW are active,
# a frame sent only to a registered peer, at most 250 bytes and 20 peers, a receive
# buffer (rxbuf, 526 bytes) that drops what does not fit, `peers_table` updated as
# frames are read.
import network

MAX_DATA_LEN = 250
MAX_TOTAL_PEER_NUM = 20
RXBUF = 526

sent = []       # (peer, frame) in order; the test or the field's hub reads and clears it
dropped = 0     # frames that came while the receive buffer was full
_the = None


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
        return self._active

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
        sent.append((bytes(mac), bytes(msg)))
        return True

    def recv(self, timeout_ms=None):
        self._ready()
        if timeout_ms != 0:
            raise ValueError("the virtual espnow reads without waiting: recv(0)")
        if not self._inbox:
            return None, None
        mac, msg, rssi, at = self._inbox.pop(0)
        self.peers_table[mac] = [rssi, at]
        return mac, msg


def deliver(mac, msg, rssi=-60):
    """A frame from another badge, heard now if this one's radio is listening. -> whether
    it was heard."""
    global dropped
    import time
    the = _the
    if the is None or not the._active or not network.is_active():
        return False
    if sum(len(m) for _, m, _, _ in the._inbox) + len(msg) > RXBUF:
        dropped += 1
        return False
    the._inbox.append((bytes(mac), bytes(msg), rssi, time.ticks_ms()))
    return True


def _radio_off():
    if _the is not None:
        _the._inbox = []


def reset():
    """A new chip: ESP-NOW off, nothing sent or heard."""
    global _the, dropped
    _the = None
    dropped = 0
    del sent[:]
    network.reset()
