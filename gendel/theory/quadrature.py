"""Integrals to a stated accuracy: the periodic trapezoid rule and Monte Carlo with a standard error.

On the circle [0, L) every density of :mod:`gendel.theory.circle` is a trigonometric polynomial
(a smooth periodic function), and the trapezoid rule with G equally spaced nodes integrates a
trigonometric polynomial of degree < G exactly. Integrands with kinks, such as |p - q|, converge
at rate O(G^-2); :meth:`PeriodicGrid.integrate` is therefore checked in the tests by doubling G.

In R^d expectations are estimated by Monte Carlo; :class:`Estimate` carries the value and its
standard error so that every comparison on the book's pages has a derived tolerance.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .._validation import check_count, check_positive


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
    """||p - q||_1 = int |p - q| for densities given on the nodes of ``grid`` (last axis)."""
    return grid.integrate(np.abs(np.asarray(p) - np.asarray(q)))


def weighted_l1(h, mu, grid):
    """||h||_{1,mu} = int mu |h| (Thm. 2) for functions given on the nodes of ``grid`` (last axis)."""
    return grid.integrate(np.asarray(mu) * np.abs(np.asarray(h)))


def kl_divergence(log_p, log_q, grid):
    """KL(p || q) = int p log(p / q) from log densities on the nodes of ``grid`` (last axis)."""
    log_p, log_q = np.asarray(log_p), np.asarray(log_q)
    return grid.integrate(np.exp(log_p) * (log_p - log_q))


def sup_abs_log_ratio(log_p, log_q, axis=-1):
    """||log(p / q)||_inf over the nodes (the grid approximation of the supremum)."""
    return np.max(np.abs(np.asarray(log_p) - np.asarray(log_q)), axis=axis)


@dataclass(frozen=True)
class Estimate:
    """A Monte Carlo estimate: ``value`` with standard error ``se`` (0 for exact values).

    ``Estimate`` supports ``+``, ``-`` (errors added in quadrature, i.e. for independent
    estimates) and multiplication by a number.
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
    """Monte Carlo mean of i.i.d. ``values`` with its standard error sd / sqrt(M)."""
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
    """Unbiased sample variance of i.i.d. ``values`` with the standard error sqrt((mu4 - s^4) / M)."""
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
    """
    from scipy.stats import binom

    n = check_count(n, "n")
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"p must be a probability in [0, 1]; got {p!r}")
    return float(binom.ppf(1.0 - level, n, p)) / n


__all__ = [
    "Estimate",
    "PeriodicGrid",
    "binomial_upper",
    "kl_divergence",
    "l1_distance",
    "mc_mean",
    "mc_variance",
    "sup_abs_log_ratio",
    "weighted_l1",
]
