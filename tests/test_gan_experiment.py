"""The image experiments of §5.2 and Appendix E: label classifier, Alg. 1 with a VDM ratio on
real images, the profiles, a job's stages and result, and the command line ``python -m gendel.gan``."""

import dataclasses
import math
import os
import subprocess
import sys
import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from gan_fixtures import one_torch_thread, private_cache  # noqa: E402,F401 (autouse fixtures)

from gendel.core.deletion import ApproximateDeletion  # noqa: E402
from gendel.core.models import EmpiricalModel  # noqa: E402
from gendel.gan import images  # noqa: E402
from gendel.gan.classifier import LabelClassifier  # noqa: E402
from gendel.gan.profiles import PROFILES, Profile, find_job, jobs  # noqa: E402
from gendel.gan.run import code_fingerprint  # noqa: E402
from gendel.gan.vdm import VDMDRE  # noqa: E402
from gendel.gan.__main__ import main  # noqa: E402
from gendel.gan.experiment import deletion_mask  # noqa: E402
from gendel.gan.images import label_deletion_mask, load_images  # noqa: E402
from gendel.gan.profiles import RESULT_VERSION  # noqa: E402
from gendel.gan.result_files import load_result, load_results, result_path  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REAL = images.data_root()


def has(name):
    return all(images._find(REAL / name, f) for f in images.ALL_FILES)


needs_mnist = pytest.mark.skipif(not has("mnist"), reason=f"MNIST is not in {REAL}: run `make data` to import it")
needs_fashion_mnist = pytest.mark.skipif(not has("fashion-mnist"),
                                         reason=f"Fashion-MNIST is not in {REAL}: run `make data` to import it")


def label_distribution(labels):
    return np.bincount(labels, minlength=10) / len(labels)


def tv(p, q):
    return 0.5 * np.abs(p - q).sum()


# ------------------------------------------------------------------------------------------
# The label classifier that reads the label distribution of generated images


@needs_mnist
def test_label_classifier_reads_mnist_labels():
    x, y = load_images("mnist", split="train")
    x_test, y_test = load_images("mnist", split="test")
    clf = LabelClassifier(epochs=1, batch_size=32, checkpoint_dir=False, progress=False).fit(x[:2000], y[:2000])
    assert clf.score(x_test[:500], y_test[:500]) >= 0.8
    proba = clf.predict_proba(x_test[:50])
    assert proba.shape == (50, 10) and np.all(proba >= 0)
    np.testing.assert_allclose(proba.sum(1), 1.0, rtol=1e-12)
    assert np.array_equal(clf.predict(x_test[:50]), proba.argmax(1))


def test_label_classifier_refuses_bad_labels():
    imgs = np.zeros((4, 1, 28, 28), np.float32)
    clf = LabelClassifier(epochs=1, checkpoint_dir=False, progress=False)
    with pytest.raises(ValueError, match="one per image"):
        clf.fit(imgs, [0, 1, 2])
    with pytest.raises(ValueError, match="one per image"):
        clf.fit(imgs, [0.0, 1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="0..9"):
        clf.fit(imgs, [0, 1, 2, 10])
    with pytest.raises(ValueError, match="not fitted"):
        clf.predict(imgs)


# ------------------------------------------------------------------------------------------
# Fast deletion on real images without any GAN: the empirical distribution of X, filtered by
# Alg. 1 with a VDM ratio, should follow X \ X'.

FAST_N, FAST_LAM, FAST_ACCEPTED, BOUND = 3000, 0.5, 5000, 10.0


@needs_fashion_mnist
def test_alg1_with_vdm_ratio_deletes_labels_of_real_images(tmp_path):
    x, y = load_images("fashion-mnist", split="train")
    pick = np.random.default_rng(0).choice(len(x), FAST_N, replace=False)
    X, labels = x[pick], y[pick]
    deleted = label_deletion_mask(labels, "even", FAST_LAM, rng=np.random.default_rng(1))
    vdm = VDMDRE(epochs=10, width=16, lr=1e-3, checkpoint_dir=tmp_path, progress=False).fit(X, deleted)
    sampler = ApproximateDeletion(EmpiricalModel(X), vdm, bound=BOUND)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)  # B = 10 must be a valid bound here
        S = sampler.sample(FAST_ACCEPTED, rng=np.random.default_rng(2))
    assert S.shape == (FAST_ACCEPTED, 1, 28, 28)
    label_of = {image.tobytes(): label for image, label in zip(X, labels)}
    accepted = np.array([label_of[s.tobytes()] for s in S])  # every sample is an image of X
    p_X, p_kept = label_distribution(labels), label_distribution(labels[~deleted])
    gap = tv(p_X, p_kept)
    assert gap > 0.1
    assert tv(label_distribution(accepted), p_kept) <= 0.5 * gap
    # The accepted samples lost even labels: the direction of the move, not only its size.
    assert label_distribution(accepted)[0::2].sum() < (p_X[0::2].sum() + p_kept[0::2].sum()) / 2
    # A normalised ratio, E[rho_hat_E] = 1 under the model: the acceptance rate is 1/B.
    assert sampler.acceptance_rate_ == pytest.approx(1 / BOUND, rel=0.1)
    assert sampler.bound_exceeded_ == 0


# ------------------------------------------------------------------------------------------
# Profiles, jobs and the command line


def test_paper_profile_has_the_papers_settings():
    p = PROFILES["paper"]
    assert p.gan_epochs == 200 and p.vdm_epochs == 40  # Appendix E.1
    assert p.m_labels == 50_000 and p.m_test == 1000 and p.repeats == 100
    assert p.bound == 10.0 and p.seeds == (0, 1, 2, 3, 4)
    assert set(p.datasets) == {"mnist", "fashion-mnist"}
    assert sorted(p.deletions) == sorted((s, lam) for s in ("even", "odd") for lam in (0.6, 0.7, 0.8, 0.9))
    assert p.n_train is None  # the whole training split
    assert len(jobs("paper")) == 2 * 8 * 5
    # The quick profile (stored with gendel) covers the whole grid of Appendix E with three seeds.
    assert sorted(PROFILES["quick"].deletions) == sorted(p.deletions) and len(PROFILES["quick"].seeds) >= 3
    # Every profile hashes to its own results folder, and a change of any setting changes the hash.
    assert len({q.key() for q in PROFILES.values()}) == len(PROFILES)
    assert dataclasses.replace(p, m_test=999).key() != p.key()


def test_a_profile_is_built_by_keyword_and_checked():
    with pytest.raises(TypeError):
        Profile("mine", ("mnist",), (("even", 0.7),), (0,), 256, 1, 8, 1, 8, 1, 100, 50, 4, 100)  # which 8 is which?
    with pytest.raises(ValueError, match="bound must be at least 1"):
        dataclasses.replace(PROFILES["tiny"], bound=0.01)
    with pytest.raises(ValueError, match="deletions"):
        dataclasses.replace(PROFILES["tiny"], deletions=(("even", 1.2),))
    with pytest.raises(ValueError, match="seeds must be distinct"):
        dataclasses.replace(PROFILES["tiny"], seeds=(0, 0))


def test_the_deletion_set_depends_on_the_setting_and_lambda_not_the_seed():
    labels = np.repeat(np.arange(10), 50)
    masks = {seed: deletion_mask(find_job("quick", f"mnist-odd-0.8-seed{seed}"), labels) for seed in (0, 1, 2)}
    assert all(np.array_equal(masks[0], m) for m in masks.values())
    assert np.bincount(labels[masks[0]], minlength=10).tolist() == [0, 10] * 5   # 20 % of each odd label
    # Nested: a smaller λ deletes the images of a larger one and more.
    small = deletion_mask(find_job("quick", "mnist-odd-0.6-seed0"), labels)
    assert np.all(small[masks[0]]) and small.sum() > masks[0].sum()


def test_list_prints_unique_job_names(capsys):
    assert main(["list", "--profile", "quick"]) == 0
    names = capsys.readouterr().out.splitlines()
    p = PROFILES["quick"]
    assert len(names) == len(p.datasets) * len(p.deletions) * len(p.seeds) == len(set(names))
    assert names == [job.name for job in jobs("quick")]
    assert all(find_job("quick", name).name == name for name in names)


def run_cli(*args, cache, timeout=600):
    env = {**os.environ, "GENDEL_CACHE_DIR": str(cache), "OMP_NUM_THREADS": "1", "TQDM_DISABLE": "1"}
    return subprocess.run([sys.executable, "-m", "gendel.gan", *args], cwd=REPO, env=env, capture_output=True,
                          text=True, timeout=timeout)


def test_run_refuses_an_unknown_job_and_names_the_list_command(tmp_path):
    out = run_cli("run", "--profile", "tiny", "mnist-even-0.5-seed7", "--results", str(tmp_path / "r"),
                  cache=tmp_path / "cache")
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert "python -m gendel.gan list --profile tiny" in out.stderr
    with pytest.raises(SystemExit) as stop:
        main(["run", "--profile", "tiny", "--dataset", "mnist", "--results", str(tmp_path / "r")])
    assert stop.value.code == 2


def check_result(result, job, profile):
    assert result.version == RESULT_VERSION and not result.legacy
    assert result.name == job.name and result.profile["name"] == profile.name
    for model in ("pre", "re", "approx", "control"):
        counts = result.labels[model]
        assert len(counts) == 10 and counts.sum() == profile.m_labels
    data = result.data
    assert data["n_train"] == profile.n_train == sum(data["label_counts_X"])
    assert sum(data["label_counts_kept"]) == data["n_train"] - data["n_deleted"] > 0
    kept, everything = np.array(data["label_counts_kept"]), np.array(data["label_counts_X"])
    affected = slice(0, 10, 2) if job.setting == "even" else slice(1, 10, 2)
    untouched = slice(1, 10, 2) if job.setting == "even" else slice(0, 10, 2)
    assert np.array_equal(kept[untouched], everything[untouched])
    assert np.array_equal(kept[affected], np.floor(job.lam * everything[affected] + 0.5).astype(int))
    ks = result.q3["ks"]
    assert set(ks) == {"lr", "asc-log", "asc-tlogt"}
    assert all(math.isfinite(v) and 0 <= v <= 1 for k in ks.values() for v in k.values())
    for values in result.q3["statistics"].values():
        assert len(values["h0"]) == len(values["h1"]) == len(values["control"]) == profile.repeats
    assert result.scores("h0").shape == (profile.repeats * profile.m_test,)
    assert 0 < result.sampling["acceptance_rate"] <= 1
    # Provenance: the code fingerprint, the command, the hardware of every training, the times of every stage.
    prov = result.provenance
    assert prov["fingerprint"] == code_fingerprint() and prov["command"] and prov["torch"] == str(torch.__version__)
    for training in ("pretrained", "retrained", "control", "vdm", "classifier"):
        (hw,) = prov["hardware"][training]
        assert hw["device_type"] in ("cpu", "cuda") and hw["device"] and hw["torch_threads"] >= 1
    for stage in ("train", "fast_deletion", "deletion_test", "curves", "job"):
        assert math.isfinite(prov["seconds"][stage]) and prov["seconds"][stage] >= 0
    assert 0 <= result.classifier["test_accuracy"] <= 1
    assert len(result.losses["pretrain"]) == profile.gan_epochs and len(result.losses["vdm"]) == profile.vdm_epochs
    curves = result.curves
    assert list(curves["retrained"]["epochs"]) == list(range(1, profile.gan_epochs + 1))
    assert np.all(np.diff(curves["retrained"]["cpu_seconds"]) > 0) and curves["vdm"]["epochs"][-1] == profile.vdm_epochs
    assert np.asarray(curves["retrained"]["labels"]).sum(axis=1).tolist() == [profile.m_curve] * profile.gan_epochs
    for pool in ("train", "test", "pretrained"):
        assert result.reweighted[pool]["weights"].shape == (10,)


@needs_mnist
def test_tiny_grid_end_to_end(tmp_path, capsys):
    profile = PROFILES["tiny"]
    cache, results = tmp_path / "cache", tmp_path / "results"
    assert os.environ["GENDEL_CACHE_DIR"] == str(cache)  # in this process too (private_cache)
    names = [job.name for job in jobs("tiny")]

    grid = run_cli("grid", "--profile", "tiny", "--parallel", "2", "--threads", "1", "--results", str(results),
                   cache=cache)
    assert grid.returncode == 0, grid.stderr[-3000:]
    assert f"0 job(s) done, {len(names)} to run" in grid.stdout and "2 process(es) of 1 thread(s)" in grid.stdout
    assert sorted(p.stem for p in results.glob("*.json")) == sorted(names)
    assert sorted(p.stem for p in results.glob("*.npz")) == sorted(names)
    assert not list(results.glob(".*"))  # no temporary files of the atomic writes
    for job in jobs("tiny"):
        result = load_result(result_path(job, results), job)
        check_result(result, job, profile)
        assert "grid --profile tiny --parallel 2" in result.provenance["command"]
        assert result.arrays["grid_pre"].shape == (32, 28, 28) and result.arrays["grid_pre"].dtype == np.uint8
    assert [r.name for r in load_results("tiny", results)] == names

    stamps = {p.name: p.stat().st_mtime_ns for p in results.iterdir() if p.is_file()}
    again = run_cli("grid", "--profile", "tiny", "--threads", "1", "--results", str(results), cache=cache)
    assert again.returncode == 0
    assert f"{len(names)} job(s) done, 0 to run" in again.stdout
    assert {p.name: p.stat().st_mtime_ns for p in results.iterdir() if p.is_file()} == stamps

    # `run` by settings resolves to the first listed job. With the grid's checkpoints in the cache
    # (one thread, as here) nothing is trained again, and the job's numbers are the grid's.
    single = tmp_path / "single"
    assert main(["run", "--profile", "tiny", "--dataset", "mnist", "--setting", "even", "--lam", "0.7",
                 "--seed", "0", "--results", str(single)]) == 0
    assert str(single / f"{names[0]}.json") in capsys.readouterr().out
    mine, theirs = load_result(single / f"{names[0]}.json"), load_result(results / f"{names[0]}.json")
    assert all(np.array_equal(mine.labels[k], theirs.labels[k]) for k in mine.labels)
    assert np.array_equal(mine.statistic("lr")["h1"], theirs.statistic("lr")["h1"])
    assert mine.timings["pretrain"] == theirs.timings["pretrain"]  # loaded, not trained
