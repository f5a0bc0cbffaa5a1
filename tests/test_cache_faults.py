"""The disk cache of the §5.1 protocol survives faults: concurrent writers, damaged entries,
unusable folders; and it is keyed on the DRE's parameters (``get_params``), not its repr."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression

from gendel.synthetic import experiments
from gendel.cache import CacheWarning, cache_path, estimator_config
from gendel.core.dre import ClassifierDRE, KNNClassifierDRE
from gendel.synthetic.experiments import STATISTICS, cached_synthetic_statistics, synthetic_statistics

SMALL = dict(N=60, m=30, R=5)
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
from gendel.synthetic.experiments import cached_synthetic_statistics

class KeyedKNN(KNNClassifierDRE):
    def get_params(self, deep=True):
        return {"k": self.k}

out, n, seeds = Path(sys.argv[1]), int(sys.argv[2]), range(int(sys.argv[3]))
(out.parent / f"ready-{out.stem}").touch()
t0 = time.time()
while len(list(out.parent.glob("ready-*"))) < n and time.time() - t0 < 60:  # start together
    time.sleep(0.01)
results = [cached_synthetic_statistics("mog8", 0.5, KeyedKNN(k=5), N=60, m=30, R=5, seed=s) for s in seeds]
np.savez(out, **{f"{s}|{stat}|{a}|{b}": r.values[stat][a, b]
                 for s, r in zip(seeds, results) for stat in r.values for a, b in r.values[stat]})
"""


def test_three_processes_computing_the_same_entries_agree(cache, tmp_path):
    n, seeds = 3, 20
    env = {**os.environ, "PYTHONPATH": f"{REPO}{os.pathsep}{os.environ.get('PYTHONPATH', '')}",
           "OMP_NUM_THREADS": "1"}
    outs = [tmp_path / f"out{i}.npz" for i in range(n)]
    procs = [subprocess.Popen([sys.executable, "-c", _WORKER, str(out), str(n), str(seeds)], env=env,
                              stderr=subprocess.PIPE, text=True) for out in outs]
    errors = [p.communicate(timeout=300)[1] for p in procs]
    assert [p.returncode for p in procs] == [0] * n, "\n".join(errors)
    fresh = {s: synthetic_statistics("mog8", 0.5, KeyedKNN(k=5), seed=s, **SMALL) for s in range(seeds)}
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
    _rewrite(path, lambda arrays: arrays.pop("LR|H0|dre"))


def _wrong_length(path):
    _rewrite(path, lambda arrays: arrays.update({"LR|H0|dre": arrays["LR|H0|dre"][:-1]}))


@pytest.mark.parametrize("damage", [_truncate, _random_bytes, _missing_key, _wrong_length])
def test_a_damaged_entry_is_reported_recomputed_and_replaced(cache, damage):
    args = ("ckb8", 0.7, KeyedKNN(k=5))
    cached_synthetic_statistics(*args, seed=3, **SMALL)
    (path,) = entries(cache)
    damage(path)
    with pytest.warns(CacheWarning, match=re.escape(str(path))):
        repaired = cached_synthetic_statistics(*args, seed=3, **SMALL)
    fresh = synthetic_statistics(*args, seed=3, **SMALL)
    assert_same_values(repaired, fresh)
    assert repaired.dre is not None  # computed, not loaded
    with warnings.catch_warnings():
        warnings.simplefilter("error", CacheWarning)
        loaded = cached_synthetic_statistics(*args, seed=3, **SMALL)  # the replaced file reads cleanly
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
    compute, run, warned_before = experiments.synthetic_statistics, experiments._run, []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")

        def counting(*args, **kwargs):
            warned_before.append(any(issubclass(w.category, CacheWarning) for w in caught))
            return run(*args, **kwargs)

        monkeypatch.setattr(experiments, "_run", counting)  # the protocol run behind every entry point
        result = cached_synthetic_statistics("mog8", 0.6, KeyedKNN(k=3), seed=1, **SMALL)
    assert warned_before == [True]  # computed once, after the warning
    (warning,) = [w for w in caught if issubclass(w.category, CacheWarning)]
    assert str(folder) in str(warning.message) and "GENDEL_CACHE_DIR" in str(warning.message)
    assert_same_values(result, compute("mog8", 0.6, KeyedKNN(k=3), seed=1, **SMALL))


# ------------------------------------------------------------------------------------------
# 5. The key is the DRE's class and parameters


def test_the_key_is_the_class_and_parameters_not_the_repr(cache):
    class AddressRepr(KeyedKNN):
        __repr__ = object.__repr__

    first = cached_synthetic_statistics("mog8", 0.5, AddressRepr(k=5), seed=2, **SMALL)
    second = cached_synthetic_statistics("mog8", 0.5, AddressRepr(k=5), seed=2, **SMALL)  # another address
    assert first.dre is not None and second.dre is None
    assert " at 0x" in second.settings["dre"]  # the settings still show the repr, as given
    cached_synthetic_statistics("mog8", 0.5, AddressRepr(k=7), seed=2, **SMALL)
    cached_synthetic_statistics("mog8", 0.5, KeyedKNN(k=5), seed=2, **SMALL)  # another class
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

    with pytest.raises(TypeError, match=r"no get_params\(\).*cache=False"):
        cached_synthetic_statistics("mog8", 0.5, NoParams(), seed=2, **SMALL)

    class Unkeyable(KeyedKNN):
        def get_params(self, deep=True):
            return {"k": self.k, "metric": len}

    with pytest.raises(TypeError, match=r"Unkeyable\.metric = <built-in function len>"):
        cached_synthetic_statistics("mog8", 0.5, Unkeyable(k=5), seed=2, **SMALL)
    assert entries(cache) == []


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
    from gendel.gan import jobs
    from gendel.gan import run as run_module
    from gendel.gan.results import result_path

    job = jobs("tiny")[0]
    path = result_path(job, tmp_path)
    path.write_text('{"version": 2, "job": {')  # a torn JSON file

    class Trained(Exception):
        pass

    def train(*args, **kwargs):  # stands in for the (minutes-long) training of the job
        raise Trained

    monkeypatch.setattr(run_module, "train", train)
    with pytest.warns(CacheWarning, match=re.escape(str(path))), pytest.raises(Trained):
        run_module.run_job(job, tmp_path, device="cpu", progress=False)
