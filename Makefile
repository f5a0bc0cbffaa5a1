# The two commands of README.md:
#   make book   build the executed book into _build/html
#   make test   run the whole test suite (unit tests, the book build, browser tests)
# Both set up everything they need on a fresh machine (Python 3.10+, Debian for the browser).

PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.gendel-installed
CHROMIUM ?= /usr/bin/chromium

# The build executes every page; TQDM_DISABLE hides progress bars in the rendered pages and
# GENDEL_CACHE_DIR keeps the result cache inside this checkout.
BOOK_ENV := GENDEL_BOOK_BUILD=1 TQDM_DISABLE=1 GENDEL_CACHE_DIR=$(CURDIR)/_build/.gendel-cache

.PHONY: book test unit browser-deps clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e ".[test]"
	touch $(STAMP)

book: $(STAMP)
	$(BOOK_ENV) $(VENV)/bin/jupyter-book build . --all -W -n --keep-going

browser-deps:
	@test -x $(CHROMIUM) || { \
	  echo "Installing Debian's chromium for the browser tests"; \
	  if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi; \
	  $$SUDO apt-get install -y chromium || { $$SUDO apt-get update && $$SUDO apt-get install -y chromium; }; }

unit: $(STAMP)
	$(PY) -m pytest -m "not book and not browser"

# The book and browser tests use the HTML that `make book` just built instead of building it again.
test: $(STAMP) browser-deps book
	GENDEL_BOOK_HTML=$(CURDIR)/_build/html $(PY) -m pytest

clean:
	rm -rf _build
