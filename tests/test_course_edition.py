"""The student edition (``make book EDITION=student``, gendel.book.edition).

- its table of contents ``_toc_student.yml`` is written from ``_toc.yml``, leaves out exactly the
  teacher-only pages and offers the student notebooks instead;
- the Sphinx extension removes every solution (plain and gated, with its code) and turns links to
  teacher pages into plain titles only in the student edition; a small Sphinx project shows it in
  seconds, in both editions;
- (``book``) the built student edition holds no solution, key or teacher page.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from conftest import REPO, toc_files
from gendel.book import edition

STUDENT_TOC = REPO / edition.STUDENT_TOC


def test_student_toc_is_in_step_with_the_toc():
    assert STUDENT_TOC.read_text() == edition.student_toc_text(REPO / "_toc.yml"), (
        "_toc_student.yml differs from what _toc.yml gives; write it again with `.venv/bin/python -m gendel.book.edition`")


def test_student_toc_leaves_out_the_teacher_pages_and_nothing_else():
    full, student = toc_files(REPO / "_toc.yml"), toc_files(STUDENT_TOC)
    assert set(edition.TEACHER_ONLY) <= set(full), "TEACHER_ONLY names a page that is not in _toc.yml"
    assert not set(edition.TEACHER_ONLY) & set(student)
    assert [p for p in full if p not in edition.TEACHER_ONLY] == [p for p in student if p != edition.STUDENT_PAGE]
    assert student.count(edition.STUDENT_PAGE) == 1
    page = (REPO / f"{edition.STUDENT_PAGE}.md").read_text()
    for notebook in ("lab_student.ipynb", "gan_lab_student.ipynb"):
        assert f"<{notebook}>`" in page and (REPO / "book/course" / notebook).is_file(), notebook


def test_the_key_and_the_labs_solutions_are_teacher_only():
    for page in ("book/course/key", "book/course/teacher", "book/course/lab", "book/course/gan_lab"):
        assert page in edition.TEACHER_ONLY


def test_a_wrong_edition_is_refused(monkeypatch):
    monkeypatch.setenv(edition.EDITION_ENV, "teachers")
    with pytest.raises(ValueError, match="use one of"):
        edition.edition()


def test_the_makefile_switch_builds_from_the_student_toc():
    make = (REPO / "Makefile").read_text()
    assert "--toc _toc_student.yml" in make and "GENDEL_EDITION=student" in make
    assert "gendel.book.edition" in yaml.safe_load((REPO / "_config.yml").read_text())["sphinx"]["extra_extensions"]


# --- the extension, on a small Sphinx project -----------------------------------------------------

PAGE = """\
# A chapter

See {doc}`course/teacher` and {doc}`the key <course/key>`.

```{exercise}
:label: ex-one

Compute it.
```

```{solution-start} ex-one
:class: dropdown
```

GATED-SOLUTION-TEXT

```python
gated_solution_code = 1
```

```{solution-end}
```

```{exercise}
:label: ex-two

And this.
```

```{solution} ex-two
:class: dropdown

PLAIN-SOLUTION-TEXT
```
"""


def _build(tmp_path, which):
    src, out = tmp_path / "src", tmp_path / f"out-{which}"
    (src / "book" / "course").mkdir(parents=True, exist_ok=True)
    # the teacher pages are there in both editions, as in the repository; the student edition
    # leaves them out of its table of contents (here: excludes them)
    excluded = ", 'book/course/*'" if which == "student" else ""
    (src / "conf.py").write_text("extensions = ['myst_parser', 'sphinx_exercise', 'gendel.book.edition']\n"
                                 f"exclude_patterns = ['_build'{excluded}]\nhtml_theme = 'sphinx_book_theme'\n")
    toctree = "book/chapter\n" + ("book/course/teacher\nbook/course/key\n" if which == "full" else "")
    (src / "index.md").write_text(f"# Book\n\n```{{toctree}}\n{toctree}```\n")
    (src / "book" / "chapter.md").write_text(PAGE)
    (src / "book" / "course" / "teacher.md").write_text("# Teaching with this book\n")
    (src / "book" / "course" / "key.md").write_text("# The key\n")
    env = {**os.environ, "PYTHONPATH": f"{REPO}{os.pathsep}{os.environ.get('PYTHONPATH', '')}",
           edition.EDITION_ENV: which}
    result = subprocess.run([sys.executable, "-m", "sphinx", "-W", "-n", "-q", "-b", "html", str(src), str(out)],
                            env=env, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    return (out / "book" / "chapter.html").read_text(), out


def test_the_student_edition_removes_every_solution_and_unlinks_teacher_pages(tmp_path):
    html, out = _build(tmp_path, "student")
    assert "Compute it." in html and "And this." in html                     # the exercises stay
    for solution in ("GATED-SOLUTION-TEXT", "gated_solution_code", "PLAIN-SOLUTION-TEXT", "Solution to"):
        assert solution not in html, solution
    assert "<em>Teaching with this book</em>" in html and "<em>the key</em>" in html
    assert not (out / "_sources").exists()


def test_the_full_edition_keeps_the_solutions_and_the_links(tmp_path):
    html, out = _build(tmp_path, "full")
    for solution in ("GATED-SOLUTION-TEXT", "gated_solution_code", "PLAIN-SOLUTION-TEXT"):
        assert solution in html, solution
    assert re.search(r'href="course/teacher.html"', html) and (out / "_sources").exists()


# --- the built student edition (make book EDITION=student) ----------------------------------------

#: Text that only the solutions, the key or the teacher pages hold.
TEACHER_MARKERS = ("Teaching with this book", "The teacher's key", "Y_D_all, _, _ = rejection_sample",
                   "small_B = float(np.median", 'class="solution', "Solution to", "solutions** version")


@pytest.fixture(scope="module")
def student_html():
    """The student edition's HTML: $GENDEL_STUDENT_HTML, or built here as `make book EDITION=student` does."""
    given = os.environ.get("GENDEL_STUDENT_HTML")
    if given:
        return Path(given)
    from conftest import BOOK_ENV

    # The pages are not run (GENDEL_BOOK_EXECUTE=off): what the edition leaves out is in the pages'
    # sources, and a second run of every page would double the test's time. Without outputs the
    # glued numbers are missing, so the build is not run with -W here (make book EDITION=student is).
    env = {**os.environ, **BOOK_ENV, edition.EDITION_ENV: "student", edition.EXECUTE_ENV: "off"}
    command = [str(Path(sys.executable).parent / "jupyter-book"), "build", ".", "--all", "--keep-going",
               "--toc", "_toc_student.yml", "--path-output", "_build/student-check"]
    result = subprocess.run(command, cwd=REPO, env=env, capture_output=True, text=True)
    html = REPO / "_build" / "student-check" / "_build" / "html"
    assert (html / "index.html").exists(), (result.stdout + result.stderr)[-5000:]
    return html


@pytest.mark.book
def test_the_student_edition_has_no_solution_key_or_teacher_page(student_html):
    for page in edition.TEACHER_ONLY:
        assert not (student_html / f"{page}.html").exists(), page
    assert (student_html / f"{edition.STUDENT_PAGE}.html").exists()
    found = [(path.relative_to(student_html), marker) for path in student_html.rglob("*.html")
             for marker in TEACHER_MARKERS if marker in path.read_text(errors="replace")]
    assert not found, f"solution, key or teacher text in the student edition: {found[:10]}"
    assert not list(student_html.rglob("_sources/*.md")), "page sources (with solutions) were copied"
    assert not (student_html / "source").exists(), "the book's source (with the key) was published"
    links = re.findall(r'href="([^"]*_student\.ipynb)"', (student_html / f"{edition.STUDENT_PAGE}.html").read_text())
    assert len(links) == 2 and all((student_html / "book/course" / link).resolve().is_file() for link in links)


# --- the book's source, published with the full edition (gendel.book.publish.publish_source) -------

def test_the_full_edition_publishes_the_tracked_source_and_the_student_edition_none(tmp_path, monkeypatch):
    import tarfile

    from gendel.book import publish as wheel

    monkeypatch.delenv(edition.EDITION_ENV, raising=False)
    path, why = wheel.publish_source(tmp_path / "full", REPO)
    assert why is None and path.name == wheel.source_name(wheel.version(REPO))
    names = tarfile.open(path).getnames()
    top = f"gendel-{wheel.version(REPO)}/"
    assert all(n.startswith(top) for n in names)
    tracked = subprocess.run(["git", "-C", str(REPO), "ls-files"], capture_output=True, text=True).stdout.split()
    assert sorted(n[len(top):] for n in names) == sorted(f for f in tracked if (REPO / f).is_file())
    for needed in ("Makefile", "_toc.yml", "_toc_student.yml", "book/course/key.md", "gendel/book/edition.py"):
        assert top + needed in names, needed
    assert "EDITION=student" in (path.parent / "index.html").read_text()

    monkeypatch.setenv(edition.EDITION_ENV, "student")
    path, why = wheel.publish_source(tmp_path / "student", REPO)
    assert path is None and "solutions" in why and not (tmp_path / "student").exists()


def test_a_copy_that_is_not_a_git_checkout_gets_no_source_archive(tmp_path, monkeypatch):
    from gendel.book import publish as wheel

    monkeypatch.delenv(edition.EDITION_ENV, raising=False)
    (tmp_path / "pyproject.toml").write_text('[project]\nversion = "0.1.0"\n')
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path.parent))  # git must not find a repository above
    path, why = wheel.publish_source(tmp_path / "out", tmp_path)
    assert path is None and "not a git checkout" in why
