# `cran air --field NAME`: a virtual field's air alone (host_tools/field/fieldnet.py's hub),
# for a field whose station is a badge on USB: a `cran vbadge --field NAME` flashed with
# `cran flash --station`, player vbadges beside it, and `cran field --port` on the
# station's port. (`cran field --virtual NAME` holds the air itself, its radio on it.)
# With --settings and --roster (or --crowd N), the air hosts a crowd of badges itself
# (host_tools/field/crowd.py, said by crowdview.py): a rehearsal's field of 50 on one
# laptop.
import os
import sys
import time

from host_tools import CommandError
from host_tools.field import crowdview, fieldnet
from host_tools.field.gamemaster import EXIT_BAD_INPUT, end_on_signals
from host_tools.game import gamekey
from host_tools.home import cran_home

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
            folder = os.path.join(cran_home(), "crowd", gamekey.key_id(key))
            the_crowd = crowd.Crowd(hub, key, gm_seed, members, folder,
                                    [name for name, _ in left])
            the_crowd.start()
        print("cran air: virtual field %r is on the air (cran vbadge --field %s joins it)%s;"
              " Ctrl-C ends it" % (args.field, args.field, _crowd_said(members, left)),
              file=sys.stderr, flush=True)
        if args.json:
            crowdview.watch_json(hub, the_crowd)
        elif the_crowd is not None:
            crowdview.watch(the_crowd)
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
