"""Q1, DRE approximation (§5.1, Fig. 4(a), Appendix D): does rho_hat_E reproduce rho_hat?

Each function checks one claim of the paper on KS tables of Q1 (see
:mod:`gendel.claims.synthetic`): the KS statistic between LR(Y_H0, rho_hat) and
LR(Y_H0, rho_hat_E), or the ASC statistics, per lambda and KBC bandwidth sigma_C (``kbc``) or
kNN k (``knn``). A small KS means a good DRE.
"""

from __future__ import annotations

import numpy as np

from gendel.claims.base import Claim, verdict
from gendel.claims._tables import exact_column, index, lambda_trend, mean_off, name, need, table
from gendel.deletion_test.stats import STATISTICS
from gendel.synthetic.sampling import RATIO_STATISTICS


def _kbc(kbc, d, stat, sigma_c):
    return table(kbc, d, stat, (None, len(sigma_c)), "KBC")


def q1_monotone(kbc, *, sigma_c, sigma_a, R):
    """Claim 1: KS grows almost monotonically with abs(sigma_C - sigma_A) (§5.1, Fig. 4(a)).

    Rule: on each side of sigma_A, no step away from it lowers the KS by more than 2/R. A curve
    is one lambda; the verdict counts the LR curves, the numbers also all four statistics.

    Examples
    --------
    >>> ks = {s: [[0.4, 0.2, 0.0, 0.1, 0.3]] for s in RATIO_STATISTICS}
    >>> q1_monotone({"mog8": ks}, sigma_c=(0.05, 0.075, 0.1, 0.125, 0.15), sigma_a=0.1, R=250).verdict
    'holds'
    """
    ia, _ = exact_column(sigma_c, sigma_a)
    tol = 2 / R

    def monotone(curve):
        return all(np.all(np.diff(side) >= -tol) for side in (curve[: ia + 1][::-1], curve[ia:]))

    tables = {d: {s: _kbc(kbc, d, s, sigma_c) for s in RATIO_STATISTICS} for d in kbc}
    nl = {d: len(t["lr"]) for d, t in tables.items()}
    n_lr = {d: sum(monotone(c) for c in t["lr"]) for d, t in tables.items()}
    n_all = {d: sum(monotone(c) for s in RATIO_STATISTICS for c in t[s]) for d, t in tables.items()}
    numbers = "; ".join(f"{name(d)}: LR {n_lr[d]}/{nl[d]} curves, all statistics {n_all[d]}/{len(RATIO_STATISTICS) * nl[d]}"
                        for d in kbc)
    curves, total = int(sum(n_lr.values())), sum(nl.values())
    return Claim("monotone", "KS grows (almost) monotonically with abs(σ_C − σ_A)", "§5.1, Fig. 4(a)", numbers,
                 verdict(curves, total), {"monotone_curves": curves, "monotone_total": total})


def q1_larger_sigma(kbc, *, sigma_c, sigma_a):
    """Claim 2: sometimes a larger sigma_C is more accurate than a smaller one (§5.1).

    Rule: over the pairs of bandwidths at the same number of grid steps below and above sigma_A
    (sigma_A ± delta on a symmetric grid) and all lambda, count the pairs where the larger
    bandwidth has the smaller LR KS; the claim holds if there is at least one.

    Examples
    --------
    >>> ks = {"mog8": {"lr": [[0.3, 0.0, 0.2], [0.5, 0.0, 0.6]]}}
    >>> c = q1_larger_sigma(ks, sigma_c=(0.05, 0.1, 0.15), sigma_a=0.1)
    >>> c.verdict, c.details
    ('holds', {'larger_wins': 1, 'pairs': 2})
    """
    ia, _ = exact_column(sigma_c, sigma_a)
    pairs = [(ia - s, ia + s) for s in range(1, min(ia, len(sigma_c) - 1 - ia) + 1)]
    lr = {d: _kbc(kbc, d, "lr", sigma_c) for d in kbc}
    wins = {d: sum(int(ks[lo] > ks[hi]) for ks in lr[d] for lo, hi in pairs) for d in kbc}
    n_pairs = {d: len(pairs) * lr[d].shape[0] for d in kbc}
    total = sum(n_pairs.values())
    v = verdict(min(sum(wins.values()), 1), min(total, 1))  # "sometimes": one win is enough
    numbers = "; ".join(f"{name(d)}: larger wins {wins[d]}/{n_pairs[d]} pairs" for d in kbc)
    return Claim("larger_sigma", "sometimes a larger σ_C is more accurate than a smaller one", "§5.1", numbers, v,
                 {"larger_wins": int(sum(wins.values())), "pairs": total})


def q1_lambda(kbc, *, lambdas, sigma_c, sigma_a):
    """Claim 3: a larger lambda gives a better estimate (§5.1, App. D.1).

    Rule: for each sigma_C != sigma_A, Kendall's tau between lambda and the LR KS is negative.

    Examples
    --------
    >>> ks = {"mog8": {"lr": [[0.5, 0.0, 0.2], [0.3, 0.0, 0.3], [0.1, 0.0, 0.4]]}}
    >>> q1_lambda(ks, lambdas=(0.5, 0.7, 0.9), sigma_c=(0.05, 0.1, 0.15), sigma_a=0.1).verdict
    'partly'
    """
    _, off = exact_column(sigma_c, sigma_a)
    neg, numbers = lambda_trend(kbc, lambdas, sigma_c, off)
    return Claim("lambda", "larger λ gives better estimation", "§5.1, App. D.1", numbers,
                 verdict(sum(neg.values()), len(kbc) * len(off)))


def q1_knn(kbc, knn, *, lambdas, knn_lambdas, knn_k, sigma_c, fig3=(0.075, 0.125), k_max=20):
    """Claim 4: kNN with a small k performs similarly to KBC (§5.1, Fig. 3).

    Rule: at each lambda of the kNN runs, the best LR KS over k <= ``k_max`` is no larger than
    the worse of the two KBCs of Fig. 3 (sigma_C in ``fig3``).

    Examples
    --------
    >>> kbc = {"mog8": {"lr": [[0.3, 0.2], [0.2, 0.1]]}}
    >>> knn = {"mog8": {"lr": [[0.25, 0.6], [0.5, 0.4]]}}
    >>> c = q1_knn(kbc, knn, lambdas=(0.6, 0.8), knn_lambdas=(0.6, 0.8), knn_k=(5, 10),
    ...            sigma_c=(0.075, 0.125))
    >>> c.verdict, c.details["knn_ok_mog8"]
    ('partly', 1)
    """
    small = [j for j, k in enumerate(knn_k) if k <= k_max]
    if not small:
        raise ValueError(f"no k <= {k_max} in knn_k={tuple(knn_k)}: the claim is about small k")
    cols = [index(sigma_c, s, "the Fig. 3 bandwidth") for s in fig3]
    rows = [index(lambdas, lam, "the kNN run's lambda") for lam in knn_lambdas]
    nk = len(knn_lambdas)
    ok = {}
    for d in knn:
        kb = table(kbc, d, "lr", (len(lambdas), len(sigma_c)), "KBC")
        kn = table(knn, d, "lr", (nk, len(knn_k)), "kNN")
        ok[d] = [kn[i, small].min() <= kb[rows[i], cols].max() for i in range(nk)]
    numbers = "; ".join(f"{name(d)}: best kNN (k ≤ {k_max}) within the KBC range at {sum(ok[d])}/{nk} λ"
                        for d in knn)
    return Claim("knn", f"kNN with k ≤ {k_max} performs similarly to KBC", "§5.1, Fig. 3", numbers,
                 verdict(sum(map(sum, ok.values())), len(knn) * nk),
                 {**{f"knn_ok_{d}": int(sum(ok[d])) for d in knn}, "n_knn_lams": nk})


def _stat_means(kbc, sigma_c, sigma_a):
    """Mean KS over sigma_C != sigma_A, per data set, statistic and lambda."""
    _, off = exact_column(sigma_c, sigma_a)
    return {d: {s: mean_off(_kbc(kbc, d, s, sigma_c), off) for s in RATIO_STATISTICS} for d in kbc}


def q1_phi_order(kbc, *, sigma_c, sigma_a):
    """Claim 5: most accurate under KL (t log t), least under Hellinger (App. D.1).

    Rule: at each lambda, of the four statistics' KS averaged over sigma_C != sigma_A, ASC
    t log t has the smallest and ASC Hellinger the largest.

    Examples
    --------
    >>> ks = {"mog8": {"lr": [[0.3, 0.0, 0.3]], "asc-log": [[0.2, 0.0, 0.2]],
    ...                "asc-tlogt": [[0.1, 0.0, 0.1]], "asc-hellinger": [[0.4, 0.0, 0.4]]}}
    >>> q1_phi_order(ks, sigma_c=(0.05, 0.1, 0.15), sigma_a=0.1).verdict
    'holds'
    """
    mean_ks = _stat_means(kbc, sigma_c, sigma_a)
    best = {d: [min(RATIO_STATISTICS, key=lambda s: m[s][i]) for i in range(len(m["lr"]))] for d, m in mean_ks.items()}
    worst = {d: [max(RATIO_STATISTICS, key=lambda s: m[s][i]) for i in range(len(m["lr"]))] for d, m in mean_ks.items()}
    ok = {d: [b == "asc-tlogt" and w == "asc-hellinger" for b, w in zip(best[d], worst[d])] for d in kbc}
    n_cases = sum(len(o) for o in ok.values())
    numbers = "; ".join(f"{name(d)}: at {sum(ok[d])}/{len(ok[d])} λ" for d in kbc)
    details = {"hell_worst": sum(w.count("asc-hellinger") for w in worst.values()), "n_cases": n_cases,
               **{f"lr_best_{d}": best[d].count("lr") for d in kbc}}
    return Claim("phi", "most accurate under KL (t log t), least under Hellinger", "App. D.1", numbers,
                 verdict(sum(map(sum, ok.values())), n_cases), details)


def q1_ckb_exception(kbc, *, lambdas, sigma_c, sigma_a, lam=0.9):
    """Claim 6: on CKB-8 at lambda = 0.9, LR and ASC log are accurate, t log t less so (App. D.2).

    Rule: at ``lam`` on CKB-8, the KS of ASC t log t averaged over sigma_C != sigma_A exceeds
    those of LR and ASC log.

    Examples
    --------
    >>> ks = {"ckb8": {"lr": [[0.1, 0.0, 0.1]], "asc-log": [[0.1, 0.0, 0.2]],
    ...                "asc-tlogt": [[0.3, 0.0, 0.3]], "asc-hellinger": [[0.4, 0.0, 0.4]]}}
    >>> q1_ckb_exception(ks, lambdas=(0.9,), sigma_c=(0.05, 0.1, 0.15), sigma_a=0.1).verdict
    'holds'
    """
    need(kbc, ("ckb8",), "KBC")
    i = index(lambdas, lam, "lambda")
    m = {s: v[i] for s, v in _stat_means({"ckb8": kbc["ckb8"]}, sigma_c, sigma_a)["ckb8"].items()}
    v = verdict(int(m["asc-tlogt"] > max(m["lr"], m["asc-log"])), 1)
    return Claim("ckb_exception", f"CKB-8, λ = {lam:g}: LR and ASC log accurate, t log t less so", "App. D.2",
                 f"mean KS: LR {m['lr']:.3f}, log {m['asc-log']:.3f}, t log t {m['asc-tlogt']:.3f}", v)


def q1_ckb_harder(kbc, *, sigma_c, sigma_a):
    """Claim 7: CKB-8 is harder than MoG-8 (App. D.2).

    Rule: for each statistic, the KS averaged over all lambda and sigma_C != sigma_A is larger on
    CKB-8 than on MoG-8. The claim holds when that is so for every statistic, holds partly when it
    is so for at least half of them, and does not hold when MoG-8 is the harder data set for most
    statistics (one statistic out of four is not "partly harder").

    Examples
    --------
    >>> mog = {s: [[0.1, 0.0, 0.1]] for s in RATIO_STATISTICS}
    >>> ckb = {s: [[0.2, 0.0, 0.2]] for s in RATIO_STATISTICS}
    >>> c = q1_ckb_harder({"mog8": mog, "ckb8": ckb}, sigma_c=(0.05, 0.1, 0.15), sigma_a=0.1)
    >>> c.verdict, c.details["easier_stats"]
    ('holds', 'none')
    >>> ckb["lr"] = ckb["asc-log"] = ckb["asc-tlogt"] = [[0.05, 0.0, 0.05]]   # harder for Hellinger only
    >>> q1_ckb_harder({"mog8": mog, "ckb8": ckb}, sigma_c=(0.05, 0.1, 0.15), sigma_a=0.1).verdict
    'does not hold'
    """
    need(kbc, ("mog8", "ckb8"), "KBC")
    means = _stat_means({d: kbc[d] for d in ("mog8", "ckb8")}, sigma_c, sigma_a)
    avg = {d: {s: means[d][s].mean() for s in RATIO_STATISTICS} for d in means}
    harder = [s for s in RATIO_STATISTICS if avg["ckb8"][s] > avg["mog8"][s]]
    numbers = ", ".join(f"{STATISTICS[s].label}: {avg['mog8'][s]:.2f} (MoG) vs {avg['ckb8'][s]:.2f} (CKB)"
                        for s in RATIO_STATISTICS)
    details = {"lr_mean_mog8": float(avg["mog8"]["lr"]), "lr_mean_ckb8": float(avg["ckb8"]["lr"]),
               "harder_stats": ", ".join(STATISTICS[s].label for s in harder) or "none",
               "easier_stats": ", ".join(STATISTICS[s].label for s in RATIO_STATISTICS if s not in harder) or "none"}
    judged = verdict(len(harder), len(RATIO_STATISTICS)) if 2 * len(harder) >= len(RATIO_STATISTICS) else "does not hold"
    numbers = f"CKB-8 harder for {len(harder)} of {len(RATIO_STATISTICS)} statistics; " + numbers
    return Claim("ckb_harder", "CKB-8 is harder than MoG-8", "App. D.2", numbers, judged, details)
