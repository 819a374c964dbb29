# The `cran` command: a table of subcommands, each a module with its own parser
# setup, and one CommandError that becomes an exit code (the shape of mpremote).
import argparse
import importlib
import sys

from host_tools import CommandError

# Each command is a module with HELP, setup(parser) and run(args) -> exit code.
COMMANDS = (
    ("scenario", "host_tools.commands.scenario"),
    ("sim", "host_tools.commands.sim"),
    ("vbadge", "host_tools.commands.vbadge"),
    ("vchip", "host_tools.commands.vchip"),
    ("config", "host_tools.commands.config"),
    ("logs", "host_tools.commands.logs"),
    ("card", "host_tools.commands.card"),
    ("web", "host_tools.commands.web"),
    ("flash", "host_tools.commands.flash"),
    ("status", "host_tools.commands.status"),
    ("check", "host_tools.commands.check"),
    ("console", "host_tools.commands.console"),
    ("field", "host_tools.commands.field"),
    ("air", "host_tools.commands.air"),
)


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="cran", description="Tools for the cran GN effect badge.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    given = sys.argv[1:] if argv is None else argv
    # The command named is the one module imported: `cran vchip`, an instance of
    # MicroPython's multitest harness, must be on its air as soon as a board would.
    named = given[0] if given and given[0] in dict(COMMANDS) else None
    for name, module_name in COMMANDS:
        if named is not None and name != named:
            sub.add_parser(name)
            continue
        module = importlib.import_module(module_name)
        p = sub.add_parser(name, help=module.HELP, description=module.HELP)
        module.setup(p)
        p.set_defaults(handler=module.run)
    if not given:
        parser.print_help()   # `cran` alone: what it can do, not an error about COMMAND
        return 2
    args = parser.parse_args(argv)
    try:
        return args.handler(args)
    except CommandError as e:
        print(("cran: %s" if e.prefixed else "%s") % e, file=sys.stderr)
        return e.code
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # The reader (e.g. `| head`) has gone: not an error of ours.
        sys.stderr.close()
        return 0
