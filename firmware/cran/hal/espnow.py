# ESP-NOW as cran.radio.link drives it: on() and off() for its listening windows, broadcast
# frames out, frames in with their signal strength. The Wi-Fi station interface must be
# active for ESP-NOW to send or hear; off, it draws nothing (cran.radio.link counts the time).
import espnow
import network

_EVERYONE = b"\xff" * 6


class Air:
    def __init__(self):
        self._wlan = network.WLAN(network.STA_IF)
        self.now = espnow.ESPNow()

    def on(self):
        self._wlan.active(True)
        self.now.active(True)
        try:
            self.now.add_peer(_EVERYONE)   # broadcast is sent to a peer like any other
        except OSError:
            pass                           # (ESP_ERR_ESPNOW_EXIST: kept since last time)

    def off(self):
        self.now.active(False)
        self._wlan.active(False)

    def send(self, peer, frame):
        # sync=False: a broadcast has no one to acknowledge it; waiting would only cost.
        self.now.send(peer, frame, False)

    def recv(self):
        """-> (frame, rssi in dBm) heard since the last call, or None. The frame is
        ESP-NOW's own buffer, overwritten by the next call: cran.radio.link reads it at once.
        (irecv: a window that hears nothing, most of them, allocates nothing.)"""
        got = self.now.irecv(0)
        if got[1] is None:
            return None
        seen = self.now.peers_table.get(got[0])   # every sender heard: [rssi, time_ms]
        return got[1], seen[0] if seen else -127
