# The stock MicroPython image a badge runs: ESP32_GENERIC v1.26.1 (IDF v5.4.2), the image
# of ../shared/tools/qemu-esp32 (its README: where it comes from), as the bench needs to
# know it. What it was measured by: the image booted in that emulator, a main.py and then
# its REPL printing gc.mem_alloc() after gc.collect() around each step (2026-12-06); its
# built-in names read from the image itself (its qstr pools' tables, in its .rodata),
# the same 1,589 the running chip numbers below its first name made in RAM. Measured
# again by bench/esp32_image.py (names: from the image; heap: in QEMU).
IMAGE = "ESP32_GENERIC-20250911-v1.26.1.bin"
IMAGE_SHA256 = "6b5272b6edd15fc4d1627ec559a27a5d5a7b86e5ea7f8013941eb10c877edd4e"

# What a chip's heap holds that the bench's virtual parts, which are the runner's, do
# not put in the badge's (bytes, 32-bit: the chip's GC blocks of 16). (what, the board
# part or game it comes with or None: every badge, bytes, how it was measured.) The bench
# makes each one in the badge's heap as its boot starts
# (host_tools/virtual/scripts/badge_driver.py).
CHIP_ALLOCATIONS = (
    ("the boot", None, 800,
     "in use when main.py starts: _boot.py's LittleFS mount of / and its flashbdev "
     "module, sys.path, sys.modules (1,248 B at the top of a main.py, less that "
     "main.py's own code, 144 B, and the first names its compiling made, in RAM: their "
     "pool, 176 B, their characters' chunk, 128 B: a badge's are charged apart, "
     "names_pools)"),
    ("machine", None, 816,
     "import machine: the image's frozen machine.py (_machine's names copied into its "
     "globals, its Counter and Encoder classes)"),
    ("neopixel", "leds", 352, "import neopixel: the frozen neopixel.py and its class"),
    ("espnow", "radio", 768,
     "import espnow: the frozen espnow.py (its ESPNow class over _espnow.ESPNowBase, "
     "the receive buffer it keeps)"),
    ("ESPNow()", "radio", 64,
     "espnow.ESPNow(), the one ESP-NOW object with its empty peers_table: 112 B, less "
     "the 48 B the virtual one takes in the badge's heap"),
)
# ESPNow.active(True) makes the receive ring (its rxbuf, 526 B by default), and
# active(False) frees it: the radio's every listening window (cran.hal.espnow.Air).
# The bench makes it in the badge's heap for each window (badge_driver.py).
RING_BYTES = 528
# Each sender whose frame is read adds its MAC and [rssi, ms] to ESPNow.peers_table, for
# good: ~64 B (MicroPython's ports/esp32/esp_espnow.c, _lookup_add_peer and _update_rssi:
# a 6-byte bytes, a list of two, the dict's slot). One emulated chip hears no other, so
# not measured here; the virtual espnow's table keeps its own entries in the badge's heap.
PEER_BYTES = 64
# Smaller on the chip than the virtual parts' Python objects, so the bench charges a
# badge slightly more than its chip (not credited back): a NeoPixel 96 B for 1 LED, 144 B
# for 25 (the virtual one 176 and 208), the WLAN and a WDT nothing (32 B each).

# The names (qstrs) made in RAM are held in pools: the image's own pools are made with
# room for 10, so its first pool in RAM holds 20, and each next one twice the one
# before it, as one block of 24 + 7 bytes a name (a pointer, a 2-byte hash, its length),
# taken when the last is full. Measured: names made one by one took 304, 592, 1,152,
# 2,272, 4,512, 8,992 and 17,952 B at once, the 8,992 B one at the 1,261st name in RAM.
FIRST_POOL = 20
POOL_HEADER_BYTES = 24
POOL_ENTRY_BYTES = 7


def pool_bytes(entries):
    """A pool of names' block, in the chip's GC blocks of 16 bytes."""
    return (POOL_HEADER_BYTES + POOL_ENTRY_BYTES * entries + 15) // 16 * 16


def names_pools(in_ram):
    """Bytes of the pools a chip makes for in_ram names made in RAM, from its first."""
    held, size, total = 0, FIRST_POOL, 0
    while held < in_ram:
        total += pool_bytes(size)
        held += size
        size *= 2
    return total


def names_cliff(in_ram):
    """-> (names that can still be made before the next pool is needed, that pool's
    bytes) for a chip holding in_ram names in RAM."""
    held, size = 0, FIRST_POOL
    while held + size < in_ram:
        held += size
        size *= 2
    return held + size - in_ram, pool_bytes(size * 2)


def in_ram(names):
    """The names of `names` a chip makes in RAM: those its image does not hold."""
    return set(names) - _STATIC


def chip_allocations(board, radio):
    """-> [(what, bytes)] of CHIP_ALLOCATIONS for a badge of board (its board file's
    data) in a game with the radio or not."""
    has = {"radio": radio, "leds": board.get("leds") is not None}
    return [(what, size) for what, part, size, _ in CHIP_ALLOCATIONS
            if part is None or has[part]]


# The image's built-in names (its qstrs 0-1588: those of its C modules and of its frozen
# modules), as its pools hold them.
STATIC_NAMES = (
    '', '', '__dir__', '\n', ' ', '*', '/', '<module>', '_', '__call__', '__class__',
    '__delitem__', '__enter__', '__exit__', '__getattr__', '__getitem__', '__hash__',
    '__init__', '__int__', '__iter__', '__len__', '__main__', '__module__', '__name__',
    '__new__', '__next__', '__qualname__', '__repr__', '__setitem__', '__str__',
    'ArithmeticError', 'AssertionError', 'AttributeError', 'BaseException', 'EOFError',
    'Ellipsis', 'Exception', 'GeneratorExit', 'ImportError', 'IndentationError', 'IndexError',
    'KeyError', 'KeyboardInterrupt', 'LookupError', 'MemoryError', 'NameError', 'NoneType',
    'NotImplementedError', 'OSError', 'OverflowError', 'RuntimeError', 'StopIteration',
    'SyntaxError', 'SystemExit', 'TypeError', 'ValueError', 'ZeroDivisionError', 'abs', 'all',
    'any', 'append', 'args', 'bool', 'builtins', 'bytearray', 'bytecode', 'bytes', 'callable',
    'chr', 'classmethod', 'clear', 'close', 'const', 'copy', 'count', 'dict', 'dir', 'divmod',
    'end', 'endswith', 'eval', 'exec', 'extend', 'find', 'format', 'from_bytes', 'get',
    'getattr', 'globals', 'hasattr', 'hash', 'id', 'index', 'insert', 'int', 'isalpha',
    'isdigit', 'isinstance', 'islower', 'isspace', 'issubclass', 'isupper', 'items', 'iter',
    'join', 'key', 'keys', 'len', 'list', 'little', 'locals', 'lower', 'lstrip', 'main', 'map',
    'micropython', 'next', 'object', 'open', 'ord', 'pop', 'popitem', 'pow', 'print', 'range',
    'read', 'readinto', 'readline', 'remove', 'replace', 'repr', 'reverse', 'rfind', 'rindex',
    'round', 'rsplit', 'rstrip', 'self', 'send', 'sep', 'set', 'setattr', 'setdefault', 'sort',
    'sorted', 'split', 'start', 'startswith', 'staticmethod', 'step', 'stop', 'str', 'strip',
    'sum', 'super', 'throw', 'to_bytes', 'tuple', 'type', 'update', 'upper', 'utf-8', 'value',
    'values', 'write', 'zip', '<dictcomp>', '<genexpr>', '<lambda>', '<listcomp>', '<setcomp>',
    '__abs__', '__add__', '__and__', '__bool__', '__complex__', '__contains__', '__delete__',
    '__divmod__', '__eq__', '__float__', '__floordiv__', '__ge__', '__get__', '__gt__',
    '__iadd__', '__iand__', '__ifloordiv__', '__ilshift__', '__imatmul__', '__imod__',
    '__imul__', '__invert__', '__ior__', '__ipow__', '__irshift__', '__isub__', '__itruediv__',
    '__ixor__', '__le__', '__lshift__', '__lt__', '__matmul__', '__mod__', '__mul__', '__ne__',
    '__neg__', '__or__', '__pos__', '__pow__', '__radd__', '__rand__', '__rfloordiv__',
    '__rlshift__', '__rmatmul__', '__rmod__', '__rmul__', '__ror__', '__rpow__', '__rrshift__',
    '__rshift__', '__rsub__', '__rtruediv__', '__rxor__', '__set__', '__sub__', '__truediv__',
    '__xor__', '%#o', '%#x', '... ', '.frozen', '/lib', '<stdin>', '<string>', '>>> ', 'ADC',
    'ADCBlock', 'ADDR_LEN', 'AF_INET', 'AF_INET6', 'AP_IF', 'ARRAY', 'ATTN_0DB', 'ATTN_11DB',
    'ATTN_2_5DB', 'ATTN_6DB', 'AUTH_CHAP', 'AUTH_MAX', 'AUTH_NONE', 'AUTH_OPEN', 'AUTH_OWE',
    'AUTH_PAP', 'AUTH_WAPI_PSK', 'AUTH_WEP', 'AUTH_WPA2_ENTERPRISE', 'AUTH_WPA2_PSK',
    'AUTH_WPA2_WPA3_PSK', 'AUTH_WPA3_ENT_192', 'AUTH_WPA3_EXT_PSK',
    'AUTH_WPA3_EXT_PSK_MIXED_MODE', 'AUTH_WPA3_PSK', 'AUTH_WPA_PSK', 'AUTH_WPA_WPA2_PSK',
    'AUTO', 'BFINT16', 'BFINT32', 'BFINT8', 'BFUINT16', 'BFUINT32', 'BFUINT8', 'BF_LEN',
    'BF_POS', 'BIG_ENDIAN', 'BLE', 'BOOT', 'BufferedWriter', 'BytesIO', 'CERT_NONE',
    'CERT_OPTIONAL', 'CERT_REQUIRED', 'CTS', 'CancelledError', 'DAC', 'DECREMENT', 'DEEPSLEEP',
    'DEEPSLEEP_RESET', 'DESC', 'DRIVE_0', 'DRIVE_1', 'DRIVE_2', 'DRIVE_3', 'DeflateIO',
    'EACCES', 'EADDRINUSE', 'EAGAIN', 'EALREADY', 'EBADF', 'ECONNABORTED', 'ECONNREFUSED',
    'ECONNRESET', 'EEXIST', 'EHOSTUNREACH', 'EINPROGRESS', 'EINVAL', 'EIO', 'EISDIR',
    'ENOBUFS', 'ENODEV', 'ENOENT', 'ENOMEM', 'ENOTCONN', 'EOPNOTSUPP', 'EPERM', 'ESPNowBase',
    'ETH_CONNECTED', 'ETH_DISCONNECTED', 'ETH_GOT_IP', 'ETH_INITIALIZED', 'ETH_STARTED',
    'ETH_STOPPED', 'ETIMEDOUT', 'EXT0_WAKE', 'EXT1_WAKE', 'FLAG_INDICATE', 'FLAG_NOTIFY',
    'FLAG_READ', 'FLAG_WRITE', 'FLAG_WRITE_NO_RESPONSE', 'FLOAT32', 'FLOAT64', 'FileIO',
    'FrameBuffer', 'FrameBuffer1', 'GIL', 'GS2_HMSB', 'GS4_HMSB', 'GS8', 'GZIP', 'HARD_RESET',
    'HEAP_DATA', 'HEAP_EXEC', 'HOLD', 'I2C', 'I2S', 'IF_AP', 'IF_STA', 'IGNORE', 'IN', 'INCL',
    'INCREMENT', 'INT', 'INT16', 'INT32', 'INT64', 'INT8', 'INV_CTS', 'INV_RTS', 'INV_RX',
    'INV_TX', 'IOBase', 'IPPROTO_IP', 'IPPROTO_TCP', 'IPPROTO_UDP', 'IP_ADD_MEMBERSHIP', 'IRQ',
    'IRQ_BREAK', 'IRQ_FALLING', 'IRQ_MAX', 'IRQ_MIN', 'IRQ_RISING', 'IRQ_RX', 'IRQ_RXIDLE',
    'IRQ_THRESHOLD0', 'IRQ_THRESHOLD1', 'IRQ_ZERO', 'KEY_LEN', 'LAN', 'LITTLE_ENDIAN',
    'LOG_DEBUG', 'LOG_ERROR', 'LOG_INFO', 'LOG_NONE', 'LOG_VERBOSE', 'LOG_WARNING', 'LONG',
    'LONGLONG', 'LSB', 'LockType', 'MAX_DATA_LEN', 'MAX_ENCRYPT_PEER_NUM',
    'MAX_TOTAL_PEER_NUM', 'MBEDTLS_VERSION', 'MODE_11B', 'MODE_11G', 'MODE_11N', 'MODE_LR',
    'MONO', 'MONO_HLSB', 'MONO_HMSB', 'MONO_VLSB', 'MSB', 'MSG_DONTWAIT', 'MSG_PEEK', 'MVLSB',
    'NATIVE', 'NORMAL', 'NVS', 'None', 'NotImplemented', 'ONE_SHOT', 'OPEN_DRAIN', 'OUT',
    'OrderedDict', 'PCNT', 'PERIODIC', 'PHY_DM9051', 'PHY_DP83848', 'PHY_GENERIC', 'PHY_IP101',
    'PHY_KSZ8041', 'PHY_KSZ8081', 'PHY_KSZ8851SNL', 'PHY_LAN8670', 'PHY_LAN8710',
    'PHY_LAN8720', 'PHY_RTL8201', 'PHY_W5500', 'PIN_WAKE', 'PM_NONE', 'PM_PERFORMANCE',
    'PM_POWERSAVE', 'POLLERR', 'POLLHUP', 'POLLIN', 'POLLOUT', 'PPP', 'PROTOCOL_DTLS_CLIENT',
    'PROTOCOL_DTLS_SERVER', 'PROTOCOL_TLS_CLIENT', 'PROTOCOL_TLS_SERVER', 'PTR', 'PULL_DOWN',
    'PULL_UP', 'PULSE_MAX', 'PWM', 'PWRON_RESET', 'Partition', 'Pin', 'RAW', 'RESERVE_MEM',
    'REVERSE', 'RGB565', 'RMT', 'RTC', 'RTS', 'RUNNING', 'RX', 'RingIO', 'SDCard', 'SEC_CHAP',
    'SEC_DPP', 'SEC_NONE', 'SEC_OPEN', 'SEC_OWE', 'SEC_PAP', 'SEC_WAPI', 'SEC_WEP', 'SEC_WPA',
    'SEC_WPA2', 'SEC_WPA2_ENT', 'SEC_WPA2_WPA3', 'SEC_WPA2_WPA3_ENT', 'SEC_WPA3',
    'SEC_WPA3_ENT', 'SEC_WPA3_ENT_192', 'SEC_WPA3_EXT_PSK', 'SEC_WPA3_EXT_PSK_MIXED_MODE',
    'SEC_WPA_WPA2', 'SHORT', 'SLEEP', 'SOCK_DGRAM', 'SOCK_RAW', 'SOCK_STREAM', 'SOFT_RESET',
    'SOL_SOCKET', 'SO_BINDTODEVICE', 'SO_BROADCAST', 'SO_REUSEADDR', 'SPI', 'SSLContext',
    'SSLSocket', 'STAT_ASSOC_FAIL', 'STAT_BEACON_TIMEOUT', 'STAT_CONNECTING',
    'STAT_CONNECT_FAIL', 'STAT_GOT_IP', 'STAT_HANDSHAKE_TIMEOUT', 'STAT_IDLE',
    'STAT_NO_AP_FOUND', 'STAT_NO_AP_FOUND_IN_AUTHMODE_THRESHOLD',
    'STAT_NO_AP_FOUND_IN_RSSI_THRESHOLD', 'STAT_NO_AP_FOUND_W_COMPATIBLE_SECURITY',
    'STAT_WRONG_PASSWORD', 'STA_IF', 'STEREO', 'Signal', 'SoftI2C', 'SoftSPI',
    'StopAsyncIteration', 'StringIO', 'TCP_NODELAY', 'TIMER_WAKE', 'TOUCHPAD_WAKE', 'TX',
    'TYPE_APP', 'TYPE_DATA', 'Task', 'TaskQueue', 'TextIOWrapper', 'Timer', 'TouchPad', 'UART',
    'UINT', 'UINT16', 'UINT32', 'UINT64', 'UINT8', 'ULONG', 'ULONGLONG', 'ULP', 'ULP_WAKE',
    'USHORT', 'UUID', 'UnicodeError', 'VOID', 'VfsFat', 'VfsLfs2', 'ViperTypeError',
    'WAKEUP_ALL_LOW', 'WAKEUP_ANY_HIGH', 'WAKE_HIGH', 'WAKE_LOW', 'WDT', 'WDT_RESET',
    'WIDTH_10BIT', 'WIDTH_11BIT', 'WIDTH_12BIT', 'WIDTH_9BIT', 'WLAN', 'ZLIB', '__aenter__',
    '__aexit__', '__aiter__', '__all__', '__anext__', '__bases__', '__build_class__',
    '__del__', '__delattr__', '__dict__', '__file__', '__globals__', '__import__', '__path__',
    '__repl_print__', '__reversed__', '__set_name__', '__setattr__', '__traceback__',
    '_asyncio', '_build', '_espnow', '_machine', '_mpy', '_onewire', '_task_queue', '_thread',
    '_webrepl', 'a2b_base64', 'abs_tol', 'accept', 'acos', 'acosh', 'acquire', 'active', 'add',
    'add_peer', 'addr', 'addr4', 'addr_mode', 'addressof', 'addrsize', 'adv_data', 'aes',
    'alloc_emergency_exception_buf', 'allocate_lock', 'appendleft', 'arg', 'argv', 'array',
    'asin', 'asinh', 'atan', 'atan2', 'atanh', 'atten', 'authmode', 'b2a_base64', 'baudrate',
    'bcc', 'bccz', 'bin', 'binascii', 'bind', 'bit_branch', 'bits', 'bitstream',
    'bitstream_channel', 'blit', 'block', 'block_size', 'bluetooth', 'board', 'bond',
    'bound_method', 'bssid', 'btree', 'buf', 'buffer', 'buffering', 'bytearray_at',
    'byteorder', 'bytes_at', 'cachesize', 'calcsize', 'call0', 'callback', 'cancel', 'cd',
    'ceil', 'center', 'channel', 'chdir', 'choice', 'cipher', 'client_id', 'clock_div',
    'closure', 'cmath', 'code', 'collect', 'collections', 'commit', 'compile', 'complex',
    'config', 'connect', 'connectable', 'copysign', 'coro', 'cos', 'cosh', 'country', 'crc32',
    'crc8', 'cryptolib', 'cs', 'cts', 'cur_task', 'data', 'datetime', 'decode', 'decrypt',
    'deepsleep', 'default', 'deflate', 'degrees', 'deinit', 'del_peer', 'delattr', 'deleter',
    'deque', 'dhcp4', 'dhcp_hostname', 'dht_readinto', 'dict_view', 'difference',
    'difference_update', 'digest', 'disable', 'disable_irq', 'discard', 'disconnect', 'dns',
    'do_handshake_on_connect', 'doc', 'done', 'drive', 'dump', 'dumps', 'dupterm',
    'dupterm_notify', 'duty', 'duty_ns', 'duty_u16', 'e', 'ellipse', 'enable', 'enable_irq',
    'encode', 'encoding', 'encrypt', 'enumerate', 'erase_key', 'erf', 'erfc', 'errno',
    'errorcode', 'esp', 'esp32', 'essid', 'execfile', 'exit', 'exp', 'expm1', 'fabs',
    'factorial', 'falling', 'feed', 'file', 'fileno', 'fill', 'fill_rect', 'filter',
    'firstbit', 'flags', 'flash_erase', 'flash_read', 'flash_size', 'flash_user_start',
    'flash_write', 'float', 'floor', 'flow', 'flush', 'fmod', 'framebuf', 'freq', 'frexp',
    'fromhex', 'fromkeys', 'frozenset', 'function', 'gamma', 'gap_advertise', 'gap_connect',
    'gap_disconnect', 'gap_name', 'gap_pair', 'gap_passkey', 'gap_scan',
    'gattc_discover_characteristics', 'gattc_discover_descriptors', 'gattc_discover_services',
    'gattc_exchange_mtu', 'gattc_read', 'gattc_write', 'gatts_indicate', 'gatts_notify',
    'gatts_read', 'gatts_register_services', 'gatts_set_buffer', 'gatts_write', 'gc',
    'generator', 'get_blob', 'get_ciphers', 'get_i32', 'get_ident', 'get_next_update',
    'get_peer', 'get_peers', 'getaddrinfo', 'getcwd', 'getpeercert', 'getrandbits', 'getter',
    'getvalue', 'gmtime', 'gpio_deep_sleep_hold', 'gpio_matrix_in', 'gpio_matrix_out', 'group',
    'gw4', 'handler', 'hard', 'hashlib', 'heap_lock', 'heap_unlock', 'heapify', 'heappop',
    'heappush', 'heapq', 'help', 'hex', 'hexlify', 'hidden', 'hline', 'hold', 'hostname',
    'ibuf', 'idf_heap_info', 'idle', 'idle_level', 'ifconfig', 'ifidx', 'ifname', 'ilistdir',
    'imag', 'implementation', 'indices', 'inf', 'info', 'init', 'input', 'intersection',
    'intersection_update', 'interval_us', 'invert', 'io', 'ioctl', 'ipconfig', 'ipoll', 'irq',
    'isclose', 'isconnected', 'isdisjoint', 'isenabled', 'isfinite', 'isinf', 'isnan',
    'issubset', 'issuperset', 'iterable', 'iterator', 'json', 'kbd_intr', 'keepends', 'l32r',
    'label', 'ldexp', 'le_secure', 'level', 'lgamma', 'libc_ver', 'lightsleep', 'line',
    'listdir', 'listen', 'lmk', 'load', 'load_binary', 'load_cert_chain',
    'load_verify_locations', 'loads', 'localtime', 'location', 'lock', 'locked', 'log',
    'log10', 'log2', 'lookahead', 'loop', 'mac', 'machine', 'makefile',
    'mark_app_valid_cancel_rollback', 'match', 'math', 'max', 'max_clients',
    'maximum recursion depth exceeded', 'maxsize', 'md5', 'mdc', 'mdio', 'mem', 'mem16',
    'mem32', 'mem8', 'mem_alloc', 'mem_free', 'mem_info', 'memaddr', 'memory', 'memoryview',
    'min', 'minkeypage', 'miso', 'mitm', 'mkdir', 'mkfs', 'mktime', 'mod_peer', 'mode',
    'mode_high', 'mode_low', 'mode_pin', 'modf', 'modify', 'module', 'modules', 'mosi',
    'mount', 'mtime', 'mtu', 'name', 'namedtuple', 'nan', 'native', 'network', 'newline',
    'nodename', 'oct', 'off', 'on', 'onewire', 'opt_level', 'os', 'osdebug', 'pack',
    'pack_into', 'pagesize', 'parity', 'partition', 'password', 'path', 'peek', 'peer_count',
    'peers_table', 'pend_throw', 'period', 'ph_key', 'phase', 'phy_addr', 'phy_mode',
    'phy_type', 'pi', 'pin', 'pins', 'pixel', 'platform', 'pm', 'polar', 'polarity', 'poll',
    'poly', 'popleft', 'power', 'print_exception', 'progsize', 'property', 'protocol', 'ps1',
    'ps2', 'ptr', 'ptr16', 'ptr32', 'ptr8', 'pull', 'push', 'put', 'python_compiler',
    'qstr_info', 'r', 'radians', 'randint', 'random', 'randrange', 'rate', 'raw_temperature',
    'rb', 're', 'read_u16', 'read_uv', 'readbit', 'readblocks', 'readbyte', 'readfrom',
    'readfrom_into', 'readfrom_mem', 'readfrom_mem_into', 'readlines', 'readonly', 'readsize',
    'real', 'reconnects', 'rect', 'recv', 'recv_into', 'recvfrom', 'recvinto', 'ref_clk',
    'ref_clk_mode', 'register', 'rel_tol', 'release', 'rename', 'reset', 'reset_cause',
    'resp_data', 'reversed', 'rising', 'rmdir', 'rpartition', 'rssi', 'rts', 'run', 'rx',
    'rxbuf', 'scan', 'schedule', 'sck', 'scl', 'scroll', 'sd', 'sda', 'search', 'security',
    'seed', 'seek', 'select', 'sendall', 'sendbreak', 'sendto', 'separators', 'seq',
    'server_hostname', 'server_side', 'set_blob', 'set_boot', 'set_ciphers', 'set_i32',
    'set_pmk', 'set_wakeup_period', 'setblocking', 'setsockopt', 'setter', 'settimeout',
    'sha1', 'sha256', 'shift', 'sin', 'single', 'sinh', 'sizeof', 'sleep', 'sleep_ms',
    'sleep_us', 'slice', 'slot', 'socket', 'soft_reset', 'source_freq', 'spi', 'splitlines',
    'sqrt', 'ssid', 'stack_size', 'stack_use', 'start_new_thread', 'stat', 'state', 'stations',
    'stats', 'status', 'statvfs', 'stderr', 'stdin', 'stdout', 'stream', 'struct', 'sub',
    'subtype', 'symmetric_difference', 'symmetric_difference_update', 'sync', 'sys', 'sysname',
    'tan', 'tanh', 'target', 'tau', 'tell', 'text', 'threshold', 'threshold0', 'threshold1',
    'tick_hz', 'ticks_add', 'ticks_cpu', 'ticks_diff', 'ticks_ms', 'ticks_us', 'time',
    'time_ns', 'time_pulse_us', 'timeout', 'timeout_char', 'timeout_ms', 'tls', 'toggle',
    'trigger', 'trunc', 'tx', 'tx_carrier', 'txbuf', 'txdone', 'txpower', 'uctypes', 'uint',
    'umount', 'uname', 'unhexlify', 'uniform', 'union', 'unique_id', 'unlink', 'unpack',
    'unpack_from', 'unregister', 'urandom', 'user', 'username', 'usys', 'verify_callback',
    'verify_mode', 'version', 'version_info', 'vfs', 'viper', 'vline', 'wait_done', 'wake',
    'wake_on_ext0', 'wake_on_ext1', 'wake_on_touch', 'wake_on_ulp', 'wake_reason', 'wb',
    'websocket', 'width', 'wp', 'wrap_socket', 'write_pulses', 'write_readinto', 'writebit',
    'writeblocks', 'writebyte', 'writeto', 'writeto_mem', 'writevto', 'ws', '{:#b}',
    '\n{:,d}k free', '\r\n\r\n', '\x1b[2J\x1b[H', '          %s', '    <dir> %s', '!BH', '!H',
    '!I', '#', '% 9d %s', '(Empty line to quit)', '.', '..', './boot.py', './webrepl_cfg.py',
    '.json', '.mpy', '.py', '.tmp', '/-/raw/', '/rom', '0\r\n\r\n', '0.0.0.0', '0.1.0',
    '0.1.1', '0.10.2', '0.2.1', '0.4.1', '0.6.1', '0.8.0', '1.0.2', '1.6.0', ':', '> ',
    'AIOESPNow', 'APA106', 'Authorization', 'BASE', 'Basic {}', 'CLEAR', 'CONFIG', 'CRC error',
    'Confirm password: ', 'Connection', 'Content-Length', 'Content-Type', 'Copying:',
    'Counter', 'D', 'DEBUG', 'DELAY', 'DELETE', 'DHT11', 'DHT22', 'DHTBase', 'DOWN', 'DS18X20',
    'Done', 'Downloading {} to {}', 'E', 'ESPNow', 'Encoder', 'Error', 'Event', 'Exists:',
    'FALLING', 'File not found: {} {}', 'GET', 'HEAD', 'Host', 'IOQueue',
    'Installing {} to {}', 'Invalid password length', 'LS', 'Lock', 'Lock not acquired',
    'Loop', 'MATCH_ROM', 'MQTTClient', 'MQTTException', 'Man', 'NeoPixel', 'ORDER', 'OneWire',
    'OneWireError', 'PASS', 'PASS = %r\n', 'PATCH', 'PCNT in use', 'POST', 'PUT', 'PWD',
    'Package not found:', 'Passwords do not match', 'Performing initial setup', 'RC', 'RISING',
    'Response', 'SEARCH_ROM', 'SKIP_ROM', 'Sec-WebSocket-Key:', 'Server', 'SingletonGenerator',
    'Stream', 'StreamReader', 'StreamWriter', 'ThreadSafeFlag', 'TimeoutError',
    'Transfer-Encoding', 'UP', 'Unsupported ', 'Unsupported epoch: {}',
    'Unsupported protocol: ', '_CHUNK_SIZE', '_CounterBase', '_INSTANCES', '_PCNT', '_Remove',
    '__version__', '_attrs', '_boot.py', '_cached', '_check_exists', '_chunk', '_configure',
    '_context', '_data', '_dequeue', '_download_file', '_enqueue', '_ensure_path_exists',
    '_exc_context', '_exc_handler', '_install_json', '_install_package', '_io_queue',
    '_none_tuple', '_offset', '_overflow', '_overflows', '_ow', '_path', '_pcnt', '_phases',
    '_promote_to_task', '_recv_len', '_rewrite_url', '_run', '_search_rom', '_send_str',
    '_serve', '_stop_task', '_stopper', '_unit_id', 'accept_conn', 'accept_handler', 'aclose',
    'action', 'aioespnow.py', 'airecv', 'allowed_mip_url_prefixes', 'apa106.py',
    'application/json', 'arecv', 'ascii', 'asend', 'asyncio', 'asyncio/__init__.py',
    'asyncio/core.py', 'asyncio/event.py', 'asyncio/funcs.py', 'asyncio/lock.py',
    'asyncio/stream.py', 'attempts', 'attr', 'auth', 'aw', 'awrite', 'awritestr', 'backlog',
    'bdev', 'boot.py', 'bpp', 'branch', 'cadata', 'cafile', 'call_exception_handler',
    "can't gather", 'cat', 'cb', 'cert', 'cert_reqs', 'certfile', 'change_daemon',
    'check_bootsec', 'check_msg', 'checksum error', 'choices', 'chunked', 'cl',
    'clean_session', 'client_s', 'cls', 'content', 'context', 'convert_temp', 'core', 'coro=',
    'coroutine expected', 'cp', 'create_task', 'current_task', 'd',
    'default_exception_handler', 'delay', 'delete', 'deps', 'dest', 'dht.py', 'diff',
    'direction', 'disabled', 'do_handshake', 'drain', 'ds18x20.py', 'dt', 'edge', 'enabled',
    'er', 'espnow', 'espnow.py', 'event', 'exc', 'exc_type', 'exception', 'exists', 'f',
    'ffat', 'filter_ns', 'flashbdev', 'flashbdev.py', 'fname', 'fs_corrupted', 'funcs',
    'future', 'future:', 'gather', 'get_daemon_status', 'get_event_loop',
    'get_exception_handler', 'get_extra_info', 'getpass', 'github:', 'gitlab:', 'hashes',
    'head', 'headers', 'host', 'http:', 'http://', 'https:', 'https://', 'https://gitlab.com/',
    'humidity', 'i', 'idx', 'import webrepl', 'in_reconnect', 'inisetup', 'inisetup.py',
    'input_choice', 'input_pass', 'install', 'irecv', 'is_set', 'keepalive', 'keyfile',
    'l_rom', 'latest', 'listen_s', 'listen_sock', 'ls', 'lw_msg', 'lw_qos', 'lw_retain',
    'lw_topic', 'machine.py', 'main_task', 'man', 'measure', 'message', 'method',
    'mip/__init__.py', 'mpy', 'mqtt reconnect: %r', 'mqtt: %r', 'msg', 'mv', 'n', 'neopixel',
    'neopixel.py', 'new_event_loop', 'newfile', 'no running event loop', 'not initialised',
    'ntptime.py', 'onewire.py', 'open_connection', 'out_buf', 'ow', 'package', 'package.json',
    'package_json_url', 'parse_headers', 'patch', 'pcnt', 'peername', 'phase_a', 'phase_b',
    'phases', 'pid', 'ping', 'poller', 'pool.ntp.org', 'port', 'post', 'prompt', 'pswd',
    'publish', 'pwd', 'py', 'pyb', 'pyboard', 'qos', 'queue_read', 'queue_write', 'raw',
    'read_scratch', 'read_temp', 'readexactly', 'reason', 'reconnect', 'recursive', 'rejected',
    'req', 'request', 'requesting', 'requests', 'requests/__init__.py', 'required', 'respkey:',
    'retain', 'return_exceptions', 'rm', "rm of '%s' failed", 'rom', 'run_forever',
    'run_until_complete', 'runq_len', 'rwb', 's', 'select_rom', 'send_html', 'server',
    'server_handshake', 'set_callback', 'set_exception_handler', 'set_last_will', 'settime',
    'setup', 'setup_conn', 'sgen', 'short_hash', 'simple', 'sock', 'src', 'ssl', 'ssl.py',
    'ssl_params', 'start_foreground', 'start_server', 'static_host', 'status_code',
    'stream_awrite', 'subscribe', 'sz', 't', 'task', 'tb', 'temperature', 'ticks', 'timing',
    'topic', 'uasyncio.py', 'umqtt/robust.py', 'umqtt/simple.py', 'unit_id', 'upysh.py',
    'urequests.py', 'url', 'urls', 'v', 'val', 'w', 'wait', 'wait_closed', 'wait_for',
    'wait_for_ms', 'wait_io_event', 'wait_msg', 'waiter', 'waiting', 'waitq_len', 'webrepl',
    'webrepl.py', 'webrepl.start()', 'webrepl_cfg', 'webrepl_setup.py', 'write_scratch', 'y',
    '{}/file/{}/{}', '{}/package/{}/{}/{}.json', '{}/{}',
)
_STATIC = frozenset(STATIC_NAMES)
