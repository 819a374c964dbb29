# The static site `cran web` writes: the badge's real firmware, as `cran flash` compiles it
# (build.compile_firmware), run by MicroPython's WebAssembly port (the npm package, pinned
# by package-lock.json beside this file, fetched by npm at build time) on the virtual
# hardware cran sim's badge runs on (host_tools/virtual/micropython), driven by the page through
# cran sim's driver (host_tools/virtual/scripts/live_driver.py, webbadge.py over it). Everything
# the page runs is in one ROMFS image (badge.romfs), mounted by the port at /rom as a badge mounts
# its ROMFS partition; nothing is fetched from anywhere else, at build time but npm's.
import contextlib
import hashlib
import io
import json
import os
import shutil
import subprocess
import tempfile

from host_tools import GAMEFILES_ROOT, CommandError, build
from host_tools.boards import BOARDS_DIR, board_ids
from host_tools.virtual import SCRIPTS_DIR
from host_tools.virtual.micropython import VHW_DIR
from host_tools.web import lessons

WEB_DIR = os.path.dirname(os.path.abspath(__file__))
PAGE_DIR = os.path.join(WEB_DIR, "page")
PACKAGE = "@micropython/micropython-webassembly-pyscript"
PORT_FILES = ("micropython.mjs", "micropython.wasm")   # the port's JavaScript and code
PAGE_FILES = ("index.html", "cran.js", "cran.css")
SIZE_TARGET = 2 * 1024 * 1024   # the whole site, the port included (bytes)
HOW_TO_GET_NPM = ("no npm found: cran web fetches MicroPython's WebAssembly port with it "
                  "(Debian: apt-get install nodejs npm)")
# In the image, as the page's sys.path finds them: the virtual hardware first (its
# `time` and `machine` over the port's), as host_tools.virtual.micropython's
# sys_path("micropython") puts them for cran sim (in the image: vhw/, the virtual
# hardware); the drivers; then the firmware (its modules), as on a badge's ROMFS.
_SHIMS = [(os.path.join(VHW_DIR, n + ".py"), "vhw/%s.py" % n)
          for n in ("machine", "neopixel", "vclock", "world", "time", "esp32")] + [
    (os.path.join(VHW_DIR, "mponly", n + ".py"), "vhw/%s.py" % n) for n in ("select", "vtasks")
] + [(os.path.join(SCRIPTS_DIR, "live_driver.py"), "web/live_driver.py"),
     (os.path.join(os.path.dirname(WEB_DIR), "debrief", "journal.py"), "web/journal.py"),
     (os.path.join(GAMEFILES_ROOT, "gamefiles", "__init__.py"), "gamefiles/__init__.py"),
     (os.path.join(GAMEFILES_ROOT, "gamefiles", "scenario.py"), "gamefiles/scenario.py")] + [
    (os.path.join(WEB_DIR, "mp", n), "web/" + n) for n in ("webbadge.py", "webflash.py",
                                                          "panels.py")]
PAGE_PATH = ["/rom/vhw", "/rom/web"]   # put first on the page's sys.path (cran.js)


def boards():
    """The boards a page can show: boards/'s MicroPython ones (the WebAssembly port is
    MicroPython; a CircuitPython board's firmware is another build)."""
    out = []
    for board_id in board_ids():
        with open(os.path.join(BOARDS_DIR, board_id + ".json"), encoding="utf-8") as f:
            board = json.load(f)
        display = board["display"]
        out.append({"id": board_id, "name": board["name"], "menu": lessons.menu_of(board),
                    "display": display and dict((k, display[k]) for k in
                                                ("kind", "width", "height"))})
    return out


def npm_port(cache=None):
    """The WebAssembly port's folder, installed by `npm ci` from package-lock.json into
    a cache folder of its own (once per lock file). No npm -> CommandError."""
    npm = shutil.which("npm")
    if npm is None:
        raise CommandError(HOW_TO_GET_NPM)
    with open(os.path.join(WEB_DIR, "package-lock.json"), "rb") as f:
        lock = f.read()
    where = os.path.join(cache or os.path.dirname(build.cache_dir()), "web-npm",
                         hashlib.sha256(lock).hexdigest()[:16])
    port = os.path.join(where, "node_modules", *PACKAGE.split("/"))
    if all(os.path.exists(os.path.join(port, n)) for n in PORT_FILES):
        return port
    os.makedirs(where, exist_ok=True)
    for name in ("package.json", "package-lock.json"):
        shutil.copyfile(os.path.join(WEB_DIR, name), os.path.join(where, name))
    r = subprocess.run([npm, "ci", "--ignore-scripts", "--no-audit", "--no-fund"], cwd=where,
                       capture_output=True, text=True)
    if r.returncode != 0:
        raise CommandError("npm ci failed in %s: %s" % (where, (r.stderr or r.stdout).strip()))
    return port


def romfs_image(tmp):
    """The image the page mounts at /rom: the firmware as cran flash compiles it (its
    modules: main.py is a chip's own start, which the page's driver replaces),
    the virtual hardware and drivers compiled by the same mpy-cross, the board files."""
    from mpremote.romfs import make_romfs
    tree = os.path.join(tmp, "rom")
    for path, local in build.compile_firmware(os.path.join(tmp, "fw")).items():
        if path.endswith(".mpy"):
            _copy(local, os.path.join(tree, *path.strip("/").split("/")))
    # With the firmware's names and its modules' as a badge has them (build.badge_renames,
    # build.badge_modules): the scenario runner and the journal's reader reach into it by
    # them.
    for path, local in build.compile_modules(_SHIMS, os.path.join(tmp, "shims"),
                                             renames=build.badge_renames(),
                                             modules=build.badge_modules()).items():
        _copy(local, os.path.join(tree, *path.strip("/").split("/")))
    for board in boards():
        # As cran flash writes a board file: its parts, not what is for people.
        with open(os.path.join(BOARDS_DIR, board["id"] + ".json"), encoding="utf-8") as f:
            data = json.load(f)
        for key in ("sources", "notes"):
            data.pop(key, None)
        os.makedirs(os.path.join(tree, "boards"), exist_ok=True)
        with open(os.path.join(tree, "boards", board["id"] + ".json"), "w") as f:
            json.dump(data, f)
    with contextlib.redirect_stdout(io.StringIO()):   # it draws the tree it packs
        return make_romfs(tree, mpy_cross=False)


def _copy(local, target):
    os.makedirs(os.path.dirname(target), exist_ok=True)
    shutil.copyfile(local, target)


def build_site(out, cache=None):
    """The site in folder out (made, its files replaced). -> {file name: bytes}."""
    port = npm_port(cache)
    os.makedirs(out, exist_ok=True)
    for name in PORT_FILES:
        shutil.copyfile(os.path.join(port, name), os.path.join(out, name))
    with tempfile.TemporaryDirectory(prefix="cran-web-") as tmp:
        image = romfs_image(tmp)
    with open(os.path.join(out, "badge.romfs"), "wb") as f:
        f.write(image)
    site = {"boards": boards(), "lessons": lessons.read_all(), "path": PAGE_PATH,
            "firmware": _firmware_version()}
    with open(os.path.join(out, "site.json"), "w", encoding="utf-8") as f:
        json.dump(site, f, ensure_ascii=False)
    for name in PAGE_FILES:
        shutil.copyfile(os.path.join(PAGE_DIR, name), os.path.join(out, name))
    names = list(PORT_FILES) + ["badge.romfs", "site.json"] + list(PAGE_FILES)
    # The service worker keeps the site for offline use: its list of files and a
    # version made of their bytes, so that a new build replaces the old one.
    digest = hashlib.sha256()
    for name in names:
        with open(os.path.join(out, name), "rb") as f:
            digest.update(f.read())
    with open(os.path.join(PAGE_DIR, "sw.js"), encoding="utf-8") as f:
        worker = f.read().replace("__FILES__", json.dumps(["./"] + names)).replace(
            "__BUILD__", digest.hexdigest()[:12])
    with open(os.path.join(out, "sw.js"), "w", encoding="utf-8") as f:
        f.write(worker)
    names.append("sw.js")
    return dict((name, os.path.getsize(os.path.join(out, name))) for name in names)


def _firmware_version():
    import cran
    return cran.VERSION


def size_text(sizes):
    """{file: bytes} -> a line: the total against the target, the largest files."""
    total = sum(sizes.values())
    parts = ", ".join("%s %.0f KB" % (n, b / 1024) for n, b in
                      sorted(sizes.items(), key=lambda item: -item[1])[:3])
    return "%.2f MB (target %.0f MB): %s" % (total / 1048576, SIZE_TARGET / 1048576, parts)

