"""Every page's ``.ipynb`` pair (the file Colab opens and the download button offers) holds the
same cells as its ``.md`` source, the file the book is built from.

A page edited without ``jupytext --update --to ipynb`` (README, "Keeping the .ipynb pairs in sync")
builds fine and fails in Colab; this test catches it in seconds, without running a page.
"""

from __future__ import annotations

import jupytext
import nbformat
import pytest

from conftest import REPO

PAIRS = sorted(p for p in (REPO / "book").rglob("*.md") if p.with_suffix(".ipynb").exists())


def cells(nb):
    return [(c.cell_type, c.source.strip()) for c in nb.cells]


def out_of_sync(md):
    """The first differing cell of ``md`` and its pair, or None when they agree."""
    want = cells(jupytext.read(md))
    have = cells(nbformat.read(md.with_suffix(".ipynb"), as_version=4))
    for i, (w, h) in enumerate(zip(want, have)):
        if w != h:
            return f"cell {i}: the .md has {w[1][:60]!r}, the .ipynb {h[1][:60]!r}"
    if len(want) != len(have):
        return f"the .md has {len(want)} cells, the .ipynb {len(have)}"
    return None


def test_every_page_with_a_pair_is_found():
    assert len(PAIRS) >= 20, [p.name for p in PAIRS]


@pytest.mark.parametrize("md", PAIRS, ids=lambda p: str(p.relative_to(REPO)))
def test_the_ipynb_pair_has_the_pages_cells(md):
    diff = out_of_sync(md)
    assert diff is None, (f"{md.relative_to(REPO)} and its .ipynb differ ({diff}): run "
                          f"`.venv/bin/jupytext --update --to ipynb {md.relative_to(REPO)}`")


def test_an_edited_page_is_caught(tmp_path):
    md = tmp_path / "page.md"
    md.write_text("---\njupytext:\n  text_representation: {extension: .md, format_name: myst}\n"
                  "kernelspec: {name: python3, display_name: Python 3, language: python}\n---\n\n"
                  "# A page\n\n```{code-cell} ipython3\nx = 1\n```\n")
    jupytext.write(jupytext.read(md), md.with_suffix(".ipynb"))
    assert out_of_sync(md) is None
    md.write_text(md.read_text().replace("x = 1", "x = 2"))
    assert "x = 2" in out_of_sync(md)
