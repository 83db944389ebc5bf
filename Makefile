# The README's first two commands, `make demo` and `make test`, do all the set-up on a fresh Debian machine.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: demo test lint unit bench clean sysdeps

$(STAMP): pyproject.toml
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[gui,dev]'
	@touch $(STAMP)

# Shared libraries the Python packages load at run time, and the Debian packages that bring them: pyzbar needs
# libzbar; PySide6 needs EGL/GL, fontconfig, xkbcommon, GLib and D-Bus, and the xcb ones for a window on X11.
SYSLIBS := libzbar.so.0:libzbar0 libEGL.so.1:libegl1 libGL.so.1:libgl1 libfontconfig.so.1:libfontconfig1 \
	libxkbcommon.so.0:libxkbcommon0 libglib-2.0.so.0:libglib2.0-0 libdbus-1.so.3:libdbus-1-3 \
	libX11-xcb.so.1:libx11-xcb1 libxkbcommon-x11.so.0:libxkbcommon-x11-0 libxcb-cursor.so.0:libxcb-cursor0 \
	libxcb-icccm.so.4:libxcb-icccm4 libxcb-keysyms.so.1:libxcb-keysyms1 libxcb-image.so.0:libxcb-image0 \
	libxcb-randr.so.0:libxcb-randr0 libxcb-render-util.so.0:libxcb-render-util0 libxcb-shape.so.0:libxcb-shape0 \
	libxcb-xkb.so.1:libxcb-xkb1
# Commands: the print tests render PDFs with poppler's pdftoppm and read their text with pdftotext; the web tests
# open the pages in Debian's chromium (driven by Playwright, which never downloads a browser of its own here) and run
# their own PostgreSQL server with initdb and pg_ctl (Debian keeps them in /usr/lib/postgresql/N/bin, off the PATH);
# `fieldglass bench dashboard` paints the dashboard on an Xvfb server it starts itself.
SYSCMDS := pdftoppm:poppler-utils pdftotext:poppler-utils chromium:chromium Xvfb:xvfb
SYSGLOBS := /usr/lib/postgresql/*/bin/initdb:postgresql

sysdeps:
	@missing=""; for pair in $(SYSLIBS); do \
	  lib=$${pair%%:*}; pkg=$${pair##*:}; \
	  ldconfig -p 2>/dev/null | grep -q "$$lib" || missing="$$missing $$pkg"; \
	done; \
	for pair in $(SYSCMDS); do \
	  cmd=$${pair%%:*}; pkg=$${pair##*:}; \
	  command -v "$$cmd" >/dev/null 2>&1 || case "$$missing" in *" $$pkg"*) ;; *) missing="$$missing $$pkg";; esac; \
	done; \
	for pair in $(SYSGLOBS); do \
	  pattern=$${pair%%:*}; pkg=$${pair##*:}; \
	  ls $$pattern >/dev/null 2>&1 || missing="$$missing $$pkg"; \
	done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "installing system packages:$$missing"; \
	    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null) \
	      || { echo "could not install$$missing with apt-get"; exit 2; }; \
	  else \
	    echo "missing system packages:$$missing; run 'sudo apt-get install$$missing', then make again"; exit 2; \
	  fi; \
	fi

demo: $(STAMP) sysdeps
	$(VENV)/bin/fieldglass gui --source synthetic --screenshot out/demo.png

# ruff, then the layer contracts (pyproject.toml [tool.importlinter]): which package may import which, Qt and OpenCV
lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/lint-imports

unit: $(STAMP) sysdeps
	QT_QPA_PLATFORM=offscreen $(PY) -m pytest

test: lint unit

bench: $(STAMP) sysdeps
	$(VENV)/bin/fieldglass bench vision

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .ruff_cache .import_linter_cache
