"""The built book: every page of the toc is there, executed, free of errors, loads nothing from
the internet, and its Colab notebook (the paired ``.ipynb``) matches its MyST source.

The HTML comes from the session fixture ``book_html`` (conftest.py): the book is built with the
command of ``make book``, or ``$GENDEL_BOOK_HTML`` is inspected.
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path
from urllib.parse import urlparse

import pytest

from conftest import PAGES, REPO, ROOT, page_source

bs4 = pytest.importorskip("bs4")
jupytext = pytest.importorskip("jupytext")

pytestmark = pytest.mark.book

#: The API reference: pages of autodoc directives, generated from the docstrings (no code cells).
REFERENCE = "book/api/"

#: Tags with which myst-nb drops a cell, or its output, from the page.
REMOVE_CELL = {"remove-cell"}
REMOVE_OUTPUT = {"remove-output"}


@functools.lru_cache(maxsize=None)
def soup(path):
    return bs4.BeautifulSoup(Path(path).read_text(encoding="utf-8"), "html.parser")


def page_html(book_html, page):
    path = book_html / f"{page}.html"
    assert path.exists(), f"{page}: no {path.relative_to(book_html)} in the built book"
    return soup(str(path))


def code_cells(page):
    """The code cells of a page's source, as jupytext reads them."""
    nb = jupytext.read(page_source(page))
    return [cell for cell in nb.cells if cell.cell_type == "code"]


def tags(cell):
    return set(cell.metadata.get("tags", []))


def shows_something(source):
    """Whether a cell's last statement displays a value: an expression that is not a call of
    glue(...) and not silenced by a trailing semicolon (``fig.show()`` and ``print`` count)."""
    lines = [line for line in source.strip().splitlines() if line.strip() and not line.lstrip().startswith("#")]
    if not lines or lines[-1].rstrip().endswith(";") or lines[0].lstrip().startswith(("%%", "!")):
        return False
    try:
        tree = ast.parse(source)
    except SyntaxError:  # IPython magics: let the page-level check judge
        return False
    if not tree.body or not isinstance(tree.body[-1], ast.Expr):
        return False
    value = tree.body[-1].value
    if isinstance(value, ast.Call):
        name = value.func.attr if isinstance(value.func, ast.Attribute) else getattr(value.func, "id", "")
        if name == "glue":
            return False
    return True


# ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("page", PAGES)
def test_every_page_has_html(book_html, page):
    html = page_html(book_html, page)
    assert html.find("main"), f"{page}: the HTML has no <main> content"
    assert html.find("h1"), f"{page}: the page has no title"


@pytest.mark.parametrize("page", PAGES)
def test_no_error_output(book_html, page):
    html = page_html(book_html, page)
    bad = html.select(".cell_output .output.traceback, .cell_output .output.error, .cell_output .output.stderr")
    shown = [b.get_text()[:300] for b in bad]
    assert not bad, f"{page}: {len(bad)} error/stderr output(s) in the page:\n" + "\n---\n".join(shown)
    text = html.get_text()
    # The API reference (book/api/) runs no code; its doctest examples may show the error that a
    # wrong argument raises, and gendel.book's docstrings name the {glue:text} role they are about,
    # so only executed pages are read for these.
    if not page.startswith(REFERENCE):
        assert "Traceback (most recent call last)" not in text, f"{page}: a Python traceback is shown"
        assert "{glue:" not in text, f"{page}: an unresolved glue role is shown"


@pytest.mark.parametrize("page", PAGES)
def test_code_cells_are_executed(book_html, page):
    cells = [c for c in code_cells(page) if not tags(c) & REMOVE_CELL]
    if not cells:
        return
    html = page_html(book_html, page)
    rendered = html.select("div.cell")
    assert len(rendered) == len(cells), (
        f"{page}: {len(cells)} code cells in the source but {len(rendered)} in the page")
    missing = []
    for i, (cell, div) in enumerate(zip(cells, rendered)):
        if tags(cell) & REMOVE_OUTPUT or not shows_something(cell.source):
            continue
        out = div.select_one(".cell_output")
        if out is None or not (out.get_text(strip=True) or out.find(["img", "svg", "div"])):
            missing.append(f"cell {i}: {cell.source.strip().splitlines()[-1][:80]}")
    assert not missing, f"{page}: cells without executed output:\n" + "\n".join(missing)


def _external(url):
    if not url:
        return False
    parsed = urlparse(url)
    return parsed.scheme in ("http", "https") or url.startswith("//")


@pytest.mark.parametrize("page", PAGES)
def test_nothing_is_loaded_from_the_internet(book_html, page):
    html = page_html(book_html, page)
    found = []
    for tag in html.find_all("script", src=True):
        if _external(tag["src"]):
            found.append(f"<script src={tag['src']}>")
    for tag in html.find_all("link", href=True):
        rel = set(tag.get("rel") or [])
        if rel & {"stylesheet", "preload", "modulepreload", "icon", "manifest"} and _external(tag["href"]):
            found.append(f"<link rel={' '.join(sorted(rel))} href={tag['href']}>")
    for tag in html.find_all(["iframe", "img"], src=True):
        if _external(tag["src"]):
            found.append(f"<{tag.name} src={tag['src']}>")
    assert not found, (f"{page}: the page loads from the internet, which fails offline:\n  "
                       + "\n  ".join(found))


@pytest.mark.parametrize("page", PAGES)
def test_no_inert_widgets(book_html, page):
    """ipywidgets need a kernel: a static page must not carry widget views or widget state."""
    html = page_html(book_html, page)
    views = html.find_all("script", type="application/vnd.jupyter.widget-view+json")
    state = html.find_all("script", type="application/vnd.jupyter.widget-state+json")
    assert not views and not state, (
        f"{page}: {len(views)} widget view(s), {len(state)} widget state block(s) in the static page; "
        "tag the cell remove-output and show a static figure instead")


@pytest.mark.parametrize("page", PAGES)
def test_no_glue_in_view(book_html, page):
    """A reader sees mathematics, the code that computes it and results, not the plumbing that
    quotes numbers in the prose: no code cell in view (input not hidden) calls glue(...)."""
    html = page_html(book_html, page)
    shown = []
    for cell in html.select("div.cell"):
        classes = set(cell.get("class", []))
        if classes & {"tag_hide-input", "tag_hide-cell", "tag_remove-input"}:
            continue
        code = cell.select_one(".cell_input")
        if code is not None and "glue(" in code.get_text():
            shown.append(code.get_text().strip().splitlines()[0][:80])
    assert not shown, (f"{page}: {len(shown)} code cell(s) in view call glue(...); move the glue calls to a cell "
                       "tagged remove-cell:\n  " + "\n  ".join(shown))


@pytest.mark.parametrize("page", PAGES)
def test_no_raw_subscripts_in_text(book_html, page):
    """Prose and printed tables read as text, not TeX: outside code and math, no ``_{``, ``^{``
    and no unbraced subscript such as ``ρ̂_ℰ`` or ``σ_C`` (tables printed by page code go through
    ``gendel.plotting.common.markdown_table`` / ``markdown_text``)."""
    from gendel.plotting.common import _UNBRACED

    if page.startswith(REFERENCE):
        pytest.skip("the API reference shows docstrings, which write formulas in plain text (p_hat, "
                    "sigma_C) as help() shows them; the book's own pages are checked")
    html = page_html(book_html, page)
    article = html.select_one("article") or html
    article = bs4.BeautifulSoup(str(article), "html.parser")  # a copy: soup() is cached
    for node in article.select("pre, code, script, style, .math, .cell_input, .highlight, svg"):
        node.decompose()
    text = article.get_text(" ")
    found = sorted({m.group(0) for m in _UNBRACED.finditer(text)} | ({"_{"} if "_{" in text else set())
                   | ({"^{"} if "^{" in text else set()))
    assert not found, (f"{page}: raw subscripts in the text a reader sees: {found[:12]}; write "
                       "<sub>…</sub>, math, or pass the text through gendel.plotting.common.markdown_text")


@pytest.mark.parametrize("page", PAGES)
def test_plotly_js_is_served_once_from_static(book_html, page):
    html = page_html(book_html, page)
    if not html.select(".plotly-graph-div"):
        return
    sources = [tag["src"] for tag in html.find_all("script", src=True)]
    local = [s for s in sources if s.split("?")[0].endswith("_static/plotly.min.js")]
    assert local, f"{page}: has plotly figures but does not load _static/plotly.min.js"
    assert (book_html / "_static" / "plotly.min.js").exists(), "_static/plotly.min.js is missing from the build"
    inline = [s for s in html.find_all("script", src=False) if "plotly.js v" in (s.string or "")[:2000]]
    assert not inline, f"{page}: plotly.js is inlined in the page as well"


# ------------------------------------------------------------------------------------------
# Colab pairing: each page with code has a .ipynb next to it, made from it by gendel.book.colab.


def paired_pages():
    pages = []
    for page in PAGES:
        source = page_source(page)
        if source.suffix == ".md" and code_cells(page):
            pages.append(source)
    return pages


def test_colab_notebooks_match_their_pages():
    from gendel.book import colab
    from gendel.book.lab_notebook import book_labels

    sources = paired_pages()
    assert sources, "no page with code cells found in the toc"
    labels = book_labels(REPO)
    stale = [md for md in sources if not md.with_suffix(".ipynb").exists()
             or md.with_suffix(".ipynb").read_text() != colab.colab_text(md, root=REPO, labels=labels)]
    assert not stale, (
        "Colab notebooks (.ipynb next to each page) are missing or differ from what their MyST pages give:\n  "
        + "\n  ".join(str(md.relative_to(ROOT)) for md in stale)
        + "\nRegenerate them from the repository root with:\n  .venv/bin/python -m gendel.book.colab"
    )

