"""The baselines grid: what else a practitioner could do to forget X′, each audited by the deletion test.

The paper compares Alg. 1 (fast deletion) with doing nothing (the pre-trained DCGAN p̂) and with
re-training from scratch on X ∖ X′ (p̂′). A job of the *baselines grid* runs every method on one
(data set, deletion set, λ, seed) and measures each the same way:

- ``pre``: doing nothing (fresh samples of p̂: the false-positive rate of the test);
- ``re``: re-training from scratch on X ∖ X′ (the profile's full epoch count);
- ``approx``: Alg. 1 with the VDM ratio ρ̂_ℰ and bound B (fast deletion, §5.2);
- ``oracle``: Alg. 1 with the exact *label-level* ratio, read through the label classifier
  (:class:`LabelRatio`): what fast deletion would do with a perfect DRE of the labels;
- ``finetune-k``: the pre-trained DCGAN trained further on X ∖ X′ for k epochs
  (:class:`gendel.gan.dcgan.FineTunedDCGAN`), the first thing an engineer would try;
- ``control``: a second pre-trained DCGAN on X with a seed that no other model of the grid
  uses (``control_seed``): how far two trainings differ when nothing is deleted.

For each method a pool of samples gives the label counts of Q2 (the first ``m_labels``) and the
deletion test of Q3 (R sets of ``m_test``): LR and ASC of each set, with Ŷ ~ p̂ and
ρ̂_ℰ, beside the same statistics of fresh samples of p̂ (the null distribution).

The deletion settings are the paper's ``even`` and ``odd`` (the same X′ as the paper-protocol grid
of ``gendel.gan.experiment``) and ``random``: N′ images deleted at random across all labels,
N′ equal to the even setting's at the same λ, the negative control (no label should move).

The sizes (epochs, widths, sample counts) are those of the paper-protocol profile of the same
name (``gendel.gan.profiles``); a baselines profile adds its seeds, deletion sets and
fine-tuning budgets. Results are written by :mod:`gendel.gan.baseline_results`.
"""

from __future__ import annotations

import dataclasses
import time
import warnings

import numpy as np

from gendel._validation import Estimator
from gendel.deletion_test.stats import PAPER_STATISTICS, STATISTICS, ks_statistic
from gendel.gan.experiment import (MASK_SEED, data_record, deletion_mask, label_classifier, pretrained_model,
                                   training_images)
from gendel.gan.images import load_images, to_pixels
from gendel.gan.profiles import Job, get_profile

#: Version of the result format of the baselines grid.
BASELINE_VERSION = 3
#: The deletion settings of the baselines grid: the paper's two and the random-deletion control.
BASELINE_SETTINGS = ("even", "odd", "random")
#: Control seeds are this plus the job's seed: no pre-trained or re-trained model of a grid uses them
#: (job seeds must be below it).
CONTROL_SEED_OFFSET = 1000


@dataclasses.dataclass(frozen=True, kw_only=True)
class BaselineProfile:
    """A baselines grid: the sizes of the paper-protocol profile ``name``, with its own seeds,
    deletion sets (``("random", λ)``: N′ of the even set at λ, deleted at random) and
    fine-tuning budgets (epochs), and ``repeats``: the deletion test's sets of ``m_test`` samples
    per method (default the profile's; fewer halve the draws of Alg. 1, the longest part of a job).

    Examples
    --------
    >>> p = BASELINE_PROFILES["quick"]
    >>> p.sizes.gan_epochs, p.finetune_epochs, len(p.seeds)
    (12, (1, 3), 5)
    >>> BaselineProfile(name="tiny", seeds=(0,), deletions=(("even", 0.7),), finetune_epochs=(5,))
    Traceback (most recent call last):
    ValueError: finetune_epochs must be counts below the profile's 2 GAN epochs (fine-tuning is the cheap baseline); got (5,)
    """

    name: str
    seeds: tuple
    deletions: tuple
    finetune_epochs: tuple
    repeats: int | None = None

    def __post_init__(self):
        from gendel._validation import check_count

        sizes = get_profile(self.name)
        for deletion in self.deletions:
            if len(deletion) != 2 or deletion[0] not in BASELINE_SETTINGS or not 0 < deletion[1] < 1:
                raise ValueError(f"deletions must be (setting, λ) pairs with setting in {BASELINE_SETTINGS} and λ in "
                                 f"(0, 1); got {deletion!r}")
        for seed in self.seeds:
            check_count(seed, "a seed", minimum=0)
            if seed >= CONTROL_SEED_OFFSET:
                raise ValueError(f"seeds must be below {CONTROL_SEED_OFFSET} (the control of seed s has seed "
                                 f"{CONTROL_SEED_OFFSET} + s); got {seed}")
        if len(set(self.deletions)) != len(self.deletions):
            raise ValueError(f"deletions must be distinct; got {self.deletions!r}")
        if len(set(self.finetune_epochs)) != len(self.finetune_epochs):
            raise ValueError(f"finetune_epochs must be distinct; got {self.finetune_epochs!r}")
        if not self.seeds or len(set(self.seeds)) != len(self.seeds):
            raise ValueError(f"seeds must be distinct, at least one; got {self.seeds!r}")
        if self.repeats is not None:
            check_count(self.repeats, "repeats", minimum=2)
        if not self.finetune_epochs or any(isinstance(k, bool) or not isinstance(k, int) or not 0 < k < sizes.gan_epochs
                                           for k in self.finetune_epochs):
            raise ValueError(f"finetune_epochs must be counts below the profile's {sizes.gan_epochs} GAN epochs "
                             f"(fine-tuning is the cheap baseline); got {self.finetune_epochs!r}")

    @property
    def sizes(self):
        """The paper-protocol :class:`~gendel.gan.profiles.Profile` whose sizes this grid uses."""
        return get_profile(self.name)

    @property
    def test_repeats(self):
        """R: the deletion test's sets per method."""
        return self.sizes.repeats if self.repeats is None else self.repeats

    @property
    def datasets(self):
        return self.sizes.datasets

    def methods(self):
        """The methods of a job, in the order the pages show them.

        Examples
        --------
        >>> BASELINE_PROFILES["quick"].methods()
        ('pre', 're', 'approx', 'oracle', 'finetune-1', 'finetune-3', 'control')
        """
        return ("pre", "re", "approx", "oracle", *(f"finetune-{k}" for k in self.finetune_epochs), "control")

    def record(self):
        """The profile as its result files record it: the grid's lists and every size."""
        return {"name": self.name, "seeds": list(self.seeds), "deletions": [list(d) for d in self.deletions],
                "finetune_epochs": list(self.finetune_epochs), "repeats": self.test_repeats,
                "sizes": self.sizes.settings()}


_PAPER_SETS = tuple((s, lam) for s in ("even", "odd") for lam in (0.6, 0.7, 0.8, 0.9))
_RANDOM_SETS = (("random", 0.6), ("random", 0.8))
_FIVE = (0, 1, 2, 3, 4)

BASELINE_PROFILES = {
    # Appendix E's five seeds; fine-tuning for 5 and 20 of the 200 epochs.
    "paper": BaselineProfile(name="paper", seeds=_FIVE, deletions=_PAPER_SETS + _RANDOM_SETS, finetune_epochs=(5, 20)),
    "gpu": BaselineProfile(name="gpu", seeds=_FIVE, deletions=_PAPER_SETS + _RANDOM_SETS, finetune_epochs=(2, 6)),
    # 2 CPU cores: 100 jobs of a few minutes each (stored with gendel).
    # 20 test sets per method (the paper-protocol grid's 40 would double Alg. 1's draws).
    "quick": BaselineProfile(name="quick", seeds=_FIVE, deletions=_PAPER_SETS + _RANDOM_SETS, finetune_epochs=(1, 3),
                             repeats=20),
    # Seconds per job: the tests run it.
    "tiny": BaselineProfile(name="tiny", seeds=(0,), deletions=(("even", 0.7), ("random", 0.7)), finetune_epochs=(1,)),
}


def get_baseline_profile(profile):
    """A :class:`BaselineProfile` from its name (or the profile itself).

    Examples
    --------
    >>> get_baseline_profile("huge")
    Traceback (most recent call last):
    ValueError: unknown baselines profile 'huge'; choose one of ['gpu', 'paper', 'quick', 'tiny']
    """
    if isinstance(profile, BaselineProfile):
        return profile
    if profile not in BASELINE_PROFILES:
        raise ValueError(f"unknown baselines profile {profile!r}; choose one of {sorted(BASELINE_PROFILES)}")
    return BASELINE_PROFILES[profile]


def baseline_jobs(profile, seeds=None):
    """The jobs of a baselines grid, seed by seed (all of seed 0 first: a grid stopped midway
    leaves whole seeds), or of the given ``seeds`` only.

    Examples
    --------
    >>> [job.name for job in baseline_jobs("tiny")]
    ['mnist-even-0.7-seed0', 'mnist-random-0.7-seed0']
    >>> len(baseline_jobs("quick")), len(baseline_jobs("quick", seeds=(3, 4)))
    (100, 40)
    >>> baseline_jobs("quick", seeds=(7,))
    Traceback (most recent call last):
    ValueError: seeds (7,) are not seeds of the baselines profile 'quick' (0, 1, 2, 3, 4)
    """
    p = get_baseline_profile(profile)
    if seeds is None:
        seeds = p.seeds
    elif not set(seeds) <= set(p.seeds):
        raise ValueError(f"seeds {tuple(seeds)} are not seeds of the baselines profile {p.name!r} {p.seeds}")
    return [Job(p.name, d, s, lam, seed) for seed in p.seeds if seed in seeds for d in p.datasets
            for (s, lam) in p.deletions]


def find_baseline_job(profile, name):
    """The job of the baselines grid ``profile`` called ``name``.

    Examples
    --------
    >>> find_baseline_job("quick", "mnist-random-0.8-seed4").setting
    'random'
    """
    for job in baseline_jobs(profile):
        if job.name == name:
            return job
    raise ValueError(f"the baselines profile {get_baseline_profile(profile).name!r} has no job {name!r}; "
                     f"`python -m gendel.gan baselines --profile {get_baseline_profile(profile).name} --list` lists them")


def control_seed(seed):
    """The seed of a job's control GAN: :data:`CONTROL_SEED_OFFSET` + ``seed`` (no pre-trained or
    re-trained model of the grid has it, so no two controls, and no control and model, share a training).

    Examples
    --------
    >>> control_seed(0), control_seed(4)
    (1000, 1004)
    """
    return CONTROL_SEED_OFFSET + seed


def check_baseline_job(job):
    """The :class:`BaselineProfile` of ``job``, once checked to be a job of its grid.

    Examples
    --------
    >>> check_baseline_job(Job("tiny", "mnist", "random", 0.7, 0)).name
    'tiny'
    >>> check_baseline_job(Job("tiny", "mnist", "odd", 0.7, 0))
    Traceback (most recent call last):
    ValueError: mnist-odd-0.7-seed0 is not a job of the baselines profile 'tiny' (`python -m gendel.gan baselines --profile tiny --list` lists them)
    """
    if not isinstance(job, Job):
        raise TypeError(f"job must be a gendel.gan.profiles.Job (see gendel.gan.baselines.baseline_jobs(profile)); "
                        f"got {type(job).__name__}")
    p = get_baseline_profile(job.profile)
    if job not in baseline_jobs(p):
        raise ValueError(f"{job.name} is not a job of the baselines profile {p.name!r} (`python -m gendel.gan baselines "
                         f"--profile {p.name} --list` lists them)")
    return p


def random_deletion_size(labels, lam):
    """N′ of the random setting at λ: the size of the even setting's X′ at λ.

    Examples
    --------
    >>> random_deletion_size(np.repeat(np.arange(10), 10), 0.7)     # 3 of 10 of each of 5 even labels
    15
    """
    from gendel.gan.schema import kept_counts

    counts = np.bincount(np.asarray(labels), minlength=10)
    return int(counts.sum() - sum(kept_counts(counts, "even", lam)))


def baseline_deletion_mask(job, labels):
    """X′ of a job of the baselines grid: for ``even`` and ``odd`` the paper-protocol grid's
    (:func:`gendel.gan.experiment.deletion_mask`); for ``random``, :func:`random_deletion_size`
    images drawn uniformly from all of X, with a stream that depends on :data:`MASK_SEED` only.

    Examples
    --------
    >>> labels = np.repeat(np.arange(10), 10)
    >>> mask = baseline_deletion_mask(Job("tiny", "mnist", "random", 0.7, 0), labels)
    >>> int(mask.sum()), np.bincount(labels[mask], minlength=10).tolist() != [3, 0] * 5
    (15, True)
    """
    if job.setting != "random":
        return deletion_mask(job, labels)
    n_deleted = random_deletion_size(labels, job.lam)
    mask = np.zeros(len(labels), dtype=bool)
    mask[np.random.default_rng([MASK_SEED, 2]).choice(len(labels), n_deleted, replace=False)] = True
    return mask


class LabelRatio(Estimator):
    """The exact label-level density ratio, read through a label classifier: the *oracle* DRE.

    Fitted on the labels of X and the mask of X′, it gives an image y the ratio
    w(c) = P_{X∖X′}(label c) / P_X(label c) of the label c the classifier reads in y. Alg. 1 with
    it re-weights the pre-trained model's labels exactly as the deletion re-weighted the data's:
    what fast deletion would do with a perfect DRE of the labels (and nothing finer). Its bound
    is max_c w(c).

    Parameters
    ----------
    classifier : object
        A fitted label classifier with ``predict(images)`` (:class:`gendel.gan.classifier.LabelClassifier`).

    Examples
    --------
    >>> class Reader:                    # reads the label from the first pixel
    ...     def predict(self, Y): return np.asarray(Y)[:, 0].astype(int)
    >>> labels = np.repeat(np.arange(10), 10)
    >>> ratio = LabelRatio(Reader()).fit(labels, (labels == 0) & (np.arange(100) % 10 < 5))
    >>> np.round(ratio.weights_[:2], 3).tolist(), round(ratio.ratio_bound_, 3)
    ([0.526, 1.053], 1.053)
    >>> np.exp(ratio.log_ratio(np.array([[0.0], [1.0]]))).round(3).tolist()
    [0.526, 1.053]
    """

    _fitted_attribute = "weights_"

    def __init__(self, classifier):
        self.classifier = classifier

    def fit(self, labels, deleted):
        """The weights w(c) from the labels of X and the mask of X′. Returns self."""
        labels = np.asarray(labels)
        deleted = np.asarray(deleted, dtype=bool)
        if labels.shape != deleted.shape or labels.ndim != 1:
            raise ValueError(f"labels and deleted must be 1-D arrays of one length; got {labels.shape}, {deleted.shape}")
        counts_X = np.bincount(labels, minlength=10).astype(float)
        counts_kept = np.bincount(labels[~deleted], minlength=10).astype(float)
        if counts_kept.sum() == 0:
            raise ValueError("X ∖ X′ is empty: nothing is left to sample from")
        with np.errstate(divide="ignore", invalid="ignore"):
            w = (counts_kept / counts_kept.sum()) / (counts_X / counts_X.sum())
        self.weights_ = np.where(counts_X > 0, w, 0.0)
        self.ratio_bound_ = float(self.weights_.max())
        return self

    def log_ratio(self, Y):
        """log w(c(y)) for each image y (c: the classifier's label)."""
        self._check_fitted()
        with np.errstate(divide="ignore"):
            return np.log(self.weights_[np.asarray(self.classifier.predict(Y))])


@dataclasses.dataclass
class BaselineModels:
    """The trained models of one job of the baselines grid and the data they came from.

    Attributes
    ----------
    pretrained, retrained, control : DCGAN
        p̂ on X; p̂′ on X ∖ X′ (the job's seed, the profile's epochs); a second p̂ on X with
        :func:`control_seed`.
    finetuned : dict
        Fine-tuning budget (epochs) -> :class:`~gendel.gan.dcgan.FineTunedDCGAN` from p̂ on X ∖ X′.
    vdm : VDMDRE
        ρ̂_ℰ between X and X ∖ X′.
    oracle : LabelRatio
        The exact label-level ratio.
    classifier : LabelClassifier
    X, labels, deleted, test_X, test_labels, n_split, seconds
        As :class:`gendel.gan.experiment.TrainedModels`.
    profile : BaselineProfile
        The baselines profile the models were trained for: the later stages read its sizes.

    Examples
    --------
    >>> labels = np.arange(20) % 10
    >>> models = BaselineModels(None, None, None, {}, None, None, None, np.zeros((20, 1, 28, 28)), labels,
    ...                         labels == 0, None, None, n_split=20, seconds=0.0, profile=None)
    >>> int(models.deleted.sum()), training_cost(models, "oracle")
    (2, (0.0, 0.0))
    """

    pretrained: object
    retrained: object
    control: object
    finetuned: dict
    vdm: object
    oracle: object
    classifier: object
    X: np.ndarray
    labels: np.ndarray
    deleted: np.ndarray
    test_X: np.ndarray
    test_labels: np.ndarray
    n_split: int
    seconds: float
    profile: BaselineProfile


def train(job, *, device=None, progress=True, data_root=None):
    """Stage 1: the data and every trained model of a job (from the checkpoint cache when trained
    before; the pre-trained GAN, the re-trained GAN, the VDM and the classifier of an even or odd
    job are the paper-protocol grid's own, so one cache serves both grids). ``device`` is handed
    to every model, as in :func:`gendel.gan.experiment.train`.

    Examples
    --------
    >>> models = train(find_baseline_job("tiny", "mnist-even-0.7-seed0"))   # needs MNIST; trains # doctest: +SKIP
    """
    from gendel.gan.dcgan import DCGAN, FineTunedDCGAN
    from gendel.gan.vdm import VDMDRE

    bp = check_baseline_job(job)
    p = bp.sizes
    t0 = time.perf_counter()
    X, labels = training_images(job.dataset, p.n_train, root=data_root)
    test_X, test_labels = load_images(job.dataset, split="test", root=data_root)
    n_split = len(load_images(job.dataset, split="train", root=data_root)[1])
    deleted = baseline_deletion_mask(job, labels)
    shared = dict(device=device, progress=progress, data_root=data_root)
    pre = pretrained_model(job.dataset, job.seed, p, **shared)
    control = pretrained_model(job.dataset, control_seed(job.seed), p, **shared)
    kept = X[~deleted]
    re = DCGAN(epochs=p.gan_epochs, seed=job.seed, width=p.gan_width, batch_size=p.batch_size, device=device,
               progress=progress).fit(kept)
    finetuned = {k: FineTunedDCGAN(init=pre, epochs=k, seed=job.seed, batch_size=p.batch_size, device=device,
                                   progress=progress).fit(kept) for k in bp.finetune_epochs}
    vdm = VDMDRE(divergence="kl", epochs=p.vdm_epochs, seed=job.seed, width=p.vdm_width, batch_size=p.batch_size,
                 device=device, progress=progress).fit(X, deleted)
    clf = label_classifier(job.dataset, p, **shared)
    oracle = LabelRatio(clf).fit(labels, deleted)
    return BaselineModels(pre, re, control, finetuned, vdm, oracle, clf, X, labels, deleted, test_X, test_labels,
                          n_split, time.perf_counter() - t0, bp)


def sampler(models, method, bound):
    """What draws the samples of ``method``: a model's ``sample``, or Alg. 1
    (:class:`gendel.core.deletion.ApproximateDeletion`) for ``approx`` (ρ̂_ℰ, bound ``bound``)
    and ``oracle`` (the label ratio, bound max w).

    Examples
    --------
    >>> sampler(None, "distill", 10.0)
    Traceback (most recent call last):
    ValueError: unknown method 'distill'; the methods are pre, re, approx, oracle, finetune-<epochs>, control
    """
    from gendel.core.deletion import ApproximateDeletion

    if method == "approx":
        return ApproximateDeletion(models.pretrained, models.vdm, bound=bound, max_seconds=None)
    if method == "oracle":
        return ApproximateDeletion(models.pretrained, models.oracle, max_seconds=None)
    if method in ("pre", "re", "control"):
        return {"pre": models.pretrained, "re": models.retrained, "control": models.control}[method]
    if method.startswith("finetune-") and method[9:].isdigit() and int(method[9:]) in models.finetuned:
        return models.finetuned[int(method[9:])]
    raise ValueError(f"unknown method {method!r}; the methods are pre, re, approx, oracle, finetune-<epochs>, control")


def training_cost(models, method):
    """``(seconds, cpu_seconds)`` of what ``method`` trains once X′ is known: re-training, the
    fine-tuning, the VDM for ``approx``; nothing for ``pre``, ``oracle`` (label counts) and the
    ``control``.

    Examples
    --------
    >>> training_cost(None, "pre")
    (0.0, 0.0)
    """
    model = {"re": getattr(models, "retrained", None), "approx": getattr(models, "vdm", None)}.get(method)
    if method.startswith("finetune-"):
        model = models.finetuned[int(method[9:])]
    if model is None:
        return 0.0, 0.0
    return float(model.fit_seconds_), float(model.fit_cpu_seconds_)


def _stream(job, stage):
    return np.random.default_rng([job.seed, 100 + stage])


def evaluate(job, models):
    """Stages 2 and 3: every method's samples, their labels (Q2) and the deletion test (Q3).

    Per method, one pool of n = max(``m_labels``, R × ``m_test``) samples (R: the profile's ``test_repeats``), each from its
    own stream: the labels of the first ``m_labels``, and LR and ASC of ``repeats`` sets of
    ``m_test`` with Ŷ ~ p̂ (a pool of its own) and ρ̂_ℰ. ``pre``'s pool is fresh samples of p̂:
    its statistics are the null distribution of the test.

    Returns a dict: ``labels``, ``confidence``, ``sampling`` (per method: seconds per sample,
    wall and CPU; Alg. 1's acceptance rate, proposals and share above B), ``training`` (per
    method: seconds, CPU seconds), ``statistics`` (key -> method -> R values), ``ks`` (key ->
    method -> KS against ``pre``), ``arrays`` (32 samples of each method) and ``seconds``.

    Examples
    --------
    >>> out = evaluate(job, train(job))       # needs MNIST; trains # doctest: +SKIP
    """
    if not (np.array_equal(getattr(models, "deleted", None), baseline_deletion_mask(job, models.labels))
            and getattr(models, "profile", None) == check_baseline_job(job)
            and getattr(getattr(models, "pretrained", None), "seed", None) == job.seed):
        raise ValueError(f"these trained models are not {job.name}'s (another profile's, seed's, data or deletion "
                         f"set): pass the models that train(job) returned for it")
    bp = models.profile
    p = bp.sizes
    t_start = time.perf_counter()
    clf, vdm = models.classifier, models.vdm
    R = bp.test_repeats
    n = max(p.m_labels, R * p.m_test)
    shape = (R, p.m_test)
    yhat = vdm.log_ratio(models.pretrained.sample(R * p.m_test, rng=_stream(job, 0))).reshape(shape)
    out = {"labels": {}, "confidence": {}, "sampling": {}, "training": {}, "arrays": {}}
    scores = {}
    for i, method in enumerate(bp.methods(), start=1):
        draw = sampler(models, method, p.bound)
        t0, c0 = time.perf_counter(), time.process_time()
        with warnings.catch_warnings():  # Alg. 1's share above B is recorded below
            warnings.simplefilter("ignore", RuntimeWarning)
            Y = draw.sample(n, rng=_stream(job, i))
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
        record = {"n": n, "seconds_per_sample": wall / n, "cpu_seconds_per_sample": cpu / n}
        if method in ("approx", "oracle"):
            record |= {"bound": float(draw.bound_), "acceptance_rate": float(draw.acceptance_rate_),
                       "n_proposals": int(draw.n_proposals_), "bound_exceeded": float(draw.bound_exceeded_)}
        out["sampling"][method] = record
        seconds, cpu_seconds = training_cost(models, method)
        out["training"][method] = {"seconds": seconds, "cpu_seconds": cpu_seconds}
        proba = clf.predict_proba(Y[:p.m_labels])
        out["labels"][method] = np.bincount(proba.argmax(1), minlength=10)
        out["confidence"][method] = float(proba.max(1).mean())
        out["arrays"][f"grid_{method}"] = to_pixels(Y[:32])
        scores[method] = vdm.log_ratio(Y[:R * p.m_test]).reshape(shape)
        del Y
    values, ks = {}, {}
    for key in PAPER_STATISTICS:
        stat = STATISTICS[key]
        values[key] = {m: stat.of_log_ratios(yhat, s) for m, s in scores.items()}
        ks[key] = {m: ks_statistic(values[key]["pre"], values[key][m]) for m in scores if m != "pre"}
    out["statistics"], out["ks"] = values, ks
    out["seconds"] = time.perf_counter() - t_start
    return out


def make_baseline_result(job, *, device=None, progress=True, data_root=None):
    """Everything a job of the baselines grid computes: ``(record, arrays)``, the JSON part of its
    result file without provenance and checksum, and its arrays; with ``hardware`` (of every
    training and of this evaluation) and ``seconds`` (per stage) for the provenance.

    The device is resolved here, once, and handed down, as :func:`gendel.gan.experiment.make_result`
    does; :func:`gendel.gan.baseline_results.run_baseline_job` adds the provenance and writes the file.

    Examples
    --------
    >>> record, arrays = make_baseline_result(find_baseline_job("tiny", "mnist-random-0.7-seed0"))  # doctest: +SKIP
    """
    from gendel.gan.devices import hardware, pick_device

    device = pick_device(device)
    t_start = time.perf_counter()
    models = train(job, device=device, progress=progress, data_root=data_root)
    bp = models.profile
    p = bp.sizes
    out = evaluate(job, models)
    clf = models.classifier
    seconds = {"train": models.seconds, "evaluate": out["seconds"], "job": time.perf_counter() - t_start}
    record = {
        "version": BASELINE_VERSION,
        "kind": "baselines",
        "job": {**dataclasses.asdict(job), "name": job.name, "control_seed": control_seed(job.seed)},
        "profile": bp.record(),
        "data": data_record(job, models, clf),
        "classifier": {"test_accuracy": float(np.mean(clf.predict(models.test_X) == models.test_labels)),
                       "confidence": out["confidence"]},
        "methods": list(bp.methods()),
        "labels": out["labels"],
        "sampling": out["sampling"],
        "training": out["training"],
        "oracle_weights": models.oracle.weights_,
        "q3": {"m": p.m_test, "R": bp.test_repeats, "statistics": out["statistics"], "ks": out["ks"]},
        "hardware": {"pretrained": models.pretrained.hardware_, "retrained": models.retrained.hardware_,
                     "control": models.control.hardware_, "vdm": models.vdm.hardware_,
                     "classifier": clf.hardware_,
                     **{f"finetune-{k}": m.hardware_ for k, m in models.finetuned.items()},
                     "evaluation": hardware(device)},
        "seconds": seconds,
    }
    return record, out["arrays"]


#: What computes a result of the baselines grid: the roots of
#: :func:`gendel.gan.baseline_results.baseline_fingerprint`.
STAGES = (baseline_deletion_mask, random_deletion_size, train, sampler, training_cost, evaluate, make_baseline_result,
          LabelRatio)

__all__ = ["BASELINE_PROFILES", "BaselineProfile", "LabelRatio", "baseline_jobs", "make_baseline_result"]
