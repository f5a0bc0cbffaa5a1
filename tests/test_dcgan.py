"""The DCGAN learner of §5.2 and its training loop: gendel.gan.dcgan.DCGAN, gendel.gan.training.

Trainings are tiny (256 real MNIST digits, width 8): these tests check the loop, the sampler,
the checkpoints and the resumption, not the quality of the generator.
"""

import multiprocessing
import os

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from gan_fixtures import one_torch_thread, private_cache  # noqa: E402,F401 (autouse fixtures)

from gendel.gan import images  # noqa: E402
from gendel.gan import checkpoints  # noqa: E402
from gendel.gan import dcgan as dcgan_module  # noqa: E402
from gendel.gan.dcgan import DCGAN  # noqa: E402

REAL = images.data_root()
needs_mnist = pytest.mark.skipif(
    not all(images._find(REAL / "mnist", f) for f in images.FILES["train"]),
    reason=f"MNIST is not in {REAL}: run `make data` to import it")

#: A tiny configuration: 4 steps of batch 64 per epoch on 256 images.
TINY = dict(epochs=2, width=8, latent_dim=16, batch_size=64, seed=0, progress=False)






@pytest.fixture(scope="module")
def digits():
    """256 real MNIST training digits in [-1, 1]."""
    if not all(images._find(REAL / "mnist", f) for f in images.FILES["train"]):
        pytest.skip(f"MNIST is not in {REAL}: run `make data` to import it")
    x, _ = images.load_images("mnist", split="train")
    return x[:256]


def state_equal(a, b):
    a, b = a.state_dict(), b.state_dict()
    return a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)


def checkpoint_files(folder):
    return sorted(p.name for p in folder.iterdir())


@needs_mnist
def test_trains_and_samples_images(digits):
    gan = DCGAN(checkpoint_dir=False, **TINY).fit(digits)
    assert len(gan.history_) == 2
    for losses in gan.history_:
        assert set(losses) == {"loss_d", "loss_g"} and all(np.isfinite(v) for v in losses.values())
    assert gan.history_[0]["loss_d"] != gan.history_[1]["loss_d"]
    assert not gan.generator_.training and not gan.discriminator_.training
    S = gan.sample(10, rng=np.random.default_rng(0))
    assert S.shape == (10, 1, 28, 28) and S.dtype == np.float32
    assert S.min() >= -1 and S.max() <= 1
    assert np.array_equal(S, gan.sample(10, rng=np.random.default_rng(0)))
    assert not np.array_equal(S, gan.sample(10, rng=np.random.default_rng(1)))
    assert gan.sample(0, rng=np.random.default_rng(0)).shape == (0, 1, 28, 28)
    # Batched generation is the same as one batch (the generator is in evaluation mode).
    np.testing.assert_array_equal(gan.sample(10, rng=np.random.default_rng(0), batch_size=3), S)


@needs_mnist
def test_checkpoint_round_trip(digits, tmp_path, monkeypatch):
    first = DCGAN(checkpoint_dir=tmp_path, **TINY).fit(digits)
    path = tmp_path / f"{first.key_}.pt"
    assert checkpoint_files(tmp_path) == [path.name]
    state = torch.load(path, map_location="cpu", weights_only=True)
    assert state["epoch"] == 2 and len(state["history"]) == 2
    assert state["seconds"] == first.fit_seconds_

    def no_training(*args, **kwargs):
        raise AssertionError("a finished configuration was trained again")

    monkeypatch.setattr(dcgan_module, "batches", no_training)
    again = DCGAN(checkpoint_dir=tmp_path, **TINY).fit(digits)
    assert again.key_ == first.key_
    assert again.fit_seconds_ == first.fit_seconds_
    assert again.history_ == first.history_
    assert state_equal(again.generator_, first.generator_)
    assert state_equal(again.discriminator_, first.discriminator_)
    rng = lambda: np.random.default_rng(5)  # noqa: E731
    assert np.array_equal(again.sample(8, rng=rng()), first.sample(8, rng=rng()))
    # Another configuration (another seed, other data) is another key: trained, not loaded.
    with pytest.raises(AssertionError, match="trained again"):
        DCGAN(checkpoint_dir=tmp_path, **(TINY | {"seed": 1})).fit(digits)


class Killed(BaseException):
    """Stands in for a KeyboardInterrupt or a SLURM pre-emption."""


@needs_mnist
def test_interrupted_training_resumes_to_the_same_weights(digits, tmp_path, monkeypatch):
    whole = DCGAN(checkpoint_dir=tmp_path / "A", **TINY).fit(digits)

    real_save = checkpoints.atomic_save

    def save_then_die(obj, path):  # killed right after the first checkpoint is in place
        real_save(obj, path)
        raise Killed

    with monkeypatch.context() as m:
        m.setattr(checkpoints, "atomic_save", save_then_die)
        with pytest.raises(Killed):
            DCGAN(checkpoint_dir=tmp_path / "B", **TINY).fit(digits)
    (name,) = checkpoint_files(tmp_path / "B")
    assert name == f"{whole.key_}.pt"
    assert torch.load(tmp_path / "B" / name, weights_only=True)["epoch"] == 1

    epochs_run = []
    real_batches = dcgan_module.batches

    def counting_batches(*args, **kwargs):
        epochs_run.append(1)
        return real_batches(*args, **kwargs)

    monkeypatch.setattr(dcgan_module, "batches", counting_batches)
    resumed = DCGAN(checkpoint_dir=tmp_path / "B", **TINY).fit(digits)
    assert len(epochs_run) == 1  # only the second epoch was run
    assert resumed.history_ == whole.history_
    assert state_equal(resumed.generator_, whole.generator_)
    assert state_equal(resumed.discriminator_, whole.discriminator_)
    rng = lambda: np.random.default_rng(3)  # noqa: E731
    assert np.array_equal(resumed.sample(16, rng=rng()), whole.sample(16, rng=rng()))
    assert torch.load(tmp_path / "B" / name, weights_only=True)["epoch"] == 2


def _train_in_child(images_, folder):
    """What each of two concurrent processes runs: the same tiny training into ``folder``."""
    torch.set_num_threads(1)
    gan = DCGAN(checkpoint_dir=folder, **TINY).fit(images_)
    return gan.key_, len(gan.history_)


@needs_mnist
def test_atomic_checkpoints_and_concurrent_writers(digits, tmp_path):
    folder = tmp_path / "shared"
    ctx = multiprocessing.get_context("spawn")
    with ctx.Pool(2) as pool:
        results = pool.starmap(_train_in_child, [(digits, str(folder))] * 2)
    assert results[0] == results[1] and results[0][1] == 2
    key = results[0][0]
    # One checkpoint, no temporary files left by either writer.
    assert checkpoint_files(folder) == [f"{key}.pt"]
    state = torch.load(folder / f"{key}.pt", map_location="cpu", weights_only=True)
    assert state["epoch"] == 2
    # The file is a finished training: the same configuration here loads it, and since both
    # writers computed the same thing, it equals a training in this process.
    here = DCGAN(checkpoint_dir=tmp_path / "here", **TINY).fit(digits)
    assert here.key_ == key
    loaded = DCGAN(checkpoint_dir=folder, **TINY).fit(digits)
    assert state_equal(loaded.generator_, here.generator_)


def test_failed_save_leaves_no_temporary_file(tmp_path, monkeypatch):
    def broken_save(obj, f):
        f.write(b"half a checkpoint")
        raise OSError("disk full")

    monkeypatch.setattr(checkpoints.torch, "save", broken_save)
    with pytest.raises(OSError, match="disk full"):
        checkpoints.atomic_save({"a": 1}, tmp_path / "x.pt")
    assert os.listdir(tmp_path) == []


def test_refuses_bad_images_and_settings():
    g = np.random.default_rng(0)
    good = g.uniform(-1, 1, (8, 1, 28, 28)).astype(np.float32)
    gan = DCGAN(epochs=1, width=4, batch_size=4, checkpoint_dir=False, progress=False)
    with pytest.raises(ValueError, match=r"shape \(n, 1, 28, 28\).*\(8, 28, 28\)"):
        gan.fit(good[:, 0])
    with pytest.raises(ValueError, match=r"scaled to \[-1, 1\]"):
        gan.fit(np.round((good + 1) * 127.5))  # raw pixels 0..255
    with pytest.raises(ValueError, match=r"\[-1, 1\]"):
        gan.fit(np.where(np.arange(8)[:, None, None, None] == 0, np.nan, good))
    with pytest.raises(ValueError, match="empty"):
        gan.fit(good[:0])
    # settings are checked by fit, before any training (scikit-learn's rule: __init__ only stores)
    with pytest.raises(ValueError, match="epochs must be at least 1"):
        DCGAN(epochs=0).fit(good)
    with pytest.raises(TypeError, match="epochs must be an integer"):
        DCGAN(epochs=2.5).fit(good)
    with pytest.raises(ValueError, match="batch_size must be at least 2"):
        DCGAN(epochs=1, batch_size=1).fit(good)
    with pytest.raises(ValueError, match=r"beta1 must be a number in \[0, 1\).*got 1.5"):
        DCGAN(epochs=1, beta1=1.5).fit(good)
    with pytest.raises(ValueError, match=r"not fitted yet.*fit"):
        gan.sample(3, rng=np.random.default_rng(0))


def test_unreadable_checkpoint_is_reported_and_replaced(tmp_path):
    images_ = np.random.default_rng(0).uniform(-1, 1, (16, 1, 28, 28)).astype(np.float32)
    config = dict(epochs=1, width=4, latent_dim=8, batch_size=8, progress=False)
    key = DCGAN(checkpoint_dir=False, **config).fit(images_).key_
    (tmp_path / f"{key}.pt").write_bytes(b"not a checkpoint")
    with pytest.warns(RuntimeWarning, match="ignoring the unreadable checkpoint"):
        gan = DCGAN(checkpoint_dir=tmp_path, **config).fit(images_)
    assert len(gan.history_) == 1
    assert torch.load(tmp_path / f"{key}.pt", weights_only=True)["epoch"] == 1
    assert checkpoint_files(tmp_path) == [f"{key}.pt"]


@pytest.mark.parametrize("given", [None, "ACTIVE"])
def test_importing_gendel_gan_makes_openmp_wait_passively_unless_told_otherwise(given):
    """gendel.gan sets OMP_WAIT_POLICY=PASSIVE before any of its modules imports torch; a value in
    the environment stays. Checked in a fresh process, where the variable is read."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    env = {k: v for k, v in os.environ.items() if k != "OMP_WAIT_POLICY"}
    if given:
        env["OMP_WAIT_POLICY"] = given
    repo = Path(__file__).resolve().parents[1]
    env["PYTHONPATH"] = os.pathsep.join([str(repo), os.environ.get("PYTHONPATH", "")])
    code = "import os, sys\nimport gendel.gan.dcgan\nprint(os.environ.get('OMP_WAIT_POLICY'), 'torch' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == [given or "PASSIVE", "True"]
