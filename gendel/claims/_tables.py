"""Helpers of the claims on the synthetic data: KS tables, grids and their checks.

A *KS table* is a mapping ``{dataset: {statistic: array}}``; see :mod:`gendel.claims.synthetic`.
"""

from __future__ import annotations

import numpy as np
from scipy.stats import kendalltau

from gendel.synthetic.data import DATASETS
from gendel.synthetic.sampling import RATIO_STATISTICS


def name(dataset):
    """The label of a data set in a table ("MoG-8")."""
    return DATASETS.get(dataset, dataset)


def table(ks, dataset, stat, shape, what):
    """``ks[dataset][stat]`` as a float array, checked to have ``shape`` (None: any length)."""
    try:
        arr = np.asarray(ks[dataset][stat], dtype=float)
    except KeyError:
        raise ValueError(f"the {what} KS table has no {stat!r} values for {dataset!r}; "
                         f"it needs {{dataset: {{statistic: array}}}} with statistic {stat!r}") from None
    if arr.ndim != len(shape) or any(n is not None and a != n for a, n in zip(arr.shape, shape)):
        expected = tuple("any" if n is None else n for n in shape)
        raise ValueError(f"the {what} KS table for {dataset!r}, {stat!r} has shape {arr.shape}; expected {expected} "
                         f"(one row per lambda, one column per setting): pass the grids the sweep was run on")
    return arr


def need(ks, datasets, what):
    """Check that the KS table ``ks`` has (at least) the data sets the claim compares."""
    missing = [d for d in datasets if d not in ks]
    if missing:
        raise ValueError(f"this claim compares {', '.join(map(name, datasets))}; the {what} KS table has no "
                         f"{', '.join(map(repr, missing))}")


def exact_column(sigma_c, sigma_a):
    """The column of sigma_C = sigma_A in the KBC grid and the other columns."""
    sig = np.asarray(sigma_c, dtype=float)
    hits = np.flatnonzero(np.isclose(sig, sigma_a, rtol=1e-9, atol=0.0))
    if hits.size != 1:
        raise ValueError(f"sigma_a={sigma_a:g} is not on the sigma_c grid {tuple(sig)}: the claims compare "
                         "bandwidths with the exact case sigma_C = sigma_A, so the grid must contain it once")
    ia = int(hits[0])
    return ia, [j for j in range(len(sig)) if j != ia]


def index(values, value, what):
    """Position of ``value`` in ``values`` (floats compared with a tolerance)."""
    hits = np.flatnonzero(np.isclose(np.asarray(values, dtype=float), value, rtol=1e-9, atol=0.0))
    if hits.size == 0:
        raise ValueError(f"{what} {value:g} is not in the grid {tuple(values)}; add it to the sweep or pick "
                         "one of the grid's values")
    return int(hits[0])


def mean_off(arr, off):
    """Mean KS per lambda over the columns ``off`` (sigma_C != sigma_A)."""
    return arr[:, off].mean(axis=1)


def lambda_trend(kbc, lambdas, sigma_c, columns):
    """Kendall's tau between lambda and the LR KS of each column, and the count of tau < 0."""
    taus, neg = {}, {}
    for d in kbc:
        arr = table(kbc, d, "lr", (len(lambdas), len(sigma_c)), "KBC")
        taus[d] = [kendalltau(lambdas, arr[:, j]).statistic for j in columns]
        neg[d] = sum(t < 0 for t in taus[d])
    numbers = "; ".join(f"{name(d)}: τ < 0 for {neg[d]}/{len(columns)} σ_C (mean τ = {np.mean(taus[d]):.2f})"
                        for d in kbc)
    return neg, numbers


def ks_tables(sweeps, question, family, stats=RATIO_STATISTICS):
    """The KS table of one question and DRE family from ``{dataset: {"kbc": Sweep, "knn": Sweep}}``."""
    for d, pair in sweeps.items():
        if family not in pair:
            raise ValueError(f"sweeps[{d!r}] has no {family!r} sweep; pass {{dataset: {{'kbc': Sweep, 'knn': Sweep}}}} "
                             "as gendel.synthetic.experiments.chapter_sweeps(protocol) returns")
    return {d: {s: pair[family].ks(question, s) for s in stats} for d, pair in sweeps.items()}
