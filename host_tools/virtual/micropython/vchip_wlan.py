# Wi-Fi beyond ESP-NOW, for `cran vchip` (imported by its boot, it serves network.py's
# WLAN, which never imports it back): an access point that stations of other chips on
# the same virtual field join, as the ESP32 port's network.WLAN does it
# (ports/esp32/network_wlan.c, v1.28.0). The AP's beacon and the stations joined to it
# are files in a folder of the field's (its hub's port): an AP active with an SSID is
# seen by a station's scan; connect(ssid, key) joins it when the key is its key
# (WPA/WPA2/WPA3), moving the radio to its channel, with an address from its DHCP
# (192.168.4.x); the AP going off (active(False)), or its program ending, drops its
# stations as its deauthentication does. Not modelled: the IP traffic itself (no socket
# goes through), signal strength (every AP on the field is in range). Statuses and
# errors are the port's: STAT_CONNECTING while it searches, STAT_GOT_IP,
# STAT_NO_AP_FOUND, STAT_WRONG_PASSWORD; OSError("Wifi Not Started") etc.
import os
import sys

import machine
import network
import vclock

# The port's statuses and security modes, as network.py (the badge's part) has them.
from network import (
    STAT_BEACON_TIMEOUT,
    STAT_CONNECTING,
    STAT_GOT_IP,
    STAT_IDLE,
    STAT_NO_AP_FOUND,
    STAT_WRONG_PASSWORD,
)

SEC_OPEN = network.WLAN.SEC_OPEN
SEC_OWE = network.WLAN.SEC_OWE

_ASSOC_LEAVE = 8   # WIFI_REASON_ASSOC_LEAVE: after disconnect()

_SCAN_MS = 2500    # what a scan of the 13 channels takes the ESP-IDF, about
_JOIN_MS = 300     # authentication, association, the 4-way handshake and DHCP
_AP_IP = "192.168.4.1"

_ap = {"ssid": None, "key": "", "security": SEC_OPEN, "hidden": False, "max_clients": 10}
_sta = {"target": None, "since": 0, "joined": None, "reason": 0, "reconnects": 0,
        "ip": None}
_hostname = ["mpy-esp32"]


def _folder():
    port = os.getenv("CRAN_FIELD_PORT")
    if not port:
        return None   # a chip alone: no access point but its own
    path = "%s/cran-wlan-%s" % (os.getenv("TMPDIR") or "/tmp", port)
    try:
        os.mkdir(path)
    except OSError:
        pass   # there already
    return path


def _hex(mac):
    return "".join("%02x" % b for b in mac)


def _ap_name():
    return "ap-" + _hex(network.mac(network.AP_IF))


def _write(path, text):
    with open(path + ".new", "w") as f:
        f.write(text)
    os.rename(path + ".new", path)


def _read(path):
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return None


def _listdir(folder):
    try:
        return os.listdir(folder)
    except OSError:
        return []


# ---- the access point --------------------------------------------------------------------

def default_ssid():
    return "ESP_%s" % _hex(network.mac(network.AP_IF)[3:]).upper()


def ap_config(key, value):
    if key in ("ssid", "essid"):
        _ap["ssid"] = value if isinstance(value, str) else bytes(value).decode()
    elif key in ("key", "password"):
        _ap["key"] = value if isinstance(value, str) else bytes(value).decode()
    elif key in ("security", "authmode"):
        _ap["security"] = machine._int(value)
    elif key == "hidden":
        _ap["hidden"] = bool(value)
    elif key == "max_clients":
        _ap["max_clients"] = machine._int(value)
    else:
        return False
    return True


def ap_check():
    # esp_wifi_set_config's: a WPA-family AP wants 8 to 63 characters of key.
    if _ap["security"] not in (SEC_OPEN, SEC_OWE) and not 8 <= len(_ap["key"]) <= 63:
        raise OSError("Wifi Invalid Password")


def ap_query(key):
    if key in ("ssid", "essid"):
        return _ap["ssid"] or default_ssid()
    if key in ("security", "authmode"):
        return _ap["security"]
    if key in ("hidden", "max_clients"):
        return _ap[key]
    raise ValueError("unknown config param")


def ap_up():
    """The AP beacons (or beacons anew, its settings changed)."""
    folder = _folder()
    if folder is None:
        return
    _write("%s/%s" % (folder, _ap_name()), "\n".join((
        _ap["ssid"] or default_ssid(), _ap["key"], str(_ap["security"]),
        str(network.channel()), "1" if _ap["hidden"] else "0")))


def ap_down():
    """The AP goes off: its beacon gone, its stations deauthenticated."""
    folder = _folder()
    if folder is None:
        return
    name = _ap_name()
    for entry in _listdir(folder):
        if entry == name or entry.startswith("sta-" + name[3:] + "-"):
            try:
                os.remove("%s/%s" % (folder, entry))
            except OSError:
                pass


def ap_stations():
    folder = _folder()
    if folder is None:
        return []
    prefix = "sta-" + _ap_name()[3:] + "-"
    return [(bytes(int(e[len(prefix) + i:len(prefix) + i + 2], 16) for i in range(0, 12, 2)),)
            for e in _listdir(folder) if e.startswith(prefix) and not e.endswith(".new")]


# ---- the station -------------------------------------------------------------------------

def _aps():
    """The access points on the air -> [(ssid, bssid, key, security, channel, hidden)]."""
    folder = _folder()
    if folder is None:
        return []
    found = []
    for entry in _listdir(folder):
        if entry.startswith("ap-") and not entry.endswith(".new"):
            text = _read("%s/%s" % (folder, entry))
            if text is None or text.count("\n") != 4:
                continue
            ssid, key, security, channel, hidden = text.split("\n")
            bssid = bytes(int(entry[3 + i:5 + i], 16) for i in range(0, 12, 2))
            if bssid != network.mac(network.AP_IF):   # (not one's own)
                found.append((ssid, bssid, key, int(security), int(channel), hidden == "1"))
    return found


def connect(ssid, key, bssid):
    _leave()
    _sta["target"] = (ssid, key, bssid)
    _sta["since"] = vclock.elapsed_ms()
    _sta["reason"] = 0


def _station_file(ap_bssid):
    return "%s/sta-%s-%s" % (_folder(), _hex(ap_bssid), _hex(network.mac(network.STA_IF)))


def _leave():
    joined = _sta["joined"]
    if joined is not None:
        try:
            os.remove(_station_file(joined[1]))
        except OSError:
            pass
    _sta["joined"] = None
    _sta["ip"] = None


def disconnect():
    _leave()
    _sta["target"] = None
    _sta["reason"] = _ASSOC_LEAVE


def _step():
    """Where the station is now: a station joined stays while its AP is there; one
    looking joins the AP it was told of once found (and its key right)."""
    joined = _sta["joined"]
    if joined is not None:
        if joined not in _aps() or _read(_station_file(joined[1])) is None:
            _leave()   # the AP went off, and took its stations with it
            _sta["reason"] = STAT_BEACON_TIMEOUT
            _sta["since"] = vclock.elapsed_ms()
        return
    target = _sta["target"]
    if target is None:
        return
    ssid, key, bssid = target
    waited = vclock.elapsed_ms() - _sta["since"]
    for ap in _aps():
        if ap[0] == ssid and (bssid is None or bytes(bssid) == ap[1]):
            if waited < _JOIN_MS:
                return
            if ap[3] not in (SEC_OPEN, SEC_OWE) and ap[2] != (key or ""):
                _sta["reason"] = STAT_WRONG_PASSWORD
                return
            folder = _folder()
            stations = [e for e in _listdir(folder) if e.startswith("sta-" + _hex(ap[1]))]
            _write(_station_file(ap[1]), "")
            network._channel[0] = ap[4]   # the radio follows its AP
            network._changed()
            _sta["joined"] = ap
            _sta["reason"] = 0
            _sta["ip"] = "192.168.4.%d" % (2 + len(stations))
            return
    if waited >= _SCAN_MS:
        _sta["reason"] = STAT_NO_AP_FOUND


def isconnected():
    _step()
    return _sta["joined"] is not None


def status():
    _step()
    if _sta["joined"] is not None:
        return STAT_GOT_IP
    reason = _sta["reason"]
    if reason in (STAT_NO_AP_FOUND, STAT_WRONG_PASSWORD):
        return reason
    if reason == _ASSOC_LEAVE:
        return STAT_IDLE
    if _sta["target"] is not None:
        return STAT_CONNECTING
    return reason or STAT_IDLE


def rssi():
    _step()
    if _sta["joined"] is None:
        raise OSError("Wifi Not Connected")
    return -45


def scan():
    """-> [(ssid, bssid, channel, RSSI, security, hidden)], as the port's scan()."""
    vclock.wait_us(_SCAN_MS * 1000)
    return [(ap[0].encode() if not ap[5] else b"", ap[1], ap[4], -45, ap[3], ap[5])
            for ap in _aps()]


def ifconfig(interface):
    if interface == network.AP_IF:
        return (_AP_IP, "255.255.255.0", _AP_IP, "0.0.0.0")
    _step()
    if _sta["ip"] is None:
        return ("0.0.0.0", "0.0.0.0", "0.0.0.0", "0.0.0.0")
    return (_sta["ip"], "255.255.255.0", _AP_IP, _AP_IP)


def station_config(key, value):
    if key == "reconnects":
        _sta["reconnects"] = machine._int(value)
    elif key in ("hostname", "dhcp_hostname"):
        _hostname[0] = str(value)
    else:
        return False
    return True


def station_query(key):
    if key in ("ssid", "essid"):
        joined = _sta["joined"]
        return joined[0] if joined is not None else ""
    if key == "reconnects":
        return _sta["reconnects"]
    if key in ("hostname", "dhcp_hostname"):
        return _hostname[0]
    raise ValueError("unknown config param")


def reset():
    """A new chip (or its radio off): no AP beaconing, no station joined."""
    ap_down()
    disconnect()
    _sta["reason"] = 0
    _ap.update(ssid=None, key="", security=SEC_OPEN, hidden=False, max_clients=10)


# From here on network's: its WLAN's access point and station joins are this module's.
network._wlan.append(sys.modules[__name__])
