"""The sizes and the jobs of the experiment of §5.2 and Appendix E.

A *profile* sizes the protocol (``paper``: the paper's settings; ``gpu``; ``quick``: 2 CPU cores;
``tiny``: seconds); a *job* is one (data set, deletion set, λ, seed) of a profile.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json

from gendel.gan.images import IMAGE_DATASETS

#: Version of the result format and of the protocol's numbers.
RESULT_VERSION = 2
#: The deletion settings of Appendix E.1: the parity of the labels deleted from.
SETTINGS = ("even", "odd")


@dataclasses.dataclass(frozen=True, kw_only=True)
class Profile:
    """How large the experiment of §5.2 is run. Every field is a setting of the protocol.

    Attributes
    ----------
    name : str
    datasets : tuple of str
        ``"mnist"``, ``"fashion-mnist"``.
    deletions : tuple of (setting, λ)
        The deletion sets, e.g. ``("even", 0.7)`` (Appendix E.1's ``even-0.7``).
    seeds : tuple of int
        One job per seed; the seed sets the GANs' and the DRE's initial weights and batches.
    n_train : int or None
        Training images used (a fixed random subset; None: the whole split).
    gan_epochs, gan_width : int
        DCGAN training epochs and width (channels of the discriminator's first layer).
    vdm_epochs, vdm_width : int
        The same for the VDM network T.
    classifier_epochs : int
        Epochs of the label classifier.
    m_labels : int
        Samples of each model whose labels Q2 counts.
    m_test, repeats : int
        Q3: R = ``repeats`` repeats of m = ``m_test`` samples per set.
    m_curve : int
        Samples per epoch of the per-epoch curves.
    bound : float
        B of Alg. 1 (at least 1: a normalised ratio has sup ≥ 1).
    batch_size : int
        Mini-batch size of every training.

    Examples
    --------
    >>> tiny = PROFILES["tiny"]
    >>> tiny.gan_epochs, tiny.deletions
    (2, (('even', 0.7), ('odd', 0.7)))
    >>> smaller = dataclasses.replace(tiny, name="mine", m_labels=100)   # a sizing of your own
    >>> smaller.m_labels, smaller.key() != tiny.key()                     # results never mix
    (100, True)
    >>> dataclasses.replace(tiny, bound=0.01)
    Traceback (most recent call last):
    ValueError: bound must be at least 1 (B >= sup ρ̂_ℰ, and a normalised ratio has sup ≥ 1; the paper uses 10); got 0.01
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
    m_curve: int
    bound: float = 10.0
    batch_size: int = 128

    def __post_init__(self):
        from gendel._validation import check_count

        if not isinstance(self.name, str) or not self.name:
            raise ValueError(f"name must be a non-empty string; got {self.name!r}")
        for d in self.datasets:
            if d not in IMAGE_DATASETS:
                raise ValueError(f"datasets must be among {IMAGE_DATASETS}; got {d!r}")
        for deletion in self.deletions:
            if len(deletion) != 2 or deletion[0] not in SETTINGS or not 0 < deletion[1] < 1:
                raise ValueError(f"deletions must be (setting, λ) pairs with setting in {SETTINGS} and λ in (0, 1); "
                                 f"got {deletion!r}")
        for seed in self.seeds:
            check_count(seed, "a seed", minimum=0)
        if len(set(self.seeds)) != len(self.seeds) or not self.seeds:
            raise ValueError(f"seeds must be distinct, at least one; got {self.seeds!r}")
        if self.n_train is not None:
            check_count(self.n_train, "n_train", minimum=10)
        for field in ("gan_epochs", "gan_width", "vdm_epochs", "vdm_width", "classifier_epochs", "m_labels", "m_test",
                      "repeats", "m_curve"):
            check_count(getattr(self, field), field)
        check_count(self.batch_size, "batch_size", minimum=2)
        if isinstance(self.bound, bool) or not isinstance(self.bound, (int, float)) or not self.bound >= 1:
            raise ValueError("bound must be at least 1 (B >= sup ρ̂_ℰ, and a normalised ratio has sup ≥ 1; the paper "
                             f"uses 10); got {self.bound!r}")
        if self.bound == float("inf"):
            raise ValueError("bound must be a finite number (the B of Alg. 1, which accepts a proposal with probability "
                             "ρ̂_ℰ(y) / B: with B = inf it would accept none); the paper uses 10; got inf")

    def settings(self):
        """The settings that decide a job's numbers (every field but the name and the grid's
        lists of data sets, deletion sets and seeds): a result is valid for every profile with
        the same settings."""
        d = dataclasses.asdict(self)
        for grid in ("name", "datasets", "deletions", "seeds"):
            d.pop(grid)
        return d

    def key(self):
        """A short hash of every setting: results of another sizing never mix."""
        payload = json.dumps([RESULT_VERSION, dataclasses.asdict(self)], sort_keys=True)
        return hashlib.sha256(payload.encode()).hexdigest()[:12]


_ALL = tuple((s, lam) for s in SETTINGS for lam in (0.6, 0.7, 0.8, 0.9))

PROFILES = {
    # Appendix E.1: 200 GAN epochs, VDM 40 epochs (learning rate halved), m = 50K, five seeds,
    # all eight deletion sets, Q3 with m = 1000 and R = 100.
    "paper": Profile(name="paper", datasets=IMAGE_DATASETS, deletions=_ALL, seeds=(0, 1, 2, 3, 4), n_train=None,
                     gan_epochs=200, gan_width=64, vdm_epochs=40, vdm_width=64, classifier_epochs=10,
                     m_labels=50_000, m_test=1000, repeats=100, m_curve=5000),
    # A GPU machine for about an hour: the whole grid with three seeds, a fifth of the paper's epochs.
    "gpu": Profile(name="gpu", datasets=IMAGE_DATASETS, deletions=_ALL, seeds=(0, 1, 2), n_train=None,
                   gan_epochs=40, gan_width=64, vdm_epochs=20, vdm_width=64, classifier_epochs=5,
                   m_labels=50_000, m_test=1000, repeats=100, m_curve=5000),
    # 2 CPU cores for a few hours (stored with gendel): the whole grid, three seeds, small networks.
    "quick": Profile(name="quick", datasets=IMAGE_DATASETS, deletions=_ALL, seeds=(0, 1, 2), n_train=8000,
                     gan_epochs=12, gan_width=16, vdm_epochs=10, vdm_width=16, classifier_epochs=2,
                     m_labels=5000, m_test=500, repeats=40, m_curve=5000),
    # Seconds per job: the book's build runs it, tests compare it with its stored results.
    "tiny": Profile(name="tiny", datasets=("mnist",), deletions=(("even", 0.7), ("odd", 0.7)), seeds=(0,),
                    n_train=256, gan_epochs=2, gan_width=8, vdm_epochs=2, vdm_width=8, classifier_epochs=1,
                    m_labels=200, m_test=50, repeats=4, m_curve=200, batch_size=64),
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

    @property
    def control_seed(self):
        """The seed of the control: a second pre-trained DCGAN on the same X (seed + 1)."""
        return self.seed + 1


def jobs(profile):
    """Every job of a profile, in a fixed order.

    Examples
    --------
    >>> [job.name for job in jobs("tiny")]
    ['mnist-even-0.7-seed0', 'mnist-odd-0.7-seed0']
    >>> len(jobs("paper")), len(jobs("quick"))    # 2 data sets x 8 deletion sets x 5 (3) seeds
    (80, 48)
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


__all__ = ["PROFILES", "Profile", "Job", "jobs", "find_job"]
