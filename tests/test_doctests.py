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


@pytest.mark.parametrize("name", MODULES)
def test_examples_run(name, capsys):
    module = importlib.import_module(name)
    finder = doctest.DocTestFinder(exclude_empty=True)
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    for test in finder.find(module, name, globs=vars(module).copy()):
        runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples failed in {name}:\n" + capsys.readouterr().out


def test_a_wrong_example_fails():
    def wrong():
        """
        >>> 1 + 1
        3
        """

    runner = doctest.DocTestRunner(optionflags=FLAGS)
    for test in doctest.DocTestFinder().find(wrong, "wrong", globs={}):
        runner.run(test, out=lambda s: None)
    assert runner.summarize(verbose=False).failed == 1
    assert os.environ.get("GENDEL_CACHE_DIR", "").endswith("cache")
