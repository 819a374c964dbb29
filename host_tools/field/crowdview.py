# `cran air`'s crowd said to a person (field/crowd.py holds the crowd): on a terminal,
# what changes in words a second at a time and the wearers' doings typed; with --json, a
# JSON line a second and the doings read from stdin. Both loops run until Ctrl-C.
import collections
import json
import signal
import sys
import threading
import time

from host_tools import CommandError

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


def watch(the_crowd):
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


def watch_json(hub, the_crowd):
    """With --json: a JSON line a second (the crowd's status, or the air's members and
    what it carried), and the wearers' doings read from stdin."""
    threading.Thread(target=_commands_from, args=(sys.stdin, the_crowd), daemon=True).start()
    while True:
        time.sleep(1)
        _say(the_crowd.status() if the_crowd is not None else
             {"members": hub.members(), "carried": hub.carried})
