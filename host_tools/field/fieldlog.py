# The game master's station's journal (`cran field`): what it sent, and what it heard
# of each badge, as that badge's state changed. One JSON object a line, each with "up"
# (ms since this station started) and "t" (wall-clock seconds), as a badge's journal:
#   {"station": "usb /dev/ttyUSB0" or "virtual NAME", "game": key id}   a station starts
#   {"sent": "stop"}                 a command sent ("reset Godefroy", "masse:peur"...)
#   {"badge": ID, "name": NAME, "heard": [[kind, value]...], "etat": ETAT, "rssi": DBM,
#    "batterie": PERCENT or null}    a badge heard in a new state: what changed, as the
#                                    cues of its own journal ("etat", "effet", "fin",
#                                    "jeu", "armure")
#   {"error": TEXT}                  the station's line said something wrong
# `cran logs --file` reads it as a fight (host_tools/debrief/fieldread.py).
import json
import os
import time

from cran.core.vocab import ARMOR_DAMAGED


class FieldJournal:
    """The journal, appended to path (a station started again goes on in it). names:
    {radio id hex: roster name}; clock() -> ms since the station started (its "up")."""

    def __init__(self, path, names, where, game_id, clock):
        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
        self.path = path
        self.file = open(path, "a", encoding="utf-8")
        self.names = names
        self.clock = clock
        self.last = {}   # badge id -> what its last entry said (see _seen)
        self._write({"station": where, "game": game_id})

    def _write(self, entry):
        entry["up"] = self.clock()
        entry["t"] = int(time.time())
        self.file.write(json.dumps(entry, ensure_ascii=False, sort_keys=True) + "\n")
        self.file.flush()   # a station killed keeps what it wrote

    def sent(self, word):
        self._write({"sent": word})

    def error(self, text):
        self._write({"error": text})

    def heard(self, badge, row, now):
        """A heartbeat read (host_tools.field.station's row): an entry when what it says
        changed since the last one of this badge (not the seconds left)."""
        seen = _seen(row)
        before = self.last.get(badge)
        if seen == before:
            return
        self.last[badge] = seen
        name = self.names.get(badge.hex(), badge.hex())
        self._write({"badge": badge.hex(), "name": name, "heard": _changes(before, seen),
                     "etat": row["etat"], "rssi": row["rssi"], "batterie": row["batterie"]})

    def close(self):
        self.file.close()


def _seen(row):
    return (row["etat"], row["jeu"], tuple(sorted(row["effets"])), row[ARMOR_DAMAGED])


def _changes(before, now):
    """What changed between two of _seen's, as a badge journal's cues (the first one
    heard: all it says that is not a fresh badge's)."""
    etat, jeu, effects, damaged = now
    if before is None:
        before = (None, "en-jeu", (), False)
    cues = [["etat", etat]] if etat != before[0] else []
    cues += [["effet", name] for name in effects if name not in before[2]]
    cues += [["fin", name] for name in before[2] if name not in effects]
    if jeu != before[1]:
        cues.append(["jeu", jeu])
    if damaged != before[3]:
        cues.append(["armure", "abimee" if damaged else "reparee"])
    return cues


def default_path():
    """A new journal in the user's cran folder, named by the time it starts."""
    from host_tools.home import cran_home
    return os.path.join(cran_home(), "field", time.strftime("field-%Y%m%d-%H%M%S.jsonl"))
