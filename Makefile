# The README's first two commands, `make demo` and `make test`, do all the set-up on a fresh Debian machine.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: demo test lint unit bench clean zbar

$(STAMP): pyproject.toml
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[gui,dev]'
	@touch $(STAMP)

# pyzbar loads the system library libzbar at run time.
zbar:
	@if ! ldconfig -p 2>/dev/null | grep -q 'libzbar\.so'; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "installing libzbar0 (needed by pyzbar)"; \
	    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libzbar0 >/dev/null) \
	      || { echo "could not install libzbar0 with apt-get"; exit 2; }; \
	  else \
	    echo "libzbar0 is missing: run 'sudo apt-get install libzbar0', then make again"; exit 2; \
	  fi; \
	fi

demo: $(STAMP) zbar
	$(VENV)/bin/fieldglass gui --source synthetic --screenshot out/demo.png

lint: $(STAMP)
	$(VENV)/bin/ruff check .

unit: $(STAMP) zbar
	QT_QPA_PLATFORM=offscreen $(PY) -m pytest

test: lint unit

bench: $(STAMP) zbar
	$(VENV)/bin/fieldglass bench vision

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .ruff_cache
