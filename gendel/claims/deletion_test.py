"""The deletion test's claims: Q3 of §5.1 (KS tables) and the test as a decision (rejection rates).

Q3, deletion test (§5.1, Figs. 4(c) and 6, Appendix D): does the test work with rho_hat_E?

Each function checks one claim of the paper on KS tables of Q3 (see
:mod:`gendel.claims.synthetic`): the KS statistic between LR(Y_H0, rho_hat_E) and
LR(Y_H1, rho_hat_E), or the ASC statistics, per lambda and KBC bandwidth sigma_C (``kbc``) or
kNN k (``knn``). Here a large KS is good: the test "separates" H0 from H1 when the KS statistic
exceeds ``critical`` (:func:`gendel.claims.ks_critical`).

The second half holds the rules of the chapter on the deletion test as a decision: rejection
rates of :meth:`gendel.deletion_test.decision.DeletionTest.power` compared with their noise
(:func:`margin`, :func:`best_rivals`, :func:`lr_most_powerful`, :func:`beyond`, ...).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.stats import mannwhitneyu, norm

from gendel.claims.base import NOT_RESOLVED, Claim, verdict
from gendel.claims._tables import index, lambda_trend, name, need, table
from gendel.core.dre import FAMILY_LABELS
from gendel.deletion_test.calibration import PowerResult, binomial_interval
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


# ---------------------------------------------------------------------------------------------
# The deletion test as a decision (the chapter book/deletion_test/index.md): the rules on the
# rejection rates of DeletionTest.power. A rate is a PowerResult; its interval includes the
# spread of the null sample the tests share. Two rates differ when the gap exceeds
# z * sqrt(se_a^2 + se_b^2) (a conservative margin: rates of one page share draws).

_Z95 = float(norm.isf(0.025))


def margin(a, b, level=0.95):
    """The margin beyond which two rejection rates differ: z sqrt(se_a² + se_b²).

    ``a`` and ``b`` are :class:`~gendel.deletion_test.calibration.PowerResult` objects; their
    standard errors include the spread of their null samples.

    Examples
    --------
    >>> from gendel.deletion_test.calibration import PowerResult
    >>> a = PowerResult.from_rate(0.5, alpha=0.05, m=50, n_rep=300, null_sd=0.03, statistics=[], p_values=[])
    >>> round(margin(a, a), 3)   # 1.96 sqrt(2 (0.25 / 300 + 0.03²))
    0.115
    """
    z = float(norm.isf((1.0 - level) / 2.0))
    return z * float(np.hypot(a.standard_error, b.standard_error))


@dataclass(frozen=True)
class Rivalry:
    """LR against the other statistic with the highest rate at one setting (m, a DRE, ...).

    Examples
    --------
    >>> from gendel.deletion_test.calibration import PowerResult
    >>> rate = lambda r: PowerResult.from_rate(r, alpha=0.05, m=50, n_rep=300, null_sd=0.02, statistics=[], p_values=[])
    >>> rivals = best_rivals({"lr": [rate(0.3)], "asc-log": [rate(0.2)], "mmd": [rate(0.05)]}, [50])
    >>> rivals[0].rival, rivals[0].beaten
    ('asc-log', False)
    """

    setting: object
    lr: PowerResult
    rival: str
    other: PowerResult
    margin: float

    @property
    def beaten(self):
        """The rival's rate is above LR's by more than the margin."""
        return self.other.rate - self.lr.rate > self.margin


def best_rivals(curves, settings):
    """LR against its best rival at each setting: ``curves`` maps a statistic to one PowerResult per setting.

    Examples
    --------
    See :class:`Rivalry`.
    """
    if "lr" not in curves or len(curves) < 2:
        raise ValueError(f"curves must hold 'lr' and at least one other statistic; got {list(curves)}")
    out = []
    for i, setting in enumerate(settings):
        rival = max((s for s in curves if s != "lr"), key=lambda s: curves[s][i].rate)
        a, b = curves["lr"][i], curves[rival][i]
        out.append(Rivalry(setting, a, rival, b, margin(a, b)))
    return out


def lr_most_powerful(rivals, *, key="lr_best", where="§4; Neyman–Pearson"):
    """With the exact ratio no statistic beats LR: at no setting is the best rival above LR beyond the margin.

    Examples
    --------
    >>> from gendel.deletion_test.calibration import PowerResult
    >>> rate = lambda r: PowerResult.from_rate(r, alpha=0.05, m=50, n_rep=300, null_sd=0.0, statistics=[], p_values=[])
    >>> curves = {"lr": [rate(0.3), rate(0.3)], "asc-log": [rate(0.35), rate(0.6)]}
    >>> c = lr_most_powerful(best_rivals(curves, [50, 100]))
    >>> c.verdict, c.details
    ('partly', {'lr_best_beaten': 1, 'lr_best_settings': 2})
    """
    beaten = [r.setting for r in rivals if r.beaten]
    numbers = (f"LR beaten beyond the noise at {len(beaten)} of {len(rivals)} settings"
               + (f" ({', '.join(map(str, beaten))})" if beaten else ""))
    return Claim(key, "LR is the most powerful statistic", where, numbers,
                 verdict(len(rivals) - len(beaten), len(rivals)),
                 {f"{key}_beaten": len(beaten), f"{key}_settings": len(rivals)})


def more_samples(curves, sizes, *, factor=2, others=("asc-log", "asc-tlogt", "asc-hellinger")):
    """The ASC statistics need at least ``factor`` times the samples of LR for its power.

    Rule: for each ASC statistic and each m with ``factor * m`` in ``sizes``, its rate at
    factor * m is not above LR's at m by more than the margin.

    Examples
    --------
    >>> from gendel.deletion_test.calibration import PowerResult
    >>> rate = lambda r: PowerResult.from_rate(r, alpha=0.05, m=50, n_rep=300, null_sd=0.0, statistics=[], p_values=[])
    >>> curves = {"lr": [rate(0.3), rate(0.6)], "asc-log": [rate(0.1), rate(0.2)]}
    >>> more_samples(curves, (10, 20), others=("asc-log",)).verdict
    'holds'
    """
    pairs = [(s, m) for s in others for m in sizes if factor * m in sizes]
    if not pairs:
        raise ValueError(f"sizes {sizes} hold no m together with {factor} m")
    ahead = [(s, m) for s, m in pairs
             if (lambda a, b: b.rate - a.rate > margin(a, b))(curves["lr"][sizes.index(m)],
                                                              curves[s][sizes.index(factor * m)])]
    numbers = f"ASC at {factor}m above LR at m beyond the noise in {len(ahead)} of {len(pairs)} cases"
    return Claim("asc_samples", f"ASC needs at least {factor} times LR's samples", "§4 (our check)", numbers,
                 verdict(len(pairs) - len(ahead), len(pairs)), {"asc_ahead": len(ahead), "asc_pairs": len(pairs)})


def _side(low, high, threshold, above):
    """+1: the interval lies on the claimed side of the threshold, -1: on the other, 0: it straddles it."""
    if (low > threshold) if above else (high < threshold):
        return 1
    if (high < threshold) if above else (low > threshold):
        return -1
    return 0


def beyond(cases, threshold, *, above, key, text, where):
    """Each rate lies above (or below) ``threshold``, judged by its interval.

    ``cases`` maps a name to a PowerResult or to a tuple ``(rate, low, high)``. A case passes
    when its interval lies on the claimed side, fails when it lies on the other side and is
    unresolved when the interval contains the threshold. The verdict counts passes
    (:func:`~gendel.claims.base.verdict`), or is "not resolved at this sample size" when no
    case fails but some are unresolved.

    Examples
    --------
    >>> c = beyond({"a": (0.8, 0.7, 0.9), "b": (0.6, 0.45, 0.7)}, 0.5, above=True, key="most",
    ...            text="detected in most tests", where="§4")
    >>> c.verdict, c.details
    ('not resolved at this sample size', {'most_passed': 1, 'most_failed': 0, 'most_total': 2})
    """
    sides = {}
    for name_, case in cases.items():
        rate, low, high = (case.rate, case.low, case.high) if isinstance(case, PowerResult) else case
        sides[name_] = _side(low, high, threshold, above)
    passed = sum(v == 1 for v in sides.values())
    failed = [k for k, v in sides.items() if v == -1]
    unresolved = [k for k, v in sides.items() if v == 0]
    result = NOT_RESOLVED if unresolved and not failed else verdict(passed, len(sides))
    numbers = (f"{passed} of {len(sides)} rates {'above' if above else 'below'} {threshold:g} beyond the noise"
               + (f"; on the other side: {', '.join(map(str, failed))}" if failed else "")
               + (f"; undecided: {', '.join(map(str, unresolved))}" if unresolved else ""))
    return Claim(key, text, where, numbers, result,
                 {f"{key}_passed": passed, f"{key}_failed": len(failed), f"{key}_total": len(sides)})


def calibrated(rates, band):
    """The Monte-Carlo test is calibrated: every type-I error rate lies in the band of a calibrated test.

    ``rates`` maps a name to a PowerResult under H0 (tests sharing one null sample); ``band`` is
    :func:`~gendel.deletion_test.calibration.type_one_band` for their n_rep and n_null.

    Examples
    --------
    >>> c = calibrated({"a": (0.05, None, None), "b": (0.12, None, None)}, (0.017, 0.097))
    >>> c.verdict, c.details
    ('partly', {'n_inside': 1, 'n_rates': 2})
    """
    low, high = band
    rate = {k: (v.rate if isinstance(v, PowerResult) else v[0]) for k, v in rates.items()}
    inside = sum(low <= r <= high for r in rate.values())
    numbers = f"{inside} of {len(rate)} type-I error rates in the 99 % band {low:.3f}–{high:.3f}"
    return Claim("calibrated", "the Monte-Carlo test keeps its level", "§4 (our check)", numbers,
                 verdict(inside, len(rate)), {"n_inside": inside, "n_rates": len(rate)})


def at_most_level(rates, band, *, key, text, where="§4 (our check)"):
    """Each rate is no higher than a test that rejects at rate α reaches 99 times in 100 (``band[1]``).

    ``rates`` maps a name to a PowerResult of tests sharing one null sample; ``band`` is
    :func:`~gendel.deletion_test.calibration.type_one_band` for their n_rep and n_null: a
    statistic with no power (its law under the alternative is its law under H0) stays in it.

    Examples
    --------
    >>> c = at_most_level({"h = 1.5": (0.04, None, None), "h = 0.3": (0.02, None, None)}, (0.017, 0.097),
    ...                   key="mmd_level", text="MMD no better than α")
    >>> c.verdict, c.details
    ('holds', {'mmd_level_inside': 2, 'mmd_level_total': 2})
    """
    rate = {k: (v.rate if isinstance(v, PowerResult) else v[0]) for k, v in rates.items()}
    inside = sum(r <= band[1] for r in rate.values())
    numbers = (", ".join(f"{k}: {r:.3f}" for k, r in rate.items())
               + f"; a test that rejects at rate α stays at or below {band[1]:.3f} (99 %)")
    return Claim(key, text, where, numbers, verdict(inside, len(rate)),
                 {f"{key}_inside": inside, f"{key}_total": len(rate)})


def loses_power(reference, other, *, key, text, where):
    """Each statistic's rate in ``other`` is below its rate in ``reference`` by more than the margin.

    Both map a statistic to a PowerResult. Unresolved cases (gaps within the margin) make the
    verdict "not resolved at this sample size" unless some gap goes the other way.

    Examples
    --------
    >>> from gendel.deletion_test.calibration import PowerResult
    >>> rate = lambda r: PowerResult.from_rate(r, alpha=0.05, m=50, n_rep=300, null_sd=0.0, statistics=[], p_values=[])
    >>> c = loses_power({"lr": rate(0.5), "asc-log": rate(0.3)}, {"lr": rate(0.2), "asc-log": rate(0.25)},
    ...                 key="knn", text="the kNN DRE loses power", where="§5.1")
    >>> c.verdict, c.details["knn_passed"]
    ('not resolved at this sample size', 1)
    """
    cases = {}
    for s in reference:
        a, b = reference[s], other[s]
        gap, width = a.rate - b.rate, margin(a, b)
        cases[STATISTICS[s].label] = (gap, gap - width, gap + width)
    return beyond(cases, 0.0, above=True, key=key, text=text, where=where)


def within_noise(pairs, *, key="shift", text="the power does not move beyond the noise", where="§5.1 (our check)"):
    """Every pair of rates differs by at most its margin: ``pairs`` is a list of (PowerResult, PowerResult).

    Examples
    --------
    >>> from gendel.deletion_test.calibration import PowerResult
    >>> rate = lambda r: PowerResult.from_rate(r, alpha=0.05, m=50, n_rep=300, null_sd=0.03, statistics=[], p_values=[])
    >>> c = within_noise([(rate(0.35), rate(0.29)), (rate(0.35), rate(0.38))])
    >>> c.verdict, round(c.details["shift_max"], 2), round(c.details["shift_margin"], 2)
    ('holds', 0.06, 0.11)
    """
    gaps = [(abs(a.rate - b.rate), margin(a, b)) for a, b in pairs]
    inside = sum(g <= w for g, w in gaps)
    largest = max(g for g, _ in gaps)
    numbers = f"{inside} of {len(gaps)} differences within their margin; the largest is {largest:.2f}"
    return Claim(key, text, where, numbers, verdict(inside, len(gaps)),
                 {f"{key}_max": largest, f"{key}_margin": max(w for _, w in gaps)})


def auc_standard_error(auc, n_null, n_alternative):
    """Hanley and McNeil's (1982) standard error of an AUC from n_null and n_alternative statistics.

    Examples
    --------
    >>> round(auc_standard_error(0.5, 500, 300), 4)   # sqrt((500 + 300 + 1) / (12 * 500 * 300)) at 0.5
    0.0211
    """
    q1, q2 = auc / (2.0 - auc), 2.0 * auc**2 / (1.0 + auc)
    var = (auc * (1 - auc) + (n_alternative - 1) * (q1 - auc**2) + (n_null - 1) * (q2 - auc**2)) / (n_null * n_alternative)
    return float(np.sqrt(max(var, 0.0)))


def largest_auc(aucs, sizes, *, key="auc_lr", text="LR has the largest AUC", where="§4 (our check)"):
    """No statistic's AUC is above LR's by more than z times the two AUCs' combined standard error.

    ``aucs`` maps a statistic to its AUC; ``sizes`` is (n_null, n_alternative).

    Examples
    --------
    >>> largest_auc({"lr": 0.8, "asc-log": 0.75, "mmd": 0.5}, (500, 300)).verdict
    'holds'
    """
    se = {s: auc_standard_error(a, *sizes) for s, a in aucs.items()}
    others = [s for s in aucs if s != "lr"]
    ahead = [s for s in others if aucs[s] - aucs["lr"] > _Z95 * np.hypot(se[s], se["lr"])]
    numbers = f"AUC of LR {aucs['lr']:.3f}; above it beyond the noise: {len(ahead)} of {len(others)} statistics"
    return Claim(key, text, where, numbers, verdict(len(others) - len(ahead), len(others)),
                 {f"{key}_ahead": len(ahead)})


def guesses(auc, sizes, *, key="auc_mmd", text="MMD detects the deletion no better than guessing",
            where="§4 (our check)"):
    """An AUC within z standard errors (of an AUC of 0.5) of 0.5: the test does no better than a coin.

    Examples
    --------
    >>> c = guesses(0.471, (500, 300))
    >>> c.verdict, round(c.details["auc_mmd_err"], 3)
    ('holds', 0.041)
    """
    err = _Z95 * auc_standard_error(0.5, *sizes)
    return Claim(key, text, where, f"AUC {auc:.3f}, 0.5 ± {err:.3f}", "holds" if abs(auc - 0.5) <= err else "does not hold",
                 {f"{key}_value": float(auc), f"{key}_err": err})


def shares(k, n):
    """A share k / n of independent outcomes with its exact 95 % interval: ``(rate, low, high)``.

    Examples
    --------
    >>> [round(x, 3) for x in shares(0, 500)]
    [0.0, 0.0, 0.007]
    """
    return (k / n, *binomial_interval(k, n))


def agree_better(gaps_small, gaps_large, *, level=0.01, key="agree",
                 text="the asymptotic and Monte-Carlo p-values agree better at the larger m", where="App. C.1"):
    """The absolute gaps at the larger m are stochastically smaller (one-sided Mann–Whitney test at ``level``).

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> agree_better(rng.random(300), 0.5 * rng.random(300)).verdict
    'holds'
    """
    p = float(mannwhitneyu(np.abs(gaps_large), np.abs(gaps_small), alternative="less").pvalue)
    numbers = (f"median |gap| {np.median(np.abs(gaps_small)):.3g} → {np.median(np.abs(gaps_large)):.3g} "
               f"(Mann–Whitney p = {p:.2g})")
    return Claim(key, text, where, numbers, "holds" if p < level else NOT_RESOLVED, {f"{key}_p": p})
