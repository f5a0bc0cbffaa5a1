"""Q2, fast deletion (§5.1, Figs. 4(b) and 5, Appendix D): can Y_D pass for re-training?

Each function checks one claim of the paper on KS tables of Q2 (see
:mod:`gendel.claims.synthetic`): the KS statistic between LR(Y_H1, rho_hat) and
LR(Y_D, rho_hat), or the ASC statistics, per lambda and KBC bandwidth sigma_C (``kbc``) or kNN k
(``knn``). The approximated model is "distinguishable" from the re-trained one when the KS
statistic reaches ``critical`` (a two-sample KS test at level 5 %: :func:`gendel.claims.ks_critical`).
"""

from __future__ import annotations

import numpy as np

from gendel.claims.base import Claim, verdict
from gendel.claims._tables import exact_column, index, lambda_trend, name, need, table
from gendel.core.dre import FAMILY_LABELS
from gendel.deletion_test.stats import STATISTICS


def q2_wide(kbc, knn, *, lambdas, knn_lambdas, sigma_c, sigma_a, critical, within=0.25, at_lambda=0.8):
    """Claim 1: for a wide range of classifiers, Y_D cannot be told from re-training (§5.1, Figs. 4(b), 5).

    Rule: holds if at every lambda every bandwidth within ± ``within`` of sigma_A (0.075 to
    0.125, the range of Fig. 3) has an LR KS below ``critical``; partly if some bandwidth other
    than sigma_A passes somewhere (or the rule holds at some lambda); does not hold otherwise.
    The details count the passes at sigma_A, at ``at_lambda`` and the cases where both nearest
    bandwidths of the grid are caught.

    Examples
    --------
    >>> kbc = {"mog8": {"lr": [[0.3, 0.05, 0.3], [0.1, 0.05, 0.1]]}}
    >>> knn = {"mog8": {"lr": [[0.3], [0.2]]}}
    >>> c = q2_wide(kbc, knn, lambdas=(0.6, 0.8), knn_lambdas=(0.6, 0.8), sigma_c=(0.075, 0.1, 0.125),
    ...             sigma_a=0.1, critical=0.12)
    >>> c.verdict, c.details["exact_pass"], c.details["kbc_pass_mog8"]
    ('partly', 2, 3)
    """
    sig = np.asarray(sigma_c, dtype=float)
    ia, off = exact_column(sigma_c, sigma_a)
    nl = len(lambdas)
    lr = {d: table(kbc, d, "lr", (nl, len(sig)), "KBC") for d in kbc}
    kn = {d: table(knn, d, "lr", (len(knn_lambdas), None), "kNN") for d in kbc}
    kbc_pass = {d: (lr[d] < critical).sum(axis=1) for d in kbc}
    knn_pass = {d: (kn[d] < critical).sum(axis=1) for d in kbc}
    near = np.abs(sig - sigma_a) <= within * sigma_a + 1e-12
    wide = sum(int(row[near].all()) for d in kbc for row in lr[d] < critical)
    beyond = sum(int((lr[d][:, off] < critical).any()) for d in kbc)
    v = "holds" if wide == len(kbc) * nl else ("partly" if beyond or wide else "does not hold")
    numbers = f"every KBC within ±{100 * within:g} % of σ_A passes at {wide} of {len(kbc) * nl} (data set, λ); " + "; ".join(
        f"{name(d)}: KBC passing per λ {list(map(int, kbc_pass[d]))} of {len(sig)}, "
        f"kNN passing per λ {list(map(int, knn_pass[d]))} of {kn[d].shape[1]}" for d in kbc)
    # sigma_C = sigma_A: Y_D then follows p_hat' exactly, so only the test's false alarms reject
    exact_fail = [(name(d), lam) for d in kbc for lam, ks in zip(lambdas, lr[d][:, ia]) if ks >= critical]
    step = [j for j in (ia - 1, ia + 1) if 0 <= j < len(sig)]  # the nearest bandwidths of the grid
    i, j = index(lambdas, at_lambda, "at_lambda"), index(knn_lambdas, at_lambda, "at_lambda")
    details = {
        "exact_pass": len(kbc) * nl - len(exact_fail), "n_cases": len(kbc) * nl,
        "exact_fail": ("rejected: " + ", ".join(f"{d} at λ = {lam:g}" for d, lam in exact_fail))
        if exact_fail else "no rejection",
        **{f"step_caught_{d}": int((lr[d][:, step] >= critical).all(axis=1).sum()) for d in kbc},
        **{f"kbc_pass_{d}": int(kbc_pass[d][i]) for d in kbc},
        **{f"knn_pass_{d}": int(knn_pass[d][j]) for d in kbc},
        "n_sigma": len(sig), "n_k": kn[next(iter(kbc))].shape[1] if kbc else 0,
    }
    return Claim("wide", "indistinguishable from re-training for a wide range of classifiers",
                 "§5.1, Figs. 4(b), 5", numbers, v, details)


def q2_lambda(kbc, *, lambdas, sigma_c, sigma_a):
    """Claim 2: less distinguishable for a larger lambda (§5.1, App. D.1).

    Rule: for each sigma_C != sigma_A, Kendall's tau between lambda and the LR KS is negative.

    Examples
    --------
    >>> ks = {"mog8": {"lr": [[0.5, 0.0, 0.4], [0.3, 0.0, 0.2]]}}
    >>> q2_lambda(ks, lambdas=(0.5, 0.9), sigma_c=(0.05, 0.1, 0.15), sigma_a=0.1).details
    {'lambda_neg': 2, 'lambda_total': 2}
    """
    _, off = exact_column(sigma_c, sigma_a)
    neg, numbers = lambda_trend(kbc, lambdas, sigma_c, off)
    total = len(kbc) * len(off)
    return Claim("lambda", "less distinguishable for larger λ", "§5.1, App. D.1", numbers,
                 verdict(sum(neg.values()), total), {"lambda_neg": int(sum(neg.values())), "lambda_total": total})


def q2_kbc_knn(kbc, knn, *, lambdas, knn_lambdas):
    """Claim 3: KBC is generally better than kNN (App. D.1).

    Rule: at each lambda of the kNN runs, the median LR KS over the KBC bandwidths is below the
    median over the kNN k.

    Examples
    --------
    >>> kbc, knn = {"mog8": {"lr": [[0.1, 0.2, 0.3]]}}, {"mog8": {"lr": [[0.3, 0.4]]}}
    >>> q2_kbc_knn(kbc, knn, lambdas=(0.8,), knn_lambdas=(0.8,)).verdict
    'holds'
    """
    rows = [index(lambdas, lam, "the kNN run's lambda") for lam in knn_lambdas]
    nk = len(knn_lambdas)
    better = {}
    for d in knn:
        kb = table(kbc, d, "lr", (len(lambdas), None), "KBC")
        kn = table(knn, d, "lr", (nk, None), "kNN")
        better[d] = [(np.median(kb[r]), np.median(kn[i])) for i, r in enumerate(rows)]
    n3 = {d: sum(a < b for a, b in better[d]) for d in knn}
    numbers = "; ".join(f"{name(d)}: KBC median below kNN median at {n3[d]}/{nk} λ ("
                        + ", ".join(f"{a:.2f} vs {b:.2f}" for a, b in better[d]) + ")" for d in knn)
    return Claim("kbc_knn", "KBC generally better than kNN", "App. D.1", numbers,
                 verdict(sum(n3.values()), len(knn) * nk),
                 {"kbc_better": int(sum(n3.values())), "n_cases_knn": len(knn) * nk})


def q2_moderate_k(knn, *, knn_k, moderate=(10, 50)):
    """Claim 4: for kNN, a moderate k (10 to 50) overlaps better (App. D.1, D.2).

    Rule: at each lambda, the best LR KS over the k in ``moderate`` is below the best over the
    smaller k (with k up to 50 only the lower side of the range can be tested).

    Examples
    --------
    >>> knn = {"mog8": {"lr": [[0.4, 0.2, 0.3], [0.1, 0.2, 0.3]]}}
    >>> q2_moderate_k(knn, knn_k=(5, 10, 20)).details
    {'moderate_better': 1, 'n_cases_knn': 2}
    """
    lo, hi = moderate
    mid = [j for j, k in enumerate(knn_k) if lo <= k <= hi]
    low = [j for j, k in enumerate(knn_k) if k < lo]
    if not mid or not low:
        raise ValueError(f"knn_k={tuple(knn_k)} needs a k in {lo}..{hi} and a k below {lo} to compare them")
    kn = {d: table(knn, d, "lr", (None, len(knn_k)), "kNN") for d in knn}
    n4 = {d: sum(row[mid].min() < row[low].min() for row in kn[d]) for d in knn}
    low_k = ", ".join(str(knn_k[j]) for j in low)
    numbers = "; ".join(f"{name(d)}: best moderate k beats k = {low_k} at {n4[d]}/{len(kn[d])} λ" for d in knn)
    total = sum(len(a) for a in kn.values())
    return Claim("moderate_k", f"kNN: moderate k ({lo} to {hi}) overlaps better", "App. D.1, D.2", numbers,
                 verdict(sum(n4.values()), total), {"moderate_better": int(sum(n4.values())), "n_cases_knn": total})


def q2_lr_asc(kbc, *, sigma_c, sigma_a, band=(0.25, 0.75)):
    """Claim 5: no clear difference between LR and ASC (App. D.1).

    Rule: for each ASC statistic (one per phi), over all data sets, lambda and sigma_C != sigma_A, the share of cases in
    which LR has the larger KS lies in ``band`` (neither statistic is consistently more
    sensitive).

    Examples
    --------
    >>> ks = {"mog8": {"lr": [[0.2, 0.0, 0.3]], "asc-log": [[0.3, 0.0, 0.2]],
    ...                "asc-tlogt": [[0.1, 0.0, 0.1]], "asc-hellinger": [[0.4, 0.0, 0.4]]}}
    >>> c = q2_lr_asc(ks, sigma_c=(0.05, 0.1, 0.15), sigma_a=0.1)
    >>> c.verdict, c.details
    ('partly', {'lr_larger_min': 0.0, 'lr_larger_max': 100.0})
    """
    _, off = exact_column(sigma_c, sigma_a)
    fr = {}
    for phi in (key for key in STATISTICS if STATISTICS[key].phi is not None):
        lr = np.concatenate([table(kbc, d, "lr", (None, len(sigma_c)), "KBC")[:, off].ravel() for d in kbc])
        asc = np.concatenate([table(kbc, d, phi, (None, len(sigma_c)), "KBC")[:, off].ravel() for d in kbc])
        fr[phi] = (np.mean(lr > asc), np.mean(lr - asc))
    n5 = sum(band[0] <= f <= band[1] for f, _ in fr.values())
    numbers = "; ".join(f"{STATISTICS[p].label}: LR larger in {100 * f:.0f} % of cases (mean difference {m:+.2f})"
                        for p, (f, m) in fr.items())
    shares = [f for f, _ in fr.values()]
    return Claim("lr_asc", "no clear difference between LR and ASC", "App. D.1", numbers, verdict(n5, len(fr)),
                 {"lr_larger_min": float(100 * min(shares)), "lr_larger_max": float(100 * max(shares))})


def q2_ckb_harder(kbc, knn, *, sigma_c, sigma_a):
    """Claim 6: CKB-8 is harder than MoG-8, with slightly higher KS values (App. D.2).

    Rule: the LR KS averaged over all lambda and sigma_C != sigma_A (KBC), and over all lambda
    and k (kNN), is larger on CKB-8 than on MoG-8.

    Examples
    --------
    >>> kbc = {"mog8": {"lr": [[0.2, 0.0, 0.2]]}, "ckb8": {"lr": [[0.3, 0.0, 0.3]]}}
    >>> knn = {"mog8": {"lr": [[0.4]]}, "ckb8": {"lr": [[0.3]]}}
    >>> c = q2_ckb_harder(kbc, knn, sigma_c=(0.05, 0.1, 0.15), sigma_a=0.1)
    >>> c.verdict, c.details
    ('partly', {'harder_families': 'KBC'})
    """
    need(kbc, ("mog8", "ckb8"), "KBC")
    need(knn, ("mog8", "ckb8"), "kNN")
    _, off = exact_column(sigma_c, sigma_a)
    avg = {d: {"kbc": table(kbc, d, "lr", (None, len(sigma_c)), "KBC")[:, off].mean(),
               "knn": table(knn, d, "lr", (None, None), "kNN").mean()} for d in ("mog8", "ckb8")}
    harder = [f for f in ("kbc", "knn") if avg["ckb8"][f] > avg["mog8"][f]]
    numbers = "; ".join(f"{'mean KS, ' if f == 'kbc' else ''}{FAMILY_LABELS[f]}: {avg['mog8'][f]:.2f} (MoG) vs "
                        f"{avg['ckb8'][f]:.2f} (CKB)" for f in ("kbc", "knn"))
    return Claim("ckb_harder", "CKB-8 is harder than MoG-8 (higher KS)", "App. D.2", numbers,
                 verdict(len(harder), 2), {"harder_families": ", ".join(FAMILY_LABELS[f] for f in harder) or "none"})
