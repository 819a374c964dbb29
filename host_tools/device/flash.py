# `cran flash`: put the firmware, a board file and a config on badges, with the real
# mpremote transport and mpy-cross. Only files whose SHA-256 differs are copied, each to
# a temporary name then renamed, every file is checked after, main.py is written last:
# a flash cut short leaves a badge that boots to its REPL (no main.py), never a half
# firmware, and the next run finds and copies what is missing. That REPL never holds
# the game key: the key goes with main.py as the flash starts, and comes back with it
# in the one command that ends the flash by a reset (a cut host leaves either). Game
# state (state.a/b, journal, boots.json) is never touched; radio.json, what a radio
# game's badge keeps of the tokens it took, is written again with its check.
import base64
import hashlib
import json
import os
import re
import subprocess
import sys
import threading
import time

from cran.lock import key_id
from host_tools import CommandError, build
from host_tools.boards import board_file_text, board_ids, read_board
from host_tools.device import badgeport
from host_tools.game import gamekey

MAIN = "/main.py"
CONFIG = "/config.json"
GAME_KEY = "/" + gamekey.KEY_FILE   # read by cran.lock.read_key, never shown by a command
PARKED_MAIN = "/main.py.off"    # main.py set aside while a flash is under way
RADIO_KEPT = "/radio.json"      # cran.radio.start's: the tokens taken, the counter's mark
# The stock ESP32 image writes a boot.py (comments only) when it makes the file system;
# MicroPython runs it before main.py with Ctrl-C on, and a Ctrl-C then skips main.py: the
# REPL. Nothing of the badge's is in it: a flash removes it (docs/RELIABILITY.md).
BOOT_PY = "/boot.py"
CHUNK = 2048
# machine.reset() runs ~100 ms after the raw REPL has let go: what is sent before then
# reaches the firmware that is going away.
RESET_DELAY_S = 0.3

# Runs on the badge: SHA-256 of each file asked (None when missing), every module at its
# root and every file under /cran (an older cran's: modules a new firmware no longer
# has), and what a cut flash left behind.
_LOOK = """
import os, json, hashlib, binascii
def _h(p):
    try:
        f = open(p, 'rb')
    except OSError:
        return None
    h = hashlib.sha256()
    b = bytearray(1024)
    while True:
        n = f.readinto(b)
        if not n:
            break
        h.update(b if n == 1024 else b[:n])
    f.close()
    return binascii.hexlify(h.digest()).decode()
def _walk(d, out):
    try:
        items = list(os.ilistdir(d))
    except OSError:
        return
    for e in items:
        p = d.rstrip('/') + '/' + e[0]
        if e[1] & 0x4000:
            _walk(p, out)
        else:
            out.append(p)
_all = []
_walk('/', _all)
print(json.dumps({'hashes': dict((p, _h(p)) for p in %s),
                  'cran': [p for p in _all if p.startswith('/cran/') or (
                      p.count('/') == 1 and p.endswith('.mpy'))],
                  'cran_dir': 'cran' in os.listdir('/'),
                  'leftovers': [p for p in _all if p.endswith('.new') or p == %r]}))
"""
# The names a badge goes by: its chip's unique id, and the "badge" its config gives it;
# the board its config names, and whether it is the game master's station (STATION).
_NAMES = ("import json, machine\ntry:\n c = json.load(open('/config.json'))\n"
          " b, d, s = c.get('badge'), c.get('board'), c.get('station') is True\n"
          "except Exception:\n b = d = None\n s = False\n"
          "print(json.dumps([''.join('%02x' % x for x in machine.unique_id()), b, d, s]))")
# A station badge's config (cran flash --station): no board, character or key, a relay.
STATION_CONFIG = json.dumps({"station": True})
# Runs on the badge: its ROMFS partition, if its MicroPython has one (vfs.rom_ioctl, as
# mpremote's `romfs query` asks): [size, SHA-256 of its first N bytes], or null.
_ROM_LOOK = """
import vfs, json, hashlib, binascii
try:
    d = vfs.rom_ioctl(2, 0)
except (AttributeError, OSError):
    d = -1
if isinstance(d, int):
    print('null')
else:
    m = memoryview(d)
    n = min(%d, len(m))
    h = hashlib.sha256()
    for i in range(0, n, 1024):
        h.update(m[i:min(n, i + 1024)])
    print(json.dumps([len(m), binascii.hexlify(h.digest()).decode()]))
"""
ROMFS_PREPARE_BYTES = 32768   # erased a piece at a time, as mpremote does: a raw REPL
                              # command that erases 128 KB at once can outlast its wait
# machine: the board and chip MicroPython was built for, "Generic ESP32 module with
# ESP32" (os.uname().machine, sys.implementation._machine: the same on an ESP32).
_IMPL = ("import os, sys, json\nu = getattr(os, 'uname', None)\n"
         "print(json.dumps({'name': sys.implementation.name, 'version': "
         "list(sys.implementation.version), 'mpy': getattr(sys.implementation, '_mpy', "
         "None), 'machine': u().machine if u else getattr(sys.implementation, '_machine', "
         "'')}))")


class Builds:
    """The firmware compiled once for each .mpy flavour the badges ask for; the threads
    flashing several badges share it."""

    def __init__(self, root):
        self.root = root
        self.lock = threading.Lock()
        self.made = {}
        self.images = {}   # the modules' ROMFS image, per flavour, once a badge wants it

    def files(self, impl, station=False):
        """-> {badge path: bytes} of the firmware for a badge's sys.implementation (a
        station's: build.compile_station)."""
        extra = tuple(build.compat_args(impl))
        with self.lock:
            if (extra, station) not in self.made:
                out = os.path.join(self.root, "build-%d" % len(self.made))
                os.mkdir(out)
                made = (build.compile_station if station else build.compile_firmware)(
                    out, list(extra))
                self.made[extra, station] = {path: _read(local)
                                             for path, local in made.items()}
            return dict(self.made[extra, station])

    def romfs_image(self, impl):
        """-> the ROMFS image of the firmware's modules for a badge's
        sys.implementation (build.romfs_image), made once."""
        files = self.files(impl)
        extra = tuple(build.compat_args(impl))
        with self.lock:
            if extra not in self.images:
                self.images[extra] = build.romfs_image(files)
            return self.images[extra]


def _read(path):
    with open(path, "rb") as f:
        return f.read()


def _sha256(data):
    return hashlib.sha256(data).hexdigest()


def _dirs_of(paths):
    out = set()
    for p in paths:
        parts = p.strip("/").split("/")[:-1]
        for i in range(1, len(parts) + 1):
            out.add("/" + "/".join(parts[:i]))
    return sorted(out, key=lambda d: d.count("/"))


class Report:
    def __init__(self, port):
        self.port = port
        self.copied = []
        self.bytes = 0          # file bytes copied
        self.wire_bytes = 0     # bytes of code sent to write them
        self.removed = []
        self.repaired = False
        self.romfs = None       # the firmware in the ROMFS partition: "written", "as it was"
        self.seconds = 0.0
        self.status = None
        self.notes = []         # what the organiser must hear of this badge, a line each


def _look(link, paths):
    return json.loads(badgeport.run(link, _LOOK % (json.dumps(sorted(paths)), PARKED_MAIN)))


def flash_one(port, board, config_text, builds, progress=lambda done, total: None,
              find=None, key=None, station=False):
    """Bring one badge up to date: board, a Board (host_tools.boards.read_board, read
    once for the whole command). config_text None: keep the badge's own config (the
    board alone where it has none). board None: find(chip id, config's badge name,
    config's board, whether its config is a station's) -> (Board, config text) says
    what this badge gets; (None, None): it stays the station it is. key: the game key
    it gets (GAME_KEY; default: this computer's own, host_tools.game.gamekey), or, for a
    station, the one that may unlock it (a player's badge it becomes). station: the
    game master's station (docs/radio.md), which gets no board, config or key. ->
    Report."""
    if key is None:
        key = gamekey.own_key()
    gamekey.remember(key)   # so that this computer unlocks the badge from now on
    report = Report(port)
    started = time.monotonic()
    link = badgeport.connect(port, [key])
    try:
        names = json.loads(badgeport.run(link, _NAMES))
        if board is None and not station:
            board, config_text = find(*names)
            station = board is None   # a station flashed again stays one
        impl = json.loads(badgeport.run(link, _IMPL))
        if station:
            files, image, rom_todo = _station_files(builds, impl)
            config_text = STATION_CONFIG
        else:
            config_text = _player_config(link, port, board, config_text, names, impl)
            files, image, rom_todo = _player_files(link, builds, impl, board, key, report)
        seen = _look(link, list(files) + [CONFIG, GAME_KEY, BOOT_PY])
        on_badge = seen["hashes"]
        if config_text is None and on_badge.get(CONFIG) is None:
            config_text = json.dumps({"board": board.id})
        if config_text is not None:
            files[CONFIG] = config_text.encode()
        if not station:
            _with_radio_kept(link, files, config_text, report)
        wanted = {path: _sha256(data) for path, data in files.items()}
        stale = [p for p in seen["cran"] if p not in wanted and not p.endswith(".new")]
        if station and on_badge.get(GAME_KEY) is not None:
            stale.append(GAME_KEY)   # a station holds no key (a player's badge made one)
        if on_badge.get(BOOT_PY) is not None:
            stale.append(BOOT_PY)
        # The config and the board file before the modules: a flash cut short leaves a
        # config naming the board, which `cran status` offers again (badgeport.no_firmware).
        todo = [p for p in sorted(wanted, key=lambda p: (p.endswith(".mpy"), p))
                if on_badge.get(p) != wanted[p]]
        # What a cut flash left: a file half-written, main.py set aside, or (a new
        # badge's first flash, which had no main.py to set aside) modules without one.
        report.repaired = bool(seen["leftovers"]) or (
            on_badge.get(MAIN) is None and bool(seen["cran"]))
        drop_tree = image is not None and seen["cran_dir"]
        last = None   # the flash's last command, with its reset: main.py and the key back
        if todo or stale or rom_todo or drop_tree:
            link = _restart_without_main(link, port, on_badge.get(MAIN) is not None)
            progress(0, 1)   # from here until main.py is back, a cut flash needs finishing
            if rom_todo:
                _write_romfs(link, port, image, report)
            _copy(link, port, files, wanted, todo, stale, report, progress, drop_tree)
            # What a cut flash left, but main.py set aside: the last command renames it.
            _clean(link, [p for p in seen["leftovers"] if p != PARKED_MAIN])
            last = _put_back(files.get(GAME_KEY))
            if GAME_KEY in todo:
                report.copied.append(GAME_KEY)
                report.bytes += len(files[GAME_KEY])
        else:
            _clean(link, seen["leftovers"])
        progress(1, 1)
        badgeport.reset(link, last)
        link = None
    finally:
        if link is not None:
            badgeport.close(link)
    report.status = _status_after_boot(port)
    if "error" in report.status:
        raise CommandError("%s: flashed, but the badge cannot start: %s"
                           % (port, build.module_names(report.status["error"])))
    if not station:   # a station keeps no journal: its clock is the computer's
        _check_locked(port, key)
        set_clock(port, key)
    report.seconds = time.monotonic() - started
    return report


def _player_config(link, port, board, config_text, names, impl):
    """The config text a player's badge gets (None: it keeps its own), its board
    checked against its chip first."""
    machine = impl.get("machine", "")
    check_chip(port, board, machine, config_text is not None)
    board_id = board.id
    its_board = names[2]
    if config_text is None and names[3]:
        return json.dumps({"board": board_id})   # a station made a player: a blank one
    if config_text is None and its_board not in (None, board_id):
        if fits(its_board, machine):   # either may be right: the organiser says
            raise CommandError(
                "%s: badge %s has a config for board %s, not %s: leave --board out to "
                "keep it, or give a --config (or a --roster row) for %s"
                % (port, badgeport.badge_names(names[0], names[1]), its_board,
                   board_id, board_id))
        # Its config's board was never this chip's: the rest of it is kept.
        return _with_board(link, board_id)
    return config_text


def _player_files(link, builds, impl, board, key, report):
    """-> (what a player's badge gets on its file system {badge path: bytes}, its
    firmware's ROMFS image or None, whether that image must be written)."""
    image, rom_todo = _romfs_for(link, builds, impl)
    if image is None:
        return player_files(builds, impl, board, key), None, rom_todo
    # The modules go to its ROMFS partition, run in place.
    report.romfs = "as it was"
    modules = builds.files(impl)
    files = {p: d for p, d in modules.items() if not p.endswith(".mpy")}
    files[build.MANIFEST] = build.manifest_text(modules, ROM).encode()
    return _with_board_and_key(files, board, key), image, rom_todo


def player_files(builds, impl, board, key):
    """-> {badge path: bytes}: what a player's badge on the stock MicroPython image (no
    ROMFS partition) gets on its file system, but its config: the firmware as files, the
    manifest main.py checks them against, its board file (board: a Board) and the game
    key. (The
    emulated chip of host_tools.device.qemu is given the same.)"""
    files = builds.files(impl)
    files[build.MANIFEST] = build.manifest_text(files).encode()   # main.py checks
    return _with_board_and_key(files, board, key)


def _with_board_and_key(files, board, key):
    files["/boards/%s.json" % board.id] = board_file_text(board).encode()
    files[GAME_KEY] = key
    return files


def _station_files(builds, impl):
    """The same for the game master's station: its relay as files (a few KB: its ROMFS
    partition, if it has one, is left as it is, under the files), no board, no key."""
    files = builds.files(impl, station=True)
    files[build.MANIFEST] = build.manifest_text(
        files, fail_needs=build.station_modules()).encode()
    return files, None, False


def chip_family(name):
    """A chip's name as a board file or MicroPython writes it -> its family:
    "esp32-pico-d4" (a package of the ESP32) and "ESP32" are "esp32", "ESP32C3" and
    "esp32-c3" "esp32c3"; another maker's chip its name ("rp2040")."""
    name = name.lower().replace("-", "")
    found = re.match(r"esp32([a-z][0-9])?", name)
    return found.group(0) if found else name


def chip_of(machine):
    """MicroPython's machine text ("M5Stack ATOM with ESP32-PICO-D4", "ESP32C3 module
    with ESP32C3") -> the chip family its build is for, or None where it names none (a
    desktop's port)."""
    if " with " not in machine:
        return None
    return chip_family(machine.rsplit(" with ", 1)[1].strip())


def board_chip(board_id):
    """Another board's chip family, from its board file (the badge's own config's, the
    boards to suggest for a chip: the board flashed is read once, its .chip)."""
    return chip_family(read_board(board_id).chip)


def fits(board_id, machine):
    """Whether a board is for the chip MicroPython's machine text names (or names none)."""
    found = chip_of(machine)
    return board_id in board_ids() and found in (None, board_chip(board_id))


def _with_board(link, board_id):
    """The badge's own config, its board changed: the text to write."""
    config = json.loads(badgeport.run(link, "print(open(%r).read())" % CONFIG))
    config["board"] = board_id
    return json.dumps(config)


def check_chip(port, board, machine, config_given=False):
    """A board file is for one chip: a badge whose MicroPython says another is not that
    board (its pins, its MicroPython image differ). CommandError naming both, and the
    boards for the chip found: to give as --board, or in the config given (a --config
    file, a roster row), which has the wrong one."""
    found = chip_of(machine)
    wanted = chip_family(board.chip)
    if found is None or found == wanted:
        return
    those = [b for b in board_ids() if board_chip(b) == found]
    if not those:
        fix = "cran has no board file for an %s (boards/)" % found.upper()
    else:
        named = ("board %s" % those[0] if len(those) == 1 else "the board of an %s (%s or %s)"
                 % (found.upper(), ", ".join(those[:-1]), those[-1]))
        fix = ("its config (--config file or roster row) needs %s" % named if config_given
               else "give --board %s" % those[0] if len(those) == 1
               else "give %s as --board" % named)
    raise CommandError("%s: board %s is an %s, but this badge is an %s (its MicroPython "
                       "says \"%s\"): %s" % (port, board.id, wanted.upper(), found.upper(),
                                              machine, fix))


ROM = "/rom"   # where MicroPython mounts its ROMFS partition (and puts it on sys.path)


def _rom_look(link, length):
    return json.loads(badgeport.run(link, _ROM_LOOK % length))


def _rom_hash(link, length):
    seen = _rom_look(link, length)
    return seen[1] if seen else None


def _romfs_for(link, builds, impl):
    """-> (the firmware's ROMFS image when the badge has a ROMFS partition that takes
    it, else None: its modules go on its file system, as on a stock MicroPython; whether
    the partition holds another image)."""
    if _rom_look(link, 0) is None:   # a stock MicroPython: no image is made for it
        return None, False
    image = builds.romfs_image(impl)
    size, sha = _rom_look(link, len(image))
    if len(image) > size:
        return None, False
    return image, sha != _sha256(image)


def _write_romfs(link, port, image, report):
    """The image into ROMFS partition 0, as `mpremote romfs deploy` writes it: unmounted,
    erased a piece at a time, written, completed, then checked. A cut leaves a partition
    whose image differs: main.py is set aside until the end, and the next flash writes
    it again."""
    badgeport.run(link, "import vfs\ntry:\n vfs.umount(%r)\nexcept OSError:\n pass" % ROM)
    smallest = 4
    for offset in range(0, len(image), ROMFS_PREPARE_BYTES):
        length = min(ROMFS_PREPARE_BYTES, len(image) - offset)
        smallest = max(smallest, int(badgeport.run(
            link, "print(vfs.rom_ioctl(3, 0, %d, %d))" % (offset, length)).strip() or 4))
    padded = image + b"\xff" * (-len(image) % smallest)
    badgeport.run(link, "from binascii import a2b_base64 as a")
    for offset in range(0, len(padded), CHUNK):
        report.wire_bytes += badgeport.run_counted(link, "vfs.rom_ioctl(4, 0, %d, a(%r))" % (
            offset, base64.b64encode(padded[offset:offset + CHUNK]).decode()))
    badgeport.run(link, "vfs.rom_ioctl(5, 0)")
    if _rom_hash(link, len(image)) != _sha256(image):
        raise CommandError("%s: its ROMFS partition differs after writing: flash again"
                           % port)
    report.romfs = "written"
    report.bytes += len(image)


def set_clock(port, key):
    """The badge's wall clock set to this computer's (its journal then carries real
    times, and its RTC keeps them through resets), with the console unlocked by key."""
    said = badgeport.ask(port, "clock %d" % int(time.time()), keys=[key])
    if not said or not said[-1].startswith("ok clock"):
        raise CommandError("%s: flashed, but its clock was not set: %s"
                           % (port, said[-1] if said else "no answer"))


def _restart_without_main(link, port, main_there):
    """main.py set aside, then a reset: a badge stopped at its REPL still has the app's
    watchdog running (it can't be stopped), which would reset it mid-flash; booted
    without main.py, nothing starts one. Until main.py is back, a reset lands in the
    REPL, not in a firmware half old, half new. The game key goes in the same command
    (a cut host runs it whole or not at all): that REPL, open to anyone at the cable
    until the flash ends, holds no key; _put_back writes it again. -> the new link."""
    code = ("import os\nfor p in %r:\n try:\n  os.remove(p)\n except OSError:\n  pass"
            % ([GAME_KEY, GAME_KEY + ".new"],))   # (.new: an older cran's cut flash)
    if main_there:
        code += "\nos.rename(%r, %r)" % (MAIN, PARKED_MAIN)
    badgeport.run(link, code)
    badgeport.reset(link)
    time.sleep(RESET_DELAY_S)
    deadline = time.monotonic() + badgeport.BOOT_TIMEOUT_S
    while True:
        try:
            return badgeport.connect(port)
        except CommandError:   # still booting (a native-USB port comes back later)
            if time.monotonic() > deadline:
                raise
            time.sleep(0.3)


# A folder removed with what is left in it, deepest first.
_DROP_TREE = """
import os
def _drop(d):
    try:
        items = list(os.ilistdir(d))
    except OSError:
        return
    for e in items:
        p = d + '/' + e[0]
        if e[1] & 0x4000:
            _drop(p)
        else:
            os.remove(p)
    os.rmdir(d)
_drop(%r)
"""


def _copy(link, port, files, wanted, todo, stale, report, progress, drop_tree=False):
    for d in _dirs_of(wanted):
        badgeport.run(link, "import os\ntry:\n os.mkdir(%r)\nexcept OSError:\n pass" % d)
    total = sum(len(files[p]) for p in todo) or 1
    done = 0
    for path in [p for p in todo if p not in (MAIN, GAME_KEY)]:   # (_put_back's)
        report.wire_bytes += _write(link, path, files[path])
        done += len(files[path])
        report.copied.append(path)
        report.bytes += len(files[path])
        progress(done, total)
    for path in stale:
        if path != GAME_KEY:   # (gone already: _restart_without_main)
            badgeport.run(link, "import os\nos.remove(%r)" % path)
        report.removed.append(path)
    if drop_tree:
        # The firmware is in ROMFS: a /cran folder on the file system, even empty,
        # would be found first ("" comes before /rom on sys.path) and hide it.
        badgeport.run(link, _DROP_TREE % "/cran")
    # Only a firmware found whole gets its main.py back.
    _verify(link, port, [p for p in wanted if p not in (MAIN, GAME_KEY)], wanted)
    if MAIN in todo:   # another main.py, written set aside: _put_back puts it in place
        report.wire_bytes += _write(link, PARKED_MAIN, files[MAIN])
        report.copied.append(MAIN)
        report.bytes += len(files[MAIN])
        _verify(link, port, [PARKED_MAIN], {PARKED_MAIN: wanted[MAIN]})


# Runs on the badge: radio.json and config.json as hex ("-": none), at most 8 KB each.
_READ_KEPT = ("import binascii\nfor p in %r:\n try:\n  f = open(p, 'rb')\n except OSError:\n"
              "  print('-')\n else:\n  print(binascii.hexlify(f.read(8192)).decode())\n"
              "  f.close()" % ([RADIO_KEPT, CONFIG],))


def _with_radio_kept(link, files, config_text, report):
    """files[RADIO_KEPT] set, when the badge's config (config_text, or its own when
    None) has the radio: what it kept, checked again (radio_kept)."""
    kept, own = [None if x == "-" else bytes.fromhex(x)
                 for x in badgeport.run(link, _READ_KEPT).split()]
    try:
        config = json.loads(config_text if config_text is not None else own or b"{}")
    except ValueError:
        return   # its own config unreadable: the badge can't start, and says so
    section = config.get("radio") if isinstance(config, dict) else None
    if not isinstance(section, dict):
        return   # no radio: what it kept stays for a game that turns it on again
    files[RADIO_KEPT], note = radio_kept(kept, section)
    if note:
        report.notes.append(note)


def radio_kept(old, section):
    """What a radio game's badge gets as radio.json (cran.radio.start.read_checked), from
    what it kept (old: the file's bytes, None when it has none) and its config's radio
    section. A token kept is kept only if it steps back to its authority's anchor in
    the config (cran.radio.chain_step): one of another chain, or damaged, goes, and the
    anchor is that authority's again; a damaged file is said. -> (bytes, note or
    None): old itself when nothing changes."""
    from cran import radio
    from cran.radio.start import read_checked
    from cran.storage import check_line
    note = None
    kept = {}
    checked = False
    if old is not None:
        try:
            kept = read_checked(old)
            checked = True
        except ValueError as e:
            try:   # an older firmware's: no check, its tokens checked one by one below
                kept = json.loads(old)
                if not isinstance(kept, dict) or not isinstance(kept.get("spent", {}), dict):
                    raise ValueError("not what a badge keeps")
            except ValueError:   # (UnicodeError too)
                kept = {"mark": 1 << 31}   # as the badge does: its counter jumps
                note = ("radio.json was damaged (%s): the commands it had taken start "
                        "again from their anchors" % e)
    spent = {}
    for who, entry in sorted((section.get("authorities") or {}).items()):
        who = who.lower()   # (as the badge writes an id: cran.tags.to_hex)
        last = (kept.get("spent") or {}).get(who)
        try:
            index, token = last[0], bytes.fromhex(last[1])
            anchor = bytes.fromhex(entry[1])
        except (TypeError, IndexError, KeyError, ValueError):
            continue
        if type(index) is not int or not 0 < index <= radio.CHAIN_STEPS:
            continue
        x = token
        for _ in range(index):
            x = radio.chain_step(x)
        if x == anchor:
            spent[who] = [index, last[1]]
    new = {"mark": kept.get("mark", 0), "spent": spent}
    if section.get("seed") is not None:
        new["next"] = kept.get("next", 1)
    if type(new["mark"]) is not int or new["mark"] < 0:
        new["mark"] = 1 << 31
    if type(new.get("next", 1)) is not int or new.get("next", 1) < 1:
        new["next"] = 1
    if checked and new == kept:
        return old, None
    body = json.dumps(new).encode()
    return check_line(body) + body, note


def _put_back(key):
    """The code the flash ends with, before its reset (badgeport.reset), for a badge
    whose main.py was set aside: main.py back, then the game key (key: its bytes, or
    None for a station, which holds none). In one command with the reset, a cut host
    leaves a REPL without the key or a badge that boots its firmware, locked; a power
    cut between the two, a badge without its key, never a REPL with it."""
    code = "import os\nos.rename(%r, %r)" % (PARKED_MAIN, MAIN)
    if key is not None:
        # Written in place, not through GAME_KEY.new: a copy of the key by another name
        # would be read at the REPL the next cut leaves.
        code += ("\nfrom binascii import a2b_base64\nf = open(%r, 'wb')\n"
                 "f.write(a2b_base64(%r))\nf.close()"
                 % (GAME_KEY, base64.b64encode(key).decode()))
    return code


def _check_locked(port, key):
    """The badge, booted, is locked with key (the last command wrote it unseen)."""
    said = badgeport.ask(port, "challenge", again=True)
    words = said[-1].split() if said else []
    if words[:1] != ["challenge"] or words[2:] != [key_id(key)]:
        raise CommandError("%s: flashed, but its console is not locked with the game key "
                           "(it says %s): flash again" % (port, said[-1] if said else
                                                          "nothing"))


def _clean(link, leftovers):
    # What a cut flash left: temporary files, a main.py set aside (copied again or put
    # back by now).
    if leftovers:
        badgeport.run(link, "import os\nfor p in %r:\n try:\n  os.remove(p)\n except OSError:"
                            "\n  pass" % (leftovers,))


def _verify(link, port, paths, wanted):
    seen = _look(link, paths)["hashes"]
    wrong = [p for p in sorted(paths) if seen.get(p) != wanted[p]]
    if wrong:
        raise CommandError("%s: %d file(s) differ after copying (%s): flash again"
                           % (port, len(wrong), ", ".join(wrong[:3])))


def _write(link, path, data):
    """To a temporary name, then a rename: a cut leaves the old file or the new one.
    Base64, not repr(): a .mpy's bytes as \\xNN escapes would be ~3x longer on a UART.
    -> bytes sent."""
    temp = path + ".new"
    sent = badgeport.run_counted(link, "from binascii import a2b_base64 as a\n"
                                       "f=open(%r,'wb')\nw=f.write" % temp)
    for i in range(0, len(data), CHUNK):
        sent += badgeport.run_counted(link, "w(a(%r))"
                                      % base64.b64encode(data[i:i + CHUNK]).decode())
    return sent + badgeport.run_counted(link, "f.close()\nimport os\nos.rename(%r, %r)"
                                        % (temp, path))


def _status_after_boot(port):
    # What is sent while the badge reboots is lost (as on a UART): ask again and again.
    deadline = time.monotonic() + badgeport.BOOT_TIMEOUT_S
    last = None
    time.sleep(RESET_DELAY_S)
    while time.monotonic() < deadline:
        try:
            return badgeport.status(port, timeout=1.0)
        except CommandError as e:
            last = e
            time.sleep(0.3)
    raise CommandError("%s: flashed, but `status` did not answer after the reset (%s)"
                       % (port, last))


# ---- many badges at once -----------------------------------------------------------

def install_micropython(port, image, board):
    chip = "esp32c3" if board.chip.startswith("esp32c3") else "esp32"
    if not os.path.isfile(image):
        raise CommandError("%s: no such image file (MicroPython's for this board: "
                           "https://micropython.org/download/%s/, the .bin of a stable "
                           "release, 1.22 or later)"
                           % (image, "ESP32_GENERIC_C3" if chip == "esp32c3"
                              else "ESP32_GENERIC"))
    why = badgeport.not_usb(port)
    if why is not None:
        raise badgeport.BadgeError(why)
    offset = "0x0" if chip == "esp32c3" else "0x1000"   # where MicroPython's images go
    cmd = [sys.executable, "-m", "esptool", "--chip", chip, "--port", port, "write-flash",
           "-z", offset, image]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        lines = (r.stderr + r.stdout).strip().splitlines()
        # esptool ends with a troubleshooting link; its own reason is the error line.
        said = [x for x in lines if "error" in x.lower()] or lines[-1:] or ["?"]
        raise badgeport.BadgeError(
            "%s: esptool could not write MicroPython: %s (is it an ESP32 in its bootloader? "
            "hold BOOT while plugging it in)" % (port, said[-1].strip()))


class NewBadge(CommandError):
    """A badge in no row that has no name yet: it gets the next free row."""

    def __init__(self, chip_id):
        super().__init__("badge %s is new" % chip_id)
        self.chip_id = chip_id


def flash_new(new, roster, builds, failures, key):
    """New badges from the box (no name yet, in no row): each gets the next free row of
    the roster, in port order, and its name is said, to be written on it."""
    free = roster.free_rows()
    jobs = {}
    for port, chip_id in new:
        if not free:
            failures.append("%s: badge %s is in no row of %s, and every row's badge is "
                            "taken: add a row (or give this id a row's badge column)"
                            % (port, chip_id, roster.path))
            continue
        number, badge, character = free.pop(0)
        print("%s: new badge %s is %s, %s (%s:%d): write «%s» on it"
              % (port, chip_id, badge, character, os.path.basename(roster.path), number,
                 badge))
        jobs[port] = roster.job(badge)
    return flash_all(jobs, None, builds, failures, key) if jobs else []


class _Stopped(Exception):
    """Ctrl-C reached a badge's flash between two files."""


class Interrupted(Exception):
    """Ctrl-C during a flash: the badges' reports so far, and where each one stopped."""

    def __init__(self, reports, where, ports):
        super().__init__("interrupted")
        self.reports = reports
        self.where = where     # port -> (done, total) once its main.py was set aside
        self.ports = ports

    def lines(self):
        """One line a badge not flashed whole, saying what mends it."""
        done = {r.port for r in self.reports}
        out = []
        for port in self.ports:
            if port in done:
                continue
            if port not in self.where:
                out.append("%s: stopped before anything was written: the badge is as it was"
                           % port)
            elif self.where[port] == (1, 1):   # flash_one's last progress: main.py back
                out.append("%s: flashed, stopped while it restarted: `cran status --port %s` "
                           "checks it" % (port, port))
            else:
                done_bytes, total = self.where[port]
                out.append("%s: stopped at %d%%, half-flashed: it has no main.py until "
                           "the flash ends, so it starts MicroPython's prompt, not the game. "
                           "Run the same command again: it picks up where it stopped"
                           % (port, 100 * done_bytes // max(1, total)))
        return out


_STOP_WAIT_S = 10.0   # after Ctrl-C, how long the badges get to end the file they write


def flash_all(jobs, find, builds, failures, key=None, new=None, station=False):
    """new: a list the ports of new badges (NewBadge) are added to, in port order;
    station: every badge made the game master's station. Ctrl-C: every badge stops at
    its next file (the file being written is finished, or left as FILE.new: the next
    flash mends either) -> Interrupted."""
    from rich.progress import BarColumn, Progress, TextColumn
    reports = []
    found_new = {}
    where = {}
    stop = threading.Event()
    lock = threading.Lock()
    with Progress(TextColumn("{task.description}"), BarColumn(),
                  TextColumn("{task.percentage:>3.0f}%"), transient=not sys.stdout.isatty(),
                  disable=not sys.stdout.isatty()) as bars:
        def one(port):
            task = bars.add_task(port, total=1)
            board, config_text = jobs[port] or (None, None)
            there = not badgeport.gone(port)

            def progress(done, total):
                where[port] = (done, total)
                bars.update(task, completed=done, total=total)
                if stop.is_set():
                    raise _Stopped()
            try:
                r = flash_one(port, board, config_text, builds, progress, find, key, station)
                with lock:
                    reports.append(r)
            except _Stopped:
                pass   # said by Interrupted.lines
            except NewBadge as e:
                with lock:
                    found_new[port] = e.chip_id
            except CommandError as e:
                with lock:
                    text = str(e)
                    if isinstance(e, badgeport.LostBadge) or (there and badgeport.gone(port)):
                        # Unplugged at any step (its port went with it): a flash cut
                        # short is repaired by the next one (main.py last).
                        text += (": plug it back in and run the same command again (it "
                                 "picks up where it stopped)")
                    failures.append(text if text.startswith(port) else "%s: %s"
                                    % (port, text))
            except Exception as e:   # a badge's own failure must not hide the others'
                with lock:
                    failures.append("%s: flash failed: %r" % (port, e))

        def run_one(port):
            try:
                one(port)
            finally:
                ended[port].set()

        ports = list(jobs)
        # Waited for by events, not Thread.join: a join that Ctrl-C interrupts can take
        # its thread for ended (CPython's join lock). Daemons: one stuck on a dead port
        # must not keep the command alive after Ctrl-C.
        ended = {p: threading.Event() for p in ports}
        for p in ports:
            threading.Thread(target=run_one, args=(p,), daemon=True).start()
        try:
            for p in ports:
                while not ended[p].wait(0.2):
                    pass
        except KeyboardInterrupt:
            stop.set()
            print("\ncran: stopping: each badge ends the file it is writing (Ctrl-C again: "
                  "at once)", file=sys.stderr, flush=True)
            deadline = time.monotonic() + _STOP_WAIT_S
            try:
                for p in ports:
                    while not ended[p].wait(0.2) and time.monotonic() < deadline:
                        pass
            except KeyboardInterrupt:
                pass
            with lock:
                raise Interrupted(list(reports), dict(where), ports) from None
    reports.sort(key=lambda r: ports.index(r.port))
    if new is not None:
        new += [(p, found_new[p]) for p in ports if p in found_new]
    return reports


def say_reports(reports):
    """Prints a line a badge flashed: what was copied, its status after."""
    for r in reports:
        s = r.status
        rom = {"written": ", firmware written to ROMFS",
               "as it was": ", firmware in ROMFS"}.get(r.romfs, "")
        who = ("the game master's station (cran field --port %s)" % r.port
               if s.get("station") else "%s %s" % (s.get("personnage") or "-", s.get("etat")))
        print("%s: %s, %d file(s) copied (%d B)%s, %d removed%s in %.1f s; status: %s, "
              "firmware %s, badge %s" % (
                  r.port, "repaired" if r.repaired else "ok", len(r.copied), r.bytes, rom,
                  len(r.removed), "" if r.copied or r.removed or r.romfs == "written"
                  else " (already up to date)",
                  r.seconds, who, s.get("firmware"),
                  badgeport.badge_names(s.get("id"), s.get("badge"))))
        for note in r.notes:
            print("%s: %s" % (r.port, note))
