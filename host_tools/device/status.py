# A badge's status (its console's `status`, badgeport.status) as a person reads it: one
# badge in detail, several in a table of one line a badge (`cran status`).
import json
import os
import sys
import time
from concurrent.futures import ThreadPoolExecutor

from cran.core.vocab import ARMOR_DAMAGED, INCONNU
from host_tools import CommandError
from host_tools.build import module_names
from host_tools.device import badgeport
from host_tools.game.times import time_left


def ask_all(ports):
    """-> each port's status, asked all at once (a sleeping badge can take half a minute
    to wake); one that can't be read: {"error": why}."""
    with ThreadPoolExecutor(max_workers=min(16, len(ports))) as pool:
        return list(pool.map(_ask, ports))


def _ask(port):
    try:
        return badgeport.status(port)
    except CommandError as e:
        return {"error": str(e)}


_COLUMNS = ("port", "badge", "character", "etat", "armure", "effets", "jeu", "clock")
_CLOCK_SLACK_S = 120   # a badge's clock this close to the computer's reads as right


def table(ports, answers):
    """Prints one line a badge: its port, names, state, armour, effects, game, clock;
    a badge that could not be read, its error in a line under the table; two badges
    answering to one name or one character, in red, with what to do. -> True when
    every badge was read, none twice."""
    rows = []
    errors = []
    for port, s in zip(ports, answers):
        if "error" in s and "etat" not in s:
            # The table stays a table: the error, whole, under it.
            rows.append((port, "-", "-", "error (below)", "", "", "", ""))
            error = module_names(s["error"])
            errors.append(error if error.startswith(port) else "%s: %s" % (port, error))
            continue
        if s.get("station"):
            rows.append((port, badgeport.badge_names(s.get("id"), None), "-",
                         "the game master's station", "", "", "", ""))
            continue
        etat = _etat(s)
        if s.get("save_error"):
            etat += " NOT SAVED"
        armure = "-" if s.get("armure") is None else "%d%s%s" % (
            s["armure"], " abimee" if s.get(ARMOR_DAMAGED) else "",
            ", casque" if s.get("casque") else "")
        rows.append((port, badgeport.badge_names(s.get("id"), s.get("badge")),
                     s.get("personnage") or "-", etat, armure, _effects(s),
                     "%s%s" % (s.get("jeu"), ", combat" if s.get("combat") else ""),
                     clock(s.get("clock"))))
    twice = doubles(ports, answers)
    marked = {port for ports_of, _ in twice for port in ports_of}
    widths = [max(len(str(r[i])) for r in rows + [_COLUMNS]) for i in range(len(_COLUMNS))]
    for row in [_COLUMNS] + rows:
        line = "  ".join(str(cell).ljust(w) for cell, w in zip(row, widths)).rstrip()
        print(red(line) if row[0] in marked else line)
    for error in errors:
        print("error: " + error)
    for _, said in twice:
        print(red(said))
    return not errors and not twice


def doubles(ports, answers):
    """Two badges (or more) answering to one badge name or playing one character: ->
    [(their ports, what to say)]. Both flashed as one row: the organisers would write
    one name on two badges, and a field's station hears them as one (their radio id is
    the character's)."""
    by_badge, by_name = {}, {}
    for port, s in zip(ports, answers):
        if "etat" not in s or s.get("station"):
            continue
        if s.get("badge"):
            by_badge.setdefault(s["badge"].lower(), []).append((port, s))
        if s.get("personnage"):
            by_name.setdefault(s["personnage"], []).append((port, s))
    out = []
    for _, found in sorted(by_badge.items()):
        if len(found) > 1:
            names = {s.get("personnage") or "-" for _, s in found}
            out.append(([p for p, _ in found], "TWICE: badge name %s answers on %s%s: "
                        "one name, one badge. Keep it on one; give each other one a row of "
                        "its own: cran flash --roster ROSTER --port %s --as NAME (a row "
                        "nobody has)" % (
                            found[0][1]["badge"], _and(found),
                            " (both %s)" % names.pop() if len(names) == 1 else "",
                            found[-1][0])))
    said = [set(p) for p, _ in out]
    for name, found in sorted(by_name.items()):
        if len(found) > 1 and {p for p, _ in found} not in said:
            out.append(([p for p, _ in found], "TWICE: character %s is played on %s: one "
                        "character, one badge (on a field the station hears them as one). "
                        "Give each other one its own row: cran flash --roster ROSTER --port "
                        "%s --as NAME" % (name, _and(found), found[-1][0])))
    return out


def _and(found):
    each = ["%s (%s)" % (port, badgeport.badge_names(s.get("id"), s.get("badge")))
            for port, s in found]
    return ", ".join(each[:-1]) + " and " + each[-1]


def red(text):
    """text in red where it goes to a terminal (or FORCE_COLOR says so), as it is
    elsewhere."""
    if os.environ.get("NO_COLOR") or not (os.environ.get("FORCE_COLOR")
                                          or sys.stdout.isatty()):
        return text
    return "\x1b[1;31m%s\x1b[0m" % text


def clock(seconds):
    """A badge's wall clock for the table: its time, and how far it is from this
    computer's when more than a couple of minutes (cran flash sets it)."""
    if not seconds:
        return "not set (cran flash sets it)"
    shown = time.strftime("%H:%M", time.localtime(seconds))
    off = seconds - time.time()
    if abs(off) <= _CLOCK_SLACK_S:
        return shown
    return "%s (%+d min off)" % (shown, round(off / 60))


def one(port, s, as_json):
    """Prints one badge's status in detail (as_json: the line as it sent it). -> the exit
    code: 1 when it could not start or its last save failed."""
    if as_json:
        print(json.dumps(s, sort_keys=True))
        return 0
    if "error" in s:
        print("%s: the badge could not start: %s" % (port, module_names(s["error"])))
        return 1
    if s.get("station"):
        print("%s: the game master's station (cran field --port %s), badge %s, firmware %s, "
              "up %s" % (port, port, s.get("id"), s.get("firmware"), _left(s.get("uptime_ms"))))
        print("  heard     %s frames (%s copies not said again, %s lost: its receive "
              "buffer full)" % (s.get("heard"), s.get("again"),
                                "?" if s.get("lost") is None else s["lost"]))
        print("  sent      %s frames, %s sending again now; %s lines refused"
              % (s.get("sent"), s.get("repeating"), s.get("refused")))
        return 0
    print("%s: %s on %s (badge %s), firmware %s, up %s" % (
        port, s.get("personnage") or "(no name)", s.get("board"),
        badgeport.badge_names(s.get("id"), s.get("badge")), s.get("firmware"),
        _left(s.get("uptime_ms"))))
    print("  etat      %s" % _etat(s))
    if s["etat"] == INCONNU:
        print("  the badge lost its saved state: an organiser sets it with `reset`")
    else:
        print("  armure    %d%s" % (s["armure"], " (abimee)" if s.get(ARMOR_DAMAGED) else ""))
    if "casque" in s:   # (a firmware before it did not say)
        print("  casque    %s" % ("oui" if s["casque"] else "non"))
    print("  effets    %s" % _effects(s))
    print("  jeu       %s%s" % (s.get("jeu"), ", in combat" if s.get("combat") else ""))
    if s.get("save_error"):
        # Its state is not on its flash: after a power cut it would come back older.
        print("  NOT SAVED the last save failed: %s" % s["save_error"])
        return 1
    return 0


def _etat(s):
    """The state, and the countdown's time left when one runs."""
    if s.get("reste_ms") is None:
        return s["etat"]
    return "%s (%s left)" % (s["etat"], _left(s["reste_ms"]))


def _effects(s):
    return ", ".join("%s %s" % (name, _left(ms))
                     for name, ms in sorted(s["effets"].items())) or "-"


def _left(ms):
    if ms is None:
        return "-"
    if ms is True or ms is False:
        return str(ms)
    return time_left(int(ms))
