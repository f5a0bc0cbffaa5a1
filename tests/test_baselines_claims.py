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


# --------------------------------------------------------------------------------------------
# The paper-protocol claims on the baselines grid (five seeds, controls of their own)


def _view():
    pytest.importorskip("torch")
    from gendel.gan.baseline_results import as_job_results, stored_baseline_results

    raw = stored_baseline_results("quick")
    return raw, as_job_results(raw)


def test_the_view_keeps_the_even_and_odd_jobs_with_their_own_numbers_and_controls():
    raw, view = _view()
    paper = [r for r in raw if r["job"]["setting"] != "random"]
    assert len(view) == len(paper) and {r.setting for r in view} == {"even", "odd"}
    for r, v in zip(paper, view):
        assert v.name == r["job"]["name"]
        for model in ("pre", "re", "approx", "control"):
            assert list(v.labels[model]) == list(r["labels"][model])
        for stat, by_method in r["q3"]["statistics"].items():
            for side, method in (("h0", "pre"), ("h1", "re"), ("control", "control")):
                assert np.array_equal(v.statistic(stat)[side], np.asarray(by_method[method], float))
            assert v.q3["ks"][stat] == {"h1": r["q3"]["ks"][stat]["re"], "control": r["q3"]["ks"][stat]["control"]}
        # the control is a GAN of its own: a seed no pre-trained or re-trained model of the grid has
        assert r["job"]["control_seed"] not in {x["job"]["seed"] for x in raw}


def test_the_claims_refuse_to_pool_the_view_with_the_paper_protocol_grid():
    from gendel.claims.base import CannotPool
    from gendel.claims.gan import check_poolable
    from gendel.gan.result_files import stored_results

    _, view = _view()
    with pytest.raises(CannotPool, match="profiles"):
        check_poolable(view[:2] + stored_results("quick")[-2:])


def test_on_the_view_close_to_retrained_tells_doing_nothing_from_retraining():
    """The rules keep saying no on the second grid: a fresh sample of p̂ in place of the approximated
    model is not called close to p̂′; a fresh sample of p̂′ is, in most deletion sets."""
    import dataclasses

    from gendel.claims.gan_q2 import claim_close_to_retrained, claim_fewer_deleted_labels
    from gendel.gan.summaries import label_summary

    _, view = _view()
    rng = np.random.default_rng(0)

    def swapped(model):
        return [dataclasses.replace(r, labels={**r.labels, "approx": rng.multinomial(
            int(r.profile["m_labels"]), r.distribution(model))}) for r in view]

    nothing = label_summary(swapped("pre"))
    assert claim_close_to_retrained(nothing).verdict not in ("holds", "partly")
    assert claim_fewer_deleted_labels(nothing).verdict not in ("holds", "partly")
    retrained = claim_close_to_retrained(label_summary(swapped("re")))
    assert retrained.details["passed"] >= 12 and retrained.verdict in ("holds", "partly")


def test_grid_agreement_compares_only_claims_judged_on_both_and_refuses_other_claims():
    from gendel.claims.base import Claim
    from gendel.claims.gan import agreement_sentence, grid_agreement

    a = [Claim("x", "x", "", "", "holds"), Claim("y", "y", "", "", ONE_SEED)]
    b = [Claim("x", "x", "", "", "partly"), Claim("y", "y", "", "", "holds")]
    g = grid_agreement(a, b)
    assert g["judged"] == ["x"] and g["same"] == [] and g["differ"][0][2:] == ("holds", "partly")
    assert agreement_sentence(a, a).endswith("1 of the 1 claims judged on both.")
    with pytest.raises(ValueError, match="same claims"):
        grid_agreement(a, b[::-1])


def test_on_the_view_fewer_deleted_labels_credits_the_control_and_says_so():
    """With controls of their own, the per-set rule "fewer deleted labels" passes for a second
    training on X in some deletion sets (within a seed the sets share the control), as the baselines
    page shows with its own rule: the paper-protocol claim then does not read "holds" or "partly"."""
    from gendel.claims import NOT_DISTINGUISHABLE
    from gendel.claims.gan_q2 import claim_fewer_deleted_labels
    from gendel.gan.summaries import label_summary

    _, view = _view()
    claim = claim_fewer_deleted_labels(label_summary(view))
    control = claim.details["rows"]["control"]
    assert (control["verdict"] in ("holds", "partly")) == (claim.verdict == NOT_DISTINGUISHABLE)
    assert claim.verdict not in ("holds", "partly") or control["verdict"] not in ("holds", "partly")
