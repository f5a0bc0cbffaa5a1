"""Summaries of GAN results per question (:class:`~gendel.gan.result_files.JobResult` in, numbers out).

Every function takes results and returns numbers or small records; the pages display them and
:mod:`gendel.claims.gan` turns them into verdicts. Nothing here trains or samples.

The quantities, for one deletion set (data set, setting, λ) over the seeds of a profile:

- label distributions of the pre-trained p̂, re-trained p̂′, approximated ρ̂_ℰ·p̂ (Alg. 1) and
  control (a second p̂ on the same X) models, read by the label classifier from ``m`` samples;
- the exact *yardstick*: the label distributions of X and of X \\ X', known from the data;
- the *deleted mass* δ: the share of samples whose label is one X' was drawn from;
- total-variation (TV) distances between label distributions, and the *run-to-run control*:
  what two trainings on the same data differ by (p̂ against the control; p̂′ of two seeds, which
  see the same X \\ X' since X' does not depend on the seed);
- the sampling noise of a label distribution of ``m`` samples (multinomial).
"""

from __future__ import annotations

import dataclasses
import itertools
from collections import defaultdict

import numpy as np

from gendel.deletion_test.stats import PAPER_STATISTICS, STATISTICS, ks_statistic

from gendel.gan.labels import MODELS, achieved_shift, deleted_mass, proportions, sampling_tv, tv_distance


def _key(result):
    return result.dataset, result.setting, float(result.lam)


def group(results):
    """Results grouped by (data set, setting, λ), seeds in order: ``{key: [result, ...]}``.

    Examples
    --------
    >>> from gendel.gan.result_files import stored_results
    >>> rs = stored_results("gpu")
    >>> [(k, [r.seed for r in v]) for k, v in group(rs).items()][:2]
    [(('mnist', 'even', 0.7), [0]), (('mnist', 'odd', 0.7), [0])]
    """
    groups = defaultdict(list)
    order = {"mnist": 0, "fashion-mnist": 1}
    for r in sorted(results, key=lambda r: (order.get(r.dataset, 2), _key(r), r.seed)):
        groups[_key(r)].append(r)
    return dict(groups)


@dataclasses.dataclass(frozen=True)
class LabelSummary:
    """Q2 for one deletion set: label distributions per seed, the yardstick and the control.

    Attributes
    ----------
    dataset, setting, lam
        The deletion set.
    seeds : tuple of int
    m : int
        Samples per model and seed whose labels were counted.
    dist : dict
        model -> (n_seeds, 10) label distributions, one row per seed (no ``control`` in results
        made before the control existed).
    data_all, data_kept : ndarray (10,)
        The exact label distributions of X and of X \\ X' (the yardstick).

    Examples
    --------
    >>> from gendel.gan.result_files import stored_results
    >>> (s, *_) = label_summary(stored_results("gpu"))
    >>> s.dataset, s.setting, s.seeds, s.dist["pre"].shape
    ('mnist', 'even', (0,), (1, 10))
    >>> round(float(s.exact_shift), 3)         # δ(X \\ X') − δ(X): what deleting X' does to the labels
    -0.088
    """

    dataset: str
    setting: str
    lam: float
    seeds: tuple
    m: int
    dist: dict
    data_all: np.ndarray
    data_kept: np.ndarray

    @property
    def models(self):
        """The models with label counts (``control`` is missing from results of format version 1)."""
        return tuple(k for k in MODELS if k in self.dist)

    def mean(self, model):
        """The mean label distribution over the seeds."""
        return self.dist[model].mean(axis=0)

    def sem(self, model):
        """The standard error of the mean over the seeds (NaN for one seed)."""
        d = self.dist[model]
        return d.std(axis=0, ddof=1) / np.sqrt(len(d)) if len(d) > 1 else np.full(10, np.nan)

    def mass(self, model):
        """δ per seed: the share of ``model``'s samples on the labels X' was drawn from."""
        return deleted_mass(self.dist[model], self.setting)

    @property
    def exact_shift(self):
        """δ(X \\ X') − δ(X): the shift of the deleted mass that deleting X' makes in the data."""
        return float(deleted_mass(self.data_kept, self.setting) - deleted_mass(self.data_all, self.setting))

    def shift(self, model):
        """δ(model) − δ(p̂) per seed, paired by seed (for ``approx`` the same p̂ is filtered)."""
        return self.mass(model) - self.mass("pre")

    def tv(self, a, b):
        """TV(a, b) per seed, paired by seed; ``b`` may be ``"kept"`` or ``"all"`` (the data)."""
        other = {"kept": self.data_kept, "all": self.data_all}.get(b)
        return tv_distance(self.dist[a], self.dist[b] if other is None else other)

    def tv_between_seeds(self, model):
        """TV between ``model``'s label distributions of every pair of seeds (two trainings on the
        same data: for ``re`` the run-to-run control of the re-trained model)."""
        d = self.dist[model]
        return np.array([tv_distance(d[i], d[j]) for i, j in itertools.combinations(range(len(d)), 2)])

    def sampling(self, model="re"):
        """(mean, standard deviation) of the TV that sampling ``m`` points twice puts between two
        identical models with ``model``'s mean label distribution."""
        return sampling_tv(self.mean(model), self.m)

    def gap_closed(self):
        """1 − TV(approx, re) / TV(pre, re) per seed (NaN where there is no gap)."""
        gap = self.tv("pre", "re")
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(gap > 0, 1.0 - self.tv("approx", "re") / np.where(gap > 0, gap, 1.0), np.nan)


def label_summary(results):
    """One :class:`LabelSummary` per deletion set, in a fixed order.

    Examples
    --------
    >>> from gendel.gan.result_files import stored_results
    >>> [f"{s.dataset} {s.setting}-{s.lam:g}" for s in label_summary(stored_results("gpu"))]
    ['mnist even-0.7', 'mnist odd-0.7', 'fashion-mnist even-0.7', 'fashion-mnist odd-0.7']
    """
    out = []
    order = {"mnist": 0, "fashion-mnist": 1}
    for (dataset, setting, lam), rs in sorted(group(results).items(),
                                              key=lambda kv: (order.get(kv[0][0], 2), kv[0][1], kv[0][2])):
        models = [k for k in MODELS if all(k in r.labels for r in rs)]
        out.append(LabelSummary(
            dataset, setting, lam, tuple(r.seed for r in rs), int(rs[0].profile["m_labels"]),
            {k: np.array([proportions(r.labels[k]) for r in rs]) for k in models},
            proportions(rs[0].data["label_counts_X"]), proportions(rs[0].data["label_counts_kept"])))
    return out


def statistics(results, stat, *, seed=None):
    """Q3 values of ``stat`` per deletion set: ``{key: {"h0", "h1", "control"}}`` of one seed (one
    pair of trained models, as the test sees it) or pooled over the seeds (``seed=None``).

    Examples
    --------
    >>> from gendel.gan.result_files import stored_results
    >>> values = statistics(stored_results("gpu"), "lr")
    >>> sorted(values[("mnist", "odd", 0.7)]), values[("mnist", "odd", 0.7)]["h0"].shape
    (['h0', 'h1'], (100,))
    """
    if stat not in PAPER_STATISTICS:
        raise ValueError(f"stat must be one of {PAPER_STATISTICS}; got {stat!r}")
    out = {}
    for key, rs in group([r for r in results if seed is None or r.seed == seed]).items():
        sides = [w for w in ("h0", "h1", "control") if all(w in r.statistic(stat) for r in rs)]
        out[key] = {w: np.concatenate([np.asarray(r.statistic(stat)[w], float) for r in rs]) for w in sides}
    return out


@dataclasses.dataclass(frozen=True)
class KSSummary:
    """Q3 for one deletion set and statistic: KS between H0 and H1 per seed, and the control
    (KS between H0 and samples of a second pre-trained model), with bootstrap standard errors.

    Examples
    --------
    >>> from gendel.gan.result_files import stored_results
    >>> s = ks_summary(stored_results("gpu"))[0]
    >>> s.stat, s.ks.shape, bool(0 <= s.ks[0] <= 1)
    ('lr', (1,), True)
    """

    dataset: str
    setting: str
    lam: float
    stat: str
    seeds: tuple
    R: int
    ks: np.ndarray           # per seed: KS(H0, H1)
    ks_control: np.ndarray   # per seed: KS(H0, control); empty for results without a control
    boot_se: np.ndarray      # per seed: bootstrap standard error of KS(H0, H1)
    ks_up: np.ndarray = None          # per seed: one-sided KS(H0, H1) in the statistic's direction
    ks_up_control: np.ndarray = None  # per seed: one-sided KS(H0, control); empty without a control

    @property
    def mean(self):
        return float(self.ks.mean())

    @property
    def se(self):
        """Standard error of the mean KS: over the seeds when there are several, else the bootstrap's."""
        if len(self.ks) > 1:
            return float(self.ks.std(ddof=1) / np.sqrt(len(self.ks)))
        return float(self.boot_se[0])


def ks_one_sided(h0, h1, direction="greater"):
    """The one-sided two-sample KS statistic in the direction of deletion: for ``"greater"`` (the
    statistic grows from H0 to H1) ``max_t F_h0(t) − F_h1(t)``, at least 0: how far the H1 values lie
    above the H0 values. For ``"less"`` the mirror image.

    Examples
    --------
    >>> ks_one_sided(np.arange(10.0), np.arange(10.0) + 5), ks_one_sided(np.arange(10.0), np.arange(10.0) - 5)
    (0.5, 0.0)
    """
    if direction not in ("greater", "less"):
        raise ValueError(f"direction must be 'greater' or 'less'; got {direction!r}")
    h0, h1 = np.sort(np.asarray(h0, float)), np.sort(np.asarray(h1, float))
    if direction == "less":
        h0, h1 = np.sort(-h0), np.sort(-h1)
    grid = np.concatenate([h0, h1])
    f0 = np.searchsorted(h0, grid, side="right") / len(h0)
    f1 = np.searchsorted(h1, grid, side="right") / len(h1)
    return float(max(0.0, np.max(f0 - f1)))


def ks_bootstrap_se(h0, h1, *, n_boot=300, rng=0):
    """Bootstrap standard error of KS(h0, h1) (the R repeats of each side resampled).

    Examples
    --------
    >>> se = ks_bootstrap_se(np.arange(40.0), np.arange(40.0) + 20)
    >>> 0.0 < se < 0.2
    True
    """
    rng = np.random.default_rng(rng)
    h0, h1 = np.asarray(h0, float), np.asarray(h1, float)
    values = [ks_statistic(h0[rng.integers(0, len(h0), len(h0))], h1[rng.integers(0, len(h1), len(h1))])
              for _ in range(n_boot)]
    return float(np.std(values, ddof=1))


def ks_summary(results, stats=PAPER_STATISTICS):
    """One :class:`KSSummary` per deletion set and statistic.

    Examples
    --------
    >>> from gendel.gan.result_files import stored_results
    >>> [s.stat for s in ks_summary(stored_results("gpu"))][:3]
    ['lr', 'asc-log', 'asc-tlogt']
    """
    out = []
    for (dataset, setting, lam), rs in group(results).items():
        for stat in stats:
            ks = np.array([r.q3["ks"][stat]["h1"] for r in rs], float)
            control = np.array([r.q3["ks"][stat]["control"] for r in rs if "control" in r.q3["ks"][stat]], float)
            boot = np.array([ks_bootstrap_se(r.statistic(stat)["h0"], r.statistic(stat)["h1"], rng=i)
                             for i, r in enumerate(rs)])
            direction = STATISTICS[stat].direction
            up = np.array([ks_one_sided(r.statistic(stat)["h0"], r.statistic(stat)["h1"], direction) for r in rs])
            up_control = np.array([ks_one_sided(r.statistic(stat)["h0"], r.statistic(stat)["control"], direction)
                                   for r in rs if "control" in r.statistic(stat)])
            out.append(KSSummary(dataset, setting, lam, stat, tuple(r.seed for r in rs), int(rs[0].q3["R"]), ks,
                                 control, boot, up, up_control))
    return out


@dataclasses.dataclass(frozen=True)
class Achieved:
    """How much of the deletion Alg. 1 achieves with the job's ρ̂_ℰ, by pool, per seed.

    ``train`` and ``test``: the *empirical model* (the training images, the unseen test images,
    labelled by their true labels); ``gan``: the pre-trained GAN's samples (labelled by the
    classifier); ``gan_by_epoch``: the GAN after each kept epoch of its training, with the
    classifier's mean confidence on its samples (a rough quality) and the training seconds.

    Examples
    --------
    >>> from gendel.gan.result_files import stored_results
    >>> achieved_summary(stored_results("gpu"))    # results of format version 1 have no pools
    []
    """

    dataset: str
    setting: str
    lam: float
    seeds: tuple
    train: np.ndarray
    test: np.ndarray
    gan: np.ndarray
    gan_by_epoch: dict       # epoch -> per-seed achieved share


def achieved_summary(results):
    """One :class:`Achieved` per deletion set (results without the pools are left out).

    Examples
    --------
    >>> achieved_summary([])
    []
    """
    out = []
    for (dataset, setting, lam), rs in group([r for r in results if r.reweighted is not None]).items():
        pools = {p: np.array([achieved_shift(r.reweighted[p]["weights"], r.reweighted[p]["counts"], setting, lam)
                              for r in rs]) for p in ("train", "test", "pretrained")}
        by_epoch = defaultdict(list)
        for r in rs:
            c = r.curves["pretrained"]
            for e, w, n in zip(c["epochs"], c["reweighted"], c["labels"]):
                by_epoch[int(e)].append(achieved_shift(w, n, setting, lam))
        out.append(Achieved(dataset, setting, lam, tuple(r.seed for r in rs), pools["train"], pools["test"],
                            pools["pretrained"], {e: np.array(v) for e, v in sorted(by_epoch.items())}))
    return out


@dataclasses.dataclass(frozen=True)
class Cost:
    """Re-training against fast deletion for one job, in CPU seconds of one thread (or wall seconds
    on a GPU), with quality measured as the TV distance to the exact yardstick X \\ X'.

    Attributes
    ----------
    retrain_curve : ndarray (epochs, 2)
        (training seconds up to the epoch, TV of p̂′ after that epoch to X \\ X').
    fast_curve : ndarray (epochs, 2)
        (VDM training seconds up to the epoch + Alg. 1's seconds for ``m`` samples, TV of the
        label distribution Alg. 1 gives with that ρ̂_ℰ to X \\ X').
    sampling_seconds : float
        Alg. 1's seconds for ``m`` accepted samples (its proposals and ρ̂_ℰ on them).
    retrain_seconds, fast_seconds : float
        The whole training of p̂′; the whole VDM plus Alg. 1 (the paper's fixed-epoch comparison).

    Examples
    --------
    >>> c = Cost("mnist", "even", 0.7, 0, "cpu", 100, np.array([[10.0, 0.3], [20.0, 0.1]]),
    ...          np.array([[1.0, 0.25], [2.0, 0.2]]), 0.5)
    >>> c.fast_tv, c.retrain_seconds_to_reach(c.fast_tv)   # TV 0.2 is reached half way from 10 to 20 s
    (0.2, 15.0)
    >>> c.speedup_at_equal_quality, c.speedup_fixed_epochs
    (7.5, 10.0)
    """

    dataset: str
    setting: str
    lam: float
    seed: int
    clock: str               # "cpu" (CPU seconds) or "wall"
    m: int
    retrain_curve: np.ndarray
    fast_curve: np.ndarray
    sampling_seconds: float

    @property
    def retrain_seconds(self):
        return float(self.retrain_curve[-1, 0])

    @property
    def fast_seconds(self):
        return float(self.fast_curve[-1, 0])

    @property
    def fast_tv(self):
        """The TV to X \\ X' that fast deletion reaches with the fully trained ρ̂_ℰ."""
        return float(self.fast_curve[-1, 1])

    def retrain_seconds_to_reach(self, tv):
        """The training seconds after which p̂′ first has a TV to X \\ X' of at most ``tv``
        (linear between kept epochs, and from no training at the first epoch's TV); inf if never."""
        seconds, values = self.retrain_curve[:, 0], self.retrain_curve[:, 1]
        below = np.flatnonzero(values <= tv)
        if not len(below):
            return float("inf")
        i = below[0]
        if i == 0:
            return float(seconds[0])
        s0, s1, v0, v1 = seconds[i - 1], seconds[i], values[i - 1], values[i]
        return float(s0 + (s1 - s0) * (v0 - tv) / (v0 - v1)) if v0 != v1 else float(s1)

    def _check_seconds(self):
        if not self.fast_seconds > 0:
            raise ValueError(
                f"fast deletion took {self.fast_seconds:g} {self.clock} seconds in the result of {self.dataset}, "
                f"{self.setting}, lam = {self.lam:g}, seed {self.seed}: a speed-up needs a positive time. Its timings "
                "are damaged or were not measured; remake the result (python -m gendel.gan run ...)")

    @property
    def speedup_at_equal_quality(self):
        """Re-training's seconds to reach fast deletion's TV, over fast deletion's seconds."""
        self._check_seconds()
        return self.retrain_seconds_to_reach(self.fast_tv) / self.fast_seconds

    @property
    def speedup_fixed_epochs(self):
        """The paper's comparison: the whole re-training over the whole VDM plus Alg. 1."""
        self._check_seconds()
        return self.retrain_seconds / self.fast_seconds


def costs(results, *, clock="cpu"):
    """One :class:`Cost` per job with curves, in CPU seconds (``clock="cpu"``: the work of one
    thread, robust to whatever else the machine ran) or wall seconds (``"wall"``).

    Examples
    --------
    >>> from gendel.gan.result_files import stored_results
    >>> costs(stored_results("gpu"))     # results of format version 1 have no curves
    []
    """
    if clock not in ("cpu", "wall"):
        raise ValueError(f"clock must be 'cpu' or 'wall'; got {clock!r}")
    key = "cpu_seconds" if clock == "cpu" else "seconds"
    suffix = "_cpu" if clock == "cpu" else ""
    out = []
    for r in results:
        if r.curves is None:
            continue
        kept = proportions(r.data["label_counts_kept"])
        m = int(r.profile["m_labels"])
        sampling = float(r.timings[f"alg1_per_accepted{suffix}"]) * m
        re = r.curves["retrained"]
        retrain = np.column_stack([re[key], tv_distance(proportions(re["labels"]), kept)])
        v = r.curves["vdm"]
        fast = np.column_stack([np.asarray(v[key], float) + sampling,
                                tv_distance(proportions(v["reweighted_pretrained"]), kept)])
        out.append(Cost(r.dataset, r.setting, float(r.lam), r.seed, clock, m, retrain, fast, sampling))
    return out
