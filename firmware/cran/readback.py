# The journal read back, entry by entry: for the console's `journal` (cran logs), the
# can't-start path's, and CircuitPython's journal in nvm. Only an organiser's read needs
# it, so it is loaded then and let go with the console: the show loop never holds it.
import json

from cran.compat import missing


def take_entry(line, out, problems, name, n):
    """Line n of journal file `name`: its entry (a JSON object) into out, else said in
    problems. The journal in files and CircuitPython's in nvm read their lines alike."""
    try:
        entry = json.loads(line)
    except ValueError:
        entry = None
    if isinstance(entry, dict):
        out.append(entry)
    else:
        problems.append("%s: line %d unreadable, skipped" % (name, n))


def entries(journal):
    """-> every readable entry of a cran.storage.Journal, oldest first. A torn or
    garbled line (a power cut mid-append) is skipped and named in journal.problems,
    never fatal."""
    out = []  # type: list
    journal.problems = []
    for i in (0, 1):
        n = 0
        try:
            with open(journal.paths[i], "rb") as f:
                for line in f:
                    n += 1
                    take_entry(line, out, journal.problems, journal.names[i], n)
        except OSError as e:
            if not missing(e):
                journal.problems.append("%s: unreadable after line %d (%s)"
                                        % (journal.names[i], n, e))
    return out
