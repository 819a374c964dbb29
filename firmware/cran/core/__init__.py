# The rules: pure functions of (state, action, now_ms). No I/O, no clock, no hardware.
