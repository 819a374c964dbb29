# What a screen's words share (cran.texts, the look's; cran.menuwords, the open menu's):
# a keyword as a screen shows it, the failed save's line. Loaded with them, let go with
# them (cran.hal.display.Screen.draw, cran.menu).

from cran.core.vocab import lookup


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

