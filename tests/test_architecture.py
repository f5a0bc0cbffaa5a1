"""The package's architecture as CONTRIBUTING.md states it: layers, no import cycles, no shims, examples,
one registry of statistics, torch only where a network is trained or run.

The layer table below is the one of CONTRIBUTING.md; a new module must be placed in it (the
test fails for a module it does not know), and it may import only from its own layer or below,
counting what Python runs for an import: the ``__init__`` of every package on the way
(``import gendel.gan.images`` runs ``gendel/gan/__init__.py`` first, and whatever that imports).
Every module CONTRIBUTING.md's module table names must exist, in the layer the table gives it.
"""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "gendel"
CONTRIBUTING = PACKAGE.parent / "CONTRIBUTING.md"

#: Layer of each module, by the longest matching prefix of its dotted name.
LAYERS = {
    # 0: helpers every module may use
    "gendel._validation": 0, "gendel._progress": 0, "gendel._kernels": 0, "gendel._environment": 0,
    "gendel.cache": 0, "gendel.fingerprint": 0,
    # 1: data, learners and statistics
    "gendel.synthetic.data": 1, "gendel.gan.images": 1, "gendel.core.models": 1, "gendel.deletion_test.stats": 1,
    "gendel.deletion_test.mmd": 1, "gendel.deletion_test.calibration": 1,
    # 2: density ratio estimators and the approximated model (Alg. 1)
    "gendel.core": 2,
    # 3: experiments, the deletion test as a decision, the theory checks, the GAN half
    "gendel.synthetic": 3, "gendel.deletion_test": 3, "gendel.theory": 3, "gendel.gan": 3,
    # 4: the paper's claims (they read the experiments' results)
    "gendel.claims": 4,
    # 5: figures
    "gendel.plotting": 5,
    # 6: live panels
    "gendel.panels": 6,
    # 7: the book's page tooling: nothing in the library imports it
    "gendel.book": 7,
    # the package's entry point
    "gendel": 8,
}

#: The modules that train or run a network: they import torch, and no other module of gendel loads it.
TORCH_MODULES = ("gendel.gan.networks", "gendel.gan.devices", "gendel.gan.checkpoints", "gendel.gan.training",
                 "gendel.gan.dcgan", "gendel.gan.vdm", "gendel.gan.classifier")

#: A module this long gets a warning: look at whether it does one thing (size is a smell, not a gate).
WARN_LINES = 600


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


def from_prefix(importer, node):
    """The dotted name a ``from ... import`` statement imports from (relative imports resolved)."""
    package = importer if MODULES[importer].name == "__init__.py" else importer.rpartition(".")[0]
    if node.level:
        base = package.split(".")
        base = base[: len(base) - node.level + 1]
        return ".".join(base + ([node.module] if node.module else []))
    return node.module or ""


def resolve(importer, node):
    """The gendel modules an import statement names (relative imports resolved)."""
    if isinstance(node, ast.Import):
        names = [a.name for a in node.names]
    else:
        prefix = from_prefix(importer, node)
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


def is_package(name):
    return MODULES[name].name == "__init__.py"


def packages_of(name):
    """The packages whose ``__init__`` Python runs before ``name``: gendel, gendel.gan for gendel.gan.images."""
    parts = name.split(".")
    return [p for p in (".".join(parts[:i]) for i in range(1, len(parts))) if p in MODULES]


def loaded(name, top=None):
    """Every gendel module that ``import name`` runs: the module, the ``__init__`` of each package on
    the way, and what each of them imports at module level, to the end. ``top`` maps a module to its
    module-level imports (default: read from the source)."""
    top = top or (lambda n: imports(n)[0])
    seen, todo = set(), [name]
    while todo:
        n = todo.pop()
        if n not in seen:
            seen.add(n)
            todo += packages_of(n) + sorted(top(n))
    return seen


def loaded_above(name, top=None, lazy=()):
    """The modules of a higher layer than ``name`` that importing it (or running its imports inside
    functions, ``lazy``) loads. A package's ``__init__`` itself has no layer of its own here: what it
    imports counts."""
    found = set(loaded(name, top))
    for other in lazy:
        found |= loaded(other, top)
    return sorted(m for m in found if not is_package(m) and layer(m) > layer(name))


def cycle(graph):
    """One import cycle of ``graph`` (module -> the modules it imports) as a list of names, or None.
    A package's ``__init__`` that imports its own sub-modules is not a cycle with them."""
    state = {}

    def visit(node, path):
        state[node] = "open"
        for nxt in sorted(graph.get(node, ())):
            if node.startswith(nxt + "."):  # a sub-module and its own package
                continue
            if state.get(nxt) == "open":
                return path[path.index(nxt):] + [nxt]
            if nxt not in state:
                found = visit(nxt, path + [nxt])
                if found:
                    return found
        state[node] = "done"
        return None

    for name in sorted(graph):
        if name not in state:
            found = visit(name, [name])
            if found:
                return found
    return None


def test_every_module_has_a_layer():
    unknown = [name for name in MODULES if layer(name) is None]
    assert not unknown, f"place these modules in the layer table of CONTRIBUTING.md and this test: {unknown}"


def test_no_module_imports_a_higher_layer():
    bad = []
    for name in MODULES:
        top, lazy = imports(name)
        for other in top | lazy:
            if layer(other) > layer(name):
                bad.append(f"{name} (layer {layer(name)}) imports {other} (layer {layer(other)})")
    assert not bad, "\n".join(bad)


def test_no_import_loads_a_higher_layer_through_a_package():
    """What a package's ``__init__`` imports runs for every import of a module inside it: a layer-1
    module importing ``gendel.gan.images`` loads whatever ``gendel/gan/__init__.py`` imports."""
    bad = [f"{name} (layer {layer(name)}) loads {', '.join(f'{m} (layer {layer(m)})' for m in above)}"
           for name in MODULES if (above := loaded_above(name, lazy=imports(name)[1]))]
    assert not bad, ("imports that load a higher layer, counting the package __init__s they run (import names "
                     "from their modules, keep package __init__s light):\n" + "\n".join(bad))


def test_no_module_but_the_network_modules_loads_torch():
    """One fresh process imports every module of gendel except :data:`TORCH_MODULES` (and the
    ``__main__`` entry points): torch is not loaded. Checked at run time, so an import that the
    source reading above cannot see (a package __init__, a library that imports torch) counts too."""
    names = sorted(n for n in MODULES if n not in TORCH_MODULES and not n.endswith(".__main__"))
    code = ("import importlib, sys\n"
            "for name in sys.argv[1:]:\n"
            "    importlib.import_module(name)\n"
            "    if 'torch' in sys.modules:\n"
            "        sys.exit(f'importing {name} loaded torch')\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(PACKAGE.parent), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run([sys.executable, "-c", code, *names], cwd=PACKAGE.parent, env=env, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert len(names) > 80


def test_imports_have_no_cycles_not_even_inside_functions():
    graph = {name: imports(name)[0] | imports(name)[1] for name in MODULES}
    found = cycle(graph)
    assert found is None, "import cycle: " + " -> ".join(found)


def contributing_modules(text):
    """(module name, layer) of each module CONTRIBUTING.md's module table names (``| `core.dre` | ... | 2 |``)."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if re.match(r"\|\s*module\s*\|\s*owns\s*\|\s*layer\s*\|", line))
    found = []
    for line in lines[start + 2:]:
        if not line.startswith("|"):
            break
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        for name in re.findall(r"`([\w.*]+)`", cells[0]):
            found.append(("gendel" if name == "gendel" else f"gendel.{name}", int(cells[-1])))
    return found


def test_contributing_names_modules_that_exist_in_their_layer():
    named = contributing_modules(CONTRIBUTING.read_text())
    assert len(named) > 20, "CONTRIBUTING.md's module table was not found or is nearly empty"
    missing = [name for name, _ in named if name not in MODULES]
    assert not missing, f"CONTRIBUTING.md's module table names modules that do not exist: {missing}"
    moved = [f"{name}: table {table}, code {layer(name)}" for name, table in named if layer(name) != table]
    assert not moved, f"CONTRIBUTING.md's module table gives other layers than LAYERS: {moved}"


def test_no_module_level_getattr_shims():
    shims = [name for name, path in MODULES.items()
             if any(isinstance(n, ast.FunctionDef) and n.name == "__getattr__" for n in ast.parse(path.read_text()).body)]
    assert not shims, f"modules with a module-level __getattr__ (import the name from where it lives): {shims}"


def test_long_modules_are_reported():
    """Size is a smell, not a gate: list the modules over WARN_LINES lines with a warning."""
    long = {name: len(path.read_text().splitlines()) for name, path in MODULES.items()}
    long = {k: v for k, v in long.items() if v > WARN_LINES}
    if long:
        import warnings

        warnings.warn(f"modules over {WARN_LINES} lines (does each do one thing?): {long}", stacklevel=1)


def public_definitions(name):
    tree = ast.parse(MODULES[name].read_text())
    return [n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef)) and not n.name.startswith("_")]


@pytest.mark.parametrize("name", sorted(n for n in MODULES if not any(p.startswith("_") for p in n.split("."))))
def test_public_functions_and_classes_have_examples(name):
    missing = [d.name for d in public_definitions(name) if "Examples\n" not in (ast.get_docstring(d) or "")]
    assert not missing, f"{name}: add a numpydoc 'Examples' section to {missing}"


# ------------------------------------------------------------------------------------------
# One registry of statistics: gendel.deletion_test.stats.STATISTICS

#: The module that holds the registry (and the φ functions the ASC statistics are built from).
REGISTRY = "gendel.deletion_test.stats"
#: Every name a statistic has had: the registry's keys and the spellings the registry replaced.
OLD_SPELLINGS = {"LR", "log", "tlogt", "hellinger", "ASC log", "ASC tlogt", "ASC t log t", "ASC Hellinger", "MMD"}
#: Tables of statistic names that stay, with why: module.name -> reason.
ALLOWED_TABLES = {
    "gendel.gan.result_files._V1_STATISTICS": "reads result files written with the names used before the registry",
}


def statistic_tables(source, names):
    """(line, name, statistic names) of each module- or class-level assignment in ``source`` whose value
    is a literal tuple, list or set with two or more of ``names``, or a dict with two or more as keys."""
    found = []

    def visit(body):
        for node in body:
            if isinstance(node, ast.ClassDef):
                visit(node.body)
            if not isinstance(node, (ast.Assign, ast.AnnAssign)) or node.value is None:
                continue
            value = node.value
            parts = [value.left, value.right] if isinstance(value, ast.BinOp) else [value]
            items = []
            for part in parts:
                if isinstance(part, (ast.Tuple, ast.List, ast.Set)):
                    items += part.elts
                elif isinstance(part, ast.Dict):
                    items += [k for k in part.keys if k is not None]
            hits = sorted({i.value for i in items if isinstance(i, ast.Constant) and i.value in names})
            if len(hits) >= 2:
                target = node.targets[0] if isinstance(node, ast.Assign) else node.target
                found.append((node.lineno, ast.unparse(target), hits))

    visit(ast.parse(source).body)
    return found


def _statistic_names():
    from gendel.deletion_test.stats import STATISTICS

    return set(STATISTICS) | OLD_SPELLINGS


@pytest.mark.parametrize("name", [n for n in sorted(MODULES) if n != REGISTRY])
def test_statistics_are_named_by_the_registry_alone(name):
    """A module reads names, labels and axis titles of the statistics from
    gendel.deletion_test.stats.STATISTICS; it defines no list or dict of statistic names of its own."""
    tables = [(line, target, hits) for line, target, hits in statistic_tables(MODULES[name].read_text(),
                                                                              _statistic_names())
              if f"{name}.{target}" not in ALLOWED_TABLES]
    assert not tables, (f"{name} defines its own tables of statistics {tables}: read the keys, labels and axis "
                        "titles from gendel.deletion_test.stats.STATISTICS (e.g. STATISTICS[key].label)")


def test_the_allowed_tables_of_statistic_names_exist():
    names = _statistic_names()
    for entry in ALLOWED_TABLES:
        module, _, target = entry.rpartition(".")
        assert any(t == target for _, t, _ in statistic_tables(MODULES[module].read_text(), names)), \
            f"{entry} is allowed in ALLOWED_TABLES but no longer defined: remove it from the list"


def test_the_checks_can_fail(tmp_path):
    # A cycle through an import inside a function is found in a constructed graph.
    assert cycle({"gendel.a": {"gendel.b"}, "gendel.b": {"gendel.a"}}) == ["gendel.a", "gendel.b", "gendel.a"]
    assert cycle({"gendel.a": {"gendel.a.b"}, "gendel.a.b": {"gendel.a"}}) is None
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
    # A module's own table of statistic names is found, under any of their spellings; a tuple of
    # statistics chosen for a figure inside a function is not a table.
    names = _statistic_names()
    table = 'STAT_SHORT = {"LR": "LR", "log": "ASC log"}\nclass A:\n    KEYS = ("lr",) + ("asc-log",)\n'
    assert [t for _, t, _ in statistic_tables(table, names)] == ["STAT_SHORT", "KEYS"]
    assert statistic_tables('def f(stats=("lr", "asc-log")):\n    return ("lr", "asc-tlogt")\n', names) == []
    # A package __init__ that imports a higher layer is found for an import of one of its low modules;
    # an empty __init__ is not.
    graph = {"gendel.synthetic.data": {"gendel.gan.images"}, "gendel.gan": {"gendel.gan.run"}}
    assert loaded_above("gendel.synthetic.data", top=lambda n: graph.get(n, set())) == ["gendel.gan.run"]
    assert loaded_above("gendel.gan.images", top=lambda n: graph.get(n, set())) == ["gendel.gan.run"]
    graph["gendel.gan"] = set()
    assert loaded_above("gendel.synthetic.data", top=lambda n: graph.get(n, set())) == []
    assert loaded_above("gendel.synthetic.data", top=lambda n: graph.get(n, set()), lazy=["gendel.gan.run"]) == \
        ["gendel.gan.run"]
    # A module table naming a module that does not exist, or one in another layer, is read as such.
    table = "| module | owns | layer |\n|---|---|---|\n| `core.dre`, `core.gone` | x | 2 |\n| `cache` | y | 3 |\n"
    named = contributing_modules(table)
    assert named == [("gendel.core.dre", 2), ("gendel.core.gone", 2), ("gendel.cache", 3)]
    assert "gendel.core.gone" not in MODULES and layer("gendel.cache") != 3


def test_the_reweighting_and_the_label_tables_are_written_once():
    """min(rho_hat_E, B), the re-weighting of Alg. 1 on a pool of proposals, is written once in the
    package (``gendel.gan.experiment.reweighted``; Alg. 1 itself writes its acceptance probability);
    the pages call it. The data sets' names and the DRE families' labels have one table each."""
    root = Path(__file__).resolve().parents[1]
    reweighting = re.compile(r"np\.minimum\(np\.exp\(")
    # The GAN lab asks students to write it, and its checks recompute it on their own (a check that
    # called the package's function would not be independent of it).
    exercise = {"gendel/book/gan_lab_checks.py", "book/course/gan_lab.md"}
    in_package = sorted(str(p.relative_to(root)) for p in (root / "gendel").rglob("*.py")
                        if reweighting.search(p.read_text()) and p.name != "deletion.py")
    assert sorted(set(in_package) - exercise) == ["gendel/gan/experiment.py"]
    # the deletion-test GAN page takes Alg. 1's expectation of the scores of a pool (not of labels)
    in_pages = sorted(str(p.relative_to(root)) for p in (root / "book").rglob("*.md") if reweighting.search(p.read_text()))
    assert sorted(set(in_pages) - exercise) in ([], ["book/deletion_test/gan.md"])
    tables = {r'"mnist": "MNIST", "fashion-mnist": "Fashion-MNIST"': 1, r'"mog8": "MoG-8"': 1,
              r'DRE_CHOICES\[\w+\]\.short for': 1}
    for pattern, n in tables.items():
        found = [str(p.relative_to(root)) for p in (root / "gendel").rglob("*.py") if re.search(pattern, p.read_text())]
        assert len(found) == n, (pattern, found)


# ------------------------------------------------------------------------------------------
# A module's private names are its own

def private_imports(name):
    """(line, what) of each private name (a leading underscore) that module ``name`` takes from another
    gendel module that is not itself private: ``from gendel.x import _f``, or ``x._f`` where ``x`` is
    a gendel module imported under a name. A private module (``gendel._kernels``,
    ``gendel.plotting.synthetic._common``) is where helpers shared inside gendel live; its names may be
    imported from anywhere, its underscore or not."""
    tree = ast.parse(MODULES[name].read_text())
    private_module = lambda m: any(p.startswith("_") for p in m.split("."))  # noqa: E731
    aliases, found = {}, []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            prefix = from_prefix(name, node)
            for alias in node.names:
                whole = f"{prefix}.{alias.name}"
                if whole in MODULES:  # `from gendel.gan import checkpoints as _checkpoints`: a module
                    if whole != name:
                        aliases[alias.asname or alias.name] = whole
                    continue
                one = ast.ImportFrom(module=node.module, names=[alias], level=node.level)
                for module in resolve(name, one):
                    if alias.name.startswith("_") and not private_module(module) and module != name:
                        found.append((node.lineno, f"{module}.{alias.name}"))
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name in MODULES and alias.asname:
                    aliases[alias.asname] = alias.name
    for node in ast.walk(tree):
        if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in aliases
                and node.attr.startswith("_") and not node.attr.startswith("__")
                and not private_module(aliases[node.value.id]) and aliases[node.value.id] != name):
            found.append((node.lineno, f"{aliases[node.value.id]}.{node.attr}"))
    return sorted(set(found))


def test_no_module_takes_another_modules_private_names():
    taken = {name: hits for name in MODULES if (hits := private_imports(name))}
    assert not taken, ("a private name is its module's own: make it public (with an Examples section) or move it "
                       f"into a private module such as gendel._validation or gendel._kernels: {taken}")


def test_the_private_name_rule_can_fail(tmp_path, monkeypatch):
    """The rule sees both spellings, and lets private modules and a module's own names through."""
    source = ("from gendel.core.deletion import _too_many, ApproximateDeletion\n"
              "from gendel import _kernels\nfrom gendel._validation import _private_ok\n"
              "from gendel.gan import checkpoints as cp\nimport gendel.gan.images as im\n"
              "def f():\n    return cp._restore, im.load_images, _kernels._CHUNK\n")
    path = tmp_path / "probe.py"
    path.write_text(source)
    monkeypatch.setitem(MODULES, "gendel.probe", path)
    assert private_imports("gendel.probe") == [(1, "gendel.core.deletion._too_many"),
                                               (7, "gendel.gan.checkpoints._restore")]
