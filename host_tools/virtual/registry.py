# Where the virtual badges running on this computer are. Each `cran vbadge` writes a
# file of its own in the cran folder's vbadges/ while it runs (its process, its port,
# the link to it, its board), so that `--all` finds them beside the USB
# ports, and a command knows a port is one (a virtual badge may sleep, as a badge does).
# A file whose process has ended (a vbadge killed with SIGKILL) is passed over, and
# removed.
import json
import os
import time

from host_tools.home import cran_home, write_private

FOLDER = "vbadges"


def _folder():
    return os.path.join(cran_home(), FOLDER)


def register(port, link=None, board=None):
    """This process serves a virtual badge on port (link: a symlink to it). -> the
    file that says so, for unregister()."""
    path = os.path.join(_folder(), "%d.json" % os.getpid())
    write_private(path, json.dumps({
        "pid": os.getpid(), "port": port, "link": os.path.abspath(link) if link else None,
        "board": board, "started": time.time()}))
    return path


def unregister(path):
    try:
        os.remove(path)
    except OSError:
        pass


def _alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def running():
    """Every virtual badge running on this computer: [{"pid", "port", "link", "board",
    "started"}], in the order they started."""
    folder = _folder()
    try:
        names = os.listdir(folder)
    except OSError:
        return []
    found = []
    for name in names:
        if not name.endswith(".json"):
            continue
        path = os.path.join(folder, name)
        try:
            with open(path, encoding="utf-8") as f:
                entry = json.load(f)
        except (OSError, ValueError):
            continue
        if not isinstance(entry, dict) or not isinstance(entry.get("pid"), int):
            continue
        if not _alive(entry["pid"]) or not os.path.exists(entry.get("port") or ""):
            unregister(path)   # its vbadge ended without a word (SIGKILL)
            continue
        found.append(entry)
    return sorted(found, key=lambda e: (e.get("started") or 0, e["pid"]))


def ports():
    """The ports of the virtual badges running here (the link each was given, if it
    still leads to it: the name the organiser knows), for --all."""
    out = []
    for entry in running():
        link = entry.get("link")
        if link and os.path.realpath(link) == os.path.realpath(entry["port"]):
            out.append(link)
        else:
            out.append(entry["port"])
    return out


def is_virtual(port):
    """Whether port (or a link to it) is a virtual badge running on this computer."""
    where = os.path.realpath(port)
    return any(os.path.realpath(e["port"]) == where for e in running())
