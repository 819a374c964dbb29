# `cran card` (host_tools/paper/card.py): a player's card for each board, drawn from the
# firmware's own cues, tunes, texts and menu, so a change there shows on the card.
import xml.etree.ElementTree as ET

import pytest
from PIL import Image

from conftest import overlapping, svg_size, text_boxes
from cran import cues, menu, menutree, tunes
from cran.core.vocab import CUE_SAY, EFFECTS
from cran.core.words import parse_action
from host_tools import cli
from host_tools.boards import board_ids
from host_tools.paper import card

BOARDS = board_ids()


def side_boxes(svg_text):
    """The text boxes of each side (the PNG has them side by side)."""
    sides = [[], []]
    for box in text_boxes(svg_text):
        sides[int(box.left // card.SIDE_W)].append(box)
    return sides


@pytest.mark.parametrize("board", BOARDS)
def test_every_board_has_a_card_whose_texts_stay_clear_and_on_their_side(board):
    c = card.build(card.read_board(board))
    svg_text = card.svg(c)
    assert svg_size(svg_text) == (2 * card.SIDE_W, card.SIDE_H)
    for i, boxes in enumerate(side_boxes(svg_text)):
        assert boxes and overlapping(boxes) == []
        inside = (i * card.SIDE_W + card.MARGIN - 1, (i + 1) * card.SIDE_W - card.MARGIN + 1)
        assert [b for b in boxes if not (inside[0] <= b.left and b.right <= inside[1])] == []
        assert [b for b in boxes if b.top < 0 or b.bottom > card.SIDE_H - card.MARGIN] == []
    texts = " ".join(b.text for b in text_boxes(svg_text))
    assert "Mon badge" in texts and "Touché ? Appuyez." in texts


def test_the_card_is_drawn_with_its_text_on_a_printable_a6(tmp_path):
    png = tmp_path / "card.png"
    assert cli.main(["card", "--board", "atom-lite", "--out", str(png)]) == 0
    image = Image.open(str(png)).convert("L")
    # Two A6 sides at 300 dpi, side by side.
    assert image.size == (2480, 1748)
    # The title is drawn: dark pixels where "Mon badge" is laid out.
    title = [b for b in text_boxes(card.svg(card.build(card.read_board("atom-lite"))))
             if b.text == "Mon badge"][0]
    zoom = card._ZOOM
    dark = [x for x in range(int(title.left * zoom), int(title.right * zoom))
            for y in range(int(title.top * zoom), int(title.bottom * zoom))
            if image.getpixel((x, y)) < 100]
    assert len(dark) > 2000
    pdf = tmp_path / "card.pdf"
    assert cli.main(["card", "--board", "m5stickc-plus", "--out", str(pdf)]) == 0
    data = pdf.read_bytes()
    boxes = [box.split(b"]")[0].split() for box in data.split(b"/MediaBox [")[1:]]
    assert len(boxes) == 2          # recto, verso
    for box in boxes:
        assert [round(float(v) / 72 * 25.4) for v in box[2:]] == [105, 148]


def test_a_colour_changed_in_cues_is_changed_on_the_card(monkeypatch):
    before = card.svg(card.build(card.read_board("atom-lite")))
    colour, mask, bar = cues._LOOKS["blesse"]
    monkeypatch.setitem(cues._LOOKS, "blesse", ((0, 50, 100), mask, bar))
    effects = list(cues._EFFECT_RGB)
    effects[EFFECTS.index("peur")] = (0, 120, 0)
    monkeypatch.setattr(cues, "_EFFECT_RGB", tuple(effects))
    c = card.build(card.read_board("atom-lite"))
    wounded = [row for row in c.states if row.text.startswith("Blessé")][0]
    assert (0, 50, 100) in [frame[0] for frame in wounded.frames]
    after = card.svg(c)
    drawn = 'fill="%s"' % card._paper((0, 50, 100))   # at full strength on paper
    assert drawn == 'fill="#007fff"' and drawn in after and drawn not in before
    fear = [row for row in c.effects if row.text == "Peur"][0]
    assert [frame[0] for frame in fear.frames if any(frame[0])][0] == (0, 120, 0)


def test_a_rhythm_changed_in_cues_is_changed_on_the_card(monkeypatch):
    colour, mask, bar = cues._LOOKS["au-sol"]
    monkeypatch.setitem(cues._LOOKS, "au-sol", (colour, "1" * 32, bar))   # steady now
    c = card.build(card.read_board("atom-lite"))
    down = [row for row in c.states if row.text.startswith("Agonisant : au sol")][0]
    assert all(any(frame[0]) for frame in down.frames)


def test_every_look_and_effect_of_cues_is_on_the_card():
    c = card.build(card.read_board("atom-lite"))
    looks = set()
    for row in c.states + c.answers:
        looks |= row.looks
    # "debout" is pleine-forme with the game's idle_look "steady"; the card draws the
    # default, "veille" (one flash every 8 s).
    assert set(cues._LOOKS) - looks == {"debout"}
    assert [row.text for row in c.effects] == [card.EFFECT_NAMES[n] for n in EFFECTS]
    codes = [tuple(frame[0] for frame in row.frames) for row in c.effects]
    assert len(set(codes)) == len(EFFECTS)     # each its own code
    assert [row.text for row in c.peeks] == ["Pleine forme", "Blessé", "Agonisant", "Coma",
                                             "Mort"]


def test_the_peek_is_cues_peek_frame():
    c = card.build(card.read_board("esp32-devkitc"))
    lit = [sum(1 for rgb in row.frames[0] if any(rgb)) for row in c.peeks]
    assert lit == [5, 4, 3, 2, 1]       # 5 - etat LEDs lit, steady


def test_the_sounds_are_the_tunes(monkeypatch):
    c = card.build(card.read_board("m5stickc-plus"))
    armour = c.answers[0].text
    assert "son : trois bips aigus" in armour and "Dis: ARMURE" in armour
    monkeypatch.setitem(tunes._MELODIES, CUE_SAY, "|armure=440:100 880:100|")
    c = card.build(card.read_board("m5stickc-plus"))
    assert "son : deux notes montantes" in c.answers[0].text


_KEYS = {"S": ("a", "short"), "L": ("a", "long"), "double": ("a", "double"),
         "a": ("a", "short"), "b": ("b", "short"), "A": ("a", "long"), "B": ("b", "long"),
         "aa": ("a", "double"), "bb": ("b", "double")}


def play(c, keys):
    """The presses through the firmware's own Menu -> what it did."""
    m = menu.Menu(len(c.board["buttons"]), c.screen)
    results = []
    for i, key in enumerate(keys.split()):
        results += m.press(*_KEYS[key], now=1000 * (i + 1))
    return results


@pytest.mark.parametrize("board, screen", [("atom-lite", None), ("esp32-devkitc", None),
                                           ("esp32-devkitc", False)])
def test_every_action_of_the_menu_is_reached_by_the_presses_the_card_gives(board, screen):
    c = card.build(card.read_board(board), screen)
    actions = [action for action, _ in card._paths(menutree.build_tree())]
    assert len(actions) > 40
    for action in actions:
        keys = card.presses(c, action.text())
        done = play(c, keys)
        assert [r[0] for r in done] == ["action"] and done[0][1].text() == action.text(), keys
    for words, keys in c.examples:
        expected = [("peek",)] if words == "voir en privé" else None
        done = play(c, keys)
        assert done == expected if expected else done[0][1].text() == parse_action(
            words).text()


def test_the_menu_map_is_the_menus_pages():
    c = card.build(card.read_board("atom-lite"))
    titles = [title for title, _ in c.menu]
    assert titles[:2] == ["Menu", "Coup / Effet"] and "Suite" in titles and "Orga" in titles
    etats = dict(c.menu)["Etats"]
    assert etats == ["1 Blesse", "2 Agonisant", "3 Coma", "4 Mort", "5 Mort si coma*"]
    assert c.only_coup


@pytest.mark.parametrize("args, message", [
    (["--board", "nope"], "cran: unknown board 'nope' (known: atom-lite"),
    (["--out", "card.jpg"], "cran: --out card.jpg: the card is a .png or a .pdf file"),
    (["--board", "atom-lite", "--no-screen"], "cran: --no-screen: atom-lite has no screen"),
    (["--board", "m5stickc-plus", "--no-screen"],
     "cran: --no-screen: m5stickc-plus has its screen built in"),
])
def test_cran_card_bad_input_exits_2(tmp_path, capsys, monkeypatch, args, message):
    monkeypatch.chdir(tmp_path)
    assert cli.main(["card"] + args) == 2
    assert capsys.readouterr().err.startswith(message)


def test_cran_card_default_out(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert cli.main(["card"]) == 0
    assert Image.open(str(tmp_path / "card-atom-lite.png")).size == (2480, 1748)
    assert "card-atom-lite.png, the card of M5Stack Atom Lite" in capsys.readouterr().out


def test_lit_white_is_outlined_on_paper():
    page = card._Page(0)
    card._cell(page, (255, 255, 255), 0, 0, 7, 26)
    card._cell(page, (0, 255, 0), 7, 0, 7, 26)
    rects = [ET.fromstring(r) for r in page.out]
    assert rects[0].get("stroke") and rects[1].get("fill") == "#00ff00"
