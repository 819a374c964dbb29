# The badge in a browser (`cran web`): the site's size, and, in Debian's Chromium on this
# machine (driven by Playwright as tests/test_web.py drives it), the first screen from a
# cold cache and a press answered on the page. Written into docs/PERFORMANCE.md: its
# section, and its figures in the JSON at the end (bench/report.py keeps both).
import functools
import http.server
import os
import statistics
import sys
import tempfile
import threading
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, REPO)
sys.path.insert(0, os.path.join(REPO, "bench"))

from host_tools.web import site  # noqa: E402

HEADING = "## The badge in a browser (`cran web`)"
CHROMIUM = "/usr/bin/chromium"
FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]
TARGET_FIRST_MS = 3000   # the badge drawn, from a cold cache served on this machine
TARGET_PRESS_MS = 50     # a press answered on the page: the event to the next paint
COLD_RUNS = 3
PRESSES = 20


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def _in_browser(out):
    """-> {"first_ms": [...], "boot_ms": [...], "press_ms": [...]} or the reason why not."""
    if not os.path.exists(CHROMIUM):
        return "no %s (apt-get install chromium)" % CHROMIUM
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        return "no playwright (pip install -e '.[dev]')"
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0),
                                             functools.partial(_Quiet, directory=out))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = "http://127.0.0.1:%d/#board=atom-lite" % server.server_address[1]
    got = {"first_ms": [], "boot_ms": [], "press_ms": []}
    try:
        with sync_playwright() as pw:
            for run in range(COLD_RUNS):
                with tempfile.TemporaryDirectory(prefix="cran-chromium-") as profile:
                    context = pw.chromium.launch_persistent_context(
                        profile, executable_path=CHROMIUM, headless=True, args=FLAGS,
                        viewport={"width": 390, "height": 844})
                    page = context.new_page()
                    page.goto(url)
                    page.wait_for_function("window.cranBadge && cranBadge.timings.firstScreen",
                                           timeout=30000)
                    timings = page.evaluate("cranBadge.timings")
                    got["first_ms"].append(timings["firstScreen"])
                    got["boot_ms"].append(timings["boot"])
                    if run == 0:
                        _press(page)
                        got["press_ms"] = page.evaluate("cranBadge.timings.presses")
                    context.close()
    finally:
        server.shutdown()
    return got


def _press(page):
    """Short presses on the page's button, as a finger makes them, a hit each."""
    box = page.locator("#button-a").bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    for _ in range(PRESSES // 2):
        page.mouse.down()
        time.sleep(0.1)
        page.mouse.up()
        time.sleep(0.6)


def measure():
    with tempfile.TemporaryDirectory(prefix="cran-web-") as out:
        t = time.monotonic()
        sizes = site.build_site(out)
        figures = {"sizes": sizes, "total": sum(sizes.values()),
                   "build_s": round(time.monotonic() - t, 1)}
        seen = _in_browser(out)
    if isinstance(seen, str):
        figures["skipped"] = seen
    else:
        figures["first_ms"] = round(statistics.median(seen["first_ms"]))
        figures["first_ms_max"] = round(max(seen["first_ms"]))
        figures["boot_ms"] = round(statistics.median(seen["boot_ms"]))
        figures["press_ms"] = round(statistics.median(seen["press_ms"]), 1)
        figures["press_ms_max"] = round(max(seen["press_ms"]), 1)
        figures["presses"] = len(seen["press_ms"])
        figures["runs"] = COLD_RUNS
    figures["when"] = time.strftime("%Y-%m-%d", time.gmtime())
    return figures


def _verdict(ok):
    return "within" if ok else "OVER"


def section(web):
    """docs/PERFORMANCE.md's lines for the page's figures (measure()), or a line saying
    how to measure them."""
    if not web:
        return [HEADING, "", "Not measured yet: `python bench/web.py` (or `make bench`) "
                "measures them and writes them here."]
    total = web["total"]
    lines = [HEADING, "",
             "`cran web --out DIR` writes the site: the badge's firmware as `cran flash` "
             "compiles it, run by MicroPython's WebAssembly port (npm's "
             "`%s`, pinned by `host_tools/web/package-lock.json`) on cran sim's virtual "
             "hardware, the page and its lessons (docs/controls.md, \"The badge in a "
             "browser\"). Measured on %s." % (site.PACKAGE, web["when"]), "",
             "| figure | measured | target | verdict |", "|---|---|---|---|",
             "| the site, every file | %.2f MB (%s) | %.0f MB | %s |" % (
                 total / 1048576, ", ".join("%s %.0f KB" % (n, b / 1024) for n, b in sorted(
                     web["sizes"].items(), key=lambda i: -i[1])[:3]),
                 site.SIZE_TARGET / 1048576, _verdict(total <= site.SIZE_TARGET))]
    if "skipped" in web:
        lines += ["", "Not measured in a browser: %s." % web["skipped"]]
        return lines
    lines += [
        "| first screen, cold cache (the badge drawn, from the page's request) | %d ms "
        "(median of %d; slowest %d ms; the port and the firmware's image loaded and "
        "started at %d ms) | %d ms | %s |" % (
            web["first_ms"], web["runs"], web["first_ms_max"], web["boot_ms"],
            TARGET_FIRST_MS, _verdict(web["first_ms_max"] <= TARGET_FIRST_MS)),
        "| a press answered on the page (the pointer event to the next paint, the "
        "badge's frame drawn) | %.1f ms (median of %d; slowest %.1f ms) | %d ms | %s |" % (
            web["press_ms"], web["presses"], web["press_ms_max"], TARGET_PRESS_MS,
            _verdict(web["press_ms"] <= TARGET_PRESS_MS)),
        "",
        "Served by `python -m http.server` on this machine, opened in Debian's Chromium "
        "(headless, a fresh profile each time: a cold cache), a phone's 390 x 844 "
        "window. The first screen is `performance.now()` when the badge's first frame "
        "is drawn (Atom Lite); a press is from the pointer's event to the next "
        "animation frame after the badge's answer was drawn, %d presses and releases of "
        "button A. The badge's own time for a press is in \"A hit\" above." % web["presses"]]
    return lines


def write(web, path=None):
    """The section into docs/PERFORMANCE.md (before the method), the figures into its
    JSON."""
    from host_tools.device.bench_figures import PERFORMANCE, read_figures, write_section
    path = path or PERFORMANCE
    figures = read_figures(path) or {}
    figures["web"] = web
    write_section(path, HEADING, section(web), figures)


if __name__ == "__main__":
    got = measure()
    print("\n".join(section(got)))
    write(got)
