"""Every page's ``.ipynb`` pair (the file Colab opens and the download button offers) is what
``python -m gendel.book.colab`` makes of its ``.md`` source today.

A page edited without regenerating its notebook builds fine and reads (or fails) differently in
Colab; this test catches it in seconds, without running a page.
"""

from __future__ import annotations

import pytest

from conftest import REPO
from gendel.book import colab
from gendel.book.install import pages
from gendel.book.lab_notebook import book_labels

PAGES = pages(REPO)
LABELS = book_labels(REPO)


def test_every_page_with_code_has_a_pair():
    # the pages with code are exactly the table of contents' pages with code (none left out, none stray)
    import yaml

    from gendel.book.prerun import toc_pages

    listed = {str(p.with_suffix("")) for p in toc_pages(yaml.safe_load((REPO / "_toc.yml").read_text()))}
    with_code = {str(p.relative_to(REPO).with_suffix("")) for p in PAGES}
    assert with_code == {f for f in listed if f and "```{code-cell}" in (REPO / f"{f}.md").read_text()}
    missing = [str(p.relative_to(REPO)) for p in PAGES if not p.with_suffix(".ipynb").is_file()]
    assert not missing, f"pages without a notebook: {missing}; run `.venv/bin/python -m gendel.book.colab`"


@pytest.mark.parametrize("md", PAGES, ids=lambda p: str(p.relative_to(REPO)))
def test_the_ipynb_pair_is_what_the_page_gives(md):
    pair = md.with_suffix(".ipynb")
    assert pair.read_text() == colab.colab_text(md, root=REPO, labels=LABELS), (
        f"{pair.relative_to(REPO)} is not what {md.relative_to(REPO)} gives today: run "
        f"`.venv/bin/python -m gendel.book.colab {md.relative_to(REPO)}`")


def test_an_edited_page_is_caught(tmp_path):
    from gendel.book.install import render_cell

    (tmp_path / "book").mkdir()
    (tmp_path / "_config.yml").write_text("repository:\n  url: ''\n  branch: main\n")
    md = tmp_path / "book" / "page.md"
    md.write_text("---\njupytext:\n  text_representation: {extension: .md, format_name: myst}\n"
                  "kernelspec: {name: python3, display_name: Python 3, language: python}\n---\n\n"
                  "# A page\n\n```{code-cell} ipython3\n:tags: [remove-cell]\n"
                  f"{render_cell(tmp_path / '_config.yml')}\n```\n\n```{{code-cell}} ipython3\nx = 1\n```\n")
    assert colab.write_pairs(root=tmp_path) == [md.resolve()]
    assert colab.stale_pairs(tmp_path) == []
    md.write_text(md.read_text().replace("x = 1", "x = 2"))
    assert colab.stale_pairs(tmp_path) == [md.resolve()]
