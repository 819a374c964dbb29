# The page's address for one wearer (`cran card --url` prints it as a QR code): the
# site's address, and in its fragment (after the #, which a browser never sends to any
# server) the board and the character's fields, named as a scenario's character line
# names them (docs/scenarios.md); the page reads them back into the same line.
from urllib.parse import urlencode

# A config's character fields (cran.core.choices.CHARACTER_FIELDS) -> the line's names.
_NAMES = (("name", "name"), ("armor", "armor"), ("helmet", "helmet"), ("creature", "creature"),
          ("resist", "resist"), ("agonisant_ms", "agonisant"), ("coma_ms", "coma"))


def _value(field, value):
    if field == "helmet":
        return "oui" if value in (True, "oui", "yes", "o", "1", 1, "true") else "non"
    if field == "resist":
        return ",".join(value) if isinstance(value, (list, tuple)) else str(value)
    if field.endswith("_ms") and isinstance(value, int):
        return "%ds" % (value // 1000) if value % 1000 == 0 else "%dms" % value
    return str(value)


def fragment(board, character):
    """The fragment of a wearer's page: its board, and the character's fields (a config's
    character object, as `cran config` writes it) that are not the defaults (a shorter
    address, a smaller QR code)."""
    fields = [("board", board)]
    for field, name in _NAMES:
        value = (character or {}).get(field)
        if value not in (None, "", [], (), 0, False, "none", "non", "no"):
            fields.append((name, _value(field, value)))
    return urlencode(fields, safe=",")


def page_url(base, board, character):
    """The site's address (where the organisers published `cran web`'s folder) for one
    wearer: base, its own fragment replaced by theirs."""
    return base.split("#", 1)[0] + "#" + fragment(board, character)
