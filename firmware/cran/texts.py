# The words a screen shows: the public look, the wearer's private peek, a healer's offer,
# a lost state. A board with a screen loads this to draw a look and lets it go after
# (cran.hal.display.Screen.draw); one without never does. The open menu's words are
# cran.menuwords'.

from cran.core.steps import COUNTDOWN, PUBLIC_LOOK
from cran.core.ticks import ticks_diff
from cran.core.vocab import CUE_FORGET, CUE_NOTICED, EFFECTS, STATES, const
from cran.looks import SAY_MS, WARNING_MS, saying
from cran.screenwords import label, not_saved

# Screens' fonts are ASCII: words without accents. French is the keywords themselves;
# English is cran.texts_en's, loaded by an English badge only (cran.screenwords.label).

# The wearer's news (cran.screenwords.news_of) on the peek for _NEWS_MS after it came. No
# sound: private cues make none.
_NEWS_MS = const(300000)
_NEWS_WORDS = {(CUE_FORGET, "-"): ("Oubli agonie", "Forget: dying"),
              (CUE_NOTICED, "vol"): ("Vol remarque", "Theft noticed")}


def lines_for(app, state, now, where, peeking, unknown, fault):
    """The screen of app (cran.hal.display.Screen.draw, on a board with one) for now:
    a healer's offer while the menu is closed (where: cran.menu.Menu.where), the lost
    state's lines, or the look (peeking: the wearer's private peek, with its news); the
    safe mode's and the failed save's line under them. -> (its lines, ms until the public
    lines' answer goes, or None: no answer on them, or not the public lines)"""
    lang = app.lang
    width = app.screen.columns
    if app.menu is not None and where is not None:
        lines = menu_lines(app.menu, lang, width)
    elif unknown:
        lines = unknown_lines(lang, width)
    else:
        news = app.news
        if news is not None and ticks_diff(now, news[1]) >= _NEWS_MS:
            news = app.news = None
        lines = screen_lines(state, now, lang, peeking, width,
                             _NEWS_WORDS[news[0]] if news is not None else None)
    if app.safe:
        lines = lines + ["SAFE MODE" if lang == "en" else "MODE SECOURS"]
    if fault:
        lines = lines + [not_saved(lang)]
    # The public lines follow the state alone, but for an answer's line, which goes when
    # its time is up: App._next_wake wakes then, and they are drawn again.
    public = where is None and not peeking
    return lines, _say_left_ms(state, now) if public else None


def _say_left_ms(state, now):
    """ms until the public lines' answer goes (cran.looks.saying), or None if they show
    none."""
    if saying(state, now) is None:
        return None
    return SAY_MS - ticks_diff(now, state.answer[1])


def _mmss(ms):
    s = (ms + 999) // 1000
    return "%d:%02d" % (s // 60, s % 60)


def screen_lines(state, now, lang="fr", private=False, width=16, news=None):
    """Short ASCII lines for a screen: the public look, or the wearer's private peek.
    news: a (French, English) line of news_of() the peek shows under the state."""
    en = lang == "en"
    lines = []
    if state.stopped:
        lines.append("STOP - GAME" if en else "STOP - JEU")
    elif state.out_of_game:
        lines.append("OUT OF GAME" if en else "HORS-JEU")
    if private:
        mine = _private(state, now, lang)
        if news is not None:
            mine.insert(1, news[1 if en else 0])
        lines += mine
    elif not lines:
        seen = PUBLIC_LOOK[state.etat]
        lines.append(label(seen, lang))
        said = saying(state, now)   # for a while after the answer, as the LEDs show it
        if said is not None:
            lines.append(_say_line(said, lang))
        if seen != "inerte":   # S7: mort has no effects, so coma shows none either
            for name in state.effects():
                if name in EFFECTS:
                    lines.append(label(name, lang))
    return [line[:width] for line in lines]


def unknown_lines(lang="fr", width=16):
    """The screen of a badge whose state is lost (cran.badge: unknown), public or peeked:
    nothing of the wearer is known."""
    lines = ["STATE UNKNOWN", "See an organiser"] if lang == "en" else [
        "ETAT INCONNU", "Voir un orga"]
    return [line[:width] for line in lines]


def _say_line(word, lang):
    return ("Say: " if lang == "en" else "Dis: ") + label(word, lang).upper()


def _private(state, now, lang):
    en = lang == "en"
    line = label(STATES[state.etat], lang)
    left = state.left_ms(COUNTDOWN, now)
    if left is not None:
        line += " " + _mmss(left) + (" !" if left <= WARNING_MS else "")
    lines = [line]
    if state.said != "-":
        lines.append(_say_line(state.said, lang))
    if state.character.armor or state.armor_damaged:
        if state.armor_damaged:
            lines.append("Armor damaged" if en else "Armure abimee")
        else:
            lines.append(("Armor %d" if en else "Armure %d") % state.armor_answers())
    for name in state.effects():
        if name in EFFECTS:
            lines.append(label(name, lang) + " " + _mmss(state.left_ms(name, now)))
    for target in sorted(state.broken):
        lines.append(("Broken " if en else "Brise ") + target)
    return lines

# ---- the menu on a screen (cran.menu; the open menu's words: cran.menuwords) ------------

def menu_lines(menu, lang="fr", width=16):
    """Screen lines for the open menu (cran.menuwords', loaded while it is open), or for
    a healer's offer on show while it is closed."""
    if menu.is_open():
        from cran.menuwords import menu_lines as open_lines
        return open_lines(menu, lang, width)
    if menu.offer is None:
        return []
    if lang == "en":
        return ["Heal offered" if menu.offer == "soin" else "Repair offered",
                "long press: take"]
    return ["Soin offert" if menu.offer == "soin" else "Reparation offerte",
            "appui long: oui"]
