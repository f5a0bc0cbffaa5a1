"""Thms. 3 to 6: LBLI of the KDE, KDE not US, ratio stability on the circle, error stability."""

import numpy as np
import pytest

from gendel.data import EXTENT
from gendel.dre import ExactKDERatio
from gendel.experiments import setup
from gendel.models import KDE
from gendel.theory import stability as st
from gendel.theory.circle import CircleModel
from gendel.theory.consistency import ratio_stability_run, ratio_supremum_run
from gendel.theory.quadrature import binomial_upper


def test_kde_lbli_inequality_at_many_points():
    """p_{Z minus z} <= n/(n-1) p_Z everywhere (Lemma of the practicability page).

    Far points (up to ~15 away, bandwidth 0.3) have log densities near -1000, computed to ~1e-13
    absolute error, hence the 1e-10 slack.
    """
    rng = np.random.default_rng(0)
    Z = rng.normal(size=(30, 2))
    x = np.concatenate([rng.normal(size=(2000, 2)), 5 * rng.normal(size=(200, 2))])
    full = KDE(bandwidth=0.3).fit(Z)
    for j in (0, 7, 29):
        reduced = KDE(bandwidth=0.3).fit(np.delete(Z, j, axis=0))
        assert np.all(reduced.log_prob(x) - full.log_prob(x) <= st.kde_lbli_epsilon(30) + 1e-10)


def test_lbli_bounds_bracket_the_exact_supremum():
    N, n_del = 400, np.array([1, 10, 100, 399])
    exact = st.kde_log_ratio_supremum(N, n_del)
    assert np.allclose(st.stepwise_lbli_bound(N, n_del), exact, rtol=1e-12)
    assert np.all(st.lbli_bound(N, n_del, size="smallest") >= exact - 1e-15)
    assert np.all(st.lbli_bound(N, n_del[1:], size="largest") < exact[1:])


def test_numerical_supremum_of_the_kde_ratio_is_log_n_over_n_minus_n_prime():
    X, deleted, exact = setup("mog8", 0.6, N=120, sigma_a=0.1, seed=3)
    numeric = st.numerical_sup_log_ratio(exact.log_ratio, EXTENT["mog8"], resolution=60)
    assert numeric == pytest.approx(np.log(120 / (120 - deleted.sum())), abs=1e-9)
    assert numeric <= np.log(120 / (120 - deleted.sum())) + 1e-12


def test_kde_is_not_uniformly_stable():
    X, _, _ = setup("mog8", 0.8, N=100, sigma_a=0.1, seed=0)
    u, z = st.outermost_direction(X, np.ones(100, bool))
    exact = ExactKDERatio(bandwidth=0.1).fit(X, np.arange(100) == z)
    ray = st.ray_log_ratio(exact.log_ratio, np.zeros(2), u, [2.0, 3.0, 4.0])
    assert ray[-1] < -20 and np.all(np.diff(ray) < 0)
    u2, _ = st.outermost_direction(X, np.arange(100) != z)
    far = st.ray_log_ratio(exact.log_ratio, np.zeros(2), u2, [6.0])
    assert far[0] == pytest.approx(np.log(100 / 99), abs=1e-12)


def test_leave_one_out_ratios_match_refitting():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(25, 2))
    X[3] = [30.0, 30.0]                                   # an isolated point: its kernel dominates near it
    Y = np.concatenate([rng.normal(size=(50, 2)), X[3:4]])
    L = st.leave_one_out_log_ratios(X, Y, 0.5)
    for j in (0, 3, 24):
        ref = ExactKDERatio(bandwidth=0.5).fit(X, np.arange(25) == j).log_ratio(Y)
        assert np.allclose(L[:, j], ref, rtol=1e-9, atol=1e-9)
    assert np.isfinite(L).all() and L[-1, 3] < -1000


def test_theorem_4_rc_implies_rs():
    run = ratio_stability_run(CircleModel(), 400, R=60, seed=4)
    assert run.rs_epsilon(0.1) <= 2 * run.log_c(0.05)                       # the theorem at level 2 delta


def test_theorem_5_and_the_one_step_bound():
    eps = ratio_stability_run(CircleModel(), 500, R=40, seed=6).rs_epsilon(0.05)
    for r in ratio_supremum_run(500, [0.004, 0.1], R=30, seed=6):
        assert np.all(r.log_sup_rho_hat <= r.direct_bound() + 1e-12)        # RC in one step, deterministic
        assert np.mean(r.log_sup_rho_hat <= r.n_deleted * eps + np.log(r.rho_star_sup)) >= 0.9


def test_theorem_6_kl_and_cantelli():
    X, _, exact = setup("mog8", 0.8, N=150, sigma_a=0.1, seed=0)
    es = st.error_stability(exact.pretrained_, 8000, rng=np.random.default_rng(2))
    # Jensen holds for the sample moments themselves, so this is exact, not up to Monte Carlo error
    assert np.all(es.kl <= np.sqrt(es.second_moment) + 1e-15)
    for delta in (0.01, 0.1, 0.5):
        freq = np.mean(es.log_ratio_worst > st.cantelli_bound(es.epsilon.value, delta))
        assert freq <= binomial_upper(delta, es.log_ratio_worst.size)
        assert st.cantelli_bound_sharp(es.second_moment[es.worst], es.kl[es.worst], delta) <= \
            st.cantelli_bound(es.epsilon.value, delta) + 1e-15
    assert np.all(es.log_ratio_worst <= np.log(150 / 149) + 1e-12)          # LBLI


def test_clear_errors():
    with pytest.raises(ValueError, match="at least 2"):
        st.kde_lbli_epsilon(1)
    with pytest.raises(ValueError, match="n_deleted"):
        st.lbli_bound(10, 10)
    with pytest.raises(ValueError, match="size"):
        st.lbli_bound(10, 2, size="middle")
    with pytest.raises(ValueError, match="delta"):
        st.cantelli_bound(0.1, 1.5)
    with pytest.raises(ValueError, match="candidates"):
        st.outermost_direction(np.zeros((3, 2)), [True, False])
