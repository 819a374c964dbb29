# The game master's station's journal (host_tools/field/fieldlog.py writes it) read back
# as a fight, for `cran logs --file`: a group of lanes for each badge it heard, and one
# for the station, its stops and resumes a lane, each command a marker.
import json

from host_tools.debrief import timeline

STATION_NAME = "GM station"   # the game master's, as its group is headed in a picture


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
