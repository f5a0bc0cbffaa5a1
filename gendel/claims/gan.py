"""The claims of §5.2 and Appendix E (the GAN half), checked on result files of the GAN jobs.

Each ``claim_*`` function turns the numbers of :mod:`gendel.gan.report` into a :class:`Claim`
with a verdict; :func:`claims` checks them all. :mod:`gendel.gan.report` re-exports these names.
This module is not imported by :mod:`gendel.claims` itself, so the 2-D chapters do not load the
GAN half.
"""

from __future__ import annotations

from collections import defaultdict

import numpy as np

from gendel.gan.report import STATISTICS, costs, group, ks_table, label_summary
from gendel.claims.base import NOT_RESOLVED, Claim, verdict

#: A difference is resolved when it exceeds this many standard errors (about 95 % two-sided).
Z = 2.0


def _claim(key, where, text, numbers, v):
    """A claim of the GAN half (its arguments in the order of the tables)."""
    return Claim(key, text, where, numbers, v)


def margin_verdict(differences, margins):
    """The verdict of a claim that a difference is positive in every case, with noise margins.

    A case passes when its difference exceeds its margin, fails when it is below minus its
    margin, and is not resolved in between. "holds" when every case passes, "partly" when some
    do, "does not hold" when none passes and some fail, :data:`NOT_RESOLVED` when no case is
    resolved either way, "not tested" without a case.

    Examples
    --------
    >>> margin_verdict([0.0001], [0.005]), margin_verdict([0.05], [0.005])
    ('not resolved at this sample size', 'holds')
    >>> margin_verdict([0.05, 0.0], [0.005, 0.005]), margin_verdict([-0.05, 0.0], [0.005, 0.005])
    ('partly', 'does not hold')
    """
    d, m = np.asarray(differences, float), np.asarray(margins, float)
    if d.shape != m.shape or np.any(m < 0):
        raise ValueError("need one non-negative margin per difference")
    passed, failed = int(np.sum(d > m)), int(np.sum(d < -m))
    if d.size and passed == 0 and failed == 0:
        return NOT_RESOLVED
    return verdict(passed, d.size)


def _ks(h0, h1):
    """Two-sample KS statistic of the rows of ``h0`` against those of ``h1`` (last axis: values)."""
    grid = np.concatenate([h0, h1], axis=-1)
    cdf = lambda a: (np.sort(a, axis=-1)[..., None, :] <= grid[..., :, None]).mean(axis=-1)  # noqa: E731
    return np.abs(cdf(h0) - cdf(h1)).max(axis=-1)


def ks_bootstrap(results, n_boot=400, seed=0):
    """Bootstrap replicates of the KS table: {key: {stat: (n_boot,) KS, mean over the seeds}}.

    The R stored statistic values under H0 and under H1 of each seed are resampled with
    replacement (the same repeats for every statistic, so LR and ASC stay paired) and the KS
    between them recomputed; their spread is the sampling noise of :func:`ks_table`.

    Examples
    --------
    >>> r = {"job": {"dataset": "mnist", "setting": "even", "lam": 0.7, "seed": 0},
    ...      "q3": {"values": {s: {"H0": [0.0, 0.1, 0.2, 0.9], "H1": [0.8, 1.0, 1.1, 1.2]} for s in STATISTICS}}}
    >>> b = ks_bootstrap([r], n_boot=200)[("mnist", "even", 0.7)]["LR"]
    >>> b.shape, bool(b.std() > 0), float(b.max())
    ((200,), True, 1.0)
    """
    rng = np.random.default_rng(seed)
    out = {}
    for key, rs in group(results).items():
        per_seed = []
        for r in rs:
            values = r["q3"]["values"]
            n0, n1 = len(values["LR"]["H0"]), len(values["LR"]["H1"])
            i0, i1 = rng.integers(0, n0, (n_boot, n0)), rng.integers(0, n1, (n_boot, n1))
            per_seed.append({s: _ks(np.asarray(values[s]["H0"], float)[i0], np.asarray(values[s]["H1"], float)[i1])
                             for s in STATISTICS})
        out[key] = {s: np.mean([p[s] for p in per_seed], axis=0) for s in STATISTICS}
    return out


def _toy(dataset="mnist", setting="even", lr=40, asc=30, R=40):
    """A constructed Q3 result: H1 is H0 (0, ..., R − 1) shifted by ``lr`` (LR) or ``asc`` (both
    ASC), so that the KS of each statistic is shift / R."""
    shifts = {"LR": lr, "ASC log": asc, "ASC tlogt": asc}
    values = {s: {"H0": np.arange(R) * 1.0, "H1": np.arange(R) + float(k)} for s, k in shifts.items()}
    return {"job": {"dataset": dataset, "setting": setting, "lam": 0.7, "seed": 0},
            "q3": {"values": values, "ks": {s: min(k, R) / R for s, k in shifts.items()}}}


def _signed(x, digits=2):
    """``x`` with its sign and a true minus sign: +0.04, −0.09."""
    return f"{x:+.{digits}f}".replace("-", "−")


def _margin(*replicates):
    """``Z`` standard errors of the first replicate array minus the sum of the others (independent)."""
    return Z * float(np.sqrt(sum(np.var(b, ddof=1) for b in replicates)))


def _name(s):
    return f"{s.dataset} {s.setting}-{s.lam:g}"


def claim_fewer_deleted_labels(summaries):
    """Fig. 7, App. E.2/E.3: the approximated model generates fewer of the deleted labels.

    Examples
    --------
    >>> r = {"job": {"dataset": "mnist", "setting": "even", "lam": 0.5, "seed": 0},
    ...      "labels": {"pre": [100] * 10, "re": [50, 100] * 5, "approx": [60, 100] * 5}}
    >>> c = claim_fewer_deleted_labels(label_summary([r]))
    >>> c.verdict, c.numbers.split(": ", 1)[1]
    ('holds', 'mnist even-0.5: 0.500 → 0.375 (re-trained 0.333)')
    """
    ok = [s for s in summaries if s.deleted_mass["approx"].mean() < s.deleted_mass["pre"].mean()]
    ev = "; ".join(f"{_name(s)}: {s.deleted_mass['pre'].mean():.3f} → {s.deleted_mass['approx'].mean():.3f} "
                   f"(re-trained {s.deleted_mass['re'].mean():.3f})" for s in summaries)
    return _claim("fewer_deleted_labels",
                  "Fig. 7(a)(b), App. E", "the approximated model generates fewer of the deleted labels",
                  f"mass on the deleted labels, pre-trained → approximated: {ev}", verdict(len(ok), len(summaries)))


def claim_close_to_retrained(summaries, threshold=0.5):
    """Fig. 7 caption: the approximated distribution is close to the re-trained one, read as:
    fast deletion closes at least half of the TV gap between pre-trained and re-trained.

    Examples
    --------
    >>> r = {"job": {"dataset": "mnist", "setting": "even", "lam": 0.5, "seed": 0},
    ...      "labels": {"pre": [100] * 10, "re": [50, 100] * 5, "approx": [60, 100] * 5}}
    >>> s = label_summary([r])                          # 75% of the TV gap closed
    >>> claim_close_to_retrained(s).verdict, claim_close_to_retrained(s, threshold=0.8).verdict
    ('holds', 'does not hold')
    """
    ok = [s for s in summaries if s.gap_closed.mean() >= threshold]
    ev = "; ".join(f"{_name(s)}: {s.gap_closed.mean():.0%}" for s in summaries)
    return _claim("close_to_retrained",
                  "Fig. 7 caption", "the approximated model's label distribution is close to the re-trained one",
                  f"fraction of the TV gap closed (≥ {threshold:.0%} counts as close): {ev}",
                  verdict(len(ok), len(summaries)))


def claim_odd_variance_higher(summaries):
    """App. E.2/E.3: the variance (over seeds) is higher when deleting odd labels.

    Compared: the standard error over the n seeds of the approximated label distribution,
    averaged over the ten labels. An SE estimated from n seeds is itself noisy: its standard
    error is about SE / √(2·dof), with dof = 9 (n − 1) (ten proportions that sum to one). The
    difference odd − even is resolved when it exceeds ``Z`` times the standard error of the
    difference.

    Examples
    --------
    >>> def result(setting, seed, approx):
    ...     return {"job": {"dataset": "mnist", "setting": setting, "lam": 0.7, "seed": seed},
    ...             "labels": {"pre": [100] * 10, "re": [100] * 10, "approx": approx}}
    >>> rs = [result("even", 0, [70, 100] * 5), result("even", 1, [72, 100] * 5),
    ...       result("odd", 0, [100, 60] * 5), result("odd", 1, [100, 90] * 5)]
    >>> claim_odd_variance_higher(label_summary(rs)).verdict
    'holds'
    """
    diffs, margins, ev = [], [], []
    by = {(s.dataset, s.lam, s.setting): s for s in summaries if s.seeds > 1}
    for (dataset, lam, setting), s in by.items():
        if setting != "even" or (dataset, lam, "odd") not in by:
            continue
        odd = by[(dataset, lam, "odd")]
        e, o = np.nanmean(s.sem["approx"]), np.nanmean(odd.sem["approx"])
        se_e, se_o = e / np.sqrt(18 * (s.seeds - 1)), o / np.sqrt(18 * (odd.seeds - 1))
        diffs.append(o - e)
        margins.append(Z * np.hypot(se_e, se_o))
        ev.append(f"{dataset} λ = {lam:g}: mean SE even {e:.4f}, odd {o:.4f}, "
                  f"odd − even {_signed(o - e, 4)} ± {margins[-1]:.4f}")
    return _claim("odd_variance_higher", "App. E.2, E.3", "the variance over seeds is higher when deleting odd labels",
                  "; ".join(ev) or "needs two seeds and both settings", margin_verdict(diffs, margins))


def claim_separation(results, threshold=0.9):
    """Fig. 7(c), App. E: ρ̂_ℰ distinguishes Y_H0 from Y_H1 (KS of the LR ≥ ``threshold``).

    Examples
    --------
    >>> def result(setting, lr):
    ...     return {"job": {"dataset": "mnist", "setting": setting, "lam": 0.7, "seed": 0},
    ...             "q3": {"ks": {"LR": lr, "ASC log": 0.8, "ASC tlogt": 0.8}}}
    >>> claim_separation([result("even", 0.95), result("odd", 0.6)]).verdict
    'partly'
    """
    table = ks_table(results)
    ok = [k for k, v in table.items() if v["LR"] >= threshold]
    ev = "; ".join(f"{d} {s}-{lam:g}: {v['LR']:.2f}" for (d, s, lam), v in table.items())
    return _claim("separation", "Fig. 7(c), App. E", "the LR distributions under H0 and H1 are separated",
                  f"KS of LR(Y_H0) vs LR(Y_H1) (≥ {threshold} counts as separated): {ev}",
                  verdict(len(ok), len(table)))


def claim_lr_better_than_asc(results):
    """App. E.2: the LR separates slightly better than ASC (KS of LR above the KS of each ASC).

    A case passes when KS(LR) − KS(ASC) exceeds ``Z`` bootstrap standard errors of that
    difference (:func:`ks_bootstrap`, LR and ASC paired on the same repeats) for both ASC
    statistics, fails when it is below minus the margin for either, and is otherwise not resolved.

    Examples
    --------
    On constructed results (:func:`_toy`: KS of LR 1.0 against 0.5 for ASC, then 0.525 against 0.5):

    >>> claim_lr_better_than_asc([_toy(lr=40, asc=20)]).verdict
    'holds'
    >>> claim_lr_better_than_asc([_toy(lr=21, asc=20)]).verdict
    'not resolved at this sample size'
    """
    table, boot = ks_table(results), ks_bootstrap(results)
    diffs, margins, ev = [], [], []
    for (d, s, lam), v in table.items():
        b = boot[(d, s, lam)]
        pair = [(v["LR"] - v[a], _margin(b["LR"] - b[a])) for a in ("ASC log", "ASC tlogt")]
        # +1: LR beats both ASC statistics beyond the margin; -1: it loses to one; 0: not resolved
        diffs.append(min(np.sign(dd) if abs(dd) > mm else 0.0 for dd, mm in pair))
        margins.append(0.5)
        ev.append(f"{d} {s}-{lam:g}: LR {v['LR']:.2f}, ASC {v['ASC log']:.2f} / {v['ASC tlogt']:.2f}, "
                  f"LR − ASC {_signed(pair[0][0])} ± {pair[0][1]:.2f} / {_signed(pair[1][0])} ± {pair[1][1]:.2f}")
    return _claim("lr_better_than_asc",
                  "App. E.2", "LR separates slightly better than ASC", f"KS (LR, ASC log / t log t): {'; '.join(ev)}",
                  margin_verdict(diffs, margins))


def claim_odd_separates_better(results):
    """App. E.2 (MNIST): the separation for odd-λ is better than for even-λ.

    The difference of the two KS values is resolved when it exceeds ``Z`` bootstrap standard
    errors (:func:`ks_bootstrap`; the two deletion sets are independent).

    Examples
    --------
    KS of LR 0.5 (even) against 1.0 (odd) with R = 40 repeats, then 0.5 against 0.525:

    >>> claim_odd_separates_better([_toy(setting="even", lr=20), _toy(setting="odd", lr=40)]).verdict
    'holds'
    >>> c = claim_odd_separates_better([_toy(setting="even", lr=20), _toy(setting="odd", lr=21)])
    >>> c.verdict, c.numbers.split("odd − ")[1][:9]
    ('not resolved at this sample size', 'even +0.0')
    """
    table, boot = ks_table(results), ks_bootstrap(results)
    cases = [(d, lam) for (d, s, lam) in table if s == "even" and (d, "odd", lam) in table]
    diffs = [table[(d, "odd", lam)]["LR"] - table[(d, "even", lam)]["LR"] for d, lam in cases]
    margins = [_margin(boot[(d, "odd", lam)]["LR"], boot[(d, "even", lam)]["LR"]) for d, lam in cases]
    ev = "; ".join(f"{d} λ = {lam:g}: even {table[(d, 'even', lam)]['LR']:.2f}, odd {table[(d, 'odd', lam)]['LR']:.2f}, "
                   f"odd − even {_signed(x)} ± {m:.2f}" for (d, lam), x, m in zip(cases, diffs, margins))
    return _claim("odd_separates_better", "App. E.2", "the separation for odd-λ is better than for even-λ",
                  f"KS of LR: {ev or 'needs both settings'}", margin_verdict(diffs, margins))


def claim_smaller_lambda_not_more_separation(results):
    """App. E.2: a smaller λ does not lead to more separation (KS not decreasing in λ).

    Examples
    --------
    >>> def result(lam, lr):
    ...     return {"job": {"dataset": "mnist", "setting": "even", "lam": lam, "seed": 0},
    ...             "q3": {"ks": {"LR": lr, "ASC log": 0.8, "ASC tlogt": 0.8}}}
    >>> claim_smaller_lambda_not_more_separation([result(0.6, 0.9), result(0.8, 0.95)]).verdict
    'holds'
    >>> claim_smaller_lambda_not_more_separation([result(0.6, 0.99), result(0.8, 0.9)]).verdict
    'does not hold'
    """
    table = ks_table(results)
    series = defaultdict(dict)
    for (d, s, lam), v in table.items():
        series[(d, s)][lam] = v["LR"]
    cases = {k: v for k, v in series.items() if len(v) > 1}
    ok = []
    ev = []
    for (d, s), v in cases.items():
        lams = sorted(v)
        ks = [v[lam] for lam in lams]
        increasing_in_separation_as_lambda_falls = all(a > b for a, b in zip(ks, ks[1:]))
        ok.append(not increasing_in_separation_as_lambda_falls)
        ev.append(f"{d} {s}: " + ", ".join(f"λ = {lam:g}: {k:.2f}" for lam, k in zip(lams, ks)))
    return _claim("smaller_lambda_not_more_separation", "App. E.2", "a smaller λ does not lead to more separation",
                  "; ".join(ev) or "needs several λ (the paper profile)", verdict(sum(ok), len(ok)))


def claim_fashion_harder(results):
    """App. E.3: the deletion test is harder on Fashion-MNIST than on MNIST (smaller KS).

    The difference of the two KS values is resolved when it exceeds ``Z`` bootstrap standard
    errors (:func:`ks_bootstrap`).

    Examples
    --------
    >>> claim_fashion_harder([_toy("mnist", lr=40), _toy("fashion-mnist", lr=20)]).verdict
    'holds'
    >>> claim_fashion_harder([_toy("mnist", lr=21), _toy("fashion-mnist", lr=20)]).verdict
    'not resolved at this sample size'
    """
    table, boot = ks_table(results), ks_bootstrap(results)
    pairs = [(s, lam) for (d, s, lam) in table if d == "mnist" and ("fashion-mnist", s, lam) in table]
    diffs = [table[("mnist", *p)]["LR"] - table[("fashion-mnist", *p)]["LR"] for p in pairs]
    margins = [_margin(boot[("mnist", *p)]["LR"], boot[("fashion-mnist", *p)]["LR"]) for p in pairs]
    ev = "; ".join(f"{s}-{lam:g}: MNIST {table[('mnist', s, lam)]['LR']:.2f}, "
                   f"Fashion-MNIST {table[('fashion-mnist', s, lam)]['LR']:.2f}, MNIST − Fashion-MNIST {_signed(x)} ± {m:.2f}"
                   for (s, lam), x, m in zip(pairs, diffs, margins))
    return _claim("fashion_harder", "App. E.3", "the deletion test is harder on Fashion-MNIST than on MNIST",
                  f"KS of LR: {ev or 'needs both data sets'}", margin_verdict(diffs, margins))


def claim_fast(results, factor=5.0):
    """§5.2 ("fast deletion"): fast deletion is at least ``factor`` times cheaper than re-training.

    The verdict is about the measured runs (the profile's epochs and m). The numbers also give
    the speed-up extrapolated to the paper's epochs and m (:meth:`gendel.gan.report.Cost.speedup_at`),
    which is not a run and does not enter the verdict.

    Examples
    --------
    >>> r = {"job": {"dataset": "mnist", "setting": "even", "lam": 0.7, "seed": 0},
    ...      "profile": {"m_labels": 1000, "gan_epochs": 10, "vdm_epochs": 5}, "hardware": {"device": "CPU"},
    ...      "timings": {"retrain": 100.0, "vdm": 10.0, "overhead_per_accepted": 0.001}}
    >>> c = claim_fast([r])                             # 100 s against 10 s + 1000 × 1 ms
    >>> c.verdict, c.numbers.split("; extrapolated")[0]
    ('holds', 'measured, re-training vs VDM + sampling overhead: mnist even-0.7: 100 s vs 11.0 s (9.1×)')
    >>> c.numbers.split("; ")[-1]
    "extrapolated to the paper's epochs and m = 50,000 (not a run, not in the verdict): 15.4×"
    """
    cs = costs(results)
    ok = [c for c in cs if c.speedup >= factor]
    ev = "; ".join(f"{c.dataset} {c.setting}-{c.lam:g}: {c.retrain:.0f} s vs {c.fast_deletion:.1f} s "
                   f"({c.speedup:.1f}×)" for c in cs)
    at = [c.speedup_at() for c in cs]
    extra = (f"; extrapolated to the paper's epochs and m = 50,000 (not a run, not in the verdict): "
             f"{min(at):.1f}×" + (f" to {max(at):.1f}×" if f"{max(at):.1f}" != f"{min(at):.1f}" else "")) if cs else ""
    return _claim("fast", "§5.2", f"deletion by Alg. 1 is fast (here: ≥ {factor:g}× cheaper than re-training, "
                  "as measured)", f"measured, re-training vs VDM + sampling overhead: {ev}{extra}",
                  verdict(len(ok), len(cs)))


def claims(results):
    """Every claim of §5.2 and Appendix E, checked on ``results``.

    Examples
    --------
    On the GPU run shipped with gendel (:func:`gendel.gan.protocol.stored_results`):

    >>> from gendel.gan.protocol import stored_results
    >>> table = claims(stored_results("gpu"))
    >>> len(table), table[0].where
    (9, 'Fig. 7(a)(b), App. E')
    """
    s = label_summary(results)
    return [claim_fewer_deleted_labels(s), claim_close_to_retrained(s), claim_odd_variance_higher(s),
            claim_separation(results), claim_lr_better_than_asc(results), claim_odd_separates_better(results),
            claim_smaller_lambda_not_more_separation(results), claim_fashion_harder(results), claim_fast(results)]
