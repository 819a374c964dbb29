# `aioespnow`, as the ESP32 port freezes it (micropython-lib's): ESP-NOW's reads and
# sends awaited through asyncio's poller, which asks the ESPNow object (a pollable
# stream, micropython/espnow.py) whether a frame is waiting or a send may go. MicroPython only.
# asyncio is imported when first awaited, not with the virtual parts: imported while
# their folder is on sys.path, its `time` would be the virtual clock's time.py.
import espnow


def _io_queue():
    import asyncio
    return asyncio.core._io_queue


class AIOESPNow(espnow.ESPNow):
    async def arecv(self):
        yield _io_queue().queue_read(self)
        return self.recv(0)

    async def airecv(self):
        yield _io_queue().queue_read(self)
        return self.irecv(0)

    async def arecvinto(self, buffers):
        yield _io_queue().queue_read(self)
        return self.recvinto(buffers, 0)

    async def asend(self, mac, msg=None, sync=None):
        if msg is None:
            msg, mac = mac, None   # asend(msg): to every peer
        yield _io_queue().queue_write(self)
        return self.send(mac, msg, sync)

    def __aiter__(self):
        return self

    async def __anext__(self):
        return await self.airecv()
