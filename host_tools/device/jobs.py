# Which badge `cran flash` gives what: its ports (given, --all, a roster's), and for each
# the board and config it gets, from --board/--config or a roster's row matched by port,
# by chip id or by the badge name its config has; a new badge from the box waits for a
# free row (flash.NewBadge, given.NamedRows: what this computer gave out in the game).
import json
import os
import threading

from host_tools import CommandError
from host_tools.boards import read_board
from host_tools.device import badgeport, flash
from host_tools.game.given import NamedRows


def ports(given, every=False, roster_ports=()):
    """The badges' ports: those given (--port), else the roster's; with every (--all),
    every USB serial port and every cran vbadge running here too. A badge reached by
    two names (a by-id link) once."""
    ports = list(given)
    if roster_ports and not ports and not every:
        ports = list(roster_ports)
    if every:
        ports += badgeport.every_port()
        if not ports:
            raise badgeport.BadgeError(badgeport.NONE_FOUND)
    if not ports:
        raise CommandError("which badge? give --port PORT (repeat it) or --all")
    # One badge, one job: /dev/serial/by-id/... and --all's /dev/ttyUSB0 may be the same.
    devices = {}
    for port in ports:
        devices.setdefault(os.path.realpath(port), port)
    return list(devices.values())


def config(path=None, board=None):
    """--config FILE, --board ID -> (Board, config text or None), the board read and
    checked here, once, before any port opens; (None, None): the board the badge's own
    config names, found at connect (board_of_its_config)."""
    if not path:
        if not board:
            return None, None
        return read_board(board), None
    from host_tools.game.roster import RosterError, check_config
    try:
        its_board = check_config(path).board.id   # the badge's own checks
    except RosterError as e:
        raise CommandError("\n".join(e.messages), prefixed=False) from None
    if board and board != its_board:
        raise CommandError("%s: board is %r but --board says %r" % (path, its_board, board))
    with open(path, encoding="utf-8-sig") as f:
        return read_board(its_board), f.read()


def board_of_its_config(chip_id, name, board, station=False):
    """A badge flashed with neither --board nor --config: the board its config names
    (None: it is the game master's station, and stays one)."""
    if station:
        return None, None
    if not board:
        raise CommandError("badge %s has no config yet: which board is it? give --board ID "
                           "or a --config" % badgeport.badge_names(chip_id, name))
    return read_board(board), None


def jobs(given, every=False, roster=None, settings=None, defaults=False, as_badge=None,
         config_path=None, board=None):
    """`cran flash`'s --port (given), --all (every), --roster, --settings, --defaults,
    --as, --config, --board -> ({port: (Board, config text or None) or None: found
    at connect}, find(chip_id, name, board=None, station=False) -> that pair or None,
    the NamedRows or None)."""
    if not roster:
        if as_badge is not None:
            raise CommandError("--as %s: names a row of a roster: give --roster" % as_badge)
        board, text = config(config_path, board)
        if board is None:   # every badge keeps the board its config names
            return {port: None for port in ports(given, every)}, board_of_its_config, None
        return {port: (board, text) for port in ports(given, every)}, None, None
    if config_path or board:
        raise CommandError("--roster gives each badge its board and config: no --config "
                           "or --board with it")
    from host_tools.game.roster import RosterError, badge_configs
    try:
        rows = badge_configs(roster, settings, defaults=defaults)
    except RosterError as e:
        raise CommandError("\n".join(e.messages), prefixed=False) from None
    defaulted = next(iter(rows.values()))[0]["defaulted"]
    if defaulted:
        print("%s: %s" % (roster, defaulted))
    by_port, by_badge, named_rows = {}, {}, []
    boards = {}   # each board the rows name, read once
    for info, its_config in rows.values():
        if info["board"] not in boards:
            boards[info["board"]] = read_board(info["board"])
        job = (info["row"], boards[info["board"]], json.dumps(its_config, sort_keys=True))
        port = info["port"]
        if port in by_port:
            raise CommandError("%s:%d: port %s is row %d's too: one badge, one row"
                               % (roster, info["row"], port, by_port[port][0]))
        if port:
            by_port[port] = job
        if info["badge"]:
            by_badge[info["badge"].lower()] = job
            named_rows.append((info["row"], info["badge"], info["name"]))
    # A port no row names: its badge is found at connect, by its chip id or the badge
    # name its config already has (None here).
    found = ports(given, every, list(by_port))
    if as_badge is not None:
        if len(found) != 1:
            raise CommandError("--as %s: one badge at a time (one --port)" % as_badge)
        if as_badge.lower() not in by_badge:
            raise CommandError("--as %s: no row of %s has this badge name (its badge column)"
                               % (as_badge, roster))
        return ({found[0]: by_badge[as_badge.lower()][1:]}, None,
                NamedRows(roster, named_rows, by_badge, set()))
    todo = {port: by_port[port][1:] if port in by_port else None for port in found}
    lost = [port for port, job in todo.items() if job is None]
    if lost and not by_badge:
        raise CommandError("%s: no row of %s has this port (ports there: %s)"
                           % (lost[0], roster, ", ".join(sorted(by_port)) or "none"))
    seen = set()   # badge names the badges met carry: their rows are not free
    seen_lock = threading.Lock()
    rows = NamedRows(roster, named_rows, by_badge, seen)

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
        raise CommandError("badge %s is in no row of %s: %s"
                           % (badgeport.badge_names(chip_id, name), roster,
                              rows.renamed(name) or "give its row a port, or this id in "
                                                    "its badge column"))
    return todo, find, rows
