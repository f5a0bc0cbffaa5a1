"""The pages as Colab runs them: a fresh kernel, Runtime > Run all, Colab's settings in force.

Colab itself cannot run here, so the kernel is told it runs in Colab (``GENDEL_COLAB=1``) and
finds a stand-in ``google.colab.output`` whose ``enable_custom_widget_manager`` records each call
in a file. Each page's ``.ipynb`` is executed top to bottom; then

- no cell failed (nbclient stops at the first error) and no cell wrote to stderr;
- Colab's widget manager was switched on by the page's first cell, which printed nothing (gendel is
  installed here, so its install step does nothing; tests/test_colab_start.py runs it where gendel
  is missing);
- every plotly figure came out through plotly's ``colab`` renderer (HTML that loads plotly.js
  from its CDN), none as the JSON mimetype that Colab does not display;
- the live panels were displayed as widgets, and the page said what reads differently live.

These run on the book build's result cache (``make test`` builds first); they are marked
``book`` and skipped by ``make unit``.
"""

from __future__ import annotations

import os
from pathlib import Path

import nbformat
import pytest

from conftest import REPO

pytestmark = pytest.mark.book

#: Every page with a live panel, plus a chapter page and a theory page: page -> (has a panel,
#: has plotly figures).
PAGES = {
    "book/framework.ipynb": (False, True),
    "book/synthetic/explore.ipynb": (True, True),
    "book/deletion_test/index.ipynb": (True, True),
    "book/gan/q2_fast_deletion.ipynb": (True, True),
    "book/theory/index.ipynb": (False, False),
}

FAKE_OUTPUT = '''\
"""A stand-in for Colab's google.colab.output: records calls in $GENDEL_FAKE_COLAB_LOG."""
import os


def enable_custom_widget_manager():
    with open(os.environ["GENDEL_FAKE_COLAB_LOG"], "a") as f:
        f.write("enable_custom_widget_manager\\n")
'''


@pytest.fixture
def colab_kernel_env(tmp_path, monkeypatch):
    fake = tmp_path / "fake"
    (fake / "google" / "colab").mkdir(parents=True)  # no google/__init__.py: a namespace package
    (fake / "google" / "colab" / "__init__.py").write_text("")
    (fake / "google" / "colab" / "output.py").write_text(FAKE_OUTPUT)
    log = tmp_path / "colab.log"
    html = os.environ.get("GENDEL_BOOK_HTML")
    if not html or not (Path(html).parent / ".gendel-cache").is_dir():
        pytest.skip("needs the book build's result cache: run through `make test` (GENDEL_BOOK_HTML)")
    monkeypatch.delenv("GENDEL_BOOK_BUILD", raising=False)
    monkeypatch.setenv("GENDEL_COLAB", "1")
    monkeypatch.setenv("GENDEL_FAKE_COLAB_LOG", str(log))
    monkeypatch.setenv("GENDEL_CACHE_DIR", str(Path(html).parent / ".gendel-cache"))
    monkeypatch.setenv("TQDM_DISABLE", "1")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(fake), os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep))
    return log


@pytest.mark.parametrize("name", list(PAGES))
def test_page_runs_as_in_colab(name, colab_kernel_env):
    from nbclient import NotebookClient

    path = REPO / name
    nb = nbformat.read(path, as_version=4)
    NotebookClient(nb, timeout=900, kernel_name="python3",
                   resources={"metadata": {"path": str(path.parent)}}).execute()
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])]
    first = next(c for c in nb.cells if c.cell_type == "code")
    assert "GENDEL_PIP_SPEC" in first.source and "setup_page()" in first.source, f"{name}: not the install cell"
    assert not [o for o in first.outputs if o.get("output_type") == "stream"], \
        f"{name}: the first cell printed (or installed) something although gendel is installed"
    stderr = [o.get("text", "")[:300] for o in outputs if o.get("name") == "stderr"]
    assert not stderr, f"{name}: cells wrote to stderr: {stderr[:3]}"
    assert colab_kernel_env.read_text().split() and set(colab_kernel_env.read_text().split()) == \
        {"enable_custom_widget_manager"}, f"{name}: Colab's widget manager was not switched on"
    data = [o.get("data", {}) for o in outputs if o.get("output_type") in ("display_data", "execute_result")]
    assert not [d for d in data if "application/vnd.plotly.v1+json" in d], \
        f"{name}: a figure came out as plotly's JSON mimetype, which Colab does not display"
    has_panel, has_figures = PAGES[name]
    figures = [d["text/html"] for d in data if "text/html" in d and "Plotly.newPlot" in d["text/html"]]
    assert bool(figures) == has_figures, f"{name}: {len(figures)} plotly figures through the colab renderer"
    assert all("cdn.plot.ly" in f for f in figures), f"{name}: a figure does not load plotly.js as Colab needs"
    notes = [d["text/markdown"] for d in data if "Running this page live" in d.get("text/markdown", "")]
    assert len(notes) == 1 and "In Colab, a hidden cell" in notes[0]
    widgets = [d for d in data if "application/vnd.jupyter.widget-view+json" in d]
    assert bool(widgets) == has_panel, f"{name}: expected {'a' if has_panel else 'no'} widget panel"
