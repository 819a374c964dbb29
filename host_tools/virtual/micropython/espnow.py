# Virtual `espnow` (MicroPython's ESP32 API: its C _espnow and the port's espnow.py):
# frames out are kept in `sent` for the test; frames in come by deliver(). In a virtual
# field ($CRAN_FIELD_PORT: host_tools/field/fieldnet.py's hub, on loopback) they also go out to
# the hub and come in from it, the chip standing where $CRAN_FIELD_AT says ("X,Y" in m;
# else the hub picks a spot). The hub is the air and the radios' MAC layer: it carries a
# frame to the chips on the sender's channel whose radio listens, a unicast one to the
# chip of that MAC only (and tells the sender whether it was acknowledged), one at an LR
# rate only to a radio whose protocol has LR. Held to the ESP-IDF's and MicroPython's
# documented behaviour, as strict as the chip:
# - nothing sent or heard unless ESP-NOW is active and the peer's interface is (network);
#   a frame of 1 to 250 bytes, sent only to a registered peer (or to all of them); a peer
#   on another channel than the radio's refused (ESP_ERR_ESPNOW_CHAN); 20 peers, 6 of
#   them encrypted; a broadcast peer never encrypted; a PMK or LMK of 16 bytes;
# - errors as check_esp_err raises them: OSError(-code, "ESP_ERR_ESPNOW_...");
# - an encrypted frame is heard only by a chip that has its sender as a peer with the
#   same LMK, under the same PMK;
# - a receive buffer (rxbuf, 526 bytes unless config() says another size before
#   active(True)) that drops what does not fit, counted in stats()[4];
# - send(sync=True) waits for every peer's answer and says False if one did not
#   acknowledge; stats() counts what was sent, answered, failed, heard and dropped;
# - recv/irecv/recvinto wait up to their timeout (config timeout_ms, 5 minutes, when
#   None); `peers_table` updated as frames are read; irq(callback) runs the callback
#   through MicroPython's scheduler when a frame arrives (on a field, a thread of its own
#   watches the air as the chip's Wi-Fi task does: the program's own loop need not);
# - the object is pollable (ioctl MP_STREAM_POLL), so MicroPython's asyncio waits on it,
#   as the port's aioespnow does (micropython/aioespnow.py).
import os
import struct
import sys

import machine
import network

MAX_DATA_LEN = 250
ADDR_LEN = 6
KEY_LEN = 16
MAX_TOTAL_PEER_NUM = 20
MAX_ENCRYPT_PEER_NUM = 6
RXBUF = 526
# The ESP-IDF's wifi_phy_rate_t values, as the port names them.
RATE_1M = 0
RATE_2M = 1
RATE_5M = 2
RATE_11M = 3
RATE_24M = 9
RATE_12M = 10
RATE_6M = 11
RATE_54M = 12
RATE_LORA_250K = 41
RATE_LORA_500K = 42
_LR_RATES = (RATE_LORA_250K, RATE_LORA_500K)
_RATES = tuple(range(0, 4)) + tuple(range(5, 32)) + _LR_RATES
_DEFAULT_PMK = b"PMK1234567890123"   # the IDF's own, until set_pmk()
_BROADCAST = b"\xff" * 6
# The chip's MAC layer answers a unicast frame within a few ms. The hub answers for it,
# over loopback, from another process on a machine that may be busy: wait longer than
# the port's 100 ms before taking silence for a failure.
_ANSWER_WAIT_MS = 2000
_POLL_RD = 1
_POLL_WR = 4

# ESP_ERR_ESPNOW_BASE (ESP_ERR_WIFI_BASE + 100) and the codes after it.
_CODES = {"NOT_INIT": 1, "ARG": 2, "NO_MEM": 3, "FULL": 4, "NOT_FOUND": 5, "INTERNAL": 6,
          "EXIST": 7, "IF": 8, "CHAN": 9}

sent = []       # (peer, frame) in order, as machine.history says; the test reads it
dropped = 0     # frames that came while the receive buffer was full
_field = None   # (socket, the hub's address, where it stands) in a virtual field
# The chip's: made here, with the virtual hardware, not when the firmware makes its
# ESPNow (on a badge they are C, not its heap).
_config = {"rxbuf": RXBUF, "timeout_ms": 300000}
_rxbuf = [RXBUF]           # the receive buffer made by the last active(True)
_stats = [0, 0, 0, 0, 0]   # as stats() gives them
_on = [False]              # ESP-NOW active
_peers = []                # [mac, lmk or None, channel, ifidx, encrypt], in order
_inbox = []                # (mac, msg, rssi, ticks ms when heard)
_peers_table = {}          # every sender read: [rssi, ticks ms]
_pmk = [_DEFAULT_PMK]
_rate = [RATE_1M]
_irq = [None, None]        # the callback and its argument
_waiting = {}              # unicast frames sent (their number) whose answer has not come
_seq = [0]
_watch = [False, False]    # [a thread watches the air, a scheduled look is pending]


def _error(name):
    return OSError(-(0x3064 + _CODES[name]), "ESP_ERR_ESPNOW_" + name)


def _bytes_of(value, n):
    try:
        data = bytes(value)
    except TypeError:
        raise TypeError("object with buffer protocol required") from None
    if len(data) != n:
        raise ValueError("invalid buffer length")
    return data


def _find(mac):
    for peer in _peers:
        if peer[0] == mac:
            return peer
    return None


def _unicast(mac):
    return not mac[0] & 1   # broadcast and multicast addresses have the group bit


def _ready():
    if not _on[0]:
        raise _error("NOT_INIT")


def _listening():
    return _on[0] and network.is_active()


_Pollable = object
if sys.implementation.name == "micropython":   # a Python stream there, for select.poll
    import io
    _Pollable = io.IOBase


class ESPNow(_Pollable):
    """The chip's one ESP-NOW: every instance is a view of it (on the chip, the same
    object)."""

    def __init__(self):
        self.peers_table = _peers_table

    def active(self, on=None):
        if on is None:
            return _on[0]
        if on and not _on[0]:
            _rxbuf[0] = _config["rxbuf"]   # the buffer is made now, as on the chip
            _join_field()
            _from_field(False)   # what came while it was off was never heard
            _on[0] = True
        elif not on and _on[0]:   # deinit: peers and what was buffered are gone
            _on[0] = False
            del _peers[:]
            del _inbox[:]
            _waiting.clear()
            _stats[0] = _stats[1]   # as the port's deinit leaves its count
        _tell_air()
        return _on[0]

    def config(self, *name, **values):
        """config("rxbuf"|"timeout_ms") -> its value; config(rxbuf=N, timeout_ms=MS,
        rate=RATE) sets them (rxbuf takes effect at the next active(True), as on the
        chip; rate is write-only, as the IDF can't read it back)."""
        for key, value in values.items():
            if key not in ("rxbuf", "timeout_ms", "rate"):
                raise TypeError("unexpected keyword argument '%s'" % key)
            if not isinstance(value, int):
                raise TypeError("can't convert %s to int" % type(value).__name__)
            if key == "rate":
                if value not in _RATES:
                    raise OSError(-0x102, "ESP_ERR_INVALID_ARG")
                _rate[0] = value
            elif key == "rxbuf":
                if value >= 0:
                    _config["rxbuf"] = value
            else:
                _config["timeout_ms"] = value
        if not name:
            return None
        if len(name) != 1 or name[0] not in ("rxbuf", "timeout_ms"):
            raise ValueError("unknown config param")
        return _config[name[0]]

    def irq(self, callback, arg=None):
        if callback is not None and not callable(callback):
            raise ValueError("invalid handler")
        _irq[0] = callback
        _irq[1] = self if arg is None else arg   # the port's espnow.py passes the object
        if callback is not None:
            _watch_air()
        return None

    def stats(self):
        """(tx_pkts, tx_responses, tx_failures, rx_packets, rx_dropped), as the chip's."""
        return tuple(_stats)

    # ---- peers --------------------------------------------------------------------

    def set_pmk(self, pmk):
        _ready()
        _pmk[0] = _bytes_of(pmk, KEY_LEN)

    def add_peer(self, mac, lmk=None, channel=None, ifidx=None, encrypt=None):
        _ready()
        mac = _bytes_of(mac, ADDR_LEN)
        peer = [mac, None, 0, network.STA_IF, False]
        _update_peer(peer, lmk, channel, ifidx, encrypt)
        if _find(mac) is not None:
            raise _error("EXIST")
        if len(_peers) >= MAX_TOTAL_PEER_NUM:
            raise _error("FULL")
        if peer[4] and len([p for p in _peers if p[4]]) >= MAX_ENCRYPT_PEER_NUM:
            raise _error("FULL")
        _peers.append(peer)

    def mod_peer(self, mac, lmk=None, channel=None, ifidx=None, encrypt=None):
        _ready()
        peer = _find(_bytes_of(mac, ADDR_LEN))
        if peer is None:
            raise _error("NOT_FOUND")
        changed = list(peer)
        _update_peer(changed, lmk, channel, ifidx, encrypt)
        if changed[4] and not peer[4] and len(
                [p for p in _peers if p[4]]) >= MAX_ENCRYPT_PEER_NUM:
            raise _error("FULL")
        peer[:] = changed

    def del_peer(self, mac):
        _ready()
        peer = _find(_bytes_of(mac, ADDR_LEN))
        if peer is None:
            raise _error("NOT_FOUND")
        _peers.remove(peer)

    def get_peer(self, mac):
        _ready()
        peer = _find(_bytes_of(mac, ADDR_LEN))
        if peer is None:
            raise _error("NOT_FOUND")
        return _peer_info(peer)

    def get_peers(self):
        _ready()
        return tuple(_peer_info(p) for p in _peers if _unicast(p[0]))

    def peer_count(self):
        _ready()
        return len(_peers), len([p for p in _peers if p[4]])

    # ---- sending ------------------------------------------------------------------

    def send(self, mac, msg=None, sync=None):
        """send(mac, msg[, sync]) or send(msg): to every registered peer (broadcast and
        multicast ones left out). -> False when sync and a peer did not acknowledge."""
        _ready()
        if msg is None:
            mac, msg = None, mac
        sync = True if sync is None else bool(sync)
        try:
            msg = bytes(msg)
        except TypeError:
            raise TypeError("object with buffer protocol required") from None
        if mac:
            peer = _find(_bytes_of(mac, ADDR_LEN))
            if peer is None:
                raise _error("NOT_FOUND")
            targets = [peer]
        else:
            targets = [p for p in _peers if _unicast(p[0])]
        if not 0 < len(msg) <= MAX_DATA_LEN:
            raise _error("ARG")
        for peer in targets:
            if not network.interface_active(peer[3]):
                raise _error("IF")
            if peer[2] not in (0, network.channel()):
                raise _error("CHAN")
        if sync:
            _wait_for_answers()
        failed = _stats[2]
        for peer in targets:
            _transmit(peer, msg)
        if sync:
            _wait_for_answers()
        return not (sync and _stats[2] != failed)

    # ---- receiving ----------------------------------------------------------------

    def recvinto(self, data, timeout_ms=None):
        """The next frame into data ([peer, bytearray(250)] or with two more items for
        its rssi and time) -> its length, 0 when none came within timeout_ms."""
        _ready()
        if not isinstance(data, list) or len(data) < 2:
            raise ValueError("ESPNow.recvinto(): Invalid argument")
        buf = data[1]
        if not _holds_a_frame(buf):
            raise ValueError("invalid buffer length")
        got = _wait_for_frame(_config["timeout_ms"] if timeout_ms is None else timeout_ms)
        if got is None:
            return 0
        mac, msg, rssi, at = got
        entry = _peers_table.get(mac)
        if entry is None:
            entry = _peers_table[mac] = [rssi, at]
        else:
            entry[0], entry[1] = rssi, at
        for key in _peers_table:   # the table's own bytes for the peer, as the port's
            if key == mac:
                data[0] = key
                break
        if isinstance(buf, bytearray):
            buf[:] = msg
            _remember_room(buf)
        else:
            buf[:len(msg)] = msg
        if len(data) >= 4:
            data[2], data[3] = rssi, at
        return len(msg)

    def irecv(self, timeout_ms=None):
        """recvinto() of one list kept for every call, the port's "callee-owned" list
        (its message overwritten by the next call: read it before)."""
        if self.recvinto(_OWNED, timeout_ms):
            return _OWNED
        return _NONE

    def recv(self, timeout_ms=None):
        if self.recvinto(_OWNED, timeout_ms):
            return [bytes(x) for x in _OWNED]
        return _NONE

    def any(self):
        _ready()
        _from_field(_listening())
        return bool(_inbox)

    def __iter__(self):
        return self

    def __next__(self):
        return self.irecv()

    def ioctl(self, request, arg):
        """MP_STREAM_POLL (3), for select.poll and asyncio: readable with a frame in the
        buffer, writable with no answer awaited."""
        if request != 3:
            return -1
        if not _on[0]:
            return 0
        _from_field(_listening())
        return arg & ~((0 if _inbox else _POLL_RD) | (_POLL_WR if _waiting else 0))


_NONE = (None, None)
_OWNED = [None, bytearray(MAX_DATA_LEN)]
_ROOMY = []   # bytearrays recvinto() shortened, whose room (250 bytes) it gives back


def _holds_a_frame(buf):
    if isinstance(buf, bytearray):
        return len(buf) == MAX_DATA_LEN or any(b is buf for b in _ROOMY)
    try:
        return len(memoryview(buf)) == MAX_DATA_LEN and not memoryview(buf).readonly
    except (TypeError, AttributeError):
        return False


def _remember_room(buf):
    if not any(b is buf for b in _ROOMY):
        _ROOMY.append(buf)
        if len(_ROOMY) > 8:
            del _ROOMY[0]


def _update_peer(peer, lmk, channel, ifidx, encrypt):
    if lmk is not None:
        peer[4] = bool(lmk)
        peer[1] = _bytes_of(lmk, KEY_LEN) if lmk else None
    if channel is not None:
        if not 0 <= channel <= 14:
            raise _error("ARG")
        peer[2] = channel
    if ifidx is not None:
        if ifidx not in (network.STA_IF, network.AP_IF):
            raise _error("ARG")
        peer[3] = ifidx
    if encrypt is not None:
        peer[4] = bool(encrypt)
    if peer[4] and (peer[1] is None or not _unicast(peer[0])):
        raise _error("ARG")   # no key to encrypt with, or a broadcast peer


def _peer_info(peer):
    return (peer[0], peer[1] or bytes(KEY_LEN), peer[2], peer[3], peer[4])


def _key_tag(lmk):
    """What an encrypted frame says of its key: a receiver with another PMK or LMK can't
    read it."""
    import binascii
    return struct.pack(">I", binascii.crc32(_pmk[0] + lmk) & 0xFFFFFFFF)


def _transmit(peer, msg):
    mac = peer[0]
    _stats[0] += 1
    if machine.history >= 0:   # kept as the other parts keep theirs (machine.history)
        sent.append((mac, msg))
        if machine.history and len(sent) > machine.history:
            del sent[0]
    unicast = _unicast(mac)
    if _field is None or not unicast:
        # A broadcast is never acknowledged: its answer is a success. Off a field, a
        # unicast frame reaches nobody.
        _stats[1] += 1
        if unicast:
            _stats[2] += 1
    if _field is None:
        return
    _seq[0] = (_seq[0] + 1) & 0xFFFF
    if unicast:
        _waiting[_seq[0]] = True
    encrypted = peer[4]
    flags = (1 if encrypted else 0) | (2 if peer[3] == network.AP_IF else 0)
    _to_field(b"F" + struct.pack(">H6sBBB", _seq[0], mac, network.channel(), _rate[0], flags)
              + (_key_tag(peer[1]) if encrypted else b"\0\0\0\0") + msg)


def _wait_for_answers():
    if not _waiting:
        return
    import time
    start = time.ticks_ms()
    while _waiting:
        left = _ANSWER_WAIT_MS - time.ticks_diff(time.ticks_ms(), start)
        if left <= 0:
            raise OSError(110, "ETIMEDOUT")   # the port's: it never should come to this
        _air_wait(min(left, 20))
        _from_field(_listening())


def _wait_for_frame(timeout_ms):
    """The oldest frame heard, waiting up to timeout_ms for one (< 0: for ever) -> (mac,
    msg, rssi, at) or None."""
    import time
    start = time.ticks_ms()
    while True:
        _from_field(_listening())
        if _inbox:
            return _inbox.pop(0)
        left = timeout_ms - time.ticks_diff(time.ticks_ms(), start)
        if timeout_ms >= 0 and left <= 0:
            return None
        if _field is None:
            # Nothing can come but what the program itself delivers: the time passes.
            if timeout_ms < 0:
                raise RuntimeError("virtual espnow: waiting for ever, and no air to "
                                   "hear from")
            time.sleep_ms(left)
            return None
        _air_wait(100 if timeout_ms < 0 else min(left, 100))


def deliver(mac, msg, rssi=-60):
    """A frame from another chip, heard now if this one's radio is listening. -> whether
    it was heard."""
    global dropped
    import time
    if not _listening():
        return False
    if sum(len(m) for _, m, _, _ in _inbox) + len(msg) > _rxbuf[0]:
        dropped += 1
        _stats[4] += 1
        return False
    _inbox.append((bytes(mac), bytes(msg), rssi, time.ticks_ms()))
    _stats[3] += 1
    if _irq[0] is not None:
        import micropython
        micropython.schedule(_irq[0], _irq[1])
    return True


def _radio_off():
    _from_field(False)   # what came while it listened no more is lost, as on the chip
    del _inbox[:]


network.on_radio_off = _radio_off


def reset():
    """A new chip: ESP-NOW off, nothing sent or heard."""
    global dropped
    dropped = 0
    _on[0] = False
    del _peers[:]
    del _inbox[:]
    _peers_table.clear()
    _waiting.clear()
    _config.update(rxbuf=RXBUF, timeout_ms=300000)
    _rxbuf[0] = RXBUF
    _rate[0] = RATE_1M
    _pmk[0] = _DEFAULT_PMK
    _irq[0] = _irq[1] = None
    _stats[:] = [0, 0, 0, 0, 0]
    del sent[:]
    network.reset()


# ---- the virtual field's air ----------------------------------------------------------
# To the hub: b"J" + what the air must know of this chip (its station and access-point
# MACs, channel, the protocols it hears, whether it listens and which interfaces are up)
# + "X,Y" where it stands; b"F" + a frame (its number, to whom, channel, rate, encrypted,
# key tag, message). From the hub: b"F" + rssi + sender + encrypted + key tag + message;
# b"A" + a unicast frame's number + whether it was acknowledged.

_STILL_HERE_MS = 1000
_joined = [None]   # when it last told the hub it is here (ticks ms)


def _join_field():
    global _field
    port = os.getenv("CRAN_FIELD_PORT")
    if not port or _field is not None:
        return
    import socket
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.setblocking(False)
    _field = (sock, socket.getaddrinfo("127.0.0.1", int(port))[0][-1],
              (os.getenv("CRAN_FIELD_AT") or "").encode())
    network.on_change = _tell_air


def _tell_air():
    if _field is None:
        return
    hears = (1 if network.hears(False) else 0) | (2 if network.hears(True) else 0)
    up = ((1 if network.interface_active(network.STA_IF) else 0)
          | (2 if network.interface_active(network.AP_IF) else 0))
    _to_field(b"J" + network.mac(network.STA_IF) + network.mac(network.AP_IF)
              + bytes([network.channel(), hears, 1 if _listening() else 0, up])
              + _field[2])


def _to_field(data):
    if _field is not None:
        try:
            _field[0].sendto(data, _field[1])
        except OSError:
            pass   # no hub (the station stopped): the air is empty


def _air_wait(ms):
    """Wait up to ms for the hub to send something."""
    try:
        import uselect as select
    except ImportError:
        import select
    poller = select.poll()
    poller.register(_field[0], select.POLLIN)
    poller.poll(max(0, int(ms)))


def _from_field(keep):
    """Datagrams the hub carried here: frames into the buffer if keep (the radio
    listening), answers to what it sent. Listening, it says it is still here every
    second: an air started again (a hub knows its members by what they send) finds a
    station that never turns it off."""
    if _field is None:
        return
    import time
    now = time.ticks_ms()
    if keep and (_joined[0] is None or time.ticks_diff(now, _joined[0]) >= _STILL_HERE_MS):
        _joined[0] = now
        _tell_air()
    while True:
        try:
            data = _field[0].recv(300)
        except OSError:
            return   # nothing more (EAGAIN)
        kind = data[:1]
        if kind == b"A" and len(data) == 4:
            seq = data[1] << 8 | data[2]
            if _waiting.pop(seq, None) is not None:
                _stats[1] += 1
                if not data[3]:
                    _stats[2] += 1
        elif kind == b"F" and len(data) > 13 and keep:
            rssi = data[1] - 256 if data[1] > 127 else data[1]
            sender = data[2:8]
            if data[8] and not _decrypts(sender, data[9:13]):
                continue   # encrypted with a key this chip doesn't have for its sender
            deliver(sender, data[13:], rssi)


def _decrypts(sender, tag):
    peer = _find(bytes(sender))
    return peer is not None and peer[4] and _key_tag(peer[1]) == bytes(tag)


def _watch_air():
    """irq() on a field: a thread waits for the air, as the chip's Wi-Fi task does, and
    has the program's thread read it (scheduled, as the port schedules the callback)."""
    if _field is None or _watch[0]:
        return
    import _thread
    _watch[0] = True
    _thread.start_new_thread(_watcher, ())


def _watcher():
    import time

    import micropython
    try:
        import uselect as select
    except ImportError:
        import select
    poller = select.poll()
    poller.register(_field[0], select.POLLIN)
    while _irq[0] is not None:
        if _watch[1] or not poller.poll(50):
            time.sleep_ms(1)
            continue
        _watch[1] = True
        try:
            micropython.schedule(_look, None)
        except RuntimeError:   # the scheduler's queue full: the next turn
            _watch[1] = False
    _watch[0] = False


def _look(_):
    _watch[1] = False
    _from_field(_listening())
