"""The student version of the lab page, made from the page itself.

``book/course/lab.md`` is the solutions version of the lab: it is the page of the book, and the
book build executes it. The student version is a notebook generated from it:

- each code cell tagged ``solution`` keeps its leading comment lines (``# Step n: what to write``)
  and the rest is replaced by ``raise NotImplementedError("Step n: ...")``;
- each exercise's solution (from its ``{solution-start}`` to its ``{solution-end}`` directive)
  is replaced by one code cell that raises ``NotImplementedError("Exercise ...")``;
- markdown cells marked ``+++ {"solutions_only": true}`` in the page are left out;
- the title says "(student version)" and cells get stable ids, so the same page always gives the
  same file.

Run it from the repository root after editing the page (a test checks that the two agree)::

    python -m gendel.book.lab_notebook          # book/course/lab.md -> book/course/lab_student.ipynb
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

#: The page and the notebook, relative to the repository root.
PAGE = Path("book/course/lab.md")
STUDENT = Path("book/course/lab_student.ipynb")
#: The tag of the cells that hold a solution.
SOLUTION_TAG = "solution"
#: A markdown cell with this metadata key set (``+++ {"solutions_only": true}`` in the page) is left out.
SOLUTIONS_ONLY = "solutions_only"

_STEP = re.compile(r"^#\s*(Step \d+):\s*(.+)$")
_START = re.compile(r"```\{solution-start\}\s*([\w-]+)")
_END = "```{solution-end}\n```"
_NOTE = ("**Student version.** Each cell that raises `NotImplementedError` is yours to write: replace "
         "it by your code and run it, then run the check below it. The check prints \"✓ step n\" when "
         "your result is right, and says what is wrong otherwise.")


def stub(source):
    """The student's version of a solution cell: its leading comments, then a NotImplementedError.

    The first comment line must read ``# Step n: what to write``; it names the step in the error.

    Examples
    --------
    >>> print(stub("# Step 5: the function ks(a, b)\\ndef ks(a, b):\\n    return 0.0"))
    # Step 5: the function ks(a, b)
    raise NotImplementedError("Step 5: write the function ks(a, b) here, then run the check below")
    """
    lines = source.splitlines()
    head = []
    for line in lines:
        if not line.startswith("#"):
            break
        head.append(line)
    match = _STEP.match(head[0]) if head else None
    if match is None:
        raise ValueError(f"a solution cell must start with a comment '# Step n: what to write'; it starts with "
                         f"{lines[0] if lines else '(nothing)'!r}")
    step, what = match.groups()
    message = f"{step}: write {what} here, then run the check below"
    return "\n".join(head + [f"raise NotImplementedError({json.dumps(message, ensure_ascii=False)})"])


def _exercise_stub(label):
    import nbformat

    return nbformat.v4.new_code_cell(
        f"# Your solution of exercise {label}\n"
        f"raise NotImplementedError(\"Exercise {label}: write your solution here\")")


def student_notebook(page=PAGE):
    """The student notebook of a lab page (a MyST notebook), as an ``nbformat`` notebook.

    Examples
    --------
    >>> import tempfile, textwrap
    >>> from pathlib import Path
    >>> text = textwrap.dedent('''\\
    ...     ---
    ...     jupytext:
    ...       text_representation: {extension: .md, format_name: myst}
    ...     kernelspec: {display_name: Python 3, language: python, name: python3}
    ...     ---
    ...     # A lab
    ...
    ...     ```{code-cell} ipython3
    ...     :tags: [solution]
    ...     # Step 1: x
    ...     x = 1
    ...     ```
    ...     ''')
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     _ = (Path(tmp) / "lab.md").write_text(text)
    ...     nb = student_notebook(Path(tmp) / "lab.md")
    >>> print(nb.cells[-1].source)
    # Step 1: x
    raise NotImplementedError("Step 1: write x here, then run the check below")
    """
    import jupytext
    import nbformat

    page = Path(page)
    if not page.is_file():
        raise FileNotFoundError(f"{page} not found: run this from the repository root, or pass the page's path")
    source = jupytext.read(page)
    cells, in_solution, titled = [], False, False
    for cell in source.cells:
        text = cell.source
        if cell.cell_type == "markdown":
            if cell.metadata.get(SOLUTIONS_ONLY):
                continue
            if in_solution:
                if _END not in text:
                    continue
                text = text.split(_END, 1)[1].lstrip("\n")
                in_solution = False
            start = _START.search(text)
            if start:
                before = text[: start.start()].rstrip("\n")
                if before:
                    cells.append(nbformat.v4.new_markdown_cell(before))
                cells.append(_exercise_stub(start.group(1)))
                in_solution = _END not in text[start.start():]
                continue
            if not titled and text.startswith("# "):
                title, _, rest = text.partition("\n")
                text = f"{title} (student version)\n\n{_NOTE}" + (f"\n{rest}" if rest.strip() else "")
                titled = True
            if text.strip():
                cells.append(nbformat.v4.new_markdown_cell(text, metadata=dict(cell.metadata)))
        elif in_solution:
            continue
        elif SOLUTION_TAG in cell.metadata.get("tags", []):
            tags = [t for t in cell.metadata["tags"] if t not in (SOLUTION_TAG, "hide-input")]
            cells.append(nbformat.v4.new_code_cell(stub(text), metadata={"tags": tags} if tags else {}))
        else:
            cells.append(nbformat.v4.new_code_cell(text, metadata=dict(cell.metadata)))
    if in_solution:
        raise ValueError(f"{page}: a {{solution-start}} has no {{solution-end}}")
    for i, cell in enumerate(cells):
        cell.id = f"cell-{i:02d}"
    nb = nbformat.v4.new_notebook(cells=cells)
    nb.metadata["kernelspec"] = dict(source.metadata.get("kernelspec") or
                                     {"display_name": "Python 3", "language": "python", "name": "python3"})
    nb.metadata["language_info"] = {"name": "python"}
    nbformat.validate(nb)
    return nb


def student_text(page=PAGE):
    """The student notebook of ``page`` as the text written to disk (JSON, one trailing newline).

    Examples
    --------
    >>> import json, tempfile
    >>> from pathlib import Path
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     _ = (Path(tmp) / "lab.md").write_text("# A lab\\n")
    ...     json.loads(student_text(Path(tmp) / "lab.md"))["cells"][0]["source"][0]
    '# A lab (student version)\\n'
    """
    import nbformat

    return nbformat.writes(student_notebook(page)) + "\n"


def write_student_notebook(page=PAGE, out=STUDENT):
    """Write the student notebook of ``page`` to ``out``; returns ``out``.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     _ = (Path(tmp) / "lab.md").write_text("# A lab\\n")
    ...     write_student_notebook(Path(tmp) / "lab.md", Path(tmp) / "lab.ipynb").name
    'lab.ipynb'
    """
    out = Path(out)
    out.write_text(student_text(page))
    return out


def _main(argv=None):
    parser = argparse.ArgumentParser(description="Make the student notebook of the lab page.")
    parser.add_argument("page", nargs="?", default=str(PAGE), help=f"the MyST page (default {PAGE})")
    parser.add_argument("out", nargs="?", default=str(STUDENT), help=f"the notebook to write (default {STUDENT})")
    args = parser.parse_args(argv)
    print(f"wrote {write_student_notebook(args.page, args.out)}")


if __name__ == "__main__":
    _main()


__all__ = ["PAGE", "STUDENT", "SOLUTION_TAG", "SOLUTIONS_ONLY", "student_notebook", "student_text", "stub",
           "write_student_notebook"]
