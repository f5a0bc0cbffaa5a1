"""Thms. 3 to 6: LBLI of the KDE, KDE not US, ratio stability on the circle, error stability."""

import numpy as np
import pytest

from gendel.synthetic.data import EXTENT
from gendel.core.dre import ExactKDERatio
from gendel.synthetic.sampling import Protocol, setup
from gendel.core.models import KDE
from gendel.theory import stability as st
from gendel.theory.circle import CircleModel
from gendel.theory.consistency import ratio_stability_run, ratio_supremum_run
from gendel.theory.quadrature import binomial_upper
from gendel.theory.ratio_stability import MeanBoundCheck, error_stability_check, rs_checks


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
    X, deleted, exact = setup(Protocol("mog8", lam=0.6, N=120, sigma_a=0.1, seed=3))
    numeric = st.numerical_sup_log_ratio(exact.log_ratio, EXTENT["mog8"], resolution=60)
    assert numeric == pytest.approx(np.log(120 / (120 - deleted.sum())), abs=1e-9)
    assert numeric <= np.log(120 / (120 - deleted.sum())) + 1e-12


def test_kde_is_not_uniformly_stable():
    X, _, _ = setup(Protocol("mog8", lam=0.8, N=100, sigma_a=0.1, seed=0))
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
    X, _, exact = setup(Protocol("mog8", lam=0.8, N=150, sigma_a=0.1, seed=0))
    es = st.error_stability(exact.pretrained_, 8000, rng=np.random.default_rng(2))
    # Jensen holds for the sample moments themselves, so this is exact, not up to Monte Carlo error
    assert np.all(es.kl <= np.sqrt(es.second_moment) + 1e-15)
    for delta in (0.01, 0.1, 0.5):
        freq = np.mean(es.log_ratio_worst > st.cantelli_bound(es.epsilon.value, delta))
        assert freq <= binomial_upper(delta, es.log_ratio_worst.size)
        assert st.cantelli_bound_sharp(es.second_moment[es.worst], es.kl[es.worst], delta) <= \
            st.cantelli_bound(es.epsilon.value, delta) + 1e-15
    assert np.all(es.log_ratio_worst <= np.log(150 / 149) + 1e-12)          # LBLI


# ---- Thm. 4 with log c_N from calibration draws, tested on independent draws ---------------------------


@pytest.fixture(scope="module")
def rs_runs():
    Ns = (200, 800)
    make = lambda seed: [ratio_stability_run(CircleModel(), n, R=60, grid_size=512, seed=seed) for n in Ns]
    return make(11), make(12), make(13)


def test_theorem_4_calibrated_check_holds(rs_runs):
    cal, test, _ = rs_runs
    checks = rs_checks(cal, test, 0.05)
    assert checks[0].statement == "Thm. 4 as printed" and checks[0].verdict == "holds"


def test_theorem_4_check_rejects_wrong_statements(rs_runs):
    cal, test, _ = rs_runs
    assert [c.verdict for c in rs_checks(cal, test, 0.05, wrong=(10.0,))[1:]] == ["rejected", "rejected"]


def test_theorem_4_constant_comes_from_calibration_draws_only(rs_runs):
    cal, test, other = rs_runs
    a, b = rs_checks(cal, test, 0.05)[0], rs_checks(cal, other, 0.05)[0]
    assert np.array_equal(a.bound, b.bound)                  # a new test seed leaves 2 log c_N alone
    assert not np.array_equal(a.measured, b.measured)        # and changes the tested RS quantities
    c = rs_checks(other, test, 0.05)[0]
    assert np.array_equal(a.measured, c.measured) and not np.array_equal(a.bound, c.bound)
    with pytest.raises(ValueError, match="independent"):
        rs_checks(cal, cal, 0.05)
    with pytest.raises(ValueError, match="same training-set sizes"):
        rs_checks(cal, test[:1], 0.05)


def test_theorem_4_check_fails_when_the_constant_is_too_small(rs_runs):
    """A calibration that under-states log c_N (the median instead of the 95% quantile) is caught."""
    cal, test, _ = rs_runs
    rs = np.array([t.rs for t in test])
    log_c_median = np.array([np.median(np.concatenate([c.sup_log_1, c.sup_log_2])) for c in cal])
    frac = np.mean(rs > log_c_median[:, None], axis=1)        # against log c_N: the factor 2 dropped too
    assert np.any(frac > binomial_upper(0.1, rs.shape[1]))


# ---- Thm. 6 with epsilon from a calibration sample, tested on an independent sample -------------------


@pytest.fixture(scope="module")
def es_checks():
    X, _, exact = setup(Protocol("mog8", lam=0.8, N=120, sigma_a=0.1, seed=0))
    make = lambda test_seed: error_stability_check(exact.pretrained_, 3000, calibration_seed=5, test_seed=test_seed,
                                                   deltas=(0.01, 0.1, 0.5))
    return make(6), make(7)


def test_theorem_6_calibrated_checks_hold(es_checks):
    check, _ = es_checks
    kl, cantelli = check.kl_checks(), check.cantelli_checks()
    assert [c.verdict for c in kl[:2]] == ["holds", "holds"]           # as printed, and the Jensen step per z
    assert cantelli[0].verdict == "holds"


def test_theorem_6_checks_reject_wrong_statements(es_checks):
    check, _ = es_checks
    kl = check.kl_checks()
    assert kl[3].statement.startswith("KL ≤ E(log") and kl[3].verdict == "rejected"      # KL is about E(log ρ̂)² / 2
    assert np.max(kl[2].estimate / kl[2].bound) > 1        # √ε / 100 is exceeded, within noise at this sample size
    assert [c.verdict for c in check.cantelli_checks()[1:]] == ["rejected"]
    assert 1 < check.cantelli_slack() < 1000


def test_theorem_6_epsilon_comes_from_calibration_samples_only(es_checks):
    a, b = es_checks
    assert a.epsilon == b.epsilon and a.test.worst == b.test.worst == a.calibration.worst
    assert not np.array_equal(a.test.kl_cv, b.test.kl_cv)
    assert not np.array_equal(a.test.log_ratio_worst, b.test.log_ratio_worst)
    assert not np.array_equal(a.calibration.second_moment, a.test.second_moment)
    # the low-variance KL estimate agrees with the plain one within their errors
    z = np.abs(a.test.kl_cv - a.test.kl) / np.hypot(a.test.kl_cv_se, a.test.kl_se)
    assert np.mean(z < 3) > 0.95


def test_mean_bound_check_tolerates_noise_but_not_a_wrong_bound():
    assert MeanBoundCheck("s", "c", [1.0], [1.2], [0.1]).verdict == "holds"        # 2 standard errors above
    assert MeanBoundCheck("s", "c", [1.0], [1.6], [0.1]).verdict == "rejected"     # 6 standard errors above


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
    kde = KDE(bandwidth=0.5).fit(np.random.default_rng(0).normal(size=(10, 2)))
    with pytest.raises(ValueError, match="different seeds"):
        error_stability_check(kde, 100, calibration_seed=1, test_seed=1)
    with pytest.raises(ValueError, match="deltas"):
        error_stability_check(kde, 100, calibration_seed=1, test_seed=2, deltas=(0.0, 0.5))
    with pytest.raises(ValueError, match="worst"):
        st.error_stability(kde, 100, rng=np.random.default_rng(0), worst=10)
