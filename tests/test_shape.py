# The shape of the code, held: a command of `cran` is its arguments and its run, what it
# shares is in modules of their own, so no command module imports another (docs/
# ARCHITECTURE.md). Imports inside functions count: they are imports all the same.
import ast
import os

from conftest import REPO
from host_tools.cli import COMMANDS


def _module_file(name):
    path = os.path.join(REPO, *name.split("."))
    return path + ".py" if os.path.exists(path + ".py") else os.path.join(path, "__init__.py")


def imported(path, name):
    """Every module path imports, anywhere in it (functions included), as dotted names:
    `from a import b` counts as a and a.b (b may be a module)."""
    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read())
    found = set()
    package = name.rsplit(".", 1)[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                base = parent + ("." + base if base else "")
            found.add(base)
            found.update(base + "." + alias.name for alias in node.names)
    return found


def test_no_command_module_imports_another():
    commands = {module for _, module in COMMANDS}
    crossing = {}
    for module in sorted(commands):
        others = imported(_module_file(module), module) & (commands - {module})
        if others:
            crossing[module] = sorted(others)
    assert crossing == {}
