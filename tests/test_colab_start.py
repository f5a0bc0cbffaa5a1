"""A Colab-like start: a kernel without gendel, each chapter's ``.ipynb`` run top to bottom.

Colab opens a page's ``.ipynb`` in a Python that has no gendel. The page's first cell must install
it (``gendel.book.install``) and the rest of the page must then run. Here the kernel is a fresh
virtual environment holding only ``ipykernel`` (and pip); the first cell installs what
``GENDEL_PIP_SPEC`` names: the CPU build of torch that the Makefile installs (its ``TORCH`` line)
and this clone's package (copied, so that pip's build folder stays out of the clone) with the
``book`` extra. The kernel is told it runs in Colab (``GENDEL_COLAB=1``)
and finds a stand-in ``google.colab.output``, as in ``tests/test_colab.py``.

Before each page gendel is uninstalled again, so that every page's first cell has to install it.
The GAN chapter's Q2 page runs whole: it reads the GAN results stored with gendel (installed with
the package), as a reader's Colab runtime does, in seconds. The first run installs torch and the
book's packages (about 1 GB); later runs reuse pip's cache.
"""

from __future__ import annotations

import json
import re
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path

import nbformat
import pytest

from conftest import REPO

pytestmark = pytest.mark.book

PAGES = ["book/framework.ipynb", "book/classifier_dre.ipynb", "book/theory/index.ipynb",
         "book/gan/q2_fast_deletion.ipynb"]
WHERE = "import gendel, sys\nprint(gendel.__file__)\nprint(sys.prefix)"

FAKE_OUTPUT = '''\
"""A stand-in for Colab's google.colab.output: records calls in $GENDEL_FAKE_COLAB_LOG."""
import os


def enable_custom_widget_manager():
    with open(os.environ["GENDEL_FAKE_COLAB_LOG"], "a") as f:
        f.write("enable_custom_widget_manager\\n")
'''


def torch_requirement():
    """The torch requirement of the Makefile's ``TORCH ?=`` line (a CPU build on these machines)."""
    match = re.search(r"^TORCH\s*\?=\s*(\S.*?)\s*$", (REPO / "Makefile").read_text(), re.M)
    assert match, "the Makefile has no `TORCH ?= ...` line"
    return match.group(1)


def package_copy(target):
    """The files pip builds gendel from (pyproject.toml, README.md, gendel/), as this clone has them
    (committed or not), copied to ``target``: pip builds in the source folder, and its ``build/``
    must not land in the clone."""
    listed = subprocess.run(["git", "-C", str(REPO), "ls-files", "--cached", "--others", "--exclude-standard"],
                            capture_output=True, text=True, check=True).stdout.splitlines()
    for name in listed:
        source = REPO / name
        if (name in ("pyproject.toml", "README.md") or name.startswith("gendel/")) and source.is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, target / name)
    return target


@pytest.fixture(scope="module")
def fresh_kernel(tmp_path_factory):
    """A kernelspec for a new virtual environment with only ipykernel, and the kernel's environment."""
    tmp = tmp_path_factory.mktemp("colab_start")
    venv = tmp / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = venv / "bin" / "python"
    subprocess.run([str(python), "-m", "pip", "install", "--quiet", "ipykernel"], check=True)
    spec = tmp / "jupyter" / "kernels" / "gendel-colab-start"
    spec.mkdir(parents=True)
    (spec / "kernel.json").write_text(json.dumps({
        "argv": [str(python), "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "Colab-like start", "language": "python"}))
    fake = tmp / "fake"
    (fake / "google" / "colab").mkdir(parents=True)  # no google/__init__.py: a namespace package
    (fake / "google" / "colab" / "__init__.py").write_text("")
    (fake / "google" / "colab" / "output.py").write_text(FAKE_OUTPUT)
    env = {
        "JUPYTER_PATH": str(tmp / "jupyter"),
        "GENDEL_PIP_SPEC": shlex.join([torch_requirement(), f"{package_copy(tmp / 'clone')}[book]"]),
        "GENDEL_COLAB": "1",
        "GENDEL_FAKE_COLAB_LOG": str(tmp / "colab.log"),
        "GENDEL_CACHE_DIR": str(tmp / "cache"),  # nothing computed by the book build is reused
        "PYTHONPATH": str(fake),
        "TQDM_DISABLE": "1",
    }
    return {"python": python, "env": env, "log": tmp / "colab.log", "times": {}}


def has_gendel(python):
    """Whether gendel is installed in the environment of ``python`` (isolated mode, run outside the
    clone: the clone's own folder must not count)."""
    found = "import importlib.util, sys; sys.exit(importlib.util.find_spec('gendel') is None)"
    return subprocess.run([str(python), "-I", "-c", found], cwd=python.parent, capture_output=True).returncode == 0


@pytest.mark.parametrize("name", PAGES)
def test_page_starts_as_in_colab(name, fresh_kernel, monkeypatch):
    from nbclient import NotebookClient

    python = fresh_kernel["python"]
    monkeypatch.delenv("GENDEL_BOOK_BUILD", raising=False)
    for key, value in fresh_kernel["env"].items():
        monkeypatch.setenv(key, value)
    subprocess.run([str(python), "-m", "pip", "uninstall", "--quiet", "--yes", "gendel"], capture_output=True)
    assert not has_gendel(python), "gendel is importable in the fresh kernel before the page ran"
    fresh_kernel["log"].unlink(missing_ok=True)

    path = REPO / name
    nb = nbformat.read(path, as_version=4)
    nb.cells.append(nbformat.v4.new_code_cell(WHERE))
    start = time.perf_counter()
    NotebookClient(nb, timeout=900, kernel_name="gendel-colab-start",
                   resources={"metadata": {"path": str(path.parent)}}).execute()  # raises at a failing cell
    fresh_kernel["times"][name] = time.perf_counter() - start

    module, prefix = nb.cells[-1].outputs[0]["text"].split()
    assert Path(prefix) == python.parent.parent and module.startswith(prefix), \
        f"{name}: gendel was imported from {module}, not installed into the fresh kernel's environment"
    assert has_gendel(python), f"{name}: the first cell did not install gendel"
    calls = fresh_kernel["log"].read_text().split() if fresh_kernel["log"].exists() else []
    assert calls and set(calls) == {"enable_custom_widget_manager"}, \
        f"{name}: Colab's widget manager was not switched on"  # by the first cell, and again by a live panel
    errors = [o for c in nb.cells for o in c.get("outputs", []) if o.get("output_type") == "error"]
    assert not errors
    print(f"{name}: installed gendel and ran in {fresh_kernel['times'][name]:.0f} s")
