# Virtual `rtc` (shared-bindings/rtc): RTC().datetime is a time.struct_time, read and set;
# time.time() follows it.
import time

import vclock


class RTC:
    @property
    def datetime(self):
        return time.localtime()

    @datetime.setter
    def datetime(self, value):
        if not isinstance(value, time.struct_time):
            raise TypeError("datetime must be a time.struct_time")
        vclock.set_time(time.mktime(value))
