"""The student edition of the book: the same chapters without solutions, teacher pages or key.

``make book EDITION=student`` builds it into ``_build/student/_build/html`` for a course site.
The default build (``make book``) is unchanged. Two things make the student edition:

- **its table of contents**, ``_toc_student.yml``, written from ``_toc.yml`` by
  ``python -m gendel.book.edition``: the pages of :data:`TEACHER_ONLY` (the teacher page, the
  teacher's key, and the solutions versions of the two labs) are left out, and
  :data:`STUDENT_PAGE` (the page that offers the labs' student notebooks) takes their place;
  ``tests/test_course_edition.py`` checks that the file is in step with ``_toc.yml``;
- **this module as a Sphinx extension** (listed in ``_config.yml``). It does nothing unless
  ``GENDEL_EDITION=student`` is set (the Makefile sets it). Then it removes every solution of an
  exercise from the pages (``{solution}`` and the gated ``{solution-start}`` ... ``{solution-end}``,
  code cells and their outputs included: sphinx-exercise's own ``hide_solutions`` leaves the
  content of gated solutions on the page), copies no page sources into the HTML, hides the
  download button (it offers a page's source, solutions included), and turns a link to a page
  of :data:`TEACHER_ONLY` into its title in plain text, so that the chapters that mention the
  teacher page still build without a warning.
"""

from __future__ import annotations

import argparse
import copy
import os
from pathlib import Path

#: The environment variable that chooses the edition, and its values.
EDITION_ENV = "GENDEL_EDITION"
EDITIONS = ("full", "student")
#: Pages of the full edition that the student edition leaves out.
TEACHER_ONLY = ("book/course/teacher", "book/course/key", "book/course/lab", "book/course/gan_lab")
#: The page that takes their place in the student edition.
STUDENT_PAGE = "book/course/notebooks"
#: The student edition's table of contents, next to ``_toc.yml``.
STUDENT_TOC = Path("_toc_student.yml")
_HEADER = ("# The student edition's table of contents: written from _toc.yml by `python -m gendel.book.edition`;\n"
           "# do not edit (tests/test_course_edition.py checks that it is in step).\n")


def edition():
    """The edition chosen by ``$GENDEL_EDITION`` (``"full"`` when unset).

    Examples
    --------
    >>> import os
    >>> os.environ.pop("GENDEL_EDITION", None) and None
    >>> edition()
    'full'
    """
    value = os.environ.get(EDITION_ENV, "") or "full"
    if value not in EDITIONS:
        raise ValueError(f"{EDITION_ENV}={value!r} is not an edition of the book; use one of {EDITIONS} "
                         "(e.g. make book EDITION=student)")
    return value


def _strip(entries, where):
    kept = []
    for entry in entries or []:
        if not isinstance(entry, dict):
            kept.append(entry)
            continue
        if entry.get("file") in TEACHER_ONLY:
            where.append(True)
            continue
        entry = dict(entry)
        for key in ("sections", "chapters"):
            if key in entry:
                entry[key] = _strip(entry[key], where)
        kept.append(entry)
    return kept


def student_toc(toc):
    """The student edition's table of contents (a dict) from the full one.

    The pages of :data:`TEACHER_ONLY` are left out; in each part that held one of them,
    :data:`STUDENT_PAGE` takes the first one's place.

    Examples
    --------
    >>> toc = {"root": "book/intro", "parts": [{"caption": "For courses", "chapters": [
    ...     {"file": "book/course/teacher"}, {"file": "book/course/lab"}]}]}
    >>> student_toc(toc)["parts"][0]["chapters"]
    [{'file': 'book/course/notebooks'}]
    """
    toc = copy.deepcopy(toc)
    if toc.get("root") in TEACHER_ONLY:
        raise ValueError(f"the book's root page {toc['root']!r} is a teacher page; the student edition needs another")
    for part in toc.get("parts", []):
        where = []
        chapters = part.get("chapters", [])
        first = next((i for i, e in enumerate(chapters) if isinstance(e, dict) and e.get("file") in TEACHER_ONLY),
                     None)
        part["chapters"] = _strip(chapters, where)
        if where:
            part["chapters"].insert(first if first is not None else len(part["chapters"]), {"file": STUDENT_PAGE})
    return toc


def student_toc_text(toc_file="_toc.yml"):
    """The text of ``_toc_student.yml`` for the table of contents ``toc_file``.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     toc = Path(tmp) / "_toc.yml"
    ...     _ = toc.write_text("format: jb-book\\nroot: intro\\nparts:\\n- chapters:\\n  - file: book/course/key\\n")
    ...     print(student_toc_text(toc).splitlines()[-1])
      - file: book/course/notebooks
    """
    import yaml

    toc = yaml.safe_load(Path(toc_file).read_text())
    return _HEADER + yaml.safe_dump(student_toc(toc), sort_keys=False, allow_unicode=True)


# ------------------------------------------------------------------------------------------
# The Sphinx extension


def _remove_solutions(app, doctree):
    from sphinx_exercise.nodes import solution_end_node, solution_node, solution_start_node

    for node in list(doctree.findall(solution_node)):
        node.parent.remove(node)
    for kind in (solution_start_node, solution_end_node):  # a gated solution left unmerged
        if any(True for _ in doctree.findall(kind)):
            raise RuntimeError(f"{app.env.docname}: a {kind.__name__} was left after sphinx-exercise merged the "
                               "gated solutions; the student edition cannot remove it")


def _solutions_transform():
    from sphinx.transforms import SphinxTransform

    class RemoveSolutions(SphinxTransform):
        """Remove every solution (merged gated ones included) from a page of the student edition."""

        default_priority = 11  # after sphinx-exercise's MergeGatedSolutions (10)

        def apply(self):
            if edition() == "student":
                _remove_solutions(self.app, self.document)

    return RemoveSolutions


def _missing_reference(app, env, node, contnode):
    """A link to a teacher-only page becomes its title, in italics, without a link."""
    from docutils import nodes
    from sphinx.util import docname_join

    from gendel.book.cells import page_title

    if edition() != "student" or node.get("reftype") != "doc":
        return None
    target = docname_join(node.get("refdoc", ""), node.get("reftarget", ""))
    if target not in TEACHER_ONLY:
        return None
    text = contnode.astext() if node.get("refexplicit") else page_title(app.srcdir, target)
    return nodes.emphasis(text, text)


#: Set to ``off`` to build the pages without running them: a quick check of what an edition
#: leaves out (the tests use it; ``make book`` runs every page).
EXECUTE_ENV = "GENDEL_BOOK_EXECUTE"


def _configure(app, config):
    if os.environ.get(EXECUTE_ENV) == "off":
        config.nb_execution_mode = "off"
    if edition() != "student":
        return
    config.html_copy_source = False
    if config.html_theme == "sphinx_book_theme":  # Jupyter Book's theme
        config.html_theme_options = {**(config.html_theme_options or {}), "use_download_button": False}


def setup(app):
    """Register the student edition's changes (active only with ``GENDEL_EDITION=student``).

    Examples
    --------
    >>> class App:
    ...     def connect(self, event, handler): print(event)
    ...     def add_transform(self, transform): print(transform.__name__)
    >>> setup(App())["parallel_read_safe"]
    config-inited
    missing-reference
    RemoveSolutions
    True
    """
    edition()  # a wrong value stops the build at once
    app.connect("config-inited", _configure)
    app.connect("missing-reference", _missing_reference)
    app.add_transform(_solutions_transform())
    return {"parallel_read_safe": True, "parallel_write_safe": True}


def _main(argv=None):
    parser = argparse.ArgumentParser(description="Write the student edition's table of contents from _toc.yml.")
    parser.add_argument("toc", nargs="?", default="_toc.yml", help="the full table of contents (default _toc.yml)")
    parser.add_argument("out", nargs="?", default=str(STUDENT_TOC), help=f"where to write it (default {STUDENT_TOC})")
    args = parser.parse_args(argv)
    Path(args.out).write_text(student_toc_text(args.toc))
    print(f"wrote {args.out}")


if __name__ == "__main__":
    _main()


__all__ = ["EDITIONS", "EDITION_ENV", "STUDENT_PAGE", "STUDENT_TOC", "TEACHER_ONLY", "edition", "setup",
           "student_toc", "student_toc_text"]
