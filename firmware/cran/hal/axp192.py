# AXP192 power chip (M5StickC Plus): its LDO2 feeds the LCD backlight and LDO3 the LCD
# itself; both are off until told. Read-modify-write of the enable register only: DCDC1
# is the ESP32's own supply.
_LDO23_VOLTS = 0x28      # LDO2 high nibble, LDO3 low: 1.8 V + 0.1 V * n
_POWER_ON = 0x12         # bit 2: LDO2, bit 3: LDO3


def lcd_power_on(i2c, addr=0x34):
    i2c.writeto_mem(addr, _LDO23_VOLTS, b"\xcc")    # both at 3.0 V
    on = i2c.readfrom_mem(addr, _POWER_ON, 1)[0]
    i2c.writeto_mem(addr, _POWER_ON, bytes([on | 0x0C]))
