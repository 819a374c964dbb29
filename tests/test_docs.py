# The docs tell the truth. docs/rules.md's table of scenarios: every rule the engine tracks has a
# scenario, and each scenario named there says on its first line that it covers that
# rule. docs/rules.md: every rule ID cited anywhere (firmware, scenarios) is one of its
# rules, every setting has its rule, every test it names exists; and its rules are those
# of the game's shared catalogue (RULES.md), when that sits beside the repository.
import ast
import functools
import io
import os
import re
import tokenize

import pytest

from conftest import REPO, SCENARIO_DIR, scenario_files
from cran.core.choices import FIELDS, as_dict
from cran.core.rules import Character

RULES_DOC = os.path.join(REPO, "docs", "rules.md")
SCENARIOS_DOC = os.path.join(REPO, "docs", "scenarios.md")
SHARED_RULES = os.path.join(os.path.dirname(REPO), "shared", "RULES.md")
RULE_ID = re.compile(r"\b[SAKCP]\d+\b")

TRACKED = (["S%d" % i for i in range(1, 11)] + ["A%d" % i for i in range(1, 7)]
           + ["K%d" % i for i in range(1, 17)] + ["C1", "C2", "P1", "P2", "P3"])


def _header_ids(path):
    first = open(path, encoding="utf-8").readline()
    m = re.match(r"#\s*Rules:\s*(.*)", first)
    assert m, "%s: first line must be '# Rules: ID ...'" % os.path.basename(path)
    return set(m.group(1).replace(",", " ").split())


def _readme_table():
    """docs/rules.md's table of each rule's scenarios."""
    text = open(RULES_DOC, encoding="utf-8").read()
    rows = re.findall(r"^\| ([SAKCP]\d+) \| (.+?) \|$", text, re.M)
    return dict((rule, re.findall(r"`([\w.-]+\.txt)`", files)) for rule, files in rows)


def test_every_scenario_names_its_rules():
    valid = re.compile(r"^[SAKCP]\d+$")
    for path in scenario_files():
        ids = _header_ids(path)
        assert ids and all(valid.match(i) for i in ids), path


def test_every_tracked_rule_has_a_scenario():
    covered = set()
    for path in scenario_files():
        covered |= _header_ids(path)
    assert [r for r in TRACKED if r not in covered] == []


def test_readme_table_points_at_scenarios_that_cover_the_rule():
    table = _readme_table()
    assert [r for r in TRACKED if r not in table] == []
    for rule, files in table.items():
        assert files, rule
        for name in files:
            path = os.path.join(SCENARIO_DIR, name)
            assert os.path.exists(path), (rule, name)
            assert rule in _header_ids(path), (rule, name)


def _read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def _doc_sections():
    """docs/rules.md's rules: [(ID, its section's text)], in order."""
    parts = re.split(r"^### ", _read(RULES_DOC), flags=re.M)[1:]
    return [(part.split(None, 1)[0], part.split("\n## ")[0]) for part in parts]


def _doc_ids():
    return [rule for rule, _ in _doc_sections()]


def _comments_and_docstrings(path):
    """The text of a Python file's comments and docstrings: where rules are cited."""
    source = _read(path)
    out = [tok.string for tok in tokenize.generate_tokens(io.StringIO(source).readline)
           if tok.type == tokenize.COMMENT]
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            doc = ast.get_docstring(node)
            if doc:
                out.append(doc)
    return "\n".join(out)


def test_docs_rules_defines_each_rule_once_and_cites_only_its_own():
    ids = _doc_ids()
    assert ids and len(ids) == len(set(ids)), ids
    assert [r for r in TRACKED if r not in ids] == []
    cited = set(RULE_ID.findall(_read(RULES_DOC)))
    assert sorted(cited - set(ids)) == []


def test_every_rule_cited_in_the_firmware_is_in_docs_rules():
    ids = set(_doc_ids())
    firmware = os.path.join(REPO, "firmware")
    unknown = []
    for folder, _, names in os.walk(firmware):
        for name in sorted(names):
            if name.endswith(".py"):
                path = os.path.join(folder, name)
                for rule in set(RULE_ID.findall(_comments_and_docstrings(path))) - ids:
                    unknown.append((os.path.relpath(path, REPO), rule))
    assert unknown == [], "rule IDs cited in the firmware but not in docs/rules.md"


def test_every_rule_a_scenario_names_is_in_docs_rules():
    ids = set(_doc_ids())
    for path in scenario_files():
        assert _header_ids(path) <= ids, os.path.basename(path)


def test_docs_rules_has_the_shared_catalogues_rules():
    if not os.path.exists(SHARED_RULES):
        pytest.skip("no shared RULES.md beside the repository: docs/rules.md stands alone")
    shared = re.findall(r"^\| ([SAKCP]\d+) \|", _read(SHARED_RULES), re.M)
    assert shared, "the shared RULES.md lists no rule"
    ids = _doc_ids()
    assert [r for r in ids if r not in shared] == [], (
        "docs/rules.md has rules the shared RULES.md does not")
    assert [r for r in shared if r not in ids] == [], (
        "the shared RULES.md has rules docs/rules.md does not: write them up there")


def test_every_setting_and_character_field_has_its_rule_in_docs_rules():
    text = _read(RULES_DOC)
    for name in list(FIELDS) + list(as_dict(Character())):
        assert "`%s`" % name in text, name
    # Each [choice] says what decides it: a setting, the character, or fixed.
    for rule, section in _doc_sections():
        if "[choice]" in section:
            assert re.search(r"Setting: `|Character: `|\*fixed\*", section), rule


def test_the_tests_docs_rules_names_exist_and_cover_the_rule():
    tests = os.path.dirname(os.path.abspath(__file__))
    for rule, section in _doc_sections():
        assert "Tests:" in section, rule
        for name in re.findall(r"`([\w.-]+\.txt)`", section):
            path = os.path.join(SCENARIO_DIR, name)
            assert os.path.exists(path), (rule, name)
            assert rule in _header_ids(path), (rule, name)
        for module, function in re.findall(r"`(test_\w+\.py)::(\w+)`", section):
            source = _read(os.path.join(tests, module))
            assert re.search(r"^(def |class )?%s\b" % function, source, re.M), (
                rule, module, function)


def test_rules_and_scenarios_are_cited_in_the_repository_not_beside_it():
    # The project's rules are docs/rules.md and docs/scenarios.md: nothing points at a
    # copy outside the repository (the shared interpreters, ../shared/tools, are fine).
    assert os.path.exists(SCENARIOS_DOC)
    skip = {".git", ".venv", "__pycache__", ".mypy_cache", ".ruff_cache", ".pytest_cache",
            ".hypothesis", "build", "dist"}
    found = []
    for folder, dirs, names in os.walk(REPO):
        dirs[:] = [d for d in dirs if d not in skip and not d.endswith(".egg-info")]
        for name in names:
            if name.endswith((".py", ".md", ".txt", ".toml", ".json", ".csv")) or (
                    name == "Makefile"):
                text = _read(os.path.join(folder, name))
                for outside in ("shared/" + "RULES.md", "shared/" + "SCENARIOS.md"):
                    if outside in text:
                        found.append((os.path.relpath(os.path.join(folder, name), REPO),
                                      outside))
    assert found == []


def test_docs_journal_lists_the_codes_as_the_badge_writes_them():
    # docs/journal.md is what a reader of a journal has: its lists are the badge's own,
    # in their order (a place in them is a code), every error code with its row.
    from cran.core.engine import TIMER_NAMES
    from cran.core.vocab import COPY_BAD, COPY_MISSING, CUE_KINDS, NVS_BAD, PLAYS, STATES
    with open(os.path.join(REPO, "docs", "journal.md"), encoding="utf-8") as f:
        text = " ".join(f.read().split())
    for names in (STATES, PLAYS, TIMER_NAMES, CUE_KINDS):
        assert ", ".join("`%s`" % n for n in names) in text, names
    for code in (COPY_MISSING, COPY_BAD, NVS_BAD):
        assert "| %d | " % code in text


def test_every_folder_of_python_files_is_a_listed_package():
    # setuptools warns of each one it finds unlisted, ~40 lines at the first install.
    tomllib = pytest.importorskip("tomllib", reason="Python 3.11+ reads pyproject.toml")
    with open(os.path.join(REPO, "pyproject.toml"), "rb") as f:
        setup = tomllib.load(f)["tool"]["setuptools"]
    # A top-level package is its folder at the root (host_tools, gamefiles) unless
    # package-dir maps it elsewhere (cran: firmware/cran).
    roots = {name: os.path.join(REPO, name) for name in setup["packages"] if "." not in name}
    roots.update((name, os.path.join(REPO, path))
                 for name, path in setup["package-dir"].items())
    found = set()
    for name, root in roots.items():
        for folder, _, files in os.walk(root):
            if any(f.endswith(".py") for f in files) and "__pycache__" not in folder:
                rel = os.path.relpath(folder, root)
                found.add(name if rel == "." else name + "." + rel.replace(os.sep, "."))
    assert sorted(setup["packages"]) == sorted(found)


def _markdown_files():
    found = [os.path.join(REPO, "README.md"), os.path.join(REPO, "boards", "README.md")]
    docs = os.path.join(REPO, "docs")
    return found + sorted(os.path.join(docs, n) for n in os.listdir(docs) if n.endswith(".md"))


def _anchors(path):
    """The anchors a Markdown file's headings make, as GitHub makes them."""
    out = set()
    for line in _read(path).splitlines():
        m = re.match(r"^#+ (.*)", line)
        if m:
            slug = re.sub(r"[^\w\- ]", "", m.group(1).strip().lower()).replace(" ", "-")
            out.add(slug)
    return out


def test_every_link_of_the_docs_resolves():
    broken = []
    for path in _markdown_files():
        text = re.sub(r"```.*?```", "", _read(path), flags=re.S)   # code is not linked
        for target in re.findall(r"\]\(([^)\s]+)\)", text):
            if re.match(r"^[a-z]+:", target):
                continue
            where, _, anchor = target.partition("#")
            full = os.path.normpath(os.path.join(os.path.dirname(path), where)) if where \
                else path
            if not os.path.exists(full):
                broken.append("%s: %s (no such file)" % (os.path.relpath(path, REPO), target))
            elif anchor and full.endswith(".md") and anchor not in _anchors(full):
                broken.append("%s: %s (no such heading)" % (os.path.relpath(path, REPO), target))
    assert broken == []


def test_the_readme_is_read_in_five_minutes():
    # What the badge is, the two commands, the organiser's path, a map of docs/: the
    # manual, the reference and the architecture are docs of their own.
    assert os.path.getsize(os.path.join(REPO, "README.md")) <= 10 * 1024


def test_the_docs_ask_for_the_python_pyproject_asks_for():
    # ORGANISER.md said 3.9+ where pyproject.toml requires 3.10.
    with open(os.path.join(REPO, "pyproject.toml"), encoding="utf-8") as f:
        required = re.search(r'requires-python = ">=(3\.\d+)"', f.read()).group(1)
    for path in _markdown_files():
        for said in re.findall(r"Python (3\.\d+)", _read(path)):
            assert said == required, "%s says Python %s, pyproject.toml %s" % (
                os.path.relpath(path, REPO), said, required)


# ---- issue 35: one game, kept apart ------------------------------------------------------

def _commands_in(path):
    """Every command the doc shows: each line of its code blocks (its comment cut), and
    each inline `code` span (a span may run over lines)."""
    text = _read(path)
    found = []
    for block in re.findall(r"```.*?\n(.*?)```", text, flags=re.S):
        found += [line.split(" # ")[0].strip() for line in block.splitlines()]
    prose = re.sub(r"```.*?```", "", text, flags=re.S)
    found += [" ".join(span.split()) for span in re.findall(r"`([^`]+)`", prose)]
    return [c for c in found if c]


def test_each_game_s_configs_go_to_a_folder_of_their_own_in_the_docs():
    # docs/radio.md's rehearsal (`cran config examples/rehearsal.csv --settings
    # rehearsal.json`, into ./badges) replaced the real game's configs and key there.
    # Every `cran config ROSTER --settings GAME` the docs show: one --out folder a game,
    # badges/ (the default) the real game's alone (game.json).
    folders = {}
    for path in _markdown_files():
        for command in _commands_in(path):
            m = re.match(r"cran config \S+\.csv\b(.*)", command)
            if not m or "[" in command:   # a synopsis, not a command to type
                continue
            words = m.group(1).split()
            settings = words[words.index("--settings") + 1] if "--settings" in words \
                else "(the defaults)"
            out = words[words.index("--out") + 1].rstrip("/") if "--out" in words \
                else "badges"
            folders.setdefault(out, set()).add(settings)
    assert folders.get("badges", {"game.json"}) <= {"game.json"}, folders
    assert [f for f, games in folders.items() if len(games) > 1] == [], folders
    assert "rehearsal" in folders   # the rehearsal is among them


def test_the_docs_say_the_screen_s_width_the_boards_have():
    # docs/controls.md said 21 characters on an SSD1306; its 128 pixels of 8-pixel
    # letters are 16 (cran.hal.display.Screen.columns), as the sim's box shows.
    import json

    from cran.hal.display import Screen
    said = re.findall(r"cut to (\d+)\s+characters", _read(os.path.join(REPO, "docs",
                                                                        "controls.md")))
    widths = set()
    boards = os.path.join(REPO, "boards")
    for name in os.listdir(boards):
        if name.endswith(".json"):
            with open(os.path.join(boards, name), encoding="utf-8") as f:
                display = json.load(f).get("display")
            if display:
                widths.add(Screen(display["kind"], None, display["width"],
                                  display["height"]).columns)
    assert said and {int(n) for n in said} == widths == {16}, (said, widths)
    assert not re.search(r"\b21\b", _read(os.path.join(REPO, "docs", "controls.md")))


def test_a_game_s_own_files_are_never_committed():
    # game.json holds the game key and the radio secret; `git add -A` took them.
    import subprocess
    if not os.path.isdir(os.path.join(REPO, ".git")):
        pytest.skip("not a git checkout")
    mine = ["game.json", "rehearsal.json", "roster.csv", "badges/b01.json",
            "badges/game.key", "rehearsal/ali.json"]
    r = subprocess.run(["git", "check-ignore", "--no-index"] + mine + [
        "examples/roster.csv", "examples/rehearsal.csv"], cwd=REPO, capture_output=True,
        text=True)
    assert r.stdout.split() == mine, r.stdout + r.stderr


def test_the_rehearsal_roster_points_at_its_recipe():
    # Its header sent people to the README; the recipe is in docs/radio.md.
    with open(os.path.join(REPO, "examples", "rehearsal.csv"), encoding="utf-8") as f:
        head = f.readline()
    m = re.search(r"\((docs/[\w.]+): \"([^\"]+)\"\)", head)
    assert m, head
    doc = os.path.join(REPO, m.group(1))
    assert "### %s" % m.group(2) in _read(doc) and "examples/rehearsal.csv" in _read(doc)


def test_the_docs_say_all_finds_the_vbadges_and_what_its_finding_none_exits():
    # `--all` found no virtual badge and no doc said a rehearsal needed a --port each;
    # COMMANDS.md said a missing port exits 1, --all finding none exited 2.
    commands = " ".join(_read(os.path.join(REPO, "docs", "COMMANDS.md")).split())
    organiser = " ".join(_read(os.path.join(REPO, "docs", "ORGANISER.md")).split())
    assert "`--all` is every USB serial port attached and every `cran vbadge` running " \
           "on this computer" in commands
    assert "`--all` finding no port too" in commands
    assert "and every virtual badge (`cran vbadge`) running on this computer" in organiser


# ---- docs/ARCHITECTURE.md: the map, the rules of the house, the recipes -----------------
# It is short enough to be read, and every module, file or folder it names is there: a
# map that names what was renamed or removed (a `startup._let_go`) sends its reader to
# nothing. The detail is beside the code it explains.

ARCHITECTURE_DOC = os.path.join(REPO, "docs", "ARCHITECTURE.md")
# Where each package named with dots lives.
_PACKAGES = {"cran": ("firmware", "cran"), "host_tools": ("host_tools",),
             "gamefiles": ("gamefiles",)}
_DOTTED = re.compile(r"(?<![\w./-])(?:cran|host_tools|gamefiles)(?:\.[A-Za-z_]\w*)+")
_PATH = re.compile(r"(?<![\w./-])(?:firmware|host_tools|gamefiles|tests|bench|boards|docs|"
                   r"examples)/[\w./<>*-]*")
# A class's member, in code: `App.show`, `Badge.flush`.
_MEMBER = re.compile(r"`([A-Z]\w*)\.([A-Za-z_]\w*)")


def _defined(tree):
    """{name: its node} of what a module (or a class body) defines at its top level;
    a class also has what its methods set on self."""
    found = {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            found[node.name] = node
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                for t in ast.walk(target):
                    if isinstance(t, ast.Name):
                        found[t.id] = node
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                found[(alias.asname or alias.name).split(".")[0]] = node
        elif isinstance(node, (ast.If, ast.Try)):   # try: ... except ImportError: ...
            found.update(_defined(ast.Module(body=node.body, type_ignores=[])))
            for handler in getattr(node, "handlers", []):
                found.update(_defined(ast.Module(body=handler.body, type_ignores=[])))
    if isinstance(tree, ast.ClassDef):
        for t in ast.walk(tree):
            if (isinstance(t, ast.Attribute) and isinstance(t.ctx, ast.Store)
                    and isinstance(t.value, ast.Name) and t.value.id == "self"):
                found.setdefault(t.attr, t)
    return found


def _parse(path):
    return ast.parse(_read(path))


def _dotted_resolves(dotted, repo=REPO):
    """Whether a dotted name is a package or module of the repository, or a name such a
    module defines (and, for a class, one of its members)."""
    parts = dotted.split(".")
    folder = os.path.join(repo, *_PACKAGES[parts[0]])
    module = os.path.join(folder, "__init__.py")
    i = 1
    while i < len(parts) and folder is not None:
        below = os.path.join(folder, parts[i])
        if os.path.isdir(below):
            folder, module = below, os.path.join(below, "__init__.py")
        elif os.path.isfile(below + ".py"):
            folder, module = None, below + ".py"
        else:
            break
        i += 1
    rest = parts[i:]
    if not rest:
        return True
    if not os.path.isfile(module):
        return False
    node = _defined(_parse(module)).get(rest[0])
    if node is None:
        return False
    if len(rest) > 1 and isinstance(node, ast.ClassDef):
        return rest[1] in _defined(node)
    return True


def _path_exists(path, repo=REPO):
    """Whether a path of the repository exists; a placeholder (<id>, NAME) or a * in it
    stands for any name, of which one must be there."""
    import glob
    pattern = re.sub(r"<[^>]*>|\bNAME\b", "*", path)
    if "*" in pattern:
        return bool(glob.glob(os.path.join(repo, pattern)))
    return os.path.exists(os.path.join(repo, path))


@functools.cache
def _classes(repo=REPO):
    """{class name: its members} of the firmware, gamefiles and the host tool (a name
    defined twice: the members of both)."""
    found = {}
    for top in (os.path.join("firmware", "cran"), "gamefiles", "host_tools"):
        for folder, _, names in os.walk(os.path.join(repo, top)):
            for name in names:
                if name.endswith(".py"):
                    for node in ast.walk(_parse(os.path.join(folder, name))):
                        if isinstance(node, ast.ClassDef):
                            found.setdefault(node.name, set()).update(_defined(node))
    return found


def stale_names(text, repo=REPO):
    """The modules, files and class members a doc names that the repository lacks."""
    stale = []
    for dotted in _DOTTED.findall(text):
        if not _dotted_resolves(dotted, repo):
            stale.append(dotted)
    for path in _PATH.findall(text):
        path = path.rstrip(".,;:")
        if not _path_exists(path, repo):
            stale.append(path)
    classes = _classes(repo)
    for cls, member in _MEMBER.findall(text):
        if cls in classes and member not in classes[cls]:
            stale.append("%s.%s" % (cls, member))
    return sorted(set(stale))


def test_the_architecture_is_read_in_a_sitting():
    with open(ARCHITECTURE_DOC, "rb") as f:
        assert len(f.read()) <= 15000


def test_every_module_and_file_the_architecture_names_exists():
    text = _read(ARCHITECTURE_DOC)
    assert stale_names(text) == []
    # And it names enough for the check to mean something: the rules core and its
    # engine, the start, a command's folder.
    named = set(_DOTTED.findall(text)) | set(_PATH.findall(text))
    assert {"cran.core.engine", "cran.start.parts", "host_tools/commands/"} <= named


def test_the_name_finder_catches_a_stale_name_and_not_a_word():
    stale = ("`cran.startup` lets go of `cran.start._make_names`, then "
             "`cran.core.engine.nothing_here` and `cran.app.App.no_such_field`; see "
             "firmware/cran/startup.py, host_tools/orders/ and `App.no_such_verb`.")
    assert stale_names(stale) == sorted([
        "cran.startup", "cran.start._make_names", "cran.core.engine.nothing_here",
        "cran.app.App.no_such_field", "firmware/cran/startup.py", "host_tools/orders/",
        "App.no_such_verb"])
    fine = ("cran flash writes the firmware, and the host_tools command runs the tests; "
            "see the docs. `cran.core` and `cran.core.engine.act`, `cran.app.App.show`, "
            "`App.show`, `README.md`, firmware/main.py, host_tools/commands/NAME.py, "
            "boards/<id>.json, host_tools/commands/, docs/rules.md.")
    assert stale_names(fine) == []
