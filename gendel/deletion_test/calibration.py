"""Calibration of a test by simulation: the level, p-values, critical values and error rates (§4).

A test statistic t is *oriented* when large values are evidence against H0 (a statistic for
which small values reject is multiplied by its direction -1 first). Given n oriented statistics
simulated under H0 (the *null sample*), the Monte-Carlo p-value

    p = (1 + #{null >= t}) / (1 + n)

is valid at every n: under H0 the observed statistic and the n simulated ones are exchangeable,
so P(p <= alpha) <= alpha exactly. Rejecting when p <= alpha is the same as rejecting when t lies
strictly beyond a critical value c, an order statistic of the null sample
(:func:`critical_value`, :func:`rejects`). Where the statistic is asymptotically normal,
:func:`normal_p_values` gives the p-values of the normal approximation instead.

Error rates of repeated tests: :func:`binomial_interval` (independent tests, exact
Clopper-Pearson interval), :func:`type_one_band` (tests that share one null sample, a
Beta-binomial law), :func:`null_spread` (the spread a shared null sample adds to a rejection
rate) and :class:`PowerResult` (a rejection rate with its interval, that spread included).

This module is pure numpy/scipy; :class:`gendel.deletion_test.decision.DeletionTest` simulates the null
samples and uses it, and re-exports every name here.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass, field

import numpy as np
from scipy import stats as _sps

from gendel._validation import check_count


def check_alpha(alpha):
    """The level alpha of a test: a number strictly between 0 and 1.

    Examples
    --------
    >>> check_alpha(0.05)
    0.05
    >>> check_alpha(1.5)
    Traceback (most recent call last):
    ...
    ValueError: alpha must lie strictly between 0 and 1 (e.g. 0.05); got 1.5
    """
    if isinstance(alpha, bool) or not isinstance(alpha, numbers.Real):
        raise TypeError(f"alpha must be a number in (0, 1), e.g. 0.05; got {alpha!r}")
    value = float(alpha)
    if not 0.0 < value < 1.0:
        raise ValueError(f"alpha must lie strictly between 0 and 1 (e.g. 0.05); got {alpha!r}")
    return value


def check_null_size(n_null, alpha):
    """Refuse a null sample too small for a Monte-Carlo test at level alpha to ever reject.

    The smallest Monte-Carlo p-value is 1 / (1 + n_null); the test can reject only when it is at
    most alpha, that is with n_null >= ceil(1 / alpha) - 1 (19 at alpha = 0.05).

    Examples
    --------
    >>> check_null_size(19, 0.05)
    19
    >>> check_null_size(10, 0.05)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: with n_null=10 the smallest Monte-Carlo p-value is ... Use n_null >= 19 ...
    """
    if 1.0 / (1.0 + n_null) > alpha:
        need = math.ceil(1.0 / alpha) - 1
        if need > 10**7:
            raise ValueError(f"alpha={alpha:g} is too small for a Monte-Carlo test: it could reject only with "
                             f"n_null >= {need:.3g} simulated statistics, 1/(1 + n_null) <= alpha. Use a level such "
                             "as 0.05 or 0.001, or method='asymptotic' (LR, ASC) for a normal-approximation p-value")
        raise ValueError(f"with n_null={n_null} the smallest Monte-Carlo p-value is 1/(1 + n_null) = "
                         f"{1 / (1 + n_null):.3g} > alpha={alpha:g}: the test could never reject. "
                         f"Use n_null >= {need} (1000 or more for a stable critical value)")
    return n_null


def monte_carlo_p_values(observed, null):
    """(1 + #{null >= t}) / (1 + n_null) for each oriented statistic t of ``observed``.

    ``null`` is a 1-D array of oriented null statistics (larger = more evidence against H0).
    Values of -inf (a zero ratio somewhere in the sample) are ordered below everything else.

    Examples
    --------
    >>> monte_carlo_p_values([0.5, 10.0], [0.0, 1.0, 2.0, 3.0])
    array([0.8, 0.2])
    >>> monte_carlo_p_values([float("nan")], [0.0, 1.0])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: observed contains NaN: ...
    """
    null = np.sort(np.asarray(null, dtype=float))
    observed = np.asarray(observed, dtype=float)
    for name, values in (("observed", observed), ("null", null)):
        if np.isnan(values).any():
            raise ValueError(f"{name} contains NaN: a NaN statistic has no place in the order of the null sample "
                             "(it would get the smallest p-value); find where it came from")
    at_least = null.size - np.searchsorted(null, observed, side="left")
    return (1.0 + at_least) / (1.0 + null.size)


def oriented_statistics(values, direction, name):
    """The statistics ``values`` as a flat float array, multiplied by ``direction`` (+1: large values
    reject, -1: small values reject), so that large oriented values reject; ``name`` names them in
    the error for an empty array or a NaN (−∞ is allowed).

    Examples
    --------
    >>> oriented_statistics([[1.0, -2.0], [3.0, -np.inf]], -1, "null")
    array([-1.,  2., -3., inf])
    >>> oriented_statistics([0.5, np.nan], 1, "the statistics")
    Traceback (most recent call last):
    ValueError: the statistics contains NaN: statistics must be numbers (−∞ is allowed)
    """
    if direction not in (1, -1):
        raise ValueError(f"direction must be +1 (large values reject) or -1 (small values reject); got {direction!r}")
    values = np.asarray(values, dtype=float).ravel()
    if values.size == 0:
        raise ValueError(f"{name} is empty: pass at least one statistic")
    if np.isnan(values).any():
        raise ValueError(f"{name} contains NaN: statistics must be numbers (−∞ is allowed)")
    return direction * values


def critical_value(null, alpha, direction):
    """The critical value c of the Monte-Carlo test at level α, on the statistic's own scale.

    The test rejects H0 when the Monte-Carlo p-value ``p = (1 + #{null ≥ t}) / (1 + n)`` is at
    most α, where t and the n null statistics are oriented (multiplied by ``direction``). With
    K the largest integer such that (1 + K) / (1 + n) ≤ α, this happens exactly when at most K
    null statistics reach t, that is when t lies strictly beyond the (K + 1)-th most extreme
    null statistic. That statistic is c, the oriented (1 − α) quantile of the null sample:

    - direction = +1: reject when T > c;
    - direction = −1: reject when T < c.

    Under H0 the test then rejects with probability (1 + K) / (1 + n) ≤ α (exactly, for a
    continuous statistic).

    Parameters
    ----------
    null : array_like
        The n null statistics (natural scale), e.g. ``DeletionTest.null_distribution(m)``.
    alpha : float in (0, 1)
        The level.
    direction : {+1, -1}
        ``DeletionTest.direction_``: +1 when large values reject, −1 when small ones do.

    Returns
    -------
    float
        c (may be −∞ or +∞ when that many null statistics are infinite).

    Raises
    ------
    ValueError
        When 1 / (1 + n) > α: no p-value can reach α, and the test could never reject.

    Examples
    --------
    With 19 null statistics at α = 0.05 only a statistic beyond all of them rejects:

    >>> critical_value(range(19), 0.05, +1), critical_value(range(19), 0.05, -1)
    (18.0, 0.0)
    """
    alpha = check_alpha(alpha)
    s = np.sort(oriented_statistics(null, direction, "null"))[::-1]  # most extreme first
    n = check_null_size(s.size, alpha)
    k = np.arange(n + 1)
    K = int(k[(1.0 + k) / (1.0 + n) <= alpha].max())  # the same float comparison as p <= alpha
    return float(direction * s[K])


def rejects(statistics, critical, direction):
    """Whether each statistic lies strictly beyond the critical value (True: reject H0).

    Examples
    --------
    >>> rejects([1.0, 2.0, 3.0], 2.0, +1).tolist(), rejects([1.0, 2.0, 3.0], 2.0, -1).tolist()
    ([False, False, True], [True, False, False])
    """
    oriented = oriented_statistics(statistics, direction, "statistics")
    return oriented > direction * float(critical)


def normal_p_values(statistics, loc, scale, direction):
    """The p-values of the normal approximation T ~ N(loc, scale²), in the rejecting tail.

    Parameters
    ----------
    statistics : array_like
        Observed statistics (natural scale).
    loc, scale : float
        Mean and standard deviation of the statistic under H0 (e.g. mu and sqrt(s² / m) for LR,
        Appendix C.1).
    direction : {+1, -1}
        +1 when large values reject, -1 when small values do.

    Examples
    --------
    >>> normal_p_values([0.0, 1.645], 0.0, 1.0, +1).round(3)
    array([0.5 , 0.05])
    """
    statistics = np.asarray(statistics, dtype=float)
    if np.isnan(statistics).any():
        raise ValueError("statistics contain NaN: a NaN statistic gets no p-value; find where it came from")
    z = direction * (statistics - loc) / max(scale, 1e-300)
    return _sps.norm.sf(z)


def exact_level(n_null, alpha):
    """The type-I error of the Monte-Carlo test at level alpha with n_null null statistics.

    Under H0 the rank of the observed statistic among the n_null + 1 is uniform, and the test
    rejects for the floor(alpha (n_null + 1)) most extreme ranks: its type-I error is
    floor(alpha (n_null + 1)) / (n_null + 1) <= alpha exactly, for a continuous statistic. This
    holds by construction; the null statistics' rejection rate against their own sample,
    (floor(alpha (n_null + 1)) - 1) / n_null, is a constant too, not a measurement of it.

    Examples
    --------
    >>> exact_level(500, 0.05), 25 / 501
    (0.0499001996007984, 0.0499001996007984)
    """
    alpha = check_alpha(alpha)
    n_null = check_null_size(check_count(n_null, "n_null"), alpha)
    return _rejection_count(n_null, alpha) / (n_null + 1)


def binomial_interval(k, n, level=0.95):
    """The exact (Clopper-Pearson) interval of a rate k / n at the given confidence level.

    Examples
    --------
    >>> low, high = binomial_interval(5, 100)
    >>> round(low, 3), round(high, 3)
    (0.016, 0.113)
    """
    low, high = _sps.binomtest(int(k), int(n)).proportion_ci(confidence_level=level, method="exact")
    return float(low), float(high)


def type_one_band(n_rep, n_null, alpha, level=0.99):
    """Where the type-I error of ``n_rep`` tests that share one null sample falls, under H0.

    The tests reject when the statistic is beyond the k-th most extreme of the n_null null
    statistics, k = floor(alpha (n_null + 1)). For a continuous statistic the rejection
    probability given the null sample is pi = 1 - F(c_k) ~ Beta(k, n_null + 1 - k) (an order
    statistic of uniforms), with mean k / (n_null + 1) <= alpha, and the number of rejections is
    Beta-binomial(n_rep, k, n_null + 1 - k). This is wider than the binomial interval of n_rep
    independent tests, because the shared critical value is itself random.

    Returns
    -------
    (low, high) : tuple of float
        The central ``level`` interval of the rejection rate (rejections / n_rep).

    Examples
    --------
    >>> type_one_band(200, 999, 0.05)
    (0.015, 0.1)
    """
    alpha = check_alpha(alpha)
    n_rep, n_null = check_count(n_rep, "n_rep"), check_count(n_null, "n_null")
    k = math.floor(alpha * (n_null + 1) + 1e-9)
    if k < 1:
        raise ValueError(f"n_null={n_null} is too small for a test at alpha={alpha:g}; use n_null >= "
                         f"{math.ceil(1 / alpha) - 1:.{3 if alpha < 1e-7 else 12}g}")
    law = _sps.betabinom(n_rep, k, n_null + 1 - k)
    tail = (1.0 - level) / 2.0
    return float(law.ppf(tail)) / n_rep, float(law.isf(tail)) / n_rep


def _rejection_count(n_null, alpha):
    """K + 1: the Monte-Carlo test rejects when at most K null statistics reach t, i.e. beyond the (K + 1)-th largest."""
    k = np.arange(n_null + 1)
    return int(k[(1.0 + k) / (1.0 + n_null) <= alpha].max()) + 1  # the same float comparison as p <= alpha


def null_spread(statistics, null, alpha):
    """The standard deviation that the null sample adds to a rejection rate (exact bootstrap).

    Tests that share one null sample reject beyond the same critical value c, the (K + 1)-th
    largest null statistic (:func:`critical_value`). Their rejection rate given the null is
    G(c) = P(T > c); drawn again, the null would give another c and another rate. This function
    resamples the null with replacement, exactly rather than by Monte Carlo: the (K + 1)-th
    largest of a resample is at most the j-th smallest null value s_j with probability
    P(Binomial(n, j / n) >= n - K), and the rate at s_j is the share of ``statistics`` beyond it.
    The result is the standard deviation of that rate, to be added (in squares) to the binomial
    variance of the tests themselves.

    Parameters
    ----------
    statistics : array_like
        Oriented statistics of the tests (large values reject), e.g. under the alternative.
    null : array_like
        The shared oriented null sample (at least 1 / alpha - 1 values).
    alpha : float in (0, 1)

    Examples
    --------
    >>> null = np.arange(100.0)                        # c = 95, the 5th largest
    >>> round(null_spread(np.arange(50.0, 150.0), null, 0.05), 3)   # rates near 0.54, c moves by about 2
    0.022
    >>> null_spread(np.full(10, 200.0), null, 0.05)    # every test rejects whatever c is
    0.0
    """
    alpha = check_alpha(alpha)
    s = np.sort(oriented_statistics(null, 1, "null"))
    t = np.sort(oriented_statistics(statistics, 1, "statistics"))
    n = check_null_size(s.size, alpha)
    need = n - _rejection_count(n, alpha) + 1       # the critical value is the need-th smallest of a resample
    j = np.arange(1, n + 1)
    cdf = _sps.binom.sf(need - 1, n, j / n)            # P(at least `need` resampled values <= s_j)
    weight = np.diff(np.concatenate([[0.0], cdf]))
    rate = (t.size - np.searchsorted(t, s, side="right")) / t.size
    mean = float(np.sum(weight * rate))
    return float(math.sqrt(max(0.0, np.sum(weight * (rate - mean) ** 2))))


def _beta_interval(k, n, level):
    """Clopper-Pearson interval for k successes of n, k possibly fractional (a mean of rejections)."""
    tail = (1.0 - level) / 2.0
    low = 0.0 if k <= 0 else float(_sps.beta.ppf(tail, k, n - k + 1))
    high = 1.0 if k >= n else float(_sps.beta.ppf(1.0 - tail, k + 1, n - k))
    return low, high


@dataclass(frozen=True)
class PowerResult:
    """The rejection rate of :meth:`~gendel.deletion_test.decision.DeletionTest.power` with its 95 % interval.

    The interval is the exact binomial (Clopper-Pearson) one of the ``n_rep`` tests, widened by
    ``null_sd``, the spread that the tests' shared null sample adds (:func:`null_spread`): each
    side of the binomial interval and 1.96 ``null_sd`` are added in squares. ``statistics`` and
    ``p_values`` hold one entry per replicate (natural scale; p-values against the first null
    sample).

    Examples
    --------
    >>> import numpy as np
    >>> p = np.array([0.01, 0.2, 0.04, 0.5])
    >>> print(PowerResult.from_p_values(p, alpha=0.05, m=100, statistics=np.zeros(4)))
    rejection rate 0.500 (95 % interval 0.068-0.932) over 4 tests of m = 100 at alpha = 0.05
    >>> r = PowerResult.from_rate(0.4, alpha=0.05, m=50, n_rep=300, null_sd=0.03, statistics=np.zeros(300),
    ...                           p_values=np.ones(300))
    >>> print(r)
    rejection rate 0.400 (95 % interval 0.319-0.482, the null sample's spread included) over 300 tests of m = 50 at alpha = 0.05
    >>> round(r.standard_error, 4)   # sqrt(0.4 * 0.6 / 300 + 0.03 ** 2)
    0.0412
    """

    rate: float
    low: float
    high: float
    n_rep: int
    m: int
    alpha: float
    statistics: np.ndarray = field(repr=False)
    p_values: np.ndarray = field(repr=False)
    null_sd: float = 0.0
    n_nulls: int = 1

    @classmethod
    def from_p_values(cls, p_values, *, alpha, m, statistics):
        """The share of ``p_values`` at most ``alpha``, with its exact 95 % binomial interval.

        For independent tests (each with a null of its own, or none): ``null_sd`` is 0.
        """
        p_values = np.asarray(p_values, dtype=float)
        k, n_rep = int(np.sum(p_values <= alpha)), p_values.size
        low, high = binomial_interval(k, n_rep)
        return cls(rate=k / n_rep, low=low, high=high, n_rep=n_rep, m=m, alpha=alpha,
                   statistics=np.asarray(statistics), p_values=p_values)

    @classmethod
    def from_rate(cls, rate, *, alpha, m, n_rep, null_sd, statistics, p_values, n_nulls=1, level=0.95):
        """A rate of ``n_rep`` tests that share null samples adding ``null_sd``, with its widened interval."""
        b_low, b_high = _beta_interval(rate * n_rep, n_rep, level)
        z = float(_sps.norm.isf((1.0 - level) / 2.0))
        low = max(0.0, rate - math.hypot(rate - b_low, z * null_sd))
        high = min(1.0, rate + math.hypot(b_high - rate, z * null_sd))
        return cls(rate=float(rate), low=low, high=high, n_rep=int(n_rep), m=m, alpha=alpha,
                   statistics=np.asarray(statistics), p_values=np.asarray(p_values, dtype=float),
                   null_sd=float(null_sd), n_nulls=int(n_nulls))

    @property
    def standard_error(self):
        """sqrt(rate (1 - rate) / n_rep + null_sd²): the rate's standard error, the null's spread included."""
        return math.sqrt(self.rate * (1.0 - self.rate) / self.n_rep + self.null_sd**2)

    def __str__(self):
        spread = ", the null sample's spread included" if self.null_sd > 0 else ""
        nulls = f" and {self.n_nulls} null samples" if self.n_nulls > 1 else ""
        return (f"rejection rate {self.rate:.3f} (95 % interval {self.low:.3f}-{self.high:.3f}{spread}) "
                f"over {self.n_rep} tests of m = {self.m}{nulls} at alpha = {self.alpha:g}")


__all__ = ["PowerResult", "binomial_interval", "check_alpha", "check_null_size", "critical_value", "exact_level",
           "monte_carlo_p_values", "normal_p_values", "null_spread", "rejects", "type_one_band"]
