"""From result files of :mod:`gendel.gan.protocol` to the numbers and verdicts of the chapter.

Every function takes result dicts (as returned by :func:`gendel.gan.protocol.run_job` or
:func:`~gendel.gan.protocol.load_results`) and returns plain numbers or rows; the pages only
display them. The claims of §5.2 and Appendix E each have one function returning a
:class:`Claim`, tested on constructed results where the verdict is known.
"""

from __future__ import annotations

import dataclasses
from collections import defaultdict

import numpy as np


MODELS = ("pre", "re", "approx")
MODEL_NAMES = {"pre": "pre-trained p̂", "re": "re-trained p̂′", "approx": "approximated ρ̂_ℰ·p̂"}
STATISTICS = ("LR", "ASC log", "ASC tlogt")


def deleted_labels(setting):
    """The labels X' is drawn from: 0, 2, 4, 6, 8 for ``even``; 1, 3, 5, 7, 9 for ``odd``.

    Examples
    --------
    >>> deleted_labels("odd").tolist()
    [1, 3, 5, 7, 9]
    """
    if setting not in ("even", "odd"):
        raise ValueError(f"setting must be 'even' or 'odd'; got {setting!r}")
    return np.arange(0 if setting == "even" else 1, 10, 2)


def proportions(counts):
    """Label counts -> label distribution (sums to one).

    Examples
    --------
    >>> proportions([[1, 3], [2, 2]]).tolist()     # one distribution per row
    [[0.25, 0.75], [0.5, 0.5]]
    """
    counts = np.asarray(counts, dtype=float)
    total = counts.sum(axis=-1, keepdims=True)
    if np.any(total <= 0):
        raise ValueError("label counts must have a positive total")
    return counts / total


def tv_distance(p, q):
    """Total-variation distance (1/2) sum |p - q| between label distributions (last axis).

    Examples
    --------
    >>> float(tv_distance([0.5, 0.5, 0.0], [0.0, 0.5, 0.5]))
    0.5
    """
    return 0.5 * np.abs(np.asarray(p, float) - np.asarray(q, float)).sum(axis=-1)


def gap_closed(pre, re, approx):
    """The fraction of the gap TV(pre, re) that fast deletion closed: 1 - TV(approx, re) / TV(pre, re).

    NaN where the pre-trained and the re-trained distributions are equal (there is no gap).

    Examples
    --------
    >>> pre, re, approx = [0.5, 0.5], [0.25, 0.75], [0.3, 0.7]    # TV 0.25 before, 0.05 after
    >>> round(float(gap_closed(pre, re, approx)), 3)
    0.8
    """
    gap = np.asarray(tv_distance(pre, re), float)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(gap > 0, 1.0 - tv_distance(approx, re) / np.where(gap > 0, gap, 1.0), np.nan)


def class_reweighted(pre, setting, lam):
    """The pre-trained label distribution re-weighted by the exact class-level ratio of the data.

    Deleting a 1 - λ fraction of each label of one parity multiplies the data distribution of
    those labels by λ (and renormalises). A DRE equal to that data ratio, ρ_* = p_*'/p_*, would
    turn the pre-trained model's labels into this distribution: the best fast deletion can do
    with a perfect DRE, whatever the pre-trained model's own label frequencies.

    Examples
    --------
    >>> q = class_reweighted(np.full(10, 0.1), "even", 0.5)   # even labels at half their weight
    >>> np.round(q[:2], 3).tolist(), round(float(q.sum()), 3)
    ([0.067, 0.133], 1.0)
    """
    w = np.ones(10)
    w[deleted_labels(setting)] = lam
    q = np.asarray(pre, float) * w
    return q / q.sum(axis=-1, keepdims=True)


def _key(result):
    job = result["job"]
    return job["dataset"], job["setting"], float(job["lam"])


def group(results):
    """Results grouped by (data set, setting, λ), seeds in order: {key: [result, ...]}.

    Examples
    --------
    >>> job = lambda setting, seed: {"job": {"dataset": "mnist", "setting": setting, "lam": 0.7, "seed": seed}}
    >>> for key, rs in group([job("odd", 1), job("even", 0), job("odd", 0)]).items():
    ...     print(key, [r["job"]["seed"] for r in rs])
    ('mnist', 'even', 0.7) [0]
    ('mnist', 'odd', 0.7) [0, 1]
    """
    groups = defaultdict(list)
    for r in sorted(results, key=lambda r: (_key(r), r["job"]["seed"])):
        groups[_key(r)].append(r)
    return dict(groups)


def _sem(values):
    values = np.asarray(values, float)
    return values.std(axis=0, ddof=1) / np.sqrt(len(values)) if len(values) > 1 else np.full(values.shape[1:], np.nan)


@dataclasses.dataclass(frozen=True)
class LabelSummary:
    """Q2 for one deletion set: label distributions (mean and standard error over the seeds)
    and the distances that say how well fast deletion did.

    Examples
    --------
    Made by :func:`label_summary` from the label counts of each model:

    >>> r = {"job": {"dataset": "mnist", "setting": "even", "lam": 0.5, "seed": 0},
    ...      "labels": {"pre": [100] * 10, "re": [50, 100] * 5, "approx": [60, 100] * 5}}
    >>> (s,) = label_summary([r])
    >>> s.setting, s.seeds, round(float(s.deleted_mass["approx"][0]), 3)
    ('even', 1, 0.375)
    """

    dataset: str
    setting: str
    lam: float
    seeds: int
    mean: dict       # model -> (10,) mean label distribution
    sem: dict        # model -> (10,) standard error over seeds (NaN for one seed)
    tv_pre_re: np.ndarray      # per seed
    tv_approx_re: np.ndarray   # per seed
    gap_closed: np.ndarray     # per seed
    tv_ideal_re: np.ndarray    # per seed: the class-reweighted pre-trained model against re-trained
    tv_approx_ideal: np.ndarray  # per seed: the approximated model against the class-reweighted one
    deleted_mass: dict         # model -> per-seed mass on the labels X' was drawn from


def label_summary(results):
    """One :class:`LabelSummary` per deletion set, in a fixed order.

    Examples
    --------
    The re-trained model halved the even labels; the approximated one went three quarters of the
    way (in total variation):

    >>> r = {"job": {"dataset": "mnist", "setting": "even", "lam": 0.5, "seed": 0},
    ...      "labels": {"pre": [100] * 10, "re": [50, 100] * 5, "approx": [60, 100] * 5}}
    >>> (s,) = label_summary([r])
    >>> round(float(s.tv_pre_re[0]), 3), round(float(s.gap_closed[0]), 3), round(float(s.tv_ideal_re[0]), 3)
    (0.167, 0.75, 0.0)
    """
    out = []
    for (dataset, setting, lam), rs in group(results).items():
        dist = {m: np.array([proportions(r["labels"][m]) for r in rs]) for m in MODELS}
        deleted = deleted_labels(setting)
        ideal = class_reweighted(dist["pre"], setting, lam)
        out.append(LabelSummary(
            dataset, setting, lam, len(rs),
            mean={m: d.mean(axis=0) for m, d in dist.items()},
            sem={m: _sem(d) for m, d in dist.items()},
            tv_pre_re=tv_distance(dist["pre"], dist["re"]),
            tv_approx_re=tv_distance(dist["approx"], dist["re"]),
            gap_closed=gap_closed(dist["pre"], dist["re"], dist["approx"]),
            tv_ideal_re=tv_distance(ideal, dist["re"]),
            tv_approx_ideal=tv_distance(dist["approx"], ideal),
            deleted_mass={m: d[:, deleted].sum(axis=1) for m, d in dist.items()},
        ))
    return out


def bound_label_distribution(labels, log_ratio, bound):
    """The label distribution of Alg. 1 with bound B, from stored pre-trained samples.

    A proposal y is accepted with probability min(ρ̂_ℰ(y), B) / B, so the accepted labels follow
    the pre-trained labels weighted by min(ρ̂_ℰ, B): B only changes the result where it clips
    ρ̂_ℰ. Returns ``(distribution (10,), acceptance rate)``.

    Examples
    --------
    >>> dist, acceptance = bound_label_distribution([0, 0, 1, 1], np.log([0.5, 0.5, 2.0, 4.0]), 2.0)
    >>> np.round(dist[:2], 3).tolist(), round(acceptance, 3)    # weights 0.5, 0.5, 2, 2 (4 clipped to B)
    ([0.2, 0.8], 0.625)
    """
    labels = np.asarray(labels)
    bound = float(bound)
    if not bound > 0:
        raise ValueError(f"bound must be > 0; got {bound}")
    w = np.minimum(np.exp(np.asarray(log_ratio, float)), bound)
    dist = np.bincount(labels, weights=w, minlength=10)
    return dist / dist.sum(), float(w.mean() / bound)


@dataclasses.dataclass(frozen=True)
class Cost:
    """Wall time of re-training against fast deletion (VDM + rejection-sampling overhead).

    Examples
    --------
    >>> c = Cost("mnist", "even", 0.7, "CPU", retrain=100.0, vdm=10.0, overhead_per_accepted=0.001,
    ...          m=10_000, gan_epochs=10, vdm_epochs=5)
    >>> c.fast_deletion, c.speedup, round(c.speedup_at(), 1)    # speedup_at: the paper's epochs and m
    (20.0, 5.0, 15.4)
    """

    dataset: str
    setting: str
    lam: float
    device: str
    retrain: float
    vdm: float
    overhead_per_accepted: float
    m: int
    gan_epochs: int
    vdm_epochs: int

    @property
    def fast_deletion(self):
        """VDM training plus the rejection-sampling overhead of m accepted samples."""
        return self.vdm + max(self.overhead_per_accepted, 0.0) * self.m

    @property
    def speedup(self):
        """Re-training time / fast-deletion time, as measured."""
        return self.retrain / self.fast_deletion

    def speedup_at(self, gan_epochs=200, vdm_epochs=40, m=50_000):
        """The speed-up with other epoch counts (default: the paper's), from the measured time per
        epoch of each training (an extrapolation: time per epoch does not depend on the count)."""
        retrain = self.retrain / self.gan_epochs * gan_epochs
        fast = self.vdm / self.vdm_epochs * vdm_epochs + max(self.overhead_per_accepted, 0.0) * m
        return retrain / fast


def costs(results):
    """One :class:`Cost` per deletion set: medians over seeds.

    Examples
    --------
    >>> def result(seed, retrain):
    ...     return {"job": {"dataset": "mnist", "setting": "even", "lam": 0.7, "seed": seed},
    ...             "profile": {"m_labels": 1000, "gan_epochs": 10, "vdm_epochs": 5}, "hardware": {"device": "CPU"},
    ...             "timings": {"retrain": retrain, "vdm": 10.0, "overhead_per_accepted": 0.01}}
    >>> (c,) = costs([result(0, 80.0), result(1, 100.0), result(2, 400.0)])
    >>> c.retrain, c.fast_deletion, c.speedup          # the median re-training time
    (100.0, 20.0, 5.0)
    """
    out = []
    for (dataset, setting, lam), rs in group(results).items():
        t = lambda k: float(np.median([r["timings"][k] for r in rs]))  # noqa: E731
        p = rs[0]["profile"]
        out.append(Cost(dataset, setting, lam, rs[0]["hardware"]["device"], t("retrain"), t("vdm"),
                        t("overhead_per_accepted"), int(p["m_labels"]), int(p["gan_epochs"]), int(p["vdm_epochs"])))
    return out


def _seeds(results, seed):
    return results if seed is None else [r for r in results if r["job"]["seed"] == seed]


def statistics(results, stat, *, seed=None):
    """Q3 values of ``stat`` per deletion set: {key: (H0, H1)}, of one seed (one pair of trained
    models, as the test sees it) or pooled over the seeds (``seed=None``).

    Examples
    --------
    >>> def result(seed, h0, h1):
    ...     return {"job": {"dataset": "mnist", "setting": "odd", "lam": 0.7, "seed": seed},
    ...             "q3": {"values": {"LR": {"H0": h0, "H1": h1}}}}
    >>> rs = [result(0, [0.1, 0.2], [0.9, 1.1]), result(1, [0.3], [1.2])]
    >>> [h.tolist() for h in statistics(rs, "LR")[("mnist", "odd", 0.7)]]
    [[0.1, 0.2, 0.3], [0.9, 1.1, 1.2]]
    >>> [h.tolist() for h in statistics(rs, "LR", seed=1)[("mnist", "odd", 0.7)]]
    [[0.3], [1.2]]
    """
    if stat not in STATISTICS:
        raise ValueError(f"stat must be one of {STATISTICS}; got {stat!r}")
    return {key: (np.concatenate([r["q3"]["values"][stat]["H0"] for r in rs]),
                  np.concatenate([r["q3"]["values"][stat]["H1"] for r in rs]))
            for key, rs in group(_seeds(results, seed)).items()}


def ks_table(results, *, seed=None):
    """KS between H0 and H1 of one seed, or its mean over the seeds (``seed=None``): {key: {stat: KS}}.

    Examples
    --------
    >>> def result(seed, lr):
    ...     return {"job": {"dataset": "mnist", "setting": "odd", "lam": 0.7, "seed": seed},
    ...             "q3": {"ks": {"LR": lr, "ASC log": 0.5, "ASC tlogt": 0.25}}}
    >>> ks_table([result(0, 1.0), result(1, 0.5)])
    {('mnist', 'odd', 0.7): {'LR': 0.75, 'ASC log': 0.5, 'ASC tlogt': 0.25}}
    """
    return {key: {s: float(np.mean([r["q3"]["ks"][s] for r in rs])) for s in STATISTICS}
            for key, rs in group(_seeds(results, seed)).items()}
