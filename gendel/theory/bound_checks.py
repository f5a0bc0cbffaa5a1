"""Bounds checked on held-out draws: a statement "measured <= bound, except with probability at
most p" (:class:`BoundCheck`), Markov's bound of Thms. 8(2) and 9 (:func:`markov_checks`), and
the power of a check against deliberately wrong statements.

The bound of each case is computed before the test draws are seen; each check is also run
against wrong statements (the bound divided by a factor), which it must reject.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from gendel.theory.quadrature import binomial_upper, format_share


def _shares(exceedance, tolerance):
    """Both shares as percentages, with digits enough to tell them apart when they differ.

    Examples
    --------
    >>> _shares(0.14, 0.135), _shares(0.0, 0.001)
    (('14.0%', '13.5%'), ('0%', '0.1%'))
    """
    a, b = format_share(exceedance), format_share(tolerance)
    digits = 1
    while a == b and exceedance != tolerance and digits <= 4:
        a, b = f"{exceedance:.{digits}%}", f"{tolerance:.{digits}%}"
        digits += 1
    return a, b


@dataclass(frozen=True)
class BoundCheck:
    """A statement "measured <= bound, except with probability at most p", checked by repetition.

    The bound of each case is computed before the test draws are seen (from independent
    calibration draws or samples); ``measured`` holds the tested quantity on the test draws. The
    statement holds when, in every case, the share of test draws above the bound is at most
    :func:`~gendel.theory.quadrature.binomial_upper` (p, R): a true statement fails this with
    probability below 1e-6 per case. A deliberately wrong statement checked on the same draws
    shows the check's power.

    Parameters
    ----------
    statement, compared : str
        The statement in words and what it compares (the table's first two columns).
    cases : sequence
        A label per case (a training-set size N, a level δ, ...).
    bound, measured : arrays of shapes (n_cases,) and (n_cases, R)
    p : float or array of shape (n_cases,)
        The exceedance probability the statement allows.
    case_name : str
        How :meth:`result` names a case ("N").

    Examples
    --------
    >>> import numpy as np
    >>> from gendel.theory.bound_checks import BoundCheck
    >>> x = np.random.default_rng(0).exponential(size=(2, 400))       # two cases, 400 draws each
    >>> ok = BoundCheck("P(x > 3) ≤ 0.05", "x", [1, 2], [3.0, 3.0], x, 0.05)
    >>> bad = BoundCheck("P(x > 0.3) ≤ 0.05", "x", [1, 2], [0.3, 0.3], x, 0.05)
    >>> ok.verdict, bad.verdict
    ('holds', 'rejected')
    >>> round(ok.slack, 1)            # the bound could shrink by this factor and still pass
    1.2
    >>> bad.result()
    '77% of draws above the bound at N = 1 (a true statement allows up to 11%)'
    >>> exact = BoundCheck("x ≤ max x", "x", [1], [x[0].max()], x[:1], 0.0)   # deterministic
    >>> exact.result(), exact.slack     # attained: any smaller bound fails
    ('0% of draws above the bound at N = 1 (a true bound allows none)', 1.0)
    """

    statement: str
    compared: str
    cases: tuple
    bound: np.ndarray
    measured: np.ndarray
    p: object
    case_name: str = "N"

    def __post_init__(self):
        bound = np.atleast_1d(np.asarray(self.bound, dtype=float))
        measured = np.atleast_2d(np.asarray(self.measured, dtype=float))
        if measured.shape[0] != bound.size or len(self.cases) != bound.size:
            raise ValueError(f"need one bound and one row of measurements per case; got {len(self.cases)} cases, "
                             f"{bound.size} bounds and measurements of shape {measured.shape}")
        p = np.broadcast_to(np.asarray(self.p, dtype=float), bound.shape)
        if np.any((p < 0) | (p >= 1)):
            raise ValueError(f"p must lie in [0, 1); got {self.p!r}")
        object.__setattr__(self, "bound", bound)
        object.__setattr__(self, "measured", measured)
        object.__setattr__(self, "p", p)
        object.__setattr__(self, "cases", tuple(self.cases))

    @property
    def exceedance(self):
        """Per case: the share of test draws above the bound."""
        return np.mean(self.measured > self.bound[:, None], axis=1)

    @property
    def tolerance(self):
        """Per case: the largest share a true statement produces (with probability 1 - 1e-6)."""
        R = self.measured.shape[1]
        return np.array([binomial_upper(float(p), R) for p in self.p])

    @property
    def verdict(self):
        """"holds" if every case is within its tolerance, "rejected" otherwise."""
        return "holds" if np.all(self.exceedance <= self.tolerance) else "rejected"

    @property
    def slacks(self):
        """Per case: the largest k such that the bound divided by k would still pass that case.

        1 means the bound is attained: any smaller bound fails.
        """
        R = self.measured.shape[1]
        with np.errstate(divide="ignore"):
            ratio = np.sort(self.bound[:, None] / self.measured, axis=1)
        j = np.floor(self.tolerance * R + 1e-9).astype(int)
        return ratio[np.arange(len(j)), np.minimum(j, R - 1)]

    @property
    def slack(self):
        """The largest k such that the bound divided by k would still pass in every case."""
        return float(np.min(self.slacks))

    def result(self):
        """The worst case, in words: the share of draws above the bound and the share a true statement allows."""
        k = int(np.argmax(self.exceedance - self.tolerance))
        case = self.cases[k]
        case = f"{case:,}" if isinstance(case, (int, np.integer)) else str(case)
        case = f"{self.case_name} = {case}" if self.case_name else case
        above, allowed = _shares(self.exceedance[k], self.tolerance[k])
        allowed = "a true bound allows none" if self.tolerance[k] == 0 else f"a true statement allows up to {allowed}"
        return f"{above} of draws above the bound at {case} ({allowed})"

    def row(self):
        """[statement, what is compared, result, verdict]: one row of a power table."""
        return [self.statement, self.compared, self.result(), self.verdict]


CHECK_HEADER = ("statement", "what is compared", "result", "verdict")



def markov_checks(change, eps, deltas, *, factor=1.0, label="|Δ|", bound_label="ε/δ", wrong=(10.0, 100.0)):
    """Markov's bound P(change > factor ε / δ) ≤ δ (Thms. 8(2), 9), and the same bound divided by ``wrong``.

    Parameters
    ----------
    change : dict
        ``{case: array (R,)}``: the change of the statistic on R test sets, e.g. per hypothesis.
    eps : dict or float
        ``{case: epsilon}`` (or one epsilon for every case), estimated from samples independent
        of the test sets.
    deltas : sequence of float
        The levels δ at which the bound is checked.
    factor : float
        1 for LR (Thm. 8(2)), 2 for ASC (Thm. 9).
    label, bound_label : str
        Names used in the table.
    wrong : sequence of float
        Divisors of the bound, each a deliberately wrong statement checked on the same draws.

    Returns
    -------
    list of BoundCheck
        The statement as printed first, then one per divisor; cases are (key, δ) pairs.

    Examples
    --------
    >>> import numpy as np
    >>> from gendel.theory.bound_checks import markov_checks
    >>> x = np.abs(np.random.default_rng(0).normal(0, 0.1, size=500))    # E x ≈ 0.08
    >>> checks = markov_checks({"H0": x}, 0.08, [0.05, 0.2])
    >>> [c.verdict for c in checks]
    ['holds', 'rejected', 'rejected']
    """
    deltas = [float(d) for d in deltas]
    if not change or not deltas or any(not 0 < d < 1 for d in deltas):
        raise ValueError("need at least one set of changes and levels δ in (0, 1)")
    keys = list(change)
    eps = {k: float(eps[k] if isinstance(eps, dict) else eps) for k in keys}
    pairs = [(k, d) for k in keys for d in deltas]
    cases = [f"{k}, δ = {d:g}" for k, d in pairs]
    measured = np.array([np.asarray(change[k], dtype=float) for k, _ in pairs])
    bound = np.array([factor * eps[k] / d for k, d in pairs])
    p = [d for _, d in pairs]
    out = [BoundCheck(f"P({label} > {bound_label}) ≤ δ (as printed)", f"{label} on test sets against {bound_label}",
                      cases, bound, measured, p, case_name="")]
    for w in wrong:
        out.append(BoundCheck(f"P({label} > ({bound_label}) / {w:g}) ≤ δ", f"the same, bound / {w:g}",
                              cases, bound / w, measured, p, case_name=""))
    return out


__all__ = ["BoundCheck", "CHECK_HEADER", "markov_checks"]
