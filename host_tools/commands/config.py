# `cran config`: the roster -> one checked config.json per badge (host_tools.game.roster reads
# it); a new game's settings file; one badge's config.json checked as the badge reads it.
import json
import os
import sys

from cran.lock import key_id
from host_tools import CommandError
from host_tools.game import gamekey
from host_tools.game.roster import (
    EXIT_BAD_INPUT,
    ORGA_CODE,
    RosterError,
    badge_configs,
    check_config,
    describe,
    read_game_key,
    settings_template,
)

HELP = "roster (CSV) and game settings -> one checked config.json per badge"


def setup(p):
    p.add_argument("roster", nargs="?", metavar="ROSTER.csv",
                   help="one character a row: name, armor, helmet, creature, resist, "
                        "agonisant, coma, board, port or badge (examples/roster.csv)")
    p.add_argument("--settings", metavar="GAME.json",
                   help="the game's settings, the [choice]s of docs/rules.md "
                        "(examples/game-settings.json; default: the defaults)")
    p.add_argument("--out", metavar="DIR", default="badges",
                   help="where the <badge>.json files go (default: ./badges)")
    p.add_argument("--check", metavar="CONFIG.json",
                   help="check one badge's config.json as the badge would read it")
    p.add_argument("--settings-template", nargs="?", const="-", metavar="GAME.json",
                   help="a new game's settings, every setting at its default and a fresh "
                        "game key: written to GAME.json, never over a file that exists "
                        "(a game's key would be lost with it); alone, printed")
    p.add_argument("--defaults", action="store_true",
                   help="a roster without an armor column is meant: every character "
                        "plays unarmoured")
    p.add_argument("--replace", action="store_true",
                   help="--out holds another game's configs and key: make it this game's "
                        "(the other game's key and configs there go)")


def _write(directory, name, data):
    path = os.path.join(directory, name)
    temp = path + ".tmp"
    with open(temp, "w", encoding="utf-8") as f:
        f.write(json.dumps(data, indent=2, ensure_ascii=False) + "\n")
    os.replace(temp, path)
    return path


def _new_settings(path):
    """--settings-template: a fresh game's settings, printed ("-") or written to path,
    which must not exist: over a game's file, its key (the one its badges answer to),
    Orga code and radio secret would be gone."""
    text = json.dumps(settings_template(), indent=2, ensure_ascii=False) + "\n"
    if path == "-":
        sys.stdout.write(text)
        return 0
    try:
        with open(path, "x", encoding="utf-8") as f:
            f.write(text)
    except FileExistsError:
        try:
            key = read_game_key(path)
        except RosterError:
            key = None
        if key is not None:
            raise CommandError("%s already holds a game's settings, with game key id %s: "
                               "the badges flashed with it answer to that key alone. Kept "
                               "as it is: give the new game another file name"
                               % (path, key_id(key)), EXIT_BAD_INPUT) from None
        raise CommandError("%s: already exists, kept as it is: give the new game's settings "
                           "another file name (or remove that one first)" % path,
                           EXIT_BAD_INPUT) from None
    except OSError as e:
        raise CommandError("%s: cannot write: %s" % (path, e.strerror), EXIT_BAD_INPUT) \
            from None
    made = json.loads(text)
    print("%s: a new game's settings, with a fresh game key (its id %s; the key itself "
          "stays in the file) and the Orga page's code %s (S a short press, L a long one): "
          "keep the file to the organisers (cran config ROSTER --settings %s --out FOLDER)"
          % (path, key_id(read_game_key(path)), made[ORGA_CODE], path))
    return 0


def run(args):
    from cran.core.choices import as_dict
    modes = [m for m in (args.roster, args.check, args.settings_template) if m]
    if len(modes) != 1:
        raise CommandError("give one of: ROSTER.csv, --check CONFIG.json, "
                           "--settings-template", EXIT_BAD_INPUT)
    if args.settings_template:
        return _new_settings(args.settings_template)
    try:
        if args.check:
            config = check_config(args.check)
            print("%s: ok: %s on %s, %s" % (args.check, config.character.name or "(no name)",
                                            config.board.id,
                                            describe(as_dict(config.character))))
            return 0
        configs = badge_configs(args.roster, args.settings, defaults=args.defaults)
    except RosterError as e:
        for message in e.messages:
            print(message, file=sys.stderr)
        print("cran: nothing written" if args.roster else "cran: not a valid badge config",
              file=sys.stderr)
        return EXIT_BAD_INPUT
    try:
        key = read_game_key(args.settings) if args.settings else None
    except RosterError as e:
        for message in e.messages:
            print(message, file=sys.stderr)
        print("cran: nothing written", file=sys.stderr)
        return EXIT_BAD_INPUT
    others = _other_game(args.out, key, [info["file"] for info, _ in configs.values()],
                         args.settings, args.replace)
    try:
        os.makedirs(args.out, exist_ok=True)
        for name in others:   # --replace: the other game's, gone first
            os.remove(os.path.join(args.out, name))
        if others:
            print("%s: the other game's %s removed (--replace)" % (
                args.out, ", ".join(others)))
        if key is not None:   # beside the configs: cran flash --config finds it there
            gamekey.write_key_file(os.path.join(args.out, gamekey.KEY_FILE), key)
        for info, config in configs.values():
            path = _write(args.out, info["file"], config)
            role = config.get("radio", {}).get("role", "badge")
            print("%-24s row %-3d %-26s %-16s %s%s" % (
                path, info["row"], info["name"], info["board"],
                describe(config["character"]), "" if role == "badge" else ", " + role))
    except OSError as e:
        raise CommandError("%s: cannot write: %s" % (args.out, e), EXIT_BAD_INPUT) from None
    defaulted = next(iter(configs.values()))[0]["defaulted"]
    if defaulted:
        print("%s: %s" % (args.roster, defaulted))
    print("%d badge config%s in %s (settings: %s)" % (
        len(configs), "" if len(configs) == 1 else "s", args.out,
        args.settings or "the defaults"))
    if key is not None:
        print("game key (id %s) in %s: cran flash --config installs it; keep it, and %s, "
              "to the organisers" % (key_id(key), os.path.join(args.out, gamekey.KEY_FILE),
                                     args.settings))
    return 0


def _other_game(folder, key, writing, settings, replace):
    """A folder of one game's configs takes no other game's: the key beside them is
    what `cran flash --config` installs with each (a player would get one game's
    character and the other's key). folder holds another game's key (or a key, where
    these configs have none): CommandError, exit 2, nothing written, unless replace.
    -> what replace removes: that key, and the configs there this run does not write
    again (as cran config writes them: a "board" and a "character")."""
    there = os.path.join(folder, gamekey.KEY_FILE)
    if not os.path.exists(there):
        return []
    try:
        old = gamekey.read_key_file(there)
    except (OSError, CommandError):
        old = None   # not a key: another game's leftover all the same
    if old is not None and key is not None and old == key:
        return []
    if not replace:
        theirs = "game key id %s" % key_id(old) if old is not None else "a game.key"
        ours = ("game key id %s (%s)" % (key_id(key), settings) if key is not None else
                "no game key (no --settings with a \"game_key\")")
        raise CommandError(
            "%s holds another game's configs (%s, in %s); these are of %s. Written there, "
            "they would mix two games: a badge flashed from it could get one game's "
            "character and the other's key. Nothing written: give another folder (--out "
            "FOLDER), or --replace to make %s this game's (the other game's key and "
            "configs there go)" % (folder, theirs, there, ours, folder), EXIT_BAD_INPUT)
    gone = [] if key is not None else [gamekey.KEY_FILE]   # a key of ours replaces it
    for name in sorted(os.listdir(folder)):
        if name.endswith(".json") and name not in writing and _is_config(
                os.path.join(folder, name)):
            gone.append(name)
    return gone


def _is_config(path):
    try:
        with open(path, encoding="utf-8-sig") as f:
            data = json.load(f)
    except (OSError, ValueError, RecursionError):
        return False
    return isinstance(data, dict) and "board" in data and "character" in data
