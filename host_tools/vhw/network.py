# Virtual `network` for the badge's radio (cran.hal.espnow): the Wi-Fi station interface,
# which ESP-NOW needs active to send or hear. Its active time is the radio's: counted
# into machine.radio_on_ms on the virtual clock, for the battery estimate.
import machine
import vclock

STA_IF = 0
AP_IF = 1

_active_since = None   # vclock.elapsed_ms() when the interface went active, or None


class WLAN:
    def __init__(self, interface=STA_IF):
        if interface != STA_IF:
            raise ValueError("only the station interface is used by the badge")

    def active(self, on=None):
        global _active_since
        if on is None:
            return _active_since is not None
        if on and _active_since is None:
            _active_since = vclock.elapsed_ms()
        elif not on and _active_since is not None:
            machine.radio_on_ms += vclock.elapsed_ms() - _active_since
            _active_since = None
        if not on:
            import espnow
            espnow._radio_off()
        return None


def is_active():
    return _active_since is not None


def reset():
    """A new chip: the interface down, counted up to now."""
    global _active_since
    if _active_since is not None:
        machine.radio_on_ms += vclock.elapsed_ms() - _active_since
    _active_since = None
