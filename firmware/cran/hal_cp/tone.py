# pwmio.PWMOut as the machine.PWM that cran.hal.buzzer drives: freq() and duty_u16().


class Tone:
    def __init__(self, pwm):
        self.pwm = pwm

    def freq(self, hz):
        self.pwm.frequency = hz

    def duty_u16(self, duty):
        self.pwm.duty_cycle = duty
