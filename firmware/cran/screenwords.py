# What a screen's words share (cran.texts, the look's; cran.menuwords, the open menu's):
# a keyword as a screen shows it, the failed save's line; and the wearer's news, which
# the app notes at each change (cran.hal.display.Screen.news_of). Loaded with them, let
# go with the look's words.

from cran.core.vocab import CUE_FORGET, CUE_NOTICED, lookup


def label(word, lang="fr"):
    """A keyword as a screen shows it: 'mort-si-coma' -> 'Mort si coma' / 'Death if coma'."""
    if lang == "en":
        from cran.texts_en import EN
        english = lookup(EN, word)
        if english is not None:
            return english
    text = word.replace("-", " ")
    return text[:1].upper() + text[1:]


def not_saved(lang):
    """The line a screen adds while the state can't be saved (Badge.save_error)."""
    return "NOT SAVED" if lang == "en" else "NON SAUVEGARDE"


# Private news the wearer must be told, on the peek: the reminder of S8 and the theft
# noticed (K13), as the (kind, value) of their cues. The app notes the last at each
# change (App.on_cues); cran.texts words it on the peek.
_NEWS = ((CUE_FORGET, "-"), (CUE_NOTICED, "vol"))


def news_of(cues):
    """-> ((kind, value), tick) of the last wearer's news among the cues, or None."""
    found = None
    for at, kind, value, _ in cues:
        if (kind, value) in _NEWS:
            found = ((kind, value), at)
    return found

