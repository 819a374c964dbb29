# What the buzzer plays for the cues of one change (cran.cues): a board with a buzzer
from cran.core.vocab import const

# loads this, one without never does.

# Each melody "FREQ:MS FREQ:MS ..." (0 Hz: a rest), read into notes when it plays: as
# text the table costs the badge its characters, where tuples of tuples cost ~3 KB of
# its heap. Keyed "KIND VALUE", or "KIND" for every value of that kind.
_MELODIES = {
    # A change of what people see (S1). coma and mort share "inerte" (S7).
    "vu debout": "523:120 659:120 784:250",
    "vu blesse": "659:150 523:300",
    "vu au-sol": "523:150 415:150 330:500",
    "vu inerte": "262:300 0:100 196:900",
    # What the wearer must answer aloud.
    "dit armure": "1568:80 0:40 1568:80 0:40 1568:80",
    "dit resiste": "988:100 1319:300",
    "dit cri": "220:120 185:120 220:300",
    "effet": "880:80 1175:150",
    "fin": "1175:80 880:150",
    "dissipe": "1175:80 988:80 880:150",
    "brise": "1800:40 0:40 150:250",
    "repare": "784:80 1047:150",
    "armure abimee": "196:300",
    "armure reparee": "784:80 1047:150",
    "montre": "1047:120",
    "rang": "523:100 659:100 784:100 1047:300",
    "jeu stop": "1760:150 880:150 1760:150 880:150 1760:150 880:150",
    "jeu en-jeu": "440:100 660:100 880:250",
    "jeu hors-jeu": "660:300 440:300",
    "alerte": "1319:100 0:100 1319:100 0:100 1319:100 0:100",
}
_GAP = const((0, 80))


def melody_for(cues):
    """-> [(freq_hz, duration_ms)] (0 Hz: rest) for the cues of one change. Private cues
    make no sound at all: a buzzer is heard by everyone, and a private beep in coma
    would tell coma from mort (S7). The wearer reads private news on a peek."""
    out = []  # type: list
    for _, kind, value, private in cues:
        if private:
            continue
        tune = _MELODIES.get("%s %s" % (kind, value)) or _MELODIES.get(kind)
        if tune:
            if out:
                out.append(_GAP)
            for note in tune.split():
                freq_hz, ms = note.split(":")
                out.append((int(freq_hz), int(ms)))
    return out
