"""The image experiments of §5.2 and Appendix E: label classifier, Alg. 1 with a VDM ratio on
real images, the profiles and the command line ``python -m gendel.gan``."""

import dataclasses
import json
import math
import os
import subprocess
import sys
import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from gan_fixtures import one_torch_thread, private_cache  # noqa: E402,F401 (autouse fixtures)

from gendel.gan import images  # noqa: E402
from gendel.core.deletion import ApproximateDeletion  # noqa: E402
from gendel.gan import VDMDRE  # noqa: E402
from gendel.gan import PROFILES, LabelClassifier, jobs, protocol  # noqa: E402
from gendel.gan.__main__ import main  # noqa: E402
from gendel.gan.images import label_deletion_mask, load_images  # noqa: E402
from gendel.core.models import EmpiricalModel  # noqa: E402

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
# Profiles and the command line


def test_paper_profile_has_the_papers_settings():
    p = PROFILES["paper"]
    assert p.gan_epochs == 200 and p.vdm_epochs == 40  # Appendix E.1
    assert p.m_labels == 50_000 and p.m_test == 1000 and p.repeats == 100
    assert p.bound == 10.0 and p.seeds == (0, 1, 2, 3, 4)
    assert set(p.datasets) == {"mnist", "fashion-mnist"}
    assert sorted(p.deletions) == sorted((s, lam) for s in ("even", "odd") for lam in (0.6, 0.7, 0.8, 0.9))
    assert p.n_train is None  # the whole training split
    assert len(jobs("paper")) == 2 * 8 * 5
    # Every profile hashes to its own results folder, and a change of any setting changes the hash.
    assert len({q.key() for q in PROFILES.values()}) == len(PROFILES)
    assert dataclasses.replace(p, m_test=999).key() != p.key()


def test_list_prints_unique_job_names(capsys):
    assert main(["list", "--profile", "quick"]) == 0
    names = capsys.readouterr().out.splitlines()
    p = PROFILES["quick"]
    assert len(names) == len(p.datasets) * len(p.deletions) * len(p.seeds) == len(set(names))
    assert names == [job.name for job in jobs("quick")]
    assert all(protocol.find_job("quick", name).name == name for name in names)


def run_cli(*args, cache, timeout=300):
    env = {**os.environ, "GENDEL_CACHE_DIR": str(cache), "OMP_NUM_THREADS": "1", "TQDM_DISABLE": "1"}
    return subprocess.run([sys.executable, "-m", "gendel.gan", *args], cwd=REPO, env=env, capture_output=True,
                          text=True, timeout=timeout)


def test_run_refuses_an_unknown_job_and_names_the_list_command(tmp_path):
    out = run_cli("run", "--profile", "tiny", "mnist-even-0.5-seed7", "--results", str(tmp_path / "r"),
                  cache=tmp_path / "cache")
    assert out.returncode != 0
    assert "python -m gendel.gan list --profile tiny" in out.stderr
    assert not (tmp_path / "r").exists()
    with pytest.raises(SystemExit, match="--dataset --setting --lam --seed"):
        main(["run", "--profile", "tiny", "--dataset", "mnist", "--results", str(tmp_path / "r")])


def check_result(result, job, profile):
    assert result["version"] == protocol.RESULT_VERSION
    assert result["job"]["name"] == job.name and result["profile"]["name"] == profile.name
    for model in ("pre", "re", "approx"):
        counts = result["labels"][model]
        assert len(counts) == 10 and sum(counts) == profile.m_labels
    data = result["data"]
    assert data["n_train"] == profile.n_train == sum(data["label_counts_X"])
    assert sum(data["label_counts_kept"]) == data["n_train"] - data["n_deleted"] > 0
    kept, everything = np.array(data["label_counts_kept"]), np.array(data["label_counts_X"])
    affected = slice(0, 10, 2) if job.setting == "even" else slice(1, 10, 2)
    untouched = slice(1, 10, 2) if job.setting == "even" else slice(0, 10, 2)
    assert np.array_equal(kept[untouched], everything[untouched])
    assert np.array_equal(kept[affected], np.floor(job.lam * everything[affected] + 0.5).astype(int))
    ks = result["q3"]["ks"]
    assert set(ks) == {"LR", "ASC log", "ASC tlogt"}
    assert all(math.isfinite(v) and 0 <= v <= 1 for v in ks.values())
    for values in result["q3"]["values"].values():
        assert len(values["H0"]) == len(values["H1"]) == profile.repeats
    assert 0 < result["sampling"]["acceptance_rate"] <= 1
    hw = result["hardware"]
    assert hw["device_type"] in ("cpu", "cuda") and hw["device"] and hw["torch"] == torch.__version__
    for name in ("pretrain", "retrain", "vdm", "classifier", "sample_approximated", "q3", "job"):
        assert math.isfinite(result["timings"][name]) and result["timings"][name] >= 0
    assert 0 <= result["classifier"]["test_accuracy"] <= 1
    assert len(result["losses"]["pretrain"]) == profile.gan_epochs
    assert len(result["losses"]["vdm"]) == profile.vdm_epochs


@needs_mnist
def test_tiny_grid_end_to_end(tmp_path, capsys):
    profile = PROFILES["tiny"]
    cache, results = tmp_path / "cache", tmp_path / "results"
    assert os.environ["GENDEL_CACHE_DIR"] == str(cache)  # in this process too (private_cache)
    assert main(["list", "--profile", "tiny"]) == 0
    names = capsys.readouterr().out.split()
    assert names == [job.name for job in jobs("tiny")]

    grid = run_cli("grid", "--profile", "tiny", "--executor", "local", "--results", str(results), cache=cache)
    assert grid.returncode == 0, grid.stderr[-3000:]
    assert f"0 job(s) done, {len(names)} to run" in grid.stdout
    assert sorted(p.stem for p in results.glob("*.json")) == sorted(names)
    assert sorted(p.stem for p in results.glob("*.npz")) == sorted(names)
    assert not list(results.glob(".*"))  # no temporary files of the atomic writes
    for job in jobs("tiny"):
        path = protocol.result_path(job, results)
        check_result(json.loads(path.read_text()), job, profile)
        arrays = protocol.load_result(path)["arrays"]
        assert arrays["grid_pre"].shape == (32, 28, 28) and arrays["grid_pre"].dtype == np.uint8
        assert arrays["pre_log_ratio"].shape == arrays["pre_labels"].shape == (profile.m_labels,)

    stamps = {p.name: p.stat().st_mtime_ns for p in results.iterdir() if p.is_file()}
    again = run_cli("grid", "--profile", "tiny", "--executor", "local", "--results", str(results), cache=cache)
    assert again.returncode == 0
    assert f"{len(names)} job(s) done, 0 to run" in again.stdout
    assert {p.name: p.stat().st_mtime_ns for p in results.iterdir() if p.is_file()} == stamps

    # `run` by settings resolves to the first listed job and writes the same file name. With the
    # grid's checkpoints in the cache nothing is trained again, and the job's numbers are the
    # grid's: a job is reproducible from its checkpoints and seeds.
    single = tmp_path / "single"
    assert main(["run", "--profile", "tiny", "--dataset", "mnist", "--setting", "even", "--lam", "0.7",
                 "--seed", "0", "--results", str(single)]) == 0
    assert str(single / f"{names[0]}.json") in capsys.readouterr().out
    assert sorted(p.name for p in single.iterdir()) == [f"{names[0]}.json", f"{names[0]}.npz"]
    mine = json.loads((single / f"{names[0]}.json").read_text())
    theirs = json.loads((results / f"{names[0]}.json").read_text())
    assert mine["labels"] == theirs["labels"]
    assert mine["q3"] == theirs["q3"]
    assert mine["timings"]["pretrain"] == theirs["timings"]["pretrain"]  # loaded, not trained
