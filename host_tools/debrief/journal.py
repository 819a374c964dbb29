# A badge's journal read: what the badge recorded, entry by entry, and the state it was
# in after each. The journal is what cran.storage.Journal holds: one JSON object a line,
# written by cran/badge.py, cran/start/restore.py and cran/app.py: {"boot"}, {"a", "c"},
# {"timer"}, {"undo"}, {"error"}, {"safe_mode"}, {"restored"} (the state came back from
# its copy in NVS), {"inconnu"} (the state is lost: etat inconnu until a reset),
# {"fresh"}, each with "up" (ms since that boot) and "t" (wall-clock seconds) once the
# badge knows the time. docs/journal.md says what every field holds. And {"heard",
# "etat", "rssi"}: the badge as the game master's station heard it change, in version
# 1's words (host_tools/field/fieldlog.py makes such journals from the station's).
#
# Version 2 (this firmware's): the boot, every action, timer and undo carry "s", the
# engine's summary of the state after it (cran.core.engine.summary), and their cues'
# kinds as codes; an error a tool acts on carries its code "e". The state is read, never
# worked out. Version 1 (badges flashed before) said only the etat: its other lanes are
# rebuilt from the cues by _Version1, the one place that re-encodes rules (and reads
# error words), kept so that old journals still draw.
import json

from cran.badge import UNDO_MS
from cran.core.choices import ARMOR_NAMES
from cran.core.engine import EFFECT_TIMERS, TIMER_NAMES
from cran.core.vocab import (
    COPY_BAD,
    COPY_MISSING,
    CUE_ARMOR,
    CUE_BROKEN,
    CUE_COMBAT,
    CUE_DISPELLED,
    CUE_EFFECT,
    CUE_END,
    CUE_IGNORED,
    CUE_KINDS,
    CUE_NOTICED,
    CUE_PLAY,
    CUE_REPAIRED,
    CUE_RESET,
    CUE_SAY,
    CUE_STATE,
    INCONNU,
    NVS_BAD,
    PLAYS,
    STATES,
)
from host_tools.build import unrenamed

ERROR_CODES = (COPY_MISSING, COPY_BAD, NVS_BAD)
FRESH = "no state saved yet"   # why a new badge starts fresh
# The effects a lane is drawn for: the 5-minute ones, desarme and vol (State.effects).


class Seen:
    """The wearer's state after an entry, as the badge had it. answers: armor answers
    left, None when the journal can't say (a version-1 journal without the armor's
    count: `used` then counts those given); of: the armor's count, when known."""

    def __init__(self, etat=None, answers=None, damaged=False, jeu=PLAYS[0],
                 combat=False, effects=(), broken=(), used=0, of=None):
        self.etat = etat            # a word of STATES, INCONNU, or None: not known yet
        self.answers = answers
        self.damaged = damaged
        self.jeu = jeu
        self.combat = combat
        self.effects = list(effects)
        self.broken = list(broken)
        self.used = used
        self.of = of


class Entry:
    def __init__(self, line, raw):
        self.line = line            # line number in the journal as read
        self.raw = raw
        self.up = raw["up"]
        self.kind = _kind(raw)
        self.cues = []              # [(kind, value)], kinds as words (CUE_KINDS)
        self.seen = None            # Seen: the state after it (read())
        self.code = None            # an error's code (cran.core.vocab), when it has one
        self.fresh = None           # the badge started fresh here: why
        self.at = 0                 # ms on the timeline, from its first entry
        self.wall = None            # wall-clock seconds, when they can be known
        self.changes = []           # what it changed: "etat=blesse", "+peur"
        self.note = ""              # boots: how far from the entry before
        self.changed = ""           # boots: firmware or character changed since the last
        self.by = None              # a tool's doing, not the wearer's: {"check": what} it
                                    # followed (a boot cran check made, and what it found)


def _kind(raw):
    for key, kind in (("boot", "boot"), ("a", "act"), ("timer", "timer"),
                      ("undo", "undo"), ("safe_mode", "safe_mode"), ("fresh", "fresh"),
                      ("restored", "restored"), ("inconnu", "inconnu"), ("error", "error"),
                      ("heard", "heard"), ("recast", "recast"), ("check", "check")):
        if key in raw:
            return kind
    return "other"


def whole(value):
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _raw_cues(raw):
    for key in ("c", "timer", "undo", "heard"):
        if key in raw:
            return raw[key]
    return []


def _fault(raw):
    """Why a decoded line can't be used, or None."""
    if not isinstance(raw, dict):
        return "not a JSON object"
    if not whole(raw.get("up")):
        return "no uptime \"up\" in whole ms"
    if "t" in raw and not whole(raw["t"]):
        return "bad wall clock \"t\""
    if "etat" in raw and raw["etat"] not in STATES:
        return "unknown etat %r" % (raw["etat"],)
    if "a" in raw and not isinstance(raw["a"], str):
        return "action \"a\" is not text"
    cues = _raw_cues(raw)
    if not isinstance(cues, list) or [c for c in cues if not (
            isinstance(c, list) and len(c) == 2 and (isinstance(c[0], str) or whole(c[0])))]:
        return "cues are not [kind, value] pairs"
    if "s" in raw:
        return _summary_fault(raw["s"])
    return None


def _summary_fault(s):
    """Why a state summary "s" (cran.core.engine.summary) can't be read, or None."""
    if not isinstance(s, list) or len(s) < 5:
        return "state \"s\" is not [etat, answers, damaged, jeu, timers, broken...]"
    etat, answers, damaged, play, timers = s[:5]
    if etat is not None and not (whole(etat) and etat < len(STATES)):
        return "state \"s\": unknown etat code %r" % (etat,)
    if not whole(answers) or damaged not in (0, 1):
        return "state \"s\": bad armor %r, %r" % (answers, damaged)
    if not (whole(play) and play < len(PLAYS)):
        return "state \"s\": unknown jeu code %r" % (play,)
    if not (whole(timers) and timers < 1 << len(TIMER_NAMES)):
        return "state \"s\": unknown timers %r" % (timers,)
    if [b for b in s[5:] if not isinstance(b, str)]:
        return "state \"s\": a broken target is not text"
    return None


def parse_lines(lines, source="journal"):
    """Journal lines -> (entries, problems). A line that can't be read (a power cut
    tears the last one) is skipped and named: 'SOURCE:LINE: unreadable, skipped (why)';
    a code this cran does not know (a newer firmware's) is named too, and the entry
    kept."""
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
            continue
        if isinstance(raw.get("error"), str):   # a fault's words name the code's names
            raw["error"] = unrenamed(raw["error"])
        entries.append(_entry(number, raw, "%s:%d" % (source, number), problems))
    return entries, problems


def _entry(number, raw, where, problems):
    """An Entry of a decoded line that _fault() found nothing wrong with."""
    e = Entry(number, raw)
    for kind, value in _raw_cues(raw):
        e.cues.append((_cue_kind(kind, where, problems), value))
    if e.kind == "error":
        e.code = _error_code(raw, where, problems)
    return e


def _cue_kind(kind, where, problems):
    """A cue's kind as written (a word in version 1, a code in 2) -> its word."""
    if isinstance(kind, str):
        return kind
    if 0 <= kind < len(CUE_KINDS):
        return CUE_KINDS[kind]
    problems.append("%s: cue kind code %d is not one this cran knows (a newer "
                    "firmware's?): shown as ?%d" % (where, kind, kind))
    return "?%d" % kind


def _error_code(raw, where, problems):
    code = raw.get("e")
    if code is None or code in ERROR_CODES:
        return code
    problems.append("%s: error code %r is not one this cran knows (a newer firmware's?): "
                    "shown as its words" % (where, code))
    return None


def read(entries, config=None):
    """Set each entry's .seen (the state after it) and .fresh, in journal order.
    config: the badge's config.json as a dict, for the armor's count (a boot entry
    tells it too, and wins from there on)."""
    of = armor_count(config)
    if of is None:
        of = next((e.raw["armor"] for e in entries if e.kind == "boot"
                   and whole(e.raw.get("armor"))), None)
    old = _Version1(of, _first_etat(entries))
    # Which version wrote what comes (a badge reflashed mid-journal has both): the
    # first entry that says the state tells it, then every boot. None saying it: the
    # cues are all there is (version 1's reading: a journal made of the game master's
    # station's commands, host_tools/field/fieldlog.py).
    summaries = next(("s" in e.raw for e in entries if "s" in e.raw or "etat" in e.raw),
                     False)
    seen = Seen(of=of)
    by = None
    for e in entries:
        # cran check notes each boot it makes before it makes it ({"check": "start"},
        # {"check": "reset"}): that boot and what it found are the check's.
        if e.kind == "check":
            by = e.raw
        elif e.kind in _BOOT_FINDINGS and by is not None:
            e.by = by
        else:
            by = None
        if e.kind == "boot":
            summaries = "s" in e.raw
        if e.kind in ("boot", "recast") and whole(e.raw.get("armor")):
            of = old.model.armor = e.raw["armor"]   # the character as it booted, or anew
        if "s" in e.raw:
            seen = summary_seen(e.raw["s"], of)
            old.sync(seen)
        elif not summaries:
            seen = old.step(e)
        # (else an entry of version 2 that does not say the state: it is as it was)
        e.seen = seen


# What a boot writes, and after it what it found of the state (docs/journal.md).
_BOOT_FINDINGS = ("boot", "fresh", "restored", "inconnu", "error", "safe_mode", "other")


def by_tool(e):
    """Whose doing an entry is when it is not the wearer's: "cran check's start" (the
    check started the badge on its REPL), "cran check's reset" (at its end); else None."""
    if e.by is None:
        return None
    what = e.by.get("check")
    return "cran check's %s" % (what if isinstance(what, str) else "reset")


def armor_count(config):
    """The armor's answers per combat from a config (a count or a name), or None."""
    config = config if isinstance(config, dict) else {}
    character = config.get("character")
    armor = character.get("armor") if isinstance(character, dict) else None
    if isinstance(armor, str):
        armor = ARMOR_NAMES.get(armor)
    return armor if whole(armor) else None


def summary_seen(s, of):
    """A version-2 state summary (cran.core.engine.summary, checked by _fault) -> Seen."""
    etat, answers, damaged, play, timers = s[:5]
    running = [name for i, name in enumerate(TIMER_NAMES) if timers >> i & 1]
    return Seen(INCONNU if etat is None else STATES[etat], answers, damaged == 1,
                PLAYS[play], "combat" in running,
                sorted(name for name in running if name in EFFECT_TIMERS), s[5:], of=of)


def _first_etat(entries):
    """The state before a version-1 journal's first state change, when an entry tells
    it: one that names its etat without changing it says it was already so (a boot
    between restores the same state; a fresh start sets its own)."""
    for e in entries:
        if "etat" in e.raw:
            changed = [c for c in e.cues if c[0] in (CUE_STATE, CUE_RESET)]
            return None if changed else e.raw["etat"]
    return None


# ---- version 1: the state rebuilt from the cues -------------------------------------
# A version-1 journal says the etat after each action, but not the armor, the effects,
# the combat or what is broken: they are worked out here from the cues, by the rules
# (docs/rules.md) that make them. Only for journals written before version 2.

_V1_COPIES = ("state.a:", "state.b:")     # a version-1 error about a state record copy
_V1_MISSING = "missing"                   # ... that is not there
_V1_REFUSED = "state record refused"      # the record was there, but not readable


class _Model:
    def __init__(self, armor):
        self.armor = armor          # answers per combat, None if unknown
        self.etat = None
        self.effects = []
        self.used = 0               # «Armure» answers given this combat
        self.damaged = False
        self.combat = False
        self.jeu = PLAYS[0]
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
        self.etat = STATES[0]
        self.jeu = jeu

    def apply(self, kind, value):
        if kind == CUE_STATE:
            self.etat = value
            if value == STATES[-1]:
                self.effects = []       # S6: the engine drops every effect timer at mort
        elif kind == CUE_EFFECT and value not in self.effects:
            self.effects.append(value)
        elif kind in (CUE_END, CUE_NOTICED) and value in self.effects:
            self.effects.remove(value)
        elif kind == CUE_COMBAT:
            self.combat = value == "debut"
            if not self.combat:
                self.used = 0           # A3: answers come back, damaged or not
        elif kind == CUE_ARMOR:
            if value == "abimee":
                self.damaged = True
            elif value == "reparee":
                self.damaged = False
                if "armure" in self.broken:
                    self.broken.remove("armure")
            elif value == "rechargee":
                self.used = 0
        elif kind == CUE_SAY and value == "armure":
            self.used += 1
        elif kind == CUE_BROKEN:
            if value not in self.broken:
                self.broken.append(value)
            if value == "armure":
                self.damaged = True
        elif kind == CUE_REPAIRED and value in self.broken:
            self.broken.remove(value)
        elif kind == CUE_PLAY:
            self.jeu = value
        elif kind == CUE_RESET:
            self.fresh()

    def seen(self):
        if self.armor is None:
            answers = None
        else:
            answers = 0 if self.damaged else max(0, self.armor - self.used)
        return Seen(self.etat, answers, self.damaged, self.jeu, self.combat, self.effects,
                    self.broken, self.used, self.armor)


class _Version1:
    """A version-1 journal's entries, one after the other -> the state after each."""

    def __init__(self, armor, etat):
        self.model = _Model(armor)
        self.model.etat = etat
        self.before_act = self.before_hit = None   # for undo, and for K9's dissipe
        self.restored = {}          # after a boot: state copy -> why it was skipped
        self.explained = False      # ... and the boot said what became of the state

    def sync(self, seen):
        """A version-2 entry says the state: a version-1 one after it (a badge flashed
        back) goes on from there."""
        m = self.model
        m.etat, m.damaged, m.jeu, m.combat = seen.etat, seen.damaged, seen.jeu, seen.combat
        m.effects, m.broken = list(seen.effects), list(seen.broken)
        if m.armor is not None and not seen.damaged:
            m.used = max(0, m.armor - seen.answers)

    def step(self, e):
        """One entry of a version-1 journal. -> Seen after it."""
        raw = e.raw
        if e.kind == "boot":
            self.restored = {}
            self.explained = False
            self.before_act = None
        elif e.kind == "fresh":
            self.model.fresh()
            e.fresh = FRESH
        elif e.kind == "restored":
            self.explained = True           # the state saved last: the model goes on
        elif e.kind == "inconnu":
            self.explained = True
            self.model.fresh()
            self.model.etat = INCONNU       # until a reset (its cue makes it fresh)
        elif e.kind == "error" and isinstance(raw["error"], str):
            self._error(e, raw["error"])
        elif e.kind == "act":
            self._act(e)
        elif e.kind == "undo" and self.before_act is not None:
            self.model = self.before_act.copy()   # the state before the action taken back
            self.before_act = self.before_hit = None
        for kind, value in e.cues:
            self.model.apply(kind, value)
        if "etat" in raw:
            self.model.etat = raw["etat"]
        return self.model.seen()

    def _error(self, e, text):
        if text[:8] in _V1_COPIES and text[9:] == _V1_MISSING:
            e.code = COPY_MISSING
        if self.explained:   # the boot said what became of the state already
            return
        if text[:8] in _V1_COPIES:
            self.restored[text[:7]] = text[9:]
        # Both copies unreadable, or the record refused: the badge starts fresh.
        if len(self.restored) == 2 or text.startswith(_V1_REFUSED):
            self.model.fresh()
            e.fresh = (FRESH if list(self.restored.values()) == [_V1_MISSING] * 2
                       else "state lost")
            self.restored = {}

    def _act(self, e):
        words = e.raw["a"].split()
        hit = words[:1] in (["coup"], ["effet"]) and words[1:2] != ["dissipe"]
        kinds = [kind for kind, _ in e.cues]
        before = self.model.copy()
        if CUE_DISPELLED in kinds and self.before_hit is not None:
            self.model = self.before_hit.copy()   # K9: the Coup/Effet just received never was
        self.before_act = before
        self.before_hit = before.copy() if hit else None
        if words[1:2] == ["vol"] and CUE_SAY not in kinds and CUE_IGNORED not in kinds:
            self.model.apply(CUE_EFFECT, "vol")   # K13: a silent timer, until noticed


# ---- an entry in words ----------------------------------------------------------------

ANSWERS = {"armure": "«Armure»", "resiste": "«Résiste»", "cri": "cri (creature)"}


def said(e):
    """The last answer an action asked the wearer to say aloud, in words, or None."""
    answers = [ANSWERS.get(v, v) for k, v in e.cues if k == CUE_SAY]
    return answers[-1] if answers else None


def ignored(e):
    """Why an action did nothing (the engine's word), or None."""
    return next((v for k, v in e.cues if k == CUE_IGNORED), None)


def noticed(e):
    """What a timer's entry says was noticed (K13): ["vol"], or []."""
    return [v for k, v in e.cues if k == CUE_NOTICED]


# Entries whose key holds what they say: how a line puts it.
_SAYING = {"error": "error: %s", "safe_mode": "safe mode: %s", "fresh": "fresh start: %s",
           "restored": "restored: %s", "inconnu": "etat inconnu: %s"}


def what(e):
    """One entry in words, for a terminal."""
    raw = e.raw
    if e.kind == "act":
        answer = said(e)
        why = ignored(e)
        return raw["a"] + ("  " + answer if answer else "") + (
            "  (ignored: %s)" % why if why else "")
    if e.kind == "check":
        return "cran check: %s" % (raw["check"],)
    if e.kind == "boot":
        return "boot %s (%s)%s%s" % (raw["boot"], e.note or raw.get("cause") or "?",
                                     "; " + e.changed if e.changed else "",
                                     ", by %s" % by_tool(e) if e.by else "")
    if e.kind == "timer":
        notes = ["%s noticed" % v for v in noticed(e)]
        return "(timer)" + (" " + ", ".join(notes) if notes else "")
    if e.kind == "heard":
        if raw.get("rssi") is None:
            return "(the station starts: not heard yet)"
        return "(heard by the station, %s dBm)" % (raw["rssi"],)
    if e.kind in _SAYING:
        return _SAYING[e.kind] % (raw[e.kind],)
    if e.kind == "undo":
        return "undo (double press)"
    return note(raw)


def note(raw):
    """An entry of another kind (docs/journal.md's "others") in words where its kind is
    known, else as its JSON."""
    said, value = raw.get("light_sleep"), raw.get("value")
    if isinstance(said, str):
        return "light sleep " + said
    if "late_undo" in raw:
        late = raw["late_undo"]
        if whole(late):
            return ("double press %.1f s after the action: too late to undo (%d s)"
                    % (late / 1000, UNDO_MS // 1000))
        return "double press: nothing to undo"
    if raw.get("radio") == "offer" and isinstance(value, str):
        return "radio: %s offered to the wearer (a long press takes it)" % value
    if raw.get("radio") == "offered" and (value is None or isinstance(value, str)):
        return "radio: this badge's offer made to %s" % (
            "badge " + value if value else "nobody near enough")
    if raw.get("radio") == "refused" and isinstance(raw.get("kind"), str):
        age = raw.get("age_s")
        if whole(age):
            when = "made %d s before" % age
        elif isinstance(age, int) and not isinstance(age, bool):
            when = "made %d s ahead of the badge's clock" % -age
        else:
            when = "when it was made unknown: the badge's clock or its maker's"
        return "radio: %s refused, heard late (%s)" % (raw["kind"], when)
    if raw.get("radio") == "dropped" and isinstance(value, dict):
        return "radio: frames refused so far: %s" % ", ".join(
            "%s %s" % (why, value[why]) for why in sorted(value))
    return json.dumps(raw, sort_keys=True)


def live_line(raw):
    """One entry as a running badge just wrote it, in a line (cran sim's journal)."""
    why = _fault(raw)
    if why:
        return "unreadable entry (%s): %s" % (why, json.dumps(raw)[:80])
    e = _entry(0, raw, "entry", [])
    if e.kind not in ("act", "timer", "undo"):
        return what(e)
    etat = summary_seen(raw["s"], None).etat if "s" in raw else raw.get("etat")
    head = {"act": raw.get("a"), "timer": "timer", "undo": "undo"}[e.kind]
    return "%s -> %s  [%s]" % (head, etat, ", ".join("%s %s" % c for c in e.cues))
