"""Every "Examples" section of gendel's docstrings runs as a doctest and prints what it shows."""

from __future__ import annotations

import doctest
import importlib
import os
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "gendel"
MODULES = sorted(
    ".".join(p.relative_to(PACKAGE.parent).with_suffix("").parts).removesuffix(".__init__")
    for p in PACKAGE.rglob("*.py")
    if p.name != "__main__.py"
)
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


@pytest.fixture(autouse=True)
def _quiet_and_cached(tmp_path, monkeypatch):
    # Examples that cache results write into a fresh folder, and show no progress bars.
    monkeypatch.setenv("GENDEL_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("TQDM_DISABLE", "1")
    monkeypatch.chdir(tmp_path)


def run_examples(obj, name, out=None):
    """Run the examples of ``obj`` (a module or a function) as this file checks them: ``TestResults(failed, attempted)``."""
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    for test in doctest.DocTestFinder(exclude_empty=True).find(obj, name):  # globs: a copy of obj's module's
        runner.run(test, out=out)
    return runner.summarize(verbose=False)


@pytest.mark.parametrize("name", MODULES)
def test_examples_run(name, capsys):
    result = run_examples(importlib.import_module(name), name)
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples failed in {name}:\n" + capsys.readouterr().out


def test_the_check_above_sees_a_wrong_example():
    """``run_examples`` with its flags (ELLIPSIS, NORMALIZE_WHITESPACE) can fail: a flag that skipped
    examples or a runner that lost failures would make every module above pass unseen."""

    def examples():
        """
        >>> 1 + 1
        2
        >>> list(range(30))
        [0, 1, ..., 29]
        >>> 1 + 1
        3
        """

    assert run_examples(examples, "examples", out=lambda s: None) == (1, 3)
    assert os.environ.get("GENDEL_CACHE_DIR", "").endswith("cache")
