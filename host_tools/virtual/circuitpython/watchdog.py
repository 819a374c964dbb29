# Virtual `watchdog`: the modes microcontroller.watchdog takes (shared-bindings/watchdog).


class WatchDogMode:
    RAISE = "RAISE"
    RESET = "RESET"


class WatchDogTimeout(Exception):
    pass
