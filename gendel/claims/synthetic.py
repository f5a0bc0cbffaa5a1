"""The claims of §5.1 and Appendix D on the synthetic data: KS tables in, claims out.

A *KS table* is a mapping ``{dataset: {statistic: array}}``: for each data set ("mog8",
"ckb8") and statistic (a key of :data:`gendel.deletion_test.stats.STATISTICS` computed from log
ratios: "lr", "asc-log", "asc-tlogt", "asc-hellinger"), the KS statistics of one question
as an array of shape ``(len(lambdas), len(settings))``, one row per lambda and one column per
KBC bandwidth sigma_C or kNN k (what ``gendel.synthetic.experiments.Sweep.ks(question, stat)`` returns).
The rules of the three questions take such tables and the grids they were computed on:

- Q1, DRE approximation: :mod:`gendel.claims.synthetic_q1` (small KS is good);
- Q2, fast deletion: :mod:`gendel.claims.synthetic_q2` (KS below the critical value is good);
- Q3, deletion test: :mod:`gendel.claims.synthetic_q3` (large KS is good).

:func:`q1`, :func:`q2` and :func:`q3` apply all rules of a question to the chapter's sweeps.
"""

from __future__ import annotations

from gendel.synthetic.sampling import PAPER
from gendel.claims import synthetic_q1 as _A
from gendel.claims import synthetic_q3 as _T
from gendel.claims import synthetic_q2 as _F
from gendel.claims.base import ks_critical
from gendel.claims._tables import ks_tables


def _settings(sweeps, sigma_c=None, sigma_a=None, R=None, lambdas=None, knn_lambdas=None, knn_k=None):
    """The grids and settings of the chapter's sweeps; None takes the sweeps' own value (R and sigma_A
    from the runs' protocol, the lambdas and the DREs' sigma_C and k from the sweeps)."""
    first = next(iter(sweeps.values()), None)
    if first is None:
        raise ValueError("sweeps is empty; pass {dataset: gendel.synthetic.experiments.chapter_sweeps(protocol)}")
    missing = {"kbc", "knn"} - set(first)
    if missing:
        raise ValueError(f"each data set needs a 'kbc' and a 'knn' sweep (as chapter_sweeps returns); "
                         f"missing {sorted(missing)}")
    # R and sigma_A of the runs themselves, when they carry their protocol
    protocol = getattr(first["kbc"].results[0][0], "protocol", None) if first["kbc"].results else None
    run = protocol or PAPER
    return dict(
        sigma_c=tuple(first["kbc"].params if sigma_c is None else sigma_c),
        sigma_a=float(run.sigma_a if sigma_a is None else sigma_a),
        R=int(run.R if R is None else R),
        lambdas=tuple(first["kbc"].lams if lambdas is None else lambdas),
        knn_lambdas=tuple(first["knn"].lams if knn_lambdas is None else knn_lambdas),
        knn_k=tuple(first["knn"].params if knn_k is None else knn_k),
    )


def q1(sweeps, **grid):
    """The claims of Q1 (DRE approximation) on the chapter's sweeps, in the order of the page.

    Parameters
    ----------
    sweeps : dict
        ``{dataset: {"kbc": Sweep, "knn": Sweep}}`` for "mog8" and "ckb8", as returned by
        ``gendel.synthetic.experiments.chapter_sweeps``.
    **grid
        ``sigma_c``, ``knn_k``, ``lambdas``, ``knn_lambdas`` (default: the sweeps'), ``sigma_a``,
        ``R`` (default: the runs' protocol's).

    Returns
    -------
    list of Claim

    Examples
    --------
    >>> from gendel.core.dre import make_dre
    >>> from gendel.synthetic.experiments import Protocol, sweep
    >>> small = dict(lams=(0.8, 0.9), cache=False, progress=False)  # a small, quick run
    >>> sweeps = {d: {"kbc": sweep(Protocol(d, N=40, m=20, R=5), [make_dre("kbc", s) for s in (0.075, 0.1, 0.125)], **small),
    ...               "knn": sweep(Protocol(d, N=40, m=20, R=5), [make_dre("knn", k) for k in (5, 10)], **small)}
    ...           for d in ("mog8", "ckb8")}
    >>> claims = q1(sweeps)
    >>> [c.key for c in claims]
    ['monotone', 'larger_sigma', 'lambda', 'knn', 'phi', 'ckb_exception', 'ckb_harder']
    >>> claims[0].details
    {'monotone_curves': 4, 'monotone_total': 4}
    """
    g = _settings(sweeps, **grid)
    kbc, knn = ks_tables(sweeps, "Q1", "kbc"), ks_tables(sweeps, "Q1", "knn", ("lr",))
    sc = dict(sigma_c=g["sigma_c"], sigma_a=g["sigma_a"])
    return [
        _A.q1_monotone(kbc, R=g["R"], **sc),
        _A.q1_larger_sigma(kbc, **sc),
        _A.q1_lambda(kbc, lambdas=g["lambdas"], **sc),
        _A.q1_knn(kbc, knn, lambdas=g["lambdas"], knn_lambdas=g["knn_lambdas"], knn_k=g["knn_k"],
                 sigma_c=g["sigma_c"]),
        _A.q1_phi_order(kbc, **sc),
        _A.q1_ckb_exception(kbc, lambdas=g["lambdas"], **sc),
        _A.q1_ckb_harder(kbc, **sc),
    ]


def q2(sweeps, *, critical=None, **grid):
    """The claims of Q2 (fast deletion) on the chapter's sweeps, in the order of the page.

    ``critical`` is the KS value above which the approximated and the re-trained model count as
    distinguishable (default: the two-sample KS test at level 5 % with R repeats,
    :func:`gendel.claims.ks_critical`); ``sweeps`` and ``grid`` as for :func:`q1`.

    Returns
    -------
    list of Claim

    Examples
    --------
    >>> from gendel.core.dre import make_dre
    >>> from gendel.synthetic.experiments import Protocol, sweep
    >>> small = dict(lams=(0.8, 0.9), cache=False, progress=False)  # a small, quick run
    >>> sweeps = {d: {"kbc": sweep(Protocol(d, N=40, m=20, R=5), [make_dre("kbc", s) for s in (0.075, 0.1, 0.125)], **small),
    ...               "knn": sweep(Protocol(d, N=40, m=20, R=5), [make_dre("knn", k) for k in (5, 10)], **small)}
    ...           for d in ("mog8", "ckb8")}
    >>> claims = q2(sweeps)
    >>> [c.key for c in claims]
    ['wide', 'lambda', 'kbc_knn', 'moderate_k', 'lr_asc', 'ckb_harder']
    """
    g = _settings(sweeps, **grid)
    critical = ks_critical(g["R"]) if critical is None else float(critical)
    kbc, knn = ks_tables(sweeps, "Q2", "kbc"), ks_tables(sweeps, "Q2", "knn", ("lr",))
    sc = dict(sigma_c=g["sigma_c"], sigma_a=g["sigma_a"])
    lams = dict(lambdas=g["lambdas"], knn_lambdas=g["knn_lambdas"])
    return [
        _F.q2_wide(kbc, knn, critical=critical, **lams, **sc),
        _F.q2_lambda(kbc, lambdas=g["lambdas"], **sc),
        _F.q2_kbc_knn(kbc, knn, **lams),
        _F.q2_moderate_k(knn, knn_k=g["knn_k"]),
        _F.q2_lr_asc(kbc, **sc),
        _F.q2_ckb_harder(kbc, knn, **sc),
    ]


def q3(sweeps, *, critical=None, **grid):
    """The claims of Q3 (deletion test) on the chapter's sweeps, in the order of the page.

    ``critical`` is the KS value above which the test separates H0 from H1 (default as in
    :func:`q2`); ``sweeps`` and ``grid`` as for :func:`q1`.

    Returns
    -------
    list of Claim

    Examples
    --------
    >>> from gendel.core.dre import make_dre
    >>> from gendel.synthetic.experiments import Protocol, sweep
    >>> small = dict(lams=(0.8, 0.9), cache=False, progress=False)  # a small, quick run
    >>> sweeps = {d: {"kbc": sweep(Protocol(d, N=40, m=20, R=5), [make_dre("kbc", s) for s in (0.075, 0.1, 0.125)], **small),
    ...               "knn": sweep(Protocol(d, N=40, m=20, R=5), [make_dre("knn", k) for k in (5, 10)], **small)}
    ...           for d in ("mog8", "ckb8")}
    >>> claims = q3(sweeps)
    >>> [c.key for c in claims]
    ['wide', 'lr_asc', 'lambda', 'kbc_knn', 'ckb_harder']
    """
    g = _settings(sweeps, **grid)
    critical = ks_critical(g["R"]) if critical is None else float(critical)
    kbc, knn = ks_tables(sweeps, "Q3", "kbc"), ks_tables(sweeps, "Q3", "knn", ("lr",))
    return [
        _T.q3_wide(kbc, knn, critical=critical, sigma_c=g["sigma_c"], sigma_a=g["sigma_a"]),
        _T.q3_lr_asc(kbc),
        _T.q3_lambda(kbc, lambdas=g["lambdas"], sigma_c=g["sigma_c"]),
        _T.q3_kbc_knn(kbc, knn, lambdas=g["lambdas"], knn_lambdas=g["knn_lambdas"]),
        _T.q3_ckb_harder(kbc, knn),
    ]


def ckb_harder_questions(mog8, ckb8):
    """The questions for which CKB-8 is harder than MoG-8, given each data set's mean KS.

    "Harder" means a larger KS for Q1 (a worse approximation) and Q2 (easier to tell the
    approximated from the re-trained model), and a smaller KS for Q3 (less separation).

    Parameters
    ----------
    mog8, ckb8 : dict
        ``{question: mean KS}`` for "Q1", "Q2" and "Q3" (or some of them).

    Returns
    -------
    tuple of str

    Examples
    --------
    >>> ckb_harder_questions({"Q1": 0.2, "Q2": 0.3, "Q3": 0.9}, {"Q1": 0.4, "Q2": 0.2, "Q3": 0.8})
    ('Q1', 'Q3')
    """
    unknown = (set(mog8) | set(ckb8)) - {"Q1", "Q2", "Q3"}
    if unknown or set(mog8) != set(ckb8):
        raise ValueError(f"pass the mean KS of the same questions (Q1, Q2, Q3) for both data sets; got "
                         f"{sorted(mog8)} and {sorted(ckb8)}")
    return tuple(q for q in ("Q1", "Q2", "Q3") if q in mog8
                 and (ckb8[q] < mog8[q] if q == "Q3" else ckb8[q] > mog8[q]))
