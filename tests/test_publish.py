"""gendel travels with the book: the wheel the book build publishes installs into a fresh Python and
runs a page.

``make book`` writes gendel's wheel into the HTML folder (``wheel/``, ``book/_ext/publish_package.py``). A
teacher hosts that folder; the pages' first cell installs ``<html.baseurl>/wheel/<wheel>``. Here the
"host" is the HTML folder itself, addressed as a ``file://`` URL: a fresh virtual environment (its
own site-packages, nothing from this one) gets ipykernel and the CPU torch of the Makefile (Colab
has torch preinstalled), and ``book/framework.ipynb`` runs in it, its first cell rendered for that
address, so that the page itself installs the wheel. The wheel comes from ``$GENDEL_BOOK_HTML`` (the
book that ``make book`` built) when it holds one, else it is built here the same way.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import nbformat
import pytest

from conftest import REPO
from gendel.book import publish as wheel
from gendel.book.install import render_cell

pytestmark = pytest.mark.book

WHERE = ("import gendel, importlib.resources, sys\nprint(gendel.__file__)\nprint(sys.prefix)\n"
         "print(sum(1 for p in (importlib.resources.files('gendel.gan') / 'results').rglob('*.npz')))")


def torch_requirement():
    match = re.search(r"^TORCH\s*\?=\s*(\S.*?)\s*$", (REPO / "Makefile").read_text(), re.M)
    assert match, "the Makefile has no `TORCH ?= ...` line"
    return match.group(1)


@pytest.fixture(scope="module")
def published(tmp_path_factory):
    """The HTML folder that holds the published wheel."""
    html = os.environ.get("GENDEL_BOOK_HTML")
    if html and (Path(html) / wheel.FOLDER / wheel.wheel_name(wheel.version(REPO))).is_file():
        return Path(html)
    html = tmp_path_factory.mktemp("book") / "html"
    wheel.build_wheel(html, root=REPO)
    return html


def test_the_published_wheel_holds_the_stored_results(published):
    path = published / wheel.FOLDER / wheel.wheel_name(wheel.version(REPO))
    assert wheel.check_wheel(path, REPO)
    names = zipfile.ZipFile(path).namelist()
    assert not [n for n in names if n.startswith(("book/", "tests/"))]
    assert wheel.wheel_name(wheel.version(REPO)) in (published / wheel.FOLDER / "index.html").read_text()


def test_a_fresh_venv_installs_the_wheel_and_runs_a_page(published, tmp_path, monkeypatch):
    from nbclient import NotebookClient

    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = venv / "bin" / "python"
    start = time.perf_counter()
    subprocess.run([str(python), "-m", "pip", "install", "--quiet", "ipykernel", torch_requirement()], check=True)
    spec = tmp_path / "jupyter" / "kernels" / "gendel-wheel"
    spec.mkdir(parents=True)
    (spec / "kernel.json").write_text(json.dumps({
        "argv": [str(python), "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "fresh venv", "language": "python"}))
    for name in ("GENDEL_PIP_SPEC", "GENDEL_BOOK_BUILD", "PYTHONPATH"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("JUPYTER_PATH", str(tmp_path / "jupyter"))
    monkeypatch.setenv("GENDEL_COLAB", "0")
    monkeypatch.setenv("GENDEL_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("TQDM_DISABLE", "1")

    config = tmp_path / "_config.yml"  # the book hosted at the HTML folder's address
    config.write_text(f"html:\n  baseurl: {published.resolve().as_uri()}\nrepository:\n  url: ''\n  branch: main\n")
    nb = nbformat.read(REPO / "book" / "framework.ipynb", as_version=4)
    first = next(c for c in nb.cells if c.cell_type == "code")
    first.source = render_cell(config)
    assert published.resolve().as_uri() + "/wheel/" in first.source
    nb.cells.append(nbformat.v4.new_code_cell(WHERE))
    page = tmp_path / "page"  # run away from the clone: nothing of it on the kernel's path
    page.mkdir()
    NotebookClient(nb, timeout=1200, kernel_name="gendel-wheel",
                   resources={"metadata": {"path": str(page)}}).execute()  # raises at a failing cell
    seconds = time.perf_counter() - start

    module, prefix, stored = nb.cells[-1].outputs[0]["text"].split()
    assert Path(prefix) == venv and module.startswith(str(venv)), f"gendel came from {module}, not the fresh venv"
    assert int(stored) == len(list((REPO / wheel.DATA).rglob("*.npz"))) > 0
    print(f"fresh venv: installed the published wheel and ran book/framework.ipynb in {seconds:.0f} s")


def test_the_built_book_carries_its_source_and_the_teacher_page_links_it():
    """make book (the full edition) writes the source archive that the teacher page links."""
    html = os.environ.get("GENDEL_BOOK_HTML")
    if not html:
        pytest.skip("needs the built book: GENDEL_BOOK_HTML (make test sets it)")
    archive = Path(html) / wheel.SOURCE_FOLDER / wheel.source_name(wheel.version(REPO))
    assert archive.is_file() and (archive.parent / "index.html").is_file()
    teacher = (Path(html) / "book" / "course" / "teacher.html").read_text()
    assert 'href="../../source/index.html"' in teacher
