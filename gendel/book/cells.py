"""Where a code cell sits on a page: the section of a MyST page that holds a cell.

A cell is named by its first line of code (``first_code_line``), as the page-times benchmark
(``benchmarks/bench_page_times.py``) stores the slowest cell of each page; ``find_cells`` finds
the cells of a page's ``.md`` source with that first line and says under which heading each one
is, with the heading's label (a MyST target ``(label)=`` right above it) where it has one;
``page_title`` names a page by its title.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_LABEL = re.compile(r"^\(([^()\s]+)\)=\s*$")
_FENCE = re.compile(r"^\s*(`{3,}|~{3,}|:{3,})")


@dataclass(frozen=True)
class CellPlace:
    """One code cell of a page and the section it is in.

    Attributes
    ----------
    index : int
        The cell's position among the page's code cells, from 0.
    section : str
        The text of the nearest heading above the cell (the page title for cells above the first
        section).
    level : int
        That heading's level: 1 for the page title, 2 for a section, and so on.
    label : str or None
        The heading's MyST label (``(label)=`` right above it), for a ``{ref}`` link; None if it has none.

    Examples
    --------
    >>> from gendel.book.cells import CellPlace
    >>> CellPlace(index=3, section="Why not logistic regression?", level=2, label="dre-logistic").label
    'dre-logistic'
    """

    index: int
    section: str
    level: int
    label: str | None


def page_title(root, page, *, required=False):
    """The first heading of the page ``root/<page>.md``, else ``page`` itself.

    With ``required=True`` a page that does not exist or has no ``# `` title line raises
    :class:`ValueError` instead (a lab notebook links pages by their titles).

    Examples
    --------
    >>> page_title(".", "book/no-such-page")
    'book/no-such-page'
    >>> page_title(".", "book/no-such-page", required=True)
    Traceback (most recent call last):
    ...
    ValueError: book/no-such-page.md has no '# ' title line to name it by
    """
    path = Path(root) / f"{page}.md"
    if path.exists():
        for line in path.read_text().splitlines():
            if line.startswith("# "):
                return line[2:].strip()
    if required:
        raise ValueError(f"{path} has no '# ' title line to name it by")
    return page


def first_code_line(source):
    """The first line of a cell's code that is not blank, a comment or a cell magic (at most 100 characters).

    Examples
    --------
    >>> from gendel.book.cells import first_code_line
    >>> first_code_line("# set up\\n\\nimport numpy as np\\nx = 1")
    'import numpy as np'
    >>> first_code_line("%%build_only\\npanel.close()")
    'panel.close()'
    """
    lines = [ln for ln in source.splitlines() if ln.strip() and not ln.startswith(("#", "%%"))]
    return lines[0].strip()[:100] if lines else ""


def _headings(markdown):
    """The (level, text, label) of each heading of a Markdown cell, outside fenced blocks."""
    found, fence, label = [], None, None
    for line in markdown.splitlines():
        opened = _FENCE.match(line)
        if fence is not None:
            if opened and opened.group(1)[0] == fence[0] and len(opened.group(1)) >= len(fence):
                fence = None
            continue
        if opened:
            fence, label = opened.group(1), None
            continue
        if _LABEL.match(line):
            label = _LABEL.match(line).group(1)
            continue
        heading = _HEADING.match(line)
        if heading:
            found.append((len(heading.group(1)), heading.group(2), label))
        if line.strip():
            label = None
    return found


def find_cells(page, first_line):
    """The code cells of a MyST page whose first line of code is ``first_line``, with their sections.

    Parameters
    ----------
    page : str or path
        The page's ``.md`` file (a MyST notebook, read with jupytext).
    first_line : str
        A cell's first line of code as :func:`first_code_line` gives it.

    Returns
    -------
    list of CellPlace
        One per matching cell, in page order: empty if no cell of the page starts so.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from gendel.book.cells import find_cells
    >>> text = '''---
    ... jupytext:
    ...   text_representation: {extension: .md, format_name: myst}
    ... ---
    ... # A page
    ...
    ... (sec-fit)=
    ... ## Fitting
    ...
    ... ```{code-cell} ipython3
    ... import numpy as np
    ... ```
    ... '''
    >>> page = pathlib.Path(tempfile.mkdtemp()) / "page.md"
    >>> _ = page.write_text(text)
    >>> find_cells(page, "import numpy as np")
    [CellPlace(index=0, section='Fitting', level=2, label='sec-fit')]
    >>> find_cells(page, "import scipy")
    []
    """
    import jupytext

    page = Path(page)
    if not page.exists():
        raise FileNotFoundError(f"{page} does not exist: give the path of a page's .md file")
    found, index, current = [], 0, ("", 1, None)
    for cell in jupytext.read(page).cells:
        if cell.cell_type == "markdown":
            for level, text, label in _headings(cell.source):
                current = (text, level, label)
        elif cell.cell_type == "code":
            if first_code_line(cell.source) == first_line:
                found.append(CellPlace(index, *current))
            index += 1
    return found
