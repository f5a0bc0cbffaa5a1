"""Each page's notebook for Colab and Jupyter (its ``.ipynb`` pair), made from the page.

A launch button or the download button of the book opens a page's ``.ipynb``: the page as a
plain Jupyter notebook, which Colab and JupyterLab read without the book's Sphinx extensions.
:func:`colab_notebook` makes it from the page's MyST source (``book/**/*.md``), the same way for
every page:

- **Prose** becomes plain Markdown (:func:`gendel.book.lab_notebook.plain_markdown`, the converter
  of the lab's student notebook): cross-references (``{doc}``, ``{ref}``, ``{numref}``, ``{eq}``,
  ``{prf:ref}``) become links to the rendered book where ``_config.yml`` gives its address
  (``html.baseurl``, else the GitHub Pages address of ``repository.url``) and plain words where it
  gives none; citations "Author (year)"; admonitions, theorems, dropdowns, exercises and solutions
  a bold title and a block quote; figures an image and its caption.
- **Numbers the page computes** (``{glue:text}`` and ``{glue:md}`` roles): a paragraph that quotes
  them becomes a hidden code cell ``page.show(...)`` in its place, which displays the paragraph with
  the numbers filled in once Run All reaches it (:meth:`gendel.book.PageSetup.show`); a number
  glued further down fills in when it is computed. This keeps each sentence where the book has it
  and shows it as the book does, with the page's own numbers of this run, instead of a
  placeholder in the text and the values elsewhere. Before Run All such a cell shows its title, the
  paragraph's first words.
- **Plumbing** (code cells tagged ``remove-cell``, ``remove-input`` or ``hide-input``): hidden where
  the notebook runs, with JupyterLab's ``jupyter.source_hidden`` and Colab's form view (``cellView:
  form`` and a ``#@title`` first line). ``%%build_only`` cells are left out: they do nothing outside
  the book build.
- **The first cell**, the install cell (:mod:`gendel.book.install`), stays visible: it is what a
  reader runs first, and it installs gendel where it is missing.

Every pair is generated, and ``tests/test_pairs.py`` checks that each ``.ipynb`` is what its page
gives today. From the repository root, after editing a page::

    .venv/bin/python -m gendel.book.colab              # every page
    .venv/bin/python -m gendel.book.colab book/framework.md
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from gendel.book.install import ROOT, pages, render_cell
from gendel.book.lab_notebook import PageContext, book_labels, clone_root

#: Tags of the cells that set a page up or compute what its text quotes: hidden in the notebook.
PLUMBING = ("remove-cell", "remove-input", "hide-input")
#: The magic of the cells that run only in the book build (gendel.book.build_only).
BUILD_ONLY = "%%build_only"
_GLUE = re.compile(r"\{\{[A-Za-z_][\w-]*(?::[^{}]*)?\}\}")
_TITLES = {"remove-cell": "Set-up", "remove-input": "Code of the output below", "hide-input": "Code, folded as in the book"}


def _blocks(markdown):
    """The paragraphs (blocks between blank lines) of ``markdown``; display math and fenced code stay whole."""
    blocks, current, math, fence = [], [], False, None
    for line in markdown.splitlines():
        stripped = line.strip()
        if fence is None and not math and not stripped:
            if current:
                blocks.append("\n".join(current))
                current = []
            continue
        current.append(line)
        opened = re.match(r"(`{3,}|~{3,})", stripped)
        if fence is None and not math and opened:
            fence = opened.group(1)
        elif fence is not None and stripped.startswith(fence) and stripped.strip("`~") == "":
            fence = None
        elif fence is None and stripped.count("$$") % 2:
            math = not math
    if current:
        blocks.append("\n".join(current))
    return blocks


def _title(text, limit=72):
    """A one-line title for a hidden cell from a paragraph: its first words, plain."""
    first = text.lstrip().splitlines()[0] if text.strip() else ""
    if first.startswith("|"):  # a table: its header row
        text = "Table: " + ", ".join(c.strip() for c in first.strip("| ").split("|"))
    words = _GLUE.sub("…", text)
    words = re.sub(r"\$[^$]*\$", "…", words)
    words = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", words)
    # emphasis and code marks go; an underscore inside a name (find_job) stays
    words = re.sub(r"[*`#>]|(?<!\w)_|_(?!\w)|\s+", lambda m: " " if m.group(0).isspace() else "", words).strip()
    if len(words) > limit:
        words = words[:limit].rsplit(" ", 1)[0] + " …"
    return words or "Text with this page's numbers"


def _show_cell(text):
    import nbformat

    literal = f'r"""{text}"""' if '"""' not in text and not text.endswith("\\") else repr(text)
    source = f"#@title {_title(text)} {{ display-mode: \"form\" }}\npage.show({literal})"
    return nbformat.v4.new_code_cell(source, metadata=_hidden({"tags": ["glued-text"]}))


def _hidden(metadata):
    metadata = dict(metadata)
    metadata["cellView"] = "form"
    metadata["jupyter"] = {**metadata.get("jupyter", {}), "source_hidden": True}
    return metadata


def _markdown_cells(text, context):
    """The notebook cells of one markdown cell of a page: Markdown, and a ``page.show`` cell for
    each run of paragraphs that quote glued numbers."""
    import nbformat

    if "{{" in text:
        raise ValueError(f"{context.page}: a markdown cell holds '{{{{', which the notebook reserves for glued "
                         "numbers; write it another way (e.g. {{ with a space)")
    converted = context.convert(text)
    cells, plain, glued = [], [], []

    def flush():
        if plain:
            cells.append(nbformat.v4.new_markdown_cell("\n\n".join(plain)))
            plain.clear()
        if glued:
            cells.append(_show_cell("\n\n".join(glued)))
            glued.clear()

    for block in _blocks(converted):
        if _GLUE.search(block):
            if plain:
                flush()
            glued.append(block)
        else:
            if glued:
                flush()
            plain.append(block)
    flush()
    return cells


def _code_cell(cell, first):
    import nbformat

    source, tags = cell.source, list(cell.metadata.get("tags", []))
    if first:
        return nbformat.v4.new_code_cell(source)
    hide = [t for t in tags if t in PLUMBING]
    metadata = {"tags": tags} if tags else {}
    if hide:
        comment = source.splitlines()[0] if source.startswith("#") else ""
        title = comment.lstrip("#").strip() or ("Computations that the text quotes" if "glue(" in source
                                                else _TITLES[hide[0]])
        source = f"#@title {title} {{ display-mode: \"form\" }}\n" + (source.split("\n", 1)[1] if comment else source)
        metadata = _hidden(metadata)
    return nbformat.v4.new_code_cell(source, metadata=metadata)


def colab_notebook(page, *, root=None, labels=None):
    """The notebook of the MyST ``page`` for Colab and Jupyter (see the module docstring).

    Parameters
    ----------
    page : path
        A page of the book, ``book/**/*.md`` in a clone whose root holds ``_config.yml``.
    root : path, optional
        That clone's root (default: the folder above the page's ``book`` folder).
    labels : dict, optional
        :func:`gendel.book.lab_notebook.book_labels` of the clone, to reuse it over many pages.

    Examples
    --------
    >>> import tempfile, textwrap
    >>> from pathlib import Path
    >>> from gendel.book.install import render_cell
    >>> from gendel.book.colab import colab_notebook
    >>> root = Path(tempfile.mkdtemp())
    >>> (root / "book").mkdir()
    >>> _ = (root / "_config.yml").write_text("repository:\\n  url: ''\\n")
    >>> first = render_cell(root / "_config.yml")
    >>> text = textwrap.dedent('''\\
    ...     ---
    ...     jupytext:
    ...       text_representation: {extension: .md, format_name: myst}
    ...     kernelspec: {display_name: Python 3, language: python, name: python3}
    ...     ---
    ...     # A page
    ...
    ...     ```{code-cell} ipython3
    ...     :tags: [remove-cell]
    ...     FIRST
    ...     ```
    ...
    ...     ```{code-cell} ipython3
    ...     :tags: [remove-cell]
    ...     glue("n", 3, display=False)
    ...     ```
    ...
    ...     The page counts {glue:text}`n` points.
    ...     ''').replace("FIRST", first)
    >>> _ = (root / "book" / "page.md").write_text(text)
    >>> nb = colab_notebook(root / "book" / "page.md")
    >>> print(nb.cells[-1].source)
    #@title The page counts … points. { display-mode: "form" }
    page.show(r\"\"\"The page counts {{n}} points.\"\"\")
    >>> nb.cells[2].metadata["cellView"], nb.cells[2].metadata["jupyter"]
    ('form', {'source_hidden': True})
    """
    import jupytext
    import nbformat

    page = Path(page).resolve()
    if not page.is_file():
        raise FileNotFoundError(f"{page} not found: pass the path of a page of the book (book/**/*.md)")
    source = jupytext.read(page)
    markdown = "\n\n".join(c.source for c in source.cells if c.cell_type == "markdown")
    context = PageContext.of(page, markdown, root=root, glue=True,
                             labels=book_labels(root or clone_root(page)) if labels is None else labels)
    install_cell = render_cell(context.root / "_config.yml")
    cells, first = [], True
    for cell in source.cells:
        if cell.cell_type == "markdown":
            cells.extend(_markdown_cells(cell.source, context))
        elif cell.cell_type == "code":
            if cell.source.lstrip().startswith(BUILD_ONLY):
                continue
            if first and cell.source != install_cell:
                raise ValueError(f"{page}: the first code cell is not the install cell; write it with "
                                 "`python -m gendel.book.install`")
            cells.append(_code_cell(cell, first))
            first = False
        else:
            cells.append(cell)
    for i, cell in enumerate(cells):
        cell.id = f"cell-{i:03d}"
    nb = nbformat.v4.new_notebook(cells=cells)
    nb.metadata["kernelspec"] = dict(source.metadata.get("kernelspec") or
                                     {"display_name": "Python 3", "language": "python", "name": "python3"})
    nb.metadata["language_info"] = {"name": "python"}
    nb.metadata["colab"] = {"provenance": [], "toc_visible": True}
    nbformat.validate(nb)
    return nb


def colab_text(page, *, root=None, labels=None):
    """The notebook of ``page`` as the text of its ``.ipynb`` (JSON, one trailing newline).

    Examples
    --------
    >>> from gendel.book.install import ROOT
    >>> from gendel.book.colab import colab_text
    >>> colab_text(ROOT / "book" / "framework.md") == (ROOT / "book" / "framework.ipynb").read_text()
    True
    """
    import nbformat

    return nbformat.writes(colab_notebook(page, root=root, labels=labels)) + "\n"


def stale_pairs(root=ROOT):
    """The pages of the clone ``root`` whose ``.ipynb`` is missing or differs from what
    :func:`colab_text` makes of the page today.

    Examples
    --------
    >>> from gendel.book.colab import stale_pairs
    >>> stale_pairs()
    []
    """
    labels = book_labels(root)
    return [p for p in pages(root) if not p.with_suffix(".ipynb").is_file()
            or p.with_suffix(".ipynb").read_text() != colab_text(p, root=root, labels=labels)]


def write_pairs(selected=None, root=ROOT):
    """Write the ``.ipynb`` of each page in ``selected`` (default: every page with code); returns
    the pages whose ``.ipynb`` changed.

    Examples
    --------
    From the repository root, after editing a page::

        python -m gendel.book.colab book/framework.md
    """
    root = Path(root)
    labels = book_labels(root)
    changed = []
    for page in selected or pages(root):
        page = Path(page).resolve()
        text = colab_text(page, root=root, labels=labels)
        pair = page.with_suffix(".ipynb")
        if not pair.is_file() or pair.read_text() != text:
            pair.write_text(text)
            changed.append(page)
    return changed


def main(argv=None):
    """``python -m gendel.book.colab [page.md ...] [--check]``: write (or check) the pages' notebooks.

    Examples
    --------
    From the repository root::

        python -m gendel.book.colab             # every page's .ipynb, made again where its page changed
        python -m gendel.book.colab --check     # exit status 1 and the pages whose .ipynb is out of date
    """
    parser = argparse.ArgumentParser(prog="python -m gendel.book.colab",
                                     description="Make each page's .ipynb for Colab and Jupyter from its .md.")
    parser.add_argument("pages", nargs="*", type=Path, help="pages to convert (default: every page with code)")
    parser.add_argument("--root", type=Path, default=ROOT, help="the clone's root (holds _config.yml and book/)")
    parser.add_argument("--check", action="store_true", help="only list the pages whose .ipynb is out of date")
    args = parser.parse_args(argv)
    if args.check:
        stale = stale_pairs(args.root)
        for page in stale:
            print(f"out of date: {page.relative_to(args.root.resolve())}")
        return 1 if stale else 0
    changed = write_pairs(args.pages or None, args.root)
    print(f"{len(changed)} notebook(s) written")
    return 0


if __name__ == "__main__":
    sys.exit(main())
