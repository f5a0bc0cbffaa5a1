"""environment.yml (Binder, conda) installs what pyproject.toml's ``book`` extra requires, no more.

The rule: the pip section installs this checkout with the ``book`` extra (so pip brings whatever
the extra requires and conda did not), and every conda package besides python and pip is either a
requirement of the extra (so conda provides a build of it that pip would not pick: PyTorch as a CPU
build) or one of the few listed below, each with its reason. PyTorch's packages are CPU builds and
ask for the versions that pyproject.toml allows.
"""

import re
import shlex
import tomllib
from pathlib import Path

import pytest
import yaml
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[1]
#: conda-forge names of PyPI packages, where they differ
CONDA_TO_PYPI = {"pytorch": "torch"}
#: conda packages that are not requirements of the book extra, and why the environment has them
EXTRA_PACKAGES = {"torchvision": "gendel.gan.images.load_images downloads MNIST and Fashion-MNIST with it (Binder)"}
TORCH_FAMILY = {"pytorch", "torchvision"}


def book_requirements(pyproject=ROOT / "pyproject.toml", extra="book"):
    """The requirements of ``gendel[extra]``, with the extras it names (``gendel[widgets,gan]``) expanded."""
    project = tomllib.loads(Path(pyproject).read_text())["project"]
    extras = project["optional-dependencies"]
    found, todo = {}, [extra]
    while todo:
        for line in extras[todo.pop()]:
            req = Requirement(line)
            if canonicalize_name(req.name) == "gendel":
                todo.extend(req.extras)
            else:
                found[canonicalize_name(req.name)] = req
    return found


def conda_packages(environment=ROOT / "environment.yml"):
    """``{name: (version, build)}`` of environment.yml's conda packages, and its pip lines."""
    deps = yaml.safe_load(Path(environment).read_text())["dependencies"]
    pip = [line for d in deps if isinstance(d, dict) for line in d["pip"]]
    conda = {}
    for spec in (d for d in deps if isinstance(d, str)):
        # "name version build" (MatchSpec with spaces) or "name=version=build"
        parts = spec.split() if re.search(r"\s", spec.strip()) else spec.strip().split("=")
        name, version, build = (parts + ["", ""])[:3]
        conda[name] = (version.strip(), build.strip())
    return conda, pip


def check(environment=ROOT / "environment.yml", pyproject=ROOT / "pyproject.toml"):
    """What is wrong with environment.yml against pyproject.toml's book extra: a list of sentences."""
    wanted = book_requirements(pyproject)
    conda, pip = conda_packages(environment)
    problems = []
    if [shlex.split(line) for line in pip] != [["-e", ".[book]"]]:
        problems.append(f"the pip section must install this checkout with the book extra (- -e \".[book]\"), not {pip}")
    for name, (version, build) in conda.items():
        pypi = canonicalize_name(CONDA_TO_PYPI.get(name, name))
        if name in ("python", "pip"):
            continue
        if pypi not in wanted and name not in EXTRA_PACKAGES:
            problems.append(f"{name} is not required by pyproject.toml's book extra; remove it or list it with its "
                            "reason in tests/test_environment.py")
        if name in TORCH_FAMILY and not build.startswith("cpu"):
            problems.append(f"{name} must be a CPU build (build string cpu_*), not {build or 'any build'}")
        if pypi in wanted and SpecifierSet(version if version not in ("", "*") else "") != wanted[pypi].specifier:
            problems.append(f"{name} asks for version {version or 'any'}, pyproject.toml for {wanted[pypi].specifier}")
    python = conda.get("python", ("", ""))[0]
    requires = tomllib.loads(Path(pyproject).read_text())["project"]["requires-python"]
    if not python or python not in SpecifierSet(requires):
        problems.append(f"python {python or '(unpinned)'} is outside pyproject.toml's requires-python {requires}")
    return problems


def test_environment_installs_the_book_extra_and_no_more():
    assert not check(), "\n".join(check())


def test_torch_comes_from_conda_as_a_cpu_build():
    conda, _ = conda_packages()
    assert "torch" in book_requirements() and conda["pytorch"][1].startswith("cpu")


@pytest.mark.parametrize("change, complaint", [
    (("- pytorch >=2.2 cpu_*", "- pytorch >=2.2"), "pytorch must be a CPU build"),
    (("- pytorch >=2.2 cpu_*", "- pytorch >=2.0 cpu_*"), "pytorch asks for version >=2.0"),
    (("- pip\n", "- pip\n  - pandas\n"), "pandas is not required"),
    (('-e ".[book]"', '-e ".[widgets]"'), "the pip section must install"),
    (("python=3.11", "python=3.9"), "python 3.9 is outside"),
])
def test_the_check_finds_what_is_wrong(tmp_path, change, complaint):
    text = (ROOT / "environment.yml").read_text()
    assert change[0] in text
    bad = tmp_path / "environment.yml"
    bad.write_text(text.replace(change[0], change[1]))
    assert any(p.startswith(complaint) for p in check(bad)), check(bad)
