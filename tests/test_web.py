# The badge in a browser (`cran web`, host_tools/web): the site built (npm fetches the
# pinned WebAssembly port), served on this machine, opened in Debian's Chromium (driven
# by Playwright, never a browser of its own); the example fight played by pressing the
# page's button on every MicroPython board, LED colours, screen and journal checked
# against the scenario's expect lines; the browser's trace against `cran scenario`'s.
# Screenshots are kept in artefacts/web/ (not committed).
import functools
import http.server
import importlib.util
import json
import os
import re
import shutil
import tempfile
import threading
import time

import pytest

from conftest import REPO, run_cran
from cran import cues
from cran.core.view import FIELDS
from cran.core.vocab import STATES
from gamefiles import scenario
from host_tools import cli
from host_tools.boards import board_ids
from host_tools.game.scenarios import events_as_records
from host_tools.virtual.runtimes import run_scenario
from host_tools.web import lessons, link, site

CHROMIUM = "/usr/bin/chromium"
# The flags a browser test runs Chromium with (a fresh profile each: --user-data-dir).
FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]
PHONE = {"width": 390, "height": 844}
ARTEFACTS = os.path.join(REPO, "artefacts", "web")
BOARDS = board_ids()            # the MicroPython boards: every one has its page
EXAMPLE = "00-exemple"


# ---- the site, without a browser -----------------------------------------------------

@pytest.fixture(scope="module")
def built(tmp_path_factory):
    if shutil.which("npm") is None:
        pytest.skip("no npm: cran web fetches MicroPython's WebAssembly port with it")
    out = str(tmp_path_factory.mktemp("site"))
    return out, site.build_site(out)


def test_the_site_is_small_and_holds_the_pinned_port_and_the_firmware_cran_flash_makes(
        built, tmp_path):
    out, sizes = built
    assert sum(sizes.values()) <= site.SIZE_TARGET
    with open(os.path.join(site.WEB_DIR, "package-lock.json")) as f:
        pinned = json.load(f)["packages"]["node_modules/" + site.PACKAGE]["version"]
    assert tuple(int(n) for n in re.findall(r"\d+", pinned)[:2]) >= (1, 28)
    with open(os.path.join(out, "micropython.mjs"), encoding="utf-8") as f:
        assert "loadMicroPython" in f.read()
    # Every module of the firmware as `cran flash` compiles it, byte for byte, in the
    # image the page mounts; nothing in the page loaded from elsewhere.
    from host_tools import build
    with open(os.path.join(out, "badge.romfs"), "rb") as f:
        image = f.read()
    compiled = build.compile_firmware(str(tmp_path / "fw"))
    for path, local in compiled.items():
        if path.endswith(".mpy"):
            with open(local, "rb") as f:
                assert f.read() in image, path
    for name in site.PAGE_FILES + ("sw.js",):
        with open(os.path.join(out, name), encoding="utf-8") as f:
            text = f.read()
        assert not re.search(r"""(src|href|import[^"']*)=?\s*["']https?://""", text), name
    with open(os.path.join(out, "site.json"), encoding="utf-8") as f:
        data = json.load(f)
    assert [b["id"] for b in data["boards"]] == BOARDS
    assert len(data["lessons"]) >= 13


def test_a_lesson_is_a_scenario_whose_expect_lines_hold_and_whose_presses_are_the_menus():
    read = lessons.read_all()
    ids = [lesson["id"] for lesson in read]
    assert ids[0] == EXAMPLE
    # The example fight is the rulebook's: the contract's own file, with words.
    with open(os.path.join(REPO, "tests", "data", "contract-example.txt")) as f:
        contract = scenario.parse(f.read())
    example = read[0]
    assert [(s["t"], s["kind"]) for s in example["steps"]] == [
        (t, kind) for _, t, kind, _ in contract.steps]
    # One lesson per state, per effect family.
    text = " ".join(lesson["text"] for lesson in read)
    for state in STATES:
        assert "etat=" + state in text, state
    for family in ("effet peur", "coup desarme", "effet vol", "coup brise", "effet dissipe",
                   "resist=", "divin", "helmet=oui", "hors-jeu", "stop"):
        assert family in text, family
    for lesson in read:
        events = run_scenario(lesson["text"], "cpython")
        failed = [e for e in events_as_records(events, scenario.parse(lesson["text"]))
                  if e["event"] == "expect" and not e["ok"]]
        assert failed == [], lesson["id"]
        assert lesson["title"] and lesson["intro"]
        for step in lesson["steps"]:
            assert step["words"], (lesson["id"], step["line"])
            if step["kind"] == "act" and step["action"].split()[0] not in lessons.ORGANISERS:
                assert None not in step["presses"].values(), (lesson["id"], step["action"])
    # docs/controls.md's examples, divin's included.
    assert lessons.presses("coup blesse divin", "one") == "L S L S S S S L S L L"
    assert lessons.presses("coup blesse divin", "two") == "A aa a a"
    assert lessons.presses("coup", "one") == "S"
    assert lessons.presses("soin", "two") == "bb a"


def test_cran_card_prints_a_qr_code_of_the_wearers_page(tmp_path, capsys):
    zxingcpp = pytest.importorskip("zxingcpp", reason="zxing-cpp reads the QR code back")
    from PIL import Image
    config = tmp_path / "ali.json"
    config.write_text(json.dumps({"board": "atom-matrix", "character": {
        "name": "Ali Baba", "armor": 1, "helmet": True, "resist": ["peur", "charme"],
        "agonisant_ms": 450000}}))
    png = tmp_path / "card.png"
    assert cli.main(["card", "--url", "https://jeu.example.org/badge/", "--character",
                     str(config), "--out", str(png)]) == 0
    image = Image.open(str(png))
    assert image.size == (3 * 1240, 1748)   # a third A6 side
    read = [r.text for r in zxingcpp.read_barcodes(image)]
    assert read == ["https://jeu.example.org/badge/#board=atom-matrix&name=Ali+Baba&armor=1"
                    "&helmet=oui&resist=peur,charme&agonisant=450s"]
    assert read[0] in capsys.readouterr().out
    assert cli.main(["card", "--character", str(config), "--out", str(png)]) == 2


def test_the_page_address_holds_the_character_line():
    url = link.page_url("https://x.org/b/#old", "m5stickc-plus", {
        "name": "Nico", "armor": 0, "helmet": False, "creature": 2, "coma_ms": 90500})
    assert url == "https://x.org/b/#board=m5stickc-plus&name=Nico&creature=2&coma=90500ms"


# ---- in the browser ----------------------------------------------------------------------

class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def served(built):
    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(_Quiet, directory=built[0]))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield "http://127.0.0.1:%d/" % server.server_address[1]
    server.shutdown()


@pytest.fixture(scope="module")
def chromium():
    if not os.path.exists(CHROMIUM):
        pytest.skip("no %s: apt-get install chromium (make test does, as root)" % CHROMIUM)
    sync_api = pytest.importorskip("playwright.sync_api",
                                   reason="no playwright: pip install -e '.[dev]'")
    with sync_api.sync_playwright() as pw:
        yield pw


@pytest.fixture
def browser(chromium):
    """-> open(url, viewport) -> a page in a fresh Chromium (its own profile)."""
    contexts = []

    def open_page(url, viewport=PHONE):
        context = chromium.chromium.launch_persistent_context(
            tempfile.mkdtemp(prefix="cran-chromium-"), executable_path=CHROMIUM,
            headless=True, args=FLAGS, viewport=viewport)
        contexts.append(context)
        page = context.new_page()
        errors, asked = [], []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.on("request", lambda r: asked.append(r.url))
        page.errors, page.asked = errors, asked
        page.goto(url)
        page.wait_for_function("window.cranBadge && cranBadge.timings.firstScreen",
                               timeout=30000)
        return page
    yield open_page
    for context in contexts:
        context.close()


def _press(page, key):
    """One of a lesson's presses (S L, or a b A B aa bb) on the page's own buttons, as
    a finger does, then the wait the badge needs to tell it from the next."""
    p = page.evaluate("cranBadge.hello.press_ms")
    name = "a" if key in ("S", "L") else key[0].lower()
    held = (p["long"] + 300) if key in ("L", "A", "B") else (p["debounce"] + 80)
    page.locator("#button-" + name).hover()
    for i in range(2 if key in ("aa", "bb") else 1):
        if i:
            time.sleep((p["debounce"] + 60) / 1000)
        page.mouse.down()
        time.sleep(held / 1000)
        page.mouse.up()
    time.sleep((p["double"] + p["debounce"] + 150) / 1000)


def _looks_for(expect):
    """The LED looks an expect line's fields show (docs/controls.md): an answer's white
    motif, else the state's look."""
    fields = dict((f, v) for f, v, _ in expect)
    if fields.get("dit", "-") != "-":
        return [fields["dit"]]
    return {"pleine-forme": ["veille", "debout"], "blesse": ["blesse"],
            "agonisant": ["au-sol", "alerte"], "coma": ["inerte"],
            "mort": ["inerte"]}.get(fields.get("etat"), [])


def _hue(rgb):
    norm = sum(c * c for c in rgb) ** 0.5
    return [c / norm for c in rgb]


def _same_hue(a, b):
    return sum(x * y for x, y in zip(_hue(a), _hue(b))) > 0.97


def _sees_look(page, looks, within_s=4.4):
    """The page's LEDs, as drawn, show one of the looks' colours (cran.cues's) within
    within_s seconds (the slowest look blinks once in 4 s)."""
    wanted = [cues._LOOKS[look][0] for look in looks]
    end = time.monotonic() + within_s
    while time.monotonic() < end:
        drawn = page.evaluate("[...document.querySelectorAll('#leds .led')]"
                              ".map(e => (e.dataset.rgb || '40,40,40').split(',').map(Number))")
        for rgb in drawn:
            if rgb != [40, 40, 40] and any(_same_hue(rgb, w) for w in wanted):
                return True
        time.sleep(0.04)
    return False


def _framebuf():
    path = os.path.join(REPO, "host_tools", "virtual", "micropython", "cpython", "framebuf.py")
    spec = importlib.util.spec_from_file_location("cp_framebuf", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _screen_holds(page, words):
    """The screen, as drawn on the page's canvas, is the firmware's lines in its 8x8
    font, pixel for pixel, and says `words`."""
    lines = page.evaluate("cranBadge.frame.screen")
    label = page.get_attribute("#screen", "aria-label")
    assert label == " / ".join(lines)
    assert any(line.startswith(words) for line in lines), (words, lines)
    w, h, lit = page.evaluate("""(() => { const c = document.getElementById('screen');
        const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
        const lit = [];
        for (let i = 0; i < d.length; i += 4) lit.push(d[i] + d[i+1] + d[i+2] > 300 ? 1 : 0);
        return [c.width, c.height, lit]; })()""")
    fb = _framebuf()
    drawn = fb.FrameBuffer(bytearray(w * h // 8 + w), w, h, fb.MONO_HLSB)
    for i, line in enumerate(lines):
        drawn.text(line, 0, i * 10, 1)   # cran.hal.display.Screen's 10-pixel lines
    wanted = [drawn.pixel(x, y) for y in range(h) for x in range(w)]
    assert lit == wanted


def _journal(page):
    """The page's journal: (the action, or "timer") and the state after, of each entry
    that changed something."""
    out = []
    for _, entry in page.evaluate("cranBadge.journal"):
        if "a" in entry or "timer" in entry:
            out.append((entry.get("a", "timer"), STATES[entry["s"][0]]))
    return out


def _bare(text):
    """The same, by the bare engine (gamefiles.scenario) on CPython."""
    out = []
    for event in run_scenario(text, "cpython"):
        if event[0] in ("act", "timer"):
            seen = dict(zip(FIELDS, event[-1]))
            out.append((event[3] if event[0] == "act" else "timer", seen["etat"]))
    return out


@pytest.mark.parametrize("board", BOARDS)
def test_the_example_fight_played_on_the_page_s_button_holds_every_expect(
        built, served, browser, board):
    data = [b for b in json.load(open(os.path.join(built[0], "site.json")))["boards"]
            if b["id"] == board][0]
    lesson = lessons.read(os.path.join(lessons.LESSONS_DIR, EXAMPLE + ".txt"))
    page = browser(served + "#board=" + board)
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    page.select_option("#lesson-pick", EXAMPLE)
    page.click("#lesson-start")   # as a player starts it
    hello = page.evaluate("cranBadge.hello")
    os.makedirs(ARTEFACTS, exist_ok=True)
    for n, step in enumerate(lesson["steps"]):
        if step["kind"] == "act":
            page.wait_for_function("cranBadge.lesson && cranBadge.lesson.awaiting",
                                   timeout=30000)
            for key in step["presses"][data["menu"]].split():
                _press(page, key)
            continue
        page.wait_for_function("!cranBadge.lesson || cranBadge.lesson.step > %d" % n,
                               timeout=60000)
        done = page.locator("#lesson-log li").nth(n)
        assert done.get_attribute("class") == "ok", done.inner_text()
        if hello["leds"]:
            looks = _looks_for(step["expect"])
            assert not looks or _sees_look(page, looks), (step["wanted"], looks)
        if hello["screen"]:
            fields = dict((f, v) for f, v, _ in step["expect"])
            words = ("Dis: ARMURE" if fields.get("dit") == "armure" else
                     {"blesse": "Blesse", "agonisant": "Au sol", "coma": "Inerte",
                      "mort": "Inerte"}.get(fields.get("etat")))
            if words:
                _screen_holds(page, words)
        if n == 3:   # wounded: a picture of the board mid-fight
            page.screenshot(path=os.path.join(ARTEFACTS, "%s-blesse.png" % board),
                            full_page=True)
    page.wait_for_function("cranBadge.lastLesson", timeout=60000)
    assert page.evaluate("cranBadge.lastLesson") == {"id": EXAMPLE, "held": 5, "failed": 0}
    assert "5 vérifications sur 5" in page.inner_text("#lesson-state")
    assert _journal(page) == _bare(lesson["text"])
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    page.screenshot(path=os.path.join(ARTEFACTS, "%s.png" % board), full_page=True)
    assert page.errors == []


def test_the_browser_gives_the_trace_cran_scenario_gives(served, browser):
    # Each lesson played by itself in the page (Regarder: its actions said at the
    # console at their times, the clock crossing the waits fast): its events, as
    # `cran scenario --json` prints them, are that command's, event for event.
    page = browser(served + "#board=atom-matrix")
    for lesson in lessons.read_all():
        page.evaluate("cranBadge.startLesson(%s, {auto: true, dwell: 0, cross: 150})"
                      % json.dumps(lesson["id"]))
        page.wait_for_function("cranBadge.lastLesson && cranBadge.lastLesson.id == %s"
                               % json.dumps(lesson["id"]), timeout=60000)
        parsed = scenario.parse(lesson["text"])
        seen = events_as_records(page.evaluate("cranBadge.events()"), parsed)
        done = run_cran("scenario", os.path.join(lessons.LESSONS_DIR, lesson["id"] + ".txt"),
                        "--json")
        assert done.returncode == 0, done.stderr
        assert seen == [json.loads(line) for line in done.stdout.splitlines()], lesson["id"]
    assert page.errors == []


def test_the_page_wears_the_character_of_its_address_its_form_and_its_config(
        served, browser, tmp_path):
    page = browser(served + "#board=esp32-devkitc&name=Ali+Baba&armor=cuir&resist=peur")
    status = page.evaluate("cranBadge.frame.status")
    assert (status["personnage"], status["armure"], status["board"]) == (
        "Ali Baba", 1, "esp32-devkitc")
    page.click("#character-box summary")
    page.fill("#f-resist", "peur, courage")
    page.click("#character button[type=submit]")
    error = page.inner_text("#character-error")
    assert "courage" in error        # the firmware's own check says what is wrong
    assert page.evaluate("cranBadge.frame.status.personnage") == "Ali Baba"
    page.fill("#f-resist", "")
    page.select_option("#f-armor", "metal")
    page.click("#character button[type=submit]")
    assert page.evaluate("cranBadge.frame.status.armure") == 2
    assert "armor=metal" in page.evaluate("location.hash")
    # The badge's own config file, as `cran config` writes it: its board and character.
    config = tmp_path / "nico.json"
    config.write_text(json.dumps({"board": "atom-matrix", "lang": "fr", "character": {
        "name": "Nico", "armor": 1, "creature": 2}}))
    page.set_input_files("#config-file", str(config))
    page.wait_for_function("cranBadge.board == 'atom-matrix'")
    status = page.evaluate("cranBadge.frame.status")
    assert (status["personnage"], status["armure"]) == ("Nico", 1)
    assert page.errors == []


def test_the_first_screen_and_a_press_are_fast(served, browser):
    # A cold cache (a fresh profile) from this machine: the badge drawn within 3 s, a
    # press answered on the page (the event to the next paint) within 50 ms.
    page = browser(served + "#board=atom-lite")
    assert page.evaluate("cranBadge.timings.firstScreen") <= 3000
    for _ in range(8):
        _press(page, "S")
    presses = sorted(page.evaluate("cranBadge.timings.presses"))
    assert len(presses) == 16 and presses[len(presses) // 2] <= 50, presses
    # The keyboard's space is button a too: a hit, in the badge's journal.
    hits = len([e for _, e in page.evaluate("cranBadge.journal") if "a" in e])
    page.keyboard.down(" ")
    time.sleep(0.12)
    page.keyboard.up(" ")
    page.wait_for_function("cranBadge.journal.filter(e => 'a' in e[1]).length > %d" % hits)
    # Everything the page asked for came from the site (the port too): no CDN.
    assert page.asked and [url for url in page.asked if not url.startswith(served)] == []
