# The words players shout, as the badge understands them (../shared/SCENARIOS.md): the
# grammar of scenario files and the serial console. Accents optional, any case,
# "coup :" = "coup", English aliases. Raises ParseError with a message for people.
# The names it parses to are cran.core.vocab's (here too, for the host's convenience).
# A badge loads this only for a console action (cran.console) and its start.

from cran.core.vocab import (  # noqa: F401
    AGONISANT,
    BLESSE,
    COMA,
    KEYWORDS,
    MORT,
    PLEINE_FORME,
    STATES,
    TIMED_EFFECTS,
    Action,
    ParseError,
    lookup,
)

# The word tables are strings, "|key=value|...", read by lookup(): on a badge a dict of
# 50 entries costs ~1.5 KB of RAM (a table of slots and a qstr for every word), a
# string its characters. Parsing is rare (a console line), so the scan costs nothing.

# str.translate does not exist on MicroPython, and its str.lower() only knows ASCII:
# a per-character table, capitals included, does the job on both.
_PLAIN = (
    "|à=a|â=a|ä=a|á=a|ç=c|é=e|è=e|ê=e|ë=e|î=i|ï=i|í=i|ô=o|ö=o|ó=o|ù=u|û=u|ü=u|ú=u|ÿ=y|œ=oe|"
    "æ=ae|’='|À=a|Â=a|Ä=a|Á=a|Ç=c|É=e|È=e|Ê=e|Ë=e|Î=i|Ï=i|Í=i|Ô=o|Ö=o|Ó=o|Ù=u|Û=u|Ü=u|Ú=u|"
    "Ÿ=y|Œ=oe|Æ=ae|«= |»= |:= |!= |,= |")


def plain(text):
    """Lower case, accents off, punctuation a player might type turned to spaces."""
    text = text.lower()
    for ch in text:
        if ord(ch) > 127 or ch in ":!,":
            out = []
            for c in text:
                out.append(lookup(_PLAIN, c) or c)
            return "".join(out)
    return text


_KEYWORD_ALIASES = (
    "|dying=agonisant|stun=assomme|stunned=assomme|knockout=assomme|blind=aveugle|"
    "blinded=aveugle|wound=blesse|wounded=blesse|break=brise|broken=brise|charm=charme|"
    "charmed=charme|disarm=desarme|disarmed=desarme|dispel=dissipe|dispelled=dissipe|"
    "pain=douleur|weakness=faiblesse|weak=faiblesse|immobilize=immobilise|"
    "immobilized=immobilise|immobilised=immobilise|root=immobilise|rooted=immobilise|"
    "death=mort|dead=mort|kill=mort|obey=obeis|paralyze=paralyse|paralyzed=paralyse|"
    "paralysed=paralyse|fear=peur|gaze=regard|resist=resiste|theft=vol|steal=vol|"
    "stolen=vol|obeir=obeis|")

# Verbs and the one-word actions, with their English aliases.
_VERBS = (
    "|coup=coup|hit=coup|strike=coup|effet=effet|effect=effet|")
_SIMPLE = (
    "|soin=soin|heal=soin|nuit=nuit|night=nuit|sleep=nuit|hors-jeu=hors-jeu|out=hors-jeu|"
    "en-jeu=en-jeu|in=en-jeu|stop=stop|pause=stop|reprise=reprise|resume=reprise|"
    "reset=reset|soin-complet=soin-complet|")
_TWO_WORDS = (
    "|soin complet=soin-complet|full heal=soin-complet|heal full=soin-complet|"
    "hors jeu=hors-jeu|out of game=hors-jeu|en jeu=en-jeu|back in game=en-jeu|"
    "in game=en-jeu|")
_REPAIR = ("repare", "reparer", "repair")
_ARMOR = ("armure", "armor", "armour")
_DIVIN = ("divin", "divine")
# K6, spoken in full or short.
_FINISHING = ("mort si coma", "mort si tu etais dans le coma", "death if coma",
              "mort si dans le coma", "de grace", "finish")
# Keywords that name an object or limb after them.
_WITH_TARGET = ("brise", "desarme", "vol")


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


def parse_action(text):
    """Parse one action as a player or organiser says it. Raises ParseError."""
    words = plain(text).split()
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
        return Action("repare", target=words[1])
    if head in ("renommee", "renown"):
        return _parse_renown(words)
    verb = lookup(_VERBS, head)
    if verb is not None:
        return _parse_keyword_action(verb, words[1:])
    if simple is not None:
        raise ParseError("'%s' takes no words after it, got '%s'" % (head, " ".join(words[1:])))
    raise ParseError("unknown action '%s'" % head)


def _parse_renown(words):
    if len(words) != 2:
        raise ParseError("renommee needs one number: renommee +2, renommee -1 or renommee 7")
    value = words[1]
    sign = value[0] if value[0] in "+-" else ""
    if not value.lstrip("+-").isdigit():
        raise ParseError("renommee needs a whole number, got '%s'" % value)
    return Action("renommee", target="+" if sign else "=", amount=int(value))


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
        raise ParseError("unknown keyword '%s'" % words[0])
    target = None
    extra = words[1:]
    if kw in _WITH_TARGET or kw == "dissipe":
        if len(extra) > 1:
            raise ParseError("'%s' takes one word after it, got '%s'" % (kw, " ".join(extra)))
        if extra:
            target = extra[0]
            if kw == "dissipe":
                named = keyword(target)
                if named is None:
                    raise ParseError("unknown keyword '%s' to dissipate" % target)
                target = named
        elif kw == "brise":
            raise ParseError("brise needs a target, e.g. 'coup brise bras-gauche'")
    elif extra:
        raise ParseError("unexpected '%s' after '%s'" % (" ".join(extra), kw))
    return Action(verb, kw, target, divin, masse)


def parse_duration(text):
    """'90', '90s', '500ms', '5m', '1h', '1m30s' -> milliseconds. Raises ParseError."""
    units = {"ms": 1, "s": 1000, "m": 60000, "min": 60000, "h": 3600000}
    text = text.strip().lower()
    total = 0
    i = 0
    n = len(text)
    if n == 0:
        raise ParseError("empty duration")
    while i < n:
        j = i
        while j < n and text[j].isdigit():
            j += 1
        if j == i:
            raise ParseError("bad duration '%s'" % text)
        k = j
        while k < n and text[k].isalpha():
            k += 1
        unit = text[j:k] or "s"
        if unit not in units or (unit == "s" and k == j and k != n):
            raise ParseError("bad duration '%s' (use 90, 90s, 500ms, 5m, 1h)" % text)
        total += int(text[i:j]) * units[unit]
        i = k
    return total
