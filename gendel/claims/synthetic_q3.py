"""Q3, deletion test (§5.1, Figs. 4(c) and 6, Appendix D): does the test work with rho_hat_E?

Each function checks one claim of the paper on KS tables of Q3 (see
:mod:`gendel.claims.synthetic`): the KS statistic between LR(Y_H0, rho_hat_E) and
LR(Y_H1, rho_hat_E), or the ASC statistics, per lambda and KBC bandwidth sigma_C (``kbc``) or
kNN k (``knn``). Here a large KS is good: the test "separates" H0 from H1 when the KS statistic
exceeds ``critical`` (:func:`gendel.claims.ks_critical`). The rules of the chapter on the deletion
test as a decision are in :mod:`gendel.claims.deletion_test`.
"""

from __future__ import annotations

import numpy as np

from gendel.claims.base import Claim, verdict
from gendel.claims._tables import index, lambda_trend, name, need, table
from gendel.core.dre import FAMILY_LABELS
from gendel.deletion_test.stats import STATISTICS


def q3_wide(kbc, knn, *, sigma_c, sigma_a, critical, within=0.25):
    """Claim 1: the DRE separates H0 and H1 for a wide range of classifiers (§5.1, Figs. 4(c), 6).

    Rule: at every lambda and on every data set, every KBC bandwidth within ± ``within`` of
    sigma_A (0.075 to 0.125) has an LR KS above ``critical``; the numbers count all bandwidths
    and all k.

    Examples
    --------
    >>> kbc = {"mog8": {"lr": [[0.5, 0.5, 0.5], [0.5, 0.1, 0.5]]}}
    >>> knn = {"mog8": {"lr": [[0.5], [0.5]]}}
    >>> c = q3_wide(kbc, knn, sigma_c=(0.075, 0.1, 0.125), sigma_a=0.1, critical=0.12)
    >>> c.verdict, c.details
    ('partly', {'sep_passed': 7, 'sep_total': 8})
    """
    sig = np.asarray(sigma_c, dtype=float)
    sep = {d: {"kbc": table(kbc, d, "lr", (None, len(sig)), "KBC") > critical,
               "knn": table(knn, d, "lr", (None, None), "kNN") > critical} for d in kbc}
    near = np.abs(sig - sigma_a) <= within * sigma_a + 1e-12
    wide = sum(int(row[near].all()) for d in kbc for row in sep[d]["kbc"])
    n_rows = sum(len(sep[d]["kbc"]) for d in kbc)
    numbers = "; ".join(f"{name(d)}: KBC {int(sep[d]['kbc'].sum())}/{sep[d]['kbc'].size}, "
                        f"kNN {int(sep[d]['knn'].sum())}/{sep[d]['knn'].size} (λ, setting) cells" for d in kbc)
    details = {"sep_passed": int(sum(s.sum() for d in kbc for s in sep[d].values())),
               "sep_total": int(sum(s.size for d in kbc for s in sep[d].values()))}
    return Claim("wide", "the DRE separates H0 and H1 for a wide range of classifiers",
                 "§5.1, Figs. 4(c), 6; App. D.1", numbers, verdict(wide, n_rows), details)


def q3_lr_asc(kbc, *, share=0.75):
    """Claim 2: LR is (slightly) better than ASC (§5.1; App. D.1, D.2).

    Rule: for each ASC statistic (one per phi), over all data sets, lambda and sigma_C, LR has a KS at least as large as
    ASC in at least ``share`` of the cases.

    Examples
    --------
    >>> ks = {"mog8": {"lr": [[0.5, 0.5]], "asc-log": [[0.4, 0.5]], "asc-tlogt": [[0.6, 0.6]],
    ...                "asc-hellinger": [[0.1, 0.2]]}}
    >>> c = q3_lr_asc(ks)
    >>> c.verdict, c.details
    ('partly', {'lr_asc_min': 0.0})
    """
    fr = {}
    for phi in (key for key in STATISTICS if STATISTICS[key].phi is not None):
        lr = np.concatenate([table(kbc, d, "lr", (None, None), "KBC").ravel() for d in kbc])
        asc = np.concatenate([table(kbc, d, phi, (None, None), "KBC").ravel() for d in kbc])
        fr[phi] = (np.mean(lr >= asc), np.mean(lr - asc))
    numbers = "; ".join(f"{STATISTICS[p].label}: LR ≥ ASC in {100 * f:.0f} % of cases (mean difference {m:+.2f})"
                        for p, (f, m) in fr.items())
    return Claim("lr_asc", "LR (slightly) better than ASC", "§5.1; App. D.1, D.2", numbers,
                 verdict(sum(f >= share for f, _ in fr.values()), len(fr)),
                 {"lr_asc_min": float(100 * min(f for f, _ in fr.values()))})


def q3_lambda(kbc, *, lambdas, sigma_c):
    """Claim 3: a larger lambda makes the models less distinguishable (§5.1, App. D.1).

    Rule: for every sigma_C (sigma_A included), Kendall's tau between lambda and the LR KS is
    negative.

    Examples
    --------
    >>> ks = {"mog8": {"lr": [[0.9, 0.8], [0.5, 0.6]]}}
    >>> q3_lambda(ks, lambdas=(0.5, 0.9), sigma_c=(0.075, 0.125)).verdict
    'holds'
    """
    neg, numbers = lambda_trend(kbc, lambdas, sigma_c, range(len(sigma_c)))
    return Claim("lambda", "larger λ makes the models less distinguishable", "§5.1, App. D.1", numbers,
                 verdict(sum(neg.values()), len(kbc) * len(sigma_c)))


def q3_kbc_knn(kbc, knn, *, lambdas, knn_lambdas, tolerance=0.1):
    """Claim 4: KBC is generally comparable to kNN (App. D.1).

    Rule: at each lambda of the kNN runs, the median LR KS of the KBC grid and of the kNN grid
    differ by at most ``tolerance``.

    Examples
    --------
    >>> kbc, knn = {"mog8": {"lr": [[0.8, 0.9], [0.5, 0.5]]}}, {"mog8": {"lr": [[0.8], [0.7]]}}
    >>> c = q3_kbc_knn(kbc, knn, lambdas=(0.6, 0.8), knn_lambdas=(0.6, 0.8))
    >>> c.verdict, c.details["kbc_ahead"], round(c.details["max_gap"], 2)
    ('partly', 1, 0.2)
    """
    rows = [index(lambdas, lam, "the kNN run's lambda") for lam in knn_lambdas]
    nk = len(knn_lambdas)
    gaps = {}
    for d in knn:
        kb = table(kbc, d, "lr", (len(lambdas), None), "KBC")
        kn = table(knn, d, "lr", (nk, None), "kNN")
        gaps[d] = [np.median(kb[r]) - np.median(kn[i]) for i, r in enumerate(rows)]
    # KS values are multiples of 1/R: a gap of exactly ``tolerance`` (0.8 - 0.7 = 0.10000000000000009
    # in floating point) is within it
    n4 = {d: sum(abs(g) <= tolerance + 1e-9 for g in gaps[d]) for d in knn}
    numbers = "; ".join(f"{name(d)}: medians within {tolerance:g} at {n4[d]}/{nk} λ (KBC − kNN: "
                        + ", ".join(f"{g:+.3f}" for g in gaps[d]) + ")" for d in knn)
    details = {"kbc_ahead": int(sum(g > 0 for d in knn for g in gaps[d])), "n_cases_knn": len(knn) * nk,
               "max_gap": float(max(abs(g) for d in knn for g in gaps[d]))}
    return Claim("kbc_knn", "KBC generally comparable to kNN", "App. D.1", numbers,
                 verdict(sum(n4.values()), len(knn) * nk), details)


def q3_ckb_harder(kbc, knn):
    """Claim 5: CKB-8 is harder than MoG-8, read for Q3 as less separation (App. D.2, said for Q1, Q2).

    Rule: the LR KS averaged over all lambda and settings is lower on CKB-8 than on MoG-8, for
    KBC and for kNN.

    Examples
    --------
    >>> kbc = {"mog8": {"lr": [[0.9, 0.8]]}, "ckb8": {"lr": [[0.7, 0.8]]}}
    >>> knn = {"mog8": {"lr": [[0.9]]}, "ckb8": {"lr": [[0.8]]}}
    >>> q3_ckb_harder(kbc, knn).verdict
    'holds'
    """
    need(kbc, ("mog8", "ckb8"), "KBC")
    need(knn, ("mog8", "ckb8"), "kNN")
    ks = {"kbc": kbc, "knn": knn}
    avg = {d: {f: table(ks[f], d, "lr", (None, None), FAMILY_LABELS[f]).mean() for f in ks} for d in ("mog8", "ckb8")}
    n5 = sum(avg["ckb8"][f] < avg["mog8"][f] for f in ks)
    numbers = "; ".join(f"{FAMILY_LABELS[f]}: mean KS {avg['mog8'][f]:.2f} (MoG) vs {avg['ckb8'][f]:.2f} (CKB)"
                        for f in ks)
    return Claim("ckb_harder", "CKB-8 is harder than MoG-8 (less separation)", "our extension: App. D.2 says it for Q1, Q2", numbers,
                 verdict(n5, 2))
