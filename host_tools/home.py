# This computer's cran folder, where cran remembers what outlives a command: game keys,
# the badge names given out, the station's tokens, the virtual badges running. Files
# there are the user's alone.
import os
import threading


def cran_home():
    """The user's cran folder: $CRAN_HOME, else the platform's config folder."""
    home = os.environ.get("CRAN_HOME")
    if home:
        return home
    if os.name == "nt" and os.environ.get("APPDATA"):
        return os.path.join(os.environ["APPDATA"], "cran")
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"),
                                                              ".config")
    return os.path.join(base, "cran")


def write_private(path, text):
    """text as the whole of path, in the user's cran folder: readable by the user
    alone, written to a temp file then renamed (a cut leaves the old file or the new)."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    # A temp name of its own: cran flash's threads (a badge each) may write at once.
    temp = "%s.%d-%d.tmp" % (path, os.getpid(), threading.get_ident())
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(text)
    os.replace(temp, path)
