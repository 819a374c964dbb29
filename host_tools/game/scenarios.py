# A scenario file read and played: parsed (every fault named, nothing run), replayed on
# a runtime by the bare engine or a whole badge app, every expect checked, its timeline
# or JSON trace printed. `cran scenario` runs it; `cran sim` plays its script with it.
import json
import sys

from cran.core.view import FIELDS
from cran.core.vocab import CUE_SAY
from gamefiles import scenario
from host_tools import CommandError
from host_tools.game.suggest import did_you_mean
from host_tools.game.times import elapsed
from host_tools.virtual.runtimes import OutOfMemory, RuntimeFailure, run_on_badge, run_scenario

EXIT_OK, EXIT_EXPECT_FAILED, EXIT_MALFORMED = 0, 1, 2


def load(path):
    """Read and parse a scenario file -> (text, Scenario); malformed -> CommandError."""
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except FileNotFoundError:
        raise CommandError("%s: no such file" % path, EXIT_MALFORMED) from None
    except (OSError, UnicodeDecodeError) as e:
        raise CommandError("%s: cannot read: %s" % (path, e), EXIT_MALFORMED) from None
    try:
        return text, scenario.parse(text)
    except scenario.ScenarioError as e:
        raise CommandError(faults_text(path, e), EXIT_MALFORMED, prefixed=False) from None


# A file that is not a scenario at all has a fault on every line: the first ones say it.
MOST_FAULTS_SHOWN = 30


def faults_text(path, error):
    """Every fault of a malformed scenario (ScenarioError.faults), one `FILE:LINE: what is
    wrong` a line, with the nearest known word for a misspelt one."""
    lines = ["%s:%d: %s%s" % (path, f.line, f.message, did_you_mean(f))
             for f in error.faults[:MOST_FAULTS_SHOWN]]
    more = len(error.faults) - MOST_FAULTS_SHOWN
    if more > 0:
        lines.append("%s: %d more fault%s" % (path, more, "" if more == 1 else "s"))
    return "\n".join(lines)


def events_as_records(events, parsed):
    """Engine events -> ordered dicts: the --json lines, and what the checks read."""
    expects = dict((line, fields) for line, _, kind, fields in parsed.steps
                   if kind == "expect")
    records = []
    for event in events:
        kind = event[0]
        if kind == "timer":
            record = {"event": "timer", "t": elapsed(event[1]), "ms": event[1]}
            cues, seen = event[2], event[3]
        elif kind == "act":
            record = {"event": "action", "t": elapsed(event[2]), "ms": event[2],
                      "line": event[1], "action": event[3]}
            cues, seen = event[4], event[5]
        else:
            record = {"event": "expect", "t": elapsed(event[2]), "ms": event[2],
                      "line": event[1]}
            cues, seen = None, event[3]
        state = dict(zip(FIELDS, seen))
        if cues is not None:
            record["cues"] = [{"kind": k, "value": v, "private": p} for k, v, p in cues]
        if kind == "expect":
            wanted = expects[event[1]]
            record["expect"] = " ".join(w for _, _, w in wanted)
            failed = scenario.check(wanted, state)
            record["ok"] = not failed
            record["failed"] = ["expected %s, got %s" % f for f in failed]
        record["state"] = state
        records.append(record)
    return records


def run_file(path, runtime, as_json, start_tick, verbose=False, badge=None, reboot_every=0,
             mpy=False, heap_kb=None, romfs=False):
    """badge: a Board (checked) to run the whole badge app on virtual hardware instead of the
    bare engine; reboot_every N: restart it from flash after every N steps; mpy: its
    firmware as .mpy, as cran flash makes it; romfs: those .mpy in a ROMFS image, run in
    place; heap_kb: the badge's own heap (MicroPython)."""
    text, parsed = load(path)
    if badge is not None:
        if badge.runtime == "circuitpython":
            # What its config would refuse (the badge could not start), said here.
            from cran.core.rules import Settings
            from cran.hal_cp.durations import check
            try:
                check(parsed.character, Settings())
            except ValueError as e:   # "FIELD: PROBLEM"
                raise CommandError("%s: %s" % (path, e)) from None
    try:
        if badge is None:
            events = run_scenario(text, runtime, start_tick)
        else:
            def told(runner):
                print(runner.describe(heap_kb), file=sys.stderr)
            result = run_on_badge([(badge.id, text)], runtime, start_tick, reboot_every,
                                  mpy=mpy, heap_kb=heap_kb, romfs=romfs, on_heap=told)[0]
            if isinstance(result, OutOfMemory):
                raise RuntimeFailure(result)
            if isinstance(result, str):
                raise RuntimeFailure("the badge failed: " + result)
            events = result
            runtime = "%s, badge %s" % (runtime, badge.id)
    except RuntimeFailure as e:
        raise CommandError(str(e), 3) from None
    records = events_as_records(events, parsed)
    failures = 0
    checked = 0
    previous = None
    for record in records:
        if as_json:
            print(json.dumps(record, ensure_ascii=False))
        else:
            print(timeline_line(record, previous, verbose))
        if record["event"] == "expect":
            checked += 1
            for message in record["failed"]:
                print("%s:%d: %s" % (path, record["line"], message), file=sys.stderr)
            failures += not record["ok"]
        else:
            previous = record["state"]
    if not as_json:
        print("%s: %d expect line%s, %d held, %d failed (%s)" % (
            path, checked, "" if checked == 1 else "s", checked - failures, failures,
            runtime))
    sys.stdout.flush()
    return EXIT_EXPECT_FAILED if failures else EXIT_OK


def timeline_line(record, previous, verbose):
    """One readable line: when, what happened, what changed."""
    when = record["t"].rjust(8)
    state = record["state"]
    if record["event"] == "expect":
        mark = "ok" if record["ok"] else "FAILED: " + "; ".join(record["failed"])
        return "%s  %-22s %s" % (when, "expect " + record["expect"], mark)
    what = record["action"] if record["event"] == "action" else "(time passes)"
    changed = ["%s=%s" % (f, state[f]) for f in FIELDS
               if previous is None or previous[f] != state[f]]
    said = [c["value"] for c in record["cues"] if c["kind"] == CUE_SAY]
    tell = ("  say «%s»" % said[0].capitalize()) if said else ""
    cues = ""
    if verbose:
        cues = "  [" + ", ".join("%s %s%s" % (c["kind"], c["value"],
                                              " (private)" if c["private"] else "")
                                 for c in record["cues"]) + "]"
    return "%s  %-22s %s%s%s" % (when, what, " ".join(changed) or "-", tell, cues)
