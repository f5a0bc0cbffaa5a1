"""The rules behind the sentences of the 2-D pages (gendel.claims.readings), each on inputs where
the sentence it guards holds, holds in part, and does not hold."""

from __future__ import annotations

import numpy as np
import pytest

from gendel.claims import readings

LOCAL = {"KBC, σ_C = 0.125": 0.8, "10-NN": 0.6}


def test_the_footnote_is_confirmed_only_below_half_of_the_weaker_local_classifier():
    def word(logistic):
        return readings.footnote_logistic({"logistic regression": logistic, **LOCAL})

    assert (word(0.01).verdict, word(0.01).details["word"]) == ("holds", "confirms")
    assert word(0.29).details["word"] == "confirms"             # below half of the weaker (0.6): 0.3
    assert word(0.3).details["word"] == "does not confirm"       # at half: not "less effective" by the rule
    assert (word(0.7).verdict, word(0.7).details["word"]) == ("does not hold", "does not confirm")
    with pytest.raises(ValueError, match="no share for"):
        readings.footnote_logistic({"logistic regression": 0.1})


def test_the_regularisation_sentence_reports_visible_gains_and_losses_only():
    Cs = (1, 10, 100)
    nothing = readings.regularisation_summary({"logistic, RBF features": [0.6301, 0.63, 0.6304]}, Cs)
    assert nothing.startswith("No other value of C captures more") and "No other value of C costs" in nothing
    gain = readings.regularisation_summary({"logistic, RBF features": [0.60, 0.63, 0.6306],
                                            "logistic, degree-2 polynomial": [0.02, 0.02, 0.02]}, Cs)
    assert "for the RBF features (0.001 more with C = 100)." in gain and "degree-2" not in gain
    loss = readings.regularisation_summary({"logistic, degree-4 polynomial": [0.30, 0.38, 0.36]}, Cs)
    assert "the degree-4 polynomial model at C = 1 (from 0.380 to 0.300)" in loss and "C = 100 (" not in loss
    with pytest.raises(ValueError, match="reference C = 10"):
        readings.regularisation_summary({"a": [0.1, 0.2]}, (1, 100))


def test_below_zero_means_every_value_is_negative():
    assert readings.below_zero([-2.5, -0.01, -1.0]) == "below zero"
    assert readings.below_zero([-2.5, 0.0]) == "not always below zero"
    assert readings.below_zero([0.3, 0.5]) == "not always below zero"


def _masks(rows):
    return {lam: np.array(row, bool) for lam, row in rows.items()}


def test_deletion_sets_count_the_lambdas_below_expectation_and_see_nesting():
    # N = 8, n_rw = 4 points in re-weighted components; at lam = 0.5, 0.7, 0.9 the expected N' is
    # N (1 - lam) / 2 = 2, 1.2, 0.4 and, given n_rw, n_rw (1 - lam) = 2, 1.2, 0.4 as well
    some = _masks({0.5: [1, 1, 0, 0, 0, 0, 0, 0], 0.7: [1, 0, 0, 0, 0, 0, 0, 0], 0.9: [1, 0, 0, 0, 0, 0, 0, 0]})
    facts = readings.deletion_sets({"mog8": some}, {"mog8": 4}, 8)
    assert facts["below_mog8"] == 1 and facts["n_lams"] == 3            # 1 < 1.2 at lam = 0.7 only
    assert facts["few"] == "at 1 of the 3 values of λ"
    assert facts["nested"].startswith("are nested")
    every = _masks({0.5: [1, 0, 0, 0, 0, 0, 0, 0], 0.7: [0, 1, 0, 0, 0, 0, 0, 0], 0.9: [0] * 8})
    facts = readings.deletion_sets({"mog8": every}, {"mog8": 4}, 8)
    assert (facts["few"], facts["nested"], facts["below_mog8"]) == ("at every λ", "are not nested", 3)
    none = _masks({0.5: [1, 1, 1, 1, 0, 0, 0, 0], 0.7: [1, 1, 0, 0, 0, 0, 0, 0], 0.9: [1, 0, 0, 0, 0, 0, 0, 0]})
    facts = readings.deletion_sets({"mog8": none}, {"mog8": 4}, 8)
    assert (facts["few"], facts["below_mog8"]) == ("at 0 of the 3 values of λ", 0)


def test_directions_read_each_value_against_the_first():
    assert readings.directions({"paper": 0.5, "a": 0.4, "b": 0.6, "c": 0.5}) == {
        "paper": "higher", "a": "lower", "b": "higher", "c": "higher"}


def test_the_resampling_reading_follows_two_standard_errors():
    draws = np.array([0.42, 0.43, 0.44, 0.45, 0.46])           # mean 0.44, sd 0.0158, se 0.0071
    inside = readings.resampling_reading(draws, base=0.45, run_value=0.38)
    assert inside["reading"].startswith("Their average lies within two standard errors (0.014) of the paper's 0.45")
    assert inside["z"] == pytest.approx(0.06 / draws.std(ddof=1))
    outside = readings.resampling_reading(draws, base=0.46, run_value=0.38)
    assert outside["reading"].startswith("Their average differs from the paper's 0.46 by more than two")
    assert (inside["n"], inside["min"], inside["max"]) == (5, 0.42, 0.46)
    with pytest.raises(ValueError, match="at least two draws"):
        readings.resampling_reading([0.4], base=0.4, run_value=0.4)


def test_covariance_readings_name_the_reading_that_gives_the_papers_claim():
    harder = {"literal": ("Q3",), "std": ("Q1", "Q2")}
    r = readings.covariance_readings(harder, {"literal": 0.8, "std": 0.9}, 0.12)
    assert r == {"match": "std", "q3_side": "lies above the critical value under both readings"}
    r = readings.covariance_readings({"literal": ("Q1",), "std": ("Q1", "Q2", "Q3")}, {"literal": 0.1, "std": 0.9},
                                     0.12)
    assert r == {"match": "neither reading", "q3_side": "lies above the critical value under one reading only"}
    r = readings.covariance_readings({"a": ("Q1", "Q2"), "b": ("Q1", "Q2")}, {"a": 0.1, "b": 0.05}, 0.12)
    assert r == {"match": "a and b", "q3_side": "lies below the critical value under both readings"}


def test_bandwidth_sensitivity_names_the_question_with_the_widest_range():
    sigmas = [0.03, 0.05, 0.1, 0.2, 0.3]
    ks = {"Q1": [0.95, 0.87, 0.01, 0.45, 0.8], "Q2": [0.5, 0.3, 0.1, 0.2, 0.3], "Q3": [0.64, 0.8, 0.86, 0.85, 0.84]}
    r = readings.bandwidth_sensitivity(ks, sigmas)
    assert (r["most"], r["half"], r["double"], r["worse"], r["q3_min"]) == ("Q1", 0.87, 0.45, "halving", 0.64)
    assert r["remark"].startswith("This agrees with the paper's remark") and r"\hat{\rho}_{\mathcal E} = \hat{\rho}" in r["why"]
    ks["Q1"] = [0.2, 0.1, 0.01, 0.3, 0.35]   # range 0.34; Q2's is 0.4
    ks["Q3"] = [0.1, 0.5, 0.86, 0.85, 0.84]  # range 0.76: the widest, and worse at twice sigma_A
    r = readings.bandwidth_sensitivity(ks, sigmas)
    assert (r["most"], r["half"], r["double"], r["worse"]) == ("Q3", 0.5, 0.85, "doubling")
    assert "separate" in r["why"]
    r = readings.bandwidth_sensitivity({**ks, "Q3": [0.8] * 5}, sigmas)   # now Q2 is the widest
    assert (r["most"], r["worse"]) == ("Q2", "halving") and "Alg. 1" in r["why"]
    r = readings.bandwidth_sensitivity({"Q1": [0.9, 0.1, 0.0, 0.5, 0.9], "Q2": [0.1] * 5, "Q3": [0.9] * 5}, sigmas)
    assert r["worse"] == "doubling" and r["remark"].startswith("At this seed the paper's remark")
    with pytest.raises(ValueError, match="half = 0.05 is not among"):
        readings.bandwidth_sensitivity(ks, [0.1, 0.2])


def test_knn_zero_words_name_the_dres_with_an_infinite_error():
    assert readings.knn_zero_words({"kNN, k = 10": 0.3, "kNN, k = 20": 0.2}).startswith("At this setting neither")
    assert readings.knn_zero_words({"kNN, k = 10": np.inf, "kNN, k = 20": 0.2}) == \
        "At this setting this happens for kNN, k = 10, whose mean error is infinite."
    assert "kNN, k = 10 and kNN, k = 20" in readings.knn_zero_words({"kNN, k = 10": np.inf, "kNN, k = 20": np.inf})


def test_the_first_m_reaching_a_power_is_the_least_m_at_or_above_it_in_any_order():
    from types import SimpleNamespace as R

    rates = [R(m=200, rate=0.95), R(m=25, rate=0.5), R(m=100, rate=0.8), R(m=50, rate=0.81), R(m=10, rate=0.1)]
    assert readings.first_m_reaching(rates) == 50                 # 0.81 at m = 50 comes before 0.8 at 100
    assert readings.first_m_reaching(rates, 0.9) == 200
    assert readings.first_m_reaching(rates, 0.96) == float("inf")
    assert readings.first_m_reaching([], 0.8) == float("inf")
    with pytest.raises(ValueError, match="rejection rate"):
        readings.first_m_reaching(rates, 80)
    assert readings.from_m_words(readings.first_m_reaching(rates), 200) == "from *m* = 50"
    assert readings.from_m_words(readings.first_m_reaching(rates, 0.96), 200) == "at no *m* up to 200"


# --------------------------------------------------------------------------------------------
# The rules of the GAN deletion test's page and of the GAN Q2 page: each says both things, and
# where its boundary lies


def test_the_gan_pages_word_rules_say_both_things_at_their_boundaries():
    from gendel.claims import readings as R

    assert R.prediction_reading([True] * 3 + [False]) == "follows the measured rates"          # 3/4 = 0.75
    assert R.prediction_reading([True] * 2 + [False] * 2) == "misses many of the measured rates"
    with pytest.raises(ValueError):
        R.prediction_reading([])
    # LR within the tolerance counts as highest; a rate at or below `relevant` everywhere is not judged
    assert R.highest_rate_reading({"lr": [0.88], "asc": [0.93]}).startswith("LR's rate is the highest")
    assert R.highest_rate_reading({"lr": [0.87], "asc": [0.93]}) == "LR's rate is not always the highest"
    assert R.highest_rate_reading({"lr": [0.1], "asc": [0.5]}).startswith("LR's rate is the highest")
    assert R.more_often_reading([(0.5, 0.9)]) == "far more often than"          # 0.5 is not above `relevant`
    assert R.more_often_reading([(0.6, 0.6)]) == "not always more often than"   # equal is not more often
    assert R.flatness_reading(0.2, 0.1).startswith("neither")                   # exactly two standard errors
    assert R.flatness_reading(0.21, 0.1).startswith("too flat")
    assert R.flatness_reading(-0.21, 0.1).startswith("too steep")
    assert R.safe_sizing_reading({"a": 200, "b": 100}, {"a": 100, "b": 100}).startswith("does not bound")
    assert R.safe_sizing_reading({"a": 200, "b": 101}, {"a": 100, "b": 100}).startswith("underestimates")
    assert R.level_reading([0.08], 0.08) == "keeps" and R.level_reading([0.0801], 0.08) == "does not keep"
    assert [R.times_above_reading(v, 100) for v in (400, 399, 101, 100, 50)] == [
        "far above", "above", "above", "not above", "not above"]
    assert R.smaller_reading(1, 2) == "smaller" and R.smaller_reading(2, 1) == "not smaller"
    assert R.share_words(0.5) == "less than half" and R.share_words(0.51) == "more than half"
    assert R.range_words([0.5]) == "0.500 to 0.500" and R.range_words([], none="none") == "none"
    assert R.bound_exceeded_words([0, 0]).startswith("no proposal")
    assert R.bound_exceeded_words([0, 1e-4]) == "at most 0.01% of the proposals exceeded the bound"
    assert R.same_as_before("x", "x") == "the same" and R.same_as_before("x", "y") == "x"
    assert R.both_data_sets_m_words(50, float("inf"), 500) == "from *m* = 50 on MNIST and at no *m* up to 500 on Fashion-MNIST"


def test_the_small_word_rules_turn_at_their_boundary():
    assert readings.check_words(np.bool_(True)) == "passes" and readings.check_words(0) == "fails"
    # one fingerprint, today's, matches; today's among others, or another alone, does not
    assert readings.fingerprint_words(["f1"], "f1") == "matches"
    assert readings.fingerprint_words(("f0", "f1"), "f1") == readings.fingerprint_words(("f0",), "f1") == "does not match"
    # today's code only with today's fingerprint alone; sealed results say so; other code is earlier
    assert readings.made_by_words(["f1"], "f1", sealed_at={None}) == "today's code"
    assert readings.made_by_words(["f1"], "f1", sealed_at={None, "abc"}).endswith("(commit abc, sealed)")
    assert readings.made_by_words(["f0", "f1"], "f1").startswith("an earlier version (other code")
    # a check passes a statement only when it holds
    assert readings.check_outcome_words("holds") == "passes"
    assert readings.check_outcome_words("fails") == readings.check_outcome_words("undecided") == "rejects"
    assert readings.all_words(np.bool_(True)) == "all of them" and readings.all_words(0) == "not all of them"
    # one disagreeing name is enough to say so, and it is named
    assert readings.agreement_reading([]).startswith("both measured rates agree")
    assert readings.agreement_reading(["KBC", "10-NN"]).endswith("for KBC, 10-NN")
    assert readings.agreement_reading(["10-NN"]) == "the measured rate differs from the prediction for 10-NN"
    # both, one or neither of two samplers; every one of three
    two = ["KBC", "10-NN"]
    assert readings.consistency_reading(["10-NN", "KBC"], of=two).startswith("both samplers are consistent")
    assert readings.consistency_reading(["10-NN"], of=two).endswith(": 10-NN")
    assert readings.consistency_reading([], of=two).endswith(": neither sampler")
    assert readings.consistency_reading(two + ["x"], of=two + ["x"]).startswith("every sampler")
    assert readings.consistency_reading([], of=two + ["x"]).endswith(": no sampler")
    assert readings.consistency_reading(two, of=two + ["x"]).endswith(": KBC, 10-NN")   # two of three is not "both"
    assert readings.seeds_words(5, 5) == "all the seeds of the grid" and readings.seeds_words(4, 5).startswith("4 of")
    assert readings.speedup_words(np.inf) == "re-training never reaches it" and readings.speedup_words(1.04) == "speed-up 1.0×"
    # results never sealed were written with their checksum; sealed ones name the commits and the count
    never = readings.seal_reading([0, 0, 0], {None})
    assert "none needed a seal" in never and "sealed twice" not in never and "d3b2ce1" not in never
    twice = readings.seal_reading([2, 2], {"d3b2ce1"})
    assert "before files carried a checksum" in twice and "(d3b2ce1)" in twice and twice.endswith("sealed twice in all.")
    assert "was repeated" in twice and "was repeated" not in readings.seal_reading([1], {"d3b2ce1"})
    # one sealed result among unsealed ones is not hidden: the count says how many
    mixed = readings.seal_reading([1, 0, 0], {"d3b2ce1", None})
    assert "once in all (1 of 3; the others fewer times or never)" in mixed
    with pytest.raises(ValueError, match="at least one result"):
        readings.seal_reading([], set())
    # just below the used size is a fraction; at it, more
    assert readings.sample_size_words(1999.9, 2000) == "a fraction of"
    assert readings.sample_size_words(2000, 2000) == "more than"
