# MicroPython's cryptolib for the firmware run under CPython (the desktop's badges and
# the game master's station), on the `cryptography` package's AES. Only what every
# MicroPython build has: ECB (mode 1); asked for another mode, it refuses as a firmware
# built without it does.
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

MODE_ECB = 1


class aes:  # noqa: N801 (MicroPython's name)
    def __init__(self, key, mode, iv=None):
        if mode != MODE_ECB:
            raise ValueError("mode")
        if len(key) not in (16, 32):
            raise ValueError("key")
        self._cipher = Cipher(algorithms.AES(bytes(key)), modes.ECB())
        self._used = None   # an aes object encrypts or decrypts, not both (as there)

    def _run(self, how, data, out):
        if self._used not in (None, how):
            raise ValueError("can't encrypt & decrypt")
        if len(data) % 16:
            raise ValueError("blksize % 16")
        self._used = how
        worker = self._cipher.encryptor() if how == "e" else self._cipher.decryptor()
        result = worker.update(bytes(data)) + worker.finalize()
        if out is None:
            return result
        out[:] = result
        return None

    def encrypt(self, data, out=None):
        return self._run("e", data, out)

    def decrypt(self, data, out=None):
        return self._run("d", data, out)
