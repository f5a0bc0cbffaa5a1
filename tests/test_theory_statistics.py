"""Thms. 8(2) and 9 by repetition, and the moments of LR and ASC (Appendix C.1, C.2).

Tolerances: Monte Carlo comparisons allow 4.5 combined standard errors (a false failure has
probability below 1e-5 per comparison); exceedance frequencies are compared with the
1 - 1e-6 quantile of Binomial(R, delta) / R.
"""

import numpy as np
import pytest

from gendel.core.dre import ExactKDERatio, KernelClassifierDRE
from gendel.synthetic.sampling import Protocol, setup
from gendel.deletion_test.stats import asc, likelihood_ratio
from gendel.theory import moments as mo
from gendel.theory.quadrature import binomial_upper, mc_mean, mc_variance

Z = 4.5


@pytest.fixture(scope="module")
def mog():
    X, deleted, exact = setup(Protocol("mog8", lam=0.7, N=200, sigma_a=0.1, seed=1))
    return X, deleted, exact


def close(a, b, z=Z):
    return abs(a.value - b.value) <= z * np.hypot(a.se, b.se)


def test_lr_means_and_variances_of_appendix_c1(mog):
    _, _, exact = mog
    moments = mo.lr_moments(exact, 40_000, rng=np.random.default_rng(0))
    m, R = 50, 400
    S = mo.sample_sets(exact, m, R, rng=np.random.default_rng(1))
    for h in ("H0", "H1"):
        lr = likelihood_ratio(mo.log_ratios_on(exact, S[h]))
        assert close(mc_mean(lr), moments.mean(h))
        assert close(mc_variance(lr) * m, moments.variance(h, 1))
    # the printed variances (D_log^2 read with Def. 8) use the other model's second moment (errata E13)
    for h in ("H0", "H1"):
        assert not close(moments.paper_variance(h, 1), moments.variance(h, 1), z=10)
    assert moments.kl_pre_re.value > 0 and moments.kl_re_pre.value > 0


def test_asc_means_of_appendix_c2(mog):
    _, _, exact = mog
    S = mo.sample_sets(exact, 50, 400, rng=np.random.default_rng(2))
    logs = {k: mo.log_ratios_on(exact, Y) for k, Y in S.items()}
    for phi in ("log", "tlogt", "hellinger"):
        th = mo.asc_means(exact, phi, 40_000, rng=np.random.default_rng(3))
        assert close(th["H1"], th["H1_formula"])              # E_p' psi = E_p [rho psi]
        assert close(mc_mean(asc(logs["Yhat"], logs["H0"], phi)), th["H0"])
        assert close(mc_mean(asc(logs["Yhat"], logs["H1"], phi)), th["H1_formula"])


def test_markov_bounds_of_theorems_8_and_9(mog):
    X, deleted, exact = mog
    dre = KernelClassifierDRE(bandwidth=0.15).fit(X, deleted)
    rng = np.random.default_rng(4)
    m, R = 100, 200
    S = mo.sample_sets(exact, m, R, rng=rng)
    le = {k: mo.log_ratios_on(exact, Y) for k, Y in S.items()}
    ld = {k: mo.log_ratios_on(dre, Y) for k, Y in S.items()}
    eps_lr = mo.l1_errors(exact, dre, 20_000, rng=rng)
    eps_lr = max(e.value + Z * e.se for e in eps_lr.values())     # an upper confidence value of epsilon
    for h in ("H0", "H1"):
        change = np.abs(likelihood_ratio(le[h]) - likelihood_ratio(ld[h]))
        for delta in (0.02, 0.1, 0.5):
            assert np.mean(change > eps_lr / delta) <= binomial_upper(delta, R)
    for phi in ("log", "tlogt", "hellinger"):
        e = mo.l1_errors(exact, dre, 20_000, rng=rng, phi=phi)
        eps = max(v.value + Z * v.se for v in e.values())
        for h in ("H0", "H1"):
            change = np.abs(asc(le["Yhat"], le[h], phi) - asc(ld["Yhat"], ld[h], phi))
            for delta in (0.02, 0.1, 0.5):
                assert np.mean(change > 2 * eps / delta) <= binomial_upper(delta, R)


def test_markov_power_checks(mog):
    """The Markov bound as printed holds on held-out test sets; the bound / 100 is rejected."""
    X, deleted, exact = mog
    dre = KernelClassifierDRE(bandwidth=0.15).fit(X, deleted)
    eps = max(e.value for e in mo.l1_errors(exact, dre, 20_000, rng=np.random.default_rng(6)).values())
    S = mo.sample_sets(exact, 100, 200, rng=np.random.default_rng(7))
    change = {h: np.abs(likelihood_ratio(mo.log_ratios_on(exact, S[h])) - likelihood_ratio(mo.log_ratios_on(dre, S[h])))
              for h in ("H0", "H1")}
    printed, tenth, hundredth = mo.markov_checks(change, eps, [0.05, 0.2])
    assert printed.verdict == "holds" and hundredth.verdict == "rejected"
    assert printed.slack >= tenth.slack * 9.99
    # a wrong bound is rejected however it is produced: here epsilon is 1000 times too small
    assert mo.markov_checks(change, eps / 1000, [0.05], wrong=())[0].verdict == "rejected"


def test_bound_check_rejects_malformed_input():
    with pytest.raises(ValueError, match="one bound"):
        mo.BoundCheck("s", "c", [1, 2], [1.0], np.zeros((2, 5)), 0.1)
    with pytest.raises(ValueError, match="p must"):
        mo.BoundCheck("s", "c", [1], [1.0], np.zeros((1, 5)), 1.5)
    with pytest.raises(ValueError, match="levels"):
        mo.markov_checks({"H0": np.ones(3)}, 0.1, [0.0])


def test_l1_error_of_the_exact_ratio_is_zero(mog):
    X, deleted, exact = mog
    same = ExactKDERatio(bandwidth=0.1).fit(X, deleted)
    errs = mo.l1_errors(exact, same, 1000, rng=np.random.default_rng(5))
    assert all(e.value == 0.0 for e in errs.values())


def test_clear_errors(mog):
    _, _, exact = mog
    with pytest.raises(TypeError, match="ExactKDERatio"):
        mo.lr_moments("not a ratio", 100, rng=0)
    moments = mo.lr_moments(exact, 100, rng=np.random.default_rng(0))
    with pytest.raises(ValueError, match="hypothesis"):
        moments.mean("H2")
