# `cran console --port P [LINE ...]`: an organiser types to a running badge. Its serial
# console takes the scenario format's actions (coup, soin complet, reset...), but only
# once unlocked with the game key (cran.lock): each line here is sent unlocked, with this
# computer's key ring or the game's settings, and the badge locked again after it.
import sys

from cran.core.words import ParseError, parse_action
from gamefiles.scenario import grammar_word
from host_tools.device import badgeport
from host_tools.game.roster import settings_keys
from host_tools.game.suggest import did_you_mean

HELP = "type lines to a running badge's console, unlocked with the game key"

# What anyone may ask (the badge answers them locked): sent without an unlock.
_READ_ONLY = ("status", "journal", "help", "?", "echo")
# The console's other commands (cran.console); any other line is an action.
_WORDS = _READ_ONLY + ("config", "clock", "reboot", "challenge", "unlock", "lock")


def setup(p):
    p.add_argument("--port", required=True, metavar="PORT", help="the badge's serial port")
    p.add_argument("--settings", metavar="GAME.json",
                   help="the game's settings, whose \"game_key\" unlocks the badge "
                        "(default: the keys this computer flashed badges with)")
    p.add_argument("line", nargs="*", metavar="LINE",
                   help="a console line, e.g. 'coup blesse' (quote it); none: read lines "
                        "as they are typed, until Ctrl-D")


def run(args):
    keys = settings_keys(args.settings)
    if args.line:
        return _send(args.port, args.line, keys)
    if not sys.stdin.isatty():   # lines from a file or a pipe: no prompt
        return _send(args.port, [line for line in sys.stdin.read().splitlines()
                                 if line.strip()], keys)
    try:
        import readline  # noqa: F401  (input() then edits the line and keeps a history)
    except ImportError:   # Windows
        pass
    print("%s: a line a time (coup, soin, status, journal, help...); Ctrl-D ends"
          % args.port, file=sys.stderr)
    failed = 0
    while True:
        try:
            line = input("%s> " % args.port)
        except EOFError:
            print(file=sys.stderr)
            return failed
        if line.strip():
            failed |= _send(args.port, [line], keys)


def _send(port, lines, keys):
    """Each line to the badge, its answer printed. -> 1 when one was an error, else 0."""
    failed = 0
    for line in lines:
        word = line.split(None, 1)[0].lower() if line.strip() else ""
        if word not in _WORDS:
            # An action is read here first, as the badge reads it: a misspelt one is
            # offered the word meant (the badge's answer has no room for it), unsent.
            try:
                parse_action(line)
            except ParseError as e:
                print("error: %s%s" % (e, did_you_mean(grammar_word(e))))
                failed = 1
                continue
        answer = badgeport.ask(port, line, keys=None if word in _READ_ONLY else keys)
        for text in answer:
            print(text)
            failed |= text.startswith("error")
    sys.stdout.flush()
    return int(failed)
