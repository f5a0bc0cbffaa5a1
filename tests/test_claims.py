"""The claims of the paper as rules (gendel.claims): each rule on constructed inputs whose verdict
is known (KS tables, label summaries), and the GAN rules on the stored results with a model swapped
in, where they must say no."""

from __future__ import annotations


import numpy as np
import pytest

from gendel import claims
from gendel.claims import Claim, glue_values, rows, verdict

STATS = ("lr", "asc-log", "asc-tlogt", "asc-hellinger")
SIGMA_C = (0.075, 0.0875, 0.1, 0.1125, 0.125)   # sigma_A = 0.1 in the middle, as in the chapter
LAMBDAS = (0.6, 0.8, 0.9)
KNN_K = (5, 10, 20)
KNN_LAMBDAS = (0.8, 0.9)
GRID = dict(sigma_c=SIGMA_C, sigma_a=0.1)
V = np.array([0.3, 0.2, 0.0, 0.1, 0.2])          # a V-shaped KS curve over SIGMA_C, smaller on the right


def tables(lr, **asc):
    """A KS table for one data set: LR given, each ASC statistic the LR curve unless given."""
    lr = np.asarray(lr, dtype=float)
    return {"lr": lr, **{s: np.asarray(asc.get(s.removeprefix("asc-"), lr), dtype=float) for s in STATS[1:]}}


def both(mog, ckb):
    return {"mog8": mog, "ckb8": ckb}


# --------------------------------------------------------------------------------------------
# The helpers


def test_verdict_counts_cases():
    assert [verdict(p, 4) for p in (4, 2, 0)] == ["holds", "partly", "does not hold"]
    assert verdict(0, 0) == "not tested"
    with pytest.raises(ValueError, match="passed <= total"):
        verdict(5, 4)


def test_one_verdict_helper_for_every_chapter():
    from gendel.plotting import theory

    assert (theory.verdict(True), theory.verdict(np.bool_(False))) == (verdict(1, 1), verdict(0, 1))


def test_a_theorem_checked_in_parts_has_one_verdict_rule():
    """Every theorem: the parts that check the statement as printed decide the verdict (all hold:
    holds; some: partly; none: does not hold); checks of another statement (a corrected bound, an
    invalid reading) are listed as "not counted" and change nothing."""
    from gendel.claims import theory as th
    from gendel.theory.bound_checks import BoundCheck

    def check(bound):  # deterministic: 0.5 measured against the bound
        return BoundCheck("stmt", "x", [1], [bound], [[0.5]], 0.0)

    ok, bad = check(1.0), check(0.1)
    verdicts = {parts: th.theorem("t", "t", "Thm. 0", [ok if p else bad for p in parts]).verdict
                for parts in ((1, 1), (1, 0), (0, 1), (0, 0))}
    assert verdicts == {(1, 1): "holds", (1, 0): "partly", (0, 1): "partly", (0, 0): "does not hold"}
    for parts in ((ok, ok), (ok, bad), (bad, bad)):
        alone = th.theorem("t", "t", "Thm. 0", parts).verdict
        for other in (ok, bad):
            claim = th.theorem("t", "t", "Thm. 0", parts, beside=[("another reading", other)])
            assert claim.verdict == alone
            assert f"not counted: another reading: {other.verdict}" in claim.numbers
            assert claim.details["beside_total"] == 1 and claim.details["checks_total"] == 2

    # the closing table's theorems follow it: Thm. 2 and Thm. 3 each have a rejected check; only
    # Thm. 2's checks the statement as printed (Thm. 3's reads ε at the full set, errata E9)
    checks = dict.fromkeys(th.THEORY_EVIDENCE, [ok]) | {
        "thm2": [ok, bad], "thm2_corrected": [ok, bad], "thm3": [ok, bad], "thm6": [ok, ok]}
    theorems = {c.key: c for c in th.theory(checks)}
    assert theorems["thm2"].verdict == "partly" and theorems["thm3"].verdict == "holds"
    assert "not counted: ε of the full set, a reading errata E9 shows invalid: rejected" in theorems["thm3"].numbers
    assert theorems["thm2"].numbers.count("not counted: the corrected bound") == 2
    swapped = {c.key: c.verdict for c in th.theory(checks | {"thm3": [bad, ok]})}
    assert swapped["thm3"] == "does not hold"    # the part as printed fails; the reading beside it cannot save it
    with pytest.raises(ValueError, match="pairs"):
        th.theorem("t", "t", "Thm. 0", [ok], beside=[ok])


def test_a_claim_has_one_of_the_verdicts():
    with pytest.raises(ValueError, match="verdict must be one of"):
        Claim("k", "text", "§5.1", "", "mostly")


def test_rows_number_the_claims_in_order():
    cs = [Claim("a", "first", "§1", "n1", "holds"), Claim("b", "second", "§2", "n2", "partly")]
    assert rows(cs) == [["1. first", "§1", "n1", "holds"], ["2. second", "§2", "n2", "partly"]]


def test_glue_values_name_verdicts_and_details_and_refuse_a_clash():
    a = Claim("a", "t", "w", "n", "holds", {"n_cases": 4, "x": 1})
    b = Claim("b", "t", "w", "n", "partly", {"n_cases": 4})
    assert glue_values([a, b], "q9") == {"q9_v_a": "holds", "q9_n_cases": 4, "q9_x": 1, "q9_v_b": "partly"}
    with pytest.raises(ValueError, match="q9_n_cases"):
        glue_values([a, Claim("c", "t", "w", "n", "holds", {"n_cases": 5})], "q9")


def test_ks_critical_is_the_level_of_the_two_sample_test():
    from scipy.stats import ks_2samp

    # the exact two-sample test at R = 250 rejects at level 5 % close to the asymptotic value
    R = 250
    d = np.ceil(claims.ks_critical(R) * R) / R
    x = np.arange(R, dtype=float)
    p = ks_2samp(x, x + d * R - 0.5, method="exact").pvalue
    assert 0.03 < p < 0.05
    assert claims.ks_critical(R, 0.01) > claims.ks_critical(R)


def test_a_table_of_the_wrong_shape_says_what_to_pass():
    with pytest.raises(ValueError, match=r"shape \(3, 4\).*grids the sweep was run on"):
        claims.q1_lambda({"mog8": {"lr": np.zeros((3, 4))}}, lambdas=LAMBDAS, **GRID)


def test_sigma_a_must_be_on_the_grid():
    with pytest.raises(ValueError, match="not on the sigma_c grid"):
        claims.q1_lambda({"mog8": {"lr": np.zeros((3, 5))}}, lambdas=LAMBDAS, sigma_c=SIGMA_C, sigma_a=0.09)


def test_a_comparison_of_data_sets_needs_both():
    with pytest.raises(ValueError, match="CKB-8"):
        claims.q1_ckb_harder({"mog8": tables(np.zeros((3, 5)))}, **GRID)


# --------------------------------------------------------------------------------------------
# Q1: each rule on tables where the verdict is known


def test_q1_monotone_tolerates_dips_of_two_repeats_only():
    R = 100
    dip = V.copy()
    dip[0] = V[1] - 2 / R + 1e-9               # the outermost step falls by just under 2/R: still monotone
    bad = V.copy()
    bad[0] = V[1] - 3 / R                      # falls by 3/R: not monotone
    good = tables([V, V, dip])
    run = lambda ks: claims.q1_monotone(ks, R=R, **GRID)
    assert run(both(good, good)).verdict == "holds"
    c = run(both(good, tables([V, bad, bad])))
    assert (c.verdict, c.details) == ("partly", {"monotone_curves": 4, "monotone_total": 6})
    assert run(both(tables([bad] * 3), tables([bad[::-1]] * 3))).verdict == "does not hold"


def test_q1_larger_sigma_needs_one_win_and_pairs_to_compare():
    run = lambda ks, **g: claims.q1_larger_sigma(ks, **{**GRID, **g})
    assert run({"mog8": {"lr": [V, V[::-1], V[::-1]]}}).verdict == "holds"     # V: larger sigma_C wins
    c = run({"mog8": {"lr": [V[::-1]] * 3}})
    assert (c.verdict, c.details) == ("does not hold", {"larger_wins": 0, "pairs": 6})
    # sigma_A at the edge of the grid: no pair of bandwidths around it
    assert run({"mog8": {"lr": [V] * 3}}, sigma_a=0.075).verdict == "not tested"


@pytest.mark.parametrize("slopes, expected", [((-1, -1), "holds"), ((-1, 1), "partly"), ((1, 1), "does not hold")])
def test_lambda_rules_read_the_sign_of_kendalls_tau(slopes, expected):
    lam = np.array(LAMBDAS)[:, None]
    mog, ckb = (0.5 + s * 0.3 * lam * np.abs(np.array(SIGMA_C) - 0.1) / 0.025 for s in slopes)
    ks = both({"lr": mog}, {"lr": ckb})
    assert claims.q1_lambda(ks, lambdas=LAMBDAS, **GRID).verdict == expected
    assert claims.q2_lambda(ks, lambdas=LAMBDAS, **GRID).verdict == expected
    assert claims.q2_lambda(ks, lambdas=LAMBDAS, **GRID).details["lambda_total"] == 8
    # Q3 also counts sigma_A, where these tables are flat (tau undefined): never "holds"
    assert claims.q3_lambda(ks, lambdas=LAMBDAS, sigma_c=SIGMA_C).verdict == (
        "partly" if expected == "holds" else expected)


@pytest.mark.parametrize("knn_best, expected", [((0.1, 0.1), "holds"), ((0.1, 0.5), "partly"),
                                                ((0.5, 0.5), "does not hold")])
def test_q1_knn_compares_the_best_small_k_with_the_fig3_kbcs(knn_best, expected):
    kbc = {"lr": np.tile([0.3, 0.1, 0.0, 0.1, 0.2], (3, 1))}                   # worse Fig. 3 KBC: 0.3
    knn = {"lr": np.array([[b, 0.9, 0.9] for b in knn_best])}                 # the best k is k = 5
    c = claims.q1_knn(both(kbc, kbc), both(knn, knn), lambdas=LAMBDAS, knn_lambdas=KNN_LAMBDAS, knn_k=KNN_K,
                      sigma_c=SIGMA_C)
    assert c.verdict == expected
    # a good k above k_max does not count
    knn_large = {"lr": np.array([[0.9, 0.9, 0.1]] * 2)}
    assert claims.q1_knn(both(kbc, kbc), both(knn_large, knn_large), lambdas=LAMBDAS, knn_lambdas=KNN_LAMBDAS,
                         knn_k=KNN_K, sigma_c=SIGMA_C, k_max=10).verdict == "does not hold"


def test_q1_phi_order_wants_tlogt_best_and_hellinger_worst():
    good = tables(np.tile(V, (3, 1)), tlogt=np.tile(V / 2, (3, 1)), hellinger=np.tile(2 * V, (3, 1)))
    swapped = tables(np.tile(V, (3, 1)), tlogt=np.tile(2 * V, (3, 1)), hellinger=np.tile(V / 2, (3, 1)))
    mixed = {s: np.vstack([good[s][:2], swapped[s][2:]]) for s in STATS}
    run = lambda ks: claims.q1_phi_order(ks, **GRID)
    assert run(both(good, good)).verdict == "holds"
    c = run(both(good, mixed))
    assert (c.verdict, c.details["hell_worst"], c.details["n_cases"]) == ("partly", 5, 6)
    assert run(both(swapped, swapped)).verdict == "does not hold"
    lr_best = tables(np.tile(V / 4, (3, 1)), hellinger=np.tile(2 * V, (3, 1)), tlogt=np.tile(V / 2, (3, 1)))
    assert run(both(good, lr_best)).details["lr_best_ckb8"] == 3


def test_q1_ckb_exception_is_about_ckb8_at_lambda_09():
    base = np.tile(V, (3, 1))
    worse_tlogt = base.copy()
    worse_tlogt[2] *= 3
    run = lambda ckb: claims.q1_ckb_exception({"ckb8": ckb}, lambdas=LAMBDAS, **GRID).verdict
    assert run(tables(base, tlogt=worse_tlogt)) == "holds"
    assert run(tables(base)) == "does not hold"                     # a tie is not "less accurate"
    early = base.copy()
    early[0] *= 3                                                     # worse t log t at lambda = 0.6 only
    assert run(tables(base, tlogt=early)) == "does not hold"


def test_q1_ckb_harder_counts_the_statistics():
    mog = tables(np.tile(V, (3, 1)))
    assert claims.q1_ckb_harder(both(mog, tables(2 * mog["lr"])), **GRID).verdict == "holds"
    c = claims.q1_ckb_harder(both(mog, tables(2 * mog["lr"], log=mog["lr"] / 2)), **GRID)
    assert (c.verdict, c.details["harder_stats"], c.details["easier_stats"]) == (
        "partly", "LR, ASC (t log t), ASC (Hellinger)", "ASC (log t)")  # the registry's labels
    assert c.details["lr_mean_ckb8"] == pytest.approx(2 * c.details["lr_mean_mog8"])
    assert claims.q1_ckb_harder(both(mog, mog), **GRID).verdict == "does not hold"  # equal is not harder
    half = mog["lr"] / 2
    one = claims.q1_ckb_harder(both(mog, tables(half, hellinger=2 * mog["lr"])), **GRID)
    assert (one.verdict, one.details["harder_stats"]) == ("does not hold", "ASC (Hellinger)")  # 1 of 4 is not "partly"
    two = claims.q1_ckb_harder(both(mog, tables(2 * mog["lr"], log=half, tlogt=half)), **GRID)
    assert two.verdict == "partly"


# --------------------------------------------------------------------------------------------
# Q2


def test_q2_wide_needs_every_bandwidth_within_25_percent_to_pass():
    crit = 0.12
    passes = np.full((3, 5), 0.05)
    some = passes.copy()
    some[1, 0] = 0.5                                                    # sigma_C = 0.075 caught at lambda = 0.8
    only_exact = np.full((3, 5), 0.5)
    only_exact[:, 2] = 0.05
    knn = {"lr": np.full((2, 3), 0.05)}
    run = lambda mog, ckb: claims.q2_wide(both({"lr": mog}, {"lr": ckb}), both(knn, knn), lambdas=LAMBDAS,
                                          knn_lambdas=KNN_LAMBDAS, critical=crit, **GRID)
    assert run(passes, passes).verdict == "holds"
    c = run(passes, some)
    assert (c.verdict, c.details["kbc_pass_ckb8"], c.details["knn_pass_ckb8"]) == ("partly", 4, 3)
    # the exact bandwidth alone is no range of classifiers
    c = run(only_exact, only_exact)
    assert (c.verdict, c.details["exact_pass"], c.details["exact_fail"]) == ("does not hold", 6, "no rejection")
    assert c.details["step_caught_mog8"] == 3


@pytest.mark.parametrize("kbc_median, expected", [((0.1, 0.1), "holds"), ((0.1, 0.5), "partly"),
                                                  ((0.5, 0.5), "does not hold")])
def test_q2_kbc_knn_compares_medians(kbc_median, expected):
    knn = {"lr": np.full((2, 3), 0.3)}
    kbc = {"lr": np.vstack([np.full(5, 0.9)] + [np.full(5, m) for m in kbc_median])}  # lambda = 0.6 unused
    c = claims.q2_kbc_knn(both(kbc, kbc), both(knn, knn), lambdas=LAMBDAS, knn_lambdas=KNN_LAMBDAS)
    assert c.verdict == expected


@pytest.mark.parametrize("k5, expected", [((0.5, 0.5), "holds"), ((0.5, 0.1), "partly"), ((0.1, 0.1), "does not hold")])
def test_q2_moderate_k_beats_k5(k5, expected):
    knn = {"lr": np.array([[a, 0.3, 0.4] for a in k5])}
    assert claims.q2_moderate_k(both(knn, knn), knn_k=KNN_K).verdict == expected


def test_q2_lr_asc_wants_neither_statistic_consistently_larger():
    lr = np.tile(V, (3, 1))
    alternating = np.where(np.arange(5) % 2 == 0, V / 2, 2 * V)[None].repeat(3, 0)  # LR larger at 2 of 4 off columns
    run = lambda **asc: claims.q2_lr_asc(both(tables(lr, **asc), tables(lr, **asc)), **GRID)
    assert run(log=alternating, tlogt=alternating, hellinger=alternating).verdict == "holds"
    c = run(log=alternating, tlogt=lr / 2, hellinger=alternating)
    assert (c.verdict, c.details) == ("partly", {"lr_larger_min": 50.0, "lr_larger_max": 100.0})
    assert run(log=lr / 2, tlogt=lr / 2, hellinger=2 * lr).verdict == "does not hold"


def test_q2_ckb_harder_compares_both_families():
    low, high = {"lr": np.full((3, 5), 0.2)}, {"lr": np.full((3, 5), 0.4)}
    kl, kh = {"lr": np.full((2, 3), 0.2)}, {"lr": np.full((2, 3), 0.4)}
    run = lambda kbc, knn: claims.q2_ckb_harder(kbc, knn, **GRID)
    assert run(both(low, high), both(kl, kh)).verdict == "holds"
    assert run(both(low, high), both(kh, kl)).details == {"harder_families": "KBC"}
    assert run(both(high, low), both(kh, kl)).verdict == "does not hold"


# --------------------------------------------------------------------------------------------
# Q3


def test_q3_wide_needs_every_bandwidth_within_25_percent_to_separate():
    crit = 0.12
    sep, miss = np.full((3, 5), 0.6), np.full((3, 5), 0.6)
    miss[0, 1] = 0.1                                           # sigma_C = 0.0875 fails at lambda = 0.6
    knn = {"lr": np.full((2, 3), 0.6)}
    run = lambda mog, ckb: claims.q3_wide(both({"lr": mog}, {"lr": ckb}), both(knn, knn), critical=crit, **GRID)
    assert run(sep, sep).verdict == "holds"
    c = run(sep, miss)
    assert (c.verdict, c.details) == ("partly", {"sep_passed": 41, "sep_total": 42})
    assert run(np.full((3, 5), 0.1), np.full((3, 5), 0.1)).verdict == "does not hold"


def test_q3_lr_asc_wants_lr_at_least_as_large_in_three_quarters():
    lr = np.full((3, 5), 0.5)
    run = lambda **asc: claims.q3_lr_asc(both(tables(lr, **asc), tables(lr, **asc)))
    assert run().verdict == "holds"                            # ties count for LR
    c = run(hellinger=lr + 0.1)
    assert (c.verdict, c.details) == ("partly", {"lr_asc_min": 0.0})
    assert run(log=lr + 0.1, tlogt=lr + 0.1, hellinger=lr + 0.1).verdict == "does not hold"


@pytest.mark.parametrize("gaps, expected", [((0.0, 0.05), "holds"), ((0.0, 0.3), "partly"),
                                            ((-0.3, 0.3), "does not hold")])
def test_q3_kbc_knn_allows_a_gap_of_01(gaps, expected):
    knn = {"lr": np.full((2, 3), 0.5)}
    kbc = {"lr": np.vstack([np.full(5, 0.5)] + [np.full(5, 0.5 + g) for g in gaps])}
    c = claims.q3_kbc_knn(both(kbc, kbc), both(knn, knn), lambdas=LAMBDAS, knn_lambdas=KNN_LAMBDAS)
    assert c.verdict == expected
    assert c.details["max_gap"] == pytest.approx(max(map(abs, gaps)))


def test_q3_ckb_harder_means_less_separation():
    low, high = {"lr": np.full((3, 5), 0.4)}, {"lr": np.full((3, 5), 0.8)}
    kl, kh = {"lr": np.full((2, 3), 0.4)}, {"lr": np.full((2, 3), 0.8)}
    assert claims.q3_ckb_harder(both(high, low), both(kh, kl)).verdict == "holds"
    assert claims.q3_ckb_harder(both(high, low), both(kl, kh)).verdict == "partly"
    assert claims.q3_ckb_harder(both(low, high), both(kl, kh)).verdict == "does not hold"


def test_ckb_harder_questions_reads_q3_the_other_way():
    mog = {"Q1": 0.3, "Q2": 0.3, "Q3": 0.5}
    assert claims.ckb_harder_questions(mog, {"Q1": 0.4, "Q2": 0.4, "Q3": 0.4}) == ("Q1", "Q2", "Q3")
    assert claims.ckb_harder_questions(mog, {"Q1": 0.2, "Q2": 0.2, "Q3": 0.6}) == ()
    with pytest.raises(ValueError, match="same questions"):
        claims.ckb_harder_questions(mog, {"Q1": 0.2})


# --------------------------------------------------------------------------------------------
# On a small real sweep

REAL = dict(sigma_c=(0.05, 0.075, 0.0875, 0.1, 0.1125, 0.125, 0.15), lambdas=(0.6, 0.8, 0.9),
            knn_k=(5, 10, 20), knn_lambdas=(0.8, 0.9))


@pytest.fixture(scope="module", params=[0, 1], ids=["seed0", "seed1"])
def small_sweeps(request):
    from gendel.synthetic import experiments as E

    from gendel.core.dre import make_dre

    kw = dict(cache=False, progress=False)
    sc, ks = REAL["sigma_c"], REAL["knn_k"]
    p = {d: E.Protocol(d, N=60, m=40, R=8, seed=request.param) for d in ("mog8", "ckb8")}
    return {d: {"kbc": E.sweep(p[d], [make_dre("kbc", s) for s in sc], lams=REAL["lambdas"], **kw),
                "knn": E.sweep(p[d], [make_dre("knn", k) for k in ks], lams=REAL["knn_lambdas"], **kw)}
            for d in ("mog8", "ckb8")}


def test_r_and_sigma_a_default_to_the_runs_own_protocol(small_sweeps):
    # The sweeps ran with R = 8: the claims must use R = 8 (the 2/R tolerance, the KS critical
    # value), not the paper's R = 250, when the caller does not say.
    grid = dict(sigma_c=REAL["sigma_c"], knn_k=REAL["knn_k"])
    for rule in (claims.q1, claims.q2, claims.q3):
        assert rows(rule(small_sweeps, **grid)) == rows(rule(small_sweeps, R=8, sigma_a=0.1, **grid))


def test_q3_kbc_knn_counts_a_gap_of_exactly_the_tolerance_as_within():
    # 0.8 - 0.7 is 0.10000000000000009 in floating point; the rule "at most 0.1" must count it
    from gendel.claims.synthetic_q3 import q3_kbc_knn

    kbc, knn = {"mog8": {"lr": [[0.8, 0.8]]}}, {"mog8": {"lr": [[0.7]]}}
    c = q3_kbc_knn(kbc, knn, lambdas=(0.8,), knn_lambdas=(0.8,))
    assert c.verdict == "holds" and "within 0.1 at 1/1" in c.numbers
    c = q3_kbc_knn({"mog8": {"lr": [[0.81, 0.81]]}}, knn, lambdas=(0.8,), knn_lambdas=(0.8,))
    assert c.verdict == "does not hold"


def _fast_inputs(pre_tv, fast_tv):
    """Costs where re-training never reaches fast deletion's TV, and label summaries whose
    pre-trained model has TV ``pre_tv`` to X \\ X' (three seeds, m = 5000)."""
    import numpy as np

    from gendel.gan.summaries import Cost, LabelSummary

    kept = np.full(10, 0.1)
    pre = kept + pre_tv * np.array([1, -1] * 5) / 5        # TV(pre, kept) = pre_tv
    d = {k: np.array([pre] * 3) for k in ("pre", "re", "approx")}
    summary = LabelSummary("mnist", "even", 0.7, (0, 1, 2), 5000, d, kept, kept)
    costs = [Cost("mnist", "even", 0.7, seed, "cpu", 5000, np.array([[10.0, 0.5], [20.0, 0.4]]),
                  np.array([[1.0, fast_tv], [2.0, fast_tv]]), 0.5) for seed in (0, 1, 2)]
    return costs, [summary]


def test_fast_deletion_no_better_than_doing_nothing_is_within_noise():
    from gendel.claims.gan_q2 import DOING_NOTHING, claim_fast

    costs, summaries = _fast_inputs(pre_tv=0.20, fast_tv=0.20)
    assert claim_fast(costs).verdict == "holds"                     # re-training never reaches 0.20
    judged = claim_fast(costs, summaries)
    assert judged.details["cases"][0].outcome == "within noise"
    assert judged.details["cases"][0].override == DOING_NOTHING


def test_fast_deletion_better_than_doing_nothing_keeps_its_outcome():
    from gendel.claims.gan_q2 import DOING_NOTHING, claim_fast

    costs, summaries = _fast_inputs(pre_tv=0.30, fast_tv=0.20)
    case = claim_fast(costs, summaries).details["cases"][0]
    assert case.outcome == "passes" and case.override == "" and DOING_NOTHING not in case.text


def test_fast_keeps_each_cases_speed_p_and_holm_is_monotone_with_doing_nothing_beside_it():
    """Deletion sets whose speed-ups differ, half of them no better than doing nothing: each case's p is
    its own speed test's (a one-sided t test on the log speed-ups, computed here with scipy), Holm's
    adjusted p-values are the step-down maxima of the raw ones (computed here by sorting), and
    doing nothing shows as an override beside the p, never as a change of it."""
    from scipy.stats import t

    from gendel.claims.base import CASE_HEADER, case_rows
    from gendel.claims.gan_q2 import DOING_NOTHING, TIMING_SCATTER, claim_fast
    from gendel.gan.summaries import Cost, LabelSummary

    kept = np.full(10, 0.1)
    costs, summaries, expected_p = [], [], {}
    for i, lam in enumerate((0.6, 0.7, 0.8, 0.9)):
        pre_tv = 0.30 if i % 2 else 0.20                # odd i: doing nothing is worse than fast deletion (0.20)
        pre = kept + pre_tv * np.array([1, -1] * 5) / 5
        d = {k: np.array([pre] * 3) for k in ("pre", "re", "approx")}
        summaries.append(LabelSummary("mnist", "even", lam, (0, 1, 2), 5000, d, kept, kept))
        seconds = [1.5 + 0.4 * i, 1.3 + 0.5 * i, 1.9 + 0.3 * i]     # re-training reaches TV 0.20 after these
        for seed, reach in enumerate(seconds):
            curve = np.array([[reach / 2, 0.25], [reach, 0.20], [2 * reach, 0.15]])
            costs.append(Cost("mnist", "even", lam, seed, "cpu", 5000, curve, np.array([[0.5, 0.22], [1.0, 0.20]]),
                              0.0))
        logs = np.log(np.array(seconds) / 1.0)
        se = max(logs.std(ddof=1), TIMING_SCATTER) / np.sqrt(3)
        expected_p[f"MNIST even-{lam:g}"] = t.sf(logs.mean() / se, 2)
    cases = claim_fast(costs, summaries).details["cases"]
    assert {c.label: c.p for c in cases} == pytest.approx(expected_p)
    raw = np.array([c.p for c in cases])
    order = np.argsort(raw)
    stepdown = np.maximum.accumulate(np.minimum(1, raw[order] * (len(raw) - np.arange(len(raw)))))
    assert np.allclose([cases[j].p_holm for j in order], stepdown)
    for i, c in enumerate(cases):
        assert (c.override == DOING_NOTHING) == (i % 2 == 0)
        assert c.outcome == ("within noise" if i % 2 == 0 else "passes") and c.p < 0.05
    column = CASE_HEADER.index("overridden by")
    assert [row[column] for row in case_rows(claim_fast(costs, summaries))] == [DOING_NOTHING, "–"] * 2


# --------------------------------------------------------------------------------------------
# The GAN claims: rules that can say no (on the stored quick results, with a model swapped in)


def _quick():
    pytest.importorskip("torch")
    from gendel.gan.result_files import stored_results

    return stored_results("quick")


def _approx_replaced_by(results, model, seed=0):
    """The results with the approximated model's labels replaced by a fresh multinomial sample of
    ``model``'s label distribution (the same m)."""
    import dataclasses

    rng = np.random.default_rng(seed)
    return [dataclasses.replace(r, labels={**r.labels, "approx": rng.multinomial(int(r.profile["m_labels"]),
                                                                                    r.distribution(model))})
            for r in results]


def test_close_to_retrained_tells_doing_nothing_from_retraining():
    """Doing nothing (a fresh sample of p̂ in place of the approximated model) is not called close to
    p̂′, and is called not close in most deletion sets where deletion moves δ most (λ ≤ 0.7); a fresh
    sample of p̂′ itself is called close in most deletion sets."""
    from gendel.claims.gan_q2 import claim_close_to_retrained
    from gendel.gan.summaries import label_summary

    quick = _quick()
    nothing = claim_close_to_retrained(label_summary(_approx_replaced_by(quick, "pre")))
    assert nothing.verdict not in ("holds", "partly")
    low = [c for c in nothing.details["cases"] if float(c.label.rsplit("-", 1)[1]) <= 0.7]
    assert len(low) == 8 and sum(c.outcome == "fails" for c in low) >= 6
    retrained = claim_close_to_retrained(label_summary(_approx_replaced_by(quick, "re")))
    assert len(retrained.details["cases"]) == 16 and retrained.details["passed"] >= 12
    assert retrained.verdict in ("holds", "partly")


def test_fewer_deleted_labels_is_not_claimed_for_doing_nothing():
    from gendel.claims.gan_q2 import claim_fewer_deleted_labels
    from gendel.gan.summaries import label_summary

    for seed in range(3):
        c = claim_fewer_deleted_labels(label_summary(_approx_replaced_by(_quick(), "pre", seed)))
        assert c.verdict not in ("holds", "partly"), (seed, c.numbers)


def test_every_q2_claim_judges_the_positive_control_and_doing_nothing_by_its_rule():
    from gendel.claims import gan_q2 as Q2
    from gendel.gan.summaries import label_summary

    summaries = label_summary(_quick())
    for claim, judged in ((Q2.claim_fewer_deleted_labels, {"re", "pre", "control"}),
                          (Q2.claim_close_to_retrained, {"re", "pre"})):
        c = claim(summaries)
        assert set(c.details["rows"]) == judged
        for model, row in c.details["rows"].items():
            assert row["claim"].verdict == claim(summaries, model).verdict == row["verdict"]
    # doing nothing moves δ by nothing: never "fewer" beyond noise
    assert Q2.claim_fewer_deleted_labels(summaries, "pre").details["passed"] == 0


def test_no_gan_claim_holds_with_fewer_passing_cases_than_chance_gives():
    from scipy.stats import binom

    from gendel.claims.gan import claims as gan_claims

    for c in gan_claims(_quick()):
        n, k = c.details["n"], c.details["passed"]
        if c.verdict in ("holds", "partly"):
            assert binom.sf(k - 1, n, 0.05) <= 0.05, (c.key, k, n)      # P(≥ k passes | no effect)
        assert f"{k}/{n} pass" in c.numbers


def test_binomial_critical_count_and_holm_by_direct_computation():
    from math import comb

    from gendel.claims.base import binomial_critical, counted_verdict, holm

    def tail(k, n, p=0.05):
        return sum(comb(n, j) * p ** j * (1 - p) ** (n - j) for j in range(k, n + 1))

    for n in (1, 2, 3, 4, 8, 16, 30):
        k = binomial_critical(n)
        assert tail(k, n) <= 0.05 and (k == 0 or tail(k - 1, n) > 0.05)
    assert counted_verdict(2, 0, 16) != "partly" and counted_verdict(3, 0, 16) == "partly"
    p = np.array([0.001, 0.02, 0.03, 0.5])
    expected = np.maximum.accumulate(np.minimum(1, p * np.array([4, 3, 2, 1])))
    assert np.allclose(holm(p[::-1])[::-1], expected)


def test_a_t_test_over_three_seeds_uses_two_degrees_of_freedom():
    from scipy.stats import t

    from gendel.claims.base import t_halfwidth, t_test

    values = [-0.02, -0.05, -0.05]     # mean −0.04, sd 0.0173: −0.04 ± 0.02 passes at Z = 2, not at t(2)
    mean, se, df, below, _ = t_test(values)
    assert df == 2 and below == pytest.approx(t.cdf(mean / se, 2))
    assert t_halfwidth(se, df) == pytest.approx(t.ppf(0.95, 2) * se)
    assert mean + 2 * se < 0 and not below < 0.025


def test_one_seed_results_are_not_judged_and_print_no_nan():
    import warnings

    from gendel.claims.base import ONE_SEED
    from gendel.claims.base import case_rows
    from gendel.claims.gan import claims as gan_claims

    one = [r for r in _quick() if r.seed == 0]
    with warnings.catch_warnings():
        warnings.simplefilter("error")          # no "Mean of empty slice", no "Degrees of freedom <= 0"
        table = gan_claims(one)
    for c in table:
        assert c.verdict in (ONE_SEED, "not tested"), (c.key, c.verdict)
        text = " ".join(" ".join(row) for row in case_rows(c)) + c.numbers
        assert "nan" not in text.lower(), (c.key, text)


def test_a_case_of_one_seed_reads_not_judged_like_its_claim():
    """No t test with df = 0: every case of a one-seed claim (the gpu profile, or one seed of the quick
    profile) has the claim's words "one seed: not judged", never "within noise"."""
    from gendel.claims.base import ONE_SEED
    from gendel.claims.gan import claims as gan_claims
    from gendel.gan.result_files import stored_results

    for results in (stored_results("gpu"), [r for r in _quick() if r.seed == 0]):
        judged = [c for c in gan_claims(results) if c.details["cases"]]
        assert judged
        for c in judged:
            assert c.verdict == ONE_SEED
            assert {k.outcome for k in c.details["cases"]} == {ONE_SEED}, (c.key, [k.outcome for k in c.details["cases"]])


def test_claims_refuse_results_they_cannot_pool():
    import dataclasses

    from gendel.claims.base import CannotPool
    from gendel.claims.gan import claims as gan_claims
    from gendel.gan.result_files import stored_results

    quick = _quick()
    first = quick[0]
    cases = {
        "None": None,
        "not results": ["mnist-even-0.6-seed0"],
        "profiles": quick[:2] + stored_results("gpu"),
        "same job twice": quick[:2] + [quick[0]],
        "m_labels": [first, dataclasses.replace(quick[1], profile={**quick[1].profile, "m_labels": 999})],
        "(m, R)": [first, dataclasses.replace(quick[1], q3={**quick[1].q3, "R": 7})],
        "controls": [first, dataclasses.replace(quick[1], labels={k: v for k, v in quick[1].labels.items()
                                                                  if k != "control"})],
    }
    for what, results in cases.items():
        with pytest.raises(CannotPool) as error:
            gan_claims(results)
        message = str(error.value)
        assert isinstance(error.value, ValueError) and "\n" not in message
        if what not in ("None", "not results"):
            assert quick[1].name in message or quick[0].name in message, (what, message)


def test_separation_is_one_sided_and_reports_the_controls_own_rate():
    from gendel.claims.gan_q3 import claim_separation, control_rejection_rate, one_sided_critical
    from gendel.gan.summaries import ks_one_sided, ks_summary

    ks = ks_summary(_quick())
    c = claim_separation(ks)
    table, calibrated, jobs = control_rejection_rate(ks)
    assert jobs == 48 and c.details["control_rate_table"] == table
    assert 0 <= calibrated <= 0.15          # calibrated on the other deletion sets' controls
    # one-sided: values of H1 below H0 do not separate
    assert ks_one_sided(np.arange(40.0), np.arange(40.0) - 30) == 0.0 < one_sided_critical(40)


def test_the_detectable_shift_is_detected_about_as_often_as_promised():
    """Simulated seeds with a true mean shift equal to detectable_shift: the one-sided t test at 5 %
    rejects in about 80 % of the draws; at a third of it, in far fewer."""
    from scipy.stats import t

    from gendel.claims.base import detectable_shift, seeds_needed

    rng = np.random.default_rng(0)
    for n in (3, 5, 11):
        shift = detectable_shift(0.01, n)
        draws = rng.normal(-shift, 0.01, size=(20000, n))
        stat = draws.mean(1) / (draws.std(1, ddof=1) / np.sqrt(n))
        rate = np.mean(t.cdf(stat, n - 1) < 0.05)
        assert 0.7 < rate < 0.9, (n, rate)
        weak = draws + 2 * shift / 3
        assert np.mean(t.cdf(weak.mean(1) / (weak.std(1, ddof=1) / np.sqrt(n)), n - 1) < 0.05) < 0.5
        assert seeds_needed(shift, 0.01) <= n and detectable_shift(0.01, seeds_needed(shift, 0.01)) <= shift


def test_the_forest_plot_and_the_case_table_show_the_same_numbers():
    """The forest plot's approximated rows are the 'fewer deleted labels' cases: one computation."""
    from gendel.claims.gan_q2 import claim_fewer_deleted_labels, shift_estimates
    from gendel.gan.summaries import label_summary

    summaries = label_summary(_quick())
    cases = claim_fewer_deleted_labels(summaries).details["cases"]
    estimates = [e for e in shift_estimates(summaries) if e.model == "approx"]
    assert [(c.number, c.noise) for c in cases] == [(e.shift, e.halfwidth) for e in estimates]
    for e, s in zip(estimates, summaries):
        assert e.beta == pytest.approx((s.mass("approx") - s.mass("pre")).mean() / s.exact_shift)


def test_separation_judges_the_control_only_where_the_results_hold_control_draws():
    """The gpu results hold no control GAN: separation has no control row there (the chapter's table
    says NO_CONTROL in its place), while the quick results judge the control by separation's rule."""
    from gendel.claims.gan_q3 import NO_CONTROL, claim_separation
    from gendel.gan.result_files import stored_results
    from gendel.gan.summaries import ks_summary

    assert all("control" not in r.labels for r in stored_results("gpu"))
    assert claim_separation(ks_summary(stored_results("gpu"))).details["rows"] == {}
    control = claim_separation(ks_summary(_quick())).details["rows"]["control"]
    assert control["n"] == 16 and control["verdict"] != NO_CONTROL


def test_fewer_deleted_labels_is_not_claimed_when_the_rule_credits_another_training():
    """A control GAN (another training on X, no deletion) that moves δ down in every seed, as far as
    the approximated model does: the rule credits it, so the claim cannot tell deletion from training
    noise; with a control that stays put the same approximated model gives "holds"."""
    from gendel.claims import NOT_DISTINGUISHABLE
    from gendel.claims.gan_q2 import claim_fewer_deleted_labels
    from gendel.gan.summaries import LabelSummary

    def row(e):
        return np.array([e, (1 - 5 * e) / 5] * 5)

    def summary(control_even):
        d = {"pre": np.array([row(0.1)] * 3), "re": np.array([row(0.08 + k * 1e-3) for k in range(3)]),
             "approx": np.array([row(0.09 + k * 1e-4) for k in range(3)]),
             "control": np.array([row(control_even + k * 1e-4) for k in range(3)])}
        return LabelSummary("mnist", "even", 0.7, (0, 1, 2), 5000, d, row(0.1), row(0.08))

    still = claim_fewer_deleted_labels([summary(0.1)])
    assert still.verdict == "holds" and still.details["rows"]["control"]["verdict"] != "holds"
    drifting = claim_fewer_deleted_labels([summary(0.09)])
    assert drifting.details["rows"]["control"]["verdict"] == "holds"
    assert drifting.verdict == NOT_DISTINGUISHABLE and "credits another training" in drifting.numbers
    # and the re-trained model's row, judged by the same rule, cannot be credited either
    assert drifting.details["rows"]["re"]["verdict"] == drifting.details["rows"]["re"]["claim"].verdict == NOT_DISTINGUISHABLE
    assert still.details["rows"]["re"]["verdict"] == "holds"
