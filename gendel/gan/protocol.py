"""The protocol of §5.2 and Appendix E: jobs, profiles and their result files.

One *job* is one (data set, deletion setting, λ, seed). It

1. draws the deletion set X' (``even-λ``: every odd label kept, a λ fraction of each even
   label kept, the rest of the even labels deleted; ``odd-λ`` likewise),
2. trains (or loads) the pre-trained DCGAN on X, the re-trained DCGAN on X \\ X', the KL-VDM
   DRE between X and X \\ X' and the label classifier,
3. Q2: labels ``m_labels`` samples of the pre-trained, re-trained and approximated model
   (Alg. 1 with bound B),
4. Q3: draws R repeats of Y_hat, Y_H0 from the pre-trained and Y_H1 from the re-trained
   model, m each, and computes LR and ASC with rho_hat_E,

and writes a small JSON file (label counts, statistics, timings, hardware) and an ``.npz``
beside it (sample grids, and the pre-trained samples' labels and log ratios, from which the
label distribution of Alg. 1 can be recomputed for another B without training).

A *profile* sizes the protocol: ``paper`` (the paper's settings), ``gpu`` (what fits a short
GPU run), ``quick`` (2 CPU cores, executed in every build of the book) and ``tiny`` (seconds,
for tests). The result files are read and found by :mod:`gendel.gan.result_files` (re-exported here).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import platform
import time
import warnings
from pathlib import Path

import numpy as np

from .. import stats
from .result_files import (STORED_RESULTS, default_results_dir, load_result, load_results,  # noqa: F401 (re-exported)
                      result_path, stored_results)

#: Version of the result format and of the protocol's numbers.
RESULT_VERSION = 1


@dataclasses.dataclass(frozen=True)
class Profile:
    """How large the experiment of §5.2 is run. Every field is a setting of the protocol.

    ``n_train`` images of the training split are used (None: all); ``deletions`` lists
    (setting, λ) pairs; each job trains DCGANs for ``gan_epochs`` and the VDM DRE for
    ``vdm_epochs``; Q2 labels ``m_labels`` samples of each model; Q3 has ``repeats`` (R)
    repeats of ``m_test`` (m) samples per set.

    Examples
    --------
    >>> tiny = PROFILES["tiny"]
    >>> tiny.gan_epochs, tiny.deletions
    (1, (('even', 0.7), ('odd', 0.7)))
    >>> smaller = dataclasses.replace(tiny, name="mine", m_labels=100)   # a sizing of your own
    >>> smaller.m_labels, smaller.key() != tiny.key()                     # results never mix
    (100, True)
    """

    name: str
    datasets: tuple
    deletions: tuple
    seeds: tuple
    n_train: int | None
    gan_epochs: int
    gan_width: int
    vdm_epochs: int
    vdm_width: int
    classifier_epochs: int
    m_labels: int
    m_test: int
    repeats: int
    bound: float = 10.0
    batch_size: int = 128

    def key(self):
        """A short hash of every setting: results of another sizing never mix."""
        payload = json.dumps([RESULT_VERSION, dataclasses.asdict(self)], sort_keys=True)
        return hashlib.sha256(payload.encode()).hexdigest()[:12]


_ALL = tuple((s, lam) for s in ("even", "odd") for lam in (0.6, 0.7, 0.8, 0.9))

PROFILES = {
    # Appendix E.1: 200 GAN epochs, VDM 40 epochs (learning rate halved), m = 50K, five seeds,
    # all eight deletion sets, Q3 with m = 1000 and R = 100.
    "paper": Profile("paper", ("mnist", "fashion-mnist"), _ALL, (0, 1, 2, 3, 4), None, 200, 64, 40, 64, 10,
                     50_000, 1000, 100),
    # One short GPU run (device time is scarce): full training sets, even-0.7 and odd-0.7, one seed.
    "gpu": Profile("gpu", ("mnist", "fashion-mnist"), (("even", 0.7), ("odd", 0.7)), (0,), None, 40, 64, 20, 64,
                   5, 50_000, 1000, 100),
    # 2 CPU cores, executed by every build of the book (sizes chosen from measurements: see the chapter).
    "quick": Profile("quick", ("mnist", "fashion-mnist"), (("even", 0.7), ("odd", 0.7)), (0, 1), 8000, 12, 16, 10,
                     16, 2, 5000, 500, 40),
    # Seconds per job: tests of the grid and the command line.
    "tiny": Profile("tiny", ("mnist",), (("even", 0.7), ("odd", 0.7)), (0,), 256, 1, 8, 1, 8, 1, 200, 50, 4,
                    batch_size=64),
}


def get_profile(profile):
    """A :class:`Profile` from its name (or the profile itself).

    Examples
    --------
    >>> get_profile("quick").n_train, get_profile("paper").n_train      # None: the whole split
    (8000, None)
    >>> get_profile("huge")
    Traceback (most recent call last):
    ValueError: unknown profile 'huge'; choose one of ['gpu', 'paper', 'quick', 'tiny']
    """
    if isinstance(profile, Profile):
        return profile
    if profile not in PROFILES:
        raise ValueError(f"unknown profile {profile!r}; choose one of {sorted(PROFILES)}")
    return PROFILES[profile]


@dataclasses.dataclass(frozen=True)
class Job:
    """One (data set, deletion setting, λ, seed) of a profile.

    Examples
    --------
    >>> Job("tiny", "mnist", "even", 0.7, seed=0).name
    'mnist-even-0.7-seed0'
    """

    profile: str
    dataset: str
    setting: str
    lam: float
    seed: int

    @property
    def name(self):
        return f"{self.dataset}-{self.setting}-{self.lam:g}-seed{self.seed}"


def jobs(profile):
    """Every job of a profile, in a fixed order.

    Examples
    --------
    >>> [job.name for job in jobs("tiny")]
    ['mnist-even-0.7-seed0', 'mnist-odd-0.7-seed0']
    >>> len(jobs("paper"))          # 2 data sets x 8 deletion sets x 5 seeds
    80
    """
    p = get_profile(profile)
    return [Job(p.name, d, s, lam, seed) for d in p.datasets for (s, lam) in p.deletions for seed in p.seeds]


def find_job(profile, name):
    """The job of ``profile`` called ``name`` (as printed by ``python -m gendel.gan list``).

    Examples
    --------
    >>> job = find_job("quick", "fashion-mnist-odd-0.7-seed1")
    >>> job.dataset, job.setting, job.lam, job.seed
    ('fashion-mnist', 'odd', 0.7, 1)
    """
    for job in jobs(profile):
        if job.name == name:
            return job
    raise ValueError(f"profile {get_profile(profile).name!r} has no job {name!r}; "
                     f"`python -m gendel.gan list --profile {get_profile(profile).name}` lists them")


def hardware(device):
    """What the job ran on: device name, torch version, CPU count, platform.

    Examples
    --------
    >>> import torch
    >>> info = hardware(torch.device("cpu"))
    >>> info["device_type"], info["device"].startswith("CPU"), info["torch"] == torch.__version__
    ('cpu', True, True)
    """
    import torch

    name = torch.cuda.get_device_name(device) if device.type == "cuda" else f"CPU ({platform.processor() or platform.machine()})"
    return {"device": name, "device_type": device.type, "torch": torch.__version__, "cpu_count": os.cpu_count(),
            "torch_threads": torch.get_num_threads(), "platform": platform.platform()}


def _to_uint8(images):
    return np.round((np.asarray(images) + 1.0) * 127.5).clip(0, 255).astype(np.uint8)[:, 0]


def training_images(dataset, n_train, *, root=None):
    """The training images and labels a profile uses: a fixed random subset of ``n_train``
    (seeded by the data set alone, so every job and seed shares it) or the whole split.

    Examples
    --------
    >>> import tempfile
    >>> from gendel.images import FILES, write_idx
    >>> with tempfile.TemporaryDirectory() as root:      # 300 made-up images (``make data`` fetches MNIST)
    ...     (Path(root) / "mnist").mkdir()
    ...     write_idx(Path(root) / "mnist" / FILES["train"][0], np.zeros((300, 28, 28), dtype=np.uint8))
    ...     write_idx(Path(root) / "mnist" / FILES["train"][1], (np.arange(300) % 10).astype(np.uint8))
    ...     X, labels = training_images("mnist", 256, root=root)
    ...     again = training_images("mnist", 256, root=root)[1]
    >>> X.shape, bool(np.all(labels == again))           # every job and seed gets the same subset
    ((256, 1, 28, 28), True)
    """
    from ..data import load_images

    images, labels = load_images(dataset, split="train", root=root)
    if n_train is not None and n_train < len(images):
        keep = np.sort(np.random.default_rng(20220629).choice(len(images), n_train, replace=False))
        images, labels = images[keep], labels[keep]
    return images, labels


@dataclasses.dataclass
class TrainedModels:
    """The trained networks of one job: p_hat, p_hat', rho_hat_E, and the data (X, its labels, X') they came from.

    Examples
    --------
    >>> labels = np.array([0, 1, 2, 3])
    >>> models = TrainedModels(None, None, None, np.zeros((4, 1, 28, 28)), labels, deleted=labels % 2 == 0)
    >>> models.labels[~models.deleted].tolist()          # the labels of X \\ X'
    [1, 3]
    """

    pretrained: object
    retrained: object
    vdm: object
    X: np.ndarray
    labels: np.ndarray
    deleted: np.ndarray


def trained_models(job, *, device=None, progress=True, data_root=None):
    """Train (or load from the checkpoint cache) the pre-trained and re-trained DCGANs and the VDM DRE of a job.

    The networks are exactly those of :func:`run_job` for the same job; a job run before is
    loaded from its checkpoints in seconds.

    Returns
    -------
    TrainedModels

    Examples
    --------
    >>> models = trained_models(find_job("tiny", "mnist-even-0.7-seed0"))  # needs MNIST; trains # doctest: +SKIP
    >>> models.X.shape, int(models.deleted.sum()) > 0                      # doctest: +SKIP
    ((256, 1, 28, 28), True)
    """
    from ..data import label_deletion_mask
    from .dcgan import DCGAN
    from .training import pick_device
    from .vdm import VDMDRE

    if isinstance(job, str):
        raise TypeError(f"job must be a Job (e.g. gendel.gan.protocol.find_job('quick', {job!r})); got a string")
    p = get_profile(job.profile)
    device = pick_device(device)
    X, labels = training_images(job.dataset, p.n_train, root=data_root)
    deleted = label_deletion_mask(labels, job.setting, job.lam, rng=_stage_rng(job, 1))
    common = dict(device=device, progress=progress)
    gan = dict(epochs=p.gan_epochs, seed=job.seed, width=p.gan_width, batch_size=p.batch_size, **common)
    pre = DCGAN(**gan).fit(X)
    re = DCGAN(**gan).fit(X[~deleted])
    vdm = VDMDRE(divergence="kl", epochs=p.vdm_epochs, seed=job.seed, width=p.vdm_width,
                 batch_size=p.batch_size, **common).fit(X, deleted)
    return TrainedModels(pre, re, vdm, X, labels, deleted)


def _stage_rng(job, stage):
    """One random stream per stage of a job."""
    return np.random.default_rng([job.seed, stage])


def run_job(job, results_dir=None, *, device=None, progress=True, data_root=None):
    """Run one job (or return its stored result) and write its result files. Returns the result dict.

    Examples
    --------
    >>> result = run_job(find_job("gpu", "mnist-even-0.7-seed0"), STORED_RESULTS / "gpu")  # stored: read, not run
    >>> sum(result["labels"]["approx"]) == result["profile"]["m_labels"], sorted(result["q3"]["values"])
    (True, ['ASC log', 'ASC tlogt', 'LR'])
    >>> run_job(find_job("tiny", "mnist-odd-0.7-seed0"))["data"]["n_train"]  # needs MNIST # doctest: +SKIP
    256
    """
    from ..cache import CacheWarning, atomic_write, usable_cache_dir
    from ..data import load_images
    from ..deletion import ApproximateDeletion
    from .classifier import LabelClassifier
    from .training import pick_device

    p = get_profile(job.profile)
    results_dir = Path(results_dir) if results_dir is not None else default_results_dir(p)
    path = result_path(job, results_dir)
    if path.exists():
        try:
            return load_result(path)
        except Exception as exc:  # a torn or foreign file (JSON, npz): run the job again and replace it
            warnings.warn(f"discarding the damaged result {path} ({type(exc).__name__}: {exc}); running the job "
                          "again", CacheWarning, stacklevel=2)
    writable = usable_cache_dir(results_dir) is not None  # warn before hours of training, not after
    device = pick_device(device)
    t_start = time.perf_counter()
    rng = lambda stage: _stage_rng(job, stage)  # noqa: E731 - one stream per stage
    common = dict(device=device, progress=progress)
    models = trained_models(job, device=device, progress=progress, data_root=data_root)
    pre, re, vdm, X, deleted = models.pretrained, models.retrained, models.vdm, models.X, models.deleted
    labels = models.labels
    timings = {"pretrain": pre.fit_seconds_, "retrain": re.fit_seconds_, "vdm": vdm.fit_seconds_}
    train_x, train_y = load_images(job.dataset, split="train", root=data_root)
    test_x, test_y = load_images(job.dataset, split="test", root=data_root)
    clf = LabelClassifier(epochs=p.classifier_epochs, batch_size=p.batch_size, **common).fit(train_x, train_y)
    timings["classifier"] = clf.fit_seconds_

    # Q2: label distributions of the three models.
    t0 = time.perf_counter()
    Y_pre = pre.sample(p.m_labels, rng=rng(2))
    timings["sample_pretrained"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    Y_re = re.sample(p.m_labels, rng=rng(3))
    timings["sample_retrained"] = time.perf_counter() - t0
    approx = ApproximateDeletion(pre, vdm, bound=p.bound, max_proposals=int(50 * p.m_labels * p.bound))
    t0 = time.perf_counter()
    with warnings.catch_warnings():  # the fraction above B is recorded below
        warnings.simplefilter("ignore", RuntimeWarning)
        Y_approx = approx.sample(p.m_labels, rng=rng(4))
    timings["sample_approximated"] = time.perf_counter() - t0
    proba = {name: clf.predict_proba(Y) for name, Y in (("pre", Y_pre), ("re", Y_re), ("approx", Y_approx))}
    pre_log_ratio = vdm.log_ratio(Y_pre)

    # Q3: LR and ASC of Y_H0 ~ p_hat and Y_H1 ~ p_hat', with Y_hat ~ p_hat, R repeats of m.
    t0 = time.perf_counter()
    shape = (p.repeats, p.m_test)
    n = p.repeats * p.m_test
    lr_hat = vdm.log_ratio(pre.sample(n, rng=rng(5))).reshape(shape)
    lr_h0 = vdm.log_ratio(pre.sample(n, rng=rng(6))).reshape(shape)
    lr_h1 = vdm.log_ratio(re.sample(n, rng=rng(7))).reshape(shape)
    q3 = {"LR": (stats.likelihood_ratio(lr_h0), stats.likelihood_ratio(lr_h1))}
    for phi in ("log", "tlogt"):
        q3[f"ASC {phi}"] = (stats.asc(lr_hat, lr_h0, phi), stats.asc(lr_hat, lr_h1, phi))
    timings["q3"] = time.perf_counter() - t0

    counts = lambda pr: np.bincount(pr.argmax(1), minlength=10).tolist()  # noqa: E731
    per_accepted = (timings["sample_approximated"] - timings["sample_retrained"]) / p.m_labels
    result = {
        "version": RESULT_VERSION,
        "job": dataclasses.asdict(job) | {"name": job.name},
        "profile": dataclasses.asdict(p),
        "hardware": hardware(device),
        "data": {"n_train": int(len(X)), "n_deleted": int(deleted.sum()),
                 "label_counts_X": np.bincount(labels, minlength=10).tolist(),
                 "label_counts_kept": np.bincount(labels[~deleted], minlength=10).tolist()},
        "classifier": {"test_accuracy": clf.score(test_x, test_y), "n_test": int(len(test_x)),
                       "confidence_real": float(clf.predict_proba(test_x).max(1).mean()),
                       "confidence": {k: float(v.max(1).mean()) for k, v in proba.items()}},
        "labels": {k: counts(v) for k, v in proba.items()},
        "sampling": {"bound": p.bound, "acceptance_rate": approx.acceptance_rate_,
                     "bound_exceeded": approx.bound_exceeded_, "n_proposals": approx.n_proposals_,
                     "mean_ratio_X": float(np.mean(np.exp(vdm.log_ratio(X)))),
                     "mean_ratio_pretrained": float(np.mean(np.exp(pre_log_ratio))),
                     "max_ratio_pretrained": float(np.exp(pre_log_ratio.max()))},
        "q3": {"m": p.m_test, "R": p.repeats,
               "values": {k: {"H0": h0.tolist(), "H1": h1.tolist()} for k, (h0, h1) in q3.items()},
               "ks": {k: stats.ks_statistic(h0, h1) for k, (h0, h1) in q3.items()}},
        "timings": timings | {"overhead_per_accepted": per_accepted,
                              "fast_deletion": timings["vdm"] + max(per_accepted, 0.0) * p.m_labels,
                              "job": time.perf_counter() - t_start},
        "losses": {"pretrain": pre.history_, "retrain": re.history_, "vdm": vdm.history_},
    }
    arrays = {"grid_pre": _to_uint8(Y_pre[:32]), "grid_re": _to_uint8(Y_re[:32]),
              "grid_approx": _to_uint8(Y_approx[:32]), "pre_labels": proba["pre"].argmax(1).astype(np.int8),
              "pre_log_ratio": pre_log_ratio.astype(np.float32)}
    if writable:
        try:
            atomic_write(path.with_suffix(".npz"), lambda f: np.savez_compressed(f, **arrays))
            atomic_write(path, lambda f: f.write(json.dumps(result, indent=1).encode()))
        except OSError as exc:  # e.g. the disk filled up while training: keep the result
            warnings.warn(f"could not store the result of {job.name} in {path.parent} ({exc}); returning it "
                          "unstored", CacheWarning, stacklevel=2)
    result["arrays"] = arrays  # as load_result gives them, so a fresh result and a stored one read alike
    return result


def run_profile(profile, results_dir=None, **kwargs):
    """Run every job of a profile in this process, one after the other, skipping stored ones.

    Examples
    --------
    >>> [r["job"]["seed"] for r in run_profile("gpu", STORED_RESULTS / "gpu")]   # all stored: nothing trains
    [0, 0, 0, 0]
    >>> results = run_profile("quick")       # doctest: +SKIP
    """
    return [run_job(job, results_dir, **kwargs) for job in jobs(profile)]
