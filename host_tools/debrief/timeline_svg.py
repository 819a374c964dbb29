# A badge's timeline (host_tools/debrief/timeline.py) drawn as an SVG picture: a lane per
# state, armor, combat, game and effect; markers for every action, answer, undo, boot,
# config change and error; a legend. Several badges: one fight, a group of lanes each.
import bisect
import math
from xml.sax.saxutils import escape

from cran.core.vocab import STATES
from host_tools.debrief.timeline import align, spans_by_lane, who
from host_tools.game import times
from host_tools.paper import picture
from host_tools.paper.picture import fit, text_width


def fight_svg(items, scale="stretched"):
    """items: [(timeline, source)] drawn as one fight: a group of lanes a badge, on one
    time axis, the wall clock's where the journals tell it."""
    timelines = [tl for tl, _ in items]
    shifts, origin = align(timelines)
    groups = []
    notes = []
    for (tl, source), shift in zip(items, shifts):
        heading = who(tl, source)
        if tl.start_wall is None and origin is not None:
            heading += " · no wall clock: drawn from the fight's start"
        groups.append(_Group(tl, source, shift, heading))
    end = max(g.shift + g.tl.end for g in groups)
    title = "Fight: %d badge%s" % (len(items), "s" if len(items) > 1 else "")
    if origin is not None:
        sub = "%d entries over %s, from %s" % (
            sum(len(tl.entries) for tl in timelines), times.whole_seconds(end),
            times.wall(origin, True))
    else:
        sub = "%d entries over %s" % (sum(len(tl.entries) for tl in timelines),
                                      times.whole_seconds(end))
        notes.append("No journal has the wall clock: each badge is drawn from its first "
                     "entry, not aligned with the others.")
    if [tl for tl in timelines if tl.chained]:
        notes.append("A boot without wall clock follows the entry before it (time off "
                     "unknown).")
    return draw(groups, title, sub, scale, origin, notes)


# ---- the picture -------------------------------------------------------------------
# Every text is placed by its estimated box (picture.text_width): marker labels stack
# in rows over the lanes, each one down a step from those it would touch, so no label
# overlaps another and no marker's line crosses a label; a label near the right edge
# moves left, or is cut ("…"); nothing is drawn past the edges. Too many rows of labels
# (a long day) widen the picture instead, up to MAX_WIDTH.

MIN_WIDTH = 1000
MAX_WIDTH = 6000
MAX_ROWS = 6        # label rows over a badge's lanes before the picture widens
MARGIN = 12         # nothing is drawn nearer the picture's edges
RIGHT = 30
TAIL = 60           # after the last entry: the state the badge was left in
LANE_H = 26
LANE_GAP = 6
LABEL_ROW = 15
LABEL_SIZE = 11
LABEL_GAP = 6       # between two labels of a row
LINE_GAP = 3        # between a label and another's line
MAX_LABEL_W = 480   # longer labels are cut (a long name changed): the text output has them whole
MAX_LANE_TITLE_W = 200
FONT = picture.FONT
SCALES = ("stretched", "linear")

# Colours follow the badge's LEDs (cues.py): green, orange, red; coma and mort look
# alike on a badge (S7) but not in a debrief. Every span also carries its name.
COLOURS = {
    "pleine-forme": "#66bb6a", "blesse": "#ffa726", "agonisant": "#e53935",
    "coma": "#8e24aa", "mort": "#212121", "?": "#e0e0e0", "inconnu": "#f48fb1",
    "armure": "#90a4ae", "abimee": "#ef9a9a", "combat": "#ffccbc", "hors-jeu": "#4dd0e1",
    "stop": "#cfd8dc", "effet": "#64b5f6", "brise": "#bcaaa4",
}
_DARK = ("agonisant", "coma", "mort")
SHORT = {"pleine-forme": "pf", "blesse": "bl", "agonisant": "ag", "coma": "co", "mort": "mo"}
MARKER_COLOURS = {"action": "#c62828", "answer": "#1565c0", "ignored": "#9e9e9e",
                  "undo": "#6a1b9a", "boot": "#37474f", "config": "#ef6c00",
                  "error": "#d84315", "safe_mode": "#d84315", "note": "#2e7d32",
                  "tool": "#9e9e9e"}


class _Scale:
    """Time -> x, stretched. Fights are seconds long and countdowns minutes: on a
    straight scale three blows would share one pixel. Each stretch between two moments
    with something in it gets a width growing with the logarithm of its length, so
    bursts open up, quiet stretches shrink, and order is kept. The axis writes every
    moment's time that has room, and the spans their lengths."""

    def __init__(self, moments, left, width):
        self.times = sorted(set(moments))
        weights = [math.log1p((b - a) / 1000) for a, b in zip(self.times, self.times[1:])]
        total = sum(weights) or 1.0
        self.xs = [float(left)]
        for w in weights:
            self.xs.append(self.xs[-1] + width * w / total)

    def x(self, ms):
        times, xs = self.times, self.xs
        if ms <= times[0]:
            return xs[0]
        i = bisect.bisect_left(times, ms)   # the first moment at or after ms
        if i == len(times):
            return xs[-1]
        a, b = times[i - 1], times[i]
        return xs[i - 1] + (xs[i] - xs[i - 1]) * (ms - a) / (b - a)

    def ticks(self, label_w):
        return self.times


# Steps of a straight axis's ticks, in seconds: the first whose labels have room.
_STEPS_S = (1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800,
            21600, 43200, 86400)


class _LinearScale:
    """Time -> x, straight: a minute is as wide at a fight as in a quiet hour."""

    def __init__(self, moments, left, width, wall=None):
        self.start, self.end = min(moments), max(moments)
        self.left, self.width = float(left), width
        self.wall = wall            # wall-clock seconds at 0, for round ticks

    def x(self, ms):
        span = (self.end - self.start) or 1
        return self.left + self.width * (min(max(ms, self.start), self.end) - self.start) / span

    def ticks(self, label_w):
        span_ms = (self.end - self.start) or 1
        step_s = _STEPS_S[-1]
        for step in _STEPS_S:
            if step * 1000 * self.width / span_ms >= label_w + 14:
                step_s = step
                break
        step = step_s * 1000
        # Round on the wall clock where it is known (10:05, not 4 s past it).
        offset = (self.wall % step_s) * 1000 if self.wall is not None else 0
        first = self.start - (offset + self.start) % step
        if first < self.start:
            first += step
        return list(range(first, self.end + 1, step))


def _text(x, y, text, size=11, anchor="start", fill="#000", extra=""):
    return ('<text x="%.1f" y="%.1f" font-size="%d" text-anchor="%s" fill="%s"%s>%s</text>'
            % (x, y, size, anchor, fill, extra, escape(text)))


def _lane_title(lane):
    return {"etat": "état", "jeu": "jeu"}.get(lane, lane)


def _span_colour(span):
    if span.lane == "etat":
        return COLOURS.get(span.value, "#e0e0e0")
    if span.lane == "armure":
        return COLOURS["abimee"] if span.value == "abimee" else COLOURS["armure"]
    if span.lane == "jeu":
        return COLOURS.get(span.value, COLOURS["stop"])
    return COLOURS[span.lane.split()[0]]


def _span_label(span, width, end):
    """The longest label that fits: name and length, name, short code, nothing."""
    length = times.whole_seconds((end if span.end is None else span.end) - span.start)
    value = span.value
    candidates = ["%s %s%s" % (value, length, "+" if span.end is None else ""), value]
    if span.lane == "etat" and value in SHORT:
        candidates.append(SHORT[value])
    for text in candidates:
        if text_width(text, 11) + 8 <= width:
            return text
    return ""


def _marker_shape(kind, x, y, colour):
    if kind == "answer":      # a diamond: something answered it
        return ('<path d="M%.1f %.1f l5 6 l-5 6 l-5 -6 z" fill="%s"/>' % (x, y, colour))
    if kind in ("ignored", "note"):
        return '<circle cx="%.1f" cy="%.1f" r="4.5" fill="none" stroke="%s" stroke-width="2"/>' \
            % (x, y + 6, colour)
    if kind in ("error", "safe_mode"):
        return ('<path d="M%.1f %.1f l9 9 m0 -9 l-9 9" stroke="%s" stroke-width="2.5"/>'
                % (x - 4.5, y + 1.5, colour))
    if kind == "boot":
        return '<rect x="%.1f" y="%.1f" width="10" height="10" fill="%s"/>' % (
            x - 5, y + 1, colour)
    if kind == "tool":        # an organiser's tool at work: a square, hollow, no line
        return ('<rect x="%.1f" y="%.1f" width="9" height="9" fill="none" stroke="%s" '
                'stroke-width="2"/>' % (x - 4.5, y + 1.5, colour))
    if kind == "config":      # a star: the badge came back as another
        return ('<path d="M%.1f %.1f l1.8 3.9 l4.2 0.4 l-3.2 2.8 l1 4.1 l-3.8 -2.2 '
                'l-3.8 2.2 l1 -4.1 l-3.2 -2.8 l4.2 -0.4 z" fill="%s"/>' % (x, y, colour))
    if kind == "undo":
        return ('<path d="M%.1f %.1f a5 5 0 1 1 -4 8" fill="none" stroke="%s" '
                'stroke-width="2"/>' % (x + 4, y + 3, colour))
    # an action that took hold: a triangle pointing down at the lanes
    return '<path d="M%.1f %.1f l6 0 l-6 11 l-6 -11 z" fill="%s"/>' % (x, y, colour)


def _short(label):
    # "coup normal" is what a plain hit is called in the journal; above a lane, "coup".
    return label.replace("coup normal", "coup")


class _Label:
    def __init__(self, marker, mx, x, text, row):
        self.marker = marker
        self.mx = mx                # the marker's x: its line
        self.x = x                  # where its text starts
        self.text = text
        self.row = row              # 0: the top row


def place_labels(items, right_edge):
    """(mx, text) in the order of mx -> [(x, row)]: rows from the top, each label in
    the row below every row still busy where it starts (a descending stair), so its
    line down to its marker crosses no label, and starting past the lines of those
    before it. A label that would pass right_edge moves left as far as that lets it
    (the picture widens for what still passes). Each label goes on and off the stack
    of rows once: n, not n x rows."""
    busy = []           # for each row from the top: where its last label ends
    line = -1e9         # the line of the label before
    out = []
    for mx, text in items:
        w = text_width(text, LABEL_SIZE)
        x = max(mx - 4, line + LINE_GAP)
        if x + w > right_edge:
            x = max(right_edge - w, line + LINE_GAP)
        while busy and busy[-1] + LABEL_GAP <= x:
            busy.pop()
        out.append((x, len(busy)))
        busy.append(x + w)
        line = mx
    return out


class _Group:
    """One badge's lanes in the picture, `shift` ms after the picture's 0."""

    def __init__(self, tl, source, shift=0, heading=None):
        self.tl = tl
        self.source = source
        self.shift = shift
        self.heading = heading      # over its lanes, when several badges share the picture
        self.labels = []
        self.rows = 0


def _layout(groups, scale_kind, width, left, origin_wall):
    """The scale at this width, and each group's labels placed. -> scale."""
    moments = [0]
    for g in groups:
        moments.extend(g.shift + e.at for e in g.tl.entries)
    plot_w = width - left - RIGHT - TAIL
    if scale_kind == "linear":
        scale = _LinearScale(moments, left, plot_w, origin_wall)
    else:
        scale = _Scale(moments, left, plot_w)
    for g in groups:
        items = [(scale.x(g.shift + m.at), fit(_short(m.label), LABEL_SIZE, MAX_LABEL_W))
                 for m in g.tl.markers]
        placed = place_labels(items, width - MARGIN)
        g.labels = [_Label(m, mx, x, text, row)
                    for m, (mx, text), (x, row) in zip(g.tl.markers, items, placed)]
        g.rows = max([label.row + 1 for label in g.labels] or [0])
    return scale


def _axis_label(ms, origin_wall):
    if origin_wall is None:
        return times.whole_seconds(ms)
    return times.wall(origin_wall + ms // 1000)


def _axis_unit(origin_wall):
    return "m:ss" if origin_wall is None else "time"


def svg(tl, source="journal", scale="stretched"):
    """The timeline drawn: a lane per state, armor, combat, game and effect; markers for
    every action, answer, undo, boot, config change and error; a legend. Same timeline,
    same bytes. scale: "stretched" (around events, the default) or "linear"."""
    title = "Journal: %s" % (tl.name or "character unknown")
    if tl.board:
        title += " (%s)" % tl.board
    sub = "%s, %d entries over %s" % (source, len(tl.entries), times.whole_seconds(tl.end))
    if tl.start_wall is not None:
        sub += ", from %s" % times.wall(tl.start_wall, True)
    wall = tl.start_wall if not tl.chained else None
    notes = []
    if tl.chained:
        notes.append("A boot without wall clock follows the entry before it (time off "
                     "unknown): times from the start.")
    return draw([_Group(tl, source)], title, sub, scale, wall, notes)


def draw(groups, title, sub, scale_kind, origin_wall, notes=()):
    """groups (_Group) drawn on one time axis, each its lanes under its labels."""
    if scale_kind not in SCALES:
        raise ValueError("scale %r: one of %s" % (scale_kind, ", ".join(SCALES)))
    titles = [_lane_title(lane) for g in groups for lane in g.tl.lanes]
    # The lane titles' column; the axis's unit under it clears the first time's label.
    unit_w = text_width(_axis_unit(origin_wall), 10) + 8 + text_width(
        _axis_label(0, origin_wall), 10) / 2
    left = MARGIN + 10 + min(MAX_LANE_TITLE_W, max(
        [text_width(t, 12) for t in titles] + [unit_w]))
    width = MIN_WIDTH
    scale = _layout(groups, scale_kind, width, left, origin_wall)
    rows = max(g.rows for g in groups)
    if rows > MAX_ROWS:
        # Room for the labels of a long day, rather than a tower of them; but labels
        # of one instant (a boot, its notes) stack however wide: then the narrow one.
        wide = min(MAX_WIDTH, int(width * rows / MAX_ROWS))
        scale = _layout(groups, scale_kind, wide, left, origin_wall)
        if max(g.rows for g in groups) > rows * 3 // 4:
            scale = _layout(groups, scale_kind, width, left, origin_wall)
        else:
            width = wide
    end = max(g.shift + g.tl.end for g in groups)
    end_x = scale.x(end) + TAIL
    # Labels of the last moments that could not move left enough: room for them.
    width = max([width] + [int(math.ceil(label.x + text_width(label.text, LABEL_SIZE)))
                           + MARGIN for g in groups for label in g.labels])
    out = []
    out.append(_text(MARGIN, 24, fit(title, 17, width - 2 * MARGIN, True), 17,
                     extra=' font-weight="bold"'))
    out.append(_text(MARGIN, 44, fit(sub, 12, width - 2 * MARGIN), 12, fill="#555"))
    y = 58
    several = len(groups) > 1
    for g in groups:
        y = _draw_group(out, g, scale, y, left, end_x, several)
    axis_y = y + 4 - LANE_GAP
    _draw_axis(out, scale, axis_y, left, end_x, origin_wall)
    y = _draw_legend(out, axis_y + 40, width, scale_kind, notes)
    y = _draw_errors(out, groups, y, width, several)
    height = int(y + 16)
    head = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
            'viewBox="0 0 %d %d" font-family="%s">' % (width, height, width, height, FONT),
            '<rect width="100%" height="100%" fill="#fff"/>']
    return "\n".join(head + out + ['</svg>']) + "\n"


def _draw_group(out, g, scale, y, left, end_x, several):
    """One badge: its heading, labels, markers and lanes from y down. -> y after it."""
    tl = g.tl
    if several:
        y += 8
        out.append(_text(MARGIN, y + 12, fit(g.heading, 13, end_x - MARGIN, True), 13,
                         extra=' font-weight="bold"'))
        y += 20
    top = y
    mark_y = top + g.rows * LABEL_ROW + 4
    lanes_y = mark_y + 18
    lane_y = dict((lane, lanes_y + i * (LANE_H + LANE_GAP)) for i, lane in enumerate(tl.lanes))
    bottom = lanes_y + len(tl.lanes) * (LANE_H + LANE_GAP) - LANE_GAP

    # Markers and their labels, in rows above the lanes.
    out.append('<g class="markers" data-source="%s">' % escape(g.source))
    for label in g.labels:
        m = label.marker
        colour = MARKER_COLOURS.get(m.kind, "#000")
        ly = top + label.row * LABEL_ROW + 11
        out.append('<g class="marker %s" data-at-ms="%d" data-line="%d">' % (
            m.kind, g.shift + m.at, m.line))
        out.append('<title>%s (journal line %d)</title>' % (escape(m.label), m.line))
        out.append('<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" '
                   'stroke-width="0.6" stroke-dasharray="2 2"/>' % (
                       label.mx, ly + 3, label.mx, mark_y, colour))
        if label.text:
            out.append(_text(label.x, ly, label.text, LABEL_SIZE, fill=colour))
        out.append(_marker_shape(m.kind, label.mx, mark_y, colour))
        out.append('</g>')
    out.append('</g>')

    # Lanes.
    by_lane = spans_by_lane(tl)
    for lane in tl.lanes:
        ly = lane_y[lane]
        out.append('<g class="lane" data-lane="%s">' % escape(lane))
        out.append(_text(left - 8, ly + LANE_H / 2 + 4,
                         fit(_lane_title(lane), 12, left - 8 - MARGIN), 12, "end"))
        out.append('<rect x="%d" y="%d" width="%.1f" height="%d" fill="#f5f5f5"/>' % (
            left, ly, end_x - left, LANE_H))
        for s in by_lane[lane]:
            x0 = scale.x(g.shift + s.start)
            x1 = end_x if s.end is None else scale.x(g.shift + s.end)
            colour = _span_colour(s)
            label = _span_label(s, x1 - x0, tl.end)
            out.append('<g class="span" data-value="%s" data-start-ms="%d" data-end-ms="%s">'
                       % (escape(s.value), g.shift + s.start,
                          "" if s.end is None else g.shift + s.end))
            out.append('<title>%s %s: %s - %s</title>' % (
                escape(_lane_title(lane)), escape(s.value), times.whole_seconds(s.start),
                "end" if s.end is None else times.whole_seconds(s.end)))
            out.append('<rect x="%.1f" y="%d" width="%.1f" height="%d" fill="%s" '
                       'stroke="#fff" stroke-width="1"/>' % (x0, ly, x1 - x0, LANE_H, colour))
            if label:
                fill = "#fff" if s.lane == "etat" and s.value in _DARK else "#000"
                out.append(_text(x0 + 4, ly + LANE_H / 2 + 4, label, 11, fill=fill))
            out.append('</g>')
        out.append('</g>')

    # Boots, and a new config or firmware: a line across every lane.
    for label in g.labels:
        m = label.marker
        if m.kind in ("boot", "config"):
            dash = ' stroke-dasharray="5 4"' if m.kind == "config" else ""
            out.append('<line class="%s-line" x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" '
                       'stroke="%s" stroke-width="2.5"%s/>' % (
                           m.kind, label.mx, mark_y + 12, label.mx, bottom,
                           MARKER_COLOURS[m.kind], dash))
    return bottom + LANE_GAP


def _draw_axis(out, scale, axis_y, left, end_x, origin_wall):
    """The axis: the times written out (the stretched scale is not straight), on the
    wall clock when the journals say it."""
    out.append('<g class="axis">')
    out.append('<line x1="%d" y1="%d" x2="%.1f" y2="%d" stroke="#000"/>' % (
        left, axis_y, end_x, axis_y))
    label_w = text_width(_axis_label(0, origin_wall), 10)
    last_end = -1e9
    for t in scale.ticks(label_w):
        x = scale.x(t)
        out.append('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#000"/>' % (
            x, axis_y, x, axis_y + 5))
        text = _axis_label(t, origin_wall)
        w = text_width(text, 10)
        if x - w / 2 >= last_end + 8:
            out.append(_text(x, axis_y + 17, text, 10, "middle"))
            last_end = x + w / 2
    out.append(_text(left - 8 - label_w / 2, axis_y + 17, _axis_unit(origin_wall), 10,
                     "end", "#555"))
    out.append('</g>')


def _draw_legend(out, y, width, scale_kind, notes):
    """The legend, its items flowing on as many lines as the width needs. -> y after."""
    out.append('<g class="legend">')
    x = MARGIN
    for name in STATES:
        text = "%s (%s)" % (name, SHORT[name])
        w = 20 + text_width(text, 11) + 20
        if x + w > width - MARGIN:
            x, y = MARGIN, y + 20
        out.append('<rect x="%d" y="%d" width="14" height="14" fill="%s"/>' % (
            x, y - 11, COLOURS[name]))
        out.append(_text(x + 20, y, text, 11))
        x += w
    y += 22
    x = MARGIN
    for kind, text in (("action", "took hold"), ("answer", "answered (armure, résiste, cri)"),
                       ("ignored", "ignored"), ("undo", "undone"), ("error", "error"),
                       ("note", "a note (a radio offer, light sleep...): its words above"),
                       ("boot", "boot (a line across the lanes)"),
                       ("tool", "an organiser's tool (cran check): not the wearer's"),
                       ("config", "new config or firmware (a dashed line)")):
        w = 20 + text_width(text, 11) + 20
        if x + w > width - MARGIN:
            x, y = MARGIN, y + 20
        out.append(_marker_shape(kind, x + 6, y - 11, MARKER_COLOURS[kind]))
        out.append(_text(x + 20, y, text, 11))
        x += w
    if scale_kind == "linear":
        lines = ["Time axis straight (--scale linear)."]
    else:
        lines = ["Time axis stretched around events and squeezed in quiet stretches: read "
                 "the times written on it (--scale linear draws it straight)."]
    for note in lines + list(notes):
        y += 18
        out.append(_text(MARGIN, y, fit(note, 10, width - 2 * MARGIN), 10, fill="#555"))
    out.append('</g>')
    return y


def _draw_errors(out, groups, y, width, several):
    errors = [(g, m) for g in groups for m in g.tl.markers if m.kind in ("error", "safe_mode")]
    if not errors:
        return y
    y += 10
    out.append('<g class="errors">')
    for g, m in errors:
        y += LABEL_ROW
        text = "%s  %s" % (times.whole_seconds(m.at), m.label)
        if several:
            text = "%s  %s" % (g.heading, text)
        out.append(_text(MARGIN, y, fit(text, 11, width - 2 * MARGIN), 11,
                         fill=MARKER_COLOURS["error"]))
    out.append('</g>')
    return y
