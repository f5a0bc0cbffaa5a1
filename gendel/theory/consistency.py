"""Repeated-draw experiments on the circle for the consistency and stability theorems.

Every function draws R independent training sets from a :class:`~gendel.theory.circle.CircleModel`,
fits wrapped Gaussian KDEs through their Fourier series (exact to ~1e-15), evaluates them on a
:class:`~gendel.theory.quadrature.PeriodicGrid` and records, per repeat, every quantity that
appears on either side of a theorem or in a step of its proof. Suprema are maxima over the grid
nodes and integrals use the periodic trapezoid rule; with the default 4096 nodes and bandwidths
above 0.02 L both are accurate to better than 1e-5 relative (checked in the tests by doubling
the grid).

Learners::

    A   = KDE with bandwidth h_A = scale_a * L * N^(-1/5)   (the generative learner)
    A_0 = KDE with bandwidth h_0 = scale_0 * L * N^(-1/5)   (the fixed consistent learner from which
          the proofs of Thms. 1, 2 and 7 build the DRE rho_hat_E = p_{A_0}(X \\ X') / p_{A_0}(X))

Both bandwidths are set by the size N of the full training set and used for both fits, as the
paper's experiments use one sigma_A for p_hat and p_hat'.

Empirical constants
-------------------
Def. 1 (RC) and Def. 2 (TVC) are statements "with probability at least 1 - delta". For a chosen
delta we estimate the constants as empirical (1 - delta)-quantiles over the R repeats, taking the
larger of the two learners so that one pair (c_N, delta) serves A and A_0, as the proofs assume.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from gendel._validation import check_count
from gendel.theory.circle import (CircleModel, density_at, density_on_grid, fourier_sums, kde_coefficients, n_terms,
                     silverman_bandwidth)
from gendel.theory._repeats import _check_delta, _quantile, _rng
from gendel.theory.moments import BoundCheck
from gendel.theory.quadrature import PeriodicGrid
from gendel.theory.ratio_stability import RatioStabilityRun, RatioSupremumRun, ratio_stability_run, ratio_supremum_run


@dataclass
class ConsistencyRun:
    """Per-repeat quantities of Thms. 1, 2, 7 and 8(1) for one training-set size N.

    Attributes (arrays of shape (R,) unless noted)
    ----------------------------------------------
    N, R, bandwidth_a, bandwidth_0, period
        settings
    rho_star_sup : float
        ||rho_*||_inf.
    n_deleted
        N' in each repeat (thinning makes it random).
    sup_log : dict
        ``sup_log[learner, data]`` = ||log(p_learner(data) / mu)||_inf, learner in {"A", "A0"},
        data in {"X", "kept"} (mu = p_* for X, p_*' for X \\ X'): the RC quantities of Def. 1.
    tv : dict
        ``tv[learner, data]`` = ||p_learner(data) - mu||_1: the TVC quantities of Def. 2.
    l1_error
        ||rho_hat_E p_hat - p_hat'||_1, the left side of Thm. 1.
    step_exact
        int p_hat ``|rho_hat - rho_*|``, first half of Thm. 1's proof.
    step_dre
        int p_hat ``|rho_hat_E - rho_*|``, second half of Thm. 1's proof.
    weighted_error
        ||rho_hat_E p_hat - p_hat'||_{1, p_hat}, the left side of Thm. 2.
    weighted_error_alt
        int p_hat^2 ``|rho_hat - rho_hat_E|``, the same quantity by the other formula
        of Thm. 2's proof.
    step2_exact
        int p_hat^2 ``|rho_hat - rho_*|``.
    step2_exact_alt
        int p_hat ``|p_hat' - p_*' - rho_* (p_hat - p_*)|``, the rewriting in Thm. 2's proof.
    step2_dre
        int p_hat^2 ``|rho_hat_E - rho_*|``.
    sup_p
        ||p_hat||_inf.
    sup_p2_over_p0
        ||p_hat^2 / p_{A_0}(X)||_inf.
    sup_dlog
        ||log rho_hat - log rho_hat_E||_inf (Thm. 8(1)'s epsilon).
    sup_dlog_inverted
        ||log rho_hat + log rho_hat_E||_inf, the same with rho_hat_E inverted.
    seed
        the seed of the draws (runs with different seeds are independent).
    lr_exact, lr_dre
        LR(Y, rho_hat) and LR(Y, rho_hat_E) for Y ~ p_hat with m points (when m given).

    Examples
    --------
    >>> from gendel.theory.circle import CircleModel
    >>> from gendel.theory.consistency import consistency_run
    >>> run = consistency_run(CircleModel(), 200, R=20, grid_size=256)
    >>> run.R, run.l1_error.shape
    (20, (20,))
    >>> bool((run.l1_error <= run.step_exact + run.step_dre + 1e-12).all())   # the two halves of Thm. 1's proof
    True
    """

    N: int
    R: int
    bandwidth_a: float
    bandwidth_0: float
    period: float
    rho_star_sup: float
    n_deleted: np.ndarray
    sup_log: dict
    tv: dict
    l1_error: np.ndarray
    step_exact: np.ndarray
    step_dre: np.ndarray
    weighted_error: np.ndarray
    weighted_error_alt: np.ndarray
    step2_exact: np.ndarray
    step2_exact_alt: np.ndarray
    step2_dre: np.ndarray
    sup_p: np.ndarray
    sup_p2_over_p0: np.ndarray
    sup_dlog: np.ndarray
    sup_dlog_inverted: np.ndarray = field(default=None, repr=False)
    seed: int = None
    m: int = 0
    lr_exact: np.ndarray = field(default=None, repr=False)
    lr_dre: np.ndarray = field(default=None, repr=False)

    # ---- realised (per repeat) constants -------------------------------------------------
    def realised_log_c(self):
        """Per repeat: (log c for X, log c for X \\ X'), the larger of the two learners' sup log ratios."""
        return (np.maximum(self.sup_log["A", "X"], self.sup_log["A0", "X"]),
                np.maximum(self.sup_log["A", "kept"], self.sup_log["A0", "kept"]))

    def realised_eps(self):
        """Per repeat: (epsilon for X, epsilon for X \\ X'), the larger of the two learners' L1 errors."""
        return (np.maximum(self.tv["A", "X"], self.tv["A0", "X"]),
                np.maximum(self.tv["A", "kept"], self.tv["A0", "kept"]))

    # ---- constants at a probability level ------------------------------------------------
    def rc_constants(self, delta):
        """(log c_N, log c_{N-N'}): empirical (1 - delta)-quantiles of the RC sup log ratios (Def. 1)."""
        delta = _check_delta(delta)
        x, kept = self.realised_log_c()
        return _quantile(x, 1 - delta), _quantile(kept, 1 - delta)

    def tv_constants(self, delta):
        """(epsilon_N, epsilon_{N-N'}): empirical (1 - delta)-quantiles of the L1 errors (Def. 2)."""
        delta = _check_delta(delta)
        x, kept = self.realised_eps()
        return _quantile(x, 1 - delta), _quantile(kept, 1 - delta)

    def thm1_bound(self, delta):
        """Thm. 1's right side 4 (c_N + c_{N-N'} - 2) at level delta."""
        lc, lck = self.rc_constants(delta)
        return 4.0 * (np.exp(lc) + np.exp(lck) - 2.0)

    def thm2_bound(self, delta):
        """Thm. 2's right side as stated, 2 (epsilon_{N-N'} + ||rho_*||_inf epsilon_N), at level delta."""
        e, ek = self.tv_constants(delta)
        return 2.0 * (ek + self.rho_star_sup * e)

    def thm2_bound_corrected(self, delta):
        """The bound Thm. 2's proof does give once ``|p_hat - p_*|`` <= eps is not read pointwise:

        (||p_hat||_inf + ||p_hat^2 / p_0||_inf) (epsilon_{N-N'} + ||rho_*||_inf epsilon_N),
        with the two sup-norms at their empirical (1 - delta)-quantiles.
        """
        e, ek = self.tv_constants(delta)
        factor = _quantile(self.sup_p, 1 - delta) + _quantile(self.sup_p2_over_p0, 1 - delta)
        return factor * (ek + self.rho_star_sup * e)

    def thm7_bound(self, delta):
        """Thm. 7's right side 2 (log c_N + log c_{N-N'}) at level delta."""
        lc, lck = self.rc_constants(delta)
        return 2.0 * (lc + lck)

    @property
    def lr_difference(self):
        """``|LR(Y, rho_hat) - LR(Y, rho_hat_E)|`` per repeat (Thms. 7 and 8(1))."""
        if self.lr_exact is None:
            raise ValueError("this run has no LR statistics: pass m=... to consistency_run")
        return np.abs(self.lr_exact - self.lr_dre)


def consistency_run(model, N, *, R=200, scale_a=0.25, scale_0=0.4, grid_size=4096, m=None, seed=0):
    """Draw R training sets of size N from ``model`` and record the quantities of Thms. 1, 2, 7, 8(1).

    Parameters
    ----------
    model : CircleModel
        p_* and the thinning that defines X' and p_*'.
    N : int
        Size of the training set X.
    R : int
        Number of independent draws of (X, X').
    scale_a, scale_0 : float
        Bandwidth scales of the learner A and of the DRE's learner A_0 (h = scale L N^(-1/5)).
    grid_size : int
        Nodes of the quadrature grid.
    m : int, optional
        If given, also draw Y ~ p_hat with m points per repeat and record LR(Y, rho_hat) and
        LR(Y, rho_hat_E).
    seed : int

    Returns
    -------
    ConsistencyRun

    Examples
    --------
    Thm. 1's bound holds in every repeat, and ``|LR(Y, rho_hat) - LR(Y, rho_hat_E)|`` never exceeds
    Thm. 8(1)'s epsilon:

    >>> from gendel.theory.circle import CircleModel
    >>> from gendel.theory.consistency import consistency_run
    >>> run = consistency_run(CircleModel(), 200, R=20, grid_size=256, m=50)
    >>> bool(run.l1_error.max() < run.thm1_bound(delta=0.1)), bool((run.lr_difference <= run.sup_dlog + 1e-12).all())
    (True, True)
    """
    if not isinstance(model, CircleModel):
        raise TypeError(f"model must be a gendel.theory.circle.CircleModel; got {type(model).__name__}")
    N, R = check_count(N, "N", minimum=4), check_count(R, "R", minimum=2)
    L = model.period
    h_a = silverman_bandwidth(N, scale_a, L)
    h_0 = silverman_bandwidth(N, scale_0, L)
    grid = PeriodicGrid(grid_size, L)
    K = n_terms(min(h_a, h_0), L)
    rng = _rng(seed, N, 1)

    X, deleted = model.sample_with_deletion(N, rng=rng, repeats=R)
    n_del = deleted.sum(axis=1)
    if np.any(n_del == N):
        raise ValueError("a draw deleted every point; use a weaker deletion_strength or a larger N")
    S_kept = fourier_sums(X, K, L, mask=~deleted)
    S_all = S_kept + fourier_sums(X, K, L, mask=deleted)
    n_kept = N - n_del

    coef = {
        ("A", "X"): kde_coefficients(S_all, np.full(R, N), h_a, L),
        ("A", "kept"): kde_coefficients(S_kept, n_kept, h_a, L),
        ("A0", "X"): kde_coefficients(S_all, np.full(R, N), h_0, L),
        ("A0", "kept"): kde_coefficients(S_kept, n_kept, h_0, L),
    }
    dens = {key: density_on_grid(c, grid) for key, c in coef.items()}
    if min(d.min() for d in dens.values()) <= 0:
        raise ValueError("a fitted KDE is not positive on the grid; use a larger N or bandwidth")
    truth = {"X": model.density(grid.points), "kept": model.deleted_density(grid.points)}
    rho_star = model.rho_star(grid.points)

    sup_log = {key: np.max(np.abs(np.log(d) - np.log(truth[key[1]])), axis=1) for key, d in dens.items()}
    tv = {key: grid.integrate(np.abs(d - truth[key[1]])) for key, d in dens.items()}

    p, pk = dens["A", "X"], dens["A", "kept"]
    q, qk = dens["A0", "X"], dens["A0", "kept"]
    rho_hat, rho_e = pk / p, qk / q
    s, sk = truth["X"], truth["kept"]

    run = ConsistencyRun(
        N=N, R=R, bandwidth_a=h_a, bandwidth_0=h_0, period=L, rho_star_sup=model.rho_star_sup,
        n_deleted=n_del, sup_log=sup_log, tv=tv,
        l1_error=grid.integrate(np.abs(rho_e * p - pk)),
        step_exact=grid.integrate(p * np.abs(rho_hat - rho_star)),
        step_dre=grid.integrate(p * np.abs(rho_e - rho_star)),
        weighted_error=grid.integrate(p * np.abs(rho_e * p - pk)),
        weighted_error_alt=grid.integrate(p**2 * np.abs(rho_hat - rho_e)),
        step2_exact=grid.integrate(p**2 * np.abs(rho_hat - rho_star)),
        step2_exact_alt=grid.integrate(p * np.abs(pk - sk - rho_star * (p - s))),
        step2_dre=grid.integrate(p**2 * np.abs(rho_e - rho_star)),
        sup_p=p.max(axis=1),
        sup_p2_over_p0=(p**2 / q).max(axis=1),
        sup_dlog=np.max(np.abs(np.log(rho_hat) - np.log(rho_e)), axis=1),
        sup_dlog_inverted=np.max(np.abs(np.log(rho_hat) + np.log(rho_e)), axis=1), seed=seed,
    )
    if m is not None:
        m = check_count(m, "m")
        rng_y = _rng(seed, N, 2)
        idx = rng_y.integers(0, N, size=(R, m))
        Y = np.mod(np.take_along_axis(X, idx, axis=1) + h_a * rng_y.standard_normal((R, m)), L)
        at = {key: density_at(c, Y, L) for key, c in coef.items()}
        run.m = m
        run.lr_exact = np.mean(np.log(at["A", "kept"]) - np.log(at["A", "X"]), axis=1)
        run.lr_dre = np.mean(np.log(at["A0", "kept"]) - np.log(at["A0", "X"]), axis=1)
    return run


def consistency_sweep(model, Ns, **kwargs):
    """:func:`consistency_run` for every N in ``Ns`` (same keyword arguments); returns a list.

    Examples
    --------
    Thm. 1's error shrinks as N grows:

    >>> from gendel.theory.circle import CircleModel
    >>> from gendel.theory.consistency import consistency_sweep
    >>> runs = consistency_sweep(CircleModel(), [50, 200], R=10, grid_size=256)
    >>> [(run.N, round(float(run.l1_error.mean()), 3)) for run in runs]
    [(50, 0.048), (200, 0.031)]
    """
    return [consistency_run(model, N, **kwargs) for N in Ns]


def _paired(calibration, test):
    calibration, test = list(calibration), list(test)
    if [r.N for r in calibration] != [r.N for r in test]:
        raise ValueError("calibration and test runs need the same training-set sizes N, in the same order")
    if any(c.seed == t.seed for c, t in zip(calibration, test)):
        raise ValueError("calibration and test runs must be independent: draw them with different seeds")
    if any(t.lr_exact is None for t in test):
        raise ValueError("the test runs have no LR statistics: pass m=... to consistency_sweep")
    return calibration, test, [t.N for t in test]


def lr_rc_checks(calibration, test, delta, *, wrong=(2.0, 10.0, 100.0)):
    """Thm. 7 with its constants from calibration draws, checked on independent test draws.

    The theorem bounds ``|LR(Y, rho_hat) - LR(Y, rho_hat_E)|`` for every sample Y, so the tested
    quantity is its supremum over Y, ||log rho_hat - log rho_hat_E||_inf, on each test draw; the
    bound 2 (log c_N + log c_{N-N'}) uses the (1 - delta)-quantiles of the calibration draws only.
    The theorem allows a share 4 delta of draws above it. The same check is run against the bound
    divided by each of ``wrong`` and against rho_hat_E with numerator and denominator swapped.

    Returns
    -------
    list of BoundCheck
        The statement as printed first.

    Examples
    --------
    >>> from gendel.theory.circle import CircleModel
    >>> from gendel.theory.consistency import consistency_sweep, lr_rc_checks
    >>> cal = consistency_sweep(CircleModel(), [400, 12800], R=40, grid_size=256, seed=1)
    >>> test = consistency_sweep(CircleModel(), [400, 12800], R=40, grid_size=256, m=50, seed=2)
    >>> [(c.statement, c.verdict) for c in lr_rc_checks(cal, test, 0.05)]   # doctest: +NORMALIZE_WHITESPACE
    [('Thm. 7 as printed', 'holds'), ('bound divided by 2', 'holds'), ('bound divided by 10', 'holds'),
     ('bound divided by 100', 'rejected'), ('ρ̂_ℰ inverted', 'rejected')]
    """
    calibration, test, Ns = _paired(calibration, test)
    bound = np.array([c.thm7_bound(delta) for c in calibration])
    sup = np.array([t.sup_dlog for t in test])
    what = "sup over Y of |ΔLR| = ‖log ρ̂ − log ρ̂_ℰ‖∞ (test draws) against 2(log c_N + log c_{N−N'}) (calibration draws)"
    out = [BoundCheck("Thm. 7 as printed", what, Ns, bound, sup, 4 * delta)]
    out += [BoundCheck(f"bound divided by {w:g}", f"the same, bound / {w:g}",
                       Ns, bound / w, sup, 4 * delta) for w in wrong]
    out.append(BoundCheck("ρ̂_ℰ inverted", "‖log ρ̂ − log(1/ρ̂_ℰ)‖∞ = ‖log ρ̂ + log ρ̂_ℰ‖∞ against the same bound",
                          Ns, bound, np.array([t.sup_dlog_inverted for t in test]), 4 * delta))
    return out


def lr_sup_checks(calibration, test, delta, *, wrong=(2.0, 10.0, 100.0)):
    """Thm. 8(1) with epsilon from calibration draws, checked on the LR statistics of independent test draws.

    epsilon is the (1 - delta)-quantile of ||log rho_hat - log rho_hat_E||_inf over the calibration
    draws, so the theorem's premise holds in a share 1 - delta of test draws and its conclusion
    ``|LR(Y, rho_hat) - LR(Y, rho_hat_E)|`` <= epsilon may fail in at most a share delta. The same
    check runs against epsilon divided by each of ``wrong`` and against rho_hat_E inverted.

    Returns
    -------
    list of BoundCheck
        The statement as printed first.

    Examples
    --------
    >>> from gendel.theory.circle import CircleModel
    >>> from gendel.theory.consistency import consistency_sweep, lr_sup_checks
    >>> cal = consistency_sweep(CircleModel(), [400, 12800], R=40, grid_size=256, seed=1)
    >>> test = consistency_sweep(CircleModel(), [400, 12800], R=40, grid_size=256, m=50, seed=2)
    >>> [c.verdict for c in lr_sup_checks(cal, test, 0.05)]
    ['holds', 'holds', 'holds', 'rejected', 'rejected']
    """
    calibration, test, Ns = _paired(calibration, test)
    delta = _check_delta(delta)
    eps = np.array([_quantile(c.sup_dlog, 1 - delta) for c in calibration])
    diff = np.array([t.lr_difference for t in test])
    what = "|ΔLR| on the test sample Y against ε, the (1 − δ)-quantile of ‖log ρ̂ − log ρ̂_ℰ‖∞ (calibration)"
    out = [BoundCheck("Thm. 8(1) as printed", what, Ns, eps, diff, delta)]
    out += [BoundCheck(f"ε divided by {w:g}", f"the same, ε / {w:g}", Ns, eps / w, diff, delta) for w in wrong]
    out.append(BoundCheck("ρ̂_ℰ inverted", "|LR(Y, ρ̂) − LR(Y, 1/ρ̂_ℰ)| against ε", Ns, eps,
                          np.array([np.abs(t.lr_exact + t.lr_dre) for t in test]), delta))
    return out


__all__ = [
    "ConsistencyRun",
    "RatioStabilityRun",
    "RatioSupremumRun",
    "consistency_run",
    "consistency_sweep",
    "lr_rc_checks",
    "lr_sup_checks",
    "ratio_stability_run",
    "ratio_supremum_run",
]
