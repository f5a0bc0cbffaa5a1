"""Power demonstrations of Appendix C: each statement as printed passes its check, each wrong one fails.

The constants come from computations independent of the tested draws: closed forms, or Monte
Carlo samples drawn with another seed.
"""

import numpy as np
import pytest

from gendel.core.dre import ExactKDERatio
from gendel.deletion_test.stats import likelihood_ratio
from gendel.theory import mmd
from gendel.theory.mmd_checks import EstimateCheck, closed_form_checks, lr_mean_checks, variance_checks
from gendel.theory.moments import log_ratios_on, lr_moments, sample_sets
from gendel.theory.quadrature import mc_variance


@pytest.fixture(scope="module")
def exact():
    # forget the four points at the right end of [0, 3]: the two KL divergences differ clearly
    return ExactKDERatio(bandwidth=0.5).fit(np.linspace(0, 3, 16)[:, None], np.arange(12, 16))


def test_closed_form_passes_and_the_wrong_forms_are_rejected_by_monte_carlo():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 2))
    deleted = np.arange(30) < 8
    est = mmd.deletion_mmd2_monte_carlo(X, deleted, 1.0, 400_000, rng=rng, bandwidth=1.0)
    printed, one_noise, dd_only = closed_form_checks([(X, deleted)], [est], 1.0, 1.0, ["σ = ℓ = 1"])
    assert printed.verdict == "holds", printed.result()
    assert one_noise.verdict == "rejected" and dd_only.verdict == "rejected"
    # the printed form is the closed form
    assert printed.target[0] == pytest.approx(mmd.kde_mmd2(X[~deleted], X, 1.0, 1.0), rel=1e-10)


def test_hoeffding_variance_passes_and_the_wrong_variances_are_rejected(exact):
    ell, ms, R = 1.0, (20, 40), 400
    S = sample_sets(exact, max(ms), R, rng=np.random.default_rng(1))
    pre, re = exact.pretrained_, exact.retrained_
    terms = {"H1": mmd.mmd_variance_terms(re, pre, 20_000, rng=np.random.default_rng(2), bandwidth=ell),
             "H0": mmd.mmd_variance_terms(pre, pre, 20_000, rng=np.random.default_rng(3), bandwidth=ell)}
    var = {h: [mc_variance(mmd.mmd2_estimates(S[h][:, :m], S["Yhat"][:, :m], ell)[1]) for m in ms]
           for h in ("H0", "H1")}
    checks = variance_checks(var, {h: terms[h].zeta1.value for h in terms}, {h: terms[h].zeta2.value for h in terms},
                             {h: terms[h].paper_sigma_u2.value for h in terms}, ms)
    assert [c.verdict for c in checks] == ["holds", "rejected", "rejected", "rejected"], [c.result() for c in checks]


def test_lr_means_pass_and_the_wrong_means_are_rejected(exact):
    moments = lr_moments(exact, 200_000, rng=np.random.default_rng(4))       # the formulas' constants
    S = sample_sets(exact, 50, 400, rng=np.random.default_rng(5))             # the tested draws
    lr = {(h, m): likelihood_ratio(log_ratios_on(exact, S[h][:, :m])) for h in ("H0", "H1") for m in (10, 50)}
    checks = lr_mean_checks(lr, moments, (10, 50))
    assert [c.verdict for c in checks] == ["holds", "rejected", "rejected", "rejected"], [c.result() for c in checks]


def test_lr_mean_checks_refuse_missing_cases(exact):
    moments = lr_moments(exact, 1_000, rng=0)
    with pytest.raises(ValueError, match="missing"):
        lr_mean_checks({("H0", 10): np.zeros(5)}, moments, (10,))


def test_estimate_check_validates_its_input():
    with pytest.raises(ValueError, match="one target"):
        EstimateCheck("s", "c", ["a", "b"], [1.0], [1.0, 2.0], [0.1, 0.1])
    with pytest.raises(ValueError, match="standard errors"):
        EstimateCheck("s", "c", ["a"], [1.0], [1.0], [0.0])
    # the target's own standard error widens the tolerance
    assert EstimateCheck("s", "c", ["a"], [1.0], [1.5], [0.1]).verdict == "rejected"
    assert EstimateCheck("s", "c", ["a"], [1.0], [1.5], [0.1], 0.2).verdict == "holds"


def test_closed_form_checks_refuse_mismatched_cases():
    with pytest.raises(ValueError, match="one"):
        closed_form_checks([], [], 1.0, 1.0, [])
