"""The run times of the teacher page (book/course/page_times.json) and where their slowest cells are.

- every slowest cell that the stored run times name is found in today's page source, so a page
  edited after the benchmark ran (``benchmarks/bench_page_times.py``) fails here, not silently
  on the teacher page;
- ``gendel.book.cells.find_cells`` names the section of a cell, with its label, and lists every
  cell where several start alike.
"""

from __future__ import annotations

import json

import pytest

from conftest import REPO
from gendel.book.cells import find_cells, first_code_line

TIMES = REPO / "book" / "course" / "page_times.json"

HEADER = "---\njupytext:\n  text_representation: {extension: .md, format_name: myst}\n---\n"


def missing_cells(times):
    """The pages whose stored slowest cell is in no cell of the page's current .md source."""
    return [row["page"] for row in times["pages"]
            if row["slowest_cell_seconds"] and not find_cells(REPO / f"{row['page']}.md", row["slowest_cell"])]


def test_every_slowest_cell_is_found_in_todays_pages():
    times = json.loads(TIMES.read_text())
    assert times["pages"], "page_times.json lists no page"
    stale = missing_cells(times)
    assert not stale, (f"the slowest cells of {stale} are not in today's pages: rerun "
                       f"`python benchmarks/bench_page_times.py <page>` for them and merge it into {TIMES.name}")


def test_a_stale_cell_is_reported():
    times = json.loads(TIMES.read_text())
    row = dict(times["pages"][0], slowest_cell="a line that no page has()")
    assert missing_cells({"pages": [row]}) == [row["page"]]


def _page(tmp_path, body):
    page = tmp_path / "page.md"
    page.write_text(HEADER + body)
    return page


def test_the_section_is_the_nearest_heading_above_with_its_label(tmp_path):
    page = _page(tmp_path, "# Title\n\n```{code-cell} ipython3\nx = 1\n```\n\n"
                           "(sec-fit)=\n## Fitting\n\nText.\n\n### Details\n\n```{code-cell} ipython3\n"
                           "# a comment\ny = fit(x)\n```\n\n## Plain\n\n```{code-cell} ipython3\nz = 2\n```\n")
    (first,) = find_cells(page, "x = 1")
    assert (first.index, first.section, first.level, first.label) == (0, "Title", 1, None)
    (fit,) = find_cells(page, "y = fit(x)")
    assert (fit.index, fit.section, fit.level, fit.label) == (1, "Details", 3, None)
    (plain,) = find_cells(page, "z = 2")
    assert (plain.section, plain.label) == ("Plain", None)
    labelled = _page(tmp_path, "(sec-fit)=\n## Fitting\n\n```{code-cell} ipython3\nx = 1\n```\n")
    assert find_cells(labelled, "x = 1")[0].label == "sec-fit"


def test_headings_inside_fences_and_code_are_not_sections(tmp_path):
    page = _page(tmp_path, "## Real\n\n```python\n# not a heading\n```\n\n:::{note}\ntext\n:::\n\n"
                           "```{code-cell} ipython3\n# a comment, not a heading\nx = 1\n```\n")
    assert [p.section for p in find_cells(page, "x = 1")] == ["Real"]


def test_cells_that_start_alike_are_all_listed(tmp_path):
    page = _page(tmp_path, "## A\n\n```{code-cell} ipython3\nimport numpy as np\n```\n\n"
                           "## B\n\n```{code-cell} ipython3\nimport numpy as np\nx = 1\n```\n")
    assert [(p.index, p.section) for p in find_cells(page, "import numpy as np")] == [(0, "A"), (1, "B")]
    assert find_cells(page, "import scipy") == []


def test_first_code_line_skips_comments_and_magics():
    assert first_code_line("%%build_only\n# note\n\n  value = 1  \nmore") == "value = 1"
    assert first_code_line("# only a comment") == ""


def test_a_missing_page_says_which(tmp_path):
    with pytest.raises(FileNotFoundError, match="nowhere.md"):
        find_cells(tmp_path / "nowhere.md", "x = 1")


def _record(page, **kw):
    return {"page": page, "seconds": 75.0, "cpu_seconds": 80.0, "error": None, "slowest_cell": "x = slow()",
            "slowest_cell_seconds": 60.0, "cache": "empty cache", "load_before": [0.5], "load_after": [1.5],
            "note": "", **kw}


def test_the_run_times_table_follows_the_toc_and_says_where_each_slowest_cell_is(tmp_path):
    from gendel.book.run_times import page_times_table

    (tmp_path / "_toc.yml").write_text("root: intro\nparts:\n- chapters:\n  - file: a\n  - file: lab\n  - file: b\n")
    (tmp_path / "intro.md").write_text("# Intro\n\nno code\n")
    (tmp_path / "a.md").write_text(HEADER + "# Page A\n\n(sec-fit)=\n## The fit $\\lambda$\n\n"
                                   "```{code-cell} ipython3\nx = slow()\n```\n")
    (tmp_path / "lab.md").write_text(HEADER + "# Lab\n\n```{code-cell} ipython3\ny = 1\n```\n")
    (tmp_path / "b.md").write_text(HEADER + "# Page B\n\n## Plain\n\n```{code-cell} ipython3\nz = 2\n```\n")
    times = {"pages": [_record("b", error="killed", note="it trains a GAN"), _record("a", note="it trains a GAN")]}
    text = page_times_table(times, tmp_path, first_line="import gendel", skip=("lab",))
    rows = [line for line in text.splitlines() if line.startswith("| Page")]
    assert [r.split(" | ")[0] for r in rows] == ["| Page A", "| Page B"]            # the toc's order, lab skipped
    assert "a cell of the section {ref}`The fit lambda <sec-fit>`" in rows[0]       # a link, its math as text
    assert "(failed: killed)" in rows[1] and "cell not found in the current page" in rows[1]
    assert text.endswith("**Why some pages take long**\n\n- Page A; Page B — it trains a GAN.")
    unmeasured = page_times_table({"pages": []}, tmp_path, first_line="import gendel", skip=("lab",))
    assert unmeasured.count("not measured yet") == 2 and "Why some pages" not in unmeasured
