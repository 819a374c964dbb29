# Passive piezo on PWM: melodies of (freq_hz, duration_ms) played without blocking. The
# app makes one for a melody and lets it go when it is played (cran.app.App._sound).
# play() starts one, update(now) moves on at the notes' own times and says how long the
# caller may sleep; a late update skips the notes whose time has passed (no drift).
from cran.core.ticks import ticks_add, ticks_diff


class Buzzer:
    _loud_duty_u16 = 32768  # a 50 % square wave is the loudest a piezo gets

    def __init__(self, pwm, volume_percent=100):
        self.pwm = pwm
        self._melody = ()
        self._index = 0
        self._end = 0          # tick when the current note ends
        self._freq_hz = 0      # what the PWM is set to: write only changes
        self._duty_u16 = -1
        self.set_volume(volume_percent)
        self._out(0)

    def set_volume(self, percent):
        self._volume_duty_u16 = self._loud_duty_u16 * max(0, min(100, percent)) // 100

    def _out(self, freq_hz):
        duty = self._volume_duty_u16 if freq_hz > 0 else 0
        if freq_hz > 0 and freq_hz != self._freq_hz:
            self.pwm.freq(freq_hz)   # the ESP32 refuses 0 Hz: a rest is duty 0
            self._freq_hz = freq_hz
        if duty != self._duty_u16:
            self.pwm.duty_u16(duty)
            self._duty_u16 = duty

    def playing(self):
        return self._index < len(self._melody)

    def play(self, melody, now):
        """Start melody at tick `now`, replacing any other. -> ms to the next change."""
        self._melody = melody
        self._index = 0
        self._end = now
        if melody:
            self._end = ticks_add(now, melody[0][1])
            self._out(melody[0][0])
        return self.update(now)

    def update(self, now):
        """-> ms until the next note change, or None when silent."""
        melody = self._melody
        if self._index >= len(melody):
            return None
        moved = False
        while ticks_diff(now, self._end) >= 0:
            self._index += 1
            if self._index >= len(melody):
                self.stop()
                return None
            self._end = ticks_add(self._end, melody[self._index][1])
            moved = True
        if moved:
            self._out(melody[self._index][0])
        return ticks_diff(self._end, now)

    def stop(self):
        self._melody = ()
        self._index = 0
        self._out(0)
