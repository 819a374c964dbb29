# `cran card`: a player's card for one board, to print (French, A6, two sides): how to
# read the badge, and what to press. Nothing on it is copied: the lights are
# cues.led_frame's (and peek_frame's) on states the engine plays, so their colours and
# rhythms are the badge's own; the sounds are tunes', the screen's words texts', the
# presses found in menu's own tree. A change in the firmware is a change on the card
# (tests/test_card.py).
import re
from xml.sax.saxutils import escape

from cran import cues, ledviews, menu, menutree, menuwords, texts, tunes
from cran.core.engine import act, new_state, tick
from cran.core.rules import Character, Settings
from cran.core.steps import COUNTDOWN
from cran.core.ticks import ticks_add
from cran.core.vocab import CUE_SAY, EFFECTS, STATES
from cran.core.words import parse_action
from cran.looks import UNKNOWN_LOOK
from cran.screenwords import label, not_saved
from host_tools import boards
from host_tools.paper import picture
from host_tools.paper.picture import fit, text_width

EXIT_BAD_INPUT = 2

# ---- what the card says, in the player's words -------------------------------------
# Each situation is played on a fresh character, then looked at as the badge shows it:
# (what it means to the player, actions, ms after the last action; "alerte": the last
# half-minute of agonisant; "inconnu": the lost state; "non-sauve": a failed save).
SITUATIONS = [
    ("Pleine forme", [], 4000),
    ("Blessé : continuez, sans courir", ["coup"], 4000),
    ("Agonisant : au sol, appelez à l'aide", ["coup agonisant"], 4000),
    ("Agonisant, dernière minute avant le coma", ["coup agonisant"], "alerte"),
    ("Coma ou mort : inerte. Les deux se ressemblent (voir en privé)", ["coup coma"], 4000),
    ("Hors-jeu", ["hors-jeu"], 4000),
    ("Jeu arrêté par un orga : figez-vous", ["stop"], 4000),
    ("État perdu : allez voir un orga", "inconnu", 4000),
    ("Non sauvegardé : allez voir un orga", "non-sauve", 4000),
]
# The answers the badge asks the wearer to say: (its word, a character and the hit that
# makes the engine ask for it, what to do).
ANSWERS = [
    ("armure", Character(armor=1), ["coup"], "Dites «Armure» : votre armure a paré"),
    ("resiste", Character(resist=("peur",)), ["effet peur"],
     "Dites «Résiste» : vous résistez"),
    ("cri", Character(creature=1), ["coup"], "Criez : la créature encaisse"),
]
EFFECT_NAMES = {
    "assomme": "Assommé", "aveugle": "Aveuglé", "charme": "Charmé", "douleur": "Douleur",
    "faiblesse": "Faiblesse", "immobilise": "Immobilisé", "obeis": "Obéis",
    "paralyse": "Paralysé", "peur": "Peur", "statue": "Statue", "desarme": "Désarmé",
}
STATE_NAMES = {"pleine-forme": "Pleine forme", "blesse": "Blessé",
               "agonisant": "Agonisant", "coma": "Coma", "mort": "Mort"}
# The actions whose presses the card spells out, as examples.
EXAMPLES = ["coup blesse", "coup agonisant", "effet peur", "coup mort si coma", "soin"]

_T0 = 1 << 20           # the ticks the card looks at: patterns repeat, any will do
_PERIOD_MS = 64 * cues.SLOT_MS  # the longest rhythm's: 8 s (a single LED's state+effect)
STATE_STEPS = 64        # 8 s: a single LED's state, then its effect's code
ANSWER_STEPS = 24       # the 3 s after the hit


class Row:
    """One line of a table: the text, and what the badge shows for it."""

    def __init__(self, text, frames=None, screen=None, looks=()):
        self.text = text
        self.frames = frames or []      # [[(r, g, b)] a LED] a step of 128 ms
        self.screen = screen or []      # the screen's lines
        self.looks = set(looks)         # cues' looks seen (for the tests)


class Card:
    def __init__(self, board, screen):
        self.board = board              # the board file, as a dict
        self.leds = board["leds"]["count"] if board["leds"] else 0
        self.layout = board["leds"]["layout"] if board["leds"] else "single"
        self.buzzer = board["buzzer"] is not None
        self.screen = screen
        self.columns = board["display"]["width"] // 8 if screen else 0
        self.direct = len(board["buttons"]) >= 2 and screen   # as cran.menu.Menu
        self.states = []                # Rows
        self.answers = []
        self.effects = []
        self.peeks = []
        self.basics = []                # (keys, what)
        self.menu = []                  # (title, entries) of the menu's pages
        self.only_coup = False          # a page entry marked * (Coup only)
        self.examples = []              # (action words, presses)
        self.link = None                # the wearer's page (cran web): a third side
        self.wearer = ""                # ... and whose it is


def read_board(board_id):
    """The board, read and checked (host_tools.boards) -> its parts as the badge keeps
    them (a dict); unknown or broken -> CommandError, EXIT_BAD_INPUT."""
    return boards.read_board(board_id, EXIT_BAD_INPUT).badge_data()


def build(board, screen=None, link=None, wearer=""):
    """The card of a board file (a dict): screen None, the board's display when it
    has one; False, an optional one left off. link: the wearer's page (`cran web`'s
    site, host_tools.web.link), drawn as a QR code on a third side; wearer: their name."""
    if board["display"] is None:
        screen = False
    elif screen is None:
        screen = True
    card = Card(board, screen)
    card.link, card.wearer = link, wearer
    for text, actions, when in SITUATIONS:
        card.states.append(_situation(card, text, actions, when))
    for word, character, actions, text in ANSWERS:
        card.answers.append(_answer(card, word, character, actions, text))
    for name in EFFECTS:
        card.effects.append(_effect(card, name))
    for etat, name in enumerate(STATES):
        card.peeks.append(_peek(card, etat, name))
    _controls(card)
    return card


def _played(actions, character=None, end=_T0):
    """-> (state, tick of the last action) of a fresh character after the actions, a
    second apart, the last at tick `end`."""
    state = new_state(character or Character(), Settings())
    now = ticks_add(end, -1000 * len(actions))
    for text in actions:
        now = ticks_add(now, 1000)
        state, _ = act(state, parse_action(text), now)
    return state, now


def _watch(card, state, start, steps, seen=None, fault=False):
    """The LEDs over `steps` from tick `start`, timers running: -> (frames, looks)."""
    frames, looks = [], set()
    for step in range(steps):
        at = ticks_add(start, step * cues.SLOT_MS)
        state, _ = tick(state, at)
        looks.add(seen or cues.look(state, at))
        if card.leds:
            code = cues.frame_code(state, at, card.leds, card.layout, fault, seen)
            frames.append(cues.frame_of(code, card.leds, card.layout))
    return frames, looks


def _screen(card, state, at, seen=None, fault=False, private=False):
    """The screen's lines, as the app writes them."""
    if not card.screen:
        return []
    if seen == UNKNOWN_LOOK:
        return texts.unknown_lines("fr", card.columns)
    lines = texts.screen_lines(state, at, "fr", private, card.columns)
    return lines + ([not_saved("fr")[:card.columns]] if fault else [])


def _situation(card, text, actions, when):
    seen = fault = None
    if actions in ("inconnu", "non-sauve"):
        seen = UNKNOWN_LOOK if actions == "inconnu" else None
        fault = actions == "non-sauve"
        actions = []
    state, last = _played(actions)
    if when == "alerte":   # half a minute before the countdown ends
        start = ticks_add(last, state.left_ms(COUNTDOWN, last) - 30000)
    else:
        start = ticks_add(last, when)
    start = ticks_add(start, (-start) % _PERIOD_MS)     # where the 8 s rhythms begin
    frames, looks = _watch(card, state, start, STATE_STEPS, seen, bool(fault))
    return Row(text, frames, _screen(card, state, start, seen, bool(fault)), looks)


def _answer(card, word, character, actions, text):
    before, _ = _played(actions[:-1], character)
    state, last = _played(actions, character)
    if state.said != word:
        raise ValueError("%s: the engine says %r, not %r" % (actions, state.said, word))
    frames, looks = _watch(card, state, last, ANSWER_STEPS)
    unchanged, _ = _watch(card, before, last, ANSWER_STEPS)
    notes = []
    if card.buzzer:
        notes.append("son : " + describe(tunes.melody_for([(last, CUE_SAY, word, False)])))
    if card.screen:
        said = [line for line in _screen(card, state, last, private=True)
                if line.startswith("Dis:")]
        notes.append("écran, en privé : %s" % said[0])
    if frames == unchanged:
        frames = []         # the lights go on as they were: nothing of it to draw
        if not notes:
            notes.append("ce badge ne le montre pas")
    return Row(text + ("" if not notes else " (%s)" % ", ".join(notes)), frames,
               looks=looks)


def describe(tune):
    """A melody in a player's words: 'trois bips aigus', 'deux notes montantes'."""
    notes = [f for f, _ in tune if f]
    count = {1: "un", 2: "deux", 3: "trois", 4: "quatre"}.get(len(notes), str(len(notes)))
    if len(set(notes)) == 1:
        return "%s bip%s %s" % (count, "s" if len(notes) > 1 else "",
                                "aigus" if notes[0] >= 1200 else "graves" if notes[0] < 400
                                else "moyens")
    if notes == sorted(notes):
        way = "montantes"
    elif notes == sorted(notes, reverse=True):
        way = "descendantes"
    else:
        way = "graves" if max(notes) < 400 else "aiguës" if min(notes) >= 1200 else "mêlées"
    return "%s notes %s" % (count, way)


def _effect(card, name):
    """An effect's code, over the 4 s it shows in: a single LED gives the second 4 s of
    its 8 s to it, so the effect starts there (desarme lasts only 3 s)."""
    verb = "coup" if name == "desarme" else "effet"
    code_at = ticks_add(_T0, _PERIOD_MS // 2 if card.leds and _single(card) else 0)
    state, last = _played(["%s %s" % (verb, name)], end=code_at)
    frames, looks = _watch(card, state, last, 32)
    if card.leds and not _single(card):
        # The LED that carries the code: the first one the effect changes.
        plain, _ = _watch(card, _played([])[0], last, 32)
        led = min([i for i in range(card.leds) for f, p in zip(frames, plain)
                   if f[i] != p[i]] or [0])
        frames = [[frame[led]] for frame in frames]
    return Row(EFFECT_NAMES.get(name) or label(name), frames,
               _screen(card, state, last)[1:], looks)


def _single(card):
    return card.layout == "single" or (card.layout == "strip" and card.leds < 6)


def _peek(card, etat, name):
    actions = [[], ["coup"], ["coup agonisant"], ["coup coma"], ["coup mort"]][etat]
    state, last = _played(actions)
    if state.etat != etat:
        raise ValueError("%s does not make %s" % (actions, name))
    frames = []
    if card.leds:
        frames = [ledviews.peek_frame(state, ticks_add(last, 1000 + step * cues.SLOT_MS),
                                  card.leds, card.layout) for step in range(32)]
    return Row(STATE_NAMES.get(name, name), frames,
               _screen(card, state, last, private=True)[:1])


# ---- the presses, from the menu's own tree -----------------------------------------

def _entry_label(entry):
    return menuwords.entry_label(menu.Menu(1, False), entry, "fr")


def _paths(page, prefix=()):
    """Every action of the tree with the entries' indices to it: (action, path)."""
    for i, entry in enumerate(page.entries):
        if isinstance(entry, menutree.Page):
            yield from _paths(entry, prefix + (i,))
        elif isinstance(entry, menu.Action):
            yield entry, prefix + (i,)


def presses(card, words):
    """The presses that make the action `words` on this card's board, as the player
    types them: one button S (short), L (long); two buttons a b A B aa bb."""
    wanted = parse_action(words).text()
    paths = [path for action, path in _paths(menutree.build_tree()) if action.text() == wanted]
    if not paths:
        raise ValueError("%r is not in the menu" % words)
    path = paths[0]
    if card.direct:
        group = {1: "A", 2: "B", 3: "bb"}[path[0]]
        return " ".join([group] + [menutree.SLOT_NAMES[i] for i in path[1:]])
    keys = ["L"]            # opens the menu
    for i in path:
        keys += ["S"] * i + ["L"]
    return " ".join(keys)


def _controls(card):
    top = menutree.build_tree()
    if card.direct:
        card.basics = [("a", "un coup normal (touché !)"),
                       ("aa", "annuler la dernière action (dans les 5 s)"),
                       ("b", "voir en privé : votre état exact"),
                       ("A / B / bb", "les menus Coup / Effet / Autre")]
        card.menu = []
    else:
        card.basics = [("S", "appui court : un coup normal (touché !)"),
                       ("double", "annuler la dernière action (dans les 5 s)"),
                       ("L", "appui long : le menu. Court : entrée suivante ; long : "
                             "choisir ; double : retour")]
        card.menu = [(menuwords.title(top, "fr"),
                      ["%d %s" % (i + 1, _entry_label(e)) for i, e in enumerate(top.entries)])]
    # Every page under Coup, Effet and Autre, once by its title: Coup's and Effet's
    # pages are nearly the same (an entry of Coup's alone is marked *).
    seen = {}
    pending = list(top.entries[1:])
    while pending:
        page = pending.pop(0)
        seen.setdefault(menuwords.title(page, "fr"), []).append(page)
        pending += [e for e in page.entries if isinstance(e, menutree.Page)]
    lines = {}          # entries -> titles: pages alike (Coup, Effet) share a line
    for title, pages in seen.items():
        labels = [[_entry_label(e) for e in p.entries] for p in pages]
        entries = []
        for i, entry_label in enumerate(labels[0]):
            mark = "*" if [other for other in labels[1:] if entry_label not in other] else ""
            card.only_coup = card.only_coup or bool(mark)
            key = menutree.SLOT_NAMES[i] if card.direct else str(i + 1)
            entries.append("%s %s%s" % (key, entry_label, mark))
        lines.setdefault(tuple(entries), []).append(title)
    card.menu += [(" / ".join(titles), list(entries)) for entries, titles in lines.items()]
    card.examples = [(words, presses(card, words)) for words in EXAMPLES]
    card.examples.insert(0, ("voir en privé", "b" if card.direct else "L L"))


# ---- the picture: two A6 sides, in tenths of a millimetre ---------------------------

SIDE_W, SIDE_H = 1050, 1480     # 105 x 148 mm
MARGIN = 55
CELL_W = 7
TEXT = 25
SMALL = 21
INK = "#111"
GREY = "#666"


class _Page:
    """One side being drawn: its texts and shapes, and where the next line goes."""

    def __init__(self, x0):
        self.x0 = x0
        self.y = MARGIN
        self.out = []

    def text(self, x, y, text, size=TEXT, bold=False, fill=INK, anchor="start"):
        self.out.append('<text x="%.1f" y="%.1f" font-size="%d"%s fill="%s" '
                        'text-anchor="%s">%s</text>' % (
                            self.x0 + x, y, size, ' font-weight="bold"' if bold else "",
                            fill, anchor, escape(text)))

    def rect(self, x, y, w, h, fill, extra=""):
        self.out.append('<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"%s/>'
                        % (self.x0 + x, y, w, h, fill, extra))

    def heading(self, text, size=34):
        self.y += size + 12
        self.text(MARGIN, self.y, fit(text, size, SIDE_W - 2 * MARGIN, True), size, True)
        self.y += 14

    def note(self, text, size=SMALL, fill=GREY, x=MARGIN):
        for line in wrap(text, size, SIDE_W - MARGIN - x):
            self.y += size + 6
            self.text(x, self.y, line, size, fill=fill)


def wrap(text, size, room, bold=False):
    """text in lines of at most `room` wide, cut between words."""
    lines = [""]
    for word in text.split(" "):
        joined = (lines[-1] + " " + word).strip()
        if text_width(joined, size, bold) <= room or not lines[-1]:
            lines[-1] = joined
        else:
            lines.append(word)
    return [fit(line, size, room, bold) for line in lines]


def _paper(rgb):
    # On paper, each colour at full strength: a badge dims its LEDs, the hue is what
    # carries (cuechart does the same).
    top = max(rgb)
    return "#%02x%02x%02x" % tuple(c * 255 // top for c in rgb)


def _cell(page, rgb, x, y, w, h):
    """One LED at one instant: its colour, light grey when off; a white (or grey) one
    lit, which would vanish on white paper, outlined."""
    if not any(rgb):
        page.rect(x, y, w, h, "#e6e6e6")
    elif min(rgb) * 10 >= max(rgb) * 8:
        page.rect(x, y, w, h, "#fff", ' stroke="#444" stroke-width="1.5"')
    else:
        page.rect(x, y, w, h, _paper(rgb))


def _led_rows(card):
    """Which LEDs a pattern draws, a row each: the one LED; a strip's every LED; a
    matrix's rows, by their first LED (a row lights as one)."""
    if card.layout == "matrix-5x5":
        return [0, 5, 10, 15, 20]
    return list(range(card.leds))


def _draw_frames(page, card, frames, x, y, cell_w=CELL_W):
    """The LEDs over time: a column a step (128 ms), a row a LED (frames of one LED:
    that one). -> its height."""
    rows = _led_rows(card) if frames and len(frames[0]) > 1 else [0]
    cell_h = 26 if len(rows) == 1 else max(4, 34 // len(rows))
    for step, frame in enumerate(frames):
        for r, led in enumerate(rows):
            _cell(page, frame[led], x + step * cell_w, y + r * cell_h, cell_w - 1,
                  cell_h - 1)
    return len(rows) * cell_h


def _draw_screen(page, lines, x, y, width):
    """The badge's screen: its lines, light on dark. -> its height."""
    height = 12 + len(lines) * (SMALL + 4)
    page.rect(x, y, width, height, "#1d2330", ' rx="6"')
    for i, line in enumerate(lines):
        page.text(x + 10, y + 6 + (i + 1) * (SMALL + 4) - 5, fit(line, SMALL, width - 20),
                  SMALL, fill="#e8f0ff")
    return height


def _table(page, card, rows, steps, text_x, cell_w=CELL_W):
    """Rows of (what the badge shows | what it means)."""
    for row in rows:
        top = page.y + 8
        shown = 0
        if card.leds:
            shown = _draw_frames(page, card, row.frames[:steps], MARGIN, top, cell_w)
        elif row.screen and steps:
            shown = _draw_screen(page, row.screen, MARGIN, top, text_x - MARGIN - 25)
        lines = wrap(row.text, TEXT, SIDE_W - MARGIN - text_x)
        for i, line in enumerate(lines):
            page.text(text_x, top + 20 + i * (TEXT + 5), line)
        page.y = top + max(shown, len(lines) * (TEXT + 5) - 5) + 6


def _front(card, x0):
    page = _Page(x0)
    page.y += 40
    page.text(MARGIN, page.y, "Mon badge", 46, True)
    page.text(SIDE_W - MARGIN, page.y, fit(card.board["name"], SMALL, 520), SMALL,
              fill=GREY, anchor="end")
    page.y += 12
    if card.leds:
        what = {"single": "la LED", "strip": "les %d LED" % card.leds,
                "matrix-5x5": "les 5 rangées de LED"}[card.layout]
        page.note("Chaque ligne : %s pendant 8 s, un carré = 1/8 s. Le rythme compte "
                  "plus que la couleur." % what)
    else:
        page.note("L'écran le dit en mots ; un appui sur b montre, à vous seul, votre "
                  "état exact.")
    text_x = MARGIN + (STATE_STEPS * CELL_W + 25 if card.leds else 330)
    page.heading("Mon état, pour tous")
    if card.leds and card.screen:
        words = []
        for row in card.states:
            words += [line for line in row.screen[:1] if line not in words]
        page.note("L'écran le dit aussi : %s." % ", ".join(words))
    _table(page, card, card.states, STATE_STEPS, text_x)
    page.heading("Un effet en cours")
    if card.leds:
        where = ("après l'état, la LED donne 4 s le code de l'effet (long = 5, court = 1)"
                 if _single(card) else "le code de l'effet sur ses propres LED (long = 5, "
                 "court = 1)")
        page.note(where[:1].upper() + where[1:] + " ; faites-le, puis il s'arrête seul.")
    else:
        page.note("L'écran écrit l'effet sous votre état ; faites-le, il s'arrête seul.")
    _effect_grid(page, card)
    page.heading("Voir en privé (cachez le badge)")
    if card.leds:
        page.note("%s que de crans : 5 pleine forme … 1 mort. Seul moyen de savoir si "
                  "vous êtes dans le coma ou mort." % (
                      "Autant de LED allumées" if not _single(card)
                      else "La LED clignote autant de fois"))
        _peek_grid(page, card)
    else:
        page.note("L'écran donne l'état exact, le temps qui reste (Coma 0:59 !) et quoi "
                  "dire : le seul moyen de savoir si vous êtes dans le coma ou mort.")
    return page


def _effect_grid(page, card):
    """The effects in two columns: code and name."""
    col_w = (SIDE_W - 2 * MARGIN) // 2
    cell_w = 6
    half = (len(card.effects) + 1) // 2
    top = page.y + 6
    for i, row in enumerate(card.effects):
        x = MARGIN + (i // half) * col_w
        y = top + (i % half) * 40
        name_x = x
        if card.leds:
            _draw_frames(page, card, row.frames[:32], x, y + 4, cell_w)
            name_x = x + 32 * cell_w + 14
        page.text(name_x, y + 26, fit(row.text, TEXT, col_w - (name_x - x) - 10))
    page.y = top + half * 40


def _back(card, x0):
    page = _Page(x0)
    page.y += 40
    page.text(MARGIN, page.y, "Touché ? Appuyez.", 46, True)
    page.y += 10
    key_w = 40 + max(text_width(keys, TEXT, True) for keys, _ in card.basics)
    for keys, what in card.basics:
        lines = wrap(what, TEXT, SIDE_W - 2 * MARGIN - key_w)
        page.y += TEXT + 10
        page.rect(MARGIN, page.y - TEXT, key_w - 20, TEXT + 8, "#eceff4", ' rx="6"')
        page.text(MARGIN + (key_w - 20) / 2, page.y - 2, keys, TEXT, True, anchor="middle")
        for i, line in enumerate(lines):
            page.text(MARGIN + key_w, page.y + i * (TEXT + 5) - 2, line)
        page.y += (len(lines) - 1) * (TEXT + 5)
    page.heading("Ce que je dois dire")
    drawn = [row for row in card.answers if row.frames]
    _table(page, card, card.answers, ANSWER_STEPS, MARGIN + (
        ANSWER_STEPS * CELL_W + 25 if drawn else 0))
    page.heading("Le menu")
    if not card.direct:
        colours = " · ".join("%s %s" % (name, _entry_label(e)) for name, e in zip(
            ("blanc", "rouge", "violet", "vert"), menutree.build_tree().entries))
        page.note("Sur la LED : la couleur dit le groupe (%s) ; des éclairs longs, la "
                  "page ; des courts, le numéro de l'entrée. Il se ferme seul après 8 s."
                  % colours)
    else:
        page.note("L'écran montre la page et la touche de chaque entrée ; bb : retour.")
    for title, entries in card.menu:
        page.y += 4
        lines = wrap(" · ".join(entries), SMALL + 1, SIDE_W - 2 * MARGIN - 190)
        page.y += SMALL + 8
        page.text(MARGIN, page.y, fit(title, SMALL + 1, 180, True), SMALL + 1, True)
        for i, line in enumerate(lines):
            page.text(MARGIN + 190, page.y + i * (SMALL + 7), line, SMALL + 1)
        page.y += (len(lines) - 1) * (SMALL + 7)
    if card.only_coup:
        page.note("* sous Coup seulement.")
    # The game's own (cran.menu's Orga code, cran.radio.link's offers): true of every board.
    page.note("Orga : derrière le code des orgas. Jeu avec radio : un soin offert se "
              "montre %s ; %s pour l'accepter." % (
                  "à l'écran" if card.direct else "en éclairs verts",
                  "A" if card.direct else "appui long"))
    page.heading("Par exemple")
    for words, keys in card.examples:
        page.y += TEXT + 8
        page.text(MARGIN, page.y, fit(words, TEXT, 330))
        page.text(MARGIN + 340, page.y, fit(keys, TEXT, SIDE_W - 2 * MARGIN - 340), TEXT,
                  True)
    page.y = max(page.y, SIDE_H - MARGIN - 40)
    page.note("Un doute, une panne : voyez un orga. Le badge garde tout en mémoire.")
    return page


def _peek_grid(page, card):
    col_w = (SIDE_W - 2 * MARGIN) // 2
    half = 3
    top = page.y + 6
    for i, row in enumerate(card.peeks):
        x = MARGIN + (i // half) * col_w
        y = top + (i % half) * 42
        if _single(card):
            _draw_frames(page, card, row.frames[:32], x, y + 4, 6)
        else:   # steady: the LEDs at one instant, side by side
            _draw_snapshot(page, card, row.frames[0], x, y + 4)
        page.text(x + 32 * 6 + 14, y + 26, row.text)
    page.y = top + half * 42


def _draw_snapshot(page, card, frame, x, y):
    """The LEDs at one instant as they sit: a strip in a line, a matrix in its grid."""
    per_line = 5 if card.layout == "matrix-5x5" else len(frame)
    size = min(24, 190 // per_line)
    lines = (len(frame) + per_line - 1) // per_line
    size = min(size, 30 // lines) if lines > 1 else size
    for i, rgb in enumerate(frame):
        _cell(page, rgb, x + (i % per_line) * (size + 1), y + (i // per_line) * (size + 1),
              size, size)


def _web(card, x0):
    """The third side: the wearer's own badge in a browser (`cran web`), as a QR code of
    its address, the character in it; and the address written out."""
    import segno
    page = _Page(x0)
    page.y += 40
    page.text(MARGIN, page.y, "Mon badge en ligne", 46, True)
    page.y += 12
    page.note("Scannez : votre badge%s, dans votre navigateur, avec des leçons pour "
              "apprendre avant le jeu. Rien n'est installé, rien n'est envoyé." % (
                  " et votre personnage (%s)" % card.wearer if card.wearer else ""),
              TEXT, INK)
    matrix = segno.make(card.link, error="m").matrix
    size = len(matrix)
    cell = (SIDE_W - 2 * MARGIN - 160) // (size + 8)   # four modules of quiet zone
    left = (SIDE_W - cell * size) / 2
    top = page.y + 40 + 4 * cell
    for r, row in enumerate(matrix):
        c = 0
        while c < size:   # a run of dark modules, one rectangle
            if row[c] & 1:
                end = c
                while end < size and row[end] & 1:
                    end += 1
                page.rect(left + c * cell, top + r * cell, (end - c) * cell, cell, INK)
                c = end
            else:
                c += 1
    page.y = top + size * cell + 4 * cell
    line = ""
    for part in re.split(r"(?=[#&])", card.link):   # cut where the address has a seam
        if line and text_width(line + part, SMALL) > SIDE_W - 2 * MARGIN:
            page.y += SMALL + 6
            page.text(MARGIN, page.y, fit(line, SMALL, SIDE_W - 2 * MARGIN), SMALL, fill=GREY)
            line = ""
        line += part
    page.y += SMALL + 6
    page.text(MARGIN, page.y, fit(line, SMALL, SIDE_W - 2 * MARGIN), SMALL, fill=GREY)
    return page


def sides_of(card):
    """The card's sides: front, back, and the wearer's page when it has one."""
    return ("front", "back") + (("web",) if card.link else ())


def svg(card, sides=None):
    """The card drawn: the sides asked (all, by default), side by side, a dashed fold
    between."""
    sides = sides or sides_of(card)
    width = SIDE_W * len(sides)
    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 '
           '%d %d" font-family="%s">' % (width, SIDE_H, width, SIDE_H, picture.FONT),
           '<rect width="100%" height="100%" fill="#fff"/>']
    draw = {"front": _front, "back": _back, "web": _web}
    for i, side in enumerate(sides):
        page = draw[side](card, i * SIDE_W)
        if page.y > SIDE_H - MARGIN + 10:
            raise ValueError("the card's %s runs into its bottom margin (%d)" % (side, page.y))
        out += page.out
        if i:
            out.append('<line x1="%d" y1="0" x2="%d" y2="%d" stroke="#999" '
                       'stroke-dasharray="12 10"/>' % (i * SIDE_W, i * SIDE_W, SIDE_H))
    return "\n".join(out + ["</svg>"]) + "\n"


# ---- the card on paper ---------------------------------------------------------------

DPI = 300
_ZOOM = DPI / 254.0     # tenths of a millimetre to dots


def write(card, out):
    """The card to out: a .png of its sides side by side, or a .pdf of an A6 page a side."""
    if out.lower().endswith(".png"):
        picture.write(out, picture.png(svg(card), _ZOOM))
    else:
        pages = [picture.png(svg(card, (side,)), _ZOOM) for side in sides_of(card)]
        picture.write(out, picture.pdf(pages, (SIDE_W / 10.0, SIDE_H / 10.0)))
