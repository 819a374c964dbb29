# host_tools/paper/picture.py: text laid out by an estimate of its width, which must never be
# narrower than the font draws it; SVG to PNG with the font shipped, not the machine's.
import io
import string

import pytest
from fontTools import subset
from fontTools.ttLib import TTFont
from fontTools.varLib import instancer
from PIL import Image

from host_tools.paper import picture

# Every character the pictures write: ASCII, French letters and punctuation.
CHARACTERS = (string.ascii_letters + string.digits + string.punctuation + " "
              + "àâäçéèêëîïôöùûüÿœæÀÂÇÉÈÊËÎÏÔÖÙÛÜŒÆ«»’‘“”–—…·×°")


@pytest.fixture(scope="module")
def fonts():
    """Advance widths in em of the pictures' font, regular and bold (an instance of
    the variable font at weight 700, as resvg draws font-weight="bold")."""
    regular = TTFont(picture.font_file())
    cut = subset.Subsetter(subset.Options(notdef_outline=True, layout_features=[]))
    cut.populate(text=CHARACTERS)
    cut.subset(regular)     # those letters alone: making the bold instance then is quick
    out = {}
    for bold, font in ((False, regular), (True, instancer.instantiateVariableFont(
            regular, {"wght": 700, "wdth": 100}))):
        cmap, hmtx = font.getBestCmap(), font["hmtx"]
        upm = font["head"].unitsPerEm
        out[bold] = dict((c, hmtx[cmap[ord(c)]][0] / upm) for c in CHARACTERS
                         if ord(c) in cmap)
    return out


def test_the_font_has_every_character_the_pictures_write(fonts):
    assert "".join(c for c in CHARACTERS if c not in fonts[False]) == ""


@pytest.mark.parametrize("bold", [False, True])
def test_the_width_estimate_is_never_narrower_than_the_font(fonts, bold):
    # Widths add up (kerning only takes away): no character under-measured, no text is.
    narrow = ["%r: %.3f em estimated, %.3f drawn" % (c, picture.text_width(c, 1, bold), w)
              for c, w in sorted(fonts[bold].items())
              if picture.text_width(c, 1, bold) < w]
    assert narrow == []
    # ...nor wildly wide: a label of lower-case words is laid out in at most 1.4 times
    # the room it takes.
    text = "coup desarme epee effet douleur pleine-forme blesse agonisant"
    drawn = sum(fonts[bold][c] for c in text)
    assert picture.text_width(text, 1, bold) < 1.4 * drawn


def test_fit_cuts_what_has_no_room():
    assert picture.fit("coup", 11, 100) == "coup"
    cut = picture.fit("coup desarme epee-a-deux-mains-longue", 11, 100)
    assert cut.endswith("…") and "coup desarme epee".startswith(cut[:-1])
    assert picture.text_width(cut, 11) <= 100 < picture.text_width(cut[:-1] + "xx…", 11)
    assert picture.fit("coup", 11, 5) == ""


def label_svg(family):
    return ('<svg xmlns="http://www.w3.org/2000/svg" width="200" height="40">'
            '<rect width="100%%" height="100%%" fill="#fff"/>'
            '<text x="10" y="28" font-size="20" font-family="%s">«Armure»</text></svg>'
            % family)


def test_png_draws_text_with_the_shipped_font_only():
    image = Image.open(io.BytesIO(picture.png(label_svg(picture.FONT)))).convert("L")
    assert image.size == (200, 40)
    dark = [x for x in range(200) for y in range(40) if image.getpixel((x, y)) < 128]
    # Drawn, and within the width laid out for it.
    assert len(dark) > 100
    assert 10 <= min(dark) and max(dark) <= 10 + picture.text_width("«Armure»", 20)
    # Whatever generic family an SVG asks for, the shipped font draws it.
    for family in ("sans-serif", "serif", "monospace"):
        assert picture.png(label_svg(family)) == picture.png(label_svg(picture.FONT))
    assert Image.open(io.BytesIO(picture.png(label_svg("x"), zoom=2))).size == (400, 80)


def test_pdf_pages_are_the_size_asked():
    image = Image.new("RGB", (1240, 1748), "white")
    out = io.BytesIO()
    image.save(out, "PNG")
    data = picture.pdf([out.getvalue()] * 2, (105, 148))
    assert data[:5] == b"%PDF-"
    boxes = [box.split(b"]")[0].split() for box in data.split(b"/MediaBox [")[1:]]
    assert len(boxes) == 2      # a page a picture
    for box in boxes:
        width_mm, height_mm = (float(v) / 72 * 25.4 for v in box[2:])
        assert abs(width_mm - 105) < 0.1 and abs(height_mm - 148) < 0.2
