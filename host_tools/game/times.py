# Time as people read it, one way each wherever cran prints it: a moment of a game or a
# scenario, a countdown's time left, the wall clock, a duration as a settings file says it.
import time


def elapsed(ms):
    """ms from the start -> 'M:SS' or 'H:MM:SS', with '.mmm' only when needed (a
    scenario's times, the sim's clock and journal)."""
    seconds, rest = divmod(ms, 1000)
    minutes, s = divmod(seconds, 60)
    h, m = divmod(minutes, 60)
    text = "%d:%02d:%02d" % (h, m, s) if h else "%d:%02d" % (m, s)
    return text + (".%03d" % rest if rest else "")


def whole_seconds(ms):
    """ms -> 'M:SS' or 'H:MM:SS', whole seconds (a journal's times and lengths: its wall
    clock has no finer grain)."""
    minutes, s = divmod(ms // 1000, 60)
    h, m = divmod(minutes, 60)
    return "%d:%02d:%02d" % (h, m, s) if h else "%d:%02d" % (m, s)


def time_left(ms):
    """A countdown's or an effect's ms left -> 'M:SS', rounded up: it reads 0:01 until it
    ends, never 0:00 while it runs. None (unknown) -> '?'."""
    if ms is None:
        return "?"
    return whole_seconds((ms + 999) // 1000 * 1000)


def wall(seconds, with_date=False):
    """Wall-clock seconds -> local 'HH:MM:SS' (the time people at the game lived)."""
    return time.strftime("%Y-%m-%d %H:%M:%S" if with_date else "%H:%M:%S",
                         time.localtime(seconds))


def duration_words(ms):
    """A duration as a settings file writes it: '5min', '30s', '500ms'."""
    if ms and ms % 60000 == 0:
        return "%dmin" % (ms // 60000)
    if ms and ms % 1000 == 0:
        return "%ds" % (ms // 1000)
    return "%dms" % ms
