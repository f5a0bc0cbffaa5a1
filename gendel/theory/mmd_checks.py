"""Checks of the statements of Appendix C by repetition: the MMD estimator as the paper prints it,
the closed form of the KDE Example, Hoeffding's variance (C.3), and the means of LR (C.1).

The paper's estimator (eq. ``eq-mmd-printed`` of the book) keeps the cross pairs i = j with
weight 1/m², so it is not the U-statistic the cited results are about (errata E15). Two
statements are checked for it by repetition, each next to deliberately wrong statements that the
same check, on the same draws, must reject:

- :func:`mean_checks`: the estimator is unbiased, mean 0 under H0 and MMD² under H1;
- :func:`printed_concentration_checks`: it concentrates around MMD². The bound of Gretton et al.
  (Thm. 10) is for the U-statistic; the printed estimator differs from it by at most 2/m (both
  cross terms are averages of a kernel with values in [0, 1], over m² and over m(m − 1) pairs),
  so ``4 sqrt(log(2/δ)/m) + 2/m`` holds for it with probability at least 1 − δ.

:class:`EstimateCheck` compares estimates that carry a standard error (a Monte Carlo average, a
variance over repeats) with a formula computed independently; :func:`closed_form_checks`,
:func:`variance_checks` and :func:`lr_mean_checks` use it, each next to wrong statements.

Examples
--------
>>> import numpy as np
>>> from gendel.theory.quadrature import MeanCheck
>>> x = np.random.default_rng(0).normal(0.5, 1.0, size=(1, 400))
>>> MeanCheck("mean 0.5", "x", [1], [0.5], x).verdict, MeanCheck("mean 0", "x", [1], [0.0], x).verdict
('holds', 'rejected')
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from gendel.theory.mmd import concentration_bound, expected_kernel_matrix, kde_mmd2, kde_mmd2_paper, u_statistic_variance
from gendel.theory.moments import BoundCheck
from gendel.theory.quadrature import Z_MEAN, MeanCheck

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
    """P(``|printed − MMD²|`` > bound) ≤ δ for the printed estimator, and the bound divided by ``wrong``.

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


@dataclass(frozen=True)
class EstimateCheck:
    """The statement "the quantity is ``target``", checked against independent estimates.

    Each case has an estimate (value and standard error, e.g. a Monte Carlo average or a
    variance over repeats) and a target computed without those draws, itself possibly with a
    Monte Carlo standard error ``target_se``. The statement holds when every
    z = (value − target) / √(se² + target_se²) lies within :data:`~gendel.theory.quadrature.Z_MEAN`.

    Examples
    --------
    >>> from gendel.theory.mmd_checks import EstimateCheck
    >>> ok = EstimateCheck("x = 1", "x", ["a", "b"], [1.0, 2.0], [1.02, 1.85], [0.01, 0.05])
    >>> ok.verdict, EstimateCheck("x = 1.2", "x", ["a"], [1.2], [1.02], [0.01]).verdict
    ('holds', 'rejected')
    >>> ok.row()[2]
    'off its target by 3.0 standard errors at b (at most 4 if true)'
    """

    statement: str
    compared: str
    cases: tuple
    target: np.ndarray
    value: np.ndarray
    se: np.ndarray
    target_se: object = 0.0

    def __post_init__(self):
        arrays = [np.atleast_1d(np.asarray(a, dtype=float)) for a in (self.target, self.value, self.se)]
        n = len(self.cases)
        if any(a.shape != (n,) for a in arrays):
            raise ValueError(f"need one target, value and standard error per case; got {n} cases and shapes "
                             f"{[a.shape for a in arrays]}")
        target_se = np.broadcast_to(np.asarray(self.target_se, dtype=float), (n,))
        if np.any(arrays[2] < 0) or np.any(target_se < 0) or np.any(arrays[2] + target_se <= 0):
            raise ValueError("standard errors must be non-negative, and not both zero in a case")
        for name, a in zip(("target", "value", "se"), arrays):
            object.__setattr__(self, name, a)
        object.__setattr__(self, "target_se", target_se)
        object.__setattr__(self, "cases", tuple(self.cases))

    @property
    def z(self):
        """Per case: (value − target) / combined standard error."""
        return (self.value - self.target) / np.hypot(self.se, self.target_se)

    @property
    def verdict(self):
        return "holds" if np.all(np.abs(self.z) <= Z_MEAN) else "rejected"

    def result(self):
        """The worst case, in words."""
        k = int(np.argmax(np.abs(self.z)))
        return f"off its target by {abs(self.z[k]):.1f} standard errors at {self.cases[k]} (at most {Z_MEAN:g} if true)"

    def row(self):
        """[statement, what is compared, result, verdict]: one row of a power table."""
        return [self.statement, self.compared, self.result(), self.verdict]


def closed_form_checks(data, estimates, sigma_a, bandwidth, cases):
    """The closed form of MMD²(p̂', p̂) for two KDEs (Appendix C.3) against Monte Carlo, and two wrong forms.

    Parameters
    ----------
    data : sequence of (X, deleted)
        One training set and deletion mask per case.
    estimates : sequence of Estimate
        Independent Monte Carlo estimates of MMD²(p̂', p̂), one per case
        (:func:`gendel.theory.mmd.deletion_mmd2_monte_carlo`).
    sigma_a, bandwidth : float
        The KDEs' bandwidth σ_A and the kernel's ℓ.
    cases : sequence
        A label per case.

    Returns
    -------
    list of EstimateCheck
        The paper's coefficient formula; wrong: the Gaussian integral with ℓ² + σ² where both
        KDEs add their noise (ℓ² + 2σ²); wrong: the last sum over deleted pairs only (i, j ∈ D
        instead of i ∈ X, j ∈ D).

    Examples
    --------
    >>> import numpy as np
    >>> from gendel.theory.mmd import deletion_mmd2_monte_carlo
    >>> X, deleted = np.array([[0.0], [0.5], [1.0], [3.0]]), [3]
    >>> est = deletion_mmd2_monte_carlo(X, deleted, 1.0, 200_000, rng=0)
    >>> [c.verdict for c in closed_form_checks([(X, deleted)], [est], 1.0, 1.0, ["one"])]
    ['holds', 'rejected', 'rejected']
    """
    data, estimates = list(data), list(estimates)
    if not data or len(data) != len(estimates) or len(cases) != len(data):
        raise ValueError("need one (X, deleted) pair, one Monte Carlo estimate and one label per case")
    s2 = float(sigma_a) ** 2
    printed, one_noise, dd_only = [], [], []
    for X, deleted in data:
        X = np.asarray(X, dtype=float)
        mask = np.zeros(len(X), dtype=bool)
        mask[np.asarray(deleted)] = True
        printed.append(kde_mmd2_paper(X, deleted, sigma_a, bandwidth))
        one_noise.append(kde_mmd2(X[~mask], X, np.sqrt(s2 / 2.0), bandwidth))
        E = expected_kernel_matrix(X, X, s2, s2, bandwidth)
        N, Nd = len(X), int(mask.sum())
        dd_only.append(Nd**2 / (N**2 * (N - Nd) ** 2) * E[np.ix_(~mask, ~mask)].sum()
                       - (N + Nd) / (N**2 * (N - Nd)) * E[np.ix_(mask, ~mask)].sum()
                       + E[np.ix_(mask, mask)].sum() / N**2)
    value = [e.value for e in estimates]
    se = [e.se for e in estimates]
    compared = "Monte Carlo MMD²(p̂', p̂)"
    return [EstimateCheck("closed form as printed (Example of C.3)", compared, cases, printed, value, se),
            EstimateCheck("wrong: ℓ² + σ² in the Gaussian integral (for ℓ² + 2σ²)", compared, cases, one_noise, value, se),
            EstimateCheck("wrong: last sum over i, j ∈ D only", compared, cases, dd_only, value, se)]


def variance_checks(variances, zeta1, zeta2, printed, ms):
    """Hoeffding's variance of the U-statistic against the measured variance, and three wrong statements.

    Parameters
    ----------
    variances : dict
        ``{h: [Estimate per m]}``: the variance of the U-statistic over R repeats
        (:func:`gendel.theory.quadrature.mc_variance`), for h in ("H0", "H1").
    zeta1, zeta2, printed : dict
        ``{h: float}``: ζ₁, ζ₂ and the printed 4 E VAR h, computed from samples independent of the
        repeats (:func:`gendel.theory.mmd.mmd_variance_terms`).
    ms : sequence of int

    Returns
    -------
    list of EstimateCheck
        Hoeffding's formula; wrong: the formula / 2; wrong: the limit 4ζ₁/m at every m (no ζ₂
        term); wrong: the paper's (4/m) E VAR h.

    Examples
    --------
    >>> from gendel.theory.quadrature import Estimate
    >>> v = {"H0": [Estimate(3.1e-6, 3e-7)], "H1": [Estimate(1.0e-3, 1e-4)]}
    >>> checks = variance_checks(v, {"H0": 0.0, "H1": 0.1}, {"H0": 0.25, "H1": 0.2}, {"H0": 1.0, "H1": 1.0}, [400])
    >>> [c.verdict for c in checks]
    ['holds', 'rejected', 'rejected', 'rejected']
    """
    keys = [(h, int(m)) for h in ("H0", "H1") for m in ms]
    try:
        value = [variances[h][i].value for h in ("H0", "H1") for i in range(len(ms))]
        se = [variances[h][i].se for h in ("H0", "H1") for i in range(len(ms))]
    except (KeyError, IndexError):
        raise ValueError("need one variance estimate per m under H0 and H1") from None
    hoeffding = np.array([u_statistic_variance(m, zeta1[h], zeta2[h]) for h, m in keys], dtype=float)
    limit = np.array([4.0 * zeta1[h] / m for h, m in keys])
    paper = np.array([printed[h] / m for h, m in keys])
    cases = [f"{h}, m = {m}" for h, m in keys]
    compared = "VAR of MMD²_u over the repeats"
    return [EstimateCheck("Hoeffding's formula", compared, cases, hoeffding, value, se),
            EstimateCheck("wrong: Hoeffding's formula / 2", compared, cases, hoeffding / 2, value, se),
            EstimateCheck("wrong: the limit 4ζ₁/m at every m", compared, cases, limit, value, se),
            EstimateCheck("wrong: as printed, (4/m) E VAR h", compared, cases, paper, value, se)]


def lr_mean_checks(lr, moments, ms):
    """The means of LR(Y, ρ̂) of Appendix C.1 against repeated draws, and three wrong statements.

    Parameters
    ----------
    lr : dict
        ``{(h, m): array (R,)}``: LR(Y, ρ̂) on R independent sample sets of size m under h.
    moments : gendel.theory.moments.LRMoments
        KL(p̂ ‖ p̂') and KL(p̂' ‖ p̂) from samples independent of the sets.
    ms : sequence of int

    Returns
    -------
    list of EstimateCheck
        As printed (−KL(p̂ ‖ p̂') under H0, KL(p̂' ‖ p̂) under H1); wrong: the two KL swapped;
        wrong: the signs flipped; wrong: mean 0 under both (LR blind to the deletion).

    Examples
    --------
    >>> import numpy as np
    >>> from gendel.theory.moments import LRMoments
    >>> from gendel.theory.quadrature import Estimate
    >>> mo = LRMoments(Estimate(0.2, 0.001), Estimate(0.1, 0.001), Estimate(0.1), Estimate(0.1),
    ...                Estimate(0.01), Estimate(0.01))
    >>> rng = np.random.default_rng(0)
    >>> lr = {("H0", 50): rng.normal(-0.2, 0.1, 400), ("H1", 50): rng.normal(0.1, 0.1, 400)}
    >>> [c.verdict for c in lr_mean_checks(lr, mo, [50])]
    ['holds', 'rejected', 'rejected', 'rejected']
    """
    keys = [(h, int(m)) for h in ("H0", "H1") for m in ms]
    missing = [k for k in keys if k not in lr]
    if missing:
        raise ValueError(f"LR values missing for {missing}; pass one array per (hypothesis, m)")
    measured = [np.asarray(lr[k], dtype=float) for k in keys]
    value = [x.mean() for x in measured]
    se = [x.std(ddof=1) / np.sqrt(x.size) for x in measured]
    kl = {"H0": moments.kl_pre_re, "H1": moments.kl_re_pre}
    sign = {"H0": -1.0, "H1": 1.0}
    other = {"H0": "H1", "H1": "H0"}
    printed = [sign[h] * kl[h].value for h, _ in keys]
    swapped = [sign[h] * kl[other[h]].value for h, _ in keys]
    kse = [kl[h].se for h, _ in keys]
    swapped_se = [kl[other[h]].se for h, _ in keys]
    cases = [f"{h}, m = {m}" for h, m in keys]
    compared = "mean of LR over the sets"
    return [EstimateCheck("as printed: −KL(p̂ ‖ p̂') under H0, KL(p̂' ‖ p̂) under H1", compared, cases,
                          printed, value, se, kse),
            EstimateCheck("wrong: the two KL swapped", compared, cases, swapped, value, se, swapped_se),
            EstimateCheck("wrong: the signs flipped", compared, cases, -np.array(printed), value, se, kse),
            EstimateCheck("wrong: mean 0 under both", compared, cases, np.zeros(len(keys)), value, se)]


__all__ = ["EstimateCheck", "MeanCheck", "Z_MEAN", "closed_form_checks", "lr_mean_checks", "mean_checks",
           "printed_concentration_bound", "printed_concentration_checks", "variance_checks"]
