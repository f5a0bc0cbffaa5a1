"""The disk cache of the §5.1 protocol survives faults: concurrent writers, damaged entries,
unusable folders; and it is keyed on the DRE's parameters (``get_params``), not its repr."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression

from gendel.synthetic import experiments
from gendel.cache import CacheWarning, cache_path, estimator_config
from gendel.core.dre import ClassifierDRE, KNNClassifierDRE
from gendel.synthetic.experiments import sweep, synthetic_statistics
from gendel.synthetic.sampling import RATIO_STATISTICS as STATISTICS
from gendel.synthetic.sampling import Protocol

SMALL = dict(N=60, m=30, R=5)


def cached(protocol, dre):
    """One run through the disk cache of :func:`gendel.synthetic.experiments.sweep`."""
    return sweep(protocol, [dre], progress=False).results[0][0]
REPO = Path(__file__).resolve().parents[1]


class KeyedKNN(KNNClassifierDRE):
    """A DRE with scikit-learn's ``get_params``, whatever ``gendel.core.dre`` provides."""

    def get_params(self, deep=True):
        return {"k": self.k}


class KeyedClassifierDRE(ClassifierDRE):
    def get_params(self, deep=True):
        return {"estimator": self.estimator}


def assert_same_values(a, b):
    for stat in STATISTICS:
        for key in a.values[stat]:
            np.testing.assert_array_equal(a.values[stat][key], b.values[stat][key])
    assert a.n_deleted == b.n_deleted and a.acceptance_rate == b.acceptance_rate


def entries(folder):
    return sorted(Path(folder).rglob("*.npz"))


@pytest.fixture
def cache(tmp_path, monkeypatch):
    folder = tmp_path / "cache"
    monkeypatch.setenv("GENDEL_CACHE_DIR", str(folder))
    return folder


# ------------------------------------------------------------------------------------------
# 1. Concurrent writers of one key

_WORKER = """
import sys, time
from pathlib import Path
import numpy as np
from gendel.core.dre import KNNClassifierDRE
from gendel.synthetic.experiments import sweep
from gendel.synthetic.sampling import Protocol

out, n, seeds = Path(sys.argv[1]), int(sys.argv[2]), range(int(sys.argv[3]))
(out.parent / f"ready-{out.stem}").touch()
t0 = time.time()
while len(list(out.parent.glob("ready-*"))) < n and time.time() - t0 < 60:  # start together
    time.sleep(0.01)
results = [sweep(Protocol("mog8", lam=0.5, N=60, m=30, R=5, seed=s), [KNNClassifierDRE(k=5)], progress=False).results[0][0]
           for s in seeds]
np.savez(out, **{f"{s}|{stat}|{a}|{b}": r.values[stat][a, b]
                 for s, r in zip(seeds, results) for stat in r.values for a, b in r.values[stat]})
"""


def test_three_processes_computing_the_same_entries_agree(cache, tmp_path):
    """Two fresh interpreters and this process compute the same 20 entries at once (the book build's
    kernels are separate processes; a third one costs another start-up, this process is started)."""
    n, seeds = 3, 20
    env = {**os.environ, "PYTHONPATH": f"{REPO}{os.pathsep}{os.environ.get('PYTHONPATH', '')}",
           "OMP_NUM_THREADS": "1"}
    outs = [tmp_path / f"out{i}.npz" for i in range(n - 1)]
    procs = [subprocess.Popen([sys.executable, "-c", _WORKER, str(out), str(n), str(seeds)], env=env,
                              stderr=subprocess.PIPE, text=True) for out in outs]
    try:
        (tmp_path / "ready-here").touch()
        t0 = time.time()
        while len(list(tmp_path.glob("ready-*"))) < n and time.time() - t0 < 120:  # start together
            assert all(p.poll() is None for p in procs), "a writer ended before it started"
            time.sleep(0.01)
        here = {s: cached(Protocol("mog8", lam=0.5, seed=s, **SMALL), KNNClassifierDRE(k=5)) for s in range(seeds)}
    finally:
        errors = [p.communicate(timeout=300)[1] for p in procs]
    assert [p.returncode for p in procs] == [0] * (n - 1), "\n".join(errors)
    fresh = {s: synthetic_statistics(Protocol("mog8", lam=0.5, seed=s, **SMALL), KNNClassifierDRE(k=5)) for s in range(seeds)}
    for s in range(seeds):
        assert_same_values(here[s], fresh[s])
    for out in outs:
        with np.load(out) as f:
            assert len(f.files) == seeds * len(STATISTICS) * 5
            for name in f.files:
                s, stat, a, b = name.split("|")
                np.testing.assert_array_equal(f[name], fresh[int(s)].values[stat][a, b])
    assert len(entries(cache)) == seeds  # one whole entry per configuration, no temporary files left
    assert not [p for p in cache.rglob("*") if p.is_file() and p.suffix != ".npz"]


# ------------------------------------------------------------------------------------------
# 2. Damaged entries


def _truncate(path):
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])


def _random_bytes(path):
    path.write_bytes(np.random.default_rng(0).bytes(2000))


def _rewrite(path, change):
    with np.load(path) as f:
        arrays = {k: f[k] for k in f.files}
    change(arrays)
    with open(path, "wb") as f:
        np.savez(f, **arrays)


def _missing_key(path):
    _rewrite(path, lambda arrays: arrays.pop("lr|H0|dre"))


def _wrong_length(path):
    _rewrite(path, lambda arrays: arrays.update({"lr|H0|dre": arrays["lr|H0|dre"][:-1]}))


@pytest.mark.parametrize("damage", [_truncate, _random_bytes, _missing_key, _wrong_length])
def test_a_damaged_entry_is_reported_recomputed_and_replaced(cache, damage):
    args = (Protocol("ckb8", lam=0.7, seed=3, **SMALL), KeyedKNN(k=5))
    cached(*args)
    (path,) = entries(cache)
    damage(path)
    with pytest.warns(CacheWarning, match=re.escape(str(path))):
        repaired = cached(*args)
    fresh = synthetic_statistics(*args)
    assert_same_values(repaired, fresh)
    assert repaired.dre is not None  # computed, not loaded
    with warnings.catch_warnings():
        warnings.simplefilter("error", CacheWarning)
        loaded = cached(*args)  # the replaced file reads cleanly
    assert loaded.dre is None
    assert_same_values(loaded, fresh)
    assert loaded.settings == fresh.settings


# ------------------------------------------------------------------------------------------
# 3. Unusable cache folders are found before the work


def _under_a_file(tmp_path):
    (tmp_path / "a-file").write_text("not a folder")
    return tmp_path / "a-file" / "cache"


def _read_only(tmp_path):
    if os.geteuid() == 0:
        pytest.skip("root writes into read-only folders")
    folder = tmp_path / "read-only"
    folder.mkdir()
    folder.chmod(0o555)
    return folder


@pytest.mark.parametrize("make", [_under_a_file, lambda _: Path("/proc/gendel-cache"), _read_only],
                         ids=["under-a-file", "proc", "read-only"])
def test_an_unusable_folder_warns_before_computing_and_returns_the_result(tmp_path, monkeypatch, make):
    folder = make(tmp_path)
    monkeypatch.setenv("GENDEL_CACHE_DIR", str(folder))
    run, warned_before = experiments.synthetic_statistics, []
    p = Protocol("mog8", lam=0.6, seed=1, **SMALL)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")

        def counting(*args, **kwargs):
            warned_before.append(any(issubclass(w.category, CacheWarning) for w in caught))
            return run(*args, **kwargs)

        monkeypatch.setattr(experiments, "synthetic_statistics", counting)  # the run behind every cell of a sweep
        result = cached(p, KeyedKNN(k=3))
    assert warned_before == [True]  # computed once, after the warning
    (warning,) = [w for w in caught if issubclass(w.category, CacheWarning)]
    assert str(folder) in str(warning.message) and "GENDEL_CACHE_DIR" in str(warning.message)
    assert_same_values(result, run(p, KeyedKNN(k=3)))


# ------------------------------------------------------------------------------------------
# 5. The key is the DRE's class and parameters


def test_the_key_is_the_class_and_parameters_not_the_repr(cache):
    class AddressRepr(KeyedKNN):
        __repr__ = object.__repr__

    p = Protocol("mog8", lam=0.5, seed=2, **SMALL)
    first = cached(p, AddressRepr(k=5))
    second = cached(p, AddressRepr(k=5))  # another address
    assert first.dre is not None and second.dre is None
    assert " at 0x" in second.settings["dre"]  # the settings still show the repr, as given
    cached(p, AddressRepr(k=7))
    cached(p, KeyedKNN(k=5))  # another class
    assert len(entries(cache)) == 3


def test_nested_estimators_become_nested_parameters():
    config = estimator_config(KeyedClassifierDRE(LogisticRegression(C=np.float64(2.0), max_iter=50)))
    assert config["class"].endswith("KeyedClassifierDRE")
    inner = config["params"]["estimator"]
    assert inner["class"] == f"{LogisticRegression.__module__}.LogisticRegression"
    assert inner["params"]["C"] == 2.0 and type(inner["params"]["C"]) is float
    assert json.loads(json.dumps(config)) == config
    other = estimator_config(KeyedClassifierDRE(LogisticRegression(C=3.0, max_iter=50)))
    assert cache_path("x", other) != cache_path("x", config)


def test_estimators_that_cannot_be_keyed_are_refused_with_the_fix(cache):
    class NoParams:
        def fit(self, X, deleted):
            return self

        def log_ratio(self, Y):
            return np.zeros(len(Y))

    p = Protocol("mog8", lam=0.5, seed=2, **SMALL)
    with pytest.raises(TypeError, match=r"no get_params\(\).*cache=False"):
        cached(p, NoParams())

    class Unkeyable(KeyedKNN):
        def get_params(self, deep=True):
            return {"k": self.k, "metric": len}

    with pytest.raises(TypeError, match=r"Unkeyable\.metric = <built-in function len>"):
        cached(p, Unkeyable(k=5))
    assert entries(cache) == []


# ------------------------------------------------------------------------------------------
# 6. The key follows the code that computes a run, not where that code lives


def _module(tmp_path, name, source):
    """A module called ``name`` (inside gendel's namespace, so that its helpers are followed) from ``source``."""
    import importlib.util
    import textwrap

    path = tmp_path / f"{name.replace('.', '_')}.py"
    path.write_text(textwrap.dedent(source))
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


_RUN = """
import numpy as np

def helper(x):
    return np.exp(x) * 2.0

def run(x):
    return helper(x) + 1.0
"""

_MOVED = """
import numpy

def _scaled_exp(x):
    \"\"\"Moved to another module, renamed, documented.\"\"\"
    # a comment does not compute
    return numpy.exp(x) * 2.0

def compute(x):
    \"\"\"The same computation as run.\"\"\"
    return _scaled_exp(x) + 1.0
"""


def test_the_code_key_follows_what_computes_not_where_it_lives(tmp_path, monkeypatch):
    from gendel.cache import result_fingerprint

    for name in ("gendel._key_demo_a", "gendel._key_demo_b", "gendel._key_demo_c"):
        monkeypatch.delitem(sys.modules, name, raising=False)
    a = _module(tmp_path, "gendel._key_demo_a", _RUN)
    moved = _module(tmp_path, "gendel._key_demo_b", _MOVED)
    changed = _module(tmp_path, "gendel._key_demo_c", _RUN.replace("* 2.0", "* 3.0"))
    assert result_fingerprint((a.run,)) == result_fingerprint((moved.compute,))  # moved, renamed, commented
    assert result_fingerprint((a.run,)) != result_fingerprint((changed.run,))    # a helper computes otherwise


def test_a_code_change_in_a_subpackage_changes_the_key_of_a_run(monkeypatch):
    from gendel.fingerprint import cached_code_hash
    from gendel.synthetic import sampling

    p, dre = Protocol("mog8", lam=0.5, seed=2, **SMALL), KNNClassifierDRE(k=5)
    cached_code_hash.cache_clear()
    before = experiments._cache_file(p, dre)
    real = sampling.log_ratios

    def log_ratios(protocol, dre):  # what the run computes from the log ratios changes
        log, yhat, rate = real(protocol, dre)
        return log, yhat, 0.5 * rate

    monkeypatch.setattr(experiments, "log_ratios", log_ratios)
    cached_code_hash.cache_clear()
    assert experiments._cache_file(p, dre) != before
    monkeypatch.undo()
    cached_code_hash.cache_clear()
    assert experiments._cache_file(p, dre) == before
    # the code of the DRE's class is in the key too (for a subclass, that of the gendel class it derives from)
    fit = KNNClassifierDRE._fit

    def _fit(self, X_deleted, X_kept):
        fit(self, X_deleted, X_kept)
        self._k = int(self.k) + 1

    keyed = experiments._cache_file(p, KeyedKNN(k=5))
    monkeypatch.setattr(KNNClassifierDRE, "_fit", _fit)
    cached_code_hash.cache_clear()
    assert experiments._cache_file(p, dre) != before and experiments._cache_file(p, KeyedKNN(k=5)) != keyed
    monkeypatch.undo()
    cached_code_hash.cache_clear()


# ------------------------------------------------------------------------------------------
# The same faults in the GAN experiment's files (checkpoints and job results)


def test_an_unusable_checkpoint_folder_warns_before_training_and_training_finishes(tmp_path):
    torch = pytest.importorskip("torch")
    from gendel.gan.training import run_epochs

    (tmp_path / "a-file").write_text("not a folder")
    folder, epochs_run = tmp_path / "a-file" / "checkpoints", []
    net = torch.nn.Linear(1, 1)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")

        def epoch(e):
            epochs_run.append(len([w for w in caught if issubclass(w.category, CacheWarning)]))
            return {"loss": float(e)}

        run = run_epochs(key="linear-0", epochs=2, modules={"net": net}, optimizers={}, generator=torch.Generator(),
                         epoch_fn=epoch, checkpoint_dir=folder, progress=False, desc="test", device="cpu")
    assert epochs_run == [1, 1]  # warned once, before the first epoch
    assert [h["loss"] for h in run.history] == [0.0, 1.0]
    assert not folder.exists()


def test_a_damaged_gan_result_is_reported_and_the_job_runs_again(tmp_path, monkeypatch):
    pytest.importorskip("torch")
    from gendel.gan.profiles import jobs
    from gendel.gan import run as run_module
    from gendel.gan.result_files import result_path

    job = jobs("tiny")[0]
    path = result_path(job, tmp_path)
    path.write_text('{"version": 2, "job": {')  # a torn JSON file

    class Trained(Exception):
        pass

    def make_result(*args, **kwargs):  # stands in for the (minutes-long) job
        raise Trained

    monkeypatch.setattr(run_module, "make_result", make_result)
    with pytest.warns(CacheWarning, match=re.escape(str(path))), pytest.raises(Trained):
        run_module.run_job(job, tmp_path, device="cpu", progress=False)
