"""Ratio stability on the circle (Def. 6, Thms. 4 and 5) and the held-out checks of Thms. 4 and 6.

Split from :mod:`gendel.theory.consistency` (which re-exports the run functions); the learners and
the empirical constants are described there. A check estimates its constants (c_N, epsilon) on
one set of draws and tests the bound on another, independent set, so that a wrong constant or a
wrong formula makes it fail; each check is also run against deliberately wrong statements.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from gendel._validation import check_count
from gendel.theory._repeats import _check_delta, _quantile, _rng
from gendel.theory.circle import CircleModel, density_on_grid, fourier_sums, kde_coefficients, n_terms, silverman_bandwidth
from gendel.theory.moments import BoundCheck
from gendel.theory.quadrature import PeriodicGrid, binomial_upper


# ------------------------------------------------------------------------------------------
# Ratio stability (Def. 6, Thm. 4)


@dataclass
class RatioStabilityRun:
    """Per-repeat quantities of Def. 6 / Thm. 4 for one N.

    Z_1 holds N i.i.d. points of mu_1 = p_*, Z_2 holds N - 1 i.i.d. points of mu_2 = p_*',
    independent of Z_1, and both are fitted by the KDE A with bandwidth h = scale L N^(-1/5).

    Attributes
    ----------
    rs : ||log(p_A(Z_1) / mu_1) - log(p_A(Z_2) / mu_2)||_inf per repeat (the RS quantity).
    sup_log_1, sup_log_2 : ||log(p_A(Z_i) / mu_i)||_inf per repeat (the RC quantities).
    seed : the seed of the draws (runs with different seeds are independent).

    Examples
    --------
    >>> from gendel.theory.circle import CircleModel
    >>> from gendel.theory.ratio_stability import ratio_stability_run
    >>> run = ratio_stability_run(CircleModel(), 200, R=20, grid_size=256)
    >>> run.rs.shape, bool((run.rs <= run.sup_log_1 + run.sup_log_2 + 1e-12).all())   # triangle inequality
    ((20,), True)
    """

    N: int
    R: int
    bandwidth: float
    rs: np.ndarray
    sup_log_1: np.ndarray
    sup_log_2: np.ndarray
    seed: int = None

    def rc_constant(self, delta):
        """log c_N of Def. 1 at level delta: the (1 - delta)-quantile of both sets' sup log errors, pooled.

        One constant for the set of N points and the set of N - 1 points, as in the proof of Thm. 4.
        """
        return _quantile(np.concatenate([self.sup_log_1, self.sup_log_2]), 1 - _check_delta(delta))

    def rs_epsilon(self, delta):
        """Empirical RS constant: the (1 - delta)-quantile of the RS quantity."""
        return _quantile(self.rs, 1 - _check_delta(delta))

    def log_c(self, delta):
        """log c_N: the (1 - delta)-quantile of the larger RC sup log ratio (serves Z_1 and Z_2)."""
        return _quantile(np.maximum(self.sup_log_1, self.sup_log_2), 1 - _check_delta(delta))


def ratio_stability_run(model, N, *, R=200, scale=0.25, grid_size=4096, seed=0):
    """Record the RS quantity of Def. 6 and the RC quantities of Def. 1 over R draws (Thm. 4).

    Examples
    --------
    The empirical RS constant stays below 2 log c_N, as Thm. 4 says:

    >>> from gendel.theory.circle import CircleModel
    >>> from gendel.theory.ratio_stability import ratio_stability_run
    >>> run = ratio_stability_run(CircleModel(), 200, R=20, grid_size=256)
    >>> round(run.rs_epsilon(delta=0.1), 3), round(run.log_c(delta=0.1), 3)
    (0.456, 0.417)
    """
    if not isinstance(model, CircleModel):
        raise TypeError(f"model must be a gendel.theory.circle.CircleModel; got {type(model).__name__}")
    N, R = check_count(N, "N", minimum=4), check_count(R, "R", minimum=2)
    L = model.period
    h = silverman_bandwidth(N, scale, L)
    grid = PeriodicGrid(grid_size, L)
    K = n_terms(h, L)
    rng = _rng(seed, N, 3)
    Z1 = model.sample(N, rng=rng, repeats=R)
    Z2 = model.sample_deleted_distribution(N - 1, rng=rng, repeats=R)
    p1 = density_on_grid(kde_coefficients(fourier_sums(Z1, K, L), np.full(R, N), h, L), grid)
    p2 = density_on_grid(kde_coefficients(fourier_sums(Z2, K, L), np.full(R, N - 1), h, L), grid)
    e1 = np.log(p1) - np.log(model.density(grid.points))
    e2 = np.log(p2) - np.log(model.deleted_density(grid.points))
    return RatioStabilityRun(N=N, R=R, bandwidth=h, rs=np.max(np.abs(e1 - e2), axis=1),
                             sup_log_1=np.max(np.abs(e1), axis=1), sup_log_2=np.max(np.abs(e2), axis=1), seed=seed)


def rs_checks(calibration, test, delta, *, wrong=(10.0,)):
    """Thm. 4 with c_N from calibration draws, checked on the RS quantity of independent test draws.

    On the calibration runs log c_N is the (1 - delta)-quantile of the RC quantities of both
    training sets (:meth:`RatioStabilityRun.rc_constant`); on the test runs, drawn with another
    seed, the RS quantity ||log(p_A(Z_1)/mu_1) - log(p_A(Z_2)/mu_2)||_inf may exceed 2 log c_N
    in at most a share 2 delta of draws. The same test draws are checked against the bound
    divided by each of ``wrong`` and against (log c_N) / 2, the factor 2 dividing instead of
    multiplying.

    Parameters
    ----------
    calibration, test : sequences of RatioStabilityRun
        Runs for the same sizes N, in the same order, with different seeds.
    delta : float
        The RC level; the RS statement is checked at level 2 delta.

    Returns
    -------
    list of BoundCheck
        The statement as printed first.

    Examples
    --------
    >>> from gendel.theory.circle import CircleModel
    >>> from gendel.theory.ratio_stability import ratio_stability_run, rs_checks
    >>> cal = [ratio_stability_run(CircleModel(), n, R=40, grid_size=256, seed=1) for n in (200, 800)]
    >>> test = [ratio_stability_run(CircleModel(), n, R=40, grid_size=256, seed=2) for n in (200, 800)]
    >>> [(c.statement, c.verdict) for c in rs_checks(cal, test, 0.05)]
    [('Thm. 4 as printed', 'holds'), ('ε divided by 10', 'rejected'), ('ε = (log c_{N}) / 2', 'rejected')]
    """
    calibration, test = list(calibration), list(test)
    if not calibration or [r.N for r in calibration] != [r.N for r in test]:
        raise ValueError("calibration and test runs need the same training-set sizes N, in the same order")
    if any(c.seed is None or c.seed == t.seed for c, t in zip(calibration, test)):
        raise ValueError("calibration and test runs must be independent: draw them with different seeds")
    delta = _check_delta(delta)
    Ns = [t.N for t in test]
    log_c = np.array([c.rc_constant(delta) for c in calibration])
    rs = np.array([t.rs for t in test])
    what = "RS quantity ‖log(p̂₁/μ₁) − log(p̂₂/μ₂)‖∞ (test draws) against ε = 2 log c_{N} (calibration draws)"
    out = [BoundCheck("Thm. 4 as printed", what, Ns, 2 * log_c, rs, 2 * delta)]
    out += [BoundCheck(f"ε divided by {w:g}", f"the same against 2 log c_{{N}} / {w:g}", Ns, 2 * log_c / w, rs, 2 * delta)
            for w in wrong]
    out.append(BoundCheck("ε = (log c_{N}) / 2", "the same against (log c_{N}) / 2", Ns, log_c / 2, rs, 2 * delta))
    return out


# ------------------------------------------------------------------------------------------
# Thm. 5: the size of rho_hat as the deletion set grows


@dataclass
class RatioSupremumRun:
    """Per-repeat quantities of Thm. 5 for one deletion strength beta.

    Attributes
    ----------
    beta : float
    rho_star_sup : ||rho_*||_inf for this beta.
    n_deleted : N' per repeat.
    log_sup_rho_hat : log ||rho_hat||_inf per repeat (max over the grid).
    sup_log_x, sup_log_kept : ||log(p_hat / p_*)||_inf and ||log(p_hat' / p_*')||_inf per repeat.

    Examples
    --------
    The supremum never exceeds the direct RC bound:

    >>> from gendel.theory.ratio_stability import ratio_supremum_run
    >>> runs = ratio_supremum_run(200, [0.2, 0.6], R=10, grid_size=256)
    >>> [bool((run.log_sup_rho_hat <= run.direct_bound() + 1e-12).all()) for run in runs]
    [True, True]
    """

    beta: float
    rho_star_sup: float
    n_deleted: np.ndarray
    log_sup_rho_hat: np.ndarray
    sup_log_x: np.ndarray
    sup_log_kept: np.ndarray

    def direct_bound(self):
        """Per repeat: log ||rho_*||_inf + ||log p_hat/p_*||_inf + ||log p_hat'/p_*'||_inf (RC, no induction)."""
        return np.log(self.rho_star_sup) + self.sup_log_x + self.sup_log_kept


def ratio_supremum_run(N, betas, *, amplitude=0.5, R=100, scale=0.25, grid_size=4096, seed=0):
    """For each deletion strength beta, thin R training sets of size N and record log ||rho_hat||_inf.

    Examples
    --------
    log ||rho_hat||_inf grows with the deletion strength beta, as log ||rho_*||_inf does:

    >>> import numpy as np
    >>> from gendel.theory.ratio_stability import ratio_supremum_run
    >>> runs = ratio_supremum_run(200, [0.2, 0.6], R=10, grid_size=256)
    >>> [(round(float(np.log(run.rho_star_sup)), 2), round(float(np.median(run.log_sup_rho_hat)), 2)) for run in runs]
    [(0.11, 0.09), (0.36, 0.32)]
    """
    N, R = check_count(N, "N", minimum=4), check_count(R, "R", minimum=2)
    h = silverman_bandwidth(N, scale)
    grid = PeriodicGrid(grid_size)
    K = n_terms(h)
    out = []
    for i, beta in enumerate(betas):
        model = CircleModel(amplitude=amplitude, deletion_strength=beta)
        rng = _rng(seed, N, 4, i)
        X, deleted = model.sample_with_deletion(N, rng=rng, repeats=R)
        n_del = deleted.sum(axis=1)
        S_kept = fourier_sums(X, K, mask=~deleted)
        S_all = S_kept + fourier_sums(X, K, mask=deleted)
        p = density_on_grid(kde_coefficients(S_all, np.full(R, N), h), grid)
        pk = density_on_grid(kde_coefficients(S_kept, N - n_del, h), grid)
        out.append(RatioSupremumRun(
            beta=float(beta), rho_star_sup=model.rho_star_sup, n_deleted=n_del,
            log_sup_rho_hat=np.max(np.log(pk) - np.log(p), axis=1),
            sup_log_x=np.max(np.abs(np.log(p) - np.log(model.density(grid.points))), axis=1),
            sup_log_kept=np.max(np.abs(np.log(pk) - np.log(model.deleted_density(grid.points))), axis=1),
        ))
    return out


# ------------------------------------------------------------------------------------------
# Thm. 6: epsilon from calibration samples of p_hat, the bounds tested on independent samples


@dataclass(frozen=True)
class MeanBoundCheck:
    """A statement "mean <= bound" in every case, the means estimated by Monte Carlo with standard errors.

    It holds when every estimate is at most its bound plus ``z`` standard errors (a true
    statement fails this with probability below about 3e-7 per case at z = 5).

    Examples
    --------
    >>> from gendel.theory.ratio_stability import MeanBoundCheck
    >>> ok = MeanBoundCheck("KL ≤ 1", "KL", [1.0, 1.0], [0.5, 0.9], [0.1, 0.1])
    >>> bad = MeanBoundCheck("KL ≤ 0.1", "KL", [0.1, 0.1], [0.5, 0.9], [0.1, 0.1])
    >>> ok.verdict, bad.verdict, ok.result()
    ('holds', 'rejected', 'largest estimate / bound 0.9; 0 of 2 cases above by more than 5 s.e.')
    """

    statement: str
    compared: str
    bound: np.ndarray
    estimate: np.ndarray
    se: np.ndarray
    z: float = 5.0

    @property
    def failures(self):
        """Number of cases whose estimate exceeds the bound by more than z standard errors."""
        b, e, se = (np.asarray(a, dtype=float) for a in (self.bound, self.estimate, self.se))
        return int(np.sum(e > b + self.z * se))

    @property
    def verdict(self):
        return "holds" if self.failures == 0 else "rejected"

    def result(self):
        """The worst case, in words."""
        ratio = np.max(np.asarray(self.estimate, dtype=float) / np.asarray(self.bound, dtype=float))
        return (f"largest estimate / bound {ratio:.2g}; {self.failures} of {np.size(self.bound)} cases "
                f"above by more than {self.z:g} s.e.")

    def row(self):
        """[statement, what is compared, result, verdict]: one row of a power table."""
        return [self.statement, self.compared, self.result(), self.verdict]


@dataclass
class ErrorStabilityCheck:
    """Thm. 6 for a fitted KDE with epsilon from calibration samples and the bounds tested on others.

    Attributes
    ----------
    calibration, test : ErrorStability
        From independent samples of p_hat; ``test.worst`` is the deletion z* chosen on the
        calibration samples.
    deltas : ndarray
        The levels of the Cantelli bound.

    Examples
    --------
    >>> import numpy as np
    >>> from gendel.core.models import KDE
    >>> from gendel.theory.ratio_stability import error_stability_check
    >>> X = np.random.default_rng(0).normal(size=(40, 2))
    >>> check = error_stability_check(KDE(bandwidth=0.4).fit(X), 2000, calibration_seed=1, test_seed=2)
    >>> [c.verdict for c in check.kl_checks()], [c.verdict for c in check.cantelli_checks()]
    (['holds', 'holds', 'rejected', 'rejected'], ['holds', 'rejected'])
    """

    calibration: object
    test: object
    deltas: np.ndarray

    @property
    def epsilon(self):
        """The ES constant: the largest second moment E(log rho_hat^{(z)})^2 on the calibration samples."""
        return float(self.calibration.second_moment.max())

    def kl_checks(self, *, wrong=100.0):
        """KL(p_hat || p_hat^{(z)}) on the test samples against sqrt(epsilon) and per-z bounds.

        Rows: the theorem as printed (one epsilon for every z); its proof's Jensen step per z,
        KL <= sqrt(E(log rho_hat^{(z)})^2); and two wrong statements: sqrt(epsilon) / ``wrong``,
        and KL <= E(log rho_hat^{(z)})^2 / 4 (for a small change KL is about half the second moment).
        """
        kl, se = self.test.kl_cv, self.test.kl_cv_se
        m2 = self.calibration.second_moment
        what = "KL(p̂ ‖ p̂⁽ᶻ⁾) for each of the N deletions z (test samples) against "
        flat = np.full_like(kl, np.sqrt(self.epsilon))
        return [MeanBoundCheck("Thm. 6: KL ≤ √ε (as printed)", what + "√ε, ε = max over z of E(log ρ̂⁽ᶻ⁾)² (calibration)",
                               flat, kl, se),
                MeanBoundCheck("Jensen step, per z", what + "√E(log ρ̂⁽ᶻ⁾)² (calibration)", np.sqrt(m2), kl, se),
                MeanBoundCheck(f"√ε divided by {wrong:g}", f"the same against √ε / {wrong:g}", flat / wrong, kl, se),
                MeanBoundCheck("KL ≤ E(log ρ̂⁽ᶻ⁾)² / 4, per z", "the same against E(log ρ̂⁽ᶻ⁾)² / 4 (calibration)",
                               m2 / 4, kl, se)]

    def cantelli_checks(self, *, wrong=(1000.0,)):
        """P(log rho_hat^{(z*)}(x) > sqrt(epsilon (1 - delta) / delta)) <= delta for x ~ p_hat on the test samples.

        The same test samples are checked against the bound divided by each of ``wrong``.
        """
        from gendel.theory.stability import cantelli_bound

        bound = cantelli_bound(self.epsilon, self.deltas)
        L = np.broadcast_to(self.test.log_ratio_worst, (len(self.deltas), self.test.log_ratio_worst.size))
        cases = [f"δ = {d:.2g}" for d in self.deltas]
        what = ("log ρ̂⁽ᶻ*⁾(x), x ~ p̂ (test samples) against √(ε(1 − δ)/δ), ε and z* from the calibration samples")
        out = [BoundCheck("Thm. 6: Cantelli bound (as printed)", what, cases, bound, L, self.deltas, case_name="")]
        out += [BoundCheck(f"bound divided by {w:g}", f"the same against √(ε(1 − δ)/δ) / {w:g}", cases, bound / w, L,
                           self.deltas, case_name="") for w in wrong]
        return out

    def cantelli_slack(self):
        """The largest k such that the Cantelli bound divided by k still passes at every delta."""
        from gendel.theory.stability import cantelli_bound

        L = self.test.log_ratio_worst
        out = np.inf
        for d, b in zip(self.deltas, cantelli_bound(self.epsilon, self.deltas)):
            ratio = np.sort(np.where(L > 0, b / np.where(L > 0, L, 1.0), np.inf))
            allowed = int(np.floor(binomial_upper(float(d), L.size) * L.size + 1e-9))
            out = min(out, float(ratio[min(allowed, L.size - 1)]))
        return out


def error_stability_check(kde, M, *, calibration_seed, test_seed, M_test=None, deltas=(0.001, 0.01, 0.1, 0.5)):
    """Estimate epsilon of Thm. 6 on M samples of p_hat and test its bounds on M_test independent samples.

    Parameters
    ----------
    kde : gendel.core.models.KDE
        The fitted pre-trained model p_hat.
    M, M_test : int
        Calibration and test sample sizes (M_test defaults to M).
    calibration_seed, test_seed : int
        Seeds of the two sample sets; they must differ.
    deltas : sequence of float in (0, 1)

    Examples
    --------
    Changing the test seed changes the tested samples, not epsilon:

    >>> import numpy as np
    >>> from gendel.core.models import KDE
    >>> from gendel.theory.ratio_stability import error_stability_check
    >>> kde = KDE(bandwidth=0.4).fit(np.random.default_rng(0).normal(size=(30, 2)))
    >>> a = error_stability_check(kde, 500, calibration_seed=1, test_seed=2)
    >>> b = error_stability_check(kde, 500, calibration_seed=1, test_seed=3)
    >>> a.epsilon == b.epsilon, bool(np.all(a.test.kl_cv == b.test.kl_cv))
    (True, False)
    """
    from gendel.theory.stability import error_stability

    if calibration_seed == test_seed:
        raise ValueError("calibration and test samples must be independent: give them different seeds")
    deltas = np.asarray(deltas, dtype=float)
    if deltas.ndim != 1 or deltas.size == 0 or np.any((deltas <= 0) | (deltas >= 1)):
        raise ValueError("deltas must be a non-empty sequence of levels in (0, 1)")
    cal = error_stability(kde, M, rng=_rng(calibration_seed, 6))
    test = error_stability(kde, M if M_test is None else M_test, rng=_rng(test_seed, 6), worst=cal.worst)
    return ErrorStabilityCheck(cal, test, deltas)


__all__ = ["ErrorStabilityCheck", "MeanBoundCheck", "RatioStabilityRun", "RatioSupremumRun", "error_stability_check",
           "ratio_stability_run", "ratio_supremum_run", "rs_checks"]
