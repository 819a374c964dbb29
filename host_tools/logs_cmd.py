# `cran logs`: a badge's journal, pulled from the badge or read from a file, printed as
# a timeline and drawn for the debrief (host_tools/timeline.py does the work).
# Exit 0; 2 on bad input (no file, nothing readable, a bad --out or --config); 3 when a
# PNG is asked for and nothing here can make one (the SVG is drawn instead).
import json
import os
import sys

from host_tools import CommandError, picture, timeline

EXIT_BAD_INPUT = 2
EXIT_NO_TOOL = picture.EXIT_NO_TOOL

HELP = "pull a badge's journal: print its timeline and draw it (SVG or PNG)"


def setup(p):
    source = p.add_mutually_exclusive_group(required=True)
    source.add_argument("--port", help="the badge's serial port: its journal is pulled "
                                       "with the console's `journal`, its config with `config`")
    source.add_argument("--file", metavar="JOURNAL",
                        help="a journal saved before: one JSON object a line")
    p.add_argument("--out", metavar="FILE.svg|FILE.png",
                   help="the picture (default: JOURNAL's name or journal-PORT, .svg, "
                        "in the current folder)")
    p.add_argument("--scale", choices=timeline.SCALES, default="stretched",
                   help="the picture's time axis: stretched around events and squeezed in "
                        "quiet stretches (the default), or linear (straight)")
    p.add_argument("--json", action="store_true",
                   help="print the timeline as one JSON object instead of text")
    p.add_argument("--config", metavar="CONFIG.json",
                   help="the badge's config (as `cran config` writes it): name, board and "
                        "armor count for the picture; --port asks the badge itself")
    p.add_argument("--settings", metavar="GAME.json",
                   help="with --port: the game's settings, whose \"game_key\" unlocks the "
                        "badge's config (not needed on the computer that flashed it)")
    p.add_argument("--save", metavar="JOURNAL",
                   help="with --port: also keep the journal as pulled, for `--file` later")


def read_lines(path):
    """A journal file -> its lines. Bytes a torn write garbled become U+FFFD, so the
    line is named as unreadable instead of stopping the whole file."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except FileNotFoundError:
        raise CommandError("%s: no such file" % path, EXIT_BAD_INPUT) from None
    except OSError as e:
        raise CommandError("%s: cannot read: %s" % (path, e), EXIT_BAD_INPUT) from None
    return [line.decode("utf-8", "replace") for line in data.splitlines()]


def read_config(path):
    from host_tools.roster import RosterError, read_json
    try:
        config = read_json(path)
    except RosterError as e:
        raise CommandError("\n".join(e.messages), EXIT_BAD_INPUT) from None
    if not isinstance(config, dict):
        raise CommandError("%s: expected a JSON object (a badge's config.json)" % path,
                           EXIT_BAD_INPUT)
    return config


def pull(port, want_config=True, keys=()):
    """-> (journal lines, config dict or None) from the badge on `port`; its config only
    when wanted (a --config file says it already), read with the console unlocked by
    one of keys or this computer's key ring."""
    from host_tools import badgelink  # only here: --file needs no serial link
    lines = badgelink.ask(port, "journal", again=True)
    if not want_config:
        return lines, None
    try:
        answer = badgelink.ask(port, "config", again=True, keys=keys)
    except CommandError as e:
        answer = []
        print("cran: config not read (%s): the picture names no character" % e,
              file=sys.stderr)
    return lines, badgelink.first_json(answer, dict)


def draw(svg_text, path):
    """Write the picture: SVG as is, PNG drawn by host_tools.picture. -> the file
    written. Without what draws a PNG, the SVG is written beside and said (exit 3)."""
    if path.lower().endswith(".svg"):
        picture.write(path, svg_text)
        return path
    try:
        data = picture.png(svg_text)
    except CommandError as e:
        svg_path = path[:-4] + ".svg"
        picture.write(svg_path, svg_text)
        raise CommandError("%s: %s; drew %s instead" % (path, e, svg_path),
                           EXIT_NO_TOOL) from None
    picture.write(path, data)
    return path


def default_out(args):
    if args.file:
        stem = os.path.splitext(os.path.basename(args.file))[0] or "journal"
    else:
        stem = "journal-" + (os.path.basename(args.port.rstrip("/\\")) or "badge")
    return stem + ".svg"


def run(args):
    out = args.out or default_out(args)
    if not out.lower().endswith((".svg", ".png")):
        raise CommandError("--out %s: the picture is a .svg or a .png file" % out,
                           EXIT_BAD_INPUT)
    config = read_config(args.config) if args.config else None
    if args.port:
        source = "journal"
        keys = ()
        if args.settings:
            from host_tools.roster import RosterError, read_game_key
            try:
                key = read_game_key(args.settings)
            except RosterError as e:
                raise CommandError("\n".join(e.messages), EXIT_BAD_INPUT) from None
            keys = () if key is None else (key,)
        lines, asked = pull(args.port, want_config=not config, keys=keys)
        config = config or asked
        if args.save:
            picture.write(args.save, "".join(line.rstrip("\n") + "\n" for line in lines))
    else:
        if args.save:
            raise CommandError("--save is for --port: the journal file is already saved",
                               EXIT_BAD_INPUT)
        source = args.file
        lines = read_lines(args.file)
    entries, problems = timeline.parse_lines(lines, source)
    for problem in problems:
        print(problem, file=sys.stderr)
    if not entries:
        raise CommandError("%s: no readable journal entry: nothing to show" % source,
                           EXIT_BAD_INPUT, prefixed=False)
    tl = timeline.build(entries, config, source)
    for problem in tl.problems:
        print(problem, file=sys.stderr)
    if args.json:
        print(json.dumps(timeline.as_json(tl, source), ensure_ascii=False))
    else:
        print("\n".join(timeline.text_lines(tl, source)))
    sys.stdout.flush()
    written = draw(timeline.svg(tl, source, args.scale), out)
    print("cran: drew %s" % written, file=sys.stderr)
    return 0
