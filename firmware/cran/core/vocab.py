# The badge's vocabulary: the states, keywords and effects the rules name, and an
# action as the engine takes it. What every module of the badge needs; the grammar that
# reads them from text (cran.core.words) is loaded only when text comes.


try:
    # const(): a private module constant (_NAME) given as const(value) is written in
    # place by mpy-cross, and a badge keeps no name (qstr) for it, nor a slot in its
    # module's dict. The firmware's modules take it from here (the core imports nothing
    # but itself: cran.compat has the other runtime differences).
    from micropython import const
except ImportError:   # CPython: plain values
    def const(value):  # type: ignore[misc]
        return value


class ParseError(ValueError):
    pass


# What separates words, and what a digit is: ASCII, on every runtime. CPython's split(),
# strip() and isdigit() also take no-break and em spaces and Arabic-Indic digits, where
# MicroPython's take ASCII only: text is read with these, so the badge and the desktop
# give one answer.
SPACES = " \t\n\r\x0b\x0c"
# The same one by one, written out: characters taken out of a str by a loop are made
# qstrs as the loop runs (chars() says why that matters), literals when the module loads.
SPACE_CHARS = (" ", "\t", "\n", "\r", "\x0b", "\x0c")
DIGITS = "0123456789"
# P2: renown is kept from 0 to this (the highest rank needs 20): a number from outside
# is bounded before it reaches the state and its record.
MAX_RENOWN = 999


STATES = ("pleine-forme", "blesse", "agonisant", "coma", "mort")
PLEINE_FORME = 0
BLESSE = 1
AGONISANT = 2
COMA = 3
MORT = 4
INCONNU = "inconnu"   # not a state: what a badge that lost its saved state says it is
# Whether the wearer plays (State.play): in play, out of the game (K16), or the game
# stopped (K15). The journal writes it as its place here: the order is a format.
PLAYS = ("en-jeu", "hors-jeu", "stop")
# The damaged armour (A4, State.armor_damaged) as the badge says it, in one spelling: an
# `expect` field, a key of its status and of its state record. One object for all: a
# str of more than 10 characters is no name (qstr) but an object of each module's own
# (shared, 112 bytes less of a 32-bit heap after boot than a literal in each module).
ARMOR_DAMAGED = "armure-abimee"

# The kinds of cue (what the badge must tell: cran.core.engine), each by the word the
# scenario trace prints (docs/scenarios.md): code names a kind by its constant, never by
# the word. (The 19 names cost a badge ~10 bytes each, made at its start and kept: with
# the journal's summary, codes and CUE_KINDS, ~0.7-1.0 KB of a 32-bit heap after boot as
# files, ~0.4-0.6 KB in ROMFS. A kind with one name, and a debrief that reads the state
# the badge had, are worth it. Names also bring nearer the point where the next pool of
# names is allocated, 2-3 KB at once: in the bench's port, where the runner's own names
# come first (bench/report.py), these once took the Atom Lite and the DevKitC past it.)
CUE_STATE = "etat"           # a new state (S1-S5)
CUE_LOOK = "vu"              # the public look (S7): debout, blesse, au-sol, inerte
CUE_COUNTDOWN = "compte"     # a countdown started (S3, S4)
CUE_SAY = "dit"              # what the wearer answers aloud (A1, A5, A6, K12)
CUE_EFFECT = "effet"         # an effect begins (K2, K3, K8)
CUE_END = "fin"              # ... and ends
CUE_NOTICED = "remarque"     # a theft noticed (K13)
CUE_BROKEN = "brise"         # a target broken (K7)
CUE_REPAIRED = "repare"      # ... and mended
CUE_ARMOR = "armure"         # abimee, reparee, rechargee (A3, A4)
CUE_COMBAT = "combat"        # debut, fin (C1)
CUE_PLAY = "jeu"             # a word of PLAYS (K15, K16)
CUE_DISPELLED = "dissipe"    # what a dissipe cancelled (K9)
CUE_FORGET = "oubli"         # the wearer remembers nothing of it (S8)
CUE_SHOW = "montre"          # an honour-system keyword, shown only (K14)
CUE_RANK = "rang"            # a new rank (P2)
CUE_RESET = "reset"          # a fresh character (P3)
CUE_IGNORED = "ignore"       # why an action did nothing
CUE_WARNING = "alerte"       # the app's: the last minute before coma, or death
# The journal writes a cue's kind as its place here (numbers, not words: a badge writes
# them at every change), so a kind is only ever added at the end.
CUE_KINDS = (CUE_STATE, CUE_LOOK, CUE_COUNTDOWN, CUE_SAY, CUE_EFFECT, CUE_END, CUE_NOTICED,
             CUE_BROKEN, CUE_REPAIRED, CUE_ARMOR, CUE_COMBAT, CUE_PLAY, CUE_DISPELLED,
             CUE_FORGET, CUE_SHOW, CUE_RANK, CUE_RESET, CUE_IGNORED, CUE_WARNING)

# Why a journal entry is an error, for the tools that read it ("e" beside the error's
# words, which are for people): what a boot found of the state's records, which the
# boot acts on and a debrief too, by the code, never by the words. Errors nobody acts on
# (a failed save, a bug caught, a config problem) have words alone. Only ever added to.
COPY_MISSING = const(1)    # a copy of the state record (state.a, state.b) is not there
COPY_BAD = const(2)        # a copy is there but unreadable, or not a record of this format
NVS_BAD = const(3)         # the record's copy in NVS can't be opened or read

# The effects a badge shows (K3's 5-minute ones and K8's desarme; vol, never shown, is
# not one), in the order they were added to the game: an effect's place is its number on
# the LEDs (cran.cues) and, for a 5-minute one, its timer's bit in the journal
# (cran.core.engine.TIMER_NAMES). A new one goes at the end, never between, or every
# journal and card written before would read another effect (tests/test_effects.py).
EFFECTS = ("assomme", "aveugle", "charme", "douleur", "faiblesse", "immobilise", "obeis",
           "paralyse", "peur", "statue", "desarme")
# K3: the 5-minute effects, in that order (the engine ends them in it).
TIMED_EFFECTS = tuple(name for name in EFFECTS if name != "desarme")
KEYWORDS = ("agonisant", "assomme", "aveugle", "blesse", "brise", "charme", "coma",
            "desarme", "dissipe", "douleur", "faiblesse", "immobilise", "invisible",
            "message", "mort", "obeis", "paralyse", "peur", "regard", "resiste", "statue",
            "vol")


class Action:
    """One thing that happens to the wearer. verb is one of: coup, effet, soin,
    soin-complet, repare, nuit, hors-jeu, en-jeu, stop, reprise, reset, renommee."""

    # The defaults are the class's: an action keeps only what it names (a normal hit,
    # made at each press, one field; the menu's ~60 actions, a smaller heap).
    kw = None       # type: str | None  # keyword of a coup/effet; None: a normal hit
    target = None   # type: str | None  # broken limb, repaired thing, named object
    divin = False   # K10
    masse = False   # K11
    amount = 0      # renommee: signed change, or value when set

    def __init__(self, verb, kw=None, target=None, divin=False, masse=False, amount=0):
        self.verb = verb
        if kw is not None:
            self.kw = kw
        if target is not None:
            self.target = target
        if divin:
            self.divin = divin
        if masse:
            self.masse = masse
        if amount:
            self.amount = amount

    def text(self):
        """The canonical words for this action, as a console or trace shows them."""
        if self.verb == "renommee":
            return "renommee " + (("%+d" if self.target == "+" else "%d") % self.amount)
        words = [self.verb]
        if self.verb == "coup" and self.kw is None:
            words.append("normal")
        if self.kw == "mort-si-coma":
            words.append("mort si coma")   # as said, so the text parses back
        elif self.kw:
            words.append(self.kw)
        if self.target:
            words.append(self.target)
        if self.masse:
            words.append("de masse")
        if self.divin:
            words.append("divin")
        return " ".join(words)

    def __eq__(self, other):
        return isinstance(other, Action) and self.text() == other.text()

    def __repr__(self):
        return "Action(%r)" % self.text()


def lookup(table, key):
    """The value of key in a "|key=value|..." table, or None. Word tables are strings:
    on a badge a dict of 50 entries costs ~1.5 KB of RAM (a table of slots and a qstr
    for every word), a string its characters; lookups are rare (text coming in)."""
    if "|" in key or "=" in key:
        return None
    i = table.find("|%s=" % key)
    if i < 0:
        return None
    i += len(key) + 2
    return table[i:table.index("|", i)]


def chars(text):
    """text's characters, one str each, cut from its UTF-8 bytes. Taken out of the str
    itself (`for c in text`, text[i]), each would be made a qstr on MicroPython: kept
    for good, and a new qstr pool is one block that must be found whole. Text from
    outside (a console line, a name) must not grow a badge's heap."""
    raw = text.encode()
    i = 0
    n = len(raw)
    while i < n:
        b = raw[i]
        j = i + (1 if b < 0xC0 else 2 if b < 0xE0 else 3 if b < 0xF0 else 4)
        yield raw[i:j].decode()
        i = j
