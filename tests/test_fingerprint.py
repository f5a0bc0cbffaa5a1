"""gendel.fingerprint hashes what code computes: moves, renames, comments and checks leave the
hash alone, and a changed computation changes it (shown on a small package written for the test)."""

from __future__ import annotations

import importlib
import sys
import textwrap

import pytest

from gendel.fingerprint import code_hash, hashed_objects

BASE = {
    "helpers.py": '''
        SCALE = 2.0

        def double(x):
            return SCALE * x
    ''',
    "main.py": '''
        import numpy as np
        from fpdemo.helpers import double

        def compute(x):
            """The result."""
            if x is None:
                raise ValueError("x is required")
            return np.exp(double(x)) + 1
    ''',
}


def load(tmp_path, files, name):
    """Write the package ``fpdemo`` (a fresh copy per call) and return its ``main.compute``."""
    root = tmp_path / name
    (root / "fpdemo").mkdir(parents=True)
    (root / "fpdemo" / "__init__.py").write_text("")
    for filename, source in files.items():
        (root / "fpdemo" / filename).write_text(textwrap.dedent(source))
    for mod in [m for m in sys.modules if m == "fpdemo" or m.startswith("fpdemo.")]:
        del sys.modules[mod]
    sys.path.insert(0, str(root))
    try:
        importlib.invalidate_caches()
        return importlib.import_module("fpdemo.main").compute
    finally:
        sys.path.remove(str(root))


def fingerprint(tmp_path, files, name):
    return code_hash([load(tmp_path, files, name)], packages=("fpdemo",))


@pytest.fixture
def base(tmp_path):
    return fingerprint(tmp_path, BASE, "base")


def test_comments_docstrings_and_checks_do_not_count(tmp_path, base):
    changed = dict(BASE, **{"main.py": '''
        import numpy as np
        from fpdemo.helpers import double

        def compute(x):
            # a comment, and another docstring
            """What it returns."""
            if x is None or x != x:
                raise ValueError("give x as a number, not None or NaN")
            return np.exp(double(x)) + 1
    '''})
    assert fingerprint(tmp_path, changed, "checks") == base


def test_moving_and_renaming_a_helper_does_not_count(tmp_path, base):
    moved = {"utils.py": '''
        SCALE = 2.0

        def times_two(y):
            return SCALE * y
    ''', "main.py": '''
        import numpy
        from fpdemo.utils import times_two

        def compute(x):
            return numpy.exp(times_two(x)) + 1
    '''}
    # the helper moved to another module under another name (and its argument too): same computation
    assert fingerprint(tmp_path, moved, "moved") != base  # the argument's name is part of its code...
    moved["utils.py"] = moved["utils.py"].replace("(y)", "(x)").replace("* y", "* x")
    assert fingerprint(tmp_path, moved, "moved2") == base  # ...the module, the function's name and np/numpy are not


def test_a_changed_computation_changes_the_fingerprint(tmp_path, base):
    constant = dict(BASE, **{"helpers.py": BASE["helpers.py"].replace("SCALE = 2.0", "SCALE = 3.0")})
    assert fingerprint(tmp_path, constant, "constant") != base
    formula = dict(BASE, **{"main.py": BASE["main.py"].replace("+ 1", "+ 2")})
    assert fingerprint(tmp_path, formula, "formula") != base
    function = dict(BASE, **{"main.py": BASE["main.py"].replace("np.exp", "np.log")})
    assert fingerprint(tmp_path, function, "function") != base


def test_the_gan_fingerprint_covers_what_computes_and_not_the_bookkeeping():
    pytest.importorskip("torch")
    from gendel.gan.run import computing_roots, fingerprinted_code

    covered = fingerprinted_code()
    for name in ("gendel.gan.networks.Generator", "gendel.gan.dcgan.DCGAN.fit", "gendel.gan.vdm.VDMDRE.fit",
                 "gendel.gan.training.run_epochs", "gendel.gan.images.label_deletion_mask",
                 "gendel.core.deletion.ApproximateDeletion.steps", "gendel.deletion_test.stats.asc",
                 "gendel.gan.experiment.fast_deletion", "gendel.gan.experiment.make_result"):
        assert name in covered, name
    for name in ("gendel.gan.result_files.write_result", "gendel.gan.checkpoints.config_key", "gendel.gan.run.provenance",
                 "gendel.gan.run.run_job",
                 "gendel.gan.checkpoints.load_checkpoint", "gendel._progress.progress_bar"):
        assert name not in covered, name
    assert len(computing_roots()) > 10 and len(hashed_objects(computing_roots())) >= len(covered)
