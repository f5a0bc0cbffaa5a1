"""Quadrature and Monte Carlo helpers of gendel.theory (the accuracy every theory page relies on)."""

import numpy as np
import pytest

from gendel.theory.circle import CircleModel, WrappedGaussianKDE
from gendel.theory.quadrature import (Estimate, PeriodicGrid, binomial_upper, kl_divergence, l1_distance, mc_mean,
                                      mc_variance, sup_abs_log_ratio, weighted_l1)


def test_trapezoid_rule_is_exact_for_trigonometric_polynomials():
    grid = PeriodicGrid(64, period=2.5)
    x = grid.points
    for k in range(1, 32):
        # int_0^L cos^2(2 pi k x / L) dx = L / 2 for 0 < k < G / 2
        assert grid.integrate(np.cos(2 * np.pi * k * x / 2.5) ** 2) == pytest.approx(1.25, abs=1e-13)
        assert grid.integrate(np.sin(2 * np.pi * k * x / 2.5)) == pytest.approx(0.0, abs=1e-13)


def test_kink_integrals_converge_under_grid_refinement():
    """|p - q| has kinks; doubling the grid from 4096 nodes changes the L1 distance by < 1e-6."""
    rng = np.random.default_rng(0)
    model = CircleModel()
    p = WrappedGaussianKDE(bandwidth=0.05).fit(model.sample(300, rng=rng))
    q = WrappedGaussianKDE(bandwidth=0.08).fit(model.sample(300, rng=rng))
    values = []
    for G in (4096, 8192):
        grid = PeriodicGrid(G)
        values.append(l1_distance(p.on_grid(grid), q.on_grid(grid), grid))
    assert abs(values[0] - values[1]) < 1e-6 * values[1]


def test_divergences_on_the_grid():
    grid = PeriodicGrid(512)
    x = grid.points
    p = 1 + 0.5 * np.cos(2 * np.pi * x)
    q = np.ones_like(x)
    # int |0.5 cos| = 1/pi; the kinks at the zeros cost O(G^-2): about 1e-5 relative for G = 512
    assert l1_distance(p, q, grid) == pytest.approx(1 / np.pi, rel=1e-4)
    assert weighted_l1(p - q, q, grid) == pytest.approx(l1_distance(p, q, grid))
    assert kl_divergence(np.log(q), np.log(q), grid) == 0.0
    assert kl_divergence(np.log(p), np.log(q), grid) > 0
    assert sup_abs_log_ratio(np.log(p), np.log(q)) == pytest.approx(np.log(2.0))  # p ranges over [0.5, 1.5]


def test_estimates_and_their_standard_errors():
    rng = np.random.default_rng(1)
    M = 100_000
    z = rng.standard_normal(M)
    m = mc_mean(z)
    assert m.se == pytest.approx(1 / np.sqrt(M), rel=0.02)
    assert abs(m.value) < 5 * m.se
    v = mc_variance(z)
    assert v.se == pytest.approx(np.sqrt(2 / M), rel=0.05)  # (mu4 - sigma^4) / M = 2 / M for N(0, 1)
    assert abs(v.value - 1) < 5 * v.se
    s = Estimate(1.0, 0.3) - Estimate(0.5, 0.4)
    assert (s.value, s.se) == pytest.approx((0.5, 0.5))
    assert (2 * Estimate(1.0, 0.1)).se == pytest.approx(0.2)


def test_binomial_tolerance():
    assert binomial_upper(0.05, 400) >= 0.05
    assert binomial_upper(0.05, 400) > binomial_upper(0.05, 4000)
    assert binomial_upper(0.0, 100) == 0.0


def test_clear_errors():
    with pytest.raises(ValueError, match="entries along axis"):
        PeriodicGrid(16).integrate(np.ones(15))
    with pytest.raises(ValueError, match="at least two samples"):
        mc_mean([1.0])
    with pytest.raises(ValueError, match="not finite"):
        mc_mean([1.0, np.inf])
    with pytest.raises(ValueError, match="probability"):
        binomial_upper(1.5, 10)
    with pytest.raises(TypeError):
        PeriodicGrid("many")
