# What the buzzer plays for the cues of one change (cran.cues): a board with a buzzer
# loads this, one without never does.
from cran.core.vocab import (
    CUE_ARMOR,
    CUE_BROKEN,
    CUE_DISPELLED,
    CUE_EFFECT,
    CUE_END,
    CUE_LOOK,
    CUE_PLAY,
    CUE_RANK,
    CUE_REPAIRED,
    CUE_SAY,
    CUE_SHOW,
    CUE_WARNING,
    const,
    lookup,
)

# Each melody "FREQ:MS FREQ:MS ..." (0 Hz: a rest), read into notes when it plays: as
# text the table costs the badge its characters, where tuples of tuples cost ~3 KB of
# its heap. Keyed by the cue's kind: its melody for every value, or a table of one a
# value, "|VALUE=MELODY|..." (cran.core.vocab.lookup); a value not there plays nothing.
_MELODIES = {
    # A change of what people see (S1). coma and mort share "inerte" (S7).
    CUE_LOOK: "|debout=523:120 659:120 784:250|blesse=659:150 523:300|"
              "au-sol=523:150 415:150 330:500|inerte=262:300 0:100 196:900|",
    # What the wearer must answer aloud.
    CUE_SAY: "|armure=1568:80 0:40 1568:80 0:40 1568:80|resiste=988:100 1319:300|"
             "cri=220:120 185:120 220:300|",
    CUE_EFFECT: "880:80 1175:150",
    CUE_END: "1175:80 880:150",
    CUE_DISPELLED: "1175:80 988:80 880:150",
    CUE_BROKEN: "1800:40 0:40 150:250",
    CUE_REPAIRED: "784:80 1047:150",
    CUE_ARMOR: "|abimee=196:300|reparee=784:80 1047:150|",
    CUE_SHOW: "1047:120",
    CUE_RANK: "523:100 659:100 784:100 1047:300",
    CUE_PLAY: "|stop=1760:150 880:150 1760:150 880:150 1760:150 880:150|"
              "en-jeu=440:100 660:100 880:250|hors-jeu=660:300 440:300|",
    CUE_WARNING: "1319:100 0:100 1319:100 0:100 1319:100 0:100",
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
        tune = _MELODIES.get(kind)
        if tune is not None and tune.startswith("|"):
            tune = lookup(tune, value)
        if tune:
            if out:
                out.append(_GAP)
            for note in tune.split():
                freq_hz, ms = note.split(":")
                out.append((int(freq_hz), int(ms)))
    return out
