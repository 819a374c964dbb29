# `cran status --port P`: the badge's live state, asked of its running firmware.
import json

from host_tools import badgelink
from host_tools.timeline import fmt_ms

HELP = "print a badge's live state (its console's `status`)"


def setup(p):
    p.add_argument("--port", required=True, help="the badge's serial port")
    p.add_argument("--json", action="store_true", help="the status line as the badge sent it")


def run(args):
    s = badgelink.status(args.port)
    if args.json:
        print(json.dumps(s, sort_keys=True))
        return 0
    if "error" in s:
        print("%s: the badge could not start: %s" % (args.port, s["error"]))
        return 1
    effects = ", ".join("%s %s" % (name, _left(ms)) for name, ms in sorted(s["effets"].items()))
    print("%s: %s on %s (badge %s), firmware %s, up %s" % (
        args.port, s.get("personnage") or "(no name)", s.get("board"),
        badgelink.badge_names(s.get("id"), s.get("badge")), s.get("firmware"),
        _left(s.get("uptime_ms"))))
    print("  etat      %s%s" % (s["etat"], "" if s.get("reste_ms") is None
                                 else " (%s left)" % _left(s["reste_ms"])))
    if s["etat"] == "inconnu":
        print("  the badge lost its saved state: an organiser sets it with `reset`")
    else:
        print("  armure    %d%s" % (s["armure"], " (abimee)" if s.get("armure_abimee") else ""))
    print("  effets    %s" % (effects or "-"))
    print("  jeu       %s%s" % (s.get("jeu"), ", in combat" if s.get("combat") else ""))
    if s.get("save_error"):
        # Its state is not on its flash: after a power cut it would come back older.
        print("  NOT SAVED the last save failed: %s" % s["save_error"])
        return 1
    return 0


def _left(ms):
    if ms is None:
        return "-"
    if ms is True or ms is False:
        return str(ms)
    return fmt_ms(int(ms))
