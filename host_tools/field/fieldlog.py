# The game master's station's journal (`cran field`): what it sent, and what it heard
# of each badge, as that badge's state changed. One JSON object a line, each with "up"
# (ms since this station started) and "t" (wall-clock seconds), as a badge's journal:
#   {"station": "usb /dev/ttyUSB0" or "virtual NAME", "game": key id}   a station starts
#   {"sent": "stop"}                 a command sent ("reset Godefroy", "masse:peur"...)
#   {"badge": ID, "name": NAME, "heard": [[kind, value]...], "etat": ETAT, "rssi": DBM,
#    "batterie": PERCENT or null}    a badge heard in a new state: what changed, as the
#                                    cues of its own journal ("etat", "effet", "fin",
#                                    "jeu", "armure")
#   {"error": TEXT}                  the station's line said something wrong
# `cran logs --file` reads it as a fight (timelines()): a group of lanes a badge heard,
# and one for the station, its stops and resumes a lane, each command a marker.
import json
import os
import time

from host_tools.debrief import timeline

STATION_NAME = "GM station"   # the game master's, as its group is headed in a picture


class FieldJournal:
    """The journal, appended to path (a station started again goes on in it). names:
    {radio id hex: roster name}; clock() -> ms since the station started (its "up")."""

    def __init__(self, path, names, where, game_id, clock):
        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
        self.path = path
        self.file = open(path, "a", encoding="utf-8")
        self.names = names
        self.clock = clock
        self.last = {}   # badge id -> what its last entry said (see _seen)
        self._write({"station": where, "game": game_id})

    def _write(self, entry):
        entry["up"] = self.clock()
        entry["t"] = int(time.time())
        self.file.write(json.dumps(entry, ensure_ascii=False, sort_keys=True) + "\n")
        self.file.flush()   # a station killed keeps what it wrote

    def sent(self, word):
        self._write({"sent": word})

    def error(self, text):
        self._write({"error": text})

    def heard(self, badge, row, now):
        """A heartbeat read (host_tools.field.station's row): an entry when what it says
        changed since the last one of this badge (not the seconds left)."""
        seen = _seen(row)
        before = self.last.get(badge)
        if seen == before:
            return
        self.last[badge] = seen
        name = self.names.get(badge.hex(), badge.hex())
        self._write({"badge": badge.hex(), "name": name, "heard": _changes(before, seen),
                     "etat": row["etat"], "rssi": row["rssi"], "batterie": row["batterie"]})

    def close(self):
        self.file.close()


def _seen(row):
    return (row["etat"], row["jeu"], tuple(sorted(row["effets"])), row["armure-abimee"])


def _changes(before, now):
    """What changed between two of _seen's, as a badge journal's cues (the first one
    heard: all it says that is not a fresh badge's)."""
    etat, jeu, effects, damaged = now
    if before is None:
        before = (None, "en-jeu", (), False)
    cues = [["etat", etat]] if etat != before[0] else []
    cues += [["effet", name] for name in effects if name not in before[2]]
    cues += [["fin", name] for name in before[2] if name not in effects]
    if jeu != before[1]:
        cues.append(["jeu", jeu])
    if damaged != before[3]:
        cues.append(["armure", "abimee" if damaged else "reparee"])
    return cues


def default_path():
    """A new journal in the user's cran folder, named by the time it starts."""
    from host_tools.game.gamekey import cran_home
    return os.path.join(cran_home(), "field", time.strftime("field-%Y%m%d-%H%M%S.jsonl"))


# ---- read back: cran logs --file ----------------------------------------------------------

def is_journal(lines):
    """Whether journal lines are a station's: its first readable entry starts one."""
    for text in lines:
        try:
            first = json.loads(text)
        except (ValueError, RecursionError):   # not JSON, or [[[[... past the reader
            continue
        return isinstance(first, dict) and "station" in first
    return False


def timelines(lines, source):
    """A station's journal lines -> ([(Timeline, source)]: the station's, then each
    badge's in the order first heard; problems, each 'SOURCE:LINE: why', LINE the
    station journal's own)."""
    station, badges, problems = [], {}, []
    names = {}
    starts = []   # the station's starts, which a badge first heard later gets too
    for number, text in enumerate(lines, 1):
        if not text.strip():
            continue
        try:
            entry = json.loads(text)
        except (ValueError, RecursionError):
            entry = None
        if not isinstance(entry, dict) or not _whole(entry.get("up")):
            problems.append("%s:%d: unreadable, skipped (not a station's journal entry)"
                            % (source, number))
            continue
        at = dict((key, entry[key]) for key in ("up", "t") if key in entry)
        if "badge" in entry:
            badge = str(entry["badge"])
            names[badge] = str(entry.get("name") or names.get(badge, badge))
            heard = dict(at, heard=entry.get("heard"), rssi=entry.get("rssi", "?"))
            if "etat" in entry:
                heard["etat"] = entry["etat"]
            badges.setdefault(badge, list(starts)).append((number, heard))
        elif "sent" in entry:
            station.append((number, dict(at, a="sent: %s" % entry["sent"],
                                         c=_SENT_CUES.get(entry["sent"], []))))
        elif "error" in entry:
            station.append((number, dict(at, error="station: %s" % entry["error"])))
        elif "station" in entry:
            station.append((number, dict(at, a="station started (%s)" % entry["station"],
                                         c=[])))
            # Every badge's lanes start with it, not at its first heartbeat: one clock,
            # the station's, to the millisecond (a picture aligns groups by their first
            # entry's wall clock, whole seconds); before it is heard, its state is "?".
            for entries in badges.values():
                entries.append((number, dict(at, heard=[])))
            starts.append((number, dict(at, heard=[])))
    out = []
    groups = [(STATION_NAME, None, station)] + [(names[b], b, badges[b]) for b in badges]
    for name, badge, entries in groups:
        # Each group's entries read at their own line's place (the others left blank),
        # so that what a picture or a problem says of a line is the station journal's.
        padded = [""] * len(lines)
        for number, entry in entries:
            padded[number - 1] = json.dumps(entry)
        parsed, bad = timeline.parse_lines(padded, source)
        problems += bad
        if not parsed:
            continue
        tl = timeline.build(parsed, {"character": {"name": name}, "badge": badge}, source)
        problems += tl.problems
        if badge is None:   # the station has no state of its own: its lanes are the game's
            tl.spans = [s for s in tl.spans if s.lane != "etat"]
            tl.lanes = [lane for lane in tl.lanes if lane != "etat"]
            for e in tl.entries:
                e.changes = [c for c in e.changes if not c.startswith("etat=")]
        out.append((tl, source))
    return out, sorted(set(problems), key=_line_of)


def _line_of(problem):
    # 'SOURCE:LINE: why' -> LINE, to say the problems in the journal's order
    return int(problem.split(": ", 1)[0].rsplit(":", 1)[1])


def _whole(value):
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


# A command's cue on the station's own lanes: the game stopped from a stop to a resume.
_SENT_CUES = {"stop": [["jeu", "stop"]], "reprise": [["jeu", "en-jeu"]]}
