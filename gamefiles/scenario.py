# Scenario files (docs/scenarios.md): parse a timeline, replay it through the
# engine, check `expect` lines. Runs the same under CPython and MicroPython, so the
# host can compare the two runtimes event for event.

from cran.core.choices import (  # noqa: F401  (UnknownWord: the host takes it here)
    MAX_ANSWERS,
    UnknownWord,
    as_dict,
    parse_duration,
    yes_no,
)
from cran.core.engine import EFFECT_TIMERS, act, new_state, next_deadline, tick
from cran.core.rules import Character, Settings
from cran.core.ticks import ticks_add, ticks_diff
from cran.core.view import FIELDS, view
from cran.core.vocab import ARMOR_DAMAGED, PLAYS
from cran.core.words import (
    MAX_RENOWN,
    SPACES,
    STATES,
    ParseError,
    is_digits,
    keyword,
    parse_action,
    plain,
    shown,
    whole,
    words_of,
)

# The errors of the badge's grammar (cran.core.words) for a word it does not know, by how
# they start, and the grammar's tables the word is not among. The grammar says the word
# in its message only: a badge parsing a console line carries nothing more for it.
_GRAMMAR_UNKNOWN = (("unknown action '", ("actions", ("expect",))),
                    ("unknown keyword '", ("keywords",)))


def grammar_word(e):
    """A ParseError of cran.core.words.parse_action -> an UnknownWord saying the same
    when it is about a word not known, else itself."""
    text = str(e)
    end = text.rfind("'")
    for start, among in _GRAMMAR_UNKNOWN:
        if text.startswith(start) and end > len(start):
            return UnknownWord(text, text[len(start):end], among)
    return e


class ScenarioError(ValueError):
    """A fault of a scenario file: its line and what is wrong. parse() raises the first
    one, with every fault of the file in .faults (itself first), each with the unknown
    word and what it is not among (UnknownWord) when it is one: the host
    suggests the nearest."""

    def __init__(self, line, message, cause=None):
        # super(), not ValueError.__init__: MicroPython's exception types have no
        # __init__ attribute to call.
        super().__init__("%d: %s" % (line, message))
        self.line = line
        self.message = message
        self.word = getattr(cause, "word", None)
        self.among = getattr(cause, "among", ())
        self.faults = [self]


class _Faults(ParseError):
    """Every fault of one line (a character or expect line, field by field): .each, the
    first of them saying it."""

    def __init__(self, each):
        super().__init__(str(each[0]))
        self.each = each


def _raise_any(faults):
    if len(faults) == 1:
        raise faults[0]
    if faults:
        raise _Faults(faults)


_FIELD_ALIASES = {"state": "etat", "armor": "armure", "armour": "armure",
                  "armor-damaged": ARMOR_DAMAGED, "effects": "effets",
                  "broken": "brises", "said": "dit", "left": "reste", "play": "jeu",
                  "renown": "renommee"}
_STATE_ALIASES = {"healthy": "pleine-forme", "full": "pleine-forme", "ok": "pleine-forme",
                  "wounded": "blesse", "dying": "agonisant", "dead": "mort"}
_SAID_ALIASES = {"armor": "armure", "armour": "armure", "resist": "resiste",
                 "shout": "cri", "cry": "cri", "none": "-"}
_PLAY_ALIASES = {"in": "en-jeu", "in-game": "en-jeu", "out": "hors-jeu",
                 "out-of-game": "hors-jeu", "stopped": "stop"}


class Scenario:
    def __init__(self, character, steps):
        self.character = character   # Character
        # (line, t_ms, "act", Action) or (line, t_ms, "expect", [(field, value, as_written)])
        self.steps = steps


def parse(text):
    """Scenario text -> Scenario. Raises ScenarioError: the first fault, every fault of
    the file in its .faults (in line order), so that a writer mends them all at once."""
    reader = Reader()
    steps = []
    faults = []
    for number, raw in enumerate(text.split("\n"), 1):
        try:
            step = reader.line(number, raw)
        except ScenarioError as e:
            faults.extend(e.faults)
            continue
        if step is not None:
            steps.append(step)
    if faults:
        faults[0].faults = faults
        raise faults[0]
    return Scenario(reader.character or Character(), steps)


class Reader:
    """A scenario read a line at a time: line() -> the line's step, or None (blank,
    comment, character). What parse() does, for a file too long to hold its steps
    (MicroPython's heap): each step can be run as it comes."""

    def __init__(self):
        self.character = None
        self.t = 0
        self.timed = False

    def line(self, number, raw):
        """One line of the file (its number counts from 1). Raises ScenarioError."""
        if number == 1 and raw.startswith("\ufeff"):
            raw = raw[1:]    # a byte-order mark, as some Windows editors write
        line = raw.split("#", 1)[0].strip(SPACES)
        if not line:
            return None
        try:
            return self._step(number, line)
        except ParseError as e:
            faults = [ScenarioError(number, str(f), f) for f in getattr(e, "each", (e,))]
            faults[0].faults = faults
            raise faults[0] from None

    def _step(self, number, line):
        first, rest = _split_first(line)
        low = plain(first)
        if low in _CHARACTER_WORDS:
            if self.timed:
                raise ParseError("the character line must come before the first timed line")
            if self.character is not None:
                raise ParseError("only one character line is allowed")
            self.character = parse_character(rest)
            return None
        self.t = t = _parse_time(first, self.t)
        self.timed = True
        if not rest:
            raise ParseError("nothing to do at %s" % first)
        what, fields = _split_first(rest)
        if plain(what) == "expect":
            return (number, t, "expect", _parse_expect(fields))
        try:
            return (number, t, "act", parse_action(rest))
        except ParseError as e:
            raise grammar_word(e) from None


def _split_first(line):
    # line starts with a word. At SPACES only, as the badge splits: one answer on every
    # runtime.
    first = words_of(line)[0]
    return first, line[len(first):].strip(SPACES)


# A scenario's times: any game's length, and more. Two lines further apart than a badge's
# ticks can tell (2**29 ms, about 149 hours; cran.core.ticks) are run in strides (run()).
MAX_SCENARIO_MS = 10000 * 3600000


def _parse_time(word, previous):
    if word[0] == "+":
        ms = previous + parse_duration(word[1:])
    else:
        ms = _clock_time(word)
        if ms < previous:
            raise ParseError("time goes backwards: %s is before the previous line" % word)
    if ms > MAX_SCENARIO_MS:
        raise ParseError("time %s is past 10,000 hours" % shown(word))
    return ms


_CHARACTER_WORDS = ("character", "personnage")


def _clock_time(word):
    if ":" not in word:
        raise UnknownWord("expected a time (M:SS, H:MM:SS or +DURATION), got %s"
                           % shown(word), word, (_CHARACTER_WORDS,))
    parts = word.split(":")
    frac_ms = 0
    if "." in parts[-1]:
        parts[-1], frac = parts[-1].split(".", 1)
        if not is_digits(frac) or len(frac) > 3:
            raise ParseError("bad time %s" % shown(word))
        frac_ms = int((frac + "00")[:3])
    if word == ":":   # the sim's console line, typed as `: ACTION` there
        raise ParseError("bad time ':': `: ACTION` is how `cran sim` takes a console "
                         "line; in a scenario file, an action has its time (0:05 coup) "
                         "and the wearer is set by a `character ...` line first")
    if len(parts) > 3 or not all(is_digits(p) for p in parts):
        raise ParseError("bad time %s (use M:SS, H:MM:SS or +DURATION)" % shown(word))
    if any(len(p) != 2 or int(p) > 59 for p in parts[1:]):
        raise ParseError("bad time %s: minutes and seconds are two digits, 00 to 59"
                         % shown(word))
    # The first part is read only when short enough to mean something (no 5,000-digit
    # number reaches int()): anything longer is past the limit anyway.
    head = parts[0].lstrip("0") or "0"
    if len(head) > 9:
        raise ParseError("time %s is past 10,000 hours" % shown(word))
    ms = int(head)
    for p in parts[1:]:
        ms = ms * 60 + int(p)
    return ms * 1000 + frac_ms


def _parse_expect(text):
    if not text:
        raise ParseError("expect needs at least one FIELD=VALUE")
    out = []
    faults = []
    for name, value in split_fields(text):
        try:
            field = _FIELD_ALIASES.get(name, name)
            if field not in FIELDS:
                raise UnknownWord("unknown expect field %s" % shown(name), name,
                                   (FIELDS, _FIELD_ALIASES))
            out.append((field, _expect_value(field, value), "%s=%s" % (name, value)))
        except ParseError as e:
            faults.append(e)
    _raise_any(faults)
    return out


_SAID = ("armure", "resiste", "cri", "-")
_YES_NO = ("oui", "non", "yes", "no", "true", "false")


def _expect_value(field, value):
    """Check and normalise one expected value; sets come back sorted, joined by ','."""
    if field in ("effets", "brises"):
        return _expect_list(field, value)
    v = _word(value)
    if field == "etat":
        return _one_of("etat", value, _STATE_ALIASES.get(v, v), STATES, _STATE_ALIASES)
    if field in ("armure", "renommee"):
        if not is_digits(v):
            raise ParseError("bad value for %s: %s (a whole number)" % (field, shown(value)))
        return str(whole(v, field, MAX_ANSWERS if field == "armure" else MAX_RENOWN))
    if field in (ARMOR_DAMAGED, "combat"):
        return "oui" if _yes_no(field, value) else "non"
    if field == "dit":
        return _one_of("dit", value, _SAID_ALIASES.get(v, v), _SAID, _SAID_ALIASES)
    if field == "reste":
        if v in ("-", "none"):
            return "-"
        if not is_digits(v):
            raise ParseError("bad value for reste: %s (whole seconds, or -)" % shown(value))
        return str(whole(v, "reste", MAX_SCENARIO_MS // 1000))
    return _one_of("jeu", value, _PLAY_ALIASES.get(v, v), PLAYS, _PLAY_ALIASES)


def _one_of(field, value, v, names, aliases):
    """v (value read, aliases resolved) if it is one of names; else the fault, listing
    them."""
    if v in names:
        return v
    raise UnknownWord("bad value for %s: %s (%s or %s)" % (
        field, shown(value), ", ".join(names[:-1]), names[-1]), v, (names, aliases))


def _yes_no(field, value):
    try:
        return yes_no(plain(value))
    except ParseError:
        raise UnknownWord("%s: expected yes/no (oui/non), got %s" % (field, shown(value)),
                           plain(value), (_YES_NO,)) from None


def _word(value):
    # plain() would read commas as spaces: lists are split before this.
    return plain(value).strip(SPACES).replace("_", "-").replace(" ", "-")


def _expect_list(field, value):
    names = [_word(n) for n in value.split(",")]
    names = [n for n in names if n]
    if names in (["-"], ["none"], ["aucun"], ["aucune"]):
        return "-"
    if field == "effets":
        for i, name in enumerate(names):
            names[i] = keyword(name) or name
            if names[i] not in EFFECT_TIMERS:
                raise UnknownWord("bad value for effets: '%s' is not a timed effect (%s)"
                                   % (name, ", ".join(EFFECT_TIMERS)), name,
                                   (EFFECT_TIMERS,))
    return ",".join(sorted(names)) or "-"


def check(expected, seen):
    """expect fields vs a view -> [(as_written, got)] for every field that failed."""
    failed = []
    for field, want, as_written in expected:
        got = seen[field]
        if field == "reste" and want != "-" and got != "-":
            ok = abs(int(want) - int(got)) <= 1     # ±1 s allowed
        else:
            ok = want == got
        if not ok:
            failed.append((as_written, got))
    return failed


def view_list(state, now):
    """A view as a list in FIELDS order (cran.core.view): what events carry."""
    seen = view(state, now)
    return [seen[f] for f in FIELDS]


def cue_list(cues):
    return [[kind, value, private] for _, kind, value, private in cues]


_STRIDE_MS = 1 << 27   # well below the half tick period, and above any one timer's wait


def run(scenario, start_tick=0, settings=None):
    """Replay a parsed scenario; yield one event (a list of plain values) at a time:
    ["timer", t_ms, cues, view] for each moment timers fire,
    ["act", line, t_ms, action, cues, view] for each action,
    ["expect", line, t_ms, view] for each expect line. view follows FIELDS."""
    state = new_state(scenario.character, settings or Settings())
    at = 0   # scenario ms the timers have been run to
    for line, t, kind, payload in scenario.steps:
        # Up to t in strides a tick difference reads right (below 2**29 ms apart: two
        # lines 150 h apart would read as time gone backwards), each due deadline fired
        # at its own time, so every state change has its moment.
        while True:
            at = min(t, at + _STRIDE_MS)
            now = ticks_add(start_tick, at)
            deadline = next_deadline(state)
            while deadline is not None and ticks_diff(now, deadline) >= 0:
                state, fired = tick(state, deadline)
                yield ["timer", at + ticks_diff(deadline, now), cue_list(fired),
                       view_list(state, deadline)]
                deadline = next_deadline(state)
            if at == t:
                break
        if kind == "act":
            state, cues = act(state, payload, now)
            yield ["act", line, t, payload.text(), cue_list(cues), view_list(state, now)]
        else:
            yield ["expect", line, t, view_list(state, now)]


# ---- the character line (host only: a badge gets its character from config.json) ----

def count(text, what):
    """Armor answers or creature absorptions, from 0 to MAX_ANSWERS."""
    return whole(text, what, MAX_ANSWERS)


def split_fields(text):
    """'a=1 name="two words"' -> [('a', '1'), ('name', 'two words')]. Raises ParseError."""
    fields = []
    i = 0
    n = len(text)
    while i < n:
        if text[i] in " \t":
            i += 1
            continue
        eq = text.find("=", i)
        space = text.find(" ", i)
        if eq < 0 or (0 <= space < eq):
            end = space if space >= 0 else n
            raise ParseError("expected FIELD=VALUE, got %s" % shown(text[i:end]))
        name = plain(text[i:eq].strip(SPACES))
        i = eq + 1
        if i < n and text[i] in "\"'":
            close = text.find(text[i], i + 1)
            if close < 0:
                raise ParseError("unclosed quote after %s=" % name)
            value = text[i + 1:close]
            i = close + 1
        else:
            end = i
            while end < n and text[end] not in " \t":
                end += 1
            value = text[i:end]
            i = end
        if not name:
            raise ParseError("a field name is missing before '='")
        fields.append((name, value))
    return fields


_CHARACTER_FIELDS = ("name", "armor", "helmet", "creature", "resist", "agonisant", "coma")
_CHARACTER_ALIASES = {"nom": "name", "armure": "armor", "armour": "armor", "casque": "helmet",
                      "creature": "creature", "resiste": "resist", "resistances": "resist",
                      "dying": "agonisant"}


def parse_character(text, base=None):
    """The fields of a scenario's `character` line (without the word) -> Character.
    base: a Character whose fields the line's change (the others kept); default: a new
    one. Raises ParseError; one for every wrong field (_Faults) when there are several."""
    c = Character() if base is None else Character(**as_dict(base))
    seen = []
    faults = []
    for name, value in split_fields(text):
        name = _CHARACTER_ALIASES.get(name, name)
        try:
            if name in seen:
                raise ParseError("%s is given twice" % name)
            seen.append(name)
            _character_field(c, name, value)
        except ParseError as e:
            faults.append(e)
    _raise_any(faults)
    return c


def _character_field(c, name, value):
    # A field as the line spells it (agonisant, coma: a duration) -> Character.set,
    # whose fault the field's name starts.
    if name not in _CHARACTER_FIELDS:
        raise UnknownWord("unknown character field %s" % shown(name), name,
                           (_CHARACTER_FIELDS, _CHARACTER_ALIASES))
    try:
        c.set(name + "_ms" if name in ("agonisant", "coma") else name, value)
    except UnknownWord as e:
        raise UnknownWord("%s: %s" % (name, e), e.word, e.among) from None
    except ParseError as e:
        raise ParseError("%s: %s" % (name, e)) from None
