"""The GAN chapter's claims on a list of results: :func:`claims` checks every claim of §5.2 and
Appendix E, those of Q2 (:mod:`gendel.claims.gan_q2`) and of Q3 (:mod:`gendel.claims.gan_q3`), after
:func:`check_poolable` has refused results that one claim cannot pool.

Claims scoped to one data set by the paper are checked there only: Appendix E.2's statements on
MNIST, E.3's on Fashion-MNIST.
"""

from __future__ import annotations

from collections import Counter, defaultdict

from gendel.claims.base import CannotPool
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
    gendel.claims.base.CannotPool: the GAN claims need a list of JobResult (as gendel.gan.results.stored_results returns); got None
    """
    from gendel.gan.results import JobResult

    if results is None or isinstance(results, (str, bytes, dict)) or not hasattr(results, "__iter__"):
        raise CannotPool(f"the GAN claims need a list of JobResult (as gendel.gan.results.stored_results returns); got "
                         f"{results if results is None else type(results).__name__}")
    results = list(results)
    bad = [f"item {i} ({type(r).__name__})" for i, r in enumerate(results) if not isinstance(r, JobResult)]
    if bad:
        raise CannotPool(f"the GAN claims need JobResult objects; got {', '.join(bad[:5])}: pass what "
                         "gendel.gan.results.stored_results or load_results returns")

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
    >>> from gendel.gan.results import stored_results
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


__all__ = ["check_poolable", "claims"]
