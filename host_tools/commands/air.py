# `cran air --field NAME`: a virtual field's air alone (host_tools/field/fieldnet.py's hub),
# for a field whose station is a badge on USB: a `cran vbadge --field NAME` flashed with
# `cran flash --station`, player vbadges beside it, and `cran field --port` on the
# station's port. (`cran field --virtual NAME` holds the air itself, its radio on it.)
# With --settings and --roster (or --crowd N), the air hosts a crowd of badges itself
# (host_tools/field/crowd.py): a rehearsal's field of 50 on one laptop.
import collections
import json
import os
import signal
import sys
import threading
import time

from host_tools import CommandError
from host_tools.field import fieldnet
from host_tools.field.gamemaster import EXIT_BAD_INPUT, end_on_signals
from host_tools.game import gamekey

HELP = "a virtual field's air alone, for virtual badges and a virtual station badge"


def setup(p):
    p.add_argument("--field", metavar="NAME", required=True,
                   help="the field's name: `cran vbadge --field NAME` joins it")
    p.add_argument("--loss", type=float, default=0.0,
                   help="the frames it loses, 0 to 1 (default 0)")
    p.add_argument("--settings", metavar="GAME.json",
                   help="the game settings (\"radio\": true): with --roster or --crowd, the "
                        "air hosts their badges")
    p.add_argument("--roster", metavar="ROSTER.csv",
                   help="a badge on the air for every row without a port (a row with one "
                        "is left to the badge flashed on that port), with its character "
                        "and role")
    p.add_argument("--crowd", metavar="N", type=int, default=0,
                   help="N more players of no name (joueur-01, ...)")
    p.add_argument("--json", action="store_true",
                   help="a JSON line a second: the crowd's clock, the commands the air "
                        "carried, every badge's state; each line on stdin a wearer's doing: "
                        "NAME ACTION (coup blesse...), NAME treat, NAME take")


def run(args):
    if not 0 <= args.loss < 1:
        raise CommandError("--loss: from 0 to 1 (excluded), got %s" % args.loss,
                           EXIT_BAD_INPUT)
    crowded = bool(args.roster or args.crowd)
    if crowded != bool(args.settings):
        raise CommandError("--settings GAME.json goes with --roster or --crowd N: the "
                           "crowd's game" if args.settings else "--roster and --crowd need "
                           "--settings GAME.json: the game they play", EXIT_BAD_INPUT)
    if not 0 <= args.crowd <= 500:
        raise CommandError("--crowd: from 0 to 500 badges, got %d" % args.crowd,
                           EXIT_BAD_INPUT)
    members = left = None
    if crowded:   # checked before the air is taken: a faulty roster leaves nothing on
        from host_tools.field import crowd
        key, gm_seed, members, left = crowd.specs(args.settings, args.roster, args.crowd)
    end_on_signals()
    hub = fieldnet.Hub(args.field, args.loss)
    the_crowd = None
    try:
        if crowded:
            folder = os.path.join(gamekey.cran_home(), "crowd", gamekey.key_id(key))
            the_crowd = crowd.Crowd(hub, key, gm_seed, members, folder,
                                    [name for name, _ in left])
            the_crowd.start()
        print("cran air: virtual field %r is on the air (cran vbadge --field %s joins it)%s;"
              " Ctrl-C ends it" % (args.field, args.field, _crowd_said(members, left)),
              file=sys.stderr, flush=True)
        if args.json:
            _json(hub, the_crowd)
        elif the_crowd is not None:
            _said_as_it_goes(the_crowd)
        else:
            while True:
                time.sleep(1)
    except KeyboardInterrupt:
        pass
    finally:
        if the_crowd is not None:
            the_crowd.stop()
        hub.close()
    return 0


def _crowd_said(members, left):
    if not members:
        return ""
    said = ", with a crowd of %d badges on it" % len(members)
    if left:
        said += " (left to their own badges: %s)" % ", ".join(
            "%s on %s" % row for row in left)
    return said


_printing = threading.Lock()   # the crowd's thread and this one both print


def _say(thing):
    with _printing:
        print(json.dumps(thing), flush=True)


def _commands_from(stream, the_crowd, say=_say):
    try:
        for line in stream:
            line = line.strip()
            if not line:
                continue
            try:
                if the_crowd is None:
                    raise CommandError("%s: no crowd on this air (--roster or --crowd)"
                                       % line)
                the_crowd.command(line, say)
            except CommandError as e:
                say({"error": str(e)})
                if say is _say and not sys.stdout.isatty():   # JSON to a file: said
                    print("cran air: %s" % e, file=sys.stderr, flush=True)   # to the person
    except OSError:   # a terminal it may not read any more (a job sent to the background)
        pass


def _said_as_it_goes(the_crowd):
    """On a terminal: the wearers' doings typed (as --json takes them), and what changes
    in the crowd said in words, a second at a time."""
    if hasattr(signal, "SIGTTIN"):   # in the background, reading its terminal fails, not
        signal.signal(signal.SIGTTIN, signal.SIG_IGN)   # stops the air with its badges
    print("Type a wearer's doing, then Enter: NAME coup blesse (any action of a scenario), "
          "NAME treat (a healer or smith treats the nearest badge), NAME take (the long "
          "press that takes an offer)", flush=True)
    before = the_crowd.status()
    treaters = ["%s (%s) at %g,%g" % (b["name"], b["role"], b["x"], b["y"])
                for b in before["badges"] if b["role"] != "badge"]
    print("The crowd stands 3 m apart, 10 a row from 2,2 (metres)%s" % (
        ": " + ", ".join(treaters) if treaters else ""), flush=True)
    threading.Thread(target=_commands_from, args=(sys.stdin, the_crowd, _print_done),
                     daemon=True).start()
    while True:
        time.sleep(1)
        now = the_crowd.status()
        for line in changes(before, now):
            _print(line)
        before = now


def _print(line):
    with _printing:
        print(line, flush=True)


def _print_done(said):
    if "error" in said:
        _print("cran air: %s" % said["error"])
    elif said.get("took", 1) is None:
        _print("%s: no offer on show to take" % said["done"])
    elif said.get("treats") is False:
        _print("%s: its chain is spent: nobody treated" % said["done"])
    else:
        _print("%s: done" % said["done"])


_SHOWN = 4   # the names said of a change many share; the rest counted
_DROPPED = {"game": "of another game (its key)", "tag": "forged or garbled (their tag)",
            "token": "without a token of their sender's chain (forged)",
            "replay": "replayed", "kind": "of a kind their sender's role may not send",
            "size": "no frames at all"}


def changes(before, now):
    """What changed in the crowd between two status() -> lines in words: the station's
    (and healers') commands the air carried, each badge's etat and jeu, who a healer
    offered its soin to, what a badge was offered."""
    lines = []
    for c in now["commands"][len(before["commands"]):]:
        lines.append("on the air: %s from %s%s" % (c["kind"], c["from"],
                                                   " to %s" % c["to"] if "to" in c else ""))
    was = {b["name"]: b for b in before["badges"]}
    grouped = {}
    for b in now["badges"]:
        old = was.get(b["name"])
        if old is None:
            continue
        for key in ("jeu", "etat"):
            if b[key] != old[key]:
                grouped.setdefault((key, b[key]), []).append(b["name"])
        for target in b["offered"][len(old["offered"]):]:
            lines.append("%s offers %s to %s" % (
                b["name"], "soin" if b["role"] == "healer" else "repare",
                target or "nobody: no badge near enough answered"))
        for verb in b["offers"][len(old["offers"]):]:
            lines.append("%s is offered %s: '%s take' within 10 s takes it" % (
                b["name"], verb, b["name"]))
    dropped = collections.Counter()
    for b in now["badges"]:
        old = was.get(b["name"])
        if old is not None:
            for why, n in b["dropped"].items():
                if why != "again":   # a copy of a frame taken: as every command is sent
                    dropped[why] += n - old["dropped"].get(why, 0)
    said = ["%d %s" % (n, _DROPPED.get(why, why)) for why, n in sorted(dropped.items()) if n]
    if said:
        lines.append("dropped by the crowd's badges: %s" % ", ".join(said))
    for (key, value), names in sorted(grouped.items()):
        more = len(names) - _SHOWN
        lines.append("%s %s: %s%s" % (key, value, ", ".join(names[:_SHOWN]),
                                      " and %d more" % more if more > 0 else ""))
    return lines


def _json(hub, the_crowd):
    threading.Thread(target=_commands_from, args=(sys.stdin, the_crowd), daemon=True).start()
    while True:
        time.sleep(1)
        _say(the_crowd.status() if the_crowd is not None else
             {"members": hub.members(), "carried": hub.carried})
