"""The claims of §5.2 and Appendix E (the GAN half), checked on result files of the GAN jobs.

Each ``claim_*`` function turns the numbers of :mod:`gendel.gan.report` into a :class:`Claim`
with a verdict; :func:`claims` checks them all. :mod:`gendel.gan.report` re-exports these names.
This module is not imported by :mod:`gendel.claims` itself, so the 2-D chapters do not load the
GAN half.
"""

from __future__ import annotations

from collections import defaultdict

import numpy as np

from ..gan.report import costs, ks_table, label_summary
from . import Claim, verdict


def _claim(key, where, text, numbers, v):
    """A :class:`gendel.claims.Claim` of the GAN half (its arguments in the order of the tables)."""
    return Claim(key, text, where, numbers, v)


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
    cases, ev = 0, []
    passed = 0
    by = {(s.dataset, s.lam, s.setting): s for s in summaries if s.seeds > 1}
    for (dataset, lam, setting), s in by.items():
        if setting != "even" or (dataset, lam, "odd") not in by:
            continue
        odd = by[(dataset, lam, "odd")]
        e, o = np.nanmean(s.sem["approx"]), np.nanmean(odd.sem["approx"])
        cases += 1
        passed += o > e
        ev.append(f"{dataset} λ = {lam:g}: mean SE even {e:.4f}, odd {o:.4f}")
    return _claim("odd_variance_higher", "App. E.2, E.3", "the variance over seeds is higher when deleting odd labels",
                  "; ".join(ev) or "needs two seeds and both settings", verdict(passed, cases))


def claim_separation(results, threshold=0.9):
    """Fig. 7(c), App. E: ρ̂_E distinguishes Y_H0 from Y_H1 (KS of the LR ≥ ``threshold``).

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
    """App. E.2: the LR separates slightly better than ASC (KS of LR ≥ KS of each ASC).

    Examples
    --------
    >>> r = {"job": {"dataset": "mnist", "setting": "even", "lam": 0.7, "seed": 0},
    ...      "q3": {"ks": {"LR": 0.95, "ASC log": 0.9, "ASC tlogt": 0.85}}}
    >>> claim_lr_better_than_asc([r]).verdict
    'holds'
    """
    table = ks_table(results)
    ok = [k for k, v in table.items() if v["LR"] >= max(v["ASC log"], v["ASC tlogt"])]
    ev = "; ".join(f"{d} {s}-{lam:g}: LR {v['LR']:.2f}, ASC {v['ASC log']:.2f} / {v['ASC tlogt']:.2f}"
                   for (d, s, lam), v in table.items())
    return _claim("lr_better_than_asc",
                  "App. E.2", "LR separates slightly better than ASC", f"KS (LR, ASC log / t log t): {ev}",
                  verdict(len(ok), len(table)))


def claim_odd_separates_better(results):
    """App. E.2 (MNIST): the separation for odd-λ is better than for even-λ.

    Examples
    --------
    >>> def result(setting, lr):
    ...     return {"job": {"dataset": "mnist", "setting": setting, "lam": 0.7, "seed": 0},
    ...             "q3": {"ks": {"LR": lr, "ASC log": 0.8, "ASC tlogt": 0.8}}}
    >>> claim_odd_separates_better([result("even", 0.9), result("odd", 0.95)]).verdict
    'holds'
    """
    table = ks_table(results)
    cases = [(d, lam) for (d, s, lam) in table if s == "even" and (d, "odd", lam) in table]
    ok = [c for c in cases if table[(c[0], "odd", c[1])]["LR"] > table[(c[0], "even", c[1])]["LR"]]
    ev = "; ".join(f"{d} λ = {lam:g}: even {table[(d, 'even', lam)]['LR']:.2f}, odd {table[(d, 'odd', lam)]['LR']:.2f}"
                   for d, lam in cases)
    return _claim("odd_separates_better", "App. E.2", "the separation for odd-λ is better than for even-λ",
                  f"KS of LR: {ev or 'needs both settings'}", verdict(len(ok), len(cases)))


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

    Examples
    --------
    >>> def result(dataset, lr):
    ...     return {"job": {"dataset": dataset, "setting": "even", "lam": 0.7, "seed": 0},
    ...             "q3": {"ks": {"LR": lr, "ASC log": 0.8, "ASC tlogt": 0.8}}}
    >>> claim_fashion_harder([result("mnist", 1.0), result("fashion-mnist", 0.9)]).verdict
    'holds'
    """
    table = ks_table(results)
    pairs = [(s, lam) for (d, s, lam) in table if d == "mnist" and ("fashion-mnist", s, lam) in table]
    ok = [p for p in pairs if table[("fashion-mnist", *p)]["LR"] < table[("mnist", *p)]["LR"]]
    ev = "; ".join(f"{s}-{lam:g}: MNIST {table[('mnist', s, lam)]['LR']:.2f}, "
                   f"Fashion-MNIST {table[('fashion-mnist', s, lam)]['LR']:.2f}" for s, lam in pairs)
    return _claim("fashion_harder", "App. E.3", "the deletion test is harder on Fashion-MNIST than on MNIST",
                  f"KS of LR: {ev or 'needs both data sets'}", verdict(len(ok), len(pairs)))


def claim_fast(results, factor=5.0):
    """§5.2 ("fast deletion"): fast deletion is at least ``factor`` times cheaper than re-training.

    Examples
    --------
    >>> r = {"job": {"dataset": "mnist", "setting": "even", "lam": 0.7, "seed": 0},
    ...      "profile": {"m_labels": 1000, "gan_epochs": 10, "vdm_epochs": 5}, "hardware": {"device": "CPU"},
    ...      "timings": {"retrain": 100.0, "vdm": 10.0, "overhead_per_accepted": 0.001}}
    >>> c = claim_fast([r])                             # 100 s against 10 s + 1000 × 1 ms
    >>> c.verdict, c.numbers.split(": ", 1)[1]
    ('holds', 'mnist even-0.7: 100 s vs 11.0 s (9.1×)')
    """
    cs = costs(results)
    ok = [c for c in cs if c.speedup >= factor]
    ev = "; ".join(f"{c.dataset} {c.setting}-{c.lam:g}: {c.retrain:.0f} s vs {c.fast_deletion:.1f} s "
                   f"({c.speedup:.1f}×)" for c in cs)
    return _claim("fast", "§5.2", f"deletion by Alg. 1 is fast (here: ≥ {factor:g}× cheaper than re-training)",
                  f"re-training vs VDM + sampling overhead: {ev}", verdict(len(ok), len(cs)))


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
