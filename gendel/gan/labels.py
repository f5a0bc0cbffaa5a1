"""Label arithmetic of the GAN experiments: the four models, deleted labels, distributions, distances.

A generated image is read by the label classifier; what the chapter measures is arithmetic on the
label counts that follow: the share of samples whose label is one X' was drawn from (the
*deleted mass* δ), total-variation distances between label distributions, the label distribution
that Alg. 1 gives when it re-weights a pool of labelled proposals by min(ρ̂_ℰ, B), and the share
of the exact data shift that a model moves. Nothing here trains, samples or reads a result file.
"""

from __future__ import annotations

import numpy as np

MODELS = ("pre", "re", "approx", "control")


MODEL_NAMES = {"pre": "pre-trained p̂", "re": "re-trained p̂′", "approx": "approximated ρ̂_ℰ·p̂",
               "control": "control (p̂, another seed)"}


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
    """Label counts -> label distribution (sums to one, along the last axis).

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
    """Total-variation distance ``(1/2) sum |p - q|`` between label distributions (last axis).

    Examples
    --------
    >>> float(tv_distance([0.5, 0.5, 0.0], [0.0, 0.5, 0.5]))
    0.5
    """
    return 0.5 * np.abs(np.asarray(p, float) - np.asarray(q, float)).sum(axis=-1)


def class_reweighted(dist, setting, lam):
    """A label distribution re-weighted by the exact class-level ratio of the data.

    Deleting a 1 − λ fraction of each label of one parity multiplies the data distribution of
    those labels by λ (and renormalises). Applied to the labels of X it gives those of X \\ X';
    applied to a model's labels, what Alg. 1 with a DRE equal to that data ratio would give.

    Examples
    --------
    >>> q = class_reweighted(np.full(10, 0.1), "even", 0.5)   # even labels at half their weight
    >>> np.round(q[:2], 3).tolist(), round(float(q.sum()), 3)
    ([0.067, 0.133], 1.0)
    """
    w = np.ones(10)
    w[deleted_labels(setting)] = lam
    q = np.asarray(dist, float) * w
    return q / q.sum(axis=-1, keepdims=True)


def deleted_mass(dist, setting):
    """δ: the share of a label distribution on the labels X' was drawn from.

    Examples
    --------
    >>> float(deleted_mass(np.full(10, 0.1), "odd"))
    0.5
    """
    return np.asarray(dist, float)[..., deleted_labels(setting)].sum(axis=-1)


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
    from gendel.gan.experiment import reweighted

    bound = float(bound)
    if not bound > 0:
        raise ValueError(f"bound must be > 0; got {bound}")
    weights = reweighted(labels, log_ratio, bound)["weights"]  # the one re-weighting, min(ρ̂_ℰ, B)
    return weights / weights.sum(), float(weights.sum() / len(labels) / bound)


def sampling_tv(dist, m, *, n_draws=2000, rng=0):
    """The TV distance between two label distributions of ``m`` samples each drawn from the same
    ``dist`` (its mean and its standard deviation over simulated pairs): how far apart sampling
    alone puts two models that do not differ, and how much a TV between two samples scatters.

    Examples
    --------
    >>> mean, sd = sampling_tv(np.full(10, 0.1), 5000)
    >>> 0.01 < mean < 0.04, sd < mean
    (True, True)
    """
    rng = np.random.default_rng(rng)
    a = rng.multinomial(m, dist, size=n_draws) / m
    b = rng.multinomial(m, dist, size=n_draws) / m
    tv = tv_distance(a, b)
    return float(tv.mean()), float(tv.std(ddof=1))


def achieved_shift(weights, counts, setting, lam):
    """The share of the exact shift of the deleted mass that Alg. 1's weights achieve on a pool.

    ``weights`` and ``counts`` are per-label sums of min(ρ̂_ℰ, B) and per-label counts of a pool
    (``gendel.gan.experiment.reweighted``). Without weights the pool's deleted mass is δ; the
    exact data ratio would move it to δ* (the pool re-weighted by λ on the deleted labels); Alg. 1
    with ρ̂_ℰ moves it to δ_w. Returns (δ_w − δ) / (δ* − δ): 1 is the whole shift, 0 none.

    Examples
    --------
    >>> counts = np.full(10, 100)
    >>> exact = counts * np.where(np.arange(10) % 2 == 0, 0.5, 1.0)   # the data ratio: λ = 0.5 on even labels
    >>> round(float(achieved_shift(exact, counts, "even", 0.5)), 3)
    1.0
    >>> float(achieved_shift(counts.astype(float), counts, "even", 0.5)) == 0    # all weights equal: no shift
    True
    """
    counts = np.asarray(counts, float)
    base = deleted_mass(proportions(counts), setting)
    target = deleted_mass(class_reweighted(proportions(counts), setting, lam), setting)
    moved = deleted_mass(proportions(weights), setting)
    return (moved - base) / (target - base)
