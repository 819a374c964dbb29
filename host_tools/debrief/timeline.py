# A badge's journal as a timeline for the debrief: state, armor and effect spans,
# actions and answers marked, boots marked; as text and as JSON (the picture is
# host_tools/debrief/timeline_svg.py). The state after every entry is what the journal says the
# badge had (host_tools/debrief/journal.py reads it): nothing is worked out here.
import heapq
import json

from cran.core.vocab import COPY_MISSING, CUE_ARMOR, CUE_BROKEN, CUE_SAY, PLAYS
from host_tools.debrief import journal

# (parse_lines here too: host_tools/field/fieldlog.py reads a journal's lines, then builds.)
from host_tools.debrief.journal import FRESH, parse_lines  # noqa: F401
from host_tools.game import times


class Span:
    def __init__(self, lane, value, start, end=None):
        self.lane = lane
        self.value = value
        self.start = start
        self.end = end              # None: still so at the journal's last entry


class Marker:
    def __init__(self, at, kind, label, line):
        self.at = at
        self.kind = kind            # action answer ignored undo boot config error
                                    # safe_mode note
        self.label = label
        self.line = line


class Timeline:
    def __init__(self):
        self.entries = []
        self.spans = []
        self.markers = []
        self.lanes = []             # lane names, top to bottom
        self.problems = []          # journal faults found while placing entries
        self.name = None            # the character, from the badge's config if given
        self.board = None
        self.badge = None           # the organisers' name for the badge (its config's)
        self.end = 0                # ms of the last entry
        self.start_wall = None      # wall-clock seconds at 0, if known
        self.chained = False        # a boot without wall clock was placed by chaining


# ---- placing entries on one time axis ---------------------------------------------------
# "up" starts again at 0 at every boot, so entries are cut into sessions at each boot
# (or wherever "up" goes back: a boot entry lost to rotation or a torn line). A session
# whose entries carry the wall clock is put where the clock says: the time the badge
# was off shows as it was. A session without one is chained right after the session
# before (or right before the next placed one): a badge counts the time it was off as
# paused (the default `time_off_counts` setting), so that axis is the one its timers
# ran on. A clock that would put a session before the one it follows is overruled the
# same way, and said.

def _sessions(entries):
    sessions = []
    for e in entries:
        if e.kind == "boot" or not sessions or e.up < sessions[-1][-1].up:
            sessions.append([])
        sessions[-1].append(e)
    return sessions


def _anchor(session):
    """ms since 1970 at this session's up=0, from its first entry with a wall clock."""
    for e in session:
        if "t" in e.raw:
            return e.raw["t"] * 1000 - e.up
    return None


def place(entries, source="journal"):
    """Set each entry's .at (ms from the first) and .wall. -> (problems, chained)."""
    problems = []
    sessions = _sessions(entries)
    anchors = [_anchor(s) for s in sessions]
    starts = [None] * len(sessions)
    chained = False
    first = next((i for i, a in enumerate(anchors) if a is not None), None)
    if first is None:
        starts[0] = 0
        first = 0
    else:
        starts[first] = anchors[first]
    for i in range(first - 1, -1, -1):        # before the first clock: chained backwards
        starts[i] = starts[i + 1] + sessions[i + 1][0].up - sessions[i][-1].up
        chained = True
    for i in range(first + 1, len(sessions)):
        after = starts[i - 1] + sessions[i - 1][-1].up - sessions[i][0].up
        a = anchors[i]
        if a is not None and a >= after:
            starts[i] = a
            continue
        if a is not None:
            problems.append("%s:%d: the wall clock goes back here: placed right after "
                            "the entry before" % (source, sessions[i][0].line))
        starts[i] = after
        chained = True
    origin = starts[0] + sessions[0][0].up
    for i, session in enumerate(sessions):
        for e in session:
            e.at = starts[i] + e.up - origin
            if anchors[i] is not None and starts[i] == anchors[i]:
                e.wall = (starts[i] + e.up) // 1000
    return problems, chained


_LANE_RANK = {"etat": 0, "armure": 1, "combat": 2, "jeu": 3}


def build(entries, config=None, source="journal"):
    """Entries from journal.parse_lines (in journal order) -> Timeline. config: the
    badge's config.json as a dict (the console's `config` answer), for the name, the
    board and the armor's count; without it the boot entries tell them."""
    tl = Timeline()
    tl.entries = entries
    config = config if isinstance(config, dict) else {}
    character = config.get("character") if isinstance(config.get("character"), dict) else {}
    tl.name = character.get("name") or None
    tl.board = config.get("board") if isinstance(config.get("board"), str) else None
    tl.badge = config.get("badge") if isinstance(config.get("badge"), str) else None
    for e in reversed(entries):
        # A boot entry says who and what the badge is, the last one as it is now (as
        # its config, which wins where given).
        if e.kind == "boot" and tl.board is None and isinstance(e.raw.get("board"), str):
            tl.board = e.raw["board"]
        if e.kind in ("boot", "recast") and tl.name is None and isinstance(
                e.raw.get("name"), str):
            tl.name = e.raw["name"] or None
    if not entries:
        return tl
    tl.problems, tl.chained = place(entries, source)
    tl.end = entries[-1].at
    tl.start_wall = entries[0].wall
    journal.read(entries, config)
    with_armor = _with_armor(entries, config)
    open_spans = {}
    previous = None
    last_boot = None
    for e in entries:
        if e.kind == "boot":
            if previous is not None:
                e.note = _boot_note(e, previous)
            if last_boot is not None:
                e.changed = _boot_changes(last_boot.raw, e.raw)
            last_boot = e
        e.changes = _update_spans(tl, open_spans, _lanes(e.seen, with_armor), e.at)
        _mark(tl, e)
        previous = e
    # Spans replaced at the instant they began are dropped here, in one pass: removing
    # each from the list as it ended made a long journal quadratic.
    tl.spans = [s for s in tl.spans if s.end != s.start]
    first = {}
    for s in tl.spans:
        first[s.lane] = min(first.get(s.lane, s.start), s.start)
    tl.lanes = sorted(first, key=lambda lane: (
        _LANE_RANK.get(lane, 4 if lane[:5] == "effet" else 5), first[lane]))
    return tl


def _with_armor(entries, config):
    """Whether the armor gets a lane: the character has armor, as the config or a boot
    says, or (neither telling) the journal speaks of it."""
    count = journal.armor_count(config)
    if count or [e for e in entries if e.kind == "boot" and e.raw.get("armor")]:
        return True
    if count is not None or [e for e in entries if e.kind == "boot"
                             and journal.whole(e.raw.get("armor"))]:
        return False
    return bool([c for e in entries for c in e.cues if c[0] == CUE_ARMOR
                 or c in ((CUE_SAY, "armure"), (CUE_BROKEN, "armure"))])


def _lanes(seen, with_armor):
    """lane -> its value after an entry (None: not drawn)."""
    out = {"etat": seen.etat or "?", "combat": "combat" if seen.combat else None,
           "jeu": None if seen.jeu == PLAYS[0] else seen.jeu}
    if with_armor:
        out["armure"] = _armor_value(seen)
    for name in seen.effects:
        out["effet " + name] = name
    for target in seen.broken:
        out["brise " + target] = "brise"
    return out


def _armor_value(seen):
    if seen.damaged:
        return "abimee"
    if seen.answers is None:
        return "%d used" % seen.used if seen.used else "full"
    if seen.of is None:
        return "%d left" % seen.answers
    return "%d/%d" % (seen.answers, seen.of)


def spans_by_lane(tl):
    """lane -> its spans, in order: one pass, for drawing lane after lane."""
    out = {}
    for s in tl.spans:
        out.setdefault(s.lane, []).append(s)
    return out


def _update_spans(tl, open_spans, values, at):
    changes = []
    for lane in sorted(set(open_spans) | set(values), key=lambda n: (_LANE_RANK.get(n, 9), n)):
        value = values.get(lane)
        span = open_spans.get(lane)
        if (span.value if span is not None else None) == value:
            continue
        if span is not None:
            span.end = at               # at its start: replaced as it began (build drops it)
            del open_spans[lane]
        if value is not None:
            span = open_spans[lane] = Span(lane, value, at)
            tl.spans.append(span)
        changes.append(_change(lane, value))
    return changes


def _change(lane, value):
    sign = "+" if value else "-"
    if lane.startswith("effet "):
        return sign + lane[6:]          # "+peur"
    if lane.startswith("brise "):
        return sign + lane              # "+brise bras"
    if lane == "combat":
        return "combat=%s" % ("oui" if value else "non")
    if lane == "jeu":
        return "jeu=%s" % (value or "en-jeu")
    return "%s=%s" % (lane, value)


# What a boot entry says of the badge, with what a change of it means: the firmware's
# version changes with a reflash, the rest with a new config (cran flash --config).
_BOOT_FIELDS = (("boot", "firmware"), ("board", "board"), ("name", "name"),
                ("armor", "armor"))


def _boot_changes(before, now):
    """What changed between two boot entries: 'firmware 0.1.0 -> 0.2.0, armor 1 -> 2'
    (a field a boot entry does not carry, as older journals, is not a change)."""
    changes = []
    for key, name in _BOOT_FIELDS:
        if key in before and key in now and before[key] != now[key]:
            changes.append("%s %s -> %s" % (name, _brief_value(before[key]),
                                            _brief_value(now[key])))
    return ", ".join(changes)


def _brief_value(value):
    text = value if isinstance(value, str) else json.dumps(value)
    return text if len(text) <= 24 else text[:23] + "…"


def _boot_note(e, previous):
    cause = e.raw.get("cause")
    if e.wall is None or previous.wall is None:
        return "%s; no wall clock: time off unknown, drawn as none" % (cause or "reboot")
    return "%s, %s after the entry before" % (cause or "reboot",
                                              times.whole_seconds(e.at - previous.at))


def _mark(tl, e):
    raw = e.raw
    if e.kind == "act":
        answer = journal.said(e)
        why = journal.ignored(e)
        if answer:
            tl.markers.append(Marker(e.at, "answer", "%s %s" % (raw["a"], answer), e.line))
        elif why and not e.changes:
            tl.markers.append(Marker(e.at, "ignored", "%s (ignored: %s)" % (raw["a"], why),
                                     e.line))
        else:
            tl.markers.append(Marker(e.at, "action", raw["a"], e.line))
    elif e.by is not None and e.kind == "boot":
        # A boot cran check made: the check's, marked as a tool's, not drawn as the
        # wearer's boot. What it found is said as any boot's, but a fresh start or a
        # state restored, which are no news there.
        tl.markers.append(Marker(e.at, "tool", journal.by_tool(e), e.line))
    elif e.by is not None and (e.kind in ("fresh", "restored") or (
            e.kind == "error" and (e.fresh == FRESH or e.code == COPY_MISSING))):
        pass
    elif e.kind == "check":
        pass   # said by the boot that follows it
    elif e.kind == "boot":
        label = "boot %s (%s)" % (raw["boot"], raw.get("cause") or "?")
        tl.markers.append(Marker(e.at, "boot", label, e.line))
        if e.changed:
            what = "reflashed" if e.changed.startswith("firmware") else "new config"
            tl.markers.append(Marker(e.at, "config", "%s: %s" % (what, e.changed), e.line))
    elif e.kind == "undo":
        tl.markers.append(Marker(e.at, "undo", "undo", e.line))
    elif e.kind == "recast":
        tl.markers.append(Marker(e.at, "config", "new character over the radio: %s, armor %s"
                                 % (raw.get("name") or "(no name)", raw.get("armor")),
                                 e.line))
    elif e.kind == "fresh":
        tl.markers.append(Marker(e.at, "note", "fresh start: %s" % FRESH, e.line))
    elif e.kind == "restored":
        tl.markers.append(Marker(e.at, "note", "restored from NVS", e.line))
    elif e.kind == "inconnu":
        tl.markers.append(Marker(e.at, "error", "etat inconnu: %s" % (raw["inconnu"],),
                                 e.line))
    elif e.kind == "error":
        # A new badge has no state copies yet (as journals before the "fresh" entry
        # said it): that is one note, not two errors; a copy missing beside a good one
        # is no fault either.
        if e.fresh == FRESH:
            tl.markers.append(Marker(e.at, "note", "fresh start: %s" % FRESH, e.line))
        elif e.code != COPY_MISSING:
            tl.markers.append(Marker(e.at, "error", "error: %s" % (raw["error"],), e.line))
    elif e.kind == "safe_mode":
        tl.markers.append(Marker(e.at, "safe_mode", "safe mode", e.line))
    elif e.kind == "timer":
        for value in journal.noticed(e):
            tl.markers.append(Marker(e.at, "note", "%s noticed" % value, e.line))
    elif e.kind == "other":
        tl.markers.append(Marker(e.at, "note", journal.note(raw), e.line))


# ---- text ---------------------------------------------------------------------------

def headline(tl, source):
    who = tl.name or "character unknown"
    if tl.board:
        who += ", " + tl.board
    line = "%s: %s; %d entries over %s" % (source, who, len(tl.entries),
                                           times.whole_seconds(tl.end))
    if tl.start_wall is not None:
        line += ", from %s" % times.wall(tl.start_wall, True)
    return line


def text_lines(tl, source="journal"):
    """The timeline as lines for a terminal: one per entry, then the spans by lane."""
    out = [headline(tl, source)]
    for e in tl.entries:
        wall = times.wall(e.wall) if e.wall is not None else ""
        out.append("%8s  %8s  %-34s %s" % (times.whole_seconds(e.at), wall, journal.what(e),
                                          " ".join(e.changes)))
    out.append("")
    out.append("spans (start - end, how long):")
    by_lane = spans_by_lane(tl)
    for lane in tl.lanes:
        for s in by_lane[lane]:
            end = "end" if s.end is None else times.whole_seconds(s.end)
            length = ("%s+" % times.whole_seconds(tl.end - s.start) if s.end is None
                      else times.whole_seconds(s.end - s.start))
            out.append("  %-14s %8s - %-8s %8s  %s" % (
                lane, times.whole_seconds(s.start), end, length, s.value))
    return out


def as_json(tl, source="journal"):
    """The timeline as plain data (--json): what the picture is drawn from."""
    return {
        "source": source, "name": tl.name, "board": tl.board, "badge": tl.badge,
        "end_ms": tl.end,
        "start_wall": tl.start_wall, "time_chained": tl.chained, "lanes": tl.lanes,
        "entries": [{"line": e.line, "at_ms": e.at, "t": times.whole_seconds(e.at), "wall": e.wall,
                     "kind": e.kind, "what": journal.what(e), "changes": e.changes}
                    for e in tl.entries],
        "spans": [{"lane": s.lane, "value": s.value, "start_ms": s.start, "end_ms": s.end}
                  for s in tl.spans],
        "markers": [{"at_ms": m.at, "kind": m.kind, "label": m.label, "line": m.line}
                    for m in tl.markers],
        "problems": tl.problems,
    }


# ---- several badges: one fight ------------------------------------------------------
# Each badge's timeline is placed on the wall clock its journal carries (cran flash sets
# it), from the earliest of them; a journal without one starts at the fight's start,
# and the picture says so.

def align(timelines):
    """-> (each timeline's shift in ms from the fight's start, the wall-clock seconds
    of that start or None when no journal tells it)."""
    known = [tl.start_wall for tl in timelines if tl.start_wall is not None]
    origin = min(known) if known else None
    return [0 if tl.start_wall is None or origin is None else (tl.start_wall - origin) * 1000
            for tl in timelines], origin


def who(tl, source):
    """'Godefroy (atom-lite) · b07 · /dev/ttyUSB0': whose badge, which, where from."""
    text = tl.name or "character unknown"
    if tl.board:
        text += " (%s)" % tl.board
    return " · ".join([text] + [part for part in (tl.badge, source) if part])


def fight_lines(items):
    """items: [(timeline, source)] -> lines for a terminal: a line a badge, then every
    entry of every badge in the order of the fight, with whose it is."""
    timelines = [tl for tl, _ in items]
    shifts, origin = align(timelines)
    end = max(shift + tl.end for tl, shift in zip(timelines, shifts))
    head = "fight: %d badge%s, %d entries over %s" % (
        len(items), "s" if len(items) > 1 else "", sum(len(tl.entries) for tl in timelines),
        times.whole_seconds(end))
    out = [head + (", from %s" % times.wall(origin, True) if origin is not None else
                   " (no journal has the wall clock: each from its own start)")]
    for (tl, source), shift in zip(items, shifts):
        where = ("at %s" % times.whole_seconds(shift) if tl.start_wall is not None
                 else "no wall clock")
        out.append("  %s: %d entries over %s, %s" % (who(tl, source), len(tl.entries),
                                                    times.whole_seconds(tl.end), where))
    width = min(16, max(len(tl.name or "?") for tl in timelines))
    rows = heapq.merge(*[[(shift + e.at, i, n, e) for n, e in enumerate(tl.entries)]
                         for i, (tl, shift) in enumerate(zip(timelines, shifts))])
    for at, i, _, e in rows:
        wall = times.wall(origin + at // 1000) if origin is not None else ""
        name = (timelines[i].name or "?")[:width]
        out.append("%8s  %8s  %-*s  %-34s %s" % (times.whole_seconds(at), wall, width, name,
                                                 journal.what(e), " ".join(e.changes)))
    return out

