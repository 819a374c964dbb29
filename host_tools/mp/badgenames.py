# The badge's names (qstrs), made as its start makes them (cran.start._make_names),
# for the runner's measures of the badge's heap. A name is kept for good: its characters
# in chunks, its entry in a pool, and a full pool's next one is one block of twice its
# size. The runner makes ~580 names of its own before the badge starts (the virtual
# hardware, the driver), so the badge's names fell into the runner's big late pools:
# a step of ~9 KB where a badge, whose names come first after its frozen modules',
# takes none. So the runner makes the badge's names first, in its own share, and the
# badge is charged what they weigh made alone in a fresh interpreter (run as a script:
# python badgenames.py FIRMWARE MODULE... -> {"names": bytes}).
import gc
import sys

# The modules cran flash makes to make the badge's names (host_tools/device/build.py
# names_sources); cran.start loads those of its board's parts and game.
MODULES = ("cran.names", "cran.names_display", "cran.names_ssd1306", "cran.names_st7789",
           "cran.names_buzzer", "cran.names_leds", "cran.names_radio")


def make(modules=MODULES):
    """Make the names of `modules` as cran.start does, then forget the modules (and
    the cran package) so that the badge loads them as its own. -> the modules made (none
    for a firmware run from source, which has no names modules)."""
    made = []
    for module in modules:
        try:
            __import__(module)
        except ImportError:
            continue
        names = sys.modules[module]
        root = names.__file__[:-len(module.replace(".", "/") + ".mpy")]
        for name in names.LATER.split(" "):
            getattr(gc, root + name if name.endswith(".mpy") else name, None)
        del sys.modules[module]
        made.append(module)
    sys.modules.pop("cran", None)
    return made


# Names the badge uses that an ESP32's MicroPython image holds in flash, with its C
# modules' (machine, esp32, espnow, network) and frozen modules' (neopixel): this port
# lacks those modules, so it would make them in RAM. Made before the weighing.
CHIP_NAMES = """ESPNow I2C IN IRQ_FALLING IRQ_RISING NVS NeoPixel ORDER OUT PULL_DOWN PULL_UP
PWM Pin RTC SPI STA_IF WAKEUP_ALL_LOW WAKEUP_ANY_HIGH WDT WDT_RESET WLAN active add_peer
commit config datetime deepsleep duty_u16 esp32 espnow feed fill freq get_blob get_i32
init irecv irq lightsleep neopixel network readfrom_mem recv reset reset_cause set_blob
set_i32 unique_id wake_on_ext0 wake_on_ext1 wake_on_gpio writeto writeto_mem
writevto""".split()


def weigh(modules):
    """Heap bytes the names of `modules` keep, made in this interpreter after the
    chip's own (CHIP_NAMES)."""
    for name in CHIP_NAMES:
        getattr(gc, name, None)
    gc.collect()
    before = gc.mem_alloc()
    make(modules)
    gc.collect()
    return gc.mem_alloc() - before


if __name__ == "__main__":
    import json
    firmware = sys.argv[1]
    if firmware.endswith(".romfs"):   # as badge_driver.py mounts it: names read in place
        import vfs
        with open(firmware, "rb") as f:
            rom = f.read()
        vfs.mount(vfs.VfsRom(memoryview(rom)), "/rom")
        firmware = "/rom"
    sys.path.insert(0, firmware)
    print(json.dumps({"names": weigh(sys.argv[2:])}))
