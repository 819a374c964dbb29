# `cran config`: roster CSV -> one checked config.json per badge, the game settings file,
# a badge config checked alone. Faults name the row (or key) and the column.
import json
import os

import pytest

from conftest import REPO, run_cran
from cran import config as badge_config
from cran.core.choices import FIELDS, as_dict
from cran.core.rules import Settings
from host_tools import cli
from host_tools.game import roster

EXAMPLE = os.path.join(REPO, "examples", "roster.csv")
GAME = os.path.join(REPO, "examples", "game-settings.json")
HEADER = "name,armor,helmet,creature,resist,agonisant,coma,board,badge\n"


def write(tmp_path, text, name="roster.csv", encoding="utf-8"):
    path = tmp_path / name
    path.write_bytes(text.encode(encoding))
    return str(path)


def faults(path, settings=None):
    with pytest.raises(roster.RosterError) as caught:
        roster.badge_configs(path, settings)
    return caught.value.messages


def test_the_example_roster_gives_one_checked_config_per_badge(tmp_path):
    configs = roster.badge_configs(EXAMPLE, GAME)
    assert list(configs) == ["b01", "b02", "b03", "b04"]
    info, godefroy = configs["b01"]
    assert info["name"] == "Godefroy de Herseblanche" and info["file"] == "b01.json"
    assert godefroy["character"]["armor"] == 2 and godefroy["board"] == "atom-lite"
    assert configs["b02"][1]["character"]["armor"] == 0       # Ali: no armor stated
    assert configs["b03"][1]["character"]["armor"] == 1       # Nico: leather
    troll = configs["b04"][1]["character"]
    assert troll["creature"] == 2 and troll["helmet"] is True
    assert troll["resist"] == ["peur", "charme"] and troll["agonisant_ms"] == 600000
    assert "coma_ms" not in troll           # empty: the game's setting
    assert godefroy["settings"] == as_dict(Settings())
    assert set(godefroy) == {"board", "badge", "character", "settings", "lang",
                             "light_sleep", "volume_percent"}
    assert godefroy["badge"] == "b01"   # kept on the badge: a later flash finds it by it


def test_cran_config_writes_the_files_the_badge_loads(tmp_path, capsys):
    out = tmp_path / "badges"
    assert cli.main(["config", EXAMPLE, "--settings", GAME, "--out", str(out)]) == 0
    assert sorted(os.listdir(out)) == ["b01.json", "b02.json", "b03.json", "b04.json"]
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 5 and "Godefroy de Herseblanche" in lines[0]
    assert "armor 2" in lines[0] and lines[-1].startswith("4 badge configs in ")
    # What a badge does with it at boot: its own loader, its board file beside.
    root = tmp_path / "flash"
    (root / "boards").mkdir(parents=True)
    (root / "config.json").write_text((out / "b04.json").read_text(encoding="utf-8"),
                                      encoding="utf-8")
    (root / "boards" / "m5stickc-plus.json").write_text(
        open(os.path.join(REPO, "boards", "m5stickc-plus.json")).read())
    loaded = badge_config.load(str(root))
    assert loaded.character.name == "Le Troll du Gué" and loaded.character.creature == 2


@pytest.mark.parametrize("cells, field, value", [
    ("Ana,métal,,,,,,atom-lite,b1", "armor", 2),
    ("Ana,Cuir,,,,,,atom-lite,b1", "armor", 1),
    ("Ana,3,,,,,,atom-lite,b1", "armor", 3),
    ("Ana,aucune,,,,,,atom-lite,b1", "armor", 0),
    ("Ana,,oui,,,,,atom-lite,b1", "helmet", True),
    ("Ana,,YES,,,,,atom-lite,b1", "helmet", True),
    ("Ana,,non,,,,,atom-lite,b1", "helmet", False),
    ("Ana,,,,peur;Charme,,,atom-lite,b1", "resist", ["peur", "charme"]),
    ("Ana,,,,\"Peur, paralysé\",,,atom-lite,b1", "resist", ["peur", "paralyse"]),
    ("Ana,,,,fear stun,,,atom-lite,b1", "resist", ["peur", "assomme"]),
    ("Ana,,,,,5min,,atom-lite,b1", "agonisant_ms", 300000),
    ("Ana,,,,,5 mn,,atom-lite,b1", "agonisant_ms", 300000),
    ("Ana,,,,,3:00,,atom-lite,b1", "agonisant_ms", 180000),
    ("Ana,,,,,300s,,atom-lite,b1", "agonisant_ms", 300000),
    ("Ana,,,,,90,,atom-lite,b1", "agonisant_ms", 90000),
    ("Ana,,,,,,1:30:00,atom-lite,b1", "coma_ms", 5400000),
])
def test_cells_as_organisers_write_them(tmp_path, cells, field, value):
    path = write(tmp_path, HEADER + cells + "\n")
    assert roster.badge_configs(path)["b1"][1]["character"][field] == value


def test_every_fault_of_every_row_is_named_and_nothing_is_written(tmp_path, capsys):
    path = write(tmp_path, HEADER
                 + "Ana,bronze,peut-être,x,poison,0,,atom-heavy,b1\n"
                 + "Bob,cuir,non,,dissipe,,soon,atom-lite,b2\n"
                 + ",,,,,,,atom-lite,b3\n"
                 + "Cid,,,,,,,atom-lite,\n")
    messages = faults(path)
    name = path
    assert messages == [
        "%s:2: armor: expected none, cuir, metal or a count from 0 to 99, got 'bronze'" % name,
        "%s:2: helmet: expected yes/no (oui/non), got 'peut-être'" % name,
        "%s:2: creature: expected a whole number from 0 to 99, got 'x'" % name,
        "%s:2: resist: unknown keyword 'poison'" % name,
        "%s:2: agonisant: expected a duration above 0 and under 149 hours, got 0 ms" % name,
        "%s:2: board: unknown board 'atom-heavy' (known: atom-lite, atom-matrix, "
        "atoms3-lite, esp32-devkitc, esp32c3-supermini, m5stickc-plus, qtpy-esp32s3)"
        % name,
        "%s:3: resist: nobody resists dissipe (K9, K12)" % name,
        "%s:3: coma: bad duration 'soon' (e.g. 5min, 3:00, 300s)" % name,
        "%s:4: name: empty" % name,
        "%s:5: port or badge: both empty (which badge is this row for?)" % name,
    ]
    out = tmp_path / "out"
    assert cli.main(["config", path, "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "%s:4: name: empty" % name in err and "nothing written" in err
    assert not out.exists()


def test_a_misspelt_cell_or_column_is_offered_the_word_meant(tmp_path):
    path = write(tmp_path, HEADER + "Ana,metall,nn,,peurr,,,atom-lit,b1\n")
    assert [m.split("; ")[-1] for m in faults(path)] == [
        "did you mean 'metal'?", "did you mean 'non'?", "did you mean 'peur'?",
        "did you mean 'atom-lite'?"]
    path = write(tmp_path, HEADER.replace("armor", "armr").replace("\n", ",langue\n")
                 + "Ana,cuir,non,,,,,atom-lite,b1,frr\n")
    assert faults(path)[0].endswith("; did you mean 'armor'?")
    path = write(tmp_path, HEADER.replace("\n", ",langue\n")
                 + "Ana,cuir,non,,,,,atom-lite,b1,frr\n")
    assert faults(path) == ["%s:2: langue: expected fr or en, got 'frr'; did you mean 'fr'?"
                            % path]


def test_numbers_of_any_length_are_named_not_a_traceback(tmp_path):
    # Issue 13: a 5,000-digit cell stopped int() with a traceback; numbers are bounded
    # before use, and a message quotes at most 40 characters of them.
    huge = "9" * 5000
    path = write(tmp_path, HEADER + "Ana,%s,,%s,,%s:00,%s,atom-lite,b1\n" % ((huge,) * 4)
                 + "Bob,\u0662,,100,,150:00:00,,atom-lite,b2\n")
    forty = "9" * 40
    assert faults(path) == [
        "%s:2: armor: expected a whole number from 0 to 99, got '%s...'" % (path, forty),
        "%s:2: creature: expected a whole number from 0 to 99, got '%s...'" % (path, forty),
        "%s:2: agonisant: bad duration '%s' (M:SS or H:MM:SS)" % (path, forty),
        "%s:2: coma: bad duration '%s' (e.g. 5min, 3:00, 300s)" % (path, forty),
        "%s:3: armor: character U+0662 is not one the badge reads" % path,
        "%s:3: creature: expected a whole number from 0 to 99, got '100'" % path,
        "%s:3: agonisant: duration '150:00:00' is longer than a badge can count (149 hours)"
        % path,
    ]


def test_a_name_is_a_name_on_the_host_as_on_the_badge(tmp_path):
    # Issue 34: a roster name of 100,000 characters passed cran config, --check and cran
    # flash; on the badge its config's load ran out of memory, and main.py ended at the
    # REPL. At most 64 characters, said in one line naming the row or file and field.
    long = "N" * 100000
    path = write(tmp_path, HEADER + "%s,metal,,,,,,atom-lite,b1\n" % long
                 + "Bob,metal,,,,,,atom-lite,%s\n" % ("b" * 65))
    assert faults(path) == [
        "%s:2: name: a name of 100000 characters: at most 64" % path,
        "%s:3: badge: a badge id of 65 characters: at most 64" % path,
        "%s:3: port or badge: both empty (which badge is this row for?)" % path]
    config = tmp_path / "b1.json"
    config.write_text(json.dumps({"board": "atom-lite", "character": {"name": long}}))
    said = "%s: character.name: a name of 100000 characters: at most 64" % config
    r = run_cran("config", "--check", str(config))
    assert r.returncode == 2 and said in r.stderr.splitlines(), r.stderr[:500]
    for args in (["--board", "atom-lite", "--config", str(config)], ["--roster", path]):
        r = run_cran("flash", "--port", "/dev/ttyNOPE0", *args)
        assert r.returncode == 2 and len(r.stderr) < 500, r.stderr[:500]
        assert ": a name of 100000 characters: at most 64" in r.stderr
    # A config the badge would refuse for its size (cran.config.MAX_CONFIG_BYTES),
    # though each field is right: refused on the host too, not only on the badge.
    many = {"%012x" % n: ["healer", "00" * 16] for n in range(200)}
    big = {"board": "atom-lite", "radio": {"role": "badge", "authorities": many}}
    with pytest.raises(roster.RosterError) as caught:
        roster.firmware_check(big, "row 2")
    assert caught.value.messages == ["row 2: a config of %d bytes: a badge reads at most "
                                     "8192" % (len(json.dumps(big, indent=2)) + 1)]


@pytest.mark.parametrize("command", [["config", "examples/roster.csv", "--out", "OUT"],
                                     ["field", "--virtual", "nowhere"]])
def test_settings_nested_past_any_reader_are_one_line(tmp_path, command):
    # 100,000 levels of [[[[: a RecursionError traceback in cran config and cran field.
    deep = tmp_path / "game.json"
    deep.write_text('{"radio": ' + "[" * 100000 + "]" * 100000 + "}")
    args = [str(tmp_path / "out") if a == "OUT" else os.path.join(REPO, a)
            if a.startswith("examples/") else a for a in command]
    r = run_cran(*args, "--settings", str(deep))
    assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr[-500:]
    assert "%s: not readable as JSON: nested too deep" % deep in r.stderr


def test_a_badge_used_twice_names_both_rows(tmp_path):
    path = write(tmp_path, "name,armor,board,badge,port\n"
                 "Ana,none,atom-lite,b1,\n"
                 "Bob,none,atom-lite,b1,\n"
                 "Cid,none,atom-lite,,/dev/ttyUSB0\n"
                 "Dan,none,atom-lite,,/tmp/ttyUSB0\n")     # another port, the same file name
    assert faults(path) == [
        "%s:3: badge: 'b1' is also row 2's (one row a badge)" % path,
        "%s:5: port: '/tmp/ttyUSB0' is also row 4's (one row a badge)" % path,
    ]


def test_a_port_row_keeps_its_port_for_flashing(tmp_path):
    path = write(tmp_path, "name,armor,board,port\nAna,cuir,Atom Lite,/dev/ttyUSB0\n"
                 "Bob,none,atom-lite,COM3\n")
    configs = roster.badge_configs(path)
    assert list(configs) == ["/dev/ttyUSB0", "COM3"]
    info = configs["/dev/ttyUSB0"][0]
    assert info["port"] == "/dev/ttyUSB0" and info["badge"] is None
    assert info["file"] == "ttyUSB0.json" and info["board"] == "atom-lite"


def test_a_french_spreadsheet_export_reads_too(tmp_path):
    # ';' between cells, Windows code page, French column names, a comment line.
    text = ("# personnages\r\nnom;armure;casque;résistances;carte;badge;joueur\r\n"
            "Élise;métal;oui;peur, charme;atom-matrix;b7;Camille\r\n")
    path = write(tmp_path, text, encoding="cp1252")
    info, config = roster.badge_configs(path)["b7"]
    assert config["character"]["name"] == "Élise" and config["character"]["armor"] == 2
    assert config["character"]["resist"] == ["peur", "charme"] and info["row"] == 3


@pytest.mark.parametrize("text, message", [
    ("name,armor,hat,board,badge\n", ":1: hat: unknown column"),
    ("armor,board,badge\nAna\n", ":1: name: column missing"),
    ("name,board\nAna,atom-lite\n", ":1: port or badge: column missing"),
    ("name,name,board,badge\n", ":1: name: column given twice"),
    ("", ": no header row"),
    (HEADER, ": no character rows under the header"),
    (HEADER + "Ana,,,,,,,atom-lite,b1,extra\n", ":2: 10 cells, the header has 9 columns"),
    ("name,armor,,board,badge\nAna,0,x,atom-lite,b1\n",
     ":2: column 3: 'x' under a column with no"),
])
def test_a_bad_roster_shape_is_named(tmp_path, text, message):
    path = write(tmp_path, text)
    found = faults(path)
    assert [m for m in found if m.startswith(path + message)], found


def test_empty_columns_a_spreadsheet_adds_are_fine(tmp_path):
    path = write(tmp_path, "name,armor,board,badge,,\nAna,none,atom-lite,b1,,\n")
    assert list(roster.badge_configs(path)) == ["b1"]


def test_a_missing_roster_is_named(tmp_path):
    assert faults(str(tmp_path / "nope.csv")) == ["%s: no such file" % (tmp_path / "nope.csv")]


# ---- game settings ------------------------------------------------------------------

def test_the_template_lists_every_choice_with_its_default_and_its_meaning():
    template = roster.settings_template()
    fields = list(FIELDS)
    game = ["game_key", "radio", "radio_secret", "orga_code"]
    assert [k for k in template if k not in ["_about"] + game] == fields
    assert all(template["_about"][name] for name in fields + game)
    path_settings = roster.read_settings(GAME)   # the example is the template
    assert as_dict(path_settings) == as_dict(Settings())
    # ... without a game key or radio secret: one printed in a public example would be
    # no secret.
    assert roster.read_game_key(GAME) is None and roster.read_radio_secret(GAME) is None
    with open(GAME, encoding="utf-8") as f:
        assert json.load(f) == dict((k, v) for k, v in template.items()
                                    if k not in ("game_key", "radio_secret", "orga_code"))


def test_each_template_has_a_fresh_game_key_that_reaches_the_configs_folder(tmp_path):
    keys = [roster.settings_template()["game_key"] for _ in range(2)]
    assert keys[0] != keys[1] and all(len(bytes.fromhex(k)) == 32 for k in keys)
    game = tmp_path / "game.json"
    game.write_text(json.dumps(roster.settings_template()))
    assert cli.main(["config", EXAMPLE, "--settings", str(game), "--out",
                     str(tmp_path / "out")]) == 0
    key = bytes.fromhex(json.loads(game.read_text())["game_key"])
    assert (tmp_path / "out" / "game.key").read_text().strip() == key.hex()
    # No config carries it: a badge's `config` answer must not show it.
    for name in os.listdir(str(tmp_path / "out")):
        if name.endswith(".json"):
            assert key.hex() not in (tmp_path / "out" / name).read_text()
    # cran flash --config picks it up from beside the config.
    import argparse

    args = argparse.Namespace(roster=None, settings=None, config=str(tmp_path / "out" / name))
    assert roster.game_key_of(args.settings, args.config) == key
    args = argparse.Namespace(roster=EXAMPLE, settings=str(game), config=None)
    assert roster.game_key_of(args.settings, args.config) == key


def test_a_game_key_that_is_not_one_is_named(tmp_path, capsys):
    game = tmp_path / "game.json"
    game.write_text(json.dumps({"game_key": "abc"}))
    assert cli.main(["config", EXAMPLE, "--settings", str(game), "--out",
                     str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert "game.json: game_key: a game key is 64 hex digits" in err
    assert not (tmp_path / "out").exists() or not os.listdir(str(tmp_path / "out"))


def test_the_template_written_to_a_file_never_replaces_a_game(tmp_path):
    # `cran config --settings-template > game.json` (the rehearsal's first line) had
    # replaced an organiser's real game.json, and the key its badges answer to with it.
    game = tmp_path / "game.json"
    r = run_cran("config", "--settings-template", str(game))
    assert r.returncode == 0, r.stderr
    first = json.loads(game.read_text())
    assert len(bytes.fromhex(first["game_key"])) == 32 and first["radio"] is False
    assert "%s: a new game's settings, with a fresh game key" % game in r.stdout
    r = run_cran("config", "--settings-template", str(game))
    assert r.returncode == 2 and r.stderr.startswith(
        "cran: %s already holds a game's settings, with game key " % game), r.stderr
    assert "give the new game another file name" in r.stderr
    assert json.loads(game.read_text()) == first   # untouched
    other = tmp_path / "notes.txt"
    other.write_text("mine")
    r = run_cran("config", "--settings-template", str(other))
    assert r.returncode == 2 and "notes.txt: already exists, kept as it is" in r.stderr
    assert other.read_text() == "mine"
    r = run_cran("config", "--settings-template", str(tmp_path / "nowhere" / "g.json"))
    assert r.returncode == 2 and "cannot write" in r.stderr


def test_cran_config_prints_the_template(capsys):
    assert cli.main(["config", "--settings-template"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert len(bytes.fromhex(printed.pop("game_key"))) == 32   # fresh: compared apart
    assert len(bytes.fromhex(printed.pop("radio_secret"))) == 32
    assert set(printed.pop("orga_code")) <= {"S", "L"}
    template = roster.settings_template()
    del template["game_key"], template["radio_secret"], template["orga_code"]
    assert printed == template


def test_every_choice_switched_reaches_every_badge(tmp_path):
    # The other value of every setting, in the spellings a person would write.
    other = {"agonisant_ms": "3:00", "coma_ms": "10min", "soin_from_down": "pleine-forme",
             "creature_per_combat": False, "effect_ends_on_absorbed": "oui",
             "single_effect": "non", "blesse_from_agonisant": "agonisant",
             "keyword_state_raises": True, "stop_freezes_timers": False,
             "timers_run_out_of_game": False, "time_off_counts": True,
             "combat_rest_ms": "2 mn", "mitraille_ms": "500ms", "effect_ms": "240s",
             "desarme_ms": 5000, "vol_notice_ms": "1:00", "idle_look": "steady"}
    assert sorted(other) == sorted(FIELDS)
    game = write(tmp_path, json.dumps(other), "game.json")
    settings = roster.badge_configs(EXAMPLE, game)["b03"][1]["settings"]
    default = as_dict(Settings())
    assert [name for name in default if settings[name] == default[name]] == []
    assert settings["agonisant_ms"] == 180000 and settings["combat_rest_ms"] == 120000


def test_bad_settings_name_every_key(tmp_path, capsys):
    game = write(tmp_path, json.dumps({"coma": "5min", "single_effect": "maybe",
                                       "soin_from_down": "mort", "effect_ms": "3:75",
                                       "idle_look": "dim",
                                       "_about": {"anything": "goes"}}), "game.json")
    messages = faults(EXAMPLE, game)
    assert messages[0].startswith("%s: coma: unknown setting (known: agonisant_ms" % game)
    assert messages[1:] == [
        "%s: single_effect: expected yes/no (oui/non), got 'maybe'" % game,
        "%s: soin_from_down: soin_from_down must be one of blesse/pleine-forme, got 'mort'"
        % game,
        "%s: effect_ms: bad duration '3:75' (M:SS or H:MM:SS)" % game,
        "%s: idle_look: idle_look must be one of blink/steady, got 'dim'" % game,
    ]
    out = tmp_path / "out"
    assert cli.main(["config", EXAMPLE, "--settings", game, "--out", str(out)]) == 2
    assert not out.exists()


def test_a_settings_file_that_is_not_an_object(tmp_path):
    game = write(tmp_path, "[1, 2]", "game.json")
    assert faults(EXAMPLE, game) == [
        "%s: expected a JSON object {\"setting\": value, ...}" % game]


# ---- one badge's config ---------------------------------------------------------------

def test_check_passes_a_good_config(tmp_path, capsys):
    out = tmp_path / "badges"
    assert cli.main(["config", EXAMPLE, "--out", str(out)]) == 0
    capsys.readouterr()
    assert cli.main(["config", "--check", str(out / "b01.json")]) == 0
    assert "ok: Godefroy de Herseblanche on atom-lite, armor 2" in capsys.readouterr().out


@pytest.mark.parametrize("config, message", [
    ({"board": "atom-lite", "character": {"armor": "bronze"}},
     "character.armor: expected none, cuir, metal or a count from 0 to 99, got 'bronze'"),
    ({"board": "atom-heavy"}, "board: unknown board 'atom-heavy'"),
    ({"board": "atom-lite", "colour": "red"}, "colour: unknown field"),
    ({"board": "atom-lite", "settings": {"coma_ms": -1}}, "settings.coma_ms: "),
    ({"board": "atom-lite", "lang": "de"}, "lang: expected \"fr\" or \"en\""),
    ({"board": "atom-lite", "orga_code": "SLX"},
     "orga_code: expected 4 to 12 presses, S (short) or L (long)"),
    ({"board": "atom-lite", "radio": {"role": "mage"}},
     "radio.role: expected badge, healer or smith, got 'mage'"),
    ({"board": "atom-lite", "radio": {"id": "12"}}, "radio.id: expected 12 hex digits"),
    ({"board": "atom-lite", "radio": {"authorities": {"0102030405zz": ["gm", "00"]}}},
     "radio.authorities.0102030405zz: expected 12 hex digits"),
    ({"board": "atom-lite", "radio": {"role": "healer"}},
     "radio.seed: a healer or smith has a seed, and only they do"),
    ({"board": "atom-lite", "radio": {"frequency": 1}}, "radio.frequency: unknown field"),
])
def test_check_names_the_file_and_field(tmp_path, config, message):
    path = write(tmp_path, json.dumps(config), "config.json")
    with pytest.raises(roster.RosterError) as caught:
        roster.check_config(path)
    assert str(caught.value).startswith("%s: %s" % (path, message)), str(caught.value)


def test_check_exit_codes(tmp_path):
    path = write(tmp_path, "{not json", "config.json")
    r = run_cran("config", "--check", path)
    assert r.returncode == 2 and r.stderr.startswith("%s: not readable as JSON" % path)
    r = run_cran("config")
    assert r.returncode == 2 and "give one of" in r.stderr


RADIO_ROSTER = ("name,armor,board,badge,role\nGodefroy,metal,atom-lite,b01,\n"
                "Ysolde,cuir,atom-lite,b02,soigneuse\nBran,0,atom-lite,b03,Forgeron\n")


def _radio_game(tmp_path, **changes):
    template = roster.settings_template()
    template["radio"] = True
    template.update(changes)
    path = tmp_path / "game.json"
    path.write_text(json.dumps(template))
    return str(path), template["radio_secret"]


def test_a_radio_game_gives_each_badge_its_role_and_only_its_own_seed(tmp_path):
    from host_tools.game.chains import GM_NAME, chain_token, radio_id, seed_of
    game, secret = _radio_game(tmp_path)
    secret = bytes.fromhex(secret)
    configs = {info["name"]: config for info, config in
               roster.badge_configs(write(tmp_path, RADIO_ROSTER), game).values()}
    sections = {name: c["radio"] for name, c in configs.items()}
    assert {n: s["role"] for n, s in sections.items()} == {
        "Godefroy": "badge", "Ysolde": "healer", "Bran": "smith"}
    assert "seed" not in sections["Godefroy"]
    for name in ("Ysolde", "Bran"):   # a seed whose chain the others' anchors verify
        seed = bytes.fromhex(sections[name]["seed"])
        assert seed == seed_of(secret, name)
        anchor = sections["Godefroy"]["authorities"][radio_id(name).hex()][1]
        assert chain_token(seed, 0).hex() == anchor
    gm = sections["Godefroy"]["authorities"][radio_id(GM_NAME).hex()]
    assert gm == ["gm", chain_token(seed_of(secret, GM_NAME), 0).hex()]
    assert len({s["id"] for s in sections.values()}) == 3
    for c in configs.values():   # the secret itself is on no badge
        assert secret.hex() not in json.dumps(c)
    # Without "radio": true, no badge gets a radio.
    template = roster.settings_template()
    plain = tmp_path / "plain.json"
    plain.write_text(json.dumps(template))
    assert all("radio" not in c for _, c in
               roster.badge_configs(write(tmp_path, RADIO_ROSTER), str(plain)).values())


def test_radio_faults_are_named(tmp_path):
    game, _ = _radio_game(tmp_path, radio_secret="abc")
    assert any("game.json: radio_secret: a game key is 64 hex digits" in m
               for m in faults(write(tmp_path, RADIO_ROSTER), game))
    game, _ = _radio_game(tmp_path)
    text = RADIO_ROSTER.replace("Forgeron", "forgeur") + "Ysolde,0,atom-lite,b04,\n"
    messages = faults(write(tmp_path, text), game)
    assert any("roster.csv:4: role: unknown role 'forgeur' (player, healer or smith" in m
               for m in messages), messages
    assert any("roster.csv:5: name: 'Ysolde' is also row 3's" in m for m in messages)


# P1, K9, K12: one check for a character, whichever way it comes. The same wrong value
# as a badge's config (JSON), a roster's cell and a scenario's character field gives the
# same fault after the field's name.
@pytest.mark.parametrize("field, config_value, text", [
    ("armor", "bronze", "bronze"),
    ("armor", 100, "100"),
    ("creature", -1, "-1"),
    ("resist", ["dissipe"], "dissipe"),
    ("resist", ["resiste"], "resiste"),
    ("resist", ["poison"], "poison"),
])
def test_a_character_field_is_checked_once_for_config_roster_and_scenario(
        tmp_path, field, config_value, text):
    from gamefiles import scenario
    with pytest.raises(badge_config.ConfigError) as config_fault:
        badge_config.from_dict({"board": "atom-lite", "character": {field: config_value}},
                               "C", os.path.join(REPO, "boards"))
    config_said = str(config_fault.value).split("C: character.%s: " % field)[1]
    row = {"name": "Ana", "armor": "", "creature": "", "resist": "", field: text}
    path = write(tmp_path, "name,armor,creature,resist,board,badge\n"
                 "%(name)s,%(armor)s,%(creature)s,%(resist)s,atom-lite,b1\n" % row)
    [roster_said] = faults(path)
    assert roster_said.startswith("%s:2: %s: " % (path, field))
    with pytest.raises(scenario.ScenarioError) as scenario_fault:
        scenario.parse("character %s=%s\n0:00 coup\n" % (field, text))
    scenario_said = str(scenario_fault.value).split("1: %s: " % field, 1)[1]
    # The JSON value and the text differ in how a number is quoted, nothing else.
    assert roster_said.split(": ", 2)[2] == scenario_said.split(";")[0]
    assert config_said.replace("'", "") == scenario_said.split(";")[0].replace("'", "")


def test_a_missing_armor_column_is_a_fault_unless_defaults_says_it_is_meant(tmp_path):
    # Without it every character played unarmoured, and cran config said nothing (exit 0).
    path = write(tmp_path, "name,board,badge\nGodefroy,atom-lite,b1\n")
    assert faults(path) == [
        "%s:1: armor: column missing: every character would play unarmoured (armor none). "
        "Add the column (none, cuir, metal or a count), or give --defaults if that is meant"
        % path]
    r = run_cran("config", path, "--out", str(tmp_path / "out"))
    assert r.returncode == 2 and "armor: column missing" in r.stderr
    assert "nothing written" in r.stderr and not (tmp_path / "out").exists()
    # Meant: written, and what every character got is said.
    r = run_cran("config", path, "--defaults", "--out", str(tmp_path / "out"))
    assert r.returncode == 0, r.stderr
    assert ("%s: no armor, helmet, creature, resist, agonisant, coma columns: every "
            "character has armor none, no helmet, creature 0, no resistance, the game's "
            "agonisant time, the game's coma time" % path) in r.stdout
    config = json.loads((tmp_path / "out" / "b1.json").read_text())
    assert config["character"]["armor"] == 0 and config["character"]["helmet"] is False
    # A misspelt armor column is named once, as what it is.
    typo = write(tmp_path, "name,armur,board,badge\nGodefroy,metal,atom-lite,b1\n", "typo.csv")
    assert [m.split(": ", 2)[1:] for m in faults(typo)] == [
        ["armur", "unknown column (known: name, armor, helmet, creature, resist, agonisant, "
         "coma, board, port, badge, lang, volume, light_sleep, role, notes); did you mean "
         "'armure'?"]]
    # flash --roster reads it the same way, before any port is opened.
    r = run_cran("flash", "--roster", path, "--port", "/dev/ttyNOPE0")
    assert r.returncode == 2 and "armor: column missing" in r.stderr


def test_each_character_column_left_out_is_said_with_what_it_gives(tmp_path):
    path = write(tmp_path, "name,armor,resist,board,badge\nAli,cuir,peur,atom-lite,b1\n")
    r = run_cran("config", path, "--out", str(tmp_path / "out"))
    assert r.returncode == 0, r.stderr
    assert ("no helmet, creature, agonisant, coma columns: every character has no helmet, "
            "creature 0, the game's agonisant time, the game's coma time") in r.stdout
    r = run_cran("config", EXAMPLE, "--out", str(tmp_path / "all"))
    assert r.returncode == 0 and "every character has" not in r.stdout   # all there


def _files(folder):
    return {name: (folder / name).read_text() for name in sorted(os.listdir(str(folder)))}


def test_a_configs_folder_of_another_game_is_refused_unless_replaced(tmp_path):
    # Issue 35: the rehearsal's `cran config examples/rehearsal.csv --settings
    # rehearsal.json` (into ./badges) replaced the real game's b01.json... and game.key
    # in silence: flashed from there, the players got a rehearsal's character and a key
    # the station did not know. Now refused, exit 2, nothing written, the way out said.
    real, rehearsal = tmp_path / "game.json", tmp_path / "rehearsal.json"
    for path in (real, rehearsal):
        assert run_cran("config", "--settings-template", str(path)).returncode == 0
    out = tmp_path / "badges"
    assert run_cran("config", EXAMPLE, "--settings", str(real), "--out",
                    str(out)).returncode == 0
    before = _files(out)
    other = write(tmp_path, "name,armor,board,badge\nJoueur 01,none,atom-lite,b01\n"
                  "Joueur 09,none,atom-lite,b09\n")
    for settings in (str(rehearsal), None):   # another key, or none at all
        r = run_cran("config", other, "--out", str(out),
                     *(("--settings", settings) if settings else ()))
        assert r.returncode == 2, r.stdout + r.stderr
        said = " ".join(r.stderr.split())
        assert "%s holds another game's configs (game key id " % out in said, said
        assert "Nothing written: give another folder (--out FOLDER), or --replace" in said
        assert _files(out) == before
    # Its own game's settings again: written over, as before.
    assert run_cran("config", EXAMPLE, "--settings", str(real), "--out",
                    str(out)).returncode == 0
    # --replace: the folder becomes the rehearsal's, the real game's configs gone.
    r = run_cran("config", other, "--settings", str(rehearsal), "--out", str(out),
                 "--replace")
    assert r.returncode == 0, r.stderr
    assert sorted(_files(out)) == ["b01.json", "b09.json", "game.key"]
    key = json.loads(rehearsal.read_text())["game_key"]
    assert (out / "game.key").read_text().strip() == key
    assert json.loads((out / "b01.json").read_text())["character"]["name"] == "Joueur 01"
    assert "the other game's" in r.stdout and "removed (--replace)" in r.stdout


def test_a_new_game_s_settings_say_its_key_s_id_and_its_orga_code(tmp_path):
    # "fresh game key d6ae16fa" read as the key's start; the Orga page's code, which the
    # organisers must tell each other, was not said.
    game = tmp_path / "game.json"
    r = run_cran("config", "--settings-template", str(game))
    made = json.loads(game.read_text())
    from cran.lock import key_id
    said = " ".join(r.stdout.split())
    assert "a fresh game key (its id %s; the key itself stays in the file)" % key_id(
        bytes.fromhex(made["game_key"])) in said, said
    assert "the Orga page's code %s (S a short press, L a long one)" % made["orga_code"] \
        in said
