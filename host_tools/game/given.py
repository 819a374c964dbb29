# The badge names this computer has given out, game by game. A new badge from the box
# gets the next row of the roster nobody has (cran flash --roster); what was given is
# kept in the cran folder (LEDGER) under the game's key id and the row's character,
# never under the roster's file: a roster copied, renamed or exported again from a
# spreadsheet is the same game's, and gives no name, nor character, a second badge.
import json
import os

from host_tools.home import cran_home, write_private

# {"games": {key id: {badge name, lower case: {"badge", "id": chip id, "name":
# character}}}}; a cran before this one kept {roster path: {badge name: chip id}}, still
# read as that roster's names.
LEDGER = "badges.json"


def _path():
    return os.path.join(cran_home(), LEDGER)


def read_ledger():
    try:
        with open(_path(), encoding="utf-8") as f:
            ledger = json.load(f)
        return ledger if isinstance(ledger, dict) else {}
    except (OSError, ValueError):
        return {}


def given_out(game, roster_path=None):
    """{badge name, lower case: {"badge", "id", "name"}} this computer gave out in the
    game whose key id is game (and, from an older ledger, for the roster at
    roster_path)."""
    ledger = read_ledger()
    out = {}
    old = ledger.get(os.path.realpath(roster_path)) if roster_path else None
    if isinstance(old, dict):
        out.update((badge.lower(), {"badge": badge, "id": chip, "name": None})
                   for badge, chip in old.items() if isinstance(badge, str))
    games = ledger.get("games")
    mine = games.get(game) if isinstance(games, dict) else None
    if isinstance(mine, dict):
        out.update((badge, entry) for badge, entry in mine.items()
                   if isinstance(entry, dict))
    return out


class NamedRows:
    """A roster's rows with a badge name, and which of them are taken: by a badge met
    in this flash, or given out by this computer before in the same game (rows are
    given out as badges come, a few at a time). game: the game's key id, set once the
    key the badges get is known (cran flash)."""

    def __init__(self, path, named_rows, by_badge, seen):
        self.path = path
        self.named_rows = named_rows   # (row number, badge name, character) in roster order
        self.by_badge = by_badge
        self.seen = seen
        self.game = None

    def free_rows(self):
        """The rows a new badge may get, in roster order: neither their badge name nor
        their character given out in this game, nor met in this flash."""
        given = given_out(self.game, self.path)
        characters = {e.get("name") for e in given.values() if e.get("name")}
        return [row for row in self.named_rows
                if row[1].lower() not in given and row[1].lower() not in self.seen
                and not (row[2] and row[2] in characters)]

    def job(self, badge):
        return self.by_badge[badge.lower()][1:]

    def renamed(self, badge):
        """What to say of a badge named badge in no row, when this game gave that name
        to a character a row of this roster has under another name (a roster exported
        again with new names): the name written on the badge stays its own. -> the
        words, or None."""
        was = given_out(self.game, self.path).get(badge.lower())
        if not was or not was.get("name"):
            return None
        for _, other, character in self.named_rows:
            if character == was["name"]:
                return ("this game gave it to %s, whose row here names badge %s: put %s "
                        "back in that row's badge column (the name written on the badge), "
                        "or rename the badge: --as %s with its port alone (then write «%s» "
                        "on it)" % (character, other, badge, other, other))
        return None

    def remember(self, statuses):
        """statuses: the `status` of each badge flashed from this roster (its "badge"
        name, chip "id" and "personnage"), kept as given out in this game."""
        names = {s["badge"].lower(): {"badge": s["badge"], "id": s.get("id"),
                                      "name": s.get("personnage") or None}
                 for s in statuses if isinstance(s.get("badge"), str) and s["badge"]}
        if not names or self.game is None:
            return
        ledger = read_ledger()
        games = ledger.get("games")
        if not isinstance(games, dict):
            games = ledger["games"] = {}
        games.setdefault(self.game, {}).update(names)
        write_private(_path(), json.dumps(ledger, indent=1, sort_keys=True))
