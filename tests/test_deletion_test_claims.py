"""The rules of the chapter on the deletion test as a decision (gendel.claims.deletion_test).

Each rule compares rejection rates with their noise: the binomial noise of the tests and the
spread of the null sample they share (``PowerResult.null_sd``). The tests build rates with known
standard errors and check the verdicts: holds, partly, does not hold and not resolved.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from gendel.claims import NOT_RESOLVED
from gendel.claims import deletion_test as C
from gendel.deletion_test.calibration import PowerResult, type_one_band

N_REP = 300


def rate(r, null_sd=0.0, n_rep=N_REP):
    return PowerResult.from_rate(r, alpha=0.05, m=50, n_rep=n_rep, null_sd=null_sd, statistics=np.zeros(n_rep),
                                 p_values=np.ones(n_rep))


def test_margin_adds_the_null_spread_of_both_rates():
    a, b = rate(0.3, 0.04), rate(0.5, 0.03)
    expected = 1.96 * math.sqrt(0.3 * 0.7 / N_REP + 0.04**2 + 0.5 * 0.5 / N_REP + 0.03**2)
    assert C.margin(a, b) == pytest.approx(expected, rel=1e-3)
    assert C.margin(rate(0.3), rate(0.5)) < C.margin(a, b)


def test_a_rival_beats_lr_only_beyond_the_margin_that_counts_the_null():
    # 0.35 against 0.45 with n_rep = 300: beyond a binomial margin (0.078), within one that adds
    # a null spread of 0.04 to each rate (0.13)
    binomial = C.best_rivals({"lr": [rate(0.35)], "asc-log": [rate(0.45)]}, [50])
    with_null = C.best_rivals({"lr": [rate(0.35, 0.04)], "asc-log": [rate(0.45, 0.04)]}, [50])
    assert binomial[0].beaten and not with_null[0].beaten
    assert C.lr_most_powerful(binomial).verdict == "does not hold"
    assert C.lr_most_powerful(with_null).verdict == "holds"


def test_lr_most_powerful_counts_the_settings_where_lr_is_beaten():
    curves = {"lr": [rate(0.2), rate(0.5), rate(0.8)], "asc-log": [rate(0.1), rate(0.7), rate(0.6)],
              "mmd": [rate(0.05), rate(0.05), rate(0.83)]}   # 0.83 against 0.8: within the margin
    rivals = C.best_rivals(curves, (10, 50, 200))
    assert [r.rival for r in rivals] == ["asc-log", "asc-log", "mmd"]
    c = C.lr_most_powerful(rivals)
    assert (c.verdict, c.details) == ("partly", {"lr_best_beaten": 1, "lr_best_settings": 3})
    assert "(50)" in c.numbers


def test_best_rivals_needs_lr_and_another_statistic():
    with pytest.raises(ValueError, match=r"must hold 'lr' and at least one other statistic"):
        C.best_rivals({"asc-log": [rate(0.1)]}, [10])


@pytest.mark.parametrize("asc_at_2m, expected", [(0.3, "holds"), (0.7, "does not hold")])
def test_more_samples_compares_asc_at_2m_with_lr_at_m(asc_at_2m, expected):
    curves = {"lr": [rate(0.3), rate(0.4)], "asc-log": [rate(0.1), rate(asc_at_2m)]}
    assert C.more_samples(curves, (10, 20), others=("asc-log",)).verdict == expected
    with pytest.raises(ValueError, match=r"hold no m together with 2 m"):
        C.more_samples(curves, (10, 30), others=("asc-log",))


def test_beyond_gives_all_four_verdicts():
    above = dict(above=True, key="k", text="t", where="w")
    assert C.beyond({"a": (0.8, 0.7, 0.9)}, 0.5, **above).verdict == "holds"
    assert C.beyond({"a": (0.8, 0.7, 0.9), "b": (0.3, 0.2, 0.4)}, 0.5, **above).verdict == "partly"
    assert C.beyond({"a": (0.3, 0.2, 0.4)}, 0.5, **above).verdict == "does not hold"
    assert C.beyond({"a": (0.8, 0.7, 0.9), "b": (0.5, 0.45, 0.55)}, 0.5, **above).verdict == NOT_RESOLVED
    below = C.beyond({"a": rate(0.1)}, 0.5, above=False, key="k", text="t", where="w")
    assert below.verdict == "holds" and below.details == {"k_passed": 1, "k_failed": 0, "k_total": 1}


def test_calibrated_counts_the_rates_in_the_band():
    band = type_one_band(N_REP, 500, 0.05)
    c = C.calibrated({"a": rate(0.05), "b": rate(0.03), "c": rate(0.2)}, band)
    assert (c.verdict, c.details) == ("partly", {"n_inside": 2, "n_rates": 3})
    assert C.calibrated({"a": rate(0.05)}, band).verdict == "holds"
    assert C.calibrated({"a": rate(0.2)}, band).verdict == "does not hold"


def test_at_most_level_uses_the_top_of_the_band():
    band = (0.017, 0.097)
    assert C.at_most_level({"a": rate(0.0)}, band, key="k", text="t").verdict == "holds"  # below the band is fine
    c = C.at_most_level({"a": rate(0.05), "b": rate(0.15)}, band, key="k", text="t")
    assert (c.verdict, c.details) == ("partly", {"k_inside": 1, "k_total": 2})


def test_loses_power_needs_each_gap_beyond_its_margin():
    ref = {"lr": rate(0.5), "asc-log": rate(0.4)}
    kw = dict(key="knn", text="t", where="w")
    assert C.loses_power(ref, {"lr": rate(0.2), "asc-log": rate(0.1)}, **kw).verdict == "holds"
    assert C.loses_power(ref, {"lr": rate(0.2), "asc-log": rate(0.38)}, **kw).verdict == NOT_RESOLVED
    assert C.loses_power(ref, {"lr": rate(0.2), "asc-log": rate(0.7)}, **kw).verdict == "partly"
    assert C.loses_power(ref, {"lr": rate(0.8), "asc-log": rate(0.7)}, **kw).verdict == "does not hold"


def test_within_noise_reports_the_largest_shift_and_margin():
    c = C.within_noise([(rate(0.35, 0.04), rate(0.29, 0.04)), (rate(0.35, 0.04), rate(0.6, 0.04))])
    assert c.verdict == "partly" and c.details["shift_max"] == pytest.approx(0.25)
    assert C.within_noise([(rate(0.35, 0.04), rate(0.29, 0.04))]).verdict == "holds"


def test_auc_standard_error_at_one_half_is_the_mann_whitney_one():
    # Hanley-McNeil at AUC 0.5 reduces to sqrt((n0 + n1 + 1) / (12 n0 n1)) up to O(1/n) terms
    n0, n1 = 500, 300
    assert C.auc_standard_error(0.5, n0, n1) == pytest.approx(math.sqrt((n0 + n1 + 1) / (12 * n0 * n1)), rel=0.01)
    assert C.auc_standard_error(1.0, n0, n1) == 0.0


def test_auc_rules():
    sizes = (500, 300)
    assert C.largest_auc({"lr": 0.85, "asc-log": 0.8}, sizes).verdict == "holds"
    assert C.largest_auc({"lr": 0.7, "asc-log": 0.85}, sizes).verdict == "does not hold"
    assert C.guesses(0.47, sizes).verdict == "holds"
    assert C.guesses(0.6, sizes).verdict == "does not hold"


def test_shares_and_agreement():
    assert C.shares(5, 100)[0] == 0.05 and C.shares(5, 100)[1] < 0.05 < C.shares(5, 100)[2]
    rng = np.random.default_rng(1)
    same = rng.random(300), rng.random(300)
    assert C.agree_better(*same).verdict == NOT_RESOLVED
    assert C.agree_better(rng.random(300), 0.3 * rng.random(300)).verdict == "holds"
