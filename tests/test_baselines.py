"""The baselines grid (gendel.gan.baselines, gendel.gan.baseline_results, FineTunedDCGAN): the
label oracle, the random deletion control, fine-tuning, its profiles and jobs, its own code
fingerprint, a tiny run end to end, its result files' integrity and the stored quick results.

One tiny run of the grid (``python -m gendel.gan baselines --profile tiny``, two jobs, needs MNIST)
is made once for the module and read by the tests that need real results; the others use made-up
labels, fake models and networks of width 8 on made-up images.
"""

from __future__ import annotations

import ast
import inspect
import json
import linecache
import os
import shutil
import subprocess
import sys
import textwrap
from collections import defaultdict
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from gan_fixtures import needs, one_torch_thread, private_cache  # noqa: E402,F401 (autouse fixtures)

from gendel.cache import CacheWarning  # noqa: E402
from gendel.core.deletion import ApproximateDeletion  # noqa: E402
from gendel.deletion_test.stats import PAPER_STATISTICS  # noqa: E402
from gendel.fingerprint import code_hash  # noqa: E402
from gendel.gan import baseline_results as B  # noqa: E402
from gendel.gan import run as run_module  # noqa: E402
from gendel.gan.__main__ import main  # noqa: E402
from gendel.gan.baselines import (BASELINE_PROFILES, BaselineProfile, LabelRatio, baseline_deletion_mask,  # noqa: E402
                                  baseline_jobs, control_seed, random_deletion_size)
from gendel.gan.checkpoints import data_fingerprint  # noqa: E402
from gendel.gan.dcgan import DCGAN, FineTunedDCGAN  # noqa: E402
from gendel.gan.experiment import deletion_mask, training_images  # noqa: E402
from gendel.gan.images import label_deletion_mask  # noqa: E402
from gendel.gan.labels import class_reweighted  # noqa: E402
from gendel.gan.networks import Generator  # noqa: E402
from gendel.gan.profiles import PROFILES, Job, jobs  # noqa: E402
from gendel.gan.result_files import DamagedResult, read_arrays, write_record  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
TINY_JOBS = baseline_jobs("tiny")
EVEN, RANDOM = TINY_JOBS
TINY = BASELINE_PROFILES["tiny"]


# ------------------------------------------------------------------------------------------
# The label oracle: Alg. 1 with the exact label-level ratio


class FirstPixel:
    """A fake label classifier: the label of a point is its first coordinate."""

    def predict(self, Y):
        return np.asarray(Y)[:, 0].astype(int)


class LabelledPoints:
    """A fake generative model: points (label,) with labels drawn from ``p``."""

    def __init__(self, p):
        self.p = np.asarray(p, float)

    def sample(self, m, *, rng):
        return np.random.default_rng(rng).choice(10, size=m, p=self.p).astype(float)[:, None]

    def __sklearn_is_fitted__(self):
        return True


def made_up_labels(counts, seed=0):
    return np.random.default_rng(seed).permutation(np.repeat(np.arange(10), counts))


#: Label counts of X, multiples of 10: the even rule keeps exactly λ n_c of each even label.
COUNTS = [30, 50, 70, 20, 40, 60, 10, 90, 80, 50]
LAM = 0.7


def test_label_ratio_weights_are_the_share_in_x_minus_x_prime_over_the_share_in_x():
    labels = made_up_labels(COUNTS)
    deleted = label_deletion_mask(labels, "even", LAM, rng=np.random.default_rng(5))
    ratio = LabelRatio(FirstPixel()).fit(labels, deleted)
    p_X = np.array(COUNTS) / sum(COUNTS)
    # Deleting 1 − λ of each even label re-weights the label distribution of X as class_reweighted does.
    np.testing.assert_allclose(ratio.weights_, class_reweighted(p_X, "even", LAM) / p_X, rtol=1e-12)
    # By hand: kept counts over their total, divided by the counts of X over theirs.
    kept = np.array([LAM * n if c % 2 == 0 else n for c, n in enumerate(COUNTS)])
    np.testing.assert_allclose(ratio.weights_, (kept / kept.sum()) / p_X, rtol=1e-12)
    assert ratio.ratio_bound_ == ratio.weights_.max() == pytest.approx(ratio.weights_[1])  # an odd label: kept whole
    assert np.all(ratio.weights_[0::2] < 1) and np.all(ratio.weights_[1::2] > 1)
    points = np.array([[3.0], [0.0], [8.0]])
    np.testing.assert_allclose(np.exp(ratio.log_ratio(points)), ratio.weights_[[3, 0, 8]], rtol=1e-12)


def test_label_ratio_gives_a_label_absent_from_x_weight_zero():
    counts = COUNTS[:9] + [0]
    labels = made_up_labels(counts)
    ratio = LabelRatio(FirstPixel()).fit(labels, label_deletion_mask(labels, "odd", LAM, rng=0))
    assert ratio.weights_[9] == 0 and np.all(ratio.weights_[:9] > 0)
    assert ratio.log_ratio(np.array([[9.0]]))[0] == -np.inf  # Alg. 1 never accepts it
    with pytest.raises(ValueError, match="X ∖ X′ is empty"):
        LabelRatio(FirstPixel()).fit(labels, np.ones(len(labels), bool))


def _alg1_labels(lam_of_the_data, n=20_000):
    labels = made_up_labels(COUNTS)
    deleted = label_deletion_mask(labels, "even", lam_of_the_data, rng=np.random.default_rng(5))
    p = np.arange(1, 11) / 55  # the model's label distribution: not the data's
    sampler = ApproximateDeletion(LabelledPoints(p), LabelRatio(FirstPixel()).fit(labels, deleted))
    accepted = sampler.sample(n, rng=np.random.default_rng(1))[:, 0].astype(int)
    return p, sampler, np.bincount(accepted, minlength=10) / n


def test_alg1_with_the_label_oracle_reweights_the_models_labels_as_the_deletion_did():
    n = 20_000
    p, sampler, q_hat = _alg1_labels(LAM, n)
    expected = class_reweighted(p, "even", LAM)
    noise = np.sqrt(expected * (1 - expected) / n)  # standard error of each label's share
    assert np.max(np.abs(q_hat - expected) / noise) < 5
    wrong = class_reweighted(p, "even", 0.3)  # the distribution of a wrong λ is far outside the noise
    assert np.max(np.abs(q_hat - wrong) / np.sqrt(wrong * (1 - wrong) / n)) > 20
    # The bound is max w, so the acceptance rate is E_p[w] / max w.
    w = sampler.dre.weights_
    assert sampler.bound_ == w.max() and sampler.bound_exceeded_ == 0
    assert sampler.acceptance_rate_ == pytest.approx((p * w).sum() / w.max(), abs=5 * np.sqrt(0.25 / n))


# ------------------------------------------------------------------------------------------
# The deletion sets: the paper's even and odd, and N′ images deleted at random


def test_random_deletion_size_is_the_size_of_the_even_set():
    rng = np.random.default_rng(3)
    for counts in ([25, 31, 17, 40, 9, 12, 33, 5, 21, 15], list(rng.integers(1, 400, 10))):
        labels = made_up_labels(counts)
        for lam in (0.6, 0.7, 0.75, 0.8, 0.9):
            even = label_deletion_mask(labels, "even", lam, rng=np.random.default_rng(11))
            assert random_deletion_size(labels, lam) == int(even.sum()), (counts, lam)


def test_the_random_set_deletes_from_every_label_the_same_images_for_every_seed():
    labels = np.random.default_rng(7).integers(0, 10, 20_000)
    for lam in (0.6, 0.8):
        masks = [baseline_deletion_mask(Job("quick", "mnist", "random", lam, s), labels) for s in range(5)]
        assert all(np.array_equal(masks[0], m) for m in masks[1:])
        mask = masks[0]
        assert mask.sum() == random_deletion_size(labels, lam)
        assert not np.array_equal(mask, deletion_mask(Job("quick", "mnist", "even", lam, 0), labels))
        # Uniform over X: each label loses about the same share N′/N, odd labels included.
        share = mask.sum() / len(labels)
        n_c = np.bincount(labels, minlength=10)
        deleted_c = np.bincount(labels[mask], minlength=10)
        assert np.all(deleted_c[1::2] > 0)
        assert np.all(np.abs(deleted_c / n_c - share) < 5 * np.sqrt(share * (1 - share) / n_c))


def test_the_even_and_odd_sets_are_the_paper_protocol_grids():
    labels = made_up_labels([25, 31, 17, 40, 9, 12, 33, 5, 21, 15], seed=2)
    counts = np.bincount(labels, minlength=10)
    for setting in ("even", "odd"):
        for lam in (0.6, 0.9):
            for seed in (0, 4):
                job = Job("quick", "mnist", setting, lam, seed)
                mask = baseline_deletion_mask(job, labels)
                assert np.array_equal(mask, deletion_mask(job, labels))
                first = 0 if setting == "even" else 1
                by_hand = [n - int(np.floor(lam * n + 0.5)) if c % 2 == first else 0 for c, n in enumerate(counts)]
                assert np.bincount(labels[mask], minlength=10).tolist() == by_hand


# ------------------------------------------------------------------------------------------
# FineTunedDCGAN: starts from the pre-trained weights


def made_up_images(n, seed=0):
    return np.random.default_rng(seed).uniform(-1, 1, (n, 1, 28, 28)).astype(np.float32)


SMALL = dict(batch_size=32, checkpoint_dir=False, progress=False)


@pytest.fixture(scope="module")
def pre():
    """A DCGAN of width 8 on 64 made-up images, with seed 3 (a fine-tuning with seed 0 that started
    from fresh weights would start elsewhere)."""
    torch.set_num_threads(1)
    return DCGAN(epochs=1, seed=3, width=8, latent_dim=16, **SMALL).fit(made_up_images(64))


def parameters(gan):
    return {f"{name}.{k}": v.detach().clone() for name, net in (("G", gan.generator_), ("D", gan.discriminator_))
            for k, v in net.named_parameters()}


def largest_change(a, b):
    return max(float((a[k] - b[k]).abs().max()) for k in a)


def test_fine_tuning_starts_from_the_pretrained_weights(pre):
    X = made_up_images(32, seed=1)
    before = parameters(pre)
    still = FineTunedDCGAN(init=pre, epochs=1, lr=1e-9, **SMALL).fit(X)
    assert (still.width, still.latent_dim) == (8, 16)
    assert largest_change(parameters(still), parameters(pre)) < 1e-6
    torch.manual_seed(0)  # where a training with the fine-tuning's seed 0 starts from scratch
    fresh = Generator(16, 8)
    pairs = zip(fresh.parameters(), pre.generator_.parameters())
    assert max(float((p - q).detach().abs().max()) for p, q in pairs) > 1e-2
    moved = FineTunedDCGAN(init=pre, epochs=1, **SMALL).fit(X)  # the default lr: the weights move
    assert largest_change(parameters(moved), parameters(pre)) > 1e-5
    assert np.abs(moved.sample(50, rng=1) - pre.sample(50, rng=1)).max() > 1e-3
    assert moved.history_ and len(moved.epoch_seconds_) == 1
    assert largest_change(parameters(pre), before) == 0  # init itself is left as it was


def test_fine_tuning_refuses_an_unfitted_init_or_a_copy_without_discriminator(pre):
    X = made_up_images(32)
    cases = {"unfitted": DCGAN(epochs=1, width=8, latent_dim=16), "an at_epoch copy": pre.at_epoch(1),
             "not a DCGAN": "pre"}
    for case, init in cases.items():
        with pytest.raises(TypeError, match=r"init must be a fitted DCGAN with its discriminator") as info:
            FineTunedDCGAN(init=init, epochs=1, **SMALL).fit(X)
        assert type(init).__name__ in str(info.value), case


def test_a_fine_tunings_checkpoint_key_names_its_init(pre):
    X = made_up_images(32, seed=1)
    tuned = FineTunedDCGAN(init=pre, epochs=1, **SMALL).fit(X)
    assert FineTunedDCGAN(init=pre, epochs=1, **SMALL).fit(X).key_ == tuned.key_  # the key is the configuration's
    plain_gan = DCGAN(epochs=1, seed=0, width=8, latent_dim=16, **SMALL).fit(X)
    assert tuned.key_.startswith("dcgan-finetune-") and plain_gan.key_.startswith("dcgan-")
    assert tuned.key_ != plain_gan.key_
    other = DCGAN(epochs=1, seed=4, width=8, latent_dim=16, **SMALL).fit(made_up_images(64))
    assert FineTunedDCGAN(init=other, epochs=1, **SMALL).fit(X).key_ != tuned.key_


def test_a_second_fine_tuning_loads_its_checkpoint(pre, tmp_path):
    X = made_up_images(32, seed=1)
    settings = dict(init=pre, epochs=2, batch_size=32, checkpoint_dir=tmp_path, progress=False)
    first = FineTunedDCGAN(**settings).fit(X)
    ckpt = tmp_path / f"{first.key_}.pt"
    assert ckpt.exists()
    stamp = ckpt.stat().st_mtime_ns
    second = FineTunedDCGAN(**settings).fit(X)
    assert second.key_ == first.key_ and ckpt.stat().st_mtime_ns == stamp  # read, not written again
    assert second.fit_seconds_ == first.fit_seconds_ and second.epoch_seconds_ == first.epoch_seconds_  # recorded
    assert np.array_equal(second.sample(20, rng=2), first.sample(20, rng=2))
    assert largest_change(parameters(second), parameters(first)) == 0


# ------------------------------------------------------------------------------------------
# Profiles and jobs


def test_the_quick_grid_has_100_jobs_seed_by_seed():
    all_jobs = baseline_jobs("quick")
    assert len(all_jobs) == 100 == len({j.name for j in all_jobs})
    seeds = [j.seed for j in all_jobs]
    assert seeds == sorted(seeds) and set(seeds) == {0, 1, 2, 3, 4}
    assert all(j.seed == 0 for j in all_jobs[:20]) and all_jobs[20].seed == 1
    assert [j for j in all_jobs if j.seed in (3, 4)] == baseline_jobs("quick", seeds=(4, 3))
    assert {(j.setting, j.lam) for j in all_jobs} == set(BASELINE_PROFILES["quick"].deletions)
    assert {j.dataset for j in all_jobs} == {"mnist", "fashion-mnist"}


def test_a_baselines_profile_refuses_control_seeds_and_long_fine_tuning():
    quick = BASELINE_PROFILES["quick"]
    kept = dict(name="quick", deletions=quick.deletions)
    assert BaselineProfile(seeds=(999,), finetune_epochs=(11,), **kept).seeds == (999,)
    with pytest.raises(ValueError, match="seeds must be below 1000"):
        BaselineProfile(seeds=(0, 1000), finetune_epochs=(1,), **kept)
    for epochs in ((12,), (1, 40), (0,), (True,), ()):
        with pytest.raises(ValueError, match="finetune_epochs must be counts below the profile's 12 GAN epochs"):
            BaselineProfile(seeds=(0,), finetune_epochs=epochs, **kept)
    with pytest.raises(ValueError, match="deletions"):
        BaselineProfile(name="quick", seeds=(0,), deletions=(("random", 1.0),), finetune_epochs=(1,))


def test_no_control_seed_is_a_seed_of_another_model():
    used = {j.seed for bp in BASELINE_PROFILES.values() for j in baseline_jobs(bp)}
    used |= {s for p in PROFILES for j in jobs(p) for s in (j.seed, j.control_seed)}  # the protocol's seed + 1
    controls = [control_seed(s) for bp in BASELINE_PROFILES.values() for s in bp.seeds]
    assert not set(controls) & used
    assert len({control_seed(s) for s in range(1000)}) == 1000  # no two seeds share a control
    from gendel.gan.grid import baseline_shared_models

    pretrained = {s for kind, _, s in baseline_shared_models("quick") if kind == "pretrained"}
    assert pretrained == {0, 1, 2, 3, 4} | {control_seed(s) for s in range(5)}


# ------------------------------------------------------------------------------------------
# The baselines grid's fingerprint is its own


def _baseline_hash():
    return code_hash(B._roots(), skip=B._bookkeeping(), skip_modules=B.BOOKKEEPING_MODULES)


def _protocol_hash():
    return code_hash(run_module.computing_roots(), skip=run_module.bookkeeping(),
                     skip_modules=run_module.BOOKKEEPING_MODULES)


def test_the_protocol_fingerprint_does_not_cover_the_baselines_code():
    protocol = run_module.fingerprinted_code()
    assert not [k for k in protocol if k.startswith("gendel.gan.baselines") or "FineTunedDCGAN" in k]
    baselines = B.baseline_fingerprinted_code()
    for name in ("gendel.gan.baselines.LabelRatio.fit", "gendel.gan.baselines.random_deletion_size",
                 "gendel.gan.baselines.evaluate", "gendel.gan.dcgan.FineTunedDCGAN.fit",
                 "gendel.gan.experiment.pretrained_model", "gendel.gan.experiment.deletion_mask",
                 "gendel.gan.dcgan.DCGAN.fit", "gendel.core.deletion.ApproximateDeletion.steps"):
        assert name in baselines, name
    for name in ("gendel.gan.baseline_results.load_baseline_result", "gendel.gan.result_files.write_record",
                 "gendel.gan.run.provenance"):
        assert name not in baselines, name
    assert B.baseline_fingerprint() != run_module.code_fingerprint()
    assert B.baseline_fingerprint() == _baseline_hash()  # the cached value is today's


def test_the_baselines_fingerprint_changes_with_its_roots():
    from gendel.gan.experiment import reweighted

    today = _baseline_hash()
    roots = list(B._roots())
    i = roots.index(LabelRatio)
    assert code_hash([*roots[:i], reweighted, *roots[i + 1:]], skip=B._bookkeeping(),
                     skip_modules=B.BOOKKEEPING_MODULES) != today
    assert code_hash(roots[:i] + roots[i + 1:], skip=B._bookkeeping(), skip_modules=B.BOOKKEEPING_MODULES) != today


def _with_edit(obj, compute):
    """``compute()`` with one statement appended to ``obj``'s last statement (through linecache,
    as if its file had been edited), as tests/test_result_integrity.py does."""
    from gendel.fingerprint import _unwrap

    obj = _unwrap(obj)
    file = inspect.getsourcefile(obj)
    lines, start = inspect.getsourcelines(obj)
    last = ast.parse(textwrap.dedent("".join(lines))).body[0].body[-1]
    lineno = start + last.end_lineno - 1
    all_lines = list(linecache.getlines(file))
    cut = last.end_col_offset + len(lines[0]) - len(lines[0].lstrip())
    all_lines[lineno - 1] = all_lines[lineno - 1][:cut] + "; _mutated = 1" + all_lines[lineno - 1][cut:]
    stat = os.stat(file)
    saved = linecache.cache.get(file)
    linecache.cache[file] = (stat.st_size, stat.st_mtime, all_lines, file)
    try:
        return compute()
    finally:
        if saved is None:
            linecache.cache.pop(file, None)
        else:
            linecache.cache[file] = saved


def _edited(name):
    import gendel.gan.baselines as baselines
    import gendel.gan.experiment as experiment

    return {"FineTunedDCGAN.fit": FineTunedDCGAN.fit, "LabelRatio.fit": LabelRatio.fit,
            "random_deletion_size": baselines.random_deletion_size, "fast_deletion": experiment.fast_deletion,
            "deletion_mask": experiment.deletion_mask}[name]


@pytest.mark.parametrize("name, baselines_change, protocol_change", [
    ("FineTunedDCGAN.fit", True, False), ("LabelRatio.fit", True, False), ("random_deletion_size", True, False),
    ("fast_deletion", False, True),   # the protocol's Alg. 1 stage: not the baselines grid's
    ("deletion_mask", True, True)])   # shared by both grids
def test_an_edit_changes_the_fingerprints_of_the_grids_that_run_it(name, baselines_change, protocol_change):
    baselines_today, protocol_today = B.baseline_fingerprint(), run_module.code_fingerprint()
    edited = _with_edit(_edited(name), lambda: (_baseline_hash(), _protocol_hash()))
    assert (edited[0] != baselines_today, edited[1] != protocol_today) == (baselines_change, protocol_change)
    assert _baseline_hash() == baselines_today  # the edit is undone


def _training_code_edited(cls, obj):
    """``training_code(cls)`` with ``obj``'s source edited, computed afresh (it is cached per process)."""
    from gendel.fingerprint import cached_code_hash
    from gendel.gan.training import training_code

    def fresh():
        cached_code_hash.cache_clear()
        return training_code(cls)

    try:
        return _with_edit(obj, fresh)
    finally:
        cached_code_hash.cache_clear()


@pytest.mark.parametrize("cls, name", [
    (DCGAN, "DCGAN.fit"), (DCGAN, "DCGAN._initial_networks"), (DCGAN, "_init_dcgan"),
    (FineTunedDCGAN, "FineTunedDCGAN._initial_networks"), (FineTunedDCGAN, "DCGAN.fit"),
    (FineTunedDCGAN, "_init_dcgan")])
def test_a_change_to_what_a_training_runs_changes_its_checkpoint_key(cls, name):
    """The networks a training starts from (through ``self``) and the epochs it inherits (through
    ``super()``) are part of its checkpoint key: a change to either trains again."""
    from gendel.gan import networks
    from gendel.gan.training import training_code

    obj = {"DCGAN.fit": DCGAN.fit, "DCGAN._initial_networks": DCGAN._initial_networks,
           "_init_dcgan": networks._init_dcgan,
           "FineTunedDCGAN._initial_networks": FineTunedDCGAN._initial_networks}[name]
    today = training_code(cls)
    assert _training_code_edited(cls, obj) != today
    assert training_code(cls) == today  # the edit is undone


# ------------------------------------------------------------------------------------------
# A tiny run of the baselines grid, end to end


def run_cli(*args, cache, timeout=600):
    env = {**os.environ, "GENDEL_CACHE_DIR": str(cache), "OMP_NUM_THREADS": "1", "TQDM_DISABLE": "1"}
    return subprocess.run([sys.executable, "-m", "gendel.gan", *args], cwd=REPO, env=env, capture_output=True,
                          text=True, timeout=timeout)


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory):
    """``python -m gendel.gan baselines --profile tiny`` run once: ``(completed process, results folder)``."""
    where = tmp_path_factory.mktemp("baselines-tiny")
    results = where / "results"
    out = run_cli("baselines", "--profile", "tiny", "--threads", "1", "--results", str(results), cache=where / "cache")
    if out.returncode != 0:
        pytest.fail(f"the tiny baselines grid failed (exit {out.returncode}):\n{out.stderr[-3000:]}", pytrace=False)
    return out, results


@needs("mnist")
def test_a_tiny_run_writes_a_checked_result_of_every_job(tiny_run):
    out, results = tiny_run
    names = [j.name for j in TINY_JOBS]
    assert "0 job(s) done, 2 to run" in out.stdout and "[2/2] done job" in out.stdout
    assert sorted(p.stem for p in results.glob("*.json")) == sorted(p.stem for p in results.glob("*.npz")) == \
        sorted(names)
    assert not list(results.glob(".*"))  # no temporary files of the atomic writes
    p = TINY.sizes
    for job in TINY_JOBS:
        r = B.load_baseline_result(B.result_path(job, results), job)
        assert r["methods"] == ["pre", "re", "approx", "oracle", "finetune-1", "control"]
        assert r["job"]["control_seed"] == control_seed(job.seed) == 1000
        for method in r["methods"]:
            counts = np.asarray(r["labels"][method])
            assert counts.shape == (10,) and counts.min() >= 0 and counts.sum() == p.m_labels
            for key in PAPER_STATISTICS:
                values = np.asarray(r["q3"]["statistics"][key][method])
                assert values.shape == (p.repeats,) and np.isfinite(values).all(), (key, method)
            grid = r["arrays"][f"grid_{method}"]
            assert grid.shape == (32, 28, 28) and grid.dtype == np.uint8
        assert set(r["q3"]["ks"]) == set(PAPER_STATISTICS)
        assert all(set(ks) == set(r["methods"]) - {"pre"} and all(0 <= v <= 1 for v in ks.values())
                   for ks in r["q3"]["ks"].values())
        # Training costs: none for doing nothing, the oracle and the control; some for the others.
        assert [r["training"][m]["seconds"] for m in ("pre", "oracle", "control")] == [0, 0, 0]
        assert all(r["training"][m]["seconds"] > 0 for m in ("re", "approx", "finetune-1"))
        # The oracle's weights, from the recorded label counts of X and X ∖ X′.
        X, kept = np.array(r["data"]["label_counts_X"]), np.array(r["data"]["label_counts_kept"])
        weights = (kept / kept.sum()) / (X / X.sum())
        np.testing.assert_allclose(r["oracle_weights"], weights, rtol=1e-12)
        assert r["sampling"]["oracle"]["bound"] == pytest.approx(weights.max(), rel=1e-12)
        assert r["sampling"]["oracle"]["bound_exceeded"] == 0
        assert r["provenance"]["fingerprint"] == B.baseline_fingerprint()
        assert "baselines --profile tiny" in r["provenance"]["command"]


@needs("mnist")
def test_a_tiny_runs_data_are_the_jobs_deletion_sets(tiny_run):
    _, results = tiny_run
    X, labels = training_images("mnist", TINY.sizes.n_train)
    even = B.load_baseline_result(B.result_path(EVEN, results))
    rand = B.load_baseline_result(B.result_path(RANDOM, results))
    mask = deletion_mask(Job("tiny", "mnist", "even", 0.7, 0), labels)  # the paper-protocol grid's X′
    counts = np.bincount(labels, minlength=10).tolist()
    assert even["data"]["label_counts_X"] == rand["data"]["label_counts_X"] == counts
    assert even["data"]["label_counts_kept"] == np.bincount(labels[~mask], minlength=10).tolist()
    assert even["data"]["deleted"] == data_fingerprint(mask)
    assert rand["data"]["n_deleted"] == even["data"]["n_deleted"] == int(mask.sum())  # N′ of the even set
    assert rand["data"]["deleted"] != even["data"]["deleted"]
    lost = np.array(rand["data"]["label_counts_X"]) - np.array(rand["data"]["label_counts_kept"])
    assert lost[1::2].sum() > 0  # random deletion takes odd labels too
    for r in (even, rand):
        assert r["data"]["images"] == data_fingerprint(X)
        # Weights of labels nobody deleted from are equal: w = N / (N − N′).
        untouched = np.array(r["data"]["label_counts_X"]) == np.array(r["data"]["label_counts_kept"])
        n, n_deleted = len(labels), int(mask.sum())
        np.testing.assert_allclose(np.array(r["oracle_weights"])[untouched], n / (n - n_deleted))


def test_evaluate_refuses_the_models_of_another_job():
    """The baselines' later stage takes only models trained for its own job: not another deletion
    set (random for even), seed or profile."""
    import dataclasses
    import types

    from gendel.gan.baselines import BaselineModels, evaluate

    labels = np.arange(200) % 10

    def models(job, seed=None, profile=None):
        pretrained = types.SimpleNamespace(seed=job.seed if seed is None else seed)
        return BaselineModels(pretrained, None, None, {}, None, None, None, None, labels,
                              baseline_deletion_mask(job, labels), None, None, n_split=200, seconds=0.0,
                              profile=profile or BASELINE_PROFILES[job.profile])

    even = dataclasses.replace(EVEN, profile="quick")
    others = {"another deletion set": (dataclasses.replace(even, setting="random"), models(even)),
              "another seed": (dataclasses.replace(even, seed=1), models(even)),
              "another profile": (even, models(even, profile=BASELINE_PROFILES["tiny"]))}
    for case, (job, theirs) in others.items():
        with pytest.raises(ValueError, match=f"not {job.name}'s"):
            evaluate(job, theirs)
    # and the job's own models pass the check (the stage then fails on the stand-ins)
    with pytest.raises(AttributeError):
        evaluate(even, models(even))


@needs("mnist")
def test_a_tiny_run_is_done_and_a_second_run_runs_nothing(tiny_run, capsys):
    _, results = tiny_run
    for job in TINY_JOBS:
        path = B.result_path(job, results)
        finished = B.done(path, job)
        assert finished is not None
        assert finished["checksum"] == json.loads(path.read_text())["checksum"]
        assert finished["provenance"]["fingerprint"] == B.baseline_fingerprint()
    assert B.todo("tiny", results) == []
    stamps = {p.name: p.stat().st_mtime_ns for p in results.iterdir()}
    assert main(["baselines", "--profile", "tiny", "--results", str(results)]) == 0
    assert "2 job(s) done, 0 to run" in capsys.readouterr().out
    assert {p.name: p.stat().st_mtime_ns for p in results.iterdir()} == stamps


def test_the_command_line_lists_the_jobs_and_refuses_a_seed_of_no_grid(tmp_path, capsys):
    assert main(["baselines", "--profile", "tiny", "--list"]) == 0
    assert capsys.readouterr().out.splitlines() == [j.name for j in TINY_JOBS]
    assert main(["baselines", "--profile", "quick", "--list", "--seeds", "4"]) == 0
    assert capsys.readouterr().out.splitlines() == [j.name for j in baseline_jobs("quick", seeds=(4,))]
    with pytest.raises(SystemExit) as stop:
        main(["baselines", "--profile", "tiny", "--seeds", "9", "--results", str(tmp_path / "r")])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert "seeds (9,) are not seeds of the baselines profile 'tiny'" in err
    assert not (tmp_path / "r").exists()


# ------------------------------------------------------------------------------------------
# A result file is what its checksum and its content say


def copy(job, results, folder, name=None):
    for suffix in (".json", ".npz"):
        shutil.copy(Path(results) / f"{job.name}{suffix}", Path(folder) / f"{name or job.name}{suffix}")
    return Path(folder) / f"{name or job.name}.json"


def edit(path, change):
    """Change a result by hand (its checksum left as it was)."""
    d = json.loads(path.read_text())
    change(d)
    path.write_text(json.dumps(d))


def rewrite(path, change):
    """Change a result and write it as gendel writes results (a new checksum)."""
    d = json.loads(path.read_text())
    change(d)
    write_record(d, read_arrays(path, str(path)), path, arrays_written=True)


def _move_one(counts, source, target):
    counts[source] -= 1
    counts[target] += 1


@needs("mnist")
def test_a_label_count_edited_by_hand_is_a_damaged_result(tiny_run, tmp_path):
    path = copy(EVEN, tiny_run[1], tmp_path)
    assert B.load_baseline_result(path, EVEN)["job"]["name"] == EVEN.name  # the copy as written reads
    counts = B.load_baseline_result(path)["labels"]["oracle"]
    source = int(np.argmax(counts))
    edit(path, lambda d: _move_one(d["labels"]["oracle"], source, (source + 1) % 10))  # still m_labels in all
    with pytest.raises(DamagedResult, match="checksum of its JSON does not match"):
        B.load_baseline_result(path)
    with pytest.warns(CacheWarning, match=f"checksum.*running the job {EVEN.name} again"):
        assert B.done(path, EVEN) is None


@needs("mnist")
def test_another_jobs_arrays_or_name_is_refused(tiny_run, tmp_path):
    results = tiny_run[1]
    path = copy(EVEN, results, tmp_path)
    shutil.copy(results / f"{RANDOM.name}.npz", path.with_suffix(".npz"))
    with pytest.raises(DamagedResult, match="arrays file is not the one written with it"):
        B.load_baseline_result(path)
    (tmp_path / "renamed").mkdir()
    renamed = copy(EVEN, results, tmp_path / "renamed", name=RANDOM.name)
    with pytest.raises(DamagedResult, match=f"holds the result of {EVEN.name} .a result file is named after its job"):
        B.load_baseline_result(renamed)
    with pytest.raises(DamagedResult, match=f"not of tiny {RANDOM.name}"):
        B.load_baseline_result(copy(EVEN, results, tmp_path), RANDOM)


#: Changes written with a new checksum that the content checks must see.
CONTENT_BREAKS = {
    "label counts not adding up to m_labels": (EVEN, lambda d: d["labels"]["re"].__setitem__(
        0, d["labels"]["re"][0] + 1), "label counts of re do not add up to m_labels = 200"),
    "a missing Q3 value": (EVEN, lambda d: d["q3"]["statistics"]["lr"]["finetune-1"].pop(),
                           "lr values of finetune-1 are not 4 finite numbers"),
    "a method left out": (EVEN, lambda d: d["methods"].remove("oracle"), "methods .* are not the profile's"),
    "N′ other than the even set's": (RANDOM, lambda d: (d["data"].update(n_deleted=d["data"]["n_deleted"] + 1),
                                                        d["data"]["label_counts_kept"].__setitem__(
                                                            1, d["data"]["label_counts_kept"][1] - 1)),
                                     "N′ is not the even setting's at λ = 0.7"),
    "data counts not adding up": (RANDOM, lambda d: d["data"].update(n_deleted=d["data"]["n_deleted"] + 1),
                                  "its data counts do not add up"),
    "another profile's sizes": (EVEN, lambda d: d["profile"]["sizes"].update(m_labels=100),
                                "other settings than today's baselines profile 'tiny'"),
}


@needs("mnist")
@pytest.mark.parametrize("case", list(CONTENT_BREAKS))
def test_a_rechecksummed_result_whose_content_does_not_add_up_is_refused(tiny_run, tmp_path, case):
    job, change, message = CONTENT_BREAKS[case]
    path = copy(job, tiny_run[1], tmp_path)
    rewrite(path, change)
    with pytest.raises(DamagedResult, match=message):
        B.load_baseline_result(path)


OTHER_CODE = "0123456789abcdef"


@needs("mnist")
def test_a_result_of_other_code_reads_but_is_not_done(tiny_run, tmp_path):
    path = copy(EVEN, tiny_run[1], tmp_path)
    assert B.done(path, EVEN) is not None
    rewrite(path, lambda d: d["provenance"].update(fingerprint=OTHER_CODE))
    assert B.load_baseline_result(path, EVEN)["provenance"]["fingerprint"] == OTHER_CODE  # a whole, checked result
    today = B.baseline_fingerprint()
    with pytest.warns(CacheWarning, match=rf"other code \(fingerprint {OTHER_CODE}, today's {today}\)"):
        assert B.done(path, EVEN) is None


@needs("mnist")
def test_stored_baseline_results_read_their_folder_and_refuse_a_stray_file(tiny_run, tmp_path, monkeypatch):
    monkeypatch.setenv("GENDEL_STORED_RESULTS", str(tmp_path / "stored"))
    with pytest.raises(ValueError, match="no stored results of the baselines grid 'tiny'.*baselines --profile tiny"):
        B.stored_baseline_results("tiny")
    folder = tmp_path / "stored" / "baselines" / "tiny"
    folder.mkdir(parents=True)
    for job in reversed(TINY_JOBS):
        copy(job, tiny_run[1], folder)
    assert [r["job"]["name"] for r in B.stored_baseline_results("tiny")] == [j.name for j in TINY_JOBS]
    assert outdated_results("tiny") == []
    (folder / "notes.txt").write_text("made on Tuesday")
    with pytest.raises(DamagedResult, match=r"holds files that are not results: \['notes.txt'\]"):
        B.stored_baseline_results("tiny")
    (folder / "notes.txt").unlink()
    rewrite(folder / f"{EVEN.name}.json", lambda d: d["provenance"].update(fingerprint=OTHER_CODE))
    assert outdated_results("tiny") == [EVEN.name]  # the check of the stored quick results sees it
    edit(folder / f"{RANDOM.name}.json", lambda d: d["q3"].update(m=1))
    with pytest.raises(DamagedResult, match="changed after it was written.*baselines --profile tiny --store"):
        B.stored_baseline_results("tiny")


# ------------------------------------------------------------------------------------------
# The stored results of the quick baselines grid (made seed by seed)


def outdated_results(profile):
    """The stored results of ``profile`` (each checked on reading) not made by today's code."""
    today = B.baseline_fingerprint()
    return [r["job"]["name"] for r in B.stored_baseline_results(profile) if r["provenance"]["fingerprint"] != today]


def seed_gaps(profile, names):
    """``{seed: missing job names}`` for every stored seed but the highest (which a grid may be filling)."""
    stored = defaultdict(set)
    for job in baseline_jobs(profile):
        if job.name in names:
            stored[job.seed].add(job.name)
    gaps = {}
    for seed in sorted(stored)[:-1]:
        missing = [j.name for j in baseline_jobs(profile, seeds=(seed,)) if j.name not in stored[seed]]
        if missing:
            gaps[seed] = missing
    return gaps


def test_seed_gaps_finds_an_incomplete_seed_below_the_last():
    seed = {s: [j.name for j in baseline_jobs("quick", seeds=(s,))] for s in range(5)}
    assert seed_gaps("quick", seed[0] + seed[1][:3]) == {}  # seed 1 is being made
    assert seed_gaps("quick", seed[0] + seed[1] + seed[2]) == {}
    assert seed_gaps("quick", seed[0][1:] + seed[1]) == {0: seed[0][:1]}
    assert seed_gaps("quick", seed[0][:5] + seed[2][:1]) == {0: seed[0][5:]}


def test_the_stored_quick_baselines_are_todays_and_whole_seeds(monkeypatch):
    monkeypatch.delenv("GENDEL_STORED_RESULTS", raising=False)
    folder = B.stored_dir("quick")
    command = B.remake_command("quick")
    if not folder.is_dir() or not any(folder.glob("*.json")):
        pytest.skip(f"no stored results of the quick baselines grid in {folder} yet: `{command}` makes them")
    outdated = outdated_results("quick")  # a damaged file raises DamagedResult naming the command
    assert outdated == [], (f"{len(outdated)} stored result(s) of the quick baselines grid were made by other code "
                            f"(not fingerprint {B.baseline_fingerprint()}): {outdated[:5]}; remake them with "
                            f"`{command}`")
    names = {p.stem for p in folder.glob("*.json")}
    assert {p.stem for p in folder.glob("*.npz")} == names
    gaps = seed_gaps("quick", names)
    assert gaps == {}, (f"stored seeds of the quick baselines grid with missing jobs: {gaps}; complete them with "
                        f"`{B.remake_command('quick', seeds=sorted(gaps))}`")
