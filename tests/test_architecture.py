"""The package's architecture as CONTRIBUTING.md states it: layers, module sizes, examples.

The layer table below is the one of CONTRIBUTING.md; a new module must be placed in it (the
test fails for a module it does not know), and it may import only from its own layer or below.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "gendel"

#: Layer of each module, by the longest matching prefix of its dotted name.
LAYERS = {
    # 0: helpers every module may use
    "gendel._validation": 0, "gendel._progress": 0, "gendel._kernels": 0, "gendel.cache": 0,
    "gendel.book": 0,
    # 1: data, learners and statistics
    "gendel.synthetic.data": 1, "gendel.gan.images": 1, "gendel.core.models": 1, "gendel.deletion_test.stats": 1, "gendel.deletion_test.mmd": 1,
    "gendel.deletion_test.calibration": 1,
    # 2: density ratio estimators and the approximate model (Alg. 1)
    "gendel.core.dre": 2, "gendel.core.deletion": 2,
    # 3: experiments, tests of deletion, claims, theory checks, the GAN half
    "gendel.synthetic.protocol": 3, "gendel.synthetic.experiments": 3, "gendel.synthetic.experiments": 3, "gendel.deletion_test.decision": 3, "gendel.claims": 3,
    "gendel.theory": 3, "gendel.gan": 3, "gendel.book.lab_checks": 3,
    # 4: figures
    "gendel.plotting": 4,
    # 5: live panels
    "gendel.panels.explorer_state": 5, "gendel.panels.explorer_figures": 5, "gendel.panels.base": 5, "gendel.panels.explorer": 5, "gendel.panels.gan": 5,
    "gendel.panels.deletion_test": 5,
    # the package's entry point re-exports the public modules
    "gendel": 6,
}

#: Imports inside functions that go up a layer on purpose (loaded on first use only).
LAZY_UPWARD = {
    ("gendel.core.dre", "gendel.gan.vdm"),  # gendel.core.dre.VDMDRE without importing torch for the 2-D half
    ("gendel.core.models", "gendel.gan.dcgan"),  # gendel.core.models.DCGAN, likewise
    ("gendel.book", "gendel.plotting.common"),  # setup_page sets plotly's renderer; plotting asks book where it runs
}

MAX_LINES = 400


def module_name(path):
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


MODULES = {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def layer(name):
    matches = [p for p in LAYERS if name == p or (p != "gendel" and name.startswith(p + "."))]
    if not matches:
        return None
    return LAYERS[max(matches, key=len)]


def resolve(importer, node):
    """The gendel modules an import statement names (relative imports resolved)."""
    package = importer if MODULES[importer].name == "__init__.py" else importer.rpartition(".")[0]
    if isinstance(node, ast.Import):
        names = [a.name for a in node.names]
    else:
        if node.level:
            base = package.split(".")
            base = base[: len(base) - node.level + 1]
            prefix = ".".join(base + ([node.module] if node.module else []))
        else:
            prefix = node.module or ""
        # `from . import data` names the module gendel.synthetic.data; `from .data import sample` names gendel.synthetic.data
        names = [f"{prefix}.{a.name}" if f"{prefix}.{a.name}" in MODULES else prefix for a in node.names]
    found = set()
    for n in names:
        while n and n not in MODULES:
            n = n.rpartition(".")[0] if "." in n else ""
        if n and n.startswith("gendel"):
            found.add(n)
    return found


def imports(name):
    """(module-level imports, imports inside functions) of a module, as sets of module names."""
    tree = ast.parse(MODULES[name].read_text())
    top, lazy = set(), set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            (top if node in tree.body else lazy).update(resolve(name, node))
    return top - {name}, lazy - {name} - top


def test_every_module_has_a_layer():
    unknown = [name for name in MODULES if layer(name) is None]
    assert not unknown, f"place these modules in the layer table of CONTRIBUTING.md and this test: {unknown}"


def test_no_module_imports_a_higher_layer():
    bad = []
    for name in MODULES:
        top, lazy = imports(name)
        for other in top | lazy:
            if layer(other) > layer(name) and (name, other) not in LAZY_UPWARD:
                bad.append(f"{name} (layer {layer(name)}) imports {other} (layer {layer(other)})")
    assert not bad, "\n".join(bad)


def test_module_level_imports_have_no_cycles():
    graph = {name: imports(name)[0] for name in MODULES}
    state = {}

    def visit(node, path):
        state[node] = "open"
        for nxt in graph[node]:
            if state.get(nxt) == "open" and not (node.startswith(nxt + ".") or nxt == "gendel"):
                raise AssertionError(" -> ".join(path + [nxt]))
            if nxt not in state:
                visit(nxt, path + [nxt])
        state[node] = "done"

    for name in MODULES:
        if name not in state:
            visit(name, [name])


@pytest.mark.parametrize("name", sorted(MODULES))
def test_module_is_at_most_400_lines(name):
    n = len(MODULES[name].read_text().splitlines())
    assert n <= MAX_LINES, f"{name} has {n} lines; split it by what it does (CONTRIBUTING.md)"


def public_definitions(name):
    tree = ast.parse(MODULES[name].read_text())
    return [n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef)) and not n.name.startswith("_")]


@pytest.mark.parametrize("name", sorted(n for n in MODULES if not any(p.startswith("_") for p in n.split("."))))
def test_public_functions_and_classes_have_examples(name):
    missing = [d.name for d in public_definitions(name) if "Examples\n" not in (ast.get_docstring(d) or "")]
    assert not missing, f"{name}: add a numpydoc 'Examples' section to {missing}"


def test_the_checks_can_fail(tmp_path):
    # A layer violation and a missing example are found in a constructed module.
    source = 'from .plotting import common\n\ndef f():\n    """No example."""\n'
    tree = ast.parse(source)
    node = tree.body[0]
    MODULES["gendel.stats_fake"] = tmp_path / "stats_fake.py"
    try:
        assert resolve("gendel.stats_fake", node) >= {"gendel.plotting.common"}
        assert layer("gendel.plotting.common") > layer("gendel.deletion_test.stats")
    finally:
        del MODULES["gendel.stats_fake"]
    assert "Examples\n" not in ast.get_docstring(tree.body[1])
