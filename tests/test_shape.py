# The shape of the code, held: a command of `cran` is a module of host_tools/commands/
# named as it is typed, holding its arguments and its run; what it shares is in the
# packages by domain beside it, so no command module imports another, and no module of
# host_tools or firmware is part of an import cycle (docs/
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
    # Importing a.b.c runs a and a.b first (their __init__): each one imported too.
    for dotted in list(found):
        parts = dotted.split(".")
        found.update(".".join(parts[:i]) for i in range(1, len(parts)))
    return found


def test_each_command_is_the_module_of_commands_named_as_it_is_typed():
    table = {module: "host_tools.commands." + name for name, module in COMMANDS}
    assert [m for m, named in table.items() if m != named] == []
    folder = os.path.join(REPO, "host_tools", "commands")
    modules = {"host_tools.commands." + f[:-3] for f in os.listdir(folder)
               if f.endswith(".py") and f != "__init__.py"}
    assert modules == set(table)   # no module there that is not a command


def test_no_command_module_imports_another():
    commands = {module for _, module in COMMANDS}
    crossing = {}
    for module in sorted(commands):
        others = imported(_module_file(module), module) & (commands - {module})
        if others:
            crossing[module] = sorted(others)
    assert crossing == {}


def test_no_module_but_the_table_imports_a_command():
    commands = {module for _, module in COMMANDS}
    modules = _modules(os.path.join(REPO, "host_tools"), "host_tools")
    importing = {m: sorted(imported(p, m) & commands) for m, p in modules.items()
                 if m not in commands}
    assert {m: c for m, c in importing.items() if c} == {}


def _modules(folder, package):
    """{dotted name: path} of every module of the package in folder."""
    out = {}
    for where, _, files in os.walk(folder):
        if "__pycache__" in where:
            continue
        for f in files:
            if f.endswith(".py"):
                rel = os.path.relpath(os.path.join(where, f), folder)[:-3]
                name = ".".join([package] + rel.split(os.sep))
                out[name[:-len(".__init__")] if name.endswith(".__init__") else name] = \
                    os.path.join(where, f)
    return out


def cycles(modules):
    """The import cycles among modules ({name: path}): their strongly connected sets."""
    return cycles_of({m: sorted(imported(p, m) & set(modules) - {m})
                      for m, p in modules.items()})


def cycles_of(graph):
    """The strongly connected sets of more than one node of graph ({node: [nodes]})."""
    index, low, stack, on, found = {}, {}, [], set(), []

    def visit(v):   # Tarjan's
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                found.append(sorted(group))
    for v in graph:
        if v not in index:
            visit(v)
    return found


def test_no_host_tools_module_is_part_of_an_import_cycle():
    assert cycles(_modules(os.path.join(REPO, "host_tools"), "host_tools")) == []


def package_cycles(modules, depth):
    """The cycles among packages (a module's name cut to depth parts: host_tools.field):
    modules of two packages importing each other's, each way, are one."""
    def package(name):
        return ".".join(name.split(".")[:depth])
    grouped = {}
    for m, p in modules.items():
        grouped.setdefault(package(m), set()).update(
            package(w) for w in imported(p, m) & set(modules))
    graph = {pkg: sorted(used - {pkg}) for pkg, used in grouped.items()}
    return cycles_of(graph)


def test_no_host_tools_package_is_part_of_an_import_cycle():
    # host_tools.game and host_tools.field, say: one layer uses the other, not both.
    modules = _modules(os.path.join(REPO, "host_tools"), "host_tools")
    assert package_cycles(modules, 2) == []


def test_no_firmware_module_is_part_of_an_import_cycle():
    # The package's own __init__ counts: importing any of its modules runs it first.
    assert cycles(_modules(os.path.join(REPO, "firmware", "cran"), "cran")) == []


def test_no_firmware_package_is_part_of_an_import_cycle():
    # cran.start builds on the rest (it makes the app) and nothing imports it back: what a
    # rare path loads again after the start (cran.config, cran.records, cran.boots) is
    # outside it. A module of cran's top level counts as a package of its own.
    modules = _modules(os.path.join(REPO, "firmware", "cran"), "cran")
    assert package_cycles(modules, 2) == []


def test_the_package_cycle_finder_finds_one():
    # Two packages whose modules import each other's, no module cycle among them.
    import tempfile
    with tempfile.TemporaryDirectory() as d:
        for folder in ("a", "b"):
            os.mkdir(os.path.join(d, folder))
            open(os.path.join(d, folder, "__init__.py"), "w").close()
        with open(os.path.join(d, "a", "one.py"), "w") as f:
            f.write("from pkg.b import two\n")
        with open(os.path.join(d, "b", "three.py"), "w") as f:
            f.write("def later():\n    from pkg.a import four\n")
        modules = _modules(d, "pkg")
        assert cycles(modules) == []
        assert package_cycles(modules, 2) == [["pkg.a", "pkg.b"]]


def test_the_cycle_finder_finds_one():
    # Two modules importing each other, one of them inside a function.
    import tempfile
    with tempfile.TemporaryDirectory() as d:
        with open(os.path.join(d, "a.py"), "w") as f:
            f.write("from pkg import b\n")
        with open(os.path.join(d, "b.py"), "w") as f:
            f.write("def later():\n    from pkg.a import x\n")
        assert cycles(_modules(d, "pkg")) == [["pkg.a", "pkg.b"]]


def test_the_app_declares_every_field_its_constructor_sets_and_no_other():
    # App owns its fields: its constructor sets every one it declares (typed, for mypy
    # and a reader), and the start that builds it sets none of them from outside.
    def read(name):
        with open(os.path.join(REPO, "firmware", "cran", name), encoding="utf-8") as f:
            return ast.parse(f.read())

    def set_on(function, name):
        return {t.attr for n in ast.walk(function) if isinstance(n, ast.Assign)
                for target in n.targets for t in ast.walk(target)
                if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name)
                and t.value.id == name}
    [app_class] = [n for n in read("app.py").body
                   if isinstance(n, ast.ClassDef) and n.name == "App"]
    declared = {n.target.id for n in app_class.body if isinstance(n, ast.AnnAssign)}
    [init] = [n for n in app_class.body
              if isinstance(n, ast.FunctionDef) and n.name == "__init__"]
    assert set_on(init, "self") == declared
    start = [n for n in ast.walk(read("start/parts.py")) if isinstance(n, ast.FunctionDef)]
    assert [f.name for f in start if set_on(f, "app")] == []


def test_the_firmware_imports_nothing_of_the_host():
    # firmware/ is what goes on a badge: a module of it that imported the host's (the
    # host tool, or gamefiles' scenario runner and board file check, never copied to a
    # badge) would fail there at its import, in a player's game.
    firmware = _modules(os.path.join(REPO, "firmware", "cran"), "cran")
    reaching = {m: sorted(n for n in imported(p, m)
                          if n.split(".")[0] in ("host_tools", "gamefiles"))
                for m, p in firmware.items()}
    assert {m: names for m, names in reaching.items() if names} == {}


def test_a_command_module_defines_only_its_help_arguments_and_run():
    # What cli.py asks of a command is HELP, setup(parser) and run(args); anything else
    # it defines is its run's own (a name with a leading underscore). A function or a
    # constant another module would want belongs in a package by domain, where it can be
    # shared and tested without the command's parsed arguments.
    public = {}
    for _, module in COMMANDS:
        with open(_module_file(module), encoding="utf-8") as f:
            tree = ast.parse(f.read())
        names = set()
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names.add(node.name)
            elif isinstance(node, (ast.Assign, ast.AnnAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                names.update(t.id for target in targets for t in ast.walk(target)
                             if isinstance(t, ast.Name))
        extra = sorted(n for n in names - {"HELP", "setup", "run"} if not n.startswith("_"))
        if extra:
            public[module] = extra
        assert {"HELP", "setup", "run"} <= names, module
    assert public == {}


def private_uses(folder):
    """["path:line name.attr"] of every private attribute (a leading "_", not a dunder)
    reached through anything but self or cls: another object's field or method."""
    found = []
    for where, _, files in os.walk(folder):
        for f in sorted(files):
            if not f.endswith(".py"):
                continue
            path = os.path.join(where, f)
            with open(path, encoding="utf-8") as src:
                tree = ast.parse(src.read())
            for node in ast.walk(tree):
                if (isinstance(node, ast.Attribute) and node.attr.startswith("_")
                        and not node.attr.startswith("__")
                        and not (isinstance(node.value, ast.Name)
                                 and node.value.id in ("self", "cls"))):
                    found.append("%s:%d %s.%s" % (os.path.relpath(path, REPO), node.lineno,
                                                  ast.unparse(node.value), node.attr))
    return sorted(found)


def test_no_firmware_module_reaches_into_another_objects_private_parts():
    # What one object needs of another is a public field or verb of it: a reader (or
    # mypy) follows it, and the owner may change its private ones freely.
    assert private_uses(os.path.join(REPO, "firmware")) == []


def test_the_private_use_finder_finds_one():
    import tempfile
    with tempfile.TemporaryDirectory() as d:
        with open(os.path.join(d, "a.py"), "w") as f:
            f.write("class A:\n    def f(self, b):\n        self._mine = b._theirs\n")
        assert [u.split(" ", 1)[1] for u in private_uses(d)] == ["b._theirs"]


def board_checker_callers(folder):
    """The modules of folder (relative to REPO) that call gamefiles.board's checker
    (read_board_file, load_board) themselves."""
    found = []
    for where, _, files in os.walk(os.path.join(REPO, folder)):
        for f in sorted(files):
            if f.endswith(".py"):
                path = os.path.join(where, f)
                with open(path, encoding="utf-8") as src:
                    tree = ast.parse(src.read())
                if any(isinstance(node, ast.Call) and ast.unparse(node.func).split(".")[-1]
                       in ("read_board_file", "load_board") for node in ast.walk(tree)):
                    found.append(os.path.relpath(path, REPO))
    return sorted(found)


def test_a_board_is_read_and_checked_in_the_registry_alone():
    # host_tools/boards.py reads and checks a board, and the commands pass the Board it
    # gives on: a second reader is where a board came to be read twice per command.
    assert board_checker_callers("host_tools") == [os.path.join("host_tools", "boards.py")]


def bare_name_modules(folders, built_in=()):
    """{name: path} of the modules an interpreter finds under bare names (`import machine`)
    with folders first on its path, searched in order: the first file of a name wins, and
    a name in built_in is the interpreter's own module (no file on its path shadows it)."""
    found = {}
    for folder in folders:
        for f in sorted(os.listdir(folder)):
            if f.endswith(".py") and f != "__init__.py" and f[:-3] not in built_in:
                found.setdefault(f[:-3], os.path.join(folder, f))
    return found


def test_no_virtual_hardware_module_is_part_of_an_import_cycle():
    # host_tools/virtual/micropython/ and circuitpython/ run inside MicroPython and
    # CircuitPython under bare names, their folders first on the interpreter's path:
    # micropython/machine.py's `import esp32` is no module of host_tools to the test above.
    # Each path as its runtime searches it: MicroPython's, where a file shadows the port's
    # own time and select; CPython's, whose built-in modules (its time) win; cran vbadge's
    # and vchip's, micropython/ alone, the port's time loaded before it
    # (host_tools/virtual/scripts/vbadge_boot.py); CircuitPython's, circuitpython/.
    import sys

    from host_tools.virtual.circuitpython import VCP_DIR
    from host_tools.virtual.micropython import VHW_DIR, sys_path
    paths = {"micropython": (sys_path("micropython"), ()),
             "cpython": (sys_path("cpython"), sys.builtin_module_names),
             "vbadge, vchip": ([VHW_DIR], ("time",)),
             "circuitpython": ([VCP_DIR], ())}
    found = {runtime: cycles(bare_name_modules(folders, built_in))
             for runtime, (folders, built_in) in paths.items()}
    assert found == {runtime: [] for runtime in paths}


def test_the_cycle_finder_finds_one_among_bare_names():
    # Two folders on one path: machine imports esp32 inside a function, esp32 imports
    # machine; time and vclock import each other, unless time is the interpreter's own.
    import tempfile
    with tempfile.TemporaryDirectory() as d:
        folders = [os.path.join(d, "one"), os.path.join(d, "two")]
        for folder in folders:
            os.mkdir(folder)
        for folder, name, text in ((0, "machine", "def wake():\n    import esp32\n"),
                                   (1, "esp32", "import machine\n"),
                                   (1, "machine", "x = 1\n"),   # shadowed by one/'s
                                   (0, "time", "from vclock import ticks_ms\n"),
                                   (1, "vclock", "def patch():\n    import time\n")):
            with open(os.path.join(folders[folder], name + ".py"), "w") as f:
                f.write(text)
        assert sorted(cycles(bare_name_modules(folders))) == [["esp32", "machine"],
                                                               ["time", "vclock"]]
        assert cycles(bare_name_modules(folders, ("time",))) == [["esp32", "machine"]]


def test_no_bench_module_is_part_of_an_import_cycle():
    # bench/'s scripts import one another under bare names (`import report`), each run
    # with its folder on the path: the sections measured apart (chip, web) write through
    # host_tools.device.bench_figures, and the report reads their sections, not back.
    assert cycles(bare_name_modules([os.path.join(REPO, "bench")])) == []


def test_the_virtual_badge_is_one_package_whose_folders_say_where_each_part_runs():
    # The virtual badge is host_tools/virtual alone: its own modules run in CPython (the
    # host), micropython/ and circuitpython/ inside those interpreters under bare names,
    # scripts/ is what an interpreter is started on. Every folder the host puts on an
    # interpreter's path for it is one of these; the folders it was spread over (vhw,
    # vcp, mp) are gone; and no module of host_tools outside it runs on its parts (imports
    # one under its bare name) but the browser page's own, host_tools/web/mp, which runs
    # over them in the page as `cran sim` does in a terminal (sim and web are its users).
    import sys

    from host_tools.virtual import SCRIPTS_DIR
    from host_tools.virtual.circuitpython import VCP_DIR
    from host_tools.virtual.micropython import VHW_DIR, sys_path
    host_tools = os.path.join(REPO, "host_tools")
    package = os.path.join(host_tools, "virtual")
    folders = sys_path("micropython") + sys_path("cpython") + [VHW_DIR, VCP_DIR, SCRIPTS_DIR]
    where = {os.path.relpath(f, package).replace(os.sep, "/") for f in folders}
    assert where == {"micropython", "micropython/mponly", "micropython/cpython",
                     "circuitpython", "scripts"}
    inside = {os.path.relpath(f, package).replace(os.sep, "/")
              for f, _, files in os.walk(package)
              if "__pycache__" not in f and any(n.endswith(".py") for n in files)}
    assert inside == where | {"."}   # a new folder says where it runs, as these do
    assert [n for n in ("vhw", "vcp", "mp") if os.path.exists(os.path.join(host_tools, n))] == []
    parts = set(bare_name_modules(folders[:-1])) - set(sys.stdlib_module_names)
    assert {"machine", "esp32", "vclock", "board", "microcontroller"} <= parts
    on_parts = {os.path.relpath(os.path.dirname(path), REPO).replace(os.sep, "/")
                for name, path in _modules(host_tools, "host_tools").items()
                if not name.startswith("host_tools.virtual.") and imported(path, name) & parts}
    assert on_parts == {"host_tools/web/mp"}
