# A debrief's journals gathered: read from files (a torn write's bytes named, not fatal),
# pulled from badges on their ports, and each made a timeline (journal.py reads it,
# timeline.py places it); the game master's station's journal (field/fieldlog.py) gives a
# timeline for each badge it heard. What can't be read is said on stderr and left out.
import sys
from concurrent.futures import ThreadPoolExecutor

from host_tools import CommandError
from host_tools.debrief import fieldread, journal, timeline

EXIT_BAD_INPUT = 2


def read_lines(path):
    """A journal file -> its lines. Bytes a torn write garbled become U+FFFD, so the
    line is named as unreadable instead of stopping the whole file."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except FileNotFoundError:
        raise CommandError("%s: no such file" % path, EXIT_BAD_INPUT) from None
    except OSError as e:
        raise CommandError("%s: cannot read: %s" % (path, e), EXIT_BAD_INPUT) from None
    return [line.decode("utf-8", "replace") for line in data.splitlines()]


def read_config(path):
    from host_tools.game.roster import RosterError, read_json
    try:
        config = read_json(path)
    except RosterError as e:
        raise CommandError("\n".join(e.messages), EXIT_BAD_INPUT) from None
    if not isinstance(config, dict):
        raise CommandError("%s: expected a JSON object (a badge's config.json)" % path,
                           EXIT_BAD_INPUT)
    return config


def pull(port, want_config=True, keys=()):
    """-> (journal lines, config dict or None) from the badge on `port`; its config only
    when wanted (a --config file says it already), read with the console unlocked by
    one of keys or this computer's key ring."""
    from host_tools.device import badgeport  # only here: --file needs no serial link
    lines = badgeport.ask(port, "journal", again=True)
    if not want_config:
        return lines, None
    try:
        answer = badgeport.ask(port, "config", again=True, keys=keys)
    except CommandError as e:
        answer = []
        print("cran: config not read (%s): the picture names no character" % e,
              file=sys.stderr)
    return lines, badgeport.first_json(answer, dict)


def pull_all(ports, keys=()):
    """-> for each port, pull(port)'s (lines, config) or the CommandError it raised. Asked
    all at once: a sleeping badge can take half a minute to wake."""
    def pull_one(port):
        try:
            return pull(port, keys=keys)
        except CommandError as e:
            return e

    with ThreadPoolExecutor(max_workers=max(1, min(16, len(ports)))) as pool:
        return list(pool.map(pull_one, ports))


def timeline_of(lines, config, source):
    """Journal lines -> Timeline, each unreadable line said on stderr; None when no
    entry could be read."""
    entries, problems = journal.parse_lines(lines, source)
    for problem in problems:
        print(problem, file=sys.stderr)
    if not entries:
        return None
    tl = timeline.build(entries, config, source)
    for problem in tl.problems:
        print(problem, file=sys.stderr)
    return tl


def fight(journals):
    """[(source, lines, config or None)] -> ([(Timeline, source)], how many sources gave
    none). The station's journal gives a timeline a badge it heard."""
    items, failed = [], 0
    for source, lines, config in journals:
        if fieldread.is_journal(lines):   # the station's: a group a badge it heard
            found, problems = fieldread.timelines(lines, source)
            for problem in problems:
                print(problem, file=sys.stderr)
            items += found
            if not found:
                print("cran: %s: no readable journal entry: left out of the fight" % source,
                      file=sys.stderr)
                failed += 1
            continue
        tl = timeline_of(lines, config, source)
        if tl is None:
            print("cran: %s: no readable journal entry: left out of the fight" % source,
                  file=sys.stderr)
            failed += 1
        else:
            items.append((tl, source))
    return items, failed
