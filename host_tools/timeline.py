# A badge's journal as a timeline for the debrief: state, armor and effect spans,
# actions and answers marked, boots marked; as text, as JSON, as an SVG picture.
# The journal is what cran.storage.Journal holds: one JSON object a line, written by
# cran/badge.py and cran/app.py: {"boot"}, {"a", "c", "etat"}, {"timer", "etat"},
# {"undo", "etat"}, {"error"}, {"safe_mode"}, {"restored"} (the state came back from its
# copy in NVS), {"inconnu"} (the state is lost: etat inconnu until a reset), each with
# "up" (ms since that boot) and "t" (wall-clock seconds) once the badge knows the time;
# and {"heard", "etat", "rssi"}: the badge as the game master's station heard it change
# (host_tools/fieldlog.py makes such journals from the station's).
import bisect
import heapq
import json
import math
import time
from xml.sax.saxutils import escape

from cran.core.choices import ARMOR_NAMES
from cran.core.words import STATES
from host_tools import picture
from host_tools.picture import fit, text_width


class Entry:
    def __init__(self, line, raw):
        self.line = line            # line number in the journal as read
        self.raw = raw
        self.up = raw["up"]
        self.kind = _kind(raw)
        self.at = 0                 # ms on the timeline, from its first entry
        self.wall = None            # wall-clock seconds, when they can be known
        self.changes = []           # what it changed: "etat=blesse", "+peur"
        self.note = ""              # boots: how far from the entry before
        self.fresh = None           # the badge started fresh here: why
        self.changed = ""           # boots: firmware or character changed since the last


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


# ---- reading ------------------------------------------------------------------------

def _kind(raw):
    for key, kind in (("boot", "boot"), ("a", "act"), ("timer", "timer"),
                      ("undo", "undo"), ("safe_mode", "safe_mode"), ("fresh", "fresh"),
                      ("restored", "restored"), ("inconnu", "inconnu"), ("error", "error"),
                      ("heard", "heard")):
        if key in raw:
            return kind
    return "other"


def _whole(value):
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _fault(raw):
    """Why a decoded line can't be used, or None."""
    if not isinstance(raw, dict):
        return "not a JSON object"
    if not _whole(raw.get("up")):
        return "no uptime \"up\" in whole ms"
    if "t" in raw and not _whole(raw["t"]):
        return "bad wall clock \"t\""
    if "etat" in raw and raw["etat"] not in STATES:
        return "unknown etat %r" % (raw["etat"],)
    if "a" in raw and not isinstance(raw["a"], str):
        return "action \"a\" is not text"
    cues = _cues(raw)
    if not isinstance(cues, list) or [c for c in cues if not (
            isinstance(c, list) and len(c) == 2 and isinstance(c[0], str))]:
        return "cues are not [kind, value] pairs"
    return None


def _cues(raw):
    for key in ("c", "timer", "undo", "heard"):
        if key in raw:
            return raw[key]
    return []


def parse_lines(lines, source="journal"):
    """Journal lines -> (entries, problems). A line that can't be read (a power cut
    tears the last one) is skipped and named: 'SOURCE:LINE: unreadable, skipped (why)'."""
    entries = []
    problems = []
    for number, text in enumerate(lines, 1):
        text = text.strip()
        if not text:
            continue
        try:
            raw = json.loads(text)
        except ValueError:
            why = "not JSON"
        except RecursionError:   # [[[[... deeper than the JSON reader goes
            why = "not JSON: nested too deep"
        else:
            why = _fault(raw)
        if why:
            problems.append("%s:%d: unreadable, skipped (%s)" % (source, number, why))
        else:
            entries.append(Entry(number, raw))
    return entries, problems


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


# ---- the model: what the journal says the badge showed -------------------------------

class _Model:
    def __init__(self, armor):
        self.armor = armor          # answers per combat, None if unknown
        self.etat = None
        self.effects = []
        self.used = 0               # «Armure» answers given this combat
        self.damaged = False
        self.combat = False
        self.jeu = "en-jeu"
        self.broken = []

    def copy(self):
        m = _Model(self.armor)
        m.__dict__.update(self.__dict__)
        m.effects = list(self.effects)
        m.broken = list(self.broken)
        return m

    def fresh(self):
        """A new character's state (P3 reset, or a boot with no state record)."""
        jeu = self.jeu
        self.__init__(self.armor)
        self.etat = "pleine-forme"
        self.jeu = jeu

    def apply(self, kind, value):
        if kind == "etat":
            self.etat = value
            if value == "mort":
                self.effects = []       # the engine drops every effect timer at mort
        elif kind == "effet" and value not in self.effects:
            self.effects.append(value)
        elif kind in ("fin", "remarque") and value in self.effects:
            self.effects.remove(value)
        elif kind == "combat":
            self.combat = value == "debut"
            if not self.combat:
                self.used = 0           # A3: answers come back, damaged or not
        elif kind == "armure":
            if value == "abimee":
                self.damaged = True
            elif value == "reparee":
                self.damaged = False
                if "armure" in self.broken:
                    self.broken.remove("armure")
            elif value == "rechargee":
                self.used = 0
        elif kind == "dit" and value == "armure":
            self.used += 1
        elif kind == "brise":
            if value not in self.broken:
                self.broken.append(value)
            if value == "armure":
                self.damaged = True
        elif kind == "repare" and value in self.broken:
            self.broken.remove(value)
        elif kind == "jeu":
            self.jeu = value
        elif kind == "reset":
            self.fresh()

    def armor_value(self):
        if self.damaged:
            return "abimee"
        if self.armor is None:
            return "%d used" % self.used if self.used else "full"
        return "%d/%d" % (max(0, self.armor - self.used), self.armor)

    def lanes(self, with_armor):
        out = {"etat": self.etat or "?", "combat": "combat" if self.combat else None,
               "jeu": None if self.jeu == "en-jeu" else self.jeu}
        if with_armor:
            out["armure"] = self.armor_value()
        for name in self.effects:
            out["effet " + name] = name
        for target in self.broken:
            out["brise " + target] = "brise"
        return out


_LANE_RANK = {"etat": 0, "armure": 1, "combat": 2, "jeu": 3}
_ANSWERS = {"armure": "«Armure»", "resiste": "«Résiste»", "cri": "cri (creature)"}


def _armor_count(character):
    armor = (character or {}).get("armor")
    if isinstance(armor, str):
        armor = ARMOR_NAMES.get(armor)
    return armor if _whole(armor) else None


def _first_etat(entries):
    """The state before the journal's first state change, when an entry tells it: one
    that names its etat without changing it says it was already so (a boot between
    restores the same state; a fresh start sets its own)."""
    for e in entries:
        if "etat" in e.raw:
            changed = [c for c in _cues(e.raw) if c[0] in ("etat", "reset")]
            return None if changed else e.raw["etat"]
    return None


def build(entries, config=None, source="journal"):
    """Entries from parse_lines (in journal order) -> Timeline. config: the badge's
    config.json as a dict (the console's `config` answer), for the name, the board and
    the armor's count; without it the armor lane counts the answers used."""
    tl = Timeline()
    tl.entries = entries
    config = config if isinstance(config, dict) else {}
    character = config.get("character") if isinstance(config.get("character"), dict) else {}
    tl.name = character.get("name") or None
    tl.board = config.get("board") if isinstance(config.get("board"), str) else None
    tl.badge = config.get("badge") if isinstance(config.get("badge"), str) else None
    boot_armor = None
    for e in reversed(entries):
        # A boot entry says who and what the badge is, the last one as it is now (as
        # its config, which wins where given); the first one tells the armor's count
        # from the journal's start (each boot after it, from there on).
        if e.kind == "boot":
            if tl.board is None and isinstance(e.raw.get("board"), str):
                tl.board = e.raw["board"]
            if tl.name is None and isinstance(e.raw.get("name"), str):
                tl.name = e.raw["name"] or None
            if _whole(e.raw.get("armor")):
                boot_armor = e.raw["armor"]
    if not entries:
        return tl
    tl.problems, tl.chained = place(entries, source)
    tl.end = entries[-1].at
    tl.start_wall = entries[0].wall
    armor = _armor_count(character)
    if armor is None:
        armor = boot_armor
    all_cues = [c for e in entries for c in _cues(e.raw)]
    with_armor = bool(armor) or [e for e in entries if e.kind == "boot" and e.raw.get(
        "armor")] or (armor is None and [
            c for c in all_cues if c[0] == "armure" or c == ["dit", "armure"]
            or c == ["brise", "armure"]])
    model = _Model(armor)
    model.etat = _first_etat(entries)
    before_act = before_hit = None      # for undo, and for K9's dissipe
    restored = {}                       # after a boot: state copy -> why it was skipped
    explained = False                   # ... and the boot said what became of the state
    open_spans = {}
    previous = None
    last_boot = None
    for e in entries:
        raw = e.raw
        if e.kind == "boot":
            restored = {}
            explained = False
            before_act = None
            if previous is not None:
                e.note = _boot_note(e, previous)
            if last_boot is not None:
                e.changed = _boot_changes(last_boot.raw, raw)
            if _whole(raw.get("armor")):
                model.armor = raw["armor"]      # the character as this boot found it
            last_boot = e
        elif e.kind == "fresh":
            model.fresh()
            e.fresh = "no state saved yet"
        elif e.kind == "restored":
            explained = True                # the state saved last: the model goes on
        elif e.kind == "inconnu":
            explained = True
            model.fresh()
            model.etat = "inconnu"          # until a reset (its cue makes it fresh)
        elif e.kind == "error" and isinstance(raw["error"], str) and not explained:
            text = raw["error"]
            if text[:8] in ("state.a:", "state.b:"):
                restored[text[:7]] = text[9:]
            # Both copies unreadable, or the record refused: the badge starts fresh.
            if len(restored) == 2 or text.startswith("state record refused"):
                model.fresh()
                e.fresh = ("no state saved yet" if list(restored.values()) == ["missing"] * 2
                           else "state lost")
                restored = {}
        elif e.kind == "act":
            words = raw["a"].split()
            hit = words[:1] in (["coup"], ["effet"]) and words[1:2] != ["dissipe"]
            dissipated = "dissipe" in [c[0] for c in _cues(raw)]
            before = model.copy()
            if dissipated and before_hit is not None:
                model = before_hit.copy()   # K9: the Coup/Effet just received never was
            before_act = before
            before_hit = before.copy() if hit else None
            if words[1:2] == ["vol"] and not [c for c in _cues(raw) if c[0] in ("dit", "ignore")]:
                model.apply("effet", "vol")     # K13: a silent timer, until it is noticed
        elif e.kind == "undo" and before_act is not None:
            model = before_act.copy()       # the state from before the action taken back
            before_act = before_hit = None
        for kind, value in _cues(raw):
            model.apply(kind, value)
        if "etat" in raw:
            model.etat = raw["etat"]
        e.changes = _update_spans(tl, open_spans, model.lanes(with_armor), e.at)
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
    return "%s, %s after the entry before" % (cause or "reboot", fmt_ms(e.at - previous.at))


def _mark(tl, e):
    raw = e.raw
    if e.kind == "act":
        cues = _cues(raw)
        said = [_ANSWERS.get(v, v) for k, v in cues if k == "dit"]
        ignored = [v for k, v in cues if k == "ignore"]
        if said:
            tl.markers.append(Marker(e.at, "answer", "%s %s" % (raw["a"], said[-1]), e.line))
        elif ignored and not e.changes:
            tl.markers.append(Marker(e.at, "ignored", "%s (ignored: %s)" % (
                raw["a"], ignored[0]), e.line))
        else:
            tl.markers.append(Marker(e.at, "action", raw["a"], e.line))
    elif e.kind == "boot":
        label = "boot %s (%s)" % (raw["boot"], raw.get("cause") or "?")
        tl.markers.append(Marker(e.at, "boot", label, e.line))
        if e.changed:
            what = "reflashed" if e.changed.startswith("firmware") else "new config"
            tl.markers.append(Marker(e.at, "config", "%s: %s" % (what, e.changed), e.line))
    elif e.kind == "undo":
        tl.markers.append(Marker(e.at, "undo", "undo", e.line))
    elif e.kind == "fresh":
        tl.markers.append(Marker(e.at, "note", "fresh start: no state saved yet", e.line))
    elif e.kind == "restored":
        tl.markers.append(Marker(e.at, "note", "restored from NVS", e.line))
    elif e.kind == "inconnu":
        tl.markers.append(Marker(e.at, "error", "etat inconnu: %s" % (raw["inconnu"],),
                                 e.line))
    elif e.kind == "error":
        # A new badge has no state copies yet (as journals before the "fresh" entry
        # said it): that is one note, not two errors.
        if e.fresh == "no state saved yet":
            tl.markers.append(Marker(e.at, "note", "fresh start: no state saved yet", e.line))
        elif not (str(raw["error"]).startswith("state.") and str(raw["error"])[9:] == "missing"):
            tl.markers.append(Marker(e.at, "error", "error: %s" % (raw["error"],), e.line))
    elif e.kind == "safe_mode":
        tl.markers.append(Marker(e.at, "safe_mode", "safe mode", e.line))
    elif e.kind == "timer":
        for kind, value in _cues(raw):
            if kind == "remarque":
                tl.markers.append(Marker(e.at, "note", "%s noticed" % value, e.line))
    elif e.kind == "other":
        tl.markers.append(Marker(e.at, "note", json.dumps(raw, sort_keys=True), e.line))


# ---- text ---------------------------------------------------------------------------

def fmt_ms(ms):
    """ms -> 'M:SS' or 'H:MM:SS' (whole seconds: the wall clock has no finer grain)."""
    minutes, s = divmod(ms // 1000, 60)
    h, m = divmod(minutes, 60)
    return "%d:%02d:%02d" % (h, m, s) if h else "%d:%02d" % (m, s)


def fmt_wall(seconds, with_date=False):
    """Wall-clock seconds -> local 'HH:MM:SS' (the time people at the game lived)."""
    return time.strftime("%Y-%m-%d %H:%M:%S" if with_date else "%H:%M:%S",
                         time.localtime(seconds))


def _what(e):
    raw = e.raw
    if e.kind == "act":
        said = [_ANSWERS.get(v, v) for k, v in _cues(raw) if k == "dit"]
        ignored = [v for k, v in _cues(raw) if k == "ignore"]
        return raw["a"] + ("  " + said[-1] if said else "") + (
            "  (ignored: %s)" % ignored[0] if ignored else "")
    if e.kind == "boot":
        return "boot %s (%s)%s" % (raw["boot"], e.note or raw.get("cause") or "?",
                                   "; " + e.changed if e.changed else "")
    if e.kind == "timer":
        notes = ["%s noticed" % v for k, v in _cues(raw) if k == "remarque"]
        return "(timer)" + (" " + ", ".join(notes) if notes else "")
    if e.kind == "heard":
        if raw.get("rssi") is None:
            return "(the station starts: not heard yet)"
        return "(heard by the station, %s dBm)" % (raw["rssi"],)
    if e.kind == "error":
        return "error: %s" % (raw["error"],)
    if e.kind == "safe_mode":
        return "safe mode: %s" % (raw["safe_mode"],)
    if e.kind == "fresh":
        return "fresh start: %s" % (raw["fresh"],)
    if e.kind == "restored":
        return "restored: %s" % (raw["restored"],)
    if e.kind == "inconnu":
        return "etat inconnu: %s" % (raw["inconnu"],)
    if e.kind == "undo":
        return "undo (double press)"
    return json.dumps(raw, sort_keys=True)


def headline(tl, source):
    who = tl.name or "character unknown"
    if tl.board:
        who += ", " + tl.board
    line = "%s: %s; %d entries over %s" % (source, who, len(tl.entries), fmt_ms(tl.end))
    if tl.start_wall is not None:
        line += ", from %s" % fmt_wall(tl.start_wall, True)
    return line


def text_lines(tl, source="journal"):
    """The timeline as lines for a terminal: one per entry, then the spans by lane."""
    out = [headline(tl, source)]
    for e in tl.entries:
        wall = fmt_wall(e.wall) if e.wall is not None else ""
        out.append("%8s  %8s  %-34s %s" % (fmt_ms(e.at), wall, _what(e), " ".join(e.changes)))
    out.append("")
    out.append("spans (start - end, how long):")
    by_lane = spans_by_lane(tl)
    for lane in tl.lanes:
        for s in by_lane[lane]:
            end = "end" if s.end is None else fmt_ms(s.end)
            length = ("%s+" % fmt_ms(tl.end - s.start) if s.end is None
                      else fmt_ms(s.end - s.start))
            out.append("  %-14s %8s - %-8s %8s  %s" % (
                lane, fmt_ms(s.start), end, length, s.value))
    return out


def as_json(tl, source="journal"):
    """The timeline as plain data (--json): what the picture is drawn from."""
    return {
        "source": source, "name": tl.name, "board": tl.board, "badge": tl.badge,
        "end_ms": tl.end,
        "start_wall": tl.start_wall, "time_chained": tl.chained, "lanes": tl.lanes,
        "entries": [{"line": e.line, "at_ms": e.at, "t": fmt_ms(e.at), "wall": e.wall,
                     "kind": e.kind, "what": _what(e), "changes": e.changes}
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
        fmt_ms(end))
    out = [head + (", from %s" % fmt_wall(origin, True) if origin is not None else
                   " (no journal has the wall clock: each from its own start)")]
    for (tl, source), shift in zip(items, shifts):
        where = "at %s" % fmt_ms(shift) if tl.start_wall is not None else "no wall clock"
        out.append("  %s: %d entries over %s, %s" % (who(tl, source), len(tl.entries),
                                                    fmt_ms(tl.end), where))
    width = min(16, max(len(tl.name or "?") for tl in timelines))
    rows = heapq.merge(*[[(shift + e.at, i, n, e) for n, e in enumerate(tl.entries)]
                         for i, (tl, shift) in enumerate(zip(timelines, shifts))])
    for at, i, _, e in rows:
        wall = fmt_wall(origin + at // 1000) if origin is not None else ""
        name = (timelines[i].name or "?")[:width]
        out.append("%8s  %8s  %-*s  %-34s %s" % (fmt_ms(at), wall, width, name, _what(e),
                                                 " ".join(e.changes)))
    return out


def fight_svg(items, scale="stretched"):
    """items: [(timeline, source)] drawn as one fight: a group of lanes a badge, on one
    time axis, the wall clock's where the journals tell it."""
    timelines = [tl for tl, _ in items]
    shifts, origin = align(timelines)
    groups = []
    notes = []
    for (tl, source), shift in zip(items, shifts):
        heading = who(tl, source)
        if tl.start_wall is None and origin is not None:
            heading += " · no wall clock: drawn from the fight's start"
        groups.append(_Group(tl, source, shift, heading))
    end = max(g.shift + g.tl.end for g in groups)
    title = "Fight: %d badge%s" % (len(items), "s" if len(items) > 1 else "")
    if origin is not None:
        sub = "%d entries over %s, from %s" % (
            sum(len(tl.entries) for tl in timelines), fmt_ms(end), fmt_wall(origin, True))
    else:
        sub = "%d entries over %s" % (sum(len(tl.entries) for tl in timelines), fmt_ms(end))
        notes.append("No journal has the wall clock: each badge is drawn from its first "
                     "entry, not aligned with the others.")
    if [tl for tl in timelines if tl.chained]:
        notes.append("A boot without wall clock follows the entry before it (time off "
                     "unknown).")
    return draw(groups, title, sub, scale, origin, notes)


# ---- the picture -------------------------------------------------------------------
# Every text is placed by its estimated box (picture.text_width): marker labels stack
# in rows over the lanes, each one down a step from those it would touch, so no label
# overlaps another and no marker's line crosses a label; a label near the right edge
# moves left, or is cut ("…"); nothing is drawn past the edges. Too many rows of labels
# (a long day) widen the picture instead, up to MAX_WIDTH.

MIN_WIDTH = 1000
MAX_WIDTH = 6000
MAX_ROWS = 6        # label rows over a badge's lanes before the picture widens
MARGIN = 12         # nothing is drawn nearer the picture's edges
RIGHT = 30
TAIL = 60           # after the last entry: the state the badge was left in
LANE_H = 26
LANE_GAP = 6
LABEL_ROW = 15
LABEL_SIZE = 11
LABEL_GAP = 6       # between two labels of a row
LINE_GAP = 3        # between a label and another's line
MAX_LABEL_W = 480   # longer labels are cut (a long name changed): the text output has them whole
MAX_LANE_TITLE_W = 200
FONT = picture.FONT
SCALES = ("stretched", "linear")

# Colours follow the badge's LEDs (cues.py): green, orange, red; coma and mort look
# alike on a badge (S7) but not in a debrief. Every span also carries its name.
COLOURS = {
    "pleine-forme": "#66bb6a", "blesse": "#ffa726", "agonisant": "#e53935",
    "coma": "#8e24aa", "mort": "#212121", "?": "#e0e0e0", "inconnu": "#f48fb1",
    "armure": "#90a4ae", "abimee": "#ef9a9a", "combat": "#ffccbc", "hors-jeu": "#4dd0e1",
    "stop": "#cfd8dc", "effet": "#64b5f6", "brise": "#bcaaa4",
}
_DARK = ("agonisant", "coma", "mort")
SHORT = {"pleine-forme": "pf", "blesse": "bl", "agonisant": "ag", "coma": "co", "mort": "mo"}
MARKER_COLOURS = {"action": "#c62828", "answer": "#1565c0", "ignored": "#9e9e9e",
                  "undo": "#6a1b9a", "boot": "#37474f", "config": "#ef6c00",
                  "error": "#d84315", "safe_mode": "#d84315", "note": "#2e7d32"}


class _Scale:
    """Time -> x, stretched. Fights are seconds long and countdowns minutes: on a
    straight scale three blows would share one pixel. Each stretch between two moments
    with something in it gets a width growing with the logarithm of its length, so
    bursts open up, quiet stretches shrink, and order is kept. The axis writes every
    moment's time that has room, and the spans their lengths."""

    def __init__(self, moments, left, width):
        self.times = sorted(set(moments))
        weights = [math.log1p((b - a) / 1000) for a, b in zip(self.times, self.times[1:])]
        total = sum(weights) or 1.0
        self.xs = [float(left)]
        for w in weights:
            self.xs.append(self.xs[-1] + width * w / total)

    def x(self, ms):
        times, xs = self.times, self.xs
        if ms <= times[0]:
            return xs[0]
        i = bisect.bisect_left(times, ms)   # the first moment at or after ms
        if i == len(times):
            return xs[-1]
        a, b = times[i - 1], times[i]
        return xs[i - 1] + (xs[i] - xs[i - 1]) * (ms - a) / (b - a)

    def ticks(self, label_w):
        return self.times


# Steps of a straight axis's ticks, in seconds: the first whose labels have room.
_STEPS_S = (1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800,
            21600, 43200, 86400)


class _LinearScale:
    """Time -> x, straight: a minute is as wide at a fight as in a quiet hour."""

    def __init__(self, moments, left, width, wall=None):
        self.start, self.end = min(moments), max(moments)
        self.left, self.width = float(left), width
        self.wall = wall            # wall-clock seconds at 0, for round ticks

    def x(self, ms):
        span = (self.end - self.start) or 1
        return self.left + self.width * (min(max(ms, self.start), self.end) - self.start) / span

    def ticks(self, label_w):
        span_ms = (self.end - self.start) or 1
        step_s = _STEPS_S[-1]
        for step in _STEPS_S:
            if step * 1000 * self.width / span_ms >= label_w + 14:
                step_s = step
                break
        step = step_s * 1000
        # Round on the wall clock where it is known (10:05, not 4 s past it).
        offset = (self.wall % step_s) * 1000 if self.wall is not None else 0
        first = self.start - (offset + self.start) % step
        if first < self.start:
            first += step
        return list(range(first, self.end + 1, step))


def _text(x, y, text, size=11, anchor="start", fill="#000", extra=""):
    return ('<text x="%.1f" y="%.1f" font-size="%d" text-anchor="%s" fill="%s"%s>%s</text>'
            % (x, y, size, anchor, fill, extra, escape(text)))


def _lane_title(lane):
    return {"etat": "état", "jeu": "jeu"}.get(lane, lane)


def _span_colour(span):
    if span.lane == "etat":
        return COLOURS.get(span.value, "#e0e0e0")
    if span.lane == "armure":
        return COLOURS["abimee"] if span.value == "abimee" else COLOURS["armure"]
    if span.lane == "jeu":
        return COLOURS.get(span.value, COLOURS["stop"])
    return COLOURS[span.lane.split()[0]]


def _span_label(span, width, end):
    """The longest label that fits: name and length, name, short code, nothing."""
    length = fmt_ms((end if span.end is None else span.end) - span.start)
    value = span.value
    candidates = ["%s %s%s" % (value, length, "+" if span.end is None else ""), value]
    if span.lane == "etat" and value in SHORT:
        candidates.append(SHORT[value])
    for text in candidates:
        if text_width(text, 11) + 8 <= width:
            return text
    return ""


def _marker_shape(kind, x, y, colour):
    if kind == "answer":      # a diamond: something answered it
        return ('<path d="M%.1f %.1f l5 6 l-5 6 l-5 -6 z" fill="%s"/>' % (x, y, colour))
    if kind in ("ignored", "note"):
        return '<circle cx="%.1f" cy="%.1f" r="4.5" fill="none" stroke="%s" stroke-width="2"/>' \
            % (x, y + 6, colour)
    if kind in ("error", "safe_mode"):
        return ('<path d="M%.1f %.1f l9 9 m0 -9 l-9 9" stroke="%s" stroke-width="2.5"/>'
                % (x - 4.5, y + 1.5, colour))
    if kind == "boot":
        return '<rect x="%.1f" y="%.1f" width="10" height="10" fill="%s"/>' % (
            x - 5, y + 1, colour)
    if kind == "config":      # a star: the badge came back as another
        return ('<path d="M%.1f %.1f l1.8 3.9 l4.2 0.4 l-3.2 2.8 l1 4.1 l-3.8 -2.2 '
                'l-3.8 2.2 l1 -4.1 l-3.2 -2.8 l4.2 -0.4 z" fill="%s"/>' % (x, y, colour))
    if kind == "undo":
        return ('<path d="M%.1f %.1f a5 5 0 1 1 -4 8" fill="none" stroke="%s" '
                'stroke-width="2"/>' % (x + 4, y + 3, colour))
    # an action that took hold: a triangle pointing down at the lanes
    return '<path d="M%.1f %.1f l6 0 l-6 11 l-6 -11 z" fill="%s"/>' % (x, y, colour)


def _short(label):
    # "coup normal" is what a plain hit is called in the journal; above a lane, "coup".
    return label.replace("coup normal", "coup")


class _Label:
    def __init__(self, marker, mx, x, text, row):
        self.marker = marker
        self.mx = mx                # the marker's x: its line
        self.x = x                  # where its text starts
        self.text = text
        self.row = row              # 0: the top row


def place_labels(items, right_edge):
    """(mx, text) in the order of mx -> [(x, row)]: rows from the top, each label in
    the row below every row still busy where it starts (a descending stair), so its
    line down to its marker crosses no label, and starting past the lines of those
    before it. A label that would pass right_edge moves left as far as that lets it
    (the picture widens for what still passes). Each label goes on and off the stack
    of rows once: n, not n x rows."""
    busy = []           # for each row from the top: where its last label ends
    line = -1e9         # the line of the label before
    out = []
    for mx, text in items:
        w = text_width(text, LABEL_SIZE)
        x = max(mx - 4, line + LINE_GAP)
        if x + w > right_edge:
            x = max(right_edge - w, line + LINE_GAP)
        while busy and busy[-1] + LABEL_GAP <= x:
            busy.pop()
        out.append((x, len(busy)))
        busy.append(x + w)
        line = mx
    return out


class _Group:
    """One badge's lanes in the picture, `shift` ms after the picture's 0."""

    def __init__(self, tl, source, shift=0, heading=None):
        self.tl = tl
        self.source = source
        self.shift = shift
        self.heading = heading      # over its lanes, when several badges share the picture
        self.labels = []
        self.rows = 0


def _layout(groups, scale_kind, width, left, origin_wall):
    """The scale at this width, and each group's labels placed. -> scale."""
    moments = [0]
    for g in groups:
        moments.extend(g.shift + e.at for e in g.tl.entries)
    plot_w = width - left - RIGHT - TAIL
    if scale_kind == "linear":
        scale = _LinearScale(moments, left, plot_w, origin_wall)
    else:
        scale = _Scale(moments, left, plot_w)
    for g in groups:
        items = [(scale.x(g.shift + m.at), fit(_short(m.label), LABEL_SIZE, MAX_LABEL_W))
                 for m in g.tl.markers]
        placed = place_labels(items, width - MARGIN)
        g.labels = [_Label(m, mx, x, text, row)
                    for m, (mx, text), (x, row) in zip(g.tl.markers, items, placed)]
        g.rows = max([label.row + 1 for label in g.labels] or [0])
    return scale


def _axis_label(ms, origin_wall):
    if origin_wall is None:
        return fmt_ms(ms)
    return fmt_wall(origin_wall + ms // 1000)


def _axis_unit(origin_wall):
    return "m:ss" if origin_wall is None else "time"


def svg(tl, source="journal", scale="stretched"):
    """The timeline drawn: a lane per state, armor, combat, game and effect; markers for
    every action, answer, undo, boot, config change and error; a legend. Same timeline,
    same bytes. scale: "stretched" (around events, the default) or "linear"."""
    title = "Journal: %s" % (tl.name or "character unknown")
    if tl.board:
        title += " (%s)" % tl.board
    sub = "%s, %d entries over %s" % (source, len(tl.entries), fmt_ms(tl.end))
    if tl.start_wall is not None:
        sub += ", from %s" % fmt_wall(tl.start_wall, True)
    wall = tl.start_wall if not tl.chained else None
    notes = []
    if tl.chained:
        notes.append("A boot without wall clock follows the entry before it (time off "
                     "unknown): times from the start.")
    return draw([_Group(tl, source)], title, sub, scale, wall, notes)


def draw(groups, title, sub, scale_kind, origin_wall, notes=()):
    """groups (_Group) drawn on one time axis, each its lanes under its labels."""
    if scale_kind not in SCALES:
        raise ValueError("scale %r: one of %s" % (scale_kind, ", ".join(SCALES)))
    titles = [_lane_title(lane) for g in groups for lane in g.tl.lanes]
    # The lane titles' column; the axis's unit under it clears the first time's label.
    unit_w = text_width(_axis_unit(origin_wall), 10) + 8 + text_width(
        _axis_label(0, origin_wall), 10) / 2
    left = MARGIN + 10 + min(MAX_LANE_TITLE_W, max(
        [text_width(t, 12) for t in titles] + [unit_w]))
    width = MIN_WIDTH
    scale = _layout(groups, scale_kind, width, left, origin_wall)
    rows = max(g.rows for g in groups)
    if rows > MAX_ROWS:
        # Room for the labels of a long day, rather than a tower of them; but labels
        # of one instant (a boot, its notes) stack however wide: then the narrow one.
        wide = min(MAX_WIDTH, int(width * rows / MAX_ROWS))
        scale = _layout(groups, scale_kind, wide, left, origin_wall)
        if max(g.rows for g in groups) > rows * 3 // 4:
            scale = _layout(groups, scale_kind, width, left, origin_wall)
        else:
            width = wide
    end = max(g.shift + g.tl.end for g in groups)
    end_x = scale.x(end) + TAIL
    # Labels of the last moments that could not move left enough: room for them.
    width = max([width] + [int(math.ceil(label.x + text_width(label.text, LABEL_SIZE)))
                           + MARGIN for g in groups for label in g.labels])
    out = []
    out.append(_text(MARGIN, 24, fit(title, 17, width - 2 * MARGIN, True), 17,
                     extra=' font-weight="bold"'))
    out.append(_text(MARGIN, 44, fit(sub, 12, width - 2 * MARGIN), 12, fill="#555"))
    y = 58
    several = len(groups) > 1
    for g in groups:
        y = _draw_group(out, g, scale, y, left, end_x, several)
    axis_y = y + 4 - LANE_GAP
    _draw_axis(out, scale, axis_y, left, end_x, origin_wall)
    y = _draw_legend(out, axis_y + 40, width, scale_kind, notes)
    y = _draw_errors(out, groups, y, width, several)
    height = int(y + 16)
    head = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
            'viewBox="0 0 %d %d" font-family="%s">' % (width, height, width, height, FONT),
            '<rect width="100%" height="100%" fill="#fff"/>']
    return "\n".join(head + out + ['</svg>']) + "\n"


def _draw_group(out, g, scale, y, left, end_x, several):
    """One badge: its heading, labels, markers and lanes from y down. -> y after it."""
    tl = g.tl
    if several:
        y += 8
        out.append(_text(MARGIN, y + 12, fit(g.heading, 13, end_x - MARGIN, True), 13,
                         extra=' font-weight="bold"'))
        y += 20
    top = y
    mark_y = top + g.rows * LABEL_ROW + 4
    lanes_y = mark_y + 18
    lane_y = dict((lane, lanes_y + i * (LANE_H + LANE_GAP)) for i, lane in enumerate(tl.lanes))
    bottom = lanes_y + len(tl.lanes) * (LANE_H + LANE_GAP) - LANE_GAP

    # Markers and their labels, in rows above the lanes.
    out.append('<g class="markers" data-source="%s">' % escape(g.source))
    for label in g.labels:
        m = label.marker
        colour = MARKER_COLOURS.get(m.kind, "#000")
        ly = top + label.row * LABEL_ROW + 11
        out.append('<g class="marker %s" data-at-ms="%d" data-line="%d">' % (
            m.kind, g.shift + m.at, m.line))
        out.append('<title>%s (journal line %d)</title>' % (escape(m.label), m.line))
        out.append('<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" '
                   'stroke-width="0.6" stroke-dasharray="2 2"/>' % (
                       label.mx, ly + 3, label.mx, mark_y, colour))
        if label.text:
            out.append(_text(label.x, ly, label.text, LABEL_SIZE, fill=colour))
        out.append(_marker_shape(m.kind, label.mx, mark_y, colour))
        out.append('</g>')
    out.append('</g>')

    # Lanes.
    by_lane = spans_by_lane(tl)
    for lane in tl.lanes:
        ly = lane_y[lane]
        out.append('<g class="lane" data-lane="%s">' % escape(lane))
        out.append(_text(left - 8, ly + LANE_H / 2 + 4,
                         fit(_lane_title(lane), 12, left - 8 - MARGIN), 12, "end"))
        out.append('<rect x="%d" y="%d" width="%.1f" height="%d" fill="#f5f5f5"/>' % (
            left, ly, end_x - left, LANE_H))
        for s in by_lane[lane]:
            x0 = scale.x(g.shift + s.start)
            x1 = end_x if s.end is None else scale.x(g.shift + s.end)
            colour = _span_colour(s)
            label = _span_label(s, x1 - x0, tl.end)
            out.append('<g class="span" data-value="%s" data-start-ms="%d" data-end-ms="%s">'
                       % (escape(s.value), g.shift + s.start,
                          "" if s.end is None else g.shift + s.end))
            out.append('<title>%s %s: %s - %s</title>' % (
                escape(_lane_title(lane)), escape(s.value), fmt_ms(s.start),
                "end" if s.end is None else fmt_ms(s.end)))
            out.append('<rect x="%.1f" y="%d" width="%.1f" height="%d" fill="%s" '
                       'stroke="#fff" stroke-width="1"/>' % (x0, ly, x1 - x0, LANE_H, colour))
            if label:
                fill = "#fff" if s.lane == "etat" and s.value in _DARK else "#000"
                out.append(_text(x0 + 4, ly + LANE_H / 2 + 4, label, 11, fill=fill))
            out.append('</g>')
        out.append('</g>')

    # Boots, and a new config or firmware: a line across every lane.
    for label in g.labels:
        m = label.marker
        if m.kind in ("boot", "config"):
            dash = ' stroke-dasharray="5 4"' if m.kind == "config" else ""
            out.append('<line class="%s-line" x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" '
                       'stroke="%s" stroke-width="2.5"%s/>' % (
                           m.kind, label.mx, mark_y + 12, label.mx, bottom,
                           MARKER_COLOURS[m.kind], dash))
    return bottom + LANE_GAP


def _draw_axis(out, scale, axis_y, left, end_x, origin_wall):
    """The axis: the times written out (the stretched scale is not straight), on the
    wall clock when the journals say it."""
    out.append('<g class="axis">')
    out.append('<line x1="%d" y1="%d" x2="%.1f" y2="%d" stroke="#000"/>' % (
        left, axis_y, end_x, axis_y))
    label_w = text_width(_axis_label(0, origin_wall), 10)
    last_end = -1e9
    for t in scale.ticks(label_w):
        x = scale.x(t)
        out.append('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#000"/>' % (
            x, axis_y, x, axis_y + 5))
        text = _axis_label(t, origin_wall)
        w = text_width(text, 10)
        if x - w / 2 >= last_end + 8:
            out.append(_text(x, axis_y + 17, text, 10, "middle"))
            last_end = x + w / 2
    out.append(_text(left - 8 - label_w / 2, axis_y + 17, _axis_unit(origin_wall), 10,
                     "end", "#555"))
    out.append('</g>')


def _draw_legend(out, y, width, scale_kind, notes):
    """The legend, its items flowing on as many lines as the width needs. -> y after."""
    out.append('<g class="legend">')
    x = MARGIN
    for name in STATES:
        text = "%s (%s)" % (name, SHORT[name])
        w = 20 + text_width(text, 11) + 20
        if x + w > width - MARGIN:
            x, y = MARGIN, y + 20
        out.append('<rect x="%d" y="%d" width="14" height="14" fill="%s"/>' % (
            x, y - 11, COLOURS[name]))
        out.append(_text(x + 20, y, text, 11))
        x += w
    y += 22
    x = MARGIN
    for kind, text in (("action", "took hold"), ("answer", "answered (armure, résiste, cri)"),
                       ("ignored", "ignored"), ("undo", "undone"), ("error", "error"),
                       ("boot", "boot (a line across the lanes)"),
                       ("config", "new config or firmware (a dashed line)")):
        w = 20 + text_width(text, 11) + 20
        if x + w > width - MARGIN:
            x, y = MARGIN, y + 20
        out.append(_marker_shape(kind, x + 6, y - 11, MARKER_COLOURS[kind]))
        out.append(_text(x + 20, y, text, 11))
        x += w
    if scale_kind == "linear":
        lines = ["Time axis straight (--scale linear)."]
    else:
        lines = ["Time axis stretched around events and squeezed in quiet stretches: read "
                 "the times written on it (--scale linear draws it straight)."]
    for note in lines + list(notes):
        y += 18
        out.append(_text(MARGIN, y, fit(note, 10, width - 2 * MARGIN), 10, fill="#555"))
    out.append('</g>')
    return y


def _draw_errors(out, groups, y, width, several):
    errors = [(g, m) for g in groups for m in g.tl.markers if m.kind in ("error", "safe_mode")]
    if not errors:
        return y
    y += 10
    out.append('<g class="errors">')
    for g, m in errors:
        y += LABEL_ROW
        text = "%s  %s" % (fmt_ms(m.at), m.label)
        if several:
            text = "%s  %s" % (g.heading, text)
        out.append(_text(MARGIN, y, fit(text, 11, width - 2 * MARGIN), 11,
                         fill=MARKER_COLOURS["error"]))
    out.append('</g>')
    return y
