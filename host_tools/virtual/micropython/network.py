# Virtual `network` (MicroPython's ESP32 WLAN, as ESP-NOW needs it): the station and
# access-point interfaces of one radio. ESP-NOW sends and hears only while an interface
# is active; that time is the radio's, counted into machine.radio_on_ms on the virtual
# clock, for the battery estimate. Held to the ESP-IDF's and MicroPython's documented
# behaviour for what ESP-NOW uses: each interface's MAC (the station's is the chip's
# base MAC, machine.unique_id(); the access point's the base + 1), one channel for the
# whole radio (1 at power-on; set with config(channel=N), 1-13, once Wi-Fi has started,
# as esp_wifi_set_channel wants), each interface's 802.11 protocols (PROTOCOL_DEFAULT
# and/or PROTOCOL_LR, Espressif's long range, which ESP-NOW's LR rates need at both
# ends). An access point and stations joining it, between chips on one virtual field,
# are vchip_wlan.py's (`cran vchip`'s). A parameter it doesn't know is refused
# as the port refuses it.
import machine
import vclock

STA_IF = 0
AP_IF = 1
MODE_11B = 1
MODE_11G = 2
MODE_11N = 4
MODE_LR = 8

_CHANNELS = range(1, 14)   # the IDF's default country (CN): channels 1-13
# WLAN.status()'s answers (modnetwork_globals.h)
STAT_IDLE = 1000
STAT_CONNECTING = 1001
STAT_GOT_IP = 1010
STAT_BEACON_TIMEOUT = 200
STAT_NO_AP_FOUND = 201
STAT_WRONG_PASSWORD = 202
STAT_ASSOC_FAIL = STAT_CONNECT_FAIL = 203
STAT_HANDSHAKE_TIMEOUT = 204

_active_since = None   # vclock.elapsed_ms() when the first interface went active, or None
_up = [False, False]   # each interface's active(), by its index
_protocol = [MODE_11B | MODE_11G | MODE_11N] * 2
_channel = [1]
on_change = None   # called when what the air must know changes (micropython/espnow.py's field)
# Called when the radio goes off (micropython/espnow.py sets it as it loads: what it heard is
# lost then, as on the chip). A hook, not an import: espnow imports network.
on_radio_off = None


def _mac(interface):
    base = bytearray(machine.unique_id()[:6])
    base[0] &= 0xFE   # a chip's base MAC is a unicast address
    base[5] = (base[5] + interface) & 0xFF
    return bytes(base)


def _not_started():
    return OSError("Wifi Not Started")   # the port's words for ESP_ERR_WIFI_NOT_STARTED


class WLAN:
    IF_STA = STA_IF
    IF_AP = AP_IF
    PROTOCOL_DEFAULT = MODE_11B | MODE_11G | MODE_11N
    PROTOCOL_LR = MODE_LR
    PM_NONE = 0
    PM_PERFORMANCE = 1
    PM_POWERSAVE = 2
    SEC_OPEN = 0
    SEC_WEP = 1
    SEC_WPA = 2
    SEC_WPA2 = 3
    SEC_WPA_WPA2 = 4
    SEC_WPA2_ENT = 5
    SEC_WPA3 = 6
    SEC_WPA2_WPA3 = 7
    SEC_WAPI = 8
    SEC_OWE = 9

    def __init__(self, interface=STA_IF):
        if interface not in (STA_IF, AP_IF):
            raise ValueError("invalid WLAN interface identifier")
        self._if = interface

    def active(self, on=None):
        global _active_since
        if on is None:
            return _up[self._if]
        was = _up[self._if]
        _up[self._if] = bool(on)
        if self._if == AP_IF and on and not was:
            _more().ap_up()   # it beacons
        elif not on and was and _wlan:
            if self._if == AP_IF:
                _wlan[0].ap_down()
            else:
                _wlan[0].disconnect()
        if is_active() and _active_since is None:
            _active_since = vclock.elapsed_ms()
        elif not is_active() and _active_since is not None:
            machine.radio_on_ms += vclock.elapsed_ms() - _active_since
            _active_since = None
            if on_radio_off is not None:
                on_radio_off()
        _changed()
        return None

    def disconnect(self):
        if not is_active():
            raise _not_started()
        if _wlan:
            _wlan[0].disconnect()

    def connect(self, ssid=None, key=None, *, bssid=None):
        if not _up[STA_IF]:
            raise _not_started() if not is_active() else OSError("Wifi Invalid Mode")
        if bssid is not None and len(bssid) != 6:
            raise ValueError()
        _more().connect(ssid, key, bssid)

    def isconnected(self):
        if self._if == AP_IF:
            return bool(_up[AP_IF] and _more().ap_stations())
        return bool(_wlan and _wlan[0].isconnected())

    def status(self, *param):
        if not param:
            return _more().status() if self._if == STA_IF else None
        if param[0] == "stations":
            if self._if != AP_IF:
                raise OSError("AP required")
            return _more().ap_stations()
        if param[0] == "rssi":
            if self._if != STA_IF:
                raise OSError("STA required")
            return _more().rssi()
        raise ValueError("unknown status param")

    def scan(self):
        if not _up[STA_IF]:
            raise _not_started() if not is_active() else OSError("Wifi Invalid Mode")
        return _more().scan()

    def ifconfig(self):
        return _more().ifconfig(self._if)

    def config(self, *name, **values):
        """config("mac"|"channel"|"protocol") -> its value; config(channel=N,
        protocol=BITS) sets them."""
        if name:
            if len(name) != 1 or values:
                raise TypeError("can query only one param")
            if name[0] == "mac":
                return _mac(self._if)
            if name[0] == "channel":
                return _channel[0]
            if name[0] == "protocol":
                return _protocol[self._if]
            if self._if == AP_IF:
                return _more().ap_query(name[0])
            return _more().station_query(name[0])
        ap = False
        for key, value in values.items():
            if key == "channel":
                if not is_active():
                    raise _not_started()
                if value not in _CHANNELS:
                    raise ValueError("invalid channel %r: 1 to 13" % (value,))
                _channel[0] = value
                ap = self._if == AP_IF
            elif key == "protocol":
                if not isinstance(value, int) or not value or value & ~0x0F:
                    raise ValueError("invalid protocol %r" % (value,))
                _protocol[self._if] = value
            elif self._if == AP_IF and _more().ap_config(key, value):
                ap = True
            elif self._if == STA_IF and _more().station_config(key, value):
                pass
            else:
                raise ValueError("unknown config param")
        if ap:
            _wlan[0].ap_check()
            if _up[AP_IF]:
                _wlan[0].ap_up()
        _changed()
        return None


# Wi-Fi beyond ESP-NOW (an access point, joining one), for `cran vchip`: vchip_wlan.py,
# layered above this module, puts itself here when imported (the chip's boot imports it).
# A badge only ever uses ESP-NOW. (A list kept here: a program may empty sys.modules later.)
_wlan = []


def _more():
    if not _wlan:
        raise NotImplementedError("Wi-Fi beyond ESP-NOW is cran vchip's (vchip_wlan.py): "
                                  "not loaded here")
    return _wlan[0]


def _changed():
    if on_change is not None:
        on_change()


def is_active():
    """Whether the radio is on: an interface active."""
    return _up[0] or _up[1]


def interface_active(interface):
    return _up[interface]


def channel():
    return _channel[0]


def hears(lr):
    """Whether the radio hears a frame at an LR rate (lr) or at an 802.11b/g/n one: an
    active interface must have that protocol."""
    for i in (STA_IF, AP_IF):
        if _up[i] and _protocol[i] & (MODE_LR if lr else MODE_11B | MODE_11G | MODE_11N):
            return True
    return False


def mac(interface=STA_IF):
    return _mac(interface)


def reset():
    """A new chip: the interfaces down (counted up to now), channel 1, default protocols."""
    global _active_since
    if _active_since is not None:
        machine.radio_on_ms += vclock.elapsed_ms() - _active_since
    _active_since = None
    _up[0] = _up[1] = False
    _protocol[0] = _protocol[1] = MODE_11B | MODE_11G | MODE_11N
    _channel[0] = 1
    if _wlan:
        _wlan[0].reset()
