# The words of an open menu on a screen: its page, its entries. Loaded with the open menu
# (cran.menutree) and let go with it when it closes: a screen's RAM the rest of the time.
# It says the open menu's lines (cran.hal.display.Screen.draw), without cran.texts: an
# open menu's peak holds no words of the look.

from cran.core.vocab import const, lookup
from cran.menutree import CODE, DIVIN, PEEK, SLOT_NAMES, TREAT, Page
from cran.screenwords import label, not_saved

# The pages' titles by cran.menutree's numbers, word tables (lookup) as the screen's
# other words are: so long a string is one object, made as the module loads. Short words
# would be names, kept for good on every board with a screen; a tuple of them, 24
# objects more, 0.7 KB while the menu is open.
_TITLES_FR = ("|0=Menu|1=Coup|2=Effet|3=Autre|4=Etats|5=Effets 1|6=Effets 2|7=Autres|"
              "8=Suite|9=Jeu|10=Orga|11=Code|")
_TITLES_EN = ("|0=Menu|1=Hit|2=Effect|3=Other|4=States|5=Effects 1|6=Effects 2|7=Others|"
              "8=More|9=Game|10=Organiser|11=Code|")


def title(page, lang):
    """A page's title in lang ("fr", "en")."""
    return lookup(_TITLES_EN if lang == "en" else _TITLES_FR, str(page.title))


def lines_for(app, state, now, where, peeking, unknown, fault):
    """The open menu on app's screen (as cran.texts.lines_for says the rest), the failed
    save's line under it (a badge in safe mode has no menu). -> (its lines, None)"""
    lines = menu_lines(app.menu, app.lang, app.screen.columns)
    if fault:
        lines = lines + [not_saved(app.lang)]
    return lines, None


def menu_here(menu, lang):
    """The words for menu.where(): the page's title on direct boards, else the entry
    under the cursor. None when closed."""
    here = menu.page_here()
    if here is None:
        return None
    page, cursor = here
    if menu.direct:
        return title(page, lang)
    return entry_label(menu, page.entries[cursor], lang)


def entry_label(menu, entry, lang):
    en = lang == "en"
    if isinstance(entry, Page):
        return title(entry, lang)
    if entry == PEEK:
        return "Peek" if en else "Voir"
    if entry == DIVIN:
        if en:
            return "Divine: " + ("on" if menu.divin else "off")
        return "Divin: " + ("oui" if menu.divin else "non")
    if entry == TREAT:   # over the radio, to the nearest badge (cran.radio.link)
        if menu.treats == "soin":
            return "Heal nearest" if en else "Soigner"
        return "Repair nearest" if en else "Reparer"
    return _action_label(entry, lang)


def menu_lines(menu, lang, width):
    """Screen lines for the open menu: its title, then 'input entry' lines."""
    page, cursor = menu.page_here()
    out = [title(page, lang)]
    if menu.divin:
        out[0] += " (divin)"
    if page is CODE:   # short and long presses, any button: shown as stars
        out.append("*" * len(menu.code) or ("short/long" if lang == "en" else "court/long"))
    for i, entry in enumerate(page.entries):
        if menu.direct:
            out.append("%-2s %s" % (SLOT_NAMES[i], entry_label(menu, entry, lang)))
        else:
            out.append(("> " if i == cursor else "  ") + entry_label(menu, entry, lang))
    if menu.direct:
        out.append("bb " + ("Back" if lang == "en" else "Retour"))
    return [line[:width] for line in out]


_ACTION_EN = const(
    "|soin=Heal|soin-complet=Full heal|nuit=Night|hors-jeu=Out of game|"
    "en-jeu=Back in game|stop=Stop game|reprise=Resume game|reset=Reset|")


def _action_label(action, lang):
    """A menu entry's words: the keyword alone inside a Coup/Effet page."""
    verb = action.verb
    if verb in ("coup", "effet"):
        if action.kw is None:
            return "Hit" if lang == "en" else "Normal"
        return label(action.kw, lang)
    if verb == "repare":
        if lang == "en":
            return "Repair " + ("armor" if action.target == "armure" else "limb")
        return "Repare " + action.target
    if lang == "en":
        return lookup(_ACTION_EN, verb)
    return label(verb)
