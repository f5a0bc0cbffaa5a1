"""The rules of the chapter on the deletion test as a decision (``book/deletion_test/index.md``):
rejection rates of :meth:`gendel.deletion_test.decision.DeletionTest.power` compared with their
noise (:func:`margin`, :func:`best_rivals`, :func:`lr_most_powerful`, :func:`beyond`, ...). The
claims of Q3 on the §5.1 KS tables are in :mod:`gendel.claims.synthetic_q3`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.stats import mannwhitneyu, norm

from gendel.claims.base import NOT_RESOLVED, Claim, verdict
from gendel.deletion_test.calibration import PowerResult, binomial_interval
from gendel.deletion_test.stats import STATISTICS


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
