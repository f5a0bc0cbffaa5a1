"""The rules of the baselines page (gendel.claims.baselines): each can say no, and says it where the
answer is known; the deletion test's rank-based critical value has its level."""

import numpy as np
import pytest

from gendel.claims import baselines as C
from gendel.claims.base import ONE_SEED


def grid(moved, *, seeds=(0, 1, 2), noise=0.002, lams=(0.6, 0.7, 0.8, 0.9)):
    """Toy even and random cases in which each method of ``moved`` moves that share of the exact shift."""
    cases = [C.toy_case(lam, moved, seeds=seeds, noise=noise) for lam in lams]
    still = {m: 0.0 for m in moved}
    return cases + [C.toy_case(lam, still, seeds=seeds, noise=noise, setting="random") for lam in (0.6, 0.8)]


def test_the_critical_value_has_its_level_whatever_the_distribution():
    rng = np.random.default_rng(0)
    for draw in (rng.standard_normal, rng.standard_exponential):
        rates = [C.rejections(draw(1), draw(20)) for _ in range(20_000)]
        # ⌈0.95 · 21⌉ = 20: a new value beats the largest of 20 with probability 1/21
        assert abs(np.mean(rates) - 1 / 21) < 0.006
    # and it has power: a shifted sample is rejected far more often
    assert np.mean([C.rejections(rng.standard_normal(1) + 3, rng.standard_normal(20)) for _ in range(2000)]) > 0.8


def test_pooled_beta_recovers_the_share_moved_and_tells_two_shares_apart():
    cases = grid({"approx": 0.4, "re": 1.0})
    assert C.pooled_beta(cases, "approx").beta == pytest.approx(0.4, abs=0.05)
    assert C.pooled_beta(cases, "re").beta == pytest.approx(1.0, abs=0.05)
    assert C.pooled_beta(cases, "pre").beta == 0.0
    wrong = grid({"approx": 0.7, "re": 1.0})
    assert abs(C.pooled_beta(wrong, "approx").beta - 0.4) > 0.2


def test_fewer_deleted_labels_credits_re_training_and_not_doing_nothing():
    cases = grid({"approx": 0.4, "re": 1.0, "control": 0.0})
    assert C.claim_moves(cases, "re", rows=False).verdict in ("holds", "partly")
    for m in ("pre", "control"):
        assert C.claim_moves(cases, m, rows=False).verdict not in ("holds", "partly")


def test_more_than_fast_deletion_says_no_for_doing_nothing_and_yes_for_re_training():
    cases = grid({"approx": 0.4, "re": 1.0})
    assert C.claim_more_than_fast(cases, "pre", rows=False).verdict == "does not hold"
    assert C.claim_more_than_fast(cases, "re", rows=False).verdict in ("holds", "partly")
    same = grid({"approx": 0.4, "finetune-1": 0.4})
    assert C.claim_more_than_fast(same, "finetune-1", rows=False).verdict not in ("holds", "partly")


def test_the_random_deletion_rule_says_no_where_the_labels_move():
    cases = [C.toy_case(lam, {"re": 1.0, "approx": 0.0}, noise=0.0005, m=200_000) for lam in (0.6, 0.8)]
    cases += [C.toy_case(lam, {"re": 0.0, "approx": 0.0}, noise=0.0005, m=200_000, setting="random")
              for lam in (0.6, 0.8)]
    on_even = C.claim_random_moves_nothing(cases, "re", setting="even", rows=False)
    assert on_even.verdict == "does not hold" and on_even.details["failed"] == 2
    assert C.claim_random_moves_nothing(cases, "approx", rows=False).verdict == "holds"


def test_one_seed_is_not_judged():
    cases = grid({"approx": 0.4, "re": 1.0}, seeds=(0,))
    assert C.claim_moves(cases, "re", rows=False).verdict == ONE_SEED
    assert np.isnan(C.pooled_beta(cases, "re").halfwidth)


def test_the_stored_grid_s_rules_say_no_to_doing_nothing():
    from gendel.gan.baseline_results import stored_baseline_results

    try:
        cases = C.cases(stored_baseline_results("quick"))
    except ValueError as exc:
        pytest.skip(str(exc))
    if C.pooled_beta(cases, "re").seeds < 2:
        pytest.skip("fewer than two seeds stored in every even and odd set")
    assert C.claim_more_than_fast(cases, "pre", rows=False).verdict not in ("holds", "partly")
    assert C.claim_moves(cases, "pre", rows=False).verdict not in ("holds", "partly")
    assert C.pooled_beta(cases, "re").beta > 0.5 > abs(C.pooled_beta(cases, "pre").beta)


def test_the_paired_beta_rule_says_no_for_doing_nothing_and_yes_for_re_training():
    cases = [C.toy_case(lam, {"approx": 0.4, "re": 1.0, "finetune-1": 0.4, "control": 0.0}, setting=s)
             for lam in (0.6, 0.8) for s in ("even", "odd")]
    assert C.claim_beta_more_than_fast(cases, "pre", rows=False).verdict == "does not hold"
    assert C.claim_beta_more_than_fast(cases, "re", rows=False).verdict == "holds"
    assert C.claim_beta_more_than_fast(cases, "finetune-1", rows=False).verdict not in ("holds", "partly")
    assert C.sane(cases, C.claim_beta_more_than_fast)
