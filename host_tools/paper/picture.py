# Pictures for people: an SVG drawn to PNG by resvg (a Rust wheel from PyPI, no system
# library), always with the font the fontpkg-noto-sans package ships and never the
# machine's own, so a machine without fonts still gets its text and every machine the
# same picture; a PNG put on a printable page as a PDF (Pillow). Text is laid out by an
# estimate of its width (text_width), kept from under-measuring by tests/test_picture.py.
import io

from host_tools import CommandError

EXIT_NO_TOOL = 3
FONT_FAMILY = "Noto Sans"
# What an SVG names: the font PNGs are drawn with, then what a browser may have.
FONT = "Noto Sans, DejaVu Sans, sans-serif"
HOW_TO_GET_PNG = ("PNG needs the resvg-py and fontpkg-noto-sans packages (Python 3.10+): "
                  "`make install`, or pip install resvg-py fontpkg-noto-sans")

# Widths in em, by class of character: each the widest of its class in Noto Sans and
# DejaVu Sans (a browser's usual fallback), so laid-out text never runs into the next.
_NARROW = frozenset(" 'ijlJ,.’·I:;f-/\\t()[]!")     # up to 0.40 em
_MEDIUM = frozenset("r\"_`–szc?*|çL")               # up to 0.56 em
_WIDE = frozenset("UHNDG&OQw#+<=>^~×M%mW@—…œæŒÆÔÖÙÛÜ")  # up to 1 em
_BOLD = 1.2       # bold against regular, the worst string of them


def _em(ch):
    if ch in _NARROW:
        return 0.40
    if ch in _MEDIUM:
        return 0.56
    if ch in _WIDE:
        return 1.0
    return 0.70


def text_width(text, size, bold=False):
    """An upper bound of `text`'s width in px at font-size `size`."""
    em = 0.0
    for ch in text:
        em += _em(ch)
    return em * size * (_BOLD if bold else 1.0)


def fit(text, size, room, bold=False):
    """text, or as much of its start as fits in `room` px with "…" after; "" if not
    even "…" does. One pass over the start that fits: a cut measured again from the
    start at each character took minutes for a 100 KB label (cran logs)."""
    if text_width(text, size, bold) <= room:
        return text
    bolder = _BOLD if bold else 1.0
    ellipsis = _em("…")
    if ellipsis * size * bolder > room:
        return ""
    em = 0.0
    n = 0
    for ch in text:   # the longest start whose width with "…" after it fits
        em += _em(ch)
        if (em + ellipsis) * size * bolder > room:   # as text_width sums it
            break
        n += 1
    return text[:n].rstrip() + "…"


def font_file():
    """The path of the font every picture is drawn with."""
    try:
        import fontpkg_noto_sans
    except ImportError:
        raise CommandError(HOW_TO_GET_PNG, EXIT_NO_TOOL) from None
    return str(fontpkg_noto_sans.ROOT / "files" / "NotoSans[wdth,wght].ttf")


def png(svg_text, zoom=1.0):
    """The SVG drawn: PNG bytes, `zoom` times its size in px."""
    try:
        import resvg_py
    except ImportError:
        raise CommandError(HOW_TO_GET_PNG, EXIT_NO_TOOL) from None
    # Every generic family is the shipped font too: resvg draws no text in a family it
    # lacks, and the machine's own fonts are not asked for.
    return bytes(resvg_py.svg_to_bytes(
        svg_string=svg_text, zoom=zoom, skip_system_fonts=True, font_files=[font_file()],
        font_family=FONT_FAMILY, serif_family=FONT_FAMILY, sans_serif_family=FONT_FAMILY,
        monospace_family=FONT_FAMILY, cursive_family=FONT_FAMILY,
        fantasy_family=FONT_FAMILY))


def pdf(pngs, page_mm):
    """A PDF of a page of page_mm (width, height) a picture, each filling its page:
    PDF bytes. pngs: PNG bytes, each of the page's proportions."""
    from PIL import Image
    images = [Image.open(io.BytesIO(data)).convert("RGB") for data in pngs]
    # A page's size is its picture's at its dots per inch: make them fill the page.
    dpi = images[0].width / (page_mm[0] / 25.4)
    out = io.BytesIO()
    images[0].save(out, "PDF", resolution=dpi, save_all=True, append_images=images[1:])
    return out.getvalue()


def write(path, data):
    """bytes or text to path; a failure is the user's error (exit 2), named."""
    mode = "wb" if isinstance(data, bytes) else "w"
    try:
        with open(path, mode, **({} if mode == "wb" else {"encoding": "utf-8"})) as f:
            f.write(data)
    except OSError as e:
        raise CommandError("%s: cannot write: %s" % (path, e), 2) from None


def draw(svg_text, path):
    """Write the picture its path names: SVG as is, PNG drawn from it (png). -> the
    file written. Without what draws a PNG, the SVG is written beside and said (exit 3)."""
    if path.lower().endswith(".svg"):
        write(path, svg_text)
        return path
    try:
        data = png(svg_text)
    except CommandError as e:
        svg_path = path[:-4] + ".svg"
        write(svg_path, svg_text)
        raise CommandError("%s: %s; drew %s instead" % (path, e, svg_path),
                           EXIT_NO_TOOL) from None
    write(path, data)
    return path
