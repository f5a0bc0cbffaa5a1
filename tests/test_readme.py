"""README.md's "Using the package" examples run as printed (the GAN one up to its training, which
takes minutes: its imports and the names it calls must exist)."""

from __future__ import annotations

import ast
import importlib
import re

import pytest

from conftest import REPO


def readme_blocks():
    text = (REPO / "README.md").read_text()
    section = text[text.index("## Using the package"):text.index("## Running the pages live")]
    return re.findall(r"```python\n(.*?)```", section, re.S)


def test_the_2d_example_runs(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("GENDEL_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("TQDM_DISABLE", "1")
    blocks = readme_blocks()
    assert len(blocks) == 2, "README's 'Using the package' has a 2-D and a GAN example"
    exec(compile(blocks[0], "README.md", "exec"), {})
    out = capsys.readouterr().out
    assert "p = " in out and "rejection rate" in out   # the test's decision and its measured type-I error


def names_called(source):
    """(module alias, attribute) of every ``alias.attr`` the source reads, and the names it imports."""
    tree = ast.parse(source)
    imported = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            for alias in node.names:
                imported[alias.asname or alias.name] = (node.module, alias.name)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                imported[alias.asname or alias.name] = (alias.name, None)
    attributes = [(n.value.id, n.attr) for n in ast.walk(tree)
                  if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id in imported]
    return imported, attributes


def test_the_gan_example_names_what_exists():
    pytest.importorskip("torch")
    imported, attributes = names_called(readme_blocks()[1])
    objects = {}
    for name, (module, attr) in imported.items():
        base = importlib.import_module(module)
        objects[name] = getattr(base, attr) if attr and hasattr(base, attr) else \
            importlib.import_module(f"{module}.{attr}") if attr else base
    missing = [f"{alias}.{attr}" for alias, attr in attributes if not hasattr(objects[alias], attr)]
    assert not missing, f"README's GAN example calls names that do not exist: {missing}"


def test_a_wrong_name_is_found():
    imported, attributes = names_called("from gendel.core import dre\nx = dre.NoSuchDRE()\n")
    assert imported == {"dre": ("gendel.core", "dre")} and attributes == [("dre", "NoSuchDRE")]
    assert not hasattr(importlib.import_module("gendel.core.dre"), "NoSuchDRE")
