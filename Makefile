# cran: `make sim` runs the main job, `make test` the whole suite (installing first).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STUBS := .stubs
STAMP := $(VENV)/.installed

.PHONY: all sim test lint bench chip soak install browser clean

all: test

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

# PYTHONWARNINGS: setuptools' note that every editable install of a package mapped to
# another folder gets (cran -> firmware/cran) is no fault of ours: not shown.
$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet --upgrade pip
	PYTHONWARNINGS="ignore:Editable installation" $(BIN)/python -m pip install --quiet -e ".[dev]"
	$(BIN)/python -m host_tools.cplibs install
	touch $@
	@echo "cran is installed: .venv/bin/cran (\`. .venv/bin/activate\` puts cran on this terminal's PATH)"

# ESP32 stubs in their own folder: in the venv they would shadow CPython's own modules.
$(STUBS)/.installed: | $(BIN)/python
	$(BIN)/python -m pip install --quiet --target $(STUBS) micropython-esp32-stubs
	touch $@

install: $(STAMP)

sim: $(STAMP)
	$(BIN)/cran sim

lint: $(STAMP) $(STUBS)/.installed
	$(BIN)/ruff check firmware gamefiles host_tools tests bench
	# gamefiles with the firmware: it runs inside MicroPython too, on the firmware's API.
	cd firmware && MYPYPATH=../$(STUBS):.. ../$(BIN)/mypy --config-file ../pyproject.toml \
	    --custom-typeshed-dir ../$(STUBS) --exclude 'cran/hal_cp/' \
	    --no-site-packages --explicit-package-bases cran main.py ../gamefiles
	# The CircuitPython build's own modules against CircuitPython's API (circuitpython-stubs,
	# a dev dependency: in the venv), the rest of the firmware as read above.
	cd firmware && ../$(BIN)/mypy --config-file ../pyproject.toml --explicit-package-bases \
	    --follow-imports=silent cran/hal_cp code.py

# The browser tests' own (tests/test_web.py): Debian's Chromium, never a browser downloaded
# by a test tool, and npm for `cran web`'s WebAssembly port. As root (CI, a fresh machine)
# apt-get installs what is missing; otherwise the tests say why they skip.
browser:
	@missing=""; [ -x /usr/bin/chromium ] || missing="chromium chromium-driver"; \
	command -v npm >/dev/null || missing="$$missing nodejs npm"; \
	if [ -z "$$missing" ]; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    echo "installing $$missing (apt-get), for tests/test_web.py"; \
	    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
	        $$missing) >/dev/null || echo "apt-get could not install $$missing: the browser tests will skip"; \
	else echo "$$missing: not installed, and not root to install them: the browser tests will skip"; fi

test: lint browser
	$(BIN)/python -m pytest -n auto

bench: $(STAMP)
	$(BIN)/python bench/run.py
	$(BIN)/python bench/mpy_size.py
	$(BIN)/python bench/deploy.py
	$(BIN)/python bench/web.py

# The badge on the real chip's own image: the stock MicroPython ESP32 image in QEMU
# (../shared/tools/qemu-esp32), started by its main.py, the fight at its console; the
# heap per board, with and without the radio, into docs/PERFORMANCE.md. BOARDS=... for
# some boards only.
chip: $(STAMP)
	$(BIN)/python bench/chip.py $(BOARDS)

# Long, not in CI: hostile console lines and power cuts on a virtual badge, with figures
# (docs/RELIABILITY.md). SOAK_LINES=100000 SOAK_KILLS=200 by default.
soak: $(STAMP)
	$(BIN)/python bench/soak.py

clean:
	rm -rf $(VENV) $(STUBS) .circuitpython .pytest_cache .hypothesis .mypy_cache .ruff_cache
