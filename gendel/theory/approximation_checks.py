"""Thms. 1 and 2 checked with a calibration/test split of the draws of a consistency sweep.

The repeats of a :class:`~gendel.theory.consistency.ConsistencyRun` are independent draws of
(X, X'), so its first draws can calibrate the constants (c_N, epsilon_N, the sup norms of the
corrected Thm. 2) and the remaining draws, which played no part in them, test the bound. A
constant read off the same draws that test the bound would help the bound; split draws cannot.
"""

from __future__ import annotations

from dataclasses import fields, replace

import numpy as np

from gendel.theory._repeats import _check_delta
from gendel.theory.consistency import ConsistencyRun
from gendel.theory.moments import BoundCheck


def split_run(run, n_calibration=None):
    """The first ``n_calibration`` draws of a run and the remaining draws, as two runs.

    Parameters
    ----------
    run : ConsistencyRun
    n_calibration : int, optional
        Draws for calibration (default: half of them, rounded down); at least 2 on each side.

    Returns
    -------
    (ConsistencyRun, ConsistencyRun)
        Calibration and test draws; they share no draw.

    Examples
    --------
    >>> from gendel.theory.circle import CircleModel
    >>> from gendel.theory.consistency import consistency_run
    >>> from gendel.theory.approximation_checks import split_run
    >>> cal, test = split_run(consistency_run(CircleModel(), 200, R=10, grid_size=256))
    >>> cal.R, test.R, test.l1_error.shape
    (5, 5, (5,))
    """
    if not isinstance(run, ConsistencyRun):
        raise TypeError(f"run must be a ConsistencyRun from consistency_run; got {type(run).__name__}")
    n = run.R // 2 if n_calibration is None else int(n_calibration)
    if not 2 <= n <= run.R - 2:
        raise ValueError(f"n_calibration must leave at least 2 draws on each side of the split; got {n} of {run.R}")

    def part(sl):
        cut = {f.name: getattr(run, f.name)[sl] for f in fields(run)
               if isinstance(getattr(run, f.name), np.ndarray) and getattr(run, f.name).shape[:1] == (run.R,)}
        cut.update(sup_log={k: v[sl] for k, v in run.sup_log.items()}, tv={k: v[sl] for k, v in run.tv.items()})
        return replace(run, R=len(run.l1_error[sl]), **cut)

    return part(slice(None, n)), part(slice(n, None))


def _split_all(runs, n_calibration):
    runs = list(runs)
    if not runs:
        raise ValueError("need at least one run: pass the list returned by consistency_sweep")
    return [split_run(r, n_calibration) for r in runs]


def thm1_checks(runs, delta, *, n_calibration=None, wrong=(4, 10, 100, 1000)):
    """Thm. 1 with c_N, c_{N-N'} from the calibration draws of each run, tested on its other draws.

    The bound 4 (c_N + c_{N-N'} - 2) uses the (1 - delta)-quantiles of the calibration draws
    (:func:`split_run`); the theorem allows a share 2 (delta_N + delta_{N-N'}) = 4 delta of test
    draws above it. The same test draws are checked against the bound divided by each of ``wrong``.

    Returns
    -------
    list of BoundCheck
        The statement as printed first, one case per run (its N).

    Examples
    --------
    >>> from gendel.theory.circle import CircleModel
    >>> from gendel.theory.consistency import consistency_sweep
    >>> from gendel.theory.approximation_checks import thm1_checks
    >>> runs = consistency_sweep(CircleModel(), [200, 1600], R=80, grid_size=256)
    >>> [(c.statement, c.verdict) for c in thm1_checks(runs, 0.05)]   # doctest: +NORMALIZE_WHITESPACE
    [('Thm. 1 as printed', 'holds'), ('bound divided by 4', 'holds'), ('bound divided by 10', 'holds'),
     ('bound divided by 100', 'holds'), ('bound divided by 1000', 'rejected')]
    """
    delta = _check_delta(delta)
    pairs = _split_all(runs, n_calibration)
    Ns = [t.N for _, t in pairs]
    bound = np.array([c.thm1_bound(delta) for c, _ in pairs])
    error = np.array([t.l1_error for _, t in pairs])
    what = "‖ρ̂_ℰ p̂ − p̂'‖₁ (test draws) against 4(c_N + c_{N−N'} − 2) (calibration draws)"
    out = [BoundCheck("Thm. 1 as printed", what, Ns, bound, error, 4 * delta)]
    out += [BoundCheck(f"bound divided by {w:g}", f"the same, bound / {w:g}", Ns, bound / w, error, 4 * delta)
            for w in wrong]
    return out


def thm2_checks(runs, delta, *, n_calibration=None, wrong=(10, 100, 1000)):
    """Thm. 2 as printed and corrected, constants from calibration draws, tested on the other draws.

    The printed bound is 2 (epsilon_{N-N'} + ||rho_*||_inf epsilon_N); the corrected one multiplies
    the same bracket by ||p_hat||_inf + ||p_hat^2 / p_0||_inf instead of 2
    (:meth:`~gendel.theory.consistency.ConsistencyRun.thm2_bound_corrected`). All constants are
    (1 - delta)-quantiles of the
    calibration draws; the left side ||rho_hat_E p_hat - p_hat'||_{1,p_hat} is taken on the test
    draws, and a share 4 delta may lie above. Pass runs on circles of different circumferences to
    see the change of units that the printed bound misses; the corrected bound is also checked
    divided by each of ``wrong``.

    Returns
    -------
    list of BoundCheck
        The printed bound, the corrected bound, then the corrected bound divided by each of ``wrong``;
        one case per run, labelled by circumference L and N.

    Examples
    --------
    >>> from gendel.theory.circle import CircleModel
    >>> from gendel.theory.consistency import consistency_sweep
    >>> from gendel.theory.approximation_checks import thm2_checks
    >>> unit = consistency_sweep(CircleModel(), [400], R=80, grid_size=256)
    >>> small = consistency_sweep(CircleModel(period=0.02), [400], R=80, grid_size=256)
    >>> [c.verdict for c in thm2_checks(unit, 0.05)], [c.verdict for c in thm2_checks(unit + small, 0.05)]
    (['holds', 'holds', 'holds', 'rejected', 'rejected'], ['rejected', 'holds', 'holds', 'rejected', 'rejected'])
    """
    delta = _check_delta(delta)
    pairs = _split_all(runs, n_calibration)
    cases = [f"L = {t.period:g}, N = {t.N:,}" for _, t in pairs]
    printed = np.array([c.thm2_bound(delta) for c, _ in pairs])
    fixed = np.array([c.thm2_bound_corrected(delta) for c, _ in pairs])
    error = np.array([t.weighted_error for _, t in pairs])
    lhs = "‖ρ̂_ℰ p̂ − p̂'‖_{1,p̂} (test draws)"
    out = [BoundCheck("Thm. 2 as printed", f"{lhs} against 2(ε_{{N−N'}} + ‖ρ_*‖∞ ε_N) (calibration draws)",
                      cases, printed, error, 4 * delta, case_name=""),
           BoundCheck("corrected bound", f"{lhs} against the corrected bound (calibration draws)",
                      cases, fixed, error, 4 * delta, case_name="")]
    out += [BoundCheck(f"corrected bound divided by {w:g}", "the same, corrected bound / " f"{w:g}",
                       cases, fixed / w, error, 4 * delta, case_name="") for w in wrong]
    return out


__all__ = ["split_run", "thm1_checks", "thm2_checks"]
