# `cran air --field NAME`: a virtual field's air alone (host_tools/fieldnet.py's hub),
# for a field whose station is a badge on USB: a `cran vbadge --field NAME` flashed with
# `cran flash --station`, player vbadges beside it, and `cran field --port` on the
# station's port. (`cran field --virtual NAME` holds the air itself, its radio on it.)
import sys
import time

from host_tools import CommandError, fieldnet
from host_tools.field_cmd import EXIT_BAD_INPUT, end_on_signals

HELP = "a virtual field's air alone, for virtual badges and a virtual station badge"


def setup(p):
    p.add_argument("--field", metavar="NAME", required=True,
                   help="the field's name: `cran vbadge --field NAME` joins it")
    p.add_argument("--loss", type=float, default=0.0,
                   help="the frames it loses, 0 to 1 (default 0)")


def run(args):
    if not 0 <= args.loss < 1:
        raise CommandError("--loss: from 0 to 1 (excluded), got %s" % args.loss,
                           EXIT_BAD_INPUT)
    end_on_signals()
    hub = fieldnet.Hub(args.field, args.loss)
    print("cran air: virtual field %r is on the air (cran vbadge --field %s joins it); "
          "Ctrl-C ends it" % (args.field, args.field), file=sys.stderr, flush=True)
    try:
        while True:
            time.sleep(1)
    except KeyboardInterrupt:
        pass
    finally:
        hub.close()
    return 0
