"""The GAN chapter's claims on a list of results: :func:`claims` checks every claim of §5.2 and
Appendix E, those of Q2 (:mod:`gendel.claims.gan_q2`) and of Q3 (:mod:`gendel.claims.gan_q3`), after
:func:`check_poolable` has refused results that one claim cannot pool.

Claims scoped to one data set by the paper are checked there only: Appendix E.2's statements on
MNIST, E.3's on Fashion-MNIST.
"""

from __future__ import annotations

from collections import Counter, defaultdict

from gendel.claims.base import ONE_SEED, CannotPool
from gendel.claims.gan_q2 import (claim_close_to_retrained, claim_fast, claim_fewer_deleted_labels,
                                  claim_odd_variance_higher)
from gendel.claims.gan_q3 import (claim_fashion_harder, claim_fashion_lambda, claim_lr_better_than_asc,
                                  claim_no_lr_asc_difference, claim_odd_separates_better, claim_separation,
                                  claim_smaller_lambda_not_more_separation)
from gendel.gan.summaries import costs, ks_summary, label_summary


def check_poolable(results):
    """Refuse GAN results that one claim cannot pool, with one ``CannotPool`` naming them:
    not a list of ``JobResult``, mixed profiles, two results of one job (data set, setting, λ, seed),
    different numbers of labelled samples (``m_labels``) or of deletion-test draws (Q3's m, R), or
    controls in only some results. Returns the results as a list.

    Examples
    --------
    >>> check_poolable(None)
    Traceback (most recent call last):
    gendel.claims.base.CannotPool: the GAN claims need a list of JobResult (as gendel.gan.result_files.stored_results returns); got None
    """
    from gendel.gan.result_files import JobResult

    if results is None or isinstance(results, (str, bytes, dict)) or not hasattr(results, "__iter__"):
        raise CannotPool(f"the GAN claims need a list of JobResult (as gendel.gan.result_files.stored_results returns); got "
                         f"{results if results is None else type(results).__name__}")
    results = list(results)
    bad = [f"item {i} ({type(r).__name__})" for i, r in enumerate(results) if not isinstance(r, JobResult)]
    if bad:
        raise CannotPool(f"the GAN claims need JobResult objects; got {', '.join(bad[:5])}: pass what "
                         "gendel.gan.result_files.stored_results or load_results returns")

    def names(rs):
        rs = list(rs)
        return ", ".join(r.name for r in rs[:4]) + (f" and {len(rs) - 4} more" if len(rs) > 4 else "")

    def refuse_mixed(what, value, fix):
        groups = defaultdict(list)
        for r in results:
            groups[value(r)].append(r)
        if len(groups) > 1:
            parts = "; ".join(f"{what} {k}: {names(v)}" for k, v in groups.items())
            raise CannotPool(f"the GAN claims cannot pool results with different {what} ({parts}); {fix}")

    refuse_mixed("profiles", lambda r: r.profile.get("name"), "pass the results of one profile")
    jobs = Counter((r.dataset, r.setting, float(r.lam), r.seed) for r in results)
    twice = [r for r in results if jobs[(r.dataset, r.setting, float(r.lam), r.seed)] > 1]
    if twice:
        raise CannotPool(f"the GAN claims got the same job twice ({names(twice)}): pass each (data set, setting, "
                         "λ, seed) once")
    refuse_mixed("m_labels", lambda r: r.profile.get("m_labels"), "pass results made with one m_labels")
    refuse_mixed("Q3 (m, R)", lambda r: (r.q3.get("m"), r.q3.get("R")), "pass results made with one m and R")
    refuse_mixed("controls", lambda r: "with a control" if "control" in r.labels else "without a control",
                 "pass only results with a control, or only results without one")
    return results


def claims(results):
    """Every claim of §5.2 and Appendix E, checked on ``results``.

    Examples
    --------
    >>> from gendel.gan.result_files import stored_results
    >>> table = claims(stored_results("gpu"))
    >>> len(table), table[0].where
    (11, 'Fig. 7(a)(b), §5.2, App. E.2, E.3')
    """
    results = check_poolable(results)
    s = label_summary(results)
    ks = ks_summary(results)
    return [claim_fewer_deleted_labels(s), claim_close_to_retrained(s), claim_odd_variance_higher(s),
            claim_separation(ks), claim_odd_separates_better(ks), claim_lr_better_than_asc(ks),
            claim_no_lr_asc_difference(ks), claim_smaller_lambda_not_more_separation(ks), claim_fashion_lambda(ks),
            claim_fashion_harder(ks), claim_fast(costs(results), s)]


#: Verdicts that judge nothing: a claim with one of these on either grid is not compared.
_UNJUDGED = (ONE_SEED, "not tested")


def grid_agreement(first, second):
    """Which claims two grids judge alike: ``first`` and ``second`` are what :func:`claims` returns
    on each (the same claims, in the same order). A claim is compared only where both grids judge
    it (not "one seed: not judged", not "not tested").

    Returns
    -------
    dict
        ``judged`` (the keys compared), ``same`` (the keys with one verdict on both) and ``differ``
        (``(key, text, first verdict, second verdict)`` per claim whose verdicts differ).

    Examples
    --------
    >>> from gendel.claims.base import Claim
    >>> a = [Claim("x", "x", "", "", "holds"), Claim("y", "y", "", "", "partly"), Claim("z", "z", "", "", "not tested")]
    >>> b = [Claim("x", "x", "", "", "holds"), Claim("y", "y", "", "", "does not hold"), Claim("z", "z", "", "", "holds")]
    >>> agreement = grid_agreement(a, b)
    >>> agreement["judged"], agreement["same"], agreement["differ"]
    (['x', 'y'], ['x'], [('y', 'y', 'partly', 'does not hold')])
    """
    first, second = list(first), list(second)
    if [c.key for c in first] != [c.key for c in second]:
        raise ValueError(f"grid_agreement compares the same claims on two grids, in one order; got "
                         f"{[c.key for c in first]} and {[c.key for c in second]}")
    pairs = [(a, b) for a, b in zip(first, second) if a.verdict not in _UNJUDGED and b.verdict not in _UNJUDGED]
    return {"judged": [a.key for a, _ in pairs], "same": [a.key for a, b in pairs if a.verdict == b.verdict],
            "differ": [(a.key, a.text, a.verdict, b.verdict) for a, b in pairs if a.verdict != b.verdict]}


def agreement_sentence(first, second, names=("the first grid", "the second grid")):
    """One sentence on :func:`grid_agreement`: how many of the claims judged on both grids get one
    verdict, and for each other claim its verdict on each.

    Examples
    --------
    >>> from gendel.claims.base import Claim
    >>> a = [Claim("x", "x grows", "", "", "holds"), Claim("y", "y shrinks", "", "", "partly")]
    >>> b = [Claim("x", "x grows", "", "", "holds"), Claim("y", "y shrinks", "", "", "does not hold")]
    >>> agreement_sentence(a, b, ("three seeds", "five seeds"))
    'The two grids give the same verdict on 1 of the 2 claims judged on both; they differ on “y shrinks” (three seeds: partly; five seeds: does not hold).'
    """
    g = grid_agreement(first, second)
    n, same = len(g["judged"]), len(g["same"])
    if n == 0:
        return "No claim is judged on both grids."
    head = f"The two grids give the same verdict on {same} of the {n} claims judged on both"
    if not g["differ"]:
        return head + "."
    parts = [f"“{text}” ({names[0]}: {a}; {names[1]}: {b})" for _, text, a, b in g["differ"]]
    return head + "; they differ on " + "; ".join(parts) + "."


__all__ = ["agreement_sentence", "check_poolable", "claims", "grid_agreement"]
