"""Checks of the MMD statements of Appendix C.3 for the estimator as the paper prints it.

The paper's estimator (eq. ``eq-mmd-printed`` of the book) keeps the cross pairs i = j with
weight 1/m², so it is not the U-statistic the cited results are about (errata E15). Two
statements are checked for it by repetition, each next to deliberately wrong statements that the
same check, on the same draws, must reject:

- :func:`mean_checks`: the estimator is unbiased, mean 0 under H0 and MMD² under H1;
- :func:`printed_concentration_checks`: it concentrates around MMD². The bound of Gretton et al.
  (Thm. 10) is for the U-statistic; the printed estimator differs from it by at most 2/m (both
  cross terms are averages of a kernel with values in [0, 1], over m² and over m(m − 1) pairs),
  so ``4 sqrt(log(2/δ)/m) + 2/m`` holds for it with probability at least 1 − δ.

Examples
--------
>>> import numpy as np
>>> from gendel.theory.quadrature import MeanCheck
>>> x = np.random.default_rng(0).normal(0.5, 1.0, size=(1, 400))
>>> MeanCheck("mean 0.5", "x", [1], [0.5], x).verdict, MeanCheck("mean 0", "x", [1], [0.0], x).verdict
('holds', 'rejected')
"""

from __future__ import annotations

import numpy as np

from .mmd import concentration_bound
from .moments import BoundCheck
from .quadrature import Z_MEAN, MeanCheck

def _cases(printed, mmd2, ms):
    """The (hypothesis, m) cases: keys, labels, estimates (n_cases, R) and the true MMD² of each."""
    keys = [(h, int(m)) for h in ("H0", "H1") for m in ms]
    missing = [k for k in keys if k not in printed]
    if missing:
        raise ValueError(f"printed estimates missing for {missing}; pass one array per (hypothesis, m)")
    measured = np.stack([np.asarray(printed[k], dtype=float) for k in keys])
    truth = np.array([0.0 if h == "H0" else float(mmd2) for h, _ in keys])
    return keys, [f"{h}, m = {m}" for h, m in keys], measured, truth


def mean_checks(printed, mmd2, ms):
    """Unbiasedness of the printed MMD estimator, and two wrong statements about its mean.

    Parameters
    ----------
    printed : dict
        ``{(h, m): array (R,)}`` for h in ("H0", "H1") and every m of ``ms``: the printed
        estimator on R independent pairs of sample sets of size m.
    mmd2 : float
        MMD² between the re-trained and the pre-trained model, computed without the samples
        (closed form for KDEs: :func:`gendel.theory.mmd.kde_mmd2`).
    ms : sequence of int

    Returns
    -------
    list of MeanCheck
        As printed (mean 0 under H0, ``mmd2`` under H1); wrong: "mean 0 under H1 too"; wrong:
        "biased by 1/m" (the mean 1/m under H0 and ``mmd2`` + 1/m under H1).

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> fake = {(h, m): rng.normal(0.3 * (h == "H1"), 0.05, 200) for h in ("H0", "H1") for m in (20, 40)}
    >>> [c.verdict for c in mean_checks(fake, 0.3, [20, 40])]
    ['holds', 'rejected', 'rejected']
    """
    keys, cases, measured, truth = _cases(printed, mmd2, ms)
    inv_m = np.array([1.0 / m for _, m in keys])
    compared = "mean of the printed estimator over the repeats"
    return [
        MeanCheck("unbiased: mean 0 under H0, MMD² under H1", compared, cases, truth, measured),
        MeanCheck("wrong: mean 0 under H1 too", compared, cases, np.zeros_like(truth), measured),
        MeanCheck("wrong: biased by 1/m", compared, cases, truth + inv_m, measured),
    ]


def printed_concentration_bound(m, delta):
    """The concentration bound for the printed estimator: ``4 sqrt(log(2/δ)/m) + 2/m``.

    The U-statistic's bound (:func:`gendel.theory.mmd.concentration_bound`, kernel values in
    [0, 1]) plus the largest difference between the printed estimator and the U-statistic, 2/m.

    Examples
    --------
    >>> round(float(printed_concentration_bound(100, 0.05)), 4)     # 4 √(log 40 / 100) + 2/100
    0.7883
    """
    m = np.asarray(m, dtype=float)
    return concentration_bound(m, delta) + 2.0 / m


def printed_concentration_checks(printed, mmd2, ms, delta, *, wrong=(10.0, 100.0)):
    """P(|printed − MMD²| > bound) ≤ δ for the printed estimator, and the bound divided by ``wrong``.

    Parameters
    ----------
    printed : dict
        ``{(h, m): array (R,)}`` as for :func:`mean_checks`.
    mmd2 : float
        MMD² under H1 (0 under H0), computed without the samples.
    ms : sequence of int
    delta : float
        The level of the bound.
    wrong : sequence of float
        Factors by which deliberately wrong bounds are smaller.

    Returns
    -------
    list of gendel.theory.moments.BoundCheck

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> fake = {(h, m): rng.normal(0.3 * (h == "H1"), 0.02, 200) for h in ("H0", "H1") for m in (20, 40)}
    >>> [c.verdict for c in printed_concentration_checks(fake, 0.3, [20, 40], 0.05, wrong=(10, 1000))]
    ['holds', 'holds', 'rejected']
    """
    keys, cases, measured, truth = _cases(printed, mmd2, ms)
    deviation = np.abs(measured - truth[:, None])
    bound = printed_concentration_bound([m for _, m in keys], delta)
    compared = "|printed − MMD²|"
    name = "4√(log(2/δ)/m) + 2/m"
    checks = [BoundCheck(f"|printed − MMD²| ≤ {name} with probability ≥ 1 − δ", compared, cases, bound, deviation,
                         delta, case_name="")]
    checks += [BoundCheck(f"wrong: the bound / {w:g}", compared, cases, bound / w, deviation, delta, case_name="")
               for w in wrong]
    return checks


__all__ = ["MeanCheck", "Z_MEAN", "mean_checks", "printed_concentration_bound", "printed_concentration_checks"]
