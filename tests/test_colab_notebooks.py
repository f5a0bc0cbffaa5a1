"""The notebooks a launch button or the download button opens read like the page, outside the book.

Every page's ``.ipynb`` (and the lab's student notebook) is read as Colab and JupyterLab read it,
without the book's Sphinx extensions:

- no markdown cell holds a MyST role (``{glue:text}`…```, ``{ref}`…```, ``{doc}`…```, …), a
  directive fence (```` ```{…} ```` or ``:::{…}``), a label target or a glue placeholder;
- every plumbing cell (tagged ``remove-cell``, ``remove-input`` or ``hide-input``) and every cell
  that shows a paragraph with the page's numbers is hidden where the notebook runs: JupyterLab's
  ``jupyter.source_hidden`` and Colab's form view (``cellView: form`` and a ``#@title`` first line);
- no ``%%build_only`` cell is left, and the first code cell is the visible install cell;
- Run All in a fresh kernel outside the book build gives no error, every paragraph with the
  page's numbers came out with all of them filled in, and no displayed Markdown holds MyST. A few quick pages run in
  every test run; every page runs in the full suite (marked ``book``).
"""

from __future__ import annotations

import json
import os
import re

import nbformat
import pytest

from conftest import REPO
from gendel.book import colab
from gendel.book.install import pages, render_cell
from gendel.book.lab_notebook import STUDENT

PAGE_NOTEBOOKS = [p.with_suffix(".ipynb") for p in pages(REPO)]
#: The student notebooks of the two labs, offered for download on the teacher page and the labs' own.
STUDENT_NOTEBOOKS = [REPO / STUDENT, REPO / "book/course/gan_lab_student.ipynb"]
NOTEBOOKS = PAGE_NOTEBOOKS + STUDENT_NOTEBOOKS
IDS = [str(p.relative_to(REPO)) for p in NOTEBOOKS]
PAGE_IDS = IDS[:len(PAGE_NOTEBOOKS)]
#: Pages that run in seconds from the stored results and the cache: run on every test run.
QUICK = ["book/framework.ipynb", "book/gan/q2_fast_deletion.ipynb"]

ROLE = re.compile(r"\{[a-z]+(?::[a-z]+)*\}`")
FENCE = re.compile(r"^\s*(`{3,}|:{3,})\{", re.M)
TARGET = re.compile(r"^\([\w-]+\)=\s*$", re.M)
PLACEHOLDER = re.compile(r"\{\{[A-Za-z_][\w-]*(?::[^{}]*)?\}\}")


def raw_myst(markdown):
    """The MyST left in a piece of Markdown: roles, directive fences, targets, glue placeholders."""
    return ROLE.findall(markdown) + FENCE.findall(markdown) + TARGET.findall(markdown) + PLACEHOLDER.findall(markdown)


def unhidden(cell):
    """Why a cell that must be hidden is not (or None when it is hidden as it should be)."""
    meta = cell.get("metadata", {})
    tags = set(meta.get("tags", []))
    if not tags & {*colab.PLUMBING, "glued-text"}:
        return None
    if not meta.get("jupyter", {}).get("source_hidden"):
        return "no jupyter.source_hidden"
    if meta.get("cellView") != "form":
        return "no cellView form"
    if not "".join(cell["source"]).startswith("#@title "):
        return "no #@title first line"
    return None


def test_every_launched_notebook_is_checked():
    assert len(NOTEBOOKS) >= 25 and all(p.is_file() for p in NOTEBOOKS)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=IDS)
def test_markdown_holds_no_myst(path):
    nb = json.loads(path.read_text())
    left = [(i, raw_myst("".join(c["source"]))) for i, c in enumerate(nb["cells"]) if c["cell_type"] == "markdown"]
    left = [(i, found) for i, found in left if found]
    assert not left, f"{path.name}: MyST left in markdown cells (cell, what): {left[:5]}; regenerate with " \
                     "`.venv/bin/python -m gendel.book.colab`, or teach gendel.book.lab_notebook the syntax"


@pytest.mark.parametrize("path", PAGE_NOTEBOOKS, ids=PAGE_IDS)
def test_plumbing_is_hidden_and_the_install_cell_shown(path):
    nb = json.loads(path.read_text())
    code = [c for c in nb["cells"] if c["cell_type"] == "code"]
    shown = [(i, why) for i, c in enumerate(code) if (why := unhidden(c))]
    assert not shown, f"{path.name}: plumbing cells not hidden (code cell, why): {shown[:5]}"
    assert not [c for c in code if "".join(c["source"]).lstrip().startswith(colab.BUILD_ONLY)]
    first = code[0]
    assert "".join(first["source"]) == render_cell(REPO / "_config.yml") and not unhidden(first) \
        and not first["metadata"].get("jupyter"), f"{path.name}: the first cell is not the visible install cell"


def test_a_hidden_cells_title_keeps_the_names_it_quotes():
    # the teacher page's title once read "findjob(...)" for `find_job(...)`
    title = colab._title('A job of the tiny profile (`find_job("tiny", "mnist-odd-0.7-seed0")`) runs the same '
                         "pipeline in {{t_tiny_job}}")
    assert title.startswith('A job of the tiny profile (find_job("tiny", "mnist-odd-0.7-seed0"))')
    assert colab._title("the _same_ cell, {{n}} **bold** `code_name` *here*") == "the same cell, … bold code_name here"


def test_a_hidden_table_is_titled_by_its_header():
    # the teacher page's session plans once showed "| time | read | run | ..." as their titles
    assert colab._title("| time | read |\n|---|---|\n| 0:00 | {{t_q1}} |") == "Table: time, read"


def test_a_page_with_myst_and_plumbing_is_converted(tmp_path):
    """The checks above fail on a jupytext pair of a page; the generator's notebook passes them."""
    import jupytext

    (tmp_path / "book").mkdir()
    (tmp_path / "_config.yml").write_text("repository:\n  url: ''\n  branch: main\n")
    (tmp_path / "book" / "references.bib").write_text("@book{a2020, author = {Able, A.}, title = {T}, year = {2020}}\n")
    md = tmp_path / "book" / "page.md"
    md.write_text("---\njupytext:\n  text_representation: {extension: .md, format_name: myst}\n"
                  "kernelspec: {name: python3, display_name: Python 3, language: python}\n---\n\n"
                  "# A page\n\n```{code-cell} ipython3\n:tags: [remove-cell]\n"
                  f"{render_cell(tmp_path / '_config.yml')}\n```\n\n"
                  "(sec-a)=\n## A section\n\n"
                  "```{code-cell} ipython3\n:tags: [remove-cell]\nfrom myst_nb import glue\nglue('n', 3)\n```\n\n"
                  "There are {glue:text}`n` points ({cite}`a2020`, {ref}`sec-a`).\n\n"
                  "```{prf:theorem} Bound\n:label: thm-a\n\n$x \\le 1$\n```\n\n"
                  "```{code-cell} ipython3\n%%build_only\npass\n```\n")
    jupytext.write(jupytext.read(md), tmp_path / "jupytext.ipynb")
    pair = json.loads((tmp_path / "jupytext.ipynb").read_text())
    assert any(raw_myst("".join(c["source"])) for c in pair["cells"] if c["cell_type"] == "markdown")
    assert any(unhidden(c) for c in pair["cells"] if c["cell_type"] == "code")

    nb = json.loads(colab.colab_text(md))
    assert not [c for c in nb["cells"] if c["cell_type"] == "markdown" and raw_myst("".join(c["source"]))]
    assert not [c for c in nb["cells"] if c["cell_type"] == "code" and unhidden(c)]
    text = "\n".join("".join(c["source"]) for c in nb["cells"])
    assert "Able (2020)" in text and "**Theorem (Bound)**" in text and "build_only" not in text
    assert 'page.show(r"""There are {{n}} points (Able (2020), A section).""")' in text


def run_all(path):
    """Run All on the notebook at ``path`` in a fresh kernel, outside the book build; the executed notebook."""
    from nbclient import NotebookClient

    nb = nbformat.read(path, as_version=4)
    NotebookClient(nb, timeout=900, kernel_name="python3",
                   resources={"metadata": {"path": str(path.parent)}}).execute()  # raises at a failing cell
    return nb


def check_ran(path, nb):
    glued = [c for c in nb.cells if "glued-text" in c.metadata.get("tags", [])]
    for cell in glued:
        shown = [o["data"]["text/markdown"] for o in cell.get("outputs", []) if "text/markdown" in o.get("data", {})]
        assert len(shown) == 1, f"{path.name}: a paragraph with the page's numbers showed {len(shown)} outputs"
        template = cell.source.split("\n", 1)[1]
        assert shown[0].count("…") == template.count("…"), f"{path.name}: a number was never glued: {shown[0][:300]}"
        assert not raw_myst(shown[0]), f"{path.name}: MyST in a shown paragraph: {raw_myst(shown[0])}"
    markdown = [o["data"]["text/markdown"] for c in nb.cells for o in c.get("outputs", [])
                if "text/markdown" in o.get("data", {})]
    assert not [m for m in markdown if raw_myst(m)], f"{path.name}: MyST in a displayed Markdown output"
    errors = [o for c in nb.cells for o in c.get("outputs", []) if o.get("output_type") == "error"]
    assert not errors


@pytest.fixture
def live_kernel(monkeypatch):
    monkeypatch.delenv("GENDEL_BOOK_BUILD", raising=False)
    monkeypatch.setenv("GENDEL_COLAB", "0")
    monkeypatch.setenv("TQDM_DISABLE", "1")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep))
    # The results the book build cached (the 2-D sweeps): a student's second Run All reads them too,
    # and the test then checks the notebook, not the sweeps again.
    built_cache = REPO / "_build" / ".gendel-cache"
    if built_cache.is_dir() and not os.environ.get("GENDEL_CACHE_DIR"):
        monkeypatch.setenv("GENDEL_CACHE_DIR", str(built_cache))


@pytest.mark.parametrize("name", QUICK)
def test_quick_pages_run_all(name, live_kernel):
    path = REPO / name
    check_ran(path, run_all(path))


@pytest.mark.book
@pytest.mark.parametrize("path", [p for p in PAGE_NOTEBOOKS if str(p.relative_to(REPO)) not in QUICK],
                         ids=[i for i in PAGE_IDS if i not in QUICK])
def test_every_page_runs_all(path, live_kernel):
    check_ran(path, run_all(path))


# --------------------------------------------------------------------------------------------
# Exercise and equation numbers: the notebooks give the numbers the book shows


def test_the_notebooks_number_exercises_and_equations_as_the_book_does():
    """Numbers read off a built book (Sphinx numbers per chapter of the numbered parts, and with one
    counter over the course pages, which are outside them): the GAN chapter is chapter 4, the lab's
    three exercises are 1–3 and the GAN lab's continue at 4; the lab's six equations are (1)–(6)
    and the GAN lab's (7)–(12)."""
    from gendel.book.lab_notebook import book_labels, book_numbering

    labels = book_labels(REPO)
    assert labels["ex-dre-derive"][1] == "Exercise 2.1"
    assert labels["ex-gan-bound-one"][1] == "Exercise 4.4"
    assert [labels[k][1] for k in ("ex-lab-knn", "ex-lab-repeats", "ex-lab-type-one")] == [f"Exercise {n}" for n in (1, 2, 3)]
    numbering = book_numbering(REPO)
    assert numbering[(REPO / "book/course/gan_lab.md").resolve()] == ("", {"Exercise": 3, "Equation": 6})
    assert numbering[(REPO / "book/theory/approximation.md").resolve()][0] == "7"
    student = json.loads((REPO / "book/course/gan_lab_student.ipynb").read_text())
    text = "".join("".join(c["source"]) for c in student["cells"])
    assert "**Exercise 4**" in text and "\\tag{7}" in text and "**Exercise 1**" not in text


@pytest.mark.book
def test_the_notebooks_exercise_and_equation_numbers_are_those_of_the_built_book(book_html):
    from gendel.book.lab_notebook import _LABELLED_MATH, book_numbering

    for page, (prefix, before) in book_numbering(REPO).items():
        html = book_html / page.relative_to(REPO).with_suffix(".html")
        if not html.exists():
            continue
        shown = re.findall(r'class="eqno">\(([0-9.]+)\)', html.read_text())
        n = len(_LABELLED_MATH.findall(page.read_text()))
        expected = [f"{prefix}.{before['Equation'] + k}" if prefix else str(before["Equation"] + k) for k in range(1, n + 1)]
        assert shown == expected, page
