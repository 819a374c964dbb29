# "Did you mean": the nearest word a parser knows, for a misspelt one. Host only
# (difflib): the parsers' errors carry the word and the tables it is not among
# (gamefiles.scenario.UnknownWord), and the badge's messages stay short.
import difflib

from cran.core import words as grammar

# How alike two words must be (difflib's ratio) to be offered: a letter missing, doubled
# or swapped ('metall' and 'metal' are 0.91, 'cuop' and 'coup' 0.75), not a word that
# merely shares letters ('bronze' and 'none' are 0.6, 'atom-heavy' and 'atom-lite' 0.63).
CUTOFF = 0.72


# The badge grammar's own tables, by name (gamefiles.scenario.grammar_word): its first words
# of an action, and its keywords (or "normal", a coup's).
GRAMMAR = {
    "actions": (grammar._SIMPLE, grammar._VERBS, grammar._REPAIR, ("renommee", "renown"),
                grammar._TWO_WORDS),
    "keywords": (grammar.KEYWORDS, grammar._KEYWORD_ALIASES, ("normal",)),
}


def words_of(among):
    """The words of a parser's tables: a "|key=value|..." string (cran.core.vocab.lookup)
    gives its keys and values, a dict its keys and values, a tuple its items, a name of
    GRAMMAR its tables' words."""
    words = []
    for table in among:
        if isinstance(table, str) and table in GRAMMAR:
            words.extend(words_of(GRAMMAR[table]))
        elif isinstance(table, str):
            for pair in table.strip("|").split("|"):
                words.extend(pair.split("=", 1))
        elif isinstance(table, dict):
            words.extend(table)
            words.extend(v for v in table.values() if isinstance(v, str))
        else:
            words.extend(table)
    return list(dict.fromkeys(w for w in words if w))


def nearest(word, among):
    """The known word nearest to word, or None when none is near enough (or word is
    known: what is wrong is elsewhere)."""
    if not word or not among:
        return None
    word = word.lower()
    known = words_of(among)
    if word in known:
        return None
    found = difflib.get_close_matches(word, known, n=1, cutoff=CUTOFF)
    return found[0] if found else None


def offer(word, among):
    """"; did you mean 'X'?" with the known word nearest to word, else ''."""
    near = nearest(word, among)
    return "; did you mean '%s'?" % near if near else ""


def did_you_mean(error):
    """offer() for an error carrying .word and .among (gamefiles.scenario.UnknownWord),
    else ''."""
    return offer(getattr(error, "word", None), getattr(error, "among", ()))
