"""Pages executed in parallel into the execution cache (gendel.book.prerun) are found there by
myst-nb's own cache client, with the outputs of the run, so a build in cache mode executes none."""

from __future__ import annotations

import logging

import pytest

from gendel.book import prerun

pytest.importorskip("jupyter_cache")
pytest.importorskip("nbclient")

PAGE = """---
jupytext:
  text_representation:
    extension: .md
    format_name: myst
    format_version: 0.13
kernelspec:
  display_name: Python 3
  language: python
  name: python3
---

# Page {n}

```{{code-cell}} ipython3
:tags: [remove-input]
import os
value = {n} * 7
print("page", {n}, "in", os.path.basename(os.getcwd()))
```

Some prose.

```{{code-cell}} ipython3
value + 1
```
"""


def build_client(page, cache, caplog):
    """myst-nb's client of a build with ``execute_notebooks: cache``, as its Sphinx parser makes it."""
    from myst_nb.core.config import NbParserConfig
    from myst_nb.core.execute import create_client
    from myst_nb.core.read import create_nb_reader
    from myst_parser.config.main import MdParserConfig

    text = page.read_text()
    reader = create_nb_reader(str(page), MdParserConfig(), NbParserConfig(), text)
    notebook = reader.read(text)
    config = NbParserConfig(execution_mode="cache", execution_cache_path=str(cache))
    return create_client(notebook, str(page), config, logging.getLogger("test_prerun"))


def test_pages_executed_in_parallel_are_read_from_the_cache_by_the_build(tmp_path, caplog):
    book = tmp_path / "book"
    book.mkdir()
    for n in (1, 2, 3):
        (book / f"p{n}.md").write_text(PAGE.format(n=n))
    toc = tmp_path / "_toc.yml"
    toc.write_text("format: jb-book\nroot: book/p1\nchapters:\n  - file: book/p2\n    sections:\n      - file: book/p3\n")
    cache = tmp_path / "_build" / ".jupyter_cache"
    assert prerun.main(["--toc", str(toc), "--cache", str(cache), "--jobs", "2", "--timeout", "300"]) == 0

    caplog.set_level(logging.INFO, logger="test_prerun")
    for n in (1, 2, 3):
        with build_client(book / f"p{n}.md", cache, caplog) as client:
            outputs = [c.outputs for c in client.notebook.cells if c.cell_type == "code"]
        # the outputs of the run, made in the page's folder
        assert outputs[0][0]["text"] == f"page {n} in book\n"
        assert outputs[1][0]["data"]["text/plain"] == str(n * 7 + 1)
    assert caplog.text.count("Using cached notebook") == 3
    assert "Executing notebook" not in caplog.text


def test_a_changed_page_is_not_found_in_the_cache(tmp_path, caplog):
    """The cache is keyed by the page's code: after an edit the build executes the page itself."""
    page = tmp_path / "p.md"
    page.write_text(PAGE.format(n=1))
    cache = tmp_path / "cache"
    assert prerun.execute_into_cache([page], cache, jobs=1, timeout=300, log=lambda _: None) == {}
    page.write_text(PAGE.format(n=1).replace("value + 1", "value + 2"))
    from jupyter_cache import get_cache

    with pytest.raises(KeyError):
        get_cache(str(cache)).match_cache_notebook(prerun.read_page(page))
