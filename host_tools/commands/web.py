# `cran web`: the badge in a browser, as a static site (host_tools/web/site.py builds it).
import os

from host_tools.web.site import build_site, size_text

HELP = ("write a static site that runs the badge's real firmware in a browser, with its "
        "lessons: put it on any web host for the players")


def setup(p):
    p.add_argument("--out", metavar="DIR", required=True,
                   help="the folder to write the site in (made if missing; its files "
                        "replaced). Serve it as it is: python -m http.server -d DIR")


def run(args):
    sizes = build_site(args.out)
    print("cran: wrote %s: %d files, %s" % (os.path.join(args.out, ""), len(sizes),
                                            size_text(sizes)))
    print("try it: python -m http.server -d %s 8000, then http://localhost:8000/" % args.out)
    return 0
