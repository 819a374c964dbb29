# The words players shout, as the badge understands them (docs/scenarios.md): the
# grammar of scenario files and the serial console. Accents optional, any case,
# "coup :" = "coup", English aliases. Raises ParseError with a message for people.
# The names it parses to are cran.core.vocab's (here too, for the host's convenience).
# A badge loads this only for a console action (cran.console) and its start.

from cran.core.vocab import (  # noqa: F401
    AGONISANT,
    BLESSE,
    COMA,
    DIGITS,
    KEYWORDS,
    MAX_RENOWN,
    MORT,
    PLEINE_FORME,
    SPACE_CHARS,
    SPACES,
    STATES,
    TIMED_EFFECTS,
    Action,
    ParseError,
    chars,
    const,
    lookup,
)

# What the serial console answers to `help` (cran.console): here, loaded when asked,
# not in the badge's RAM all day.
HELP = ("actions as in scenario files (coup, coup blesse, effet peur, soin, ...); "
        "status; journal; config; clock SECONDS; reboot; challenge; unlock TAG; lock; "
        "echo TEXT; help. Actions, config, clock and reboot need an unlock.")

# The word tables are strings, "|key=value|...", read by lookup(): on a badge a dict of
# 50 entries costs ~1.5 KB of RAM (a table of slots and a qstr for every word), a
# string its characters. Parsing is rare (a console line), so the scan costs nothing.

# str.translate does not exist on MicroPython, and its str.lower() only knows ASCII:
# a per-character table, capitals included, does the job on both. A character beyond
# ASCII that is not in it is refused, on both (CPython would lower it, MicroPython not).
_PLAIN = const(
    "|à=a|â=a|ä=a|á=a|ç=c|é=e|è=e|ê=e|ë=e|î=i|ï=i|í=i|ô=o|ö=o|ó=o|ù=u|û=u|ü=u|ú=u|ÿ=y|œ=oe|"
    "æ=ae|’='|À=a|Â=a|Ä=a|Á=a|Ç=c|É=e|È=e|Ê=e|Ë=e|Î=i|Ï=i|Í=i|Ô=o|Ö=o|Ó=o|Ù=u|Û=u|Ü=u|Ú=u|"
    "Ÿ=y|Œ=oe|Æ=ae|«= |»= |:= |!= |,= |")


def plain(text):
    """Lower case, accents off, punctuation a player might type turned to spaces. The
    same on every runtime: ASCII letters lowered, the table's letters beyond ASCII, and
    any other character beyond ASCII refused (ParseError naming it)."""
    if len(text.encode()) != len(text) or ":" in text or "!" in text or "," in text:
        out = []
        for c in chars(text):   # not `for c in text` (chars says why)
            if c < "\x80":
                out.append(lookup(_PLAIN, c) or c.lower())
                continue
            p = lookup(_PLAIN, c)
            if p is None:
                raise ParseError(_unread(c))
            out.append(p)
        return "".join(out)
    return text.lower()


def _unread(c):
    what = " (a no-break space: type a plain one)" if c in "\u00a0\u202f" else ""
    return "character U+%04X is not one the badge reads%s" % (ord(c), what)


def shown(text, most=40):
    """text as a message quotes it: at most `most` characters, and any character that
    is not printable ASCII written \\uXXXX, so what cannot be seen is named."""
    out = []
    for c in chars(text[:most]):
        out.append(c if " " <= c < "\x7f" else "\\u%04x" % ord(c))
    return "'%s%s'" % ("".join(out), "..." if len(text) > most else "")


def words_of(text):
    """text -> its words, split at SPACES (ASCII) only."""
    for c in SPACE_CHARS[1:]:
        if c in text:
            text = text.replace(c, " ")
    return [w for w in text.split(" ") if w]


def is_digits(text):
    """True for one or more ASCII digits, nothing else."""
    return text != "" and text.strip(DIGITS) == ""


def whole(text, what, most):
    """ASCII digits -> their number, at most `most`. Raises ParseError naming what:
    a number from outside is checked before any use (a 5,000-digit one would stop
    CPython's int(), and a huge one crash a badge's clock)."""
    if not is_digits(text):
        raise ParseError("%s must be a whole number, got %s" % (what, shown(text)))
    digits = text.lstrip("0") or "0"
    if len(digits) > len(str(most)) or int(digits) > most:
        raise ParseError("%s is at most %d, got %s" % (what, most, shown(text)))
    return int(digits)


_KEYWORD_ALIASES = const(
    "|dying=agonisant|stun=assomme|stunned=assomme|knockout=assomme|blind=aveugle|"
    "blinded=aveugle|wound=blesse|wounded=blesse|break=brise|broken=brise|charm=charme|"
    "charmed=charme|disarm=desarme|disarmed=desarme|dispel=dissipe|dispelled=dissipe|"
    "pain=douleur|weakness=faiblesse|weak=faiblesse|immobilize=immobilise|"
    "immobilized=immobilise|immobilised=immobilise|root=immobilise|rooted=immobilise|"
    "death=mort|dead=mort|kill=mort|obey=obeis|paralyze=paralyse|paralyzed=paralyse|"
    "paralysed=paralyse|fear=peur|gaze=regard|resist=resiste|theft=vol|steal=vol|"
    "stolen=vol|obeir=obeis|")

# Verbs and the one-word actions, with their English aliases.
_VERBS = const(
    "|coup=coup|hit=coup|strike=coup|effet=effet|effect=effet|")
_SIMPLE = const(
    "|soin=soin|heal=soin|nuit=nuit|night=nuit|sleep=nuit|hors-jeu=hors-jeu|out=hors-jeu|"
    "en-jeu=en-jeu|in=en-jeu|stop=stop|pause=stop|reprise=reprise|resume=reprise|"
    "reset=reset|soin-complet=soin-complet|")
_TWO_WORDS = const(
    "|soin complet=soin-complet|full heal=soin-complet|heal full=soin-complet|"
    "hors jeu=hors-jeu|out of game=hors-jeu|en jeu=en-jeu|back in game=en-jeu|"
    "in game=en-jeu|")
_REPAIR = const(("repare", "reparer", "repair"))
_ARMOR = const(("armure", "armor", "armour"))
_DIVIN = const(("divin", "divine"))
# K6, spoken in full or short.
_FINISHING = const(("mort si coma", "mort si tu etais dans le coma", "death if coma",
                    "mort si dans le coma", "de grace", "finish"))
# Keywords that name an object or limb after them.
_WITH_TARGET = const(("brise", "desarme", "vol"))


def keyword(word):
    """The canonical keyword for a word, or None."""
    if word in KEYWORDS:
        return word
    return lookup(_KEYWORD_ALIASES, word)


def _strip_modifiers(words):
    """Take trailing 'divin' / 'de masse' off a coup or effet, in either order."""
    divin = masse = False
    while words:
        if words[-1] in _DIVIN:
            divin = True
            words = words[:-1]
        elif words[-1] in ("masse", "mass"):
            masse = True
            words = words[:-1]
            if words and words[-1] in ("de", "of"):
                words = words[:-1]
        else:
            break
    return words, divin, masse


# A target (the limb or object of brise, desarme, vol, repare) is one word of at most
# _MAX_TARGET_CHARS of these, not a closed list: objects are the game's own, named as the
# players name them. 24 holds any limb or object said in one breath ("jambe-gauche",
# "bouclier-de-chene"), fits a screen's line, and bounds the state record: a broken
# target is kept twice (the state and K9's state before), engine.MAX_BROKEN at most.
# ASCII letters and digits only, so each is one byte in the record's JSON, never six.
_MAX_TARGET_CHARS = 24
_TARGET_CHARS = const("abcdefghijklmnopqrstuvwxyz0123456789-_'")


def target(word, what):
    """A target as said -> itself, checked. Raises ParseError naming what and why."""
    if len(word) > _MAX_TARGET_CHARS or word.strip(_TARGET_CHARS):
        raise ParseError("the %s is one word of at most %d letters, digits or '-', got %s"
                         % (what, _MAX_TARGET_CHARS, shown(word, _MAX_TARGET_CHARS)))
    return word


def parse_action(text):
    """Parse one action as a player or organiser says it. Raises ParseError."""
    words = words_of(plain(text))
    if not words:
        raise ParseError("empty action")
    phrase = " ".join(words)
    verb = lookup(_TWO_WORDS, phrase)
    if verb is not None:
        return Action(verb)
    head = words[0]
    simple = lookup(_SIMPLE, head)
    if len(words) == 1 and simple is not None:
        return Action(simple)
    if head in _REPAIR:
        if len(words) != 2:
            raise ParseError("'%s' needs one thing to repair: armure or a target" % head)
        if words[1] in _ARMOR:
            return Action("repare", target="armure")
        return Action("repare", target=target(words[1], "thing to repair"))
    if head in ("renommee", "renown"):
        return _parse_renown(words)
    verb = lookup(_VERBS, head)
    if verb is not None:
        return _parse_keyword_action(verb, words[1:])
    if simple is not None:
        raise ParseError("'%s' takes no words after it, got %s"
                         % (head, shown(" ".join(words[1:]))))
    raise ParseError("unknown action %s" % shown(head))


def _parse_renown(words):
    if len(words) != 2:
        raise ParseError("renommee needs one number: renommee +2, renommee -1 or renommee 7")
    value = words[1]
    sign = value[0] if value[0] in "+-" else ""
    amount = whole(value[1:] if sign else value, "renommee", MAX_RENOWN)
    return Action("renommee", target="+" if sign else "=",
                  amount=-amount if sign == "-" else amount)


def _parse_keyword_action(verb, words):
    words, divin, masse = _strip_modifiers(words)
    rest = " ".join(words)
    if rest in ("", "normal") and verb == "coup":
        return Action("coup", divin=divin, masse=masse)
    if rest in _FINISHING and verb == "coup":
        return Action("coup", "mort-si-coma", divin=divin, masse=masse)
    if not words:
        raise ParseError("'%s' needs a keyword" % verb)
    kw = keyword(words[0])
    if kw is None:
        raise ParseError("unknown keyword %s" % shown(words[0]))
    named = None
    extra = words[1:]
    if kw in _WITH_TARGET or kw == "dissipe":
        if len(extra) > 1:
            raise ParseError("'%s' takes one word after it, got %s" % (kw, shown(" ".join(extra))))
        if extra:
            if kw == "dissipe":
                named = keyword(extra[0])
                if named is None:
                    raise ParseError("unknown keyword %s to dissipate" % shown(extra[0]))
            else:
                named = target(extra[0], "target of " + kw)
        elif kw == "brise":
            raise ParseError("brise needs a target, e.g. 'coup brise bras-gauche'")
    elif extra:
        raise ParseError("unexpected %s after '%s'" % (shown(" ".join(extra)), kw))
    return Action(verb, kw, named, divin, masse)
