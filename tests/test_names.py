# The names (qstrs) a badge makes (tests/mp/names_driver.py): all of them at its start,
# from the list cran flash installs beside the modules, and none for what the console
# is sent. A qstr is kept for good, and a new pool of them is one block of ~9 KB: made
# hours into a game, in a fragmented heap, it was where a badge ran out of memory.
import json
import os
import subprocess

import pytest

from host_tools import build
from host_tools.runtimes import BOARDS_DIR
from host_tools.vhw import sys_path

DRIVER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "mp", "names_driver.py")


@pytest.mark.parametrize("board", ["atom-lite", "m5stickc-plus"])
def test_every_name_is_made_at_the_start_and_none_by_the_console(micropython, tmp_path,
                                                                  board):
    firmware = str(tmp_path / "firmware")
    files = build.compile_firmware(firmware)
    assert build.NAMES_FILE in files
    flash = tmp_path / "flash"
    flash.mkdir()
    out = subprocess.run([micropython, "-X", "heapsize=4m", DRIVER, firmware, BOARDS_DIR,
                          str(flash), board, *sys_path("micropython")],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-2000:]
    lines = out.stdout.splitlines()
    seen = dict((lines[i], int(lines[i + 1].split("n_qstr=")[1].split(",")[0]))
                for i in range(len(lines) - 1) if lines[i].startswith("after_"))
    assert seen["after_lazy"] == seen["after_boot"]    # the grammar's, auth's: made
    assert seen["after_lines"] == seen["after_boot"]   # 3,000 characters never seen
    # The lines were read and answered, not dropped.
    answers = json.loads(lines[-1])
    assert all(a.startswith("error:") for a in answers), answers


def test_the_names_file_has_every_module_and_what_its_mpy_makes(tmp_path):
    files = build.compile_firmware(str(tmp_path))
    with open(files[build.NAMES_FILE], encoding="utf-8") as f:
        lines = [json.loads(line) for line in f]
    by_file = dict((line[0], line) for line in lines)
    mpys = sorted(p[1:] for p in files if p.endswith(".mpy") and p != "/cran/fail.mpy")
    assert sorted(by_file) == mpys
    assert by_file["cran/texts.mpy"][1] == "display"
    assert by_file["cran/app.mpy"][1] == ""
    assert "show_loop" in by_file["cran/app.mpy"]          # a method's name
    assert "cran/app.py" in by_file["cran/app.mpy"]        # its source, for tracebacks
    sizes = [len(json.dumps(line, ensure_ascii=False)) for line in lines]
    assert sizes == sorted(sizes, reverse=True)            # the longest first
