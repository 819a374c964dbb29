# The README's rule table tells the truth: every rule the engine tracks has a scenario,
# and each scenario named there says on its first line that it covers that rule.
import os
import re

from conftest import REPO, SCENARIO_DIR, scenario_files

TRACKED = (["S%d" % i for i in range(1, 11)] + ["A%d" % i for i in range(1, 7)]
           + ["K%d" % i for i in range(1, 17)] + ["C1", "C2", "P1", "P2", "P3"])


def _header_ids(path):
    first = open(path, encoding="utf-8").readline()
    m = re.match(r"#\s*Rules:\s*(.*)", first)
    assert m, "%s: first line must be '# Rules: ID ...'" % os.path.basename(path)
    return set(m.group(1).replace(",", " ").split())


def _readme_table():
    text = open(os.path.join(REPO, "README.md"), encoding="utf-8").read()
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
