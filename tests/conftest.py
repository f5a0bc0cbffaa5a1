"""Shared fixtures: the repository, the pages of the book and the built HTML.

The book is built once per test session, with exactly the command of ``make book``. Set
``GENDEL_BOOK_HTML`` to an already built HTML folder (e.g. ``_build/html`` after ``make book``)
to inspect that build instead of building again. ``GENDEL_BOOK_TOC`` names another table of
contents (a ``_toc.yml`` whose folder is the root of its pages) for checking a partial build
during development; by default the tests read the repository's ``_toc.yml``.
"""

from __future__ import annotations

import base64
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

REPO = Path(__file__).resolve().parents[1]

#: How ``make book`` builds the book (see the Makefile): keep the two in step.
BOOK_ENV = {
    "GENDEL_BOOK_BUILD": "1",
    "TQDM_DISABLE": "1",
    "OMP_WAIT_POLICY": "PASSIVE",
    "GENDEL_CACHE_DIR": str(REPO / "_build" / ".gendel-cache"),
}
BOOK_COMMAND = ["jupyter-book", "build", ".", "-W", "-n", "--keep-going"]

CHROMIUM = os.environ.get("GENDEL_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic"]


TOC = Path(os.environ.get("GENDEL_BOOK_TOC") or REPO / "_toc.yml").resolve()
ROOT = TOC.parent  # the folder the toc's paths are relative to


def toc_files(toc_path=TOC):
    """Every page of the table of contents, as paths without suffix relative to the repository."""
    import yaml

    from gendel.book.prerun import toc_pages

    files = [str(p) for p in toc_pages(yaml.safe_load(toc_path.read_text()), root="")]
    return [f[: -len(Path(f).suffix)] if Path(f).suffix in (".md", ".ipynb") else f for f in files]


def page_source(page):
    """The source file of a page of the toc (MyST markdown in this book)."""
    for suffix in (".md", ".ipynb", ".rst"):
        path = ROOT / (page + suffix)
        if path.exists():
            return path
    raise FileNotFoundError(f"no source for toc entry {page!r}")


PAGES = toc_files()

#: The jupytext front matter of a MyST notebook page, as the tests' own small pages need it.
MYST_FRONT_MATTER = """\
---
jupytext:
  text_representation:
    extension: .md
    format_name: myst
kernelspec:
  display_name: Python 3
  language: python
  name: python3
---
"""


def myst_page(body):
    """A MyST notebook page for a test: the jupytext front matter, a blank line, then ``body``."""
    return f"{MYST_FRONT_MATTER}\n{body}"


def _build_book():
    executable = Path(sys.executable).parent / "jupyter-book"
    command = [str(executable) if executable.exists() else "jupyter-book", *BOOK_COMMAND[1:]]
    env = {**os.environ, **BOOK_ENV}
    result = subprocess.run(command, cwd=REPO, env=env, capture_output=True, text=True)
    if result.returncode != 0:
        output = (result.stdout + result.stderr).splitlines()
        problems = [line for line in output if "WARNING" in line or "ERROR" in line or "Error" in line]
        pytest.fail(
            f"`make book` failed (exit code {result.returncode}).\n"
            + "\n".join(problems[-40:] or output[-40:]),
            pytrace=False,
        )
    return REPO / "_build" / "html"


def pytest_collection_modifyitems(config, items):
    """A test that reads the built book (the ``book_html`` fixture, directly or through another fixture)
    must carry the ``book`` or ``browser`` mark: ``make unit`` (``-m "not book and not browser"``)
    never builds the book."""
    unmarked = [item.nodeid for item in items if "book_html" in getattr(item, "fixturenames", ())
                and not (item.get_closest_marker("book") or item.get_closest_marker("browser"))]
    if unmarked:
        raise pytest.UsageError("these tests use the built book without @pytest.mark.book (or browser): "
                                + ", ".join(unmarked))


@pytest.fixture(scope="session")
def book_html():
    """The folder of the built HTML book (built once per session, or $GENDEL_BOOK_HTML)."""
    given = os.environ.get("GENDEL_BOOK_HTML")
    if given:
        html = Path(given).resolve()
        if not (html / "index.html").exists():
            pytest.fail(f"GENDEL_BOOK_HTML={given} is not a built book (no index.html)", pytrace=False)
        return html
    return _build_book()


# ------------------------------------------------------------------------------------------
# Summary of the browser checks, printed at the end of the session.

BROWSER_REPORT: list[str] = []


def pytest_terminal_summary(terminalreporter):
    if BROWSER_REPORT:
        terminalreporter.section("pages and figures checked in Chromium")
        for line in BROWSER_REPORT:
            terminalreporter.write_line(line)


@pytest.fixture(scope="session")
def browser():
    """One Chromium for the session: Playwright's sync API runs once per process, so the static
    pages' tests (test_browser.py) and the live ones (test_live.py) share it."""
    sync_api = pytest.importorskip("playwright.sync_api")
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} not found: install Debian's chromium (`make browser-deps`), "
                    "or point $GENDEL_CHROMIUM at a Chromium binary", pytrace=False)
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield b
        b.close()


def trace_array(value, dtype=np.float64):
    """A plotly trace's data array as numpy: a list or array as is, a typed-array spec
    (``{"dtype", "bdata", "shape"}``, how the explore panel sends its maps) decoded."""
    if isinstance(value, dict) and "bdata" in value:
        kinds = {"f4": np.float32, "f8": np.float64, "u1": np.uint8, "u2": np.uint16, "i4": np.int32}
        arr = np.frombuffer(base64.b64decode(value["bdata"]), dtype=kinds[value["dtype"]])
        if "shape" in value:
            arr = arr.reshape([int(s) for s in str(value["shape"]).split(",")])
        return arr.astype(dtype)
    return np.asarray(value, dtype=dtype)


class Spy:
    """Counts the calls of ``owner.name`` (a function or class of a module, a method of a class) and
    passes each on unchanged: ``len(spy)`` calls so far, ``spy.calls`` their ``(args, kwargs, result)``.

    The panels' caches are checked this way, from the outside: a cached value is one the function
    that computes it was not called for again.
    """

    def __init__(self, monkeypatch, owner, name):
        original = getattr(owner, name)
        self.calls = []

        def spy(*args, **kwargs):
            result = original(*args, **kwargs)
            self.calls.append((args, kwargs, result))  # list.append is atomic: prefetching threads may call too
            return result

        monkeypatch.setattr(owner, name, spy)

    def __len__(self):
        return len(self.calls)


class ExplorerSpies:
    """What :class:`gendel.panels.explorer_state.ExplorerState` computes, counted: ``setups`` (data
    drawn and exact ratio fitted), ``dre_fits`` (the DREs of the maps fitted) and ``ks_runs``
    (:func:`gendel.synthetic.experiments.synthetic_statistics` called).

    The state makes a DRE with ``make_dre`` for its maps, which it fits, and for each KS run, which
    ``synthetic_statistics`` copies before fitting: a map fit is a fit of an estimator ``make_dre``
    returned to the state. ``direct_statistics`` is ``synthetic_statistics`` itself, uncounted: what a
    test computes to compare with is not a run of the state.
    """

    def __init__(self, monkeypatch):
        from gendel.core import dre
        from gendel.panels import explorer_state
        from gendel.synthetic import experiments

        self.direct_statistics = experiments.synthetic_statistics
        self._setups = Spy(monkeypatch, explorer_state, "setup")
        self._made = Spy(monkeypatch, explorer_state, "make_dre")
        self._fits = Spy(monkeypatch, dre.DensityRatioEstimator, "fit")
        self._ks = Spy(monkeypatch, experiments, "synthetic_statistics")

    @property
    def setups(self):
        return len(self._setups)

    @property
    def dre_fits(self):
        made = {id(result) for *_, result in self._made.calls}
        return sum(1 for args, _, _ in self._fits.calls if id(args[0]) in made)

    @property
    def ks_runs(self):
        return len(self._ks)

    def counts(self):
        """``(setups, dre_fits, ks_runs)``."""
        return self.setups, self.dre_fits, self.ks_runs


def stdout_of(nb):
    """What the code cells of an executed notebook printed (its stdout), joined."""
    return "".join(o.get("text", "") for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])
                   if o.get("name") == "stdout")
