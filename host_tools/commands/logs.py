# `cran logs`: a badge's journal, pulled from the badge or read from a file, printed as
# a timeline and drawn for the debrief (host_tools/debrief/: gather.py reads and pulls
# it, journal.py parses it, timeline.py places it, timeline_svg.py draws it). Several
# badges (--port repeated, --all, --file repeated): one timeline of the fight, a group of
# lanes a badge, placed on the wall clock their journals carry. The game master's
# station's journal (cran field, host_tools/field/fieldlog.py) is such a fight on its own: a
# group for the station, one for each badge it heard.
# Exit 0; 1 when a badge of several could not be read (the others are drawn); 2 on bad
# input (no file, nothing readable, a bad --out or --config); 3 when a PNG is asked for
# and nothing here can make one (the SVG is drawn instead).
import json
import os
import sys

from host_tools import CommandError
from host_tools.debrief import fieldread, gather, timeline, timeline_svg
from host_tools.debrief.gather import EXIT_BAD_INPUT
from host_tools.paper import picture

HELP = "pull badges' journals: print their timeline and draw it (SVG or PNG)"


def setup(p):
    p.add_argument("--port", action="append", default=[], metavar="PORT",
                   help="a badge's serial port: its journal is pulled with the console's "
                        "`journal`, its config with `config` (repeat it: one timeline of "
                        "the fight, a group of lanes a badge)")
    p.add_argument("--all", action="store_true",
                   help="every USB serial port attached and every cran vbadge running "
                        "here: every badge in one timeline of the fight")
    p.add_argument("--file", action="append", default=[], metavar="JOURNAL",
                   help="a journal saved before: one JSON object a line (repeat it, or "
                        "with ports: one timeline of them all)")
    p.add_argument("--out", metavar="FILE.svg|FILE.png",
                   help="the picture (default: JOURNAL's name, journal-PORT or, for "
                        "several badges, fight; .svg, in the current folder)")
    p.add_argument("--scale", choices=timeline_svg.SCALES, default="stretched",
                   help="the picture's time axis: stretched around events and squeezed in "
                        "quiet stretches (the default), or linear (straight)")
    p.add_argument("--json", action="store_true",
                   help="print the timeline as one JSON object instead of text (several "
                        "badges: one a line, with its \"offset_ms\" in the fight)")
    p.add_argument("--config", metavar="CONFIG.json",
                   help="the badge's config (as `cran config` writes it): name, board and "
                        "armor count for the picture; --port asks the badge itself")
    p.add_argument("--settings", metavar="GAME.json",
                   help="with --port: the game's settings, whose \"game_key\" unlocks the "
                        "badge's config (not needed on the computer that flashed it)")
    p.add_argument("--save", metavar="JOURNAL",
                   help="with --port: also keep the journal as pulled, for `--file` later "
                        "(several badges: a folder, a journal-PORT.jsonl each)")


def _ports(args):
    """The ports named and, with --all, every USB serial port and every cran vbadge
    running here; a port named twice (or by a link to it) once."""
    found = []
    if args.all:
        from host_tools.device import badgeport  # only here: --file needs no serial link
        found = badgeport.every_port()
    ports = []
    seen = set()
    for port in args.port + found:
        if os.path.realpath(port) not in seen:
            seen.add(os.path.realpath(port))
            ports.append(port)
    if args.all and not ports:
        from host_tools.device import badgeport
        raise badgeport.BadgeError(badgeport.NONE_FOUND)
    return ports


def _default_out(args, ports):
    if len(ports) + len(args.file) > 1 or args.all:
        stem = "fight"
    elif args.file:
        stem = os.path.splitext(os.path.basename(args.file[0]))[0] or "journal"
    else:
        stem = "journal-" + _port_name(ports[0])
    return stem + ".svg"


def _port_name(port):
    return os.path.basename(port.rstrip("/\\")) or "badge"


def _keys(args):
    if not args.settings:
        return ()
    from host_tools.game.roster import RosterError, read_game_key
    try:
        key = read_game_key(args.settings)
    except RosterError as e:
        raise CommandError("\n".join(e.messages), EXIT_BAD_INPUT) from None
    return () if key is None else (key,)


def _joined(lines):
    return "".join(line.rstrip("\n") + "\n" for line in lines)


def run(args):
    ports = _ports(args)
    if not ports and not args.file:
        raise CommandError("which badge? give --port PORT (repeat it), --all, or --file "
                           "JOURNAL", EXIT_BAD_INPUT)
    out = args.out or _default_out(args, ports)
    if not out.lower().endswith((".svg", ".png")):
        raise CommandError("--out %s: the picture is a .svg or a .png file" % out,
                           EXIT_BAD_INPUT)
    if args.save and not ports:
        raise CommandError("--save is for --port: the journal file is already saved",
                           EXIT_BAD_INPUT)
    if len(ports) + len(args.file) > 1 or args.all or (
            args.file and fieldread.is_journal(gather.read_lines(args.file[0]))):
        return _run_several(args, ports, out)
    config = gather.read_config(args.config) if args.config else None
    if ports:
        source = "journal"
        lines, asked = gather.pull(ports[0], want_config=not config, keys=_keys(args))
        config = config or asked
        if args.save:
            picture.write(args.save, _joined(lines))
    else:
        source = args.file[0]
        lines = gather.read_lines(source)
    tl = gather.timeline_of(lines, config, source)
    if tl is None:
        raise CommandError("%s: no readable journal entry: nothing to show" % source,
                           EXIT_BAD_INPUT, prefixed=False)
    if args.json:
        print(json.dumps(timeline.as_json(tl, source), ensure_ascii=False))
    else:
        print("\n".join(timeline.text_lines(tl, source)))
    sys.stdout.flush()
    written = picture.draw(timeline_svg.svg(tl, source, args.scale), out)
    print("cran: drew %s" % written, file=sys.stderr)
    return 0


def _run_several(args, ports, out):
    """Every badge's journal, one timeline of the fight. A badge that can't be read is
    said and left out (exit 1); the others are drawn."""
    if args.config:
        raise CommandError("--config is for one badge: with several, each badge's own "
                           "config is asked of it", EXIT_BAD_INPUT)
    if args.save:
        try:
            os.makedirs(args.save, exist_ok=True)
        except OSError as e:
            raise CommandError("--save %s: cannot make the folder: %s" % (args.save, e),
                               EXIT_BAD_INPUT) from None
    journals = [(path, gather.read_lines(path), None) for path in args.file]   # bad input first
    failed = 0
    for port, answer in zip(ports, gather.pull_all(ports, _keys(args))):
        if isinstance(answer, CommandError):
            print("cran: %s: left out of the fight: %s" % (port, answer), file=sys.stderr)
            failed += 1
            continue
        lines, config = answer
        if args.save:
            picture.write(os.path.join(args.save, "journal-%s.jsonl" % _port_name(port)),
                          _joined(lines))
        journals.append((port, lines, config))
    items, unread = gather.fight(journals)
    failed += unread
    if not items:
        raise CommandError("no badge's journal could be read: nothing to show",
                           EXIT_BAD_INPUT)
    if args.json:
        shifts, _ = timeline.align([tl for tl, _ in items])
        for (tl, source), shift in zip(items, shifts):
            print(json.dumps(dict(timeline.as_json(tl, source), offset_ms=shift),
                             ensure_ascii=False))
    else:
        print("\n".join(timeline.fight_lines(items)))
    sys.stdout.flush()
    written = picture.draw(timeline_svg.fight_svg(items, args.scale), out)
    print("cran: drew %s" % written, file=sys.stderr)
    return 1 if failed else 0
