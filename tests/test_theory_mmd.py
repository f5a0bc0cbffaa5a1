"""MMD between KDEs in closed form and the U-statistic theory of Appendix C.3."""

import numpy as np
import pytest
import scipy.stats as sps

from gendel.synthetic.sampling import Protocol, setup
from gendel.deletion_test.stats import mmd2_unbiased
from gendel.theory import mmd
from gendel.theory.moments import sample_sets
from gendel.theory.quadrature import binomial_upper, mc_mean, mc_variance

Z = 4.5


@pytest.fixture(scope="module")
def mog():
    return setup(Protocol("mog8", lam=0.3, N=150, sigma_a=0.1, seed=2))


def test_gaussian_kernel_integral_against_monte_carlo():
    rng = np.random.default_rng(0)
    a, b = np.array([[0.3, -0.2]]), np.array([[1.1, 0.4]])
    for s_a, s_b, ell in ((1.0, 1.0, 1.0), (0.1, 0.3, 0.5)):
        n = 400_000
        z, z2 = a + s_a * rng.standard_normal((n, 2)), b + s_b * rng.standard_normal((n, 2))
        est = mc_mean(np.exp(-((z - z2) ** 2).sum(1) / (2 * ell**2)))
        closed = mmd.expected_kernel_matrix(a, b, s_a**2, s_b**2, ell)[0, 0]
        assert abs(est.value - closed) <= Z * est.se
    # the paper's Example: 3^(-d/2) exp(-|a - b|^2 / 6) for sigma = l = 1
    assert mmd.expected_kernel_matrix(a, b, 1.0, 1.0, 1.0)[0, 0] == pytest.approx(np.exp(-((a - b) ** 2).sum() / 6) / 3)


def test_paper_coefficients_equal_the_double_sum(mog):
    X, deleted, _ = mog
    for s, ell in ((1.0, 1.0), (0.1, 1.0), (0.1, 0.25)):
        assert mmd.kde_mmd2_paper(X, deleted, s, ell) == pytest.approx(mmd.kde_mmd2(X[~deleted], X, s, ell), rel=1e-10)
    assert mmd.kde_mmd2(X, X, 0.1) == pytest.approx(0.0, abs=1e-15)


def test_closed_form_against_independent_monte_carlo(mog):
    X, deleted, _ = mog
    est = mmd.deletion_mmd2_monte_carlo(X, deleted, 0.1, 400_000, rng=np.random.default_rng(1), bandwidth=0.25)
    closed = mmd.kde_mmd2(X[~deleted], X, 0.1, 0.25)
    assert closed > 10 * est.se                     # the check resolves the value
    assert abs(est.value - closed) <= Z * est.se


def test_estimators(mog):
    _, _, exact = mog
    S = sample_sets(exact, 12, 3, rng=np.random.default_rng(2))
    printed, h_form = mmd.mmd2_estimates(S["H1"], S["Yhat"], 0.7)
    for r in range(3):
        Y, Yh = S["H1"][r], S["Yhat"][r]
        assert printed[r] == pytest.approx(mmd2_unbiased(Y, Yh, bandwidth=0.7), rel=1e-12)
        k = lambda a, b: np.exp(-((a - b) ** 2).sum() / (2 * 0.7**2))
        u = sum(k(Y[i], Y[j]) + k(Yh[i], Yh[j]) - k(Y[i], Yh[j]) - k(Y[j], Yh[i])
                for i in range(12) for j in range(12) if i != j) / (12 * 11)
        assert h_form[r] == pytest.approx(u, rel=1e-12)
        assert printed[r] != pytest.approx(h_form[r], rel=1e-6)


def test_hoeffding_variance_and_the_two_sigma_expressions(mog):
    _, _, exact = mog
    terms = mmd.mmd_variance_terms(exact.retrained_, exact.pretrained_, 30_000, rng=np.random.default_rng(3),
                                   bandwidth=0.25)
    null = mmd.mmd_variance_terms(exact.pretrained_, exact.pretrained_, 2_000, rng=np.random.default_rng(4),
                                  bandwidth=0.25)
    assert null.zeta1.value == 0.0 and null.mmd2 == 0.0                    # degenerate under H0
    # law of total variance: Var h = Var g + E Var(h | first pair); the printed sigma_u^2 is 4 (zeta2 - zeta1)
    assert abs(terms.expected_conditional_variance.value - (terms.zeta2.value - terms.zeta1.value)) <= \
        Z * np.hypot(terms.expected_conditional_variance.se, np.hypot(terms.zeta2.se, terms.zeta1.se))
    assert terms.paper_sigma_u2.value > 10 * terms.sigma_u2.value
    m, R = 60, 300
    S = sample_sets(exact, m, R, rng=np.random.default_rng(5))
    for h, t in (("H1", terms), ("H0", null)):
        _, u = mmd.mmd2_estimates(S[h], S["Yhat"], 0.25)
        v = mc_variance(u)
        assert abs(v.value - t.variance(m)) <= Z * v.se + Z * 4 * (m - 2) / (m * (m - 1)) * t.zeta1.se \
            + Z * 2 / (m * (m - 1)) * t.zeta2.se
        assert abs(u.mean() - t.mmd2) <= Z * np.sqrt(v.value / R)


def test_asymptotic_normality_under_h1(mog):
    # sqrt(m) (MMD_u^2 - MMD^2) -> N(0, sigma_u^2), sigma_u^2 = 4 zeta_1. At finite m its variance is
    # m x the Hoeffding variance, which tends to sigma_u^2 at rate 1/m; the shape must be normal.
    _, _, exact = mog
    terms = mmd.mmd_variance_terms(exact.retrained_, exact.pretrained_, 30_000, rng=np.random.default_rng(7),
                                   bandwidth=0.25)
    m, R = 400, 200
    S = sample_sets(exact, m, R, rng=np.random.default_rng(8))
    _, u = mmd.mmd2_estimates(S["H1"], S["Yhat"], 0.25)
    z = np.sqrt(m) * (u - terms.mmd2) / np.sqrt(m * terms.variance(m))
    assert sps.kstest(z, "norm").pvalue > 1e-3                       # normal, with the finite-m variance
    z_printed = np.sqrt(m) * (u - terms.mmd2) / np.sqrt(terms.paper_sigma_u2.value)
    assert sps.kstest(z_printed, "norm").pvalue < 1e-3               # the check has power: printed sigma_u^2 fails
    # the finite-m variance approaches the limit: m Var = sigma_u^2 + 2 (zeta_2 - 2 zeta_1) / (m - 1)
    excess = [m_ * terms.variance(m_) - terms.sigma_u2.value for m_ in (100, 400, 1600, 6400)]
    assert all(a > b > 0 for a, b in zip(excess, excess[1:]))
    assert excess[-1] < 0.05 * terms.sigma_u2.value


def test_concentration_bound(mog):
    _, _, exact = mog
    m, R, delta = 40, 200, 0.05
    S = sample_sets(exact, m, R, rng=np.random.default_rng(6))
    closed = mmd.kde_mmd2(exact.retrained_.X_, exact.pretrained_.X_, 0.1, 1.0)
    _, u = mmd.mmd2_estimates(S["H1"], S["Yhat"], 1.0)
    freq = np.mean(np.abs(u - closed) > mmd.concentration_bound(m, delta))
    assert freq <= binomial_upper(delta, R)
    assert mmd.concentration_bound(100, 0.1, two_sided=False) == pytest.approx(4 * np.sqrt(np.log(10) / 100))


def test_clear_errors():
    with pytest.raises(ValueError, match="delta"):
        mmd.concentration_bound(10, 0.0)
    with pytest.raises(ValueError, match="same shape"):
        mmd.mmd2_estimates(np.zeros((2, 5, 2)), np.zeros((2, 4, 2)))
    with pytest.raises(ValueError, match="m >= 2"):
        mmd.u_statistic_variance(1, 0.1, 0.1)


# ------------------------------------------------------------------------------------------
# The printed estimator: unbiasedness and concentration, with wrong statements it must reject

@pytest.fixture(scope="module")
def printed_runs(mog):
    from gendel.theory.mmd import kde_mmd2

    X, deleted, exact = mog
    ell, ms, R = 0.25, (20, 40), 200
    S = sample_sets(exact, max(ms), R, rng=np.random.default_rng(11))
    printed = {(h, m): mmd.mmd2_estimates(S[h][:, :m], S["Yhat"][:, :m], ell)[0] for h in ("H0", "H1") for m in ms}
    mmd2 = kde_mmd2(exact.retrained_.X_, exact.pretrained_.X_, 0.1, ell)   # closed form, no samples
    return printed, mmd2, ms, S, ell


def test_printed_estimator_is_unbiased_and_the_wrong_means_are_rejected(printed_runs):
    from gendel.theory.mmd_checks import mean_checks

    printed, mmd2, ms, _, _ = printed_runs
    assert mmd2 > 0
    as_printed, zero_under_h1, biased = mean_checks(printed, mmd2, ms)
    assert as_printed.verdict == "holds", as_printed.result()
    assert zero_under_h1.verdict == "rejected" and biased.verdict == "rejected"


def test_the_mean_check_rejects_a_biased_estimator(printed_runs):
    # A wrong input makes the check fail: the V-statistic keeps k(y_i, y_i) = 1 and is biased upwards.
    from gendel.theory.mmd_checks import mean_checks

    _, mmd2, ms, S, ell = printed_runs

    def v_statistic(Y, Yh):
        k = lambda A, B: np.exp(-((A[:, :, None, :] - B[:, None, :, :]) ** 2).sum(-1) / (2 * ell**2))
        return k(Y, Y).mean((1, 2)) + k(Yh, Yh).mean((1, 2)) - 2 * k(Y, Yh).mean((1, 2))

    biased = {(h, m): v_statistic(S[h][:, :m], S["Yhat"][:, :m]) for h in ("H0", "H1") for m in ms}
    assert mean_checks(biased, mmd2, ms)[0].verdict == "rejected"


def test_printed_concentration_bound_holds_and_a_tenfold_smaller_one_is_checked(printed_runs):
    from gendel.theory.mmd_checks import printed_concentration_bound, printed_concentration_checks

    printed, mmd2, ms, _, _ = printed_runs
    checks = printed_concentration_checks(printed, mmd2, ms, 0.05, wrong=(10.0, 1000.0))
    assert checks[0].verdict == "holds"
    assert checks[-1].verdict == "rejected"          # a bound 1000 times smaller is caught
    assert checks[0].slack > 1
    # the bound is the U-statistic's plus 2/m, the largest gap between the two estimators
    np.testing.assert_allclose(printed_concentration_bound(ms, 0.05) - mmd.concentration_bound(np.array(ms), 0.05),
                               2 / np.array(ms))


def test_printed_and_u_statistic_differ_by_at_most_2_over_m(printed_runs):
    _, _, ms, S, ell = printed_runs
    for m in ms:
        p, u = mmd.mmd2_estimates(S["H1"][:, :m], S["Yhat"][:, :m], ell)
        assert np.all(np.abs(p - u) <= 2 / m + 1e-12)


def test_mean_checks_refuse_missing_cases(printed_runs):
    from gendel.theory.mmd_checks import mean_checks

    printed, mmd2, ms, _, _ = printed_runs
    with pytest.raises(ValueError, match="missing"):
        mean_checks({k: v for k, v in printed.items() if k[0] == "H0"}, mmd2, ms)
