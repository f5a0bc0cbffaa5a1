"""The image half under bad input, damaged files and interruptions, as a careless user meets them.

Each test is one case, or one kind of case with its variants as parameters:

- Alg. 1 with a GAN and a VDM estimates its cost before it starts, and its messages tell "B too
  small" (ratios above B), "B too large" (acceptance too low) and "max_proposals too small" apart;
- the estimators refuse bad arguments with a message that names the argument, before any work;
- a checkpoint that does not match its training (another kind, other shapes, damaged bytes, a
  record of the wrong type) is reported and trained again, to the same weights as a fresh run;
- a result file that is not a complete result of its job is reported, and ``run`` and ``grid``
  both run the job again (one rule for "done": :func:`gendel.gan.run.done`);
- a process killed while it writes a checkpoint or a result leaves no file behind for good;
- the command line reports a user's mistake in one line with exit status 2, before any work.

The networks are tiny (width 4-8, a few dozen made-up images, no checkpoints unless a test is
about them) and the jobs run the ``tiny`` profile on made-up images in IDX files: no real data is
needed, and no test trains for more than a few seconds (the command line's end-to-end test starts
fresh processes, which takes longer).
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import warnings
from pathlib import Path
from unittest import mock

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from gan_fixtures import one_torch_thread, private_cache  # noqa: E402,F401 (autouse fixtures)

from gendel.cache import CacheWarning  # noqa: E402
from gendel.core import deletion as deletion_module  # noqa: E402
from gendel.core.deletion import ApproximateDeletion  # noqa: E402
from gendel.gan.classifier import LabelClassifier  # noqa: E402
from gendel.gan.dcgan import DCGAN  # noqa: E402
from gendel.gan.profiles import PROFILES, Job, jobs  # noqa: E402
from gendel.gan.vdm import VDMDRE  # noqa: E402
from gendel.gan import __main__ as cli  # noqa: E402
from gendel.gan import checkpoints, grid, training  # noqa: E402
from gendel.gan import run as run_module  # noqa: E402
from gendel.gan.images import FILES, write_idx  # noqa: E402
from gendel.gan.result_files import DamagedResult, load_result, load_results, result_path, write_result  # noqa: E402
from gendel.gan.run import code_fingerprint, done, run_job  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
SMALL = dict(width=4, batch_size=16, checkpoint_dir=False, progress=False)


def made_up_images(n, seed=0):
    return np.random.default_rng(seed).uniform(-1, 1, (n, 1, 28, 28)).astype(np.float32)


@pytest.fixture(scope="module")
def models():
    """A DCGAN, a VDM DRE and a label classifier of width 4 on 48 made-up images."""
    X = made_up_images(48)
    labels = np.arange(48) % 10
    torch.set_num_threads(1)
    gan = DCGAN(epochs=1, latent_dim=8, **SMALL).fit(X)
    vdm = VDMDRE(epochs=1, **SMALL).fit(X, labels % 2 == 0)
    clf = LabelClassifier(epochs=1, **SMALL).fit(X, labels)
    return X, labels, gan, vdm, clf


class Counting:
    """A model whose ``sample`` calls are counted (the work Alg. 1 does)."""

    def __init__(self, model):
        self.model, self.calls, self.points = model, 0, 0

    def sample(self, m, *, rng):
        self.calls += 1
        self.points += m
        return self.model.sample(m, rng=rng)

    def __sklearn_is_fitted__(self):
        return True


class Shifted:
    """A DRE whose log ratio is the VDM's minus ``shift``: ρ̂_ℰ nearly 0 where the GAN puts its mass."""

    def __init__(self, dre, shift):
        self.dre, self.shift = dre, shift

    def log_ratio(self, Y):
        return self.dre.log_ratio(Y) - self.shift

    def __sklearn_is_fitted__(self):
        return True


# ------------------------------------------------------------------------------------------
# Alg. 1 with a GAN: the cost before the work, and three causes told apart

#: The phrase of each cause; every message of Alg. 1 about its bound or limit names exactly one.
CAUSES = {"B too small": r"B is too small", "B too large": r"B is (far )?too large",
          "max_proposals too small": r"max_proposals(=\d+)? is too small"}


def causes(message):
    return [cause for cause, pattern in CAUSES.items() if re.search(pattern, message)]


def test_a_bound_that_needs_more_proposals_than_the_limit_is_refused_before_sampling(models):
    _, _, gan, vdm, _ = models
    model = Counting(gan)
    with pytest.raises(ValueError, match=r"m \* B = 1e\+07 proposals") as info:
        ApproximateDeletion(model, vdm, bound=1e6).sample(10, rng=0)
    assert model.points <= deletion_module.PILOT_SIZE  # only the message's look at the ratios
    assert causes(str(info.value)) == ["B too large"]
    assert re.search(r"largest ratio .* is [\d.]+, far below B=1e\+06", str(info.value))


def test_a_run_longer_than_max_seconds_is_refused_after_a_pilot_batch_only(models):
    _, _, gan, vdm, _ = models
    model = Counting(gan)
    t0 = time.perf_counter()
    with pytest.raises(ValueError, match=r"would take about [\d.]+ (s|min|h|days|years) .*max_seconds=1\b") as info:
        ApproximateDeletion(model, vdm, bound=1e6, max_seconds=1.0).sample(5, rng=0)  # m B = 5e6: within the limit
    assert time.perf_counter() - t0 < 30
    assert model.points <= 2 * deletion_module.PILOT_SIZE  # the pilot (and the message's look at it)
    assert causes(str(info.value)) == ["B too large"]
    assert re.search(r"largest ratio .* is [\d.]+", str(info.value))


def test_a_run_too_long_for_a_sound_bound_asks_for_fewer_samples_not_another_bound(models):
    _, _, gan, vdm, _ = models
    with pytest.raises(ValueError, match=r"would take about .*fewer samples") as info:
        ApproximateDeletion(gan, vdm, bound=10, max_seconds=1e-3).sample(20_000, rng=0)
    assert causes(str(info.value)) == []


def test_b_too_small_is_reported_as_such(models):
    X, _, gan, vdm, _ = models
    assert (vdm.log_ratio(gan.sample(256, rng=0)) > 0).any()  # ρ̂_ℰ exceeds 1 somewhere
    with pytest.warns(RuntimeWarning) as caught:
        Y = ApproximateDeletion(gan, vdm, bound=1.0).sample(20, rng=0)
    assert Y.shape == (20, 1, 28, 28)
    (message,) = [str(w.message) for w in caught if "exceeded" in str(w.message)]
    assert causes(message) == ["B too small"]


def test_a_dre_near_zero_stops_at_the_limit_as_b_too_large(models):
    _, _, gan, vdm, _ = models
    with pytest.raises(RuntimeError, match="stopped after 2000 proposals") as info:
        ApproximateDeletion(gan, Shifted(vdm, 30.0), bound=10, max_proposals=2000).sample(10, rng=0)
    assert causes(str(info.value)) == ["B too large"]


@pytest.mark.parametrize("m, max_proposals, when", [(10, 5, "before"), (100, 500, "at the limit")])
def test_max_proposals_too_small_is_reported_as_such(models, m, max_proposals, when):
    _, _, gan, vdm, _ = models
    model = Counting(gan)
    error = ValueError if when == "before" else RuntimeError
    with pytest.raises(error) as info:
        ApproximateDeletion(model, vdm, bound=10, max_proposals=max_proposals).sample(m, rng=0)
    assert causes(str(info.value)) == ["max_proposals too small"]
    assert (model.calls == 0) == (when == "before")


def test_set_params_with_a_bad_bound_raises_and_keeps_the_old_bound(models):
    _, _, gan, vdm, _ = models
    sampler = ApproximateDeletion(gan, vdm, bound=10)
    with pytest.raises(ValueError, match="bound must be a finite number > 0; got -1"):
        sampler.set_params(bound=-1)
    assert sampler.bound == 10 and sampler.bound_ == 10
    assert sampler.sample(3, rng=0).shape == (3, 1, 28, 28)


def test_a_long_sampling_run_shows_progress(models, monkeypatch):
    _, _, gan, vdm, _ = models
    code_fingerprint()  # computed with the true constants before they are changed here
    bars = []
    import gendel._progress

    real = gendel._progress.progress_bar

    def recording(*args, **kwargs):
        bars.append(kwargs.get("desc"))
        return real(*args, **kwargs)

    monkeypatch.setattr(gendel._progress, "progress_bar", recording)
    monkeypatch.setattr(deletion_module, "PILOT_FROM", 10)
    monkeypatch.setattr(deletion_module, "PROGRESS_FROM_SECONDS", 0.0)  # every estimated run is "long"
    ApproximateDeletion(gan, vdm, bound=10).sample(5, rng=0)
    assert bars == ["Alg. 1 (rejection sampling)"]
    monkeypatch.setattr(deletion_module, "PROGRESS_FROM_SECONDS", 1e9)
    ApproximateDeletion(gan, vdm, bound=10).sample(5, rng=0)
    assert len(bars) == 1  # a short run shows none


def test_negative_seeds_and_empty_requests_name_their_argument(models):
    _, _, gan, vdm, _ = models
    sampler = ApproximateDeletion(gan, vdm, bound=10)
    with pytest.raises(ValueError, match=r"^rng must be .* non-negative int seed; got -1"):
        sampler.sample(3, rng=-1)
    with pytest.raises(ValueError, match="^m must be at least 1; got 0"):
        sampler.sample(0, rng=0)


# ------------------------------------------------------------------------------------------
# The estimators' arguments: one message naming the argument, before any work

INPUT_CASES = {
    "score with one label for 40 images": (lambda X, y, gan, vdm, clf: clf.score(X[:40], y[:1]),
                                           ValueError, r"labels must be integers 0\.\.9 of shape \(40,\)"),
    "score with float labels": (lambda X, y, gan, vdm, clf: clf.score(X[:40], y[:40].astype(float)),
                                ValueError, r"labels must be integers.*float64"),
    "classifier fit with label 10": (lambda X, y, gan, vdm, clf: LabelClassifier(epochs=1, **SMALL).fit(X, y + 1),
                                     ValueError, r"labels must lie in 0\.\.9"),
    "classifier on vectors": (lambda X, y, gan, vdm, clf: clf.predict(np.zeros((3, 784))),
                              ValueError, r"images must have shape \(n, 1, 28, 28\)"),
    "sample with batch_size -1": (lambda X, y, gan, vdm, clf: gan.sample(10, rng=0, batch_size=-1),
                                  ValueError, r"^batch_size must be at least 1; got -1"),
    "sample -1 images": (lambda X, y, gan, vdm, clf: gan.sample(-1, rng=0), ValueError, r"^m must be at least 0"),
    "sample 2.5 images": (lambda X, y, gan, vdm, clf: gan.sample(2.5, rng=0), TypeError, r"^m must be an integer"),
    "sample with rng -1": (lambda X, y, gan, vdm, clf: gan.sample(3, rng=-1), ValueError, r"^rng must be"),
    "sample with rng None": (lambda X, y, gan, vdm, clf: gan.sample(3, rng=None), TypeError, r"^rng must be"),
    "DCGAN seed -1": (lambda X, y, gan, vdm, clf: DCGAN(epochs=1, seed=-1, **SMALL).fit(X),
                      ValueError, r"^seed must be at least 0"),
    "VDM seed -1": (lambda X, y, gan, vdm, clf: VDMDRE(epochs=1, seed=-1, **SMALL).fit(X, y % 2 == 0),
                    ValueError, r"^seed must be at least 0"),
    "classifier seed -1": (lambda X, y, gan, vdm, clf: LabelClassifier(epochs=1, seed=-1, **SMALL).fit(X, y),
                           ValueError, r"^seed must be at least 0"),
    "VDM fit on images without their channel": (
        lambda X, y, gan, vdm, clf: VDMDRE(epochs=1, **SMALL).fit(X[:, 0], y % 2 == 0),
        ValueError, r"X must be images of shape \(n, 1, 28, 28\).*got an array of shape \(48, 28, 28\)"),
    "VDM of images asked about vectors": (lambda X, y, gan, vdm, clf: vdm.log_ratio(np.zeros((3, 784))),
                                          ValueError, r"Y must have shape \(n, 1, 28, 28\)"),
    "VDM with a mask of another length": (lambda X, y, gan, vdm, clf: VDMDRE(epochs=1, **SMALL).fit(X, [True] * 3),
                                          ValueError, r"deletion mask must have shape \(48,\)"),
    "DCGAN at epoch 0": (lambda X, y, gan, vdm, clf: gan.at_epoch(0), ValueError, r"no snapshot after epoch 0"),
    "VDM at epoch 99": (lambda X, y, gan, vdm, clf: vdm.at_epoch(99), ValueError, r"no snapshot after epoch 99"),
    "DCGAN raw pixels": (lambda X, y, gan, vdm, clf: DCGAN(epochs=1, **SMALL).fit(np.round((X + 1) * 127.5)),
                         ValueError, r"scaled to \[-1, 1\]"),
}


@pytest.mark.parametrize("case", list(INPUT_CASES))
def test_bad_arguments_are_refused_with_their_name(models, case):
    call, error, pattern = INPUT_CASES[case]
    X, y, gan, vdm, clf = models
    with pytest.raises(error, match=pattern):
        call(X, y, gan, vdm, clf)


@pytest.fixture
def no_training(monkeypatch):
    """Every training loop replaced by a failure: what must be found before training is."""
    def train(**kwargs):
        raise AssertionError("training started")

    for module in ("dcgan", "vdm", "classifier"):
        monkeypatch.setattr(f"gendel.gan.{module}.run_epochs", train)


@pytest.mark.parametrize("device", ["mps", "tpu", "", "cuda:x", "cpu:0", 3, torch.device("meta")])
@pytest.mark.parametrize("estimator", [DCGAN, VDMDRE, LabelClassifier])
def test_unknown_devices_are_refused_before_training(models, estimator, device, no_training):
    X, y, *_ = models
    args = (X, y % 2 == 0) if estimator is VDMDRE else (X, y) if estimator is LabelClassifier else (X,)
    with pytest.raises((ValueError, TypeError), match=r"^device must be .*use 'cpu', 'cuda' or 'cuda:<index>'"):
        estimator(epochs=1, device=device, **SMALL).fit(*args)


@pytest.mark.skipif(torch.cuda.is_available(), reason="needs a machine without CUDA")
def test_cuda_without_a_gpu_is_refused_before_training(models):
    X, *_ = models
    with pytest.raises(ValueError, match=r"device='cuda' was asked for but torch sees no CUDA GPU"):
        DCGAN(epochs=1, device="cuda", **SMALL).fit(X)


def test_device_names_in_capitals_or_with_spaces_are_read(models):
    X, *_ = models
    assert DCGAN(epochs=1, device=" CPU ", latent_dim=8, **SMALL).fit(X).device_ == torch.device("cpu")


@pytest.mark.parametrize("folder", [True, 0, "", 1.5])
def test_checkpoint_dir_that_is_not_a_folder_is_refused(models, folder):
    X, *_ = models
    with pytest.raises(TypeError, match=r"^checkpoint_dir must be a folder .*got " + re.escape(repr(folder))):
        DCGAN(epochs=1, **(SMALL | {"checkpoint_dir": folder})).fit(X)


@pytest.mark.parametrize("divergence", ["kl", "js"])
def test_a_diverged_vdm_training_is_reported(models, divergence):
    X, y, *_ = models
    with pytest.warns(RuntimeWarning, match=r"the VDM training diverged.*smaller learning rate"):
        VDMDRE(divergence=divergence, epochs=2, lr=1e3, **SMALL).fit(X, y % 2 == 0)


@pytest.mark.parametrize("divergence", ["kl", "js"])
def test_a_sound_vdm_training_is_not_reported(models, divergence):
    X, y, *_ = models
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        VDMDRE(divergence=divergence, epochs=2, **SMALL).fit(X, y % 2 == 0)


# ------------------------------------------------------------------------------------------
# Checkpoints: what does not match its training is reported and trained again

CONFIG = dict(epochs=2, width=4, latent_dim=8, batch_size=16, progress=False)


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """A DCGAN training with its checkpoint, and what a fresh training gives."""
    torch.set_num_threads(1)
    X = made_up_images(32)
    folder = tmp_path_factory.mktemp("reference")
    gan = DCGAN(checkpoint_dir=folder, **CONFIG).fit(X)
    vdm = VDMDRE(epochs=2, width=4, batch_size=16, checkpoint_dir=folder, progress=False).fit(X, np.arange(32) < 8)
    wider = DCGAN(checkpoint_dir=folder, **(CONFIG | {"width": 8})).fit(X)
    return {"X": X, "gan": gan, "path": folder / f"{gan.key_}.pt", "vdm": folder / f"{vdm.key_}.pt",
            "wider": folder / f"{wider.key_}.pt", "samples": gan.sample(8, rng=0)}


def rewrite(change):
    def damage(path, ref):
        state = torch.load(ref["path"], weights_only=True)
        change(state)
        torch.save(state, path)
    return damage


def flip(offset):
    """Flip the bits of one byte ``offset`` bytes into the tensors' data."""
    def damage(path, ref):
        raw = bytearray(ref["path"].read_bytes())
        at = raw.index(b"data/0") + 200 + offset  # past the pickled record, into the weights
        raw[at] ^= 0xFF
        path.write_bytes(bytes(raw))
    return damage


CHECKPOINT_DAMAGE = {
    "a dict with an epoch only": lambda path, ref: torch.save({"epoch": 1}, path),
    "a list": lambda path, ref: torch.save([1, 2], path),
    "a VDM checkpoint under the DCGAN's key": lambda path, ref: shutil.copy(ref["vdm"], path),
    "a wider DCGAN under this one's key": lambda path, ref: shutil.copy(ref["wider"], path),
    "flipped bytes in the weights": flip(0),
    "flipped bytes further in": flip(5000),
    "truncated": lambda path, ref: path.write_bytes(ref["path"].read_bytes()[:3000]),
    "empty": lambda path, ref: path.write_bytes(b""),
    "seconds as text": rewrite(lambda s: s.update(seconds="x")),
    "epoch times as text": rewrite(lambda s: s.update(epoch_seconds=["a", "b"])),
    "loss rows as text": rewrite(lambda s: s.update(history=["ab", "cd"])),
    "loss names that do not fit the rows": rewrite(lambda s: s.update(loss_names=["x"])),
    "hardware as text": rewrite(lambda s: s.update(hardware="x")),
    "a changed training time": rewrite(lambda s: s.update(seconds=s["seconds"] + 100.0)),
    "a changed loss": rewrite(lambda s: s["history"][0].__setitem__(0, 0.5)),
    "a random stream of another kind": rewrite(lambda s: s.update(generator=torch.zeros(3))),
    "no snapshots": rewrite(lambda s: s.update(snapshots={})),
    "a checksum as text": rewrite(lambda s: s.update(checksum="x")),
    "epoch True": rewrite(lambda s: s.update(epoch=True)),
}


@pytest.mark.parametrize("damage", list(CHECKPOINT_DAMAGE))
def test_a_checkpoint_that_does_not_match_is_reported_and_trained_again(reference, tmp_path, damage):
    path = tmp_path / reference["path"].name
    CHECKPOINT_DAMAGE[damage](path, reference)
    with pytest.warns(RuntimeWarning, match=re.escape(str(path)) + r".*training again"):
        gan = DCGAN(checkpoint_dir=tmp_path, **CONFIG).fit(reference["X"])
    original = reference["gan"]
    assert np.array_equal(gan.sample(8, rng=0), reference["samples"])  # what a fresh training gives
    assert gan.history_ == original.history_
    assert gan.at_epoch(1).sample(2, rng=0).shape == (2, 1, 28, 28)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        again = DCGAN(checkpoint_dir=tmp_path, **CONFIG).fit(reference["X"])  # the new one is sound
    assert again.fit_seconds_ == gan.fit_seconds_
    assert sorted(p.name for p in tmp_path.iterdir()) == [path.name]


@pytest.mark.parametrize("seed", range(12))
def test_a_byte_flipped_anywhere_never_crashes_nor_changes_the_training(reference, tmp_path, seed):
    raw = bytearray(reference["path"].read_bytes())
    raw[np.random.default_rng(seed).integers(len(raw))] ^= 0xFF
    path = tmp_path / reference["path"].name
    path.write_bytes(bytes(raw))
    original = reference["gan"]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        gan = DCGAN(checkpoint_dir=tmp_path, **CONFIG).fit(reference["X"])
    assert np.array_equal(gan.sample(8, rng=0), reference["samples"])
    assert gan.history_ == original.history_
    if not [w for w in caught if "training again" in str(w.message)]:  # read as sound: exactly the original
        assert (gan.fit_seconds_, gan.epoch_seconds_, gan.hardware_) == \
            (original.fit_seconds_, original.epoch_seconds_, original.hardware_)


def test_a_folder_in_place_of_a_checkpoint_is_refused_before_training(reference, tmp_path, monkeypatch):
    (tmp_path / reference["path"].name).mkdir()
    epochs = []
    real = training.batches
    monkeypatch.setattr("gendel.gan.dcgan.batches", lambda *a, **k: epochs.append(1) or real(*a, **k))
    with pytest.raises(IsADirectoryError, match=re.escape(str(tmp_path / reference["path"].name)) + ".*is a folder"):
        DCGAN(checkpoint_dir=tmp_path, **CONFIG).fit(reference["X"])
    assert epochs == []


def test_the_thread_count_is_part_of_a_cpu_training_key():
    cpu = torch.device("cpu")
    before = torch.get_num_threads()
    try:
        torch.set_num_threads(1)
        one = checkpoints.config_key("dcgan", {"width": 8}, cpu)
        torch.set_num_threads(2)
        two = checkpoints.config_key("dcgan", {"width": 8}, cpu)
    finally:
        torch.set_num_threads(before)
    assert one != two


# ------------------------------------------------------------------------------------------
# A process killed while it writes: nothing is left behind for good

_KILLED_SAVE = """
import sys, time
import numpy as np, torch
torch.set_num_threads(1)
real = torch.save

def save_and_hang(obj, f):          # the whole checkpoint is in the temporary file; then SIGKILL
    real(obj, f)
    f.flush()
    print("saving", flush=True)
    time.sleep(600)

torch.save = save_and_hang
from gendel.gan.dcgan import DCGAN
X = np.random.default_rng(0).uniform(-1, 1, (32, 1, 28, 28)).astype(np.float32)
DCGAN(checkpoint_dir=sys.argv[1], epochs=2, width=4, latent_dim=8, batch_size=16, progress=False).fit(X)
"""

_KILLED_RESULT = """
import sys, time
import numpy as np
from gendel.gan.result_files import load_result, write_result
result = load_result(sys.argv[1])
real = np.savez_compressed

def save_and_hang(f, **arrays):     # the arrays are in the temporary file; then SIGKILL
    real(f, **arrays)
    f.flush()
    print("saving", flush=True)
    time.sleep(600)

np.savez_compressed = save_and_hang
write_result(result, sys.argv[2])
"""


def kill_while_saving(script, *args):
    """Run ``script`` in a fresh process and SIGKILL it once it says it is saving."""
    env = {**os.environ, "PYTHONPATH": f"{REPO}{os.pathsep}{os.environ.get('PYTHONPATH', '')}",
           "OMP_NUM_THREADS": "1", "TQDM_DISABLE": "1"}
    proc = subprocess.Popen([sys.executable, "-c", script, *map(str, args)], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline()
        assert line.strip() == "saving", proc.stderr.read()[-3000:]
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=60)
        proc.stdout.close()
        proc.stderr.close()
    assert proc.returncode == -signal.SIGKILL


def temporaries(folder):
    return sorted(p.name for p in Path(folder).iterdir() if p.name.endswith(".tmp"))


def test_a_training_killed_during_a_checkpoint_save_leaves_no_temporary_file(tmp_path):
    kill_while_saving(_KILLED_SAVE, tmp_path)
    assert len(temporaries(tmp_path)) == 1 and not list(tmp_path.glob("*.pt"))  # what the kill left
    X = made_up_images(32)
    gan = DCGAN(checkpoint_dir=tmp_path, **CONFIG).fit(X)
    assert temporaries(tmp_path) == [] and [p.name for p in tmp_path.iterdir()] == [f"{gan.key_}.pt"]
    fresh = DCGAN(checkpoint_dir=False, **CONFIG).fit(X)
    assert np.array_equal(gan.sample(8, rng=0), fresh.sample(8, rng=0))


# ------------------------------------------------------------------------------------------
# Result files: what is not a complete result of its job is not done, for `run` and `grid` alike


def write_made_up_data(root, n_train=300, n_test=100):
    """MNIST-shaped IDX files of made-up images (``make data`` fetches the real ones)."""
    g = np.random.default_rng(1)
    folder = Path(root) / "mnist"
    folder.mkdir(parents=True, exist_ok=True)
    for split, n in (("train", n_train), ("test", n_test)):
        if n:
            write_idx(folder / FILES[split][0], g.integers(0, 256, (n, 28, 28), dtype=np.uint8))
            write_idx(folder / FILES[split][1], (np.arange(n) % 10).astype(np.uint8))
    return Path(root)


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    return write_made_up_data(tmp_path_factory.mktemp("data"))


@pytest.fixture(scope="module")
def made(tmp_path_factory, data):
    """The result files of both jobs of the tiny profile, made from made-up images."""
    base = tmp_path_factory.mktemp("made")
    folder = base / "results"  # and its checkpoints in base / "cache"
    torch.set_num_threads(1)
    with mock.patch.dict(os.environ, {"GENDEL_CACHE_DIR": str(base / "cache")}):
        for job in jobs("tiny"):
            run_job(job, folder, device="cpu", progress=False, data_root=data)
    return folder


@pytest.fixture(autouse=True)
def _made_up_data_is_todays(request, monkeypatch):
    """Where a test uses the results made from made-up images, those images are this machine's
    data (``done`` compares a result's training images with the data found here)."""
    if "made" in request.fixturenames:
        monkeypatch.setenv("GENDEL_DATA_DIR", str(request.getfixturevalue("data")))


def copy_result(source, job, folder):
    for suffix in (".json", ".npz"):
        shutil.copy(result_path(job, source).with_suffix(suffix), result_path(job, folder).with_suffix(suffix))
    return result_path(job, folder)


def edit_json(change):
    def damage(path):
        d = json.loads(path.read_text())
        change(d)
        path.write_text(json.dumps(d))
    return damage


def rewrite_json(change):
    """Change a result's JSON part and write it back the way gendel writes results (with a new
    checksum): another result, not a damaged one."""
    from gendel.gan.result_files import read_arrays, write_record

    def rewrite(path):
        d = json.loads(path.read_text())
        change(d)
        write_record(d, read_arrays(path, str(path)), path, arrays_written=True)
    return rewrite


def edit_arrays(change, checksum=False):
    """Change the arrays file; without ``checksum`` the JSON file loses its checksum of the arrays too
    (as a file written before results had one), so the checks of the arrays themselves must see it."""
    def damage(path):
        npz = path.with_suffix(".npz")
        with np.load(npz) as f:
            arrays = {k: f[k] for k in f.files}
        change(arrays)
        with open(npz, "wb") as f:
            np.savez(f, **arrays)
        if not checksum:
            edit_json(lambda d: d.pop("arrays_checksum", None))(path)
    return damage


RESULT_DAMAGE = {
    "another job's result": None,  # set up in the test
    "another job's arrays file": None,
    "another profile's settings": edit_json(lambda d: d["profile"].update(m_labels=100)),
    "an empty object": lambda path: path.write_text("{}"),
    "a list": lambda path: path.write_text("[]"),
    "truncated": lambda path: path.write_text(path.read_text()[:500]),
    "not text": lambda path: path.write_bytes(b"\xff\xfe\x00"),
    "a folder": lambda path: (path.unlink(), path.mkdir()),
    "format version 3": edit_json(lambda d: d.update(version=3)),
    "format version as text": edit_json(lambda d: d.update(version="2")),
    "no timings": edit_json(lambda d: d.pop("timings")),
    "timings as text": edit_json(lambda d: d.update(timings="x")),
    "labels as text": edit_json(lambda d: d.update(labels="x")),
    "labels as a list": edit_json(lambda d: d.update(labels=[1, 2])),
    "label counts with another sum": edit_json(lambda d: d["labels"].update(pre=[1] * 10)),
    "the profile as a list": edit_json(lambda d: d.update(profile=[1])),
    "the provenance as a list": edit_json(lambda d: d.update(provenance=[1])),
    "Q3 as text": edit_json(lambda d: d.update(q3="x")),
    "Q3 without R": edit_json(lambda d: d["q3"].pop("R")),
    "Q3 without its statistics": edit_json(lambda d: d["q3"].pop("statistics")),
    "Q3 with a statistic missing": edit_json(lambda d: d["q3"]["statistics"].pop("lr")),
    "Q3 values of another length": edit_json(lambda d: d["q3"]["statistics"]["lr"].update(h1=[0.0])),
    "the job as text": edit_json(lambda d: d.update(job="x")),
    "λ as text": edit_json(lambda d: d["job"].update(lam="abc")),
    "sampling as null": edit_json(lambda d: d.update(sampling=None)),
    "sampling without its acceptance rate": edit_json(lambda d: d["sampling"].pop("acceptance_rate")),
    "the data record as null": edit_json(lambda d: d.update(data=None)),
    "the classifier record as text": edit_json(lambda d: d.update(classifier="x")),
    "curves as text": edit_json(lambda d: d.update(curves="x")),
    "losses as text": edit_json(lambda d: d.update(losses="x")),
    "no arrays file": lambda path: path.with_suffix(".npz").unlink(),
    "a torn arrays file": lambda path: path.with_suffix(".npz").write_bytes(b"PK\x03\x04junk"),
    "an array missing": edit_arrays(lambda a: a.pop("scores_h1")),
    "Q3 scores of another shape": edit_arrays(lambda a: a.update(scores_h1=a["scores_h1"][:1])),
    "a sample grid of another shape": edit_arrays(lambda a: a.update(grid_pre=a["grid_pre"][:1])),
    "labels as text in the arrays": edit_arrays(lambda a: a.update(pre_labels=a["pre_labels"].astype(str))),
    "changed Q3 scores": edit_arrays(lambda a: a["scores_h1"].__setitem__((0, 0), 9.0), checksum=True),
}


class Trained(Exception):
    """Stands in for the training of a job that runs again."""


@pytest.mark.parametrize("damage", list(RESULT_DAMAGE))
def test_a_result_that_is_not_a_complete_result_of_its_job_is_not_done(made, tmp_path, damage, monkeypatch):
    job, other = jobs("tiny")
    if damage.startswith("another job's"):
        path = result_path(job, tmp_path)
        copy_result(made, job, tmp_path)
        for suffix in (".json", ".npz") if damage == "another job's result" else (".npz",):
            shutil.copy(result_path(other, made).with_suffix(suffix), path.with_suffix(suffix))
    else:
        path = copy_result(made, job, tmp_path)
        RESULT_DAMAGE[damage](path)
    copy_result(made, other, tmp_path)
    name = re.escape(str(path.with_suffix("")))
    with pytest.raises(DamagedResult, match=name):
        load_result(path, job)
    with pytest.raises(DamagedResult, match=name):
        load_results("tiny", tmp_path)
    with pytest.warns(CacheWarning, match=name):
        assert done(path, job) is None
    with pytest.warns(CacheWarning, match=name):
        assert [j.name for j in grid.todo("tiny", tmp_path)] == [job.name]  # grid runs it again

    def make_result(*args, **kwargs):
        raise Trained

    monkeypatch.setattr(run_module, "make_result", make_result)
    with pytest.warns(CacheWarning, match=name), pytest.raises(Trained):  # and so does run
        run_job(job, tmp_path, device="cpu", progress=False)


def test_an_intact_result_is_done_for_run_and_grid(made, tmp_path, monkeypatch):
    for job in jobs("tiny"):
        copy_result(made, job, tmp_path)
    monkeypatch.setattr(run_module, "make_result", lambda *a, **k: pytest.fail("a done job was trained again"))
    with warnings.catch_warnings():
        warnings.simplefilter("error", CacheWarning)
        assert grid.todo("tiny", tmp_path) == []
        result = run_job(jobs("tiny")[0], tmp_path, device="cpu", progress=False)
    assert result.name == jobs("tiny")[0].name and result.fingerprint == code_fingerprint()


def test_a_result_of_other_code_is_not_done_but_still_readable(made, tmp_path):
    job = jobs("tiny")[0]
    path = copy_result(made, job, tmp_path)
    rewrite_json(lambda d: d["provenance"].update(fingerprint="0" * 16))(path)
    assert load_result(path, job).fingerprint == "0" * 16  # a result, made by other code
    with pytest.warns(CacheWarning, match=r"made by other code \(fingerprint 0{16}"):
        assert done(path, job) is None
    with pytest.warns(CacheWarning, match="made by other code"):
        assert [j.name for j in grid.todo("tiny", tmp_path)] == [j.name for j in jobs("tiny")]


def test_a_result_write_killed_midway_leaves_no_temporary_file(made, tmp_path):
    job = jobs("tiny")[0]
    kill_while_saving(_KILLED_RESULT, result_path(job, made), result_path(job, tmp_path))
    assert len(temporaries(tmp_path)) == 1  # what the kill left
    with pytest.raises(FileNotFoundError):
        load_result(result_path(job, tmp_path))
    assert [j.name for j in grid.todo("tiny", tmp_path)] == [j.name for j in jobs("tiny")]  # the next grid
    assert temporaries(tmp_path) == []


def test_a_result_whose_writer_is_alive_keeps_its_temporary_file(made, tmp_path):
    job = jobs("tiny")[0]
    mine = tmp_path / f".{job.name}.npz.{os.getpid()}.abc.tmp"  # this process is writing it
    mine.write_bytes(b"half")
    grid.todo("tiny", tmp_path)
    assert temporaries(tmp_path) == [mine.name]


def test_write_result_replaces_a_result_whole(made, tmp_path):
    job = jobs("tiny")[0]
    result = load_result(result_path(job, made), job)
    write_result(result, result_path(job, tmp_path))
    assert load_result(result_path(job, tmp_path), job).to_dict() == result.to_dict()
    assert temporaries(tmp_path) == []


# ------------------------------------------------------------------------------------------
# Jobs from Python: a bad job, device or folder is refused before any training

JOB_CASES = {
    "a job name instead of a job": (lambda tmp: run_job("mnist-even-0.7-seed0", tmp), TypeError,
                                    r"job must be a Job \(e\.g\. gendel\.gan\.profiles\.find_job\('quick'"),
    "a job of another data set": (lambda tmp: run_job(Job("tiny", "cifar10", "even", 0.7, 0), tmp), ValueError,
                                  r"not a job of §5\.2"),
    "an unknown device": (lambda tmp: run_job(jobs("tiny")[0], tmp, device="tpu"), ValueError, r"^device must be"),
    "a results folder that is a file": (lambda tmp: run_job(jobs("tiny")[0], tmp / "a-file", device="cpu"),
                                        NotADirectoryError, r"is a file; give a folder"),
}


def test_an_unknown_device_is_refused_when_the_job_is_done_too(tmp_path, monkeypatch):
    """A done job is returned without computing anything, but not for a device that does not exist:
    the paper grid's job and the baselines grid's alike."""
    from gendel.gan import baseline_results as B
    from gendel.gan import run as run_module
    from gendel.gan.baselines import find_baseline_job
    from gendel.gan.result_files import STORED_RESULTS

    def computed(*args, **kwargs):
        raise AssertionError("computed a done job")

    monkeypatch.setattr(run_module, "make_result", computed)
    monkeypatch.setattr(B, "make_baseline_result", computed)
    cases = [(jobs("tiny")[0], STORED_RESULTS / "tiny", run_job),
             (find_baseline_job("quick", "mnist-even-0.7-seed0"), B.stored_dir("quick"), B.run_baseline_job)]
    for job, stored, run in cases:
        folder = tmp_path / job.profile
        folder.mkdir()
        for suffix in (".json", ".npz"):
            shutil.copy2(stored / f"{job.name}{suffix}", folder)
        assert run(job, folder, device="cpu") is not None  # done: returned as it is
        with pytest.raises(ValueError, match=r"^device must be a CPU or CUDA device; got 'tpu'"):
            run(job, folder, device="tpu")


@pytest.mark.parametrize("case", list(JOB_CASES))
def test_a_bad_job_is_refused_before_training(case, tmp_path, no_training):
    (tmp_path / "a-file").write_text("x")
    call, error, pattern = JOB_CASES[case]
    with pytest.raises(error, match=pattern):
        call(tmp_path)


@pytest.mark.parametrize("bound", [0.01, 0.999, float("nan"), True, "10"])
def test_a_profile_with_a_bound_below_one_is_refused_when_made(bound):
    with pytest.raises(ValueError, match=r"^bound must be at least 1 .*got " + re.escape(repr(bound))):
        dataclasses.replace(PROFILES["tiny"], bound=bound)


# ------------------------------------------------------------------------------------------
# Data files: a missing split is found before any training


def test_run_job_without_the_test_split_fails_before_training(tmp_path, monkeypatch, no_training):
    root = write_made_up_data(tmp_path / "data", n_test=0)
    monkeypatch.setitem(sys.modules, "torchvision", None)
    with pytest.raises(FileNotFoundError, match=r"t10k-images-idx3-ubyte.*make data"):
        run_job(jobs("tiny")[0], tmp_path / "results", device="cpu", progress=False, data_root=root)


# ------------------------------------------------------------------------------------------
# The command line: a user's mistake in one line, exit status 2, before any work


@pytest.fixture
def no_work(monkeypatch, data):
    """The command line with its work replaced by a failure: a mistake must be found before it."""
    def work(*args, **kwargs):
        raise AssertionError("work started")

    monkeypatch.setattr(cli, "run_job", work)
    monkeypatch.setattr(grid, "local_grid", work)
    monkeypatch.setattr(grid, "slurm_grid", work)
    monkeypatch.setattr(grid, "_shared_task", work)
    monkeypatch.setenv("GENDEL_DATA_DIR", str(data))
    monkeypatch.setitem(sys.modules, "torchvision", None)
    return work


def one_line_error(argv, capsys):
    """Run the command line; return its one line on stderr (the test fails on anything else)."""
    with pytest.raises(SystemExit) as info:
        cli.main(argv)
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if line.strip()]
    assert info.value.code == 2, err
    assert len(lines) == 1, err
    assert re.match(r"python -m gendel\.gan( \w+)?: error: ", lines[0]), err
    return lines[0]


JOB = "mnist-even-0.7-seed0"
CLI_CASES = {
    "--device tpu": (["run", "--profile", "tiny", JOB, "--device", "tpu"], r"--device.*'tpu'.*use 'cpu'"),
    "--device mps (grid)": (["grid", "--profile", "tiny", "--device", "mps"], r"--device.*'mps'"),
    "--device ''": (["run", "--profile", "tiny", JOB, "--device", ""], r"--device.*''"),
    "--parallel 0": (["grid", "--profile", "tiny", "--parallel", "0"], r"--parallel: must be at least 1; got 0"),
    "--parallel -1": (["grid", "--profile", "tiny", "--parallel", "-1"], r"--parallel: must be at least 1; got -1"),
    "--parallel two": (["grid", "--profile", "tiny", "--parallel", "two"], r"--parallel: must be a whole number"),
    "--threads 0": (["grid", "--profile", "tiny", "--threads", "0"], r"--threads: must be at least 1"),
    "--timeout-min 0": (["grid", "--profile", "tiny", "--executor", "slurm", "--timeout-min", "0"],
                        r"--timeout-min: must be at least 1"),
    "--cpus 0": (["grid", "--profile", "tiny", "--executor", "slurm", "--cpus", "0"], r"--cpus: must be at least 1"),
    "--gpus -1": (["grid", "--profile", "tiny", "--executor", "slurm", "--gpus", "-1"],
                  r"--gpus: must be at least 0; got -1"),
    "--executor slurm without SLURM": (["grid", "--profile", "tiny", "--executor", "slurm"],
                                       r"--executor slurm needs a SLURM cluster.*use --executor local"),
    "--partition without slurm": (["grid", "--profile", "tiny", "--partition", "gpu"],
                                  r"--partition.*--executor slurm"),
    "--gpus without slurm": (["grid", "--profile", "tiny", "--gpus", "1"], r"--gpus.*--executor slurm"),
    "--logs without slurm": (["grid", "--profile", "tiny", "--logs", "logs"], r"--logs.*--executor slurm"),
    "--timeout-min without slurm": (["grid", "--profile", "tiny", "--timeout-min", "10"],
                                    r"--timeout-min.*--executor slurm"),
    "--store and --results": (["grid", "--profile", "tiny", "--store", "--results", "r"], r"--store.*--results"),
    "an unknown job": (["run", "--profile", "tiny", "mnist-even-0.5-seed7"],
                       r"no job 'mnist-even-0.5-seed7'.*python -m gendel.gan list --profile tiny"),
    "--lam 2": (["run", "--profile", "tiny", "--dataset", "mnist", "--setting", "even", "--lam", "2", "--seed", "0"],
                r"no job 'mnist-even-2-seed0'"),
    "--seed -1": (["run", "--profile", "tiny", "--dataset", "mnist", "--setting", "even", "--lam", "0.7", "--seed",
                   "-1"], r"no job 'mnist-even-0.7-seed-1'"),
    "settings half given": (["run", "--profile", "tiny", "--dataset", "mnist"], r"missing --setting --lam --seed"),
    "a job and settings": (["run", "--profile", "tiny", JOB, "--dataset", "mnist"], r"either a job name or"),
    "an unknown profile": (["list", "--profile", "huge"], r"--profile: invalid choice: 'huge'"),
    "an unknown option": (["run", "--profile", "tiny", JOB, "--parallel", "2"], r"unrecognized arguments: --parallel"),
}


@pytest.mark.parametrize("case", list(CLI_CASES))
def test_a_mistake_on_the_command_line_is_one_line_before_any_work(case, no_work, capsys):
    argv, pattern = CLI_CASES[case]
    assert re.search(pattern, one_line_error(argv, capsys))


def test_no_command_is_one_line(no_work, capsys):
    with pytest.raises(SystemExit) as info:
        cli.main([])
    lines = [line for line in capsys.readouterr().err.splitlines() if line.strip()]
    assert info.value.code == 2 and len(lines) == 1 and "required: command" in lines[0]


@pytest.mark.parametrize("command", [["run", "--profile", "tiny", JOB], ["grid", "--profile", "tiny"]])
def test_results_pointing_at_a_file_is_one_line(command, no_work, tmp_path, capsys):
    (tmp_path / "a-file").write_text("x")
    line = one_line_error([*command, "--results", str(tmp_path / "a-file")], capsys)
    assert "is a file; give a folder" in line
    line = one_line_error([*command, "--results", str(tmp_path / "a-file" / "sub")], capsys)
    assert f"cannot write result files to {tmp_path / 'a-file' / 'sub'}" in line


def test_a_cache_folder_that_is_a_file_is_one_line(no_work, tmp_path, monkeypatch, capsys):
    (tmp_path / "a-file").write_text("x")
    monkeypatch.setenv("GENDEL_CACHE_DIR", str(tmp_path / "a-file"))
    assert "GENDEL_CACHE_DIR" in one_line_error(["grid", "--profile", "tiny"], capsys)


@pytest.mark.skipif(torch.cuda.is_available(), reason="needs a machine without CUDA")
@pytest.mark.parametrize("command", [["run", "--profile", "tiny", JOB], ["grid", "--profile", "tiny"]])
def test_cuda_without_a_gpu_is_one_line_here_but_allowed_for_slurm(command, no_work, monkeypatch, capsys):
    assert "torch sees no CUDA GPU" in one_line_error([*command, "--device", "cuda"], capsys)
    monkeypatch.setattr(cli.shutil, "which", lambda name: f"/usr/bin/{name}")  # a SLURM login node
    with pytest.raises(AssertionError, match="work started"):  # the jobs run on the GPU nodes
        cli.main(["grid", "--profile", "tiny", "--device", "cuda", "--executor", "slurm"])


def test_slurm_without_submitit_is_one_line(no_work, monkeypatch, capsys):
    monkeypatch.setattr(cli.shutil, "which", lambda name: f"/usr/bin/{name}")
    monkeypatch.setitem(sys.modules, "submitit", None)
    assert "pip install submitit" in one_line_error(["grid", "--profile", "tiny", "--executor", "slurm"], capsys)


def test_slurm_logs_pointing_at_a_file_is_one_line(no_work, tmp_path, monkeypatch, capsys):
    (tmp_path / "a-file").write_text("x")
    monkeypatch.setattr(cli.shutil, "which", lambda name: f"/usr/bin/{name}")
    line = one_line_error(["grid", "--profile", "tiny", "--executor", "slurm", "--logs", str(tmp_path / "a-file")],
                          capsys)
    assert "--logs" in line and "is a file" in line


@pytest.mark.parametrize("command", [["run", "--profile", "tiny", JOB], ["grid", "--profile", "tiny"]])
@pytest.mark.parametrize("missing", ["test", "all"])
def test_missing_data_is_one_line_before_any_training(command, missing, no_work, tmp_path, monkeypatch, capsys):
    root = write_made_up_data(tmp_path / "data", n_test=0) if missing == "test" else tmp_path / "empty"
    monkeypatch.setenv("GENDEL_DATA_DIR", str(root))
    line = one_line_error(command, capsys)
    assert "t10k-images-idx3-ubyte" in line and "make data" in line


def test_a_damaged_data_file_is_one_line_before_any_training(no_work, tmp_path, monkeypatch, capsys):
    root = write_made_up_data(tmp_path / "data")
    images_file = root / "mnist" / FILES["test"][0]
    images_file.write_bytes(images_file.read_bytes()[:1000])  # truncated
    monkeypatch.setenv("GENDEL_DATA_DIR", str(root))
    line = one_line_error(["grid", "--profile", "tiny"], capsys)
    assert str(images_file) in line and "truncated" in line and "fetch the data again" in line


def test_fetching_the_data_into_a_file_is_one_line(tmp_path, monkeypatch, capsys):
    from gendel.gan import images

    debian = tmp_path / "debian"  # a stand-in for Debian's package: nothing is fetched
    debian.mkdir()
    for name in images.ALL_FILES:
        (debian / f"{name}.gz").write_bytes(b"")
    monkeypatch.setattr(images, "DEBIAN_FASHION_MNIST", debian)
    (tmp_path / "a-file").write_text("x")
    with pytest.raises(SystemExit) as info:
        images.main(["fetch", "--root", str(tmp_path / "a-file")])
    lines = [line for line in capsys.readouterr().err.splitlines() if line.strip()]
    assert info.value.code == 2 and len(lines) == 1
    assert f"cannot write the data into {tmp_path / 'a-file'}" in lines[0] and "--root" in lines[0]


def test_an_interruption_is_one_line_that_says_how_to_resume(no_work, tmp_path, monkeypatch, capsys):
    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "run_job", interrupted)
    with pytest.raises(SystemExit) as info:
        cli.main(["run", "--profile", "tiny", JOB, "--results", str(tmp_path / "results")])
    lines = [line for line in capsys.readouterr().err.splitlines() if line.strip()]
    assert info.value.code == 130 and len(lines) == 1
    assert "interrupted" in lines[0] and "the same command" in lines[0]


#: ``python -m gendel.gan`` where torchvision cannot be imported (it would download the data).
_CLI = "import sys; sys.modules['torchvision'] = None; from gendel.gan.__main__ import main; sys.exit(main())"


def run_cli(*args, env):
    return subprocess.run([sys.executable, "-c", _CLI, *args], cwd=REPO, capture_output=True, text=True,
                          timeout=300, env={**os.environ, "OMP_NUM_THREADS": "1", "TQDM_DISABLE": "1",
                                            "PYTHONPATH": f"{REPO}{os.pathsep}{os.environ.get('PYTHONPATH', '')}",
                                            **env})


@pytest.mark.parametrize("args", [["grid", "--profile", "tiny", "--parallel", "-1"],
                                  ["grid", "--profile", "tiny", "--device", "tpu"],
                                  ["run", "--profile", "tiny", JOB]])
def test_the_command_line_in_a_fresh_process_shows_no_traceback(args, tmp_path):
    data = write_made_up_data(tmp_path / "data", n_test=0)  # the last case: no test split
    out = run_cli(*args, env={"GENDEL_CACHE_DIR": str(tmp_path / "cache"), "GENDEL_DATA_DIR": str(data)})
    assert out.returncode == 2, out.stderr
    assert "Traceback" not in out.stderr and len(out.stderr.strip().splitlines()) == 1, out.stderr
    assert not (tmp_path / "cache" / "checkpoints").exists()  # nothing trained


def test_grid_and_run_agree_on_what_is_done_end_to_end(made, data, tmp_path):
    """`grid` and `run` as a user calls them, on a results folder where one result is torn: only
    that job runs again (from the checkpoints of the trainings), and `run` of the intact job returns
    its result as it is."""
    shutil.copytree(made.parent / "cache", tmp_path / "cache")
    env = {"GENDEL_CACHE_DIR": str(tmp_path / "cache"), "GENDEL_DATA_DIR": str(data)}
    results = tmp_path / "results"
    results.mkdir()
    torn, intact = (copy_result(made, job, results) for job in jobs("tiny"))
    stamp = intact.stat().st_mtime_ns
    torn.write_text(torn.read_text()[:300])
    again = run_cli("grid", "--profile", "tiny", "--results", str(results), "--threads", "1", env=env)
    assert again.returncode == 0, again.stderr[-3000:]
    assert "1 job(s) done, 1 to run" in again.stdout and str(torn) in again.stderr  # reported, then run
    redone, before = load_result(torn, jobs("tiny")[0]), load_result(result_path(jobs("tiny")[0], made))
    assert redone.timings["pretrain"] == before.timings["pretrain"]  # the trainings were loaded, not run
    for part in ("data", "labels", "q3", "curves"):  # and give the same numbers
        assert json.dumps(redone.to_dict()[part]) == json.dumps(before.to_dict()[part]), part
    single = run_cli("run", "--profile", "tiny", jobs("tiny")[1].name, "--results", str(results), env=env)
    assert single.returncode == 0 and str(intact) in single.stdout and intact.stat().st_mtime_ns == stamp
    assert temporaries(results) == []


def test_a_worker_of_a_killed_grid_stops(tmp_path):
    """A grid killed with SIGKILL leaves its worker processes behind, and they would go on computing
    alone: each worker starts (grid._set_threads) with a watch on its grid process and stops when it
    is gone. Here a stand-in grid process starts one worker the same way and is killed."""
    worker = "import sys; from gendel.gan import grid; grid._set_threads(1, int(sys.argv[1])); import time; time.sleep(300)"
    parent = ("import os, subprocess, sys, time\n"
              f"child = subprocess.Popen([sys.executable, '-c', {worker!r}, str(os.getpid())])\n"
              "print(child.pid, flush=True)\n"
              "time.sleep(300)\n")
    stand_in = subprocess.Popen([sys.executable, "-c", parent], stdout=subprocess.PIPE, text=True)
    pid = int(stand_in.stdout.readline())
    time.sleep(2.0)
    assert Path(f"/proc/{pid}").exists(), "the worker did not start"
    stand_in.kill()   # even while the worker is still importing: it watches the grid's pid it was given
    stand_in.wait()
    for _ in range(40):
        if not Path(f"/proc/{pid}").exists() or "Z" in Path(f"/proc/{pid}/stat").read_text().split()[2]:
            break
        time.sleep(0.5)
    else:
        os.kill(pid, signal.SIGKILL)
        pytest.fail("the worker kept running after its grid process was killed")
