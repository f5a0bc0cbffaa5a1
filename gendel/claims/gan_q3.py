"""The claims of §5.2 and Appendix E on Q3 (the deletion test for a GAN), checked on the KS summaries
of GAN results with their noise, and the control calibration behind them.

The cases are counted by the rules of ``gendel.claims.base`` that the Q2 claims use
(:mod:`gendel.claims.gan_q2`): a one-sided t test over the seeds per case, Holm over the cases of a
claim, a verdict only beyond what chance gives, "one seed: not judged" for results of one seed.
Separation is one-sided, in the direction of deletion, and judged against the control, a second
pre-trained GAN: its critical value comes from the control draws of the data set's other deletion
sets (:func:`control_calibration`), not from the KS table. The comparisons of Appendix E.2 (MNIST)
and E.3 (Fashion-MNIST) use the two-sided KS of the chapter's figures and are checked on the data
set the paper names.
"""

from __future__ import annotations

import dataclasses
from collections import defaultdict

import numpy as np
from scipy import stats as _st

from gendel.claims.base import (CASE_LEVEL, Case, case_claim, case_outcome, claim_row, ks_critical, plus_minus, signed,
                                t_halfwidth, t_test)
from gendel.claims.gan_q2 import JUDGED
from gendel.deletion_test.stats import STATISTICS
from gendel.gan.images import DATASET_NAMES

#: A KS difference smaller than this is "slight" (App. E.2's "slightly", E.3's "no significant difference").
SLIGHT_KS = 0.1
#: What a claims table shows for a model that the results cannot judge because they hold no control GAN.
NO_CONTROL = "no control draws in this profile"


def _ks_by(ks, stat="lr"):
    return {(k.dataset, k.setting, k.lam): k for k in ks if k.stat == stat}


def _ks_seeds(ks):
    return max((len(k.seeds) for k in ks), default=0)


def one_sided_critical(R, level=CASE_LEVEL):
    """The asymptotic critical value of the one-sided two-sample KS test with ``R`` values on each
    side: ``sqrt(−ln(level) / R)`` (the KS table's, which assumes independent draws of one distribution).

    Examples
    --------
    >>> round(one_sided_critical(40), 3)
    0.274
    """
    return float(np.sqrt(-np.log(level) / int(R)))


def control_calibration(ks, stat="lr", *, n_boot=4000, rng=0):
    """The null of "separates beyond a re-training", from the control draws: for each deletion set,
    the one-sided KS(H0, control) of the other deletion sets of its data set (the control is a second
    pre-trained GAN: a model that deleted nothing). Returns ``{key: (critical, sorted null of a mean of
    n seeds)}``: the 95 % quantile of the mean over n seeds of control values drawn from that pool
    (n the case's seeds), and the draws themselves. Empty without controls.

    Examples
    --------
    >>> from gendel.gan.summaries import ks_summary
    >>> from gendel.gan.result_files import stored_results
    >>> control_calibration(ks_summary(stored_results("gpu")))       # results without a control
    {}
    """
    by = _ks_by(ks, stat)
    if not by or any(k.ks_up_control is None or not len(k.ks_up_control) for k in by.values()):
        return {}
    gen = np.random.default_rng(rng)
    out = {}
    for key, k in by.items():
        pool = np.concatenate([o.ks_up_control for other, o in by.items() if other != key and other[0] == key[0]])
        if not len(pool):
            continue
        n = len(k.seeds)
        null = np.sort(gen.choice(pool, size=(n_boot, n)).mean(axis=1))
        out[key] = (float(np.quantile(null, 1 - CASE_LEVEL)), null)
    return out


def control_rejection_rate(ks, stat="lr"):
    """How often the control, a second pre-trained GAN, "separates": the share of its jobs whose one-sided
    KS(H0, control) exceeds (a) the KS table's one-sided 5 % critical value and (b) the critical value
    calibrated on the other deletion sets' controls. ``(rate_table, rate_calibrated, jobs)``; NaNs
    without controls.

    Examples
    --------
    >>> from gendel.gan.summaries import ks_summary
    >>> from gendel.gan.result_files import stored_results
    >>> control_rejection_rate(ks_summary(stored_results("gpu")))
    (nan, nan, 0)
    """
    by = _ks_by(ks, stat)
    calibration = control_calibration(ks, stat)
    if not calibration:
        return float("nan"), float("nan"), 0
    table, calibrated, n = 0, 0, 0
    for key, k in by.items():
        pool = np.concatenate([o.ks_up_control for other, o in by.items() if other != key and other[0] == key[0]])
        single = float(np.quantile(pool, 1 - CASE_LEVEL))    # the critical value for one job
        for v in k.ks_up_control:
            n += 1
            table += v > one_sided_critical(k.R)
            calibrated += v > single
    return float(table / n), float(calibrated / n), n


def claim_separation(ks, stat="lr"):
    """Fig. 7(c), §5.2: ρ̂_ℰ clearly distinguishes samples of p̂ from samples of p̂′ ("in most cases").

    One-sided, in the direction of deletion (LR grows from H0 to H1): per deletion set the one-sided
    KS between the statistic's R values under H0 and under H1, averaged over the seeds, must exceed
    the 95 % quantile of the same mean for the control, a second pre-trained GAN on the same X, drawn
    from the control values of the data set's other deletion sets (:func:`control_calibration`): the
    test must separate the re-trained GAN beyond what it gives a mere re-training. Otherwise the
    case is "training noise"; it "fails" when H1 separates less than 95 % of the control draws do.
    Without controls (results of format version 1) the one-sided KS table's critical value stands
    in for the control's. The control itself is judged by the same rule (``details["rows"]``: doing
    nothing, another seed), and ``details["control_rate_table"]`` and ``["control_rate_calibrated"]``
    give how often one control job exceeds the KS table's and the calibrated critical value.

    Examples
    --------
    >>> from gendel.gan.summaries import KSSummary
    >>> def ks(dataset, setting, h1, control):
    ...     z = np.zeros(3)
    ...     return KSSummary(dataset, setting, 0.7, "lr", (0, 1, 2), 40, h1 + z, control + z, np.full(3, 0.05),
    ...                      h1 + np.array([0.0, 0.02, -0.02]), control + np.array([0.03, -0.03, 0.0]))
    >>> sets = [ks("mnist", s, 0.95, 0.2) for s in ("even", "odd")]
    >>> claim_separation(sets).verdict, claim_separation([ks("mnist", "even", 0.2, 0.9), sets[1]]).verdict
    ('holds', 'not distinguishable from training noise')
    """
    calibration = control_calibration(ks, stat)
    cases, control_cases = [], []
    for key, k in _ks_by(ks, stat).items():
        dataset, setting, lam = key
        up = k.ks_up if k.ks_up is not None else k.ks
        mean = float(np.mean(up))
        label = f"{DATASET_NAMES[dataset]} {setting}-{lam:g}"
        if key in calibration:
            critical, null = calibration[key]
            control = float(np.mean(k.ks_up_control))
            for value, out in ((mean, cases), (control, control_cases)):
                p = float((1 + np.sum(null >= value)) / (1 + len(null)))
                p_low = float((1 + np.sum(null <= value)) / (1 + len(null)))
                outcome = case_outcome(len(k.seeds) - 1, p, p_low, "training noise")
                out.append(Case(label, value, float("nan"), critical, outcome,
                                f"one-sided KS(H0, {'H1' if out is cases else 'control'}) {value:.2f} against the "
                                f"control's 95 % {critical:.2f} (the control's own mean {control:.2f})", p))
        else:
            critical = one_sided_critical(k.R)
            _, se, df, _, _ = t_test(up, floor=float(k.boot_se.mean()))
            p = float(_st.t.sf((mean - critical) / se, df)) if df >= 1 and se > 0 else float("nan")
            p_low = float(_st.t.cdf((mean - critical) / se, df)) if df >= 1 and se > 0 else float("nan")
            outcome = case_outcome(df, p, p_low)
            cases.append(Case(label, mean, float("nan"), critical, outcome,
                              f"one-sided KS(H0, H1) {mean:.2f} against the KS table's one-sided {critical:.2f} "
                              "(no control)", p))
    rate_table, rate_calibrated, jobs = control_rejection_rate(ks, stat)
    seeds = _ks_seeds(ks)
    rows = ({"control": claim_row(case_claim("separation", "", "", control_cases, seeds),
                                  JUDGED["control"].split(" (")[1].rstrip(")"))} if control_cases else None)
    return case_claim("separation", "Fig. 7(c), §5.2", "ρ̂_ℰ distinguishes samples of the pre-trained and the re-trained "
                  "model", cases, seeds, rows, control_rate_table=rate_table, control_rate_calibrated=rate_calibrated,
                  control_jobs=jobs)


def _paired(a, b):
    """Per seed KS(a) − KS(b) over the seeds both have, and the floor of its noise: the bootstraps', never
    less than one step 1/R of the KS (a KS of 1 in every bootstrap draw has no spread of its own)."""
    seeds = [x for x in a.seeds if x in b.seeds]
    diff = np.array([a.ks[a.seeds.index(x)] - b.ks[b.seeds.index(x)] for x in seeds])
    return diff, max(float(np.hypot(a.boot_se.mean(), b.boot_se.mean())), 1.0 / min(a.R, b.R))


def _difference_case(label, diff, floor, text):
    """A case that passes when the mean of ``diff`` (per seed) is above 0 by a one-sided t test."""
    mean, se, df, below, above = t_test(diff, floor=floor)
    hw = t_halfwidth(se, df)
    outcome = case_outcome(df, above, below)
    return Case(label, mean, hw, None, outcome, text.format(d=f"{signed(mean, 2)}{plus_minus(hw, 2)}"), above)


def claim_odd_separates_better(ks):
    """App. E.2 (MNIST): the separation for odd-λ is better than for even-λ (KS of LR), per λ: the mean
    over the seeds of KS(odd) − KS(even) (paired by seed) above 0 by a one-sided t test.

    Examples
    --------
    >>> from gendel.gan.summaries import KSSummary
    >>> k = lambda setting, v: KSSummary("mnist", setting, 0.7, "lr", (0, 1, 2), 40, np.array([v, v + 0.01, v - 0.01]),
    ...                                  np.array([]), np.full(3, 0.03))
    >>> claim_odd_separates_better([k("even", 0.5), k("odd", 0.9)]).verdict
    'holds'
    """
    by = _ks_by(ks)
    cases = []
    for (dataset, setting, lam), even in sorted(by.items()):
        if dataset != "mnist" or setting != "even" or (dataset, "odd", lam) not in by:
            continue
        odd = by[(dataset, "odd", lam)]
        diff, floor = _paired(odd, even)
        cases.append(_difference_case(f"MNIST λ = {lam:g}", diff, floor,
                                      f"two-sided KS even {even.mean:.2f}, odd {odd.mean:.2f}, odd − even {{d}}"))
    return case_claim("odd_separates_better", "App. E.2", "the separation for odd-λ is better than for even-λ (MNIST)", cases,
                  _ks_seeds(ks))


def _lr_minus_asc(ks, dataset):
    """Per deletion set of ``dataset``: (label, [(per-seed KS(LR) − KS(ASC_φ), floor, φ)], LR's summary)."""
    out = []
    lr = _ks_by(ks, "lr")
    for (d, setting, lam), k_lr in sorted(lr.items()):
        if d != dataset:
            continue
        diffs = []
        for stat in ("asc-log", "asc-tlogt"):
            k = _ks_by(ks, stat).get((d, setting, lam))
            if k is not None:
                diffs.append((*_paired(k_lr, k), stat))   # the same repeats: paired by seed
        if diffs:
            out.append((f"{DATASET_NAMES[d]} {setting}-{lam:g}", diffs, k_lr))
    return out


def claim_lr_better_than_asc(ks):
    """App. E.2 (MNIST): LR separates slightly better than ASC: KS(LR) − KS(ASC_φ) above 0 by a one-sided
    t test over the seeds for both φ (the case's p is the larger of the two); "fails" when one is below 0.

    Examples
    --------
    >>> from gendel.gan.summaries import KSSummary
    >>> k = lambda stat, v: KSSummary("mnist", "odd", 0.7, stat, (0, 1, 2), 40, np.array([v, v + 0.01, v - 0.02]),
    ...                               np.array([]), np.full(3, 0.03))
    >>> claim_lr_better_than_asc([k("lr", 0.9), k("asc-log", 0.7), k("asc-tlogt", 0.6)]).verdict
    'holds'
    """
    cases = []
    for label, diffs, k_lr in _lr_minus_asc(ks, "mnist"):
        tests = [(t_test(d, floor=f), s) for d, f, s in diffs]
        p = max(t[4] for t, _ in tests)
        fails = any(t[3] < CASE_LEVEL for t, _ in tests)
        outcome = case_outcome(min(t[2] for t, _ in tests), p, 0.0 if fails else 1.0)
        worst = min(tests, key=lambda ts: ts[0][0])[0]
        text = f"two-sided KS(LR) {k_lr.mean:.2f}; " + ", ".join(
            f"LR − {STATISTICS[s].label} {signed(t[0], 2)}{plus_minus(t_halfwidth(t[1], t[2]), 2)}" for t, s in tests)
        cases.append(Case(label, worst[0], t_halfwidth(worst[1], worst[2]), None, outcome, text, p))
    return case_claim("lr_better_than_asc", "App. E.2", "LR separates slightly better than ASC (MNIST)", cases, _ks_seeds(ks))


def claim_no_lr_asc_difference(ks, margin=SLIGHT_KS):
    """App. E.3 (Fashion-MNIST): there is no significant difference between LR and ASC, as an equivalence
    test: for both φ, two one-sided t tests over the seeds put the mean of KS(LR) − KS(ASC_φ) inside
    (−``margin``, ``margin``) (:data:`SLIGHT_KS`, a "slight" difference); "fails" when one difference is
    outside the margin by a one-sided t test.

    Examples
    --------
    >>> from gendel.gan.summaries import KSSummary
    >>> k = lambda stat, v: KSSummary("fashion-mnist", "odd", 0.7, stat, (0, 1, 2), 40, np.array(v),
    ...                               np.array([]), np.full(3, 0.01))
    >>> lr, log, tlogt = k("lr", [0.6, 0.65, 0.55]), k("asc-log", [0.59, 0.64, 0.56]), k("asc-tlogt", [0.61, 0.66, 0.55])
    >>> claim_no_lr_asc_difference([lr, log, tlogt]).verdict
    'holds'
    """
    cases = []
    for label, diffs, k_lr in _lr_minus_asc(ks, "fashion-mnist"):
        ps_close, ps_far, parts, dfs = [], [], [], []
        for d, f, s in diffs:
            mean, se, df, far_below, far_above = t_test(d, floor=f, margin=margin)
            dfs.append(df)
            if df >= 1 and se > 0:
                ps_close.append(max(float(_st.t.sf((mean + margin) / se, df)), float(_st.t.cdf((mean - margin) / se, df))))
            else:
                ps_close.append(float("nan"))
            ps_far.append(min(far_below, far_above))
            parts.append((mean, t_halfwidth(se, df), s))
        p = max(ps_close)
        outcome = case_outcome(min(dfs), p, min(ps_far))
        biggest = max(parts, key=lambda t: abs(t[0]))
        text = f"two-sided KS(LR) {k_lr.mean:.2f}; " + ", ".join(
            f"LR − {STATISTICS[s].label} {signed(m, 2)}{plus_minus(h, 2)}" for m, h, s in parts) + f" (margin ±{margin:.2f})"
        cases.append(Case(label, biggest[0], biggest[1], margin, outcome, text, p))
    return case_claim("no_lr_asc_difference", "App. E.3", "no significant difference between LR and ASC (Fashion-MNIST)",
                  cases, _ks_seeds(ks))


def claim_smaller_lambda_not_more_separation(ks):
    """App. E.2 (MNIST): a smaller λ does not lead to more separation.

    Per setting and seed: the least-squares slope of KS(LR) against λ over the deletion sets; the mean
    slope over the seeds is tested by a one-sided t test. The case fails where the slope is negative (a
    smaller λ, more deleted, separates better) and passes where it is positive (a smaller λ separates
    less). Needs at least two λ.

    Examples
    --------
    >>> from gendel.gan.summaries import KSSummary
    >>> k = lambda lam, v: KSSummary("mnist", "even", lam, "lr", (0, 1, 2), 40, np.array([v - 0.01, v, v + 0.01]),
    ...                              np.array([]), np.full(3, 0.02))
    >>> claim_smaller_lambda_not_more_separation([k(0.6, 0.5), k(0.7, 0.6), k(0.8, 0.7), k(0.9, 0.8)]).verdict
    'holds'
    >>> claim_smaller_lambda_not_more_separation([k(0.6, 0.99), k(0.7, 0.8), k(0.8, 0.6), k(0.9, 0.4)]).verdict
    'does not hold'
    """
    series = defaultdict(list)
    for (dataset, setting, lam), k in sorted(_ks_by(ks).items()):
        if dataset == "mnist":
            series[setting].append(k)
    cases = []
    for setting, ks_ in series.items():
        if len(ks_) < 2:
            continue
        lams = np.array([k.lam for k in ks_])
        seeds = sorted(set.intersection(*(set(k.seeds) for k in ks_)))
        slopes = [float(np.polyfit(lams, [k.ks[k.seeds.index(x)] for k in ks_], 1)[0]) for x in seeds]
        floor = float(np.mean([k.boot_se.mean() for k in ks_]) / np.sqrt(np.sum((lams - lams.mean()) ** 2)))
        case = _difference_case(f"MNIST {setting}", np.array(slopes), floor,
                                ", ".join(f"λ = {k.lam:g}: {k.mean:.2f}" for k in ks_) + "; slope {d} per unit λ")
        cases.append(case)
    return case_claim("smaller_lambda_not_more_separation", "App. E.2", "a smaller λ does not lead to more separation (MNIST)",
                  cases, _ks_seeds(ks))


def claim_fashion_lambda(ks):
    """App. E.3 (Fashion-MNIST): the separation is good for λ = 0.6 but not obvious for λ = 0.9.

    Per setting: KS(LR) at λ = 0.6 minus KS(LR) at λ = 0.9, paired by seed, above 0 by a one-sided t
    test, and KS at λ = 0.6 above the KS test's 5 % critical value.

    Examples
    --------
    >>> from gendel.gan.summaries import KSSummary
    >>> k = lambda lam, v: KSSummary("fashion-mnist", "even", lam, "lr", (0, 1, 2), 40, np.array([v, v - 0.02, v + 0.01]),
    ...                              np.array([]), np.full(3, 0.03))
    >>> claim_fashion_lambda([k(0.6, 0.9), k(0.9, 0.3)]).verdict
    'holds'
    """
    by = _ks_by(ks)
    cases = []
    for setting in ("even", "odd"):
        lo, hi = by.get(("fashion-mnist", setting, 0.6)), by.get(("fashion-mnist", setting, 0.9))
        if lo is None or hi is None:
            continue
        diff, floor = _paired(lo, hi)
        case = _difference_case(f"Fashion-MNIST {setting}", diff, floor,
                                f"two-sided KS at λ = 0.6: {lo.mean:.2f}, at λ = 0.9: {hi.mean:.2f}, difference {{d}}")
        if case.outcome == "passes" and not lo.mean > ks_critical(lo.R):
            case = dataclasses.replace(case, outcome="within noise")
        cases.append(case)
    return case_claim("fashion_lambda", "App. E.3", "on Fashion-MNIST the separation is good for λ = 0.6, not for λ = 0.9",
                  cases, _ks_seeds(ks))


def claim_fashion_harder(ks):
    """App. E.3: the deletion test is harder on Fashion-MNIST than on MNIST (smaller KS of LR), per
    deletion set present on both: KS(MNIST) − KS(Fashion-MNIST), paired by seed, above 0 by a
    one-sided t test.

    Examples
    --------
    >>> from gendel.gan.summaries import KSSummary
    >>> k = lambda d, v: KSSummary(d, "odd", 0.7, "lr", (0, 1, 2), 40, np.array([v, v + 0.02, v - 0.01]), np.array([]),
    ...                            np.full(3, 0.03))
    >>> claim_fashion_harder([k("mnist", 0.95), k("fashion-mnist", 0.6)]).verdict
    'holds'
    """
    by = _ks_by(ks)
    cases = []
    for (dataset, setting, lam), m in sorted(by.items()):
        f = by.get(("fashion-mnist", setting, lam))
        if dataset != "mnist" or f is None:
            continue
        diff, floor = _paired(m, f)
        cases.append(_difference_case(f"{setting}-{lam:g}", diff, floor,
                                      f"two-sided KS MNIST {m.mean:.2f}, Fashion-MNIST {f.mean:.2f}, difference {{d}}"))
    return case_claim("fashion_harder", "App. E.3", "the deletion test is harder on Fashion-MNIST than on MNIST", cases,
                  _ks_seeds(ks))


__all__ = ["NO_CONTROL", "SLIGHT_KS", "claim_fashion_harder", "claim_fashion_lambda", "claim_lr_better_than_asc",
           "claim_no_lr_asc_difference", "claim_odd_separates_better", "claim_separation",
           "claim_smaller_lambda_not_more_separation", "control_calibration", "control_rejection_rate",
           "one_sided_critical"]
