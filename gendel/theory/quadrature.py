"""Integrals to a stated accuracy: the periodic trapezoid rule and Monte Carlo with a standard error.

On the circle [0, L) every density of :mod:`gendel.theory.circle` is a trigonometric polynomial
(a smooth periodic function), and the trapezoid rule with G equally spaced nodes integrates a
trigonometric polynomial of degree < G exactly. Integrands with kinks, such as ``|p - q|``, converge
at rate O(G^-2); :meth:`PeriodicGrid.integrate` is therefore checked in the tests by doubling G.

In R^d expectations are estimated by Monte Carlo; :class:`Estimate` carries the value and its
standard error so that every comparison on the book's pages has a derived tolerance.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from gendel._validation import check_count, check_positive


class PeriodicGrid:
    """G equally spaced nodes x_g = g L / G on the circle [0, L), each with weight L / G.

    Parameters
    ----------
    size : int
        The number of nodes G (at least 8).
    period : float
        The circumference L of the circle.

    Attributes
    ----------
    points : ndarray of shape (G,)
        The nodes.
    weight : float
        L / G, the weight of every node.

    Examples
    --------
    The rule is exact for trigonometric polynomials of degree < G:

    >>> import numpy as np
    >>> from gendel.theory.quadrature import PeriodicGrid
    >>> grid = PeriodicGrid(16)
    >>> grid
    PeriodicGrid(size=16, period=1.0)
    >>> grid.weight, round(float(grid.integrate(np.cos(2 * np.pi * grid.points) ** 2)), 12)
    (0.0625, 0.5)
    """

    def __init__(self, size, period=1.0):
        self.size = check_count(size, "size", minimum=8)
        self.period = check_positive(period, "period")
        self.points = np.arange(self.size) * (self.period / self.size)
        self.weight = self.period / self.size

    def integrate(self, values, axis=-1):
        """int_0^L f(x) dx by the periodic trapezoid rule; ``values`` holds f on the nodes along ``axis``."""
        values = np.asarray(values, dtype=float)
        if values.shape[axis] != self.size:
            raise ValueError(f"values has {values.shape[axis]} entries along axis {axis}; the grid has {self.size} nodes")
        return values.sum(axis=axis) * self.weight

    def __repr__(self):
        return f"PeriodicGrid(size={self.size}, period={self.period!r})"


def l1_distance(p, q, grid):
    """||p - q||_1 = int ``|p - q|`` for densities given on the nodes of ``grid`` (last axis).

    Examples
    --------
    For p = 1 and q = 1 + sin(2 pi x) / 2 on [0, 1), ||p - q||_1 = 1 / pi:

    >>> import numpy as np
    >>> from gendel.theory.quadrature import PeriodicGrid, l1_distance
    >>> grid = PeriodicGrid(256)
    >>> p, q = np.ones(256), 1 + 0.5 * np.sin(2 * np.pi * grid.points)
    >>> round(float(l1_distance(p, q, grid)), 4), round(1 / np.pi, 4)
    (0.3183, 0.3183)
    """
    return grid.integrate(np.abs(np.asarray(p) - np.asarray(q)))


def weighted_l1(h, mu, grid):
    """||h||_{1,mu} = int mu ``|h|`` (Thm. 2) for functions given on the nodes of ``grid`` (last axis).

    Examples
    --------
    With the uniform density as mu it is the plain L1 norm:

    >>> import numpy as np
    >>> from gendel.theory.quadrature import PeriodicGrid, weighted_l1
    >>> grid = PeriodicGrid(256)
    >>> h = 0.5 * np.sin(2 * np.pi * grid.points)
    >>> round(float(weighted_l1(h, np.ones(256), grid)), 4), round(float(weighted_l1(h, 2 * np.ones(256), grid)), 4)
    (0.3183, 0.6366)
    """
    return grid.integrate(np.asarray(mu) * np.abs(np.asarray(h)))


def kl_divergence(log_p, log_q, grid):
    """KL(p || q) = int p log(p / q) from log densities on the nodes of ``grid`` (last axis).

    Examples
    --------
    KL is zero for equal densities and positive otherwise:

    >>> import numpy as np
    >>> from gendel.theory.quadrature import PeriodicGrid, kl_divergence
    >>> grid = PeriodicGrid(64)
    >>> log_p = np.zeros(64)
    >>> log_q = np.log1p(0.5 * np.sin(2 * np.pi * grid.points))
    >>> float(kl_divergence(log_p, log_p, grid)), round(float(kl_divergence(log_q, log_p, grid)), 4)
    (0.0, 0.0646)
    """
    log_p, log_q = np.asarray(log_p), np.asarray(log_q)
    return grid.integrate(np.exp(log_p) * (log_p - log_q))


def sup_abs_log_ratio(log_p, log_q, axis=-1):
    """||log(p / q)||_inf over the nodes (the grid approximation of the supremum).

    Examples
    --------
    >>> import numpy as np
    >>> from gendel.theory.quadrature import sup_abs_log_ratio
    >>> log_p, log_q = np.log([0.5, 1.0, 1.5]), np.zeros(3)
    >>> round(float(sup_abs_log_ratio(log_p, log_q)), 4), round(float(np.log(2)), 4)
    (0.6931, 0.6931)
    """
    return np.max(np.abs(np.asarray(log_p) - np.asarray(log_q)), axis=axis)


@dataclass(frozen=True)
class Estimate:
    """A Monte Carlo estimate: ``value`` with standard error ``se`` (0 for exact values).

    ``Estimate`` supports ``+``, ``-`` (errors added in quadrature, i.e. for independent
    estimates) and multiplication by a number.

    Examples
    --------
    Differences of independent estimates add their errors in quadrature:

    >>> from gendel.theory.quadrature import Estimate
    >>> diff = Estimate(1.0, se=0.3) - Estimate(0.5, se=0.4)
    >>> diff
    Estimate(value=0.5, se=0.5)
    >>> f"{diff:.2f}", float(2 * diff)
    ('0.50 ± 0.50', 1.0)
    """

    value: float
    se: float = 0.0

    def __add__(self, other):
        other = other if isinstance(other, Estimate) else Estimate(float(other))
        return Estimate(self.value + other.value, math.hypot(self.se, other.se))

    def __sub__(self, other):
        other = other if isinstance(other, Estimate) else Estimate(float(other))
        return Estimate(self.value - other.value, math.hypot(self.se, other.se))

    def __mul__(self, c):
        return Estimate(self.value * float(c), abs(float(c)) * self.se)

    __rmul__ = __mul__

    def __float__(self):
        return float(self.value)

    def __format__(self, spec):
        return f"{format(self.value, spec)} ± {format(self.se, spec)}"


def mc_mean(values, axis=0):
    """Monte Carlo mean of i.i.d. ``values`` with its standard error sd / sqrt(M).

    Examples
    --------
    >>> import numpy as np
    >>> from gendel.theory.quadrature import mc_mean
    >>> est = mc_mean(np.array([1.0, 2.0, 3.0]))
    >>> est.value, round(est.se, 3)
    (2.0, 0.577)

    Along an axis of a 2-D array it returns arrays of means and standard errors:

    >>> mean, se = mc_mean(np.array([[1.0, 10.0], [3.0, 30.0]]))
    >>> mean, se
    (array([ 2., 20.]), array([ 1., 10.]))
    """
    values = np.asarray(values, dtype=float)
    M = values.shape[axis]
    if M < 2:
        raise ValueError("a Monte Carlo estimate needs at least two samples")
    if not np.all(np.isfinite(values)):
        raise ValueError("the Monte Carlo sample contains NaN or infinite values; the expectation is not finite")
    mean = values.mean(axis=axis)
    se = values.std(axis=axis, ddof=1) / np.sqrt(M)
    if np.ndim(mean) == 0:
        return Estimate(float(mean), float(se))
    return mean, se


def mc_variance(values):
    """Unbiased sample variance of i.i.d. ``values`` with the standard error sqrt((mu4 - s^4) / M).

    Examples
    --------
    >>> import numpy as np
    >>> from gendel.theory.quadrature import mc_variance
    >>> est = mc_variance(np.random.default_rng(0).normal(size=10_000))
    >>> f"{est:.2f}"
    '1.00 ± 0.01'
    >>> abs(est.value - 1.0) < 4 * est.se
    True
    """
    values = np.asarray(values, dtype=float).ravel()
    M = values.size
    if M < 4:
        raise ValueError("a variance estimate needs at least four samples")
    centred = values - values.mean()
    var = centred.var(ddof=1)
    mu4 = np.mean(centred**4)
    return Estimate(float(var), float(np.sqrt(max(mu4 - var**2, 0.0) / M)))


def binomial_upper(p, n, level=1e-6):
    """Largest frequency consistent with a true probability ``p`` in ``n`` trials at ``level``.

    The (1 - level) quantile of Binomial(n, p) divided by n: an empirical frequency above this
    value has probability below ``level`` if the true probability is at most ``p``. Used as the
    derived tolerance when a probability bound (Markov, Cantelli, concentration) is checked by
    repetition.

    Examples
    --------
    Out of 1000 trials with true probability 0.1, a frequency above 0.148 has chance below 1e-6:

    >>> from gendel.theory.quadrature import binomial_upper
    >>> binomial_upper(0.1, 1000)
    0.148
    >>> binomial_upper(0.0, 100)
    0.0
    """
    from scipy.stats import binom

    n = check_count(n, "n")
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"p must be a probability in [0, 1]; got {p!r}")
    return float(binom.ppf(1.0 - level, n, p)) / n


def format_share(share):
    """A share as a percentage with enough digits that a small non-zero share does not read 0 %.

    Examples
    --------
    >>> from gendel.theory.quadrature import format_share
    >>> format_share(0.25), format_share(0.0), format_share(0.004), format_share(0.00031)
    ('25%', '0%', '0.4%', '0.03%')
    """
    if share == 0 or share >= 0.01:
        return f"{share:.0%}"
    digits = max(1, int(-np.floor(np.log10(share * 100))))
    return f"{share:.{digits}%}"



#: A mean is declared off its target beyond this many standard errors: with ten cases a true
#: statement fails with probability below 1e-3 (normal approximation of the mean of R ≥ 100 draws).
Z_MEAN = 4.0


@dataclass(frozen=True)
class MeanCheck:
    """The statement "the mean of the tested quantity is ``target``", checked by repetition.

    The statement holds when, in every case, the mean over the R draws lies within
    :data:`Z_MEAN` standard errors of its target.

    Parameters
    ----------
    statement, compared : str
        The statement in words and what it compares (a power table's first two columns).
    cases : sequence
        A label per case (e.g. ``"H1, m = 25"``).
    target : array of shape (n_cases,)
        The claimed mean of each case, computed without the draws (closed form, or 0).
    measured : array of shape (n_cases, R)
        The tested quantity on R independent draws per case.

    Examples
    --------
    >>> import numpy as np
    >>> from gendel.theory.quadrature import MeanCheck
    >>> x = np.random.default_rng(1).normal(size=(2, 200))
    >>> c = MeanCheck("mean 0", "x", ["a", "b"], [0.0, 0.0], x)
    >>> c.verdict, bool(np.all(np.abs(c.z) < 4))
    ('holds', True)
    >>> MeanCheck("mean 1", "x", ["a", "b"], [1.0, 1.0], x).result().startswith("mean off its target by")
    True
    """

    statement: str
    compared: str
    cases: tuple
    target: np.ndarray
    measured: np.ndarray

    def __post_init__(self):
        target = np.atleast_1d(np.asarray(self.target, dtype=float))
        measured = np.atleast_2d(np.asarray(self.measured, dtype=float))
        if measured.shape[0] != target.size or len(self.cases) != target.size:
            raise ValueError(f"need one target and one row of measurements per case; got {len(self.cases)} cases, "
                             f"{target.size} targets and measurements of shape {measured.shape}")
        if measured.shape[1] < 2:
            raise ValueError("need at least 2 draws per case to estimate a standard error")
        object.__setattr__(self, "target", target)
        object.__setattr__(self, "measured", measured)
        object.__setattr__(self, "cases", tuple(self.cases))

    @property
    def mean(self):
        return self.measured.mean(axis=1)

    @property
    def se(self):
        return self.measured.std(axis=1, ddof=1) / np.sqrt(self.measured.shape[1])

    @property
    def z(self):
        """Per case: (mean − target) / standard error."""
        return (self.mean - self.target) / self.se

    @property
    def verdict(self):
        return "holds" if np.all(np.abs(self.z) <= Z_MEAN) else "rejected"

    def result(self):
        """The worst case, in words."""
        k = int(np.argmax(np.abs(self.z)))
        return (f"mean off its target by {abs(self.z[k]):.1f} standard errors at {self.cases[k]} "
                f"(a true statement stays within {Z_MEAN:g})")

    def row(self):
        """[statement, what is compared, result, verdict]: one row of a power table."""
        return [self.statement, self.compared, self.result(), self.verdict]

__all__ = [
    "Estimate",
    "MeanCheck",
    "Z_MEAN",
    "PeriodicGrid",
    "binomial_upper",
    "format_share",
    "kl_divergence",
    "l1_distance",
    "mc_mean",
    "mc_variance",
    "sup_abs_log_ratio",
    "weighted_l1",
]
