"""The claims of §5.2 and Appendix E (the GAN half), checked on GAN results with their noise.

Each ``claim_*`` function reads the summaries of :mod:`gendel.gan.report` and returns a
:class:`~gendel.claims.base.Claim` whose ``details["cases"]`` holds one :class:`Case` per deletion
set (or pair of them) it was checked on: our number, the sampling noise that decides it (``Z``
standard errors, over seeds where there are several, else of the ``m`` samples or a bootstrap),
the run-to-run control it is compared with (what two trainings on the same data differ by), and
the case's outcome. The verdict follows the outcomes (:func:`case_verdict`): "holds" when every
case passes, "partly" when some do, "does not hold" when none passes and some fail, "not
distinguishable from training noise" when none passes because the effect is no larger than what
another training run gives, "not resolved at this sample size" when no case is resolved.

Claims scoped to one data set by the paper are checked there only: Appendix E.2's statements on
MNIST, E.3's on Fashion-MNIST.
"""

from __future__ import annotations

import dataclasses
from collections import defaultdict

import numpy as np

from gendel.claims.base import NOT_DISTINGUISHABLE, NOT_RESOLVED, Claim, ks_critical, verdict
from gendel.deletion_test.stats import STATISTICS
from gendel.gan.report import costs, ks_summary, label_summary

#: A difference is resolved when it exceeds this many standard errors (about 95 % two-sided).
Z = 2.0

#: The words with which :func:`claim_fast` marks a case whose TV doing nothing matches.
DOING_NOTHING = "doing nothing is as good or better"
#: The outcomes of a case.
OUTCOMES = ("passes", "fails", "within noise", "training noise")
_NAMES = {"mnist": "MNIST", "fashion-mnist": "Fashion-MNIST"}


@dataclasses.dataclass(frozen=True)
class Case:
    """One case of a claim: a deletion set (or a pair), our number, its noise, the control, the outcome.

    Examples
    --------
    >>> Case("MNIST even-0.7", -0.03, 0.01, 0.005, "passes", "δ 0.50 → 0.47").outcome
    'passes'
    """

    label: str
    number: float
    noise: float
    control: float | None
    outcome: str
    text: str

    def __post_init__(self):
        if self.outcome not in OUTCOMES:
            raise ValueError(f"outcome must be one of {OUTCOMES}; got {self.outcome!r}")


def case_verdict(outcomes):
    """The verdict of a claim from the outcomes of its cases (see the module text).

    Examples
    --------
    >>> case_verdict(["passes", "passes"]), case_verdict(["passes", "within noise"])
    ('holds', 'partly')
    >>> case_verdict(["fails", "within noise"]), case_verdict(["training noise", "within noise"])
    ('does not hold', 'not distinguishable from training noise')
    >>> case_verdict(["within noise"]), case_verdict([])
    ('not resolved at this sample size', 'not tested')
    """
    outcomes = list(outcomes)
    passes = outcomes.count("passes")
    if not outcomes or passes:
        return verdict(passes, len(outcomes))
    if "fails" in outcomes:
        return "does not hold"
    if "training noise" in outcomes:
        return NOT_DISTINGUISHABLE
    return NOT_RESOLVED


def _se(values, sampling):
    """Standard error of the mean of per-seed ``values``: their spread over the seeds, but never less
    than the sampling noise alone (``sampling``: the standard error of one seed's value) would give."""
    values = np.asarray(values, float)
    floor = float(sampling) / np.sqrt(len(values))
    return max(float(values.std(ddof=1) / np.sqrt(len(values))), floor) if len(values) > 1 else floor


def _signed(x, digits=3):
    """``x`` with its sign and a true minus sign: +0.040, −0.090."""
    return f"{x:+.{digits}f}".replace("-", "−")


def _measured(x, digits=3):
    """``x`` to ``digits`` places, or "not measured" for a NaN (a result without a control)."""
    return "not measured" if np.isnan(x) else f"{x:.{digits}f}"


def _name(s):
    return f"{_NAMES.get(s.dataset, s.dataset)} {s.setting}-{s.lam:g}"


#: The columns of :func:`case_rows`.
CASE_HEADER = ("case", "our number", "± noise", "control", "outcome", "details")


def case_rows(claim):
    """The rows of a table of a claim's cases (:data:`CASE_HEADER`), numbers formatted ("–": no control).

    Examples
    --------
    >>> c = Claim("k", "text", "§5.2", "", "holds", {"cases": [Case("MNIST even-0.7", -0.03, 0.01, None, "passes", "δ ...")]})
    >>> case_rows(c)
    [['MNIST even-0.7', '−0.030', '0.010', '–', 'passes', 'δ ...']]
    """
    def number(x, signed=False):
        if x is not None and np.isposinf(x):
            return "∞"
        if x is None or not np.isfinite(x):
            return "–"
        return _signed(x) if signed else f"{x:.3f}"

    return [[k.label, number(k.number, signed=True), number(k.noise), number(k.control), k.outcome, k.text]
            for k in claim.details["cases"]]


def outcome_counts(cases):
    """The outcomes of a claim's cases in a few words: ``"12 of 16 cases pass; 3 training noise, 1 within noise"``.

    Examples
    --------
    >>> outcome_counts([Case("a", 0, 0, None, "passes", ""), Case("b", 0, 0, None, "within noise", "")])
    '1 of 2 cases pass; 1 within noise'
    """
    n = len(cases)
    if not n:
        return "not tested on these results"
    passed = sum(c.outcome == "passes" for c in cases)
    others = [f"{k} {o}" for o in OUTCOMES[1:] for k in [sum(c.outcome == o for c in cases)] if k]
    return f"{passed} of {n} case{'s' if n > 1 else ''} pass" + (f"; {', '.join(others)}" if others else "")


def _claim(key, where, text, cases, numbers_intro=""):
    """A Claim whose ``numbers`` count the outcomes (the closing page's short form) and whose
    ``details["cases"]`` hold every case (the chapter's tables)."""
    return Claim(key, text, where, outcome_counts(cases), case_verdict(c.outcome for c in cases),
                 {"cases": list(cases)})


def training_noise_mass(summary):
    """The run-to-run control of the deleted mass δ: the root mean square of δ(p̂) − δ(control)
    over the seeds, with the differences δ(p̂′) − δ(p̂′) between the re-trained models of every two
    seeds pooled in (both compare two trainings on the same data). NaN without a control.

    Examples
    --------
    >>> from gendel.gan.report import LabelSummary
    >>> d = {"pre": np.array([[0.1] * 10, [0.1] * 10]), "control": np.array([[0.12, 0.08] * 5, [0.1] * 10]),
    ...      "re": np.array([[0.1] * 10, [0.1] * 10]), "approx": np.array([[0.1] * 10, [0.1] * 10])}
    >>> s = LabelSummary("mnist", "even", 0.7, (0, 1), 1000, d, np.full(10, 0.1), np.full(10, 0.1))
    >>> round(float(training_noise_mass(s)), 4)           # δ(pre) − δ(control): 0.5 − 0.6 and 0
    0.0577
    """
    if "control" not in summary.dist:
        return float("nan")
    diffs = list(summary.mass("pre") - summary.mass("control"))
    re = summary.mass("re")
    diffs += [(re[i] - re[j]) for i in range(len(re)) for j in range(i + 1, len(re))]
    return float(np.sqrt(np.mean(np.square(diffs))))


def claim_fewer_deleted_labels(summaries):
    """Fig. 7(a)(b), §5.2, App. E.2/E.3: the approximated model generates fewer of the deleted labels.

    Per deletion set: the shift of the deleted mass δ(ρ̂_ℰ·p̂) − δ(p̂), paired by seed (Alg. 1 filters
    the same p̂), must be negative beyond ``Z`` standard errors (over seeds; binomial for one seed)
    and larger in size than the run-to-run control (:func:`training_noise_mass`): otherwise another
    training of p̂ moves the labels as much ("training noise").

    Examples
    --------
    >>> from gendel.gan.report import LabelSummary
    >>> def summary(approx_even, control_even):
    ...     row = lambda e: np.array([e, (1 - 5 * e) / 5] * 5)
    ...     d = {"pre": np.array([row(0.1)] * 3), "re": np.array([row(0.08)] * 3),
    ...          "approx": np.array([row(approx_even + k * 1e-4) for k in range(3)]),
    ...          "control": np.array([row(control_even)] * 3)}
    ...     return LabelSummary("mnist", "even", 0.7, (0, 1, 2), 5000, d, row(0.1), row(0.08))
    >>> claim_fewer_deleted_labels([summary(0.09, 0.1)]).verdict        # 5 points fewer, no training noise
    'holds'
    >>> claim_fewer_deleted_labels([summary(0.09, 0.085)]).verdict     # another training moves δ further
    'not distinguishable from training noise'
    >>> claim_fewer_deleted_labels([summary(0.11, 0.1)]).verdict
    'does not hold'
    """
    cases = []
    for s in summaries:
        shift = s.shift("approx")
        mean = float(shift.mean())
        pa, pp = s.mass("approx").mean(), s.mass("pre").mean()
        binomial = np.sqrt(pa * (1 - pa) / s.m + pp * (1 - pp) / s.m)
        noise = Z * _se(shift, binomial)
        control = training_noise_mass(s)
        if mean < -noise:
            outcome = "passes" if not (abs(mean) <= control) else "training noise"
        elif mean > noise:
            outcome = "fails"
        else:
            outcome = "within noise"
        text = (f"δ {pp:.3f} → {pa:.3f} (shift {_signed(mean)} ± {noise:.3f}; re-trained {_signed(float(s.shift('re').mean()))}, "
                f"exact {_signed(s.exact_shift)}; training noise {_measured(control)})")
        cases.append(Case(_name(s), mean, noise, control, outcome, text))
    return _claim("fewer_deleted_labels", "Fig. 7(a)(b), §5.2, App. E.2, E.3",
                  "the approximated model generates fewer of the deleted labels", cases,
                  "deleted mass δ, pre-trained → approximated: ")


def claim_close_to_retrained(summaries):
    """Fig. 7 caption: the approximated label distribution is close to the re-trained one.

    Per deletion set, with the run-to-run control c = the mean TV between the re-trained models of
    two seeds (two re-trainings on the same X \\ X'; with one seed, the TV between p̂ and the
    control): if TV(p̂, p̂′) is not above c beyond noise, re-training itself is not distinguishable
    from another training ("training noise"). Otherwise the case passes when TV(ρ̂_ℰ·p̂, p̂′) is
    within noise of c or below (as close as two re-trainings), and fails when it is above. A
    deletion set with neither two seeds nor a control has no c and is left out: "close" has no
    yardstick there (a claim with no case left is "not tested").

    Examples
    --------
    >>> from gendel.gan.report import LabelSummary
    >>> row = lambda e: np.array([e, (1 - 5 * e) / 5] * 5)
    >>> def summary(approx_even):
    ...     d = {"pre": np.array([row(0.1)] * 3), "approx": np.array([row(approx_even)] * 3),
    ...          "re": np.array([row(0.07), row(0.071), row(0.069)]), "control": np.array([row(0.1)] * 3)}
    ...     return LabelSummary("mnist", "even", 0.7, (0, 1, 2), 5000, d, row(0.1), row(0.07))
    >>> claim_close_to_retrained([summary(0.0705)]).verdict, claim_close_to_retrained([summary(0.095)]).verdict
    ('holds', 'does not hold')
    """
    cases = []
    for s in summaries:
        gap, dist = s.tv("pre", "re"), s.tv("approx", "re")
        between = s.tv_between_seeds("re")
        control = float(between.mean()) if len(between) else (float(s.tv("pre", "control").mean())
                                                              if "control" in s.dist else float("nan"))
        if np.isnan(control):
            continue
        _, sampling = s.sampling("re")   # how much one TV between two samples of m scatters
        noise_gap = Z * _se(gap, sampling)
        noise = Z * _se(dist, sampling)
        if not gap.mean() > control + noise_gap:
            outcome = "training noise"
        elif dist.mean() <= control + noise:
            outcome = "passes"
        else:
            outcome = "fails"
        closed = s.gap_closed()
        text = (f"TV(pre, re) {gap.mean():.3f}, TV(approx, re) {dist.mean():.3f} ± {noise:.3f} "
                f"({np.nanmean(closed):.0%} of the gap closed); two re-trainings differ by {_measured(control)}; "
                f"TV to X \\ X′: pre {s.tv('pre', 'kept').mean():.3f}, re {s.tv('re', 'kept').mean():.3f}, "
                f"approx {s.tv('approx', 'kept').mean():.3f}")
        cases.append(Case(_name(s), float(dist.mean()), noise, control, outcome, text))
    return _claim("close_to_retrained", "Fig. 7 caption", "the approximated model's label distribution is close to "
                  "the re-trained one", cases)


def claim_odd_variance_higher(summaries, datasets=("mnist", "fashion-mnist")):
    """App. E.2 (MNIST), E.3 (Fashion-MNIST, "slightly"): the variance over seeds is higher when
    deleting odd labels than even ones.

    Compared per data set and λ: the standard error over the seeds of the approximated label
    distribution, averaged over the ten labels. An SE estimated from n seeds is itself noisy:
    its standard error is about SE / √(2 (n − 1)) per label, and the ten labels share n − 1 seeds'
    worth of information, so the margin uses SE / √(2 (n − 1)). Needs at least two seeds.

    Examples
    --------
    >>> from gendel.gan.report import LabelSummary
    >>> row = lambda e: np.array([e, (1 - 5 * e) / 5] * 5)
    >>> def summary(setting, spread):
    ...     d = {m: np.array([row(0.1 + k * spread) for k in range(5)]) for m in ("pre", "re", "approx")}
    ...     return LabelSummary("mnist", setting, 0.7, tuple(range(5)), 5000, d, row(0.1), row(0.1))
    >>> claim_odd_variance_higher([summary("even", 0.001), summary("odd", 0.01)]).verdict
    'holds'
    """
    by = {(s.dataset, s.lam, s.setting): s for s in summaries if len(s.seeds) > 1 and s.dataset in datasets}
    cases = []
    for (dataset, lam, setting), s in sorted(by.items()):
        if setting != "even" or (dataset, lam, "odd") not in by:
            continue
        odd = by[(dataset, lam, "odd")]
        e, o = float(np.nanmean(s.sem("approx"))), float(np.nanmean(odd.sem("approx")))
        margin = Z * np.hypot(e / np.sqrt(2 * (len(s.seeds) - 1)), o / np.sqrt(2 * (len(odd.seeds) - 1)))
        diff = o - e
        outcome = "passes" if diff > margin else "fails" if diff < -margin else "within noise"
        cases.append(Case(f"{_NAMES[dataset]} λ = {lam:g}", diff, float(margin), None, outcome,
                          f"mean SE even {e:.4f}, odd {o:.4f}, odd − even {_signed(diff, 4)} ± {margin:.4f}"))
    return _claim("odd_variance_higher", "App. E.2, E.3", "the variance over seeds is higher when deleting odd labels",
                  cases)


def _ks_by(ks, stat="lr"):
    return {(k.dataset, k.setting, k.lam): k for k in ks if k.stat == stat}


def claim_separation(ks, stat="lr"):
    """Fig. 7(c), §5.2: ρ̂_ℰ clearly distinguishes samples of p̂ from samples of p̂′ ("in most cases").

    Per deletion set: the KS distance between the statistic's R values under H0 and under H1
    must exceed the 5 % critical value of the two-sample KS test with R repeats (the two
    distributions differ). The control is a second p̂ on the same X: where the KS between H0 and
    the control is below the critical value too, the test does not react to a mere retraining and
    the case passes; where it is above, the case passes only when KS(H0, H1) exceeds KS(H0,
    control) by ``Z`` standard errors (over the seeds, at least one step 1/R of the KS), and
    otherwise the test separates any two trainings as well ("training noise").

    Examples
    --------
    >>> from gendel.gan.report import KSSummary
    >>> def ks(h1, control):
    ...     return KSSummary("mnist", "odd", 0.7, "lr", (0, 1, 2), 40, h1 + np.array([0.0, 0.02, -0.02]),
    ...                      control + np.array([0.03, -0.03, 0.0]), np.full(3, 0.05))
    >>> claim_separation([ks(0.95, 0.2)]).verdict, claim_separation([ks(0.95, 0.9)]).verdict
    ('holds', 'not distinguishable from training noise')
    >>> claim_separation([ks(0.1, 0.1)]).verdict
    'does not hold'
    """
    cases = []
    for (dataset, setting, lam), k in _ks_by(ks, stat).items():
        critical = ks_critical(k.R)
        control = float(k.ks_control.mean()) if len(k.ks_control) else float("nan")
        noise = Z * max(_se(k.ks - k.ks_control, np.sqrt(2) * k.boot_se.mean()) if len(k.ks_control) else k.se,
                        1.0 / k.R)
        if k.mean <= critical:
            outcome = "fails"
        elif len(k.ks_control) and control > critical and not k.mean - control > noise:
            outcome = "training noise"
        else:
            outcome = "passes"
        cases.append(Case(f"{_NAMES[dataset]} {setting}-{lam:g}", k.mean, noise, control, outcome,
                          f"KS(H0, H1) {k.mean:.2f}, KS(H0, control) {_measured(control, 2)}, difference "
                          f"{'not measured' if np.isnan(control) else _signed(k.mean - control, 2)} ± {noise:.2f} "
                          f"(critical {critical:.2f})"))
    return _claim("separation", "Fig. 7(c), §5.2", "ρ̂_ℰ distinguishes samples of the pre-trained and the re-trained "
                  "model", cases, "LR: ")


def _pair_noise(a, b):
    """``Z`` standard errors of the difference of two KS summaries' means (independent)."""
    return Z * float(np.hypot(a.se, b.se))


def _difference_case(label, diff, noise, text):
    outcome = "passes" if diff > noise else "fails" if diff < -noise else "within noise"
    return Case(label, float(diff), float(noise), None, outcome, text)


def claim_odd_separates_better(ks):
    """App. E.2 (MNIST): the separation for odd-λ is better than for even-λ (KS of LR), per λ.

    Examples
    --------
    >>> from gendel.gan.report import KSSummary
    >>> k = lambda setting, v: KSSummary("mnist", setting, 0.7, "lr", (0, 1, 2), 40, np.array([v] * 3),
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
        noise = _pair_noise(odd, even)
        cases.append(_difference_case(f"MNIST λ = {lam:g}", odd.mean - even.mean, noise,
                                      f"KS even {even.mean:.2f}, odd {odd.mean:.2f}, odd − even "
                                      f"{_signed(odd.mean - even.mean, 2)} ± {noise:.2f}"))
    return _claim("odd_separates_better", "App. E.2", "the separation for odd-λ is better than for even-λ (MNIST)", cases)


def _lr_minus_asc(ks, dataset):
    """Per deletion set of ``dataset``: (label, min over φ of KS(LR) − KS(ASC_φ) and its noise, text)."""
    out = []
    lr = _ks_by(ks, "lr")
    for (d, setting, lam), k_lr in sorted(lr.items()):
        if d != dataset:
            continue
        diffs = []
        for stat in ("asc-log", "asc-tlogt"):
            k = _ks_by(ks, stat).get((d, setting, lam))
            if k is None:
                continue
            paired = k_lr.ks - k.ks  # the same repeats: paired by seed
            noise = Z * _se(paired, np.hypot(k_lr.boot_se.mean(), k.boot_se.mean()))
            diffs.append((float(paired.mean()), noise, stat))
        if diffs:
            out.append((f"{_NAMES[d]} {setting}-{lam:g}", diffs, k_lr))
    return out


def claim_lr_better_than_asc(ks):
    """App. E.2 (MNIST): LR separates slightly better than ASC: KS(LR) − KS(ASC) > noise for both φ.

    Examples
    --------
    >>> from gendel.gan.report import KSSummary
    >>> k = lambda stat, v: KSSummary("mnist", "odd", 0.7, stat, (0, 1, 2), 40, np.array([v, v + 0.01, v - 0.01]),
    ...                               np.array([]), np.full(3, 0.03))
    >>> claim_lr_better_than_asc([k("lr", 0.9), k("asc-log", 0.7), k("asc-tlogt", 0.6)]).verdict
    'holds'
    """
    cases = []
    for label, diffs, k_lr in _lr_minus_asc(ks, "mnist"):
        worst = min(diffs, key=lambda t: t[0] - t[1])
        outcome = ("passes" if all(d > n for d, n, _ in diffs) else
                   "fails" if any(d < -n for d, n, _ in diffs) else "within noise")
        text = f"KS(LR) {k_lr.mean:.2f}; " + ", ".join(f"LR − {STATISTICS[s].label} {_signed(d, 2)} ± {n:.2f}" for d, n, s in diffs)
        cases.append(Case(label, worst[0], worst[1], None, outcome, text))
    return _claim("lr_better_than_asc", "App. E.2", "LR separates slightly better than ASC (MNIST)", cases)


def claim_no_lr_asc_difference(ks):
    """App. E.3 (Fashion-MNIST): there is no significant difference between LR and ASC: a case passes
    when every KS(LR) − KS(ASC_φ) lies within its noise, fails when one is resolved.

    Examples
    --------
    >>> from gendel.gan.report import KSSummary
    >>> k = lambda stat, v: KSSummary("fashion-mnist", "odd", 0.7, stat, (0, 1, 2), 40, np.array(v),
    ...                               np.array([]), np.full(3, 0.03))
    >>> lr, log, tlogt = k("lr", [0.6, 0.65, 0.55]), k("asc-log", [0.58, 0.53, 0.63]), k("asc-tlogt", [0.61, 0.6, 0.58])
    >>> claim_no_lr_asc_difference([lr, log, tlogt]).verdict
    'holds'
    """
    cases = []
    for label, diffs, k_lr in _lr_minus_asc(ks, "fashion-mnist"):
        resolved = [abs(d) > n for d, n, _ in diffs]
        biggest = max(diffs, key=lambda t: abs(t[0]) - t[1])
        text = f"KS(LR) {k_lr.mean:.2f}; " + ", ".join(f"LR − {STATISTICS[s].label} {_signed(d, 2)} ± {n:.2f}" for d, n, s in diffs)
        cases.append(Case(label, biggest[0], biggest[1], None, "fails" if any(resolved) else "passes", text))
    return _claim("no_lr_asc_difference", "App. E.3", "no significant difference between LR and ASC (Fashion-MNIST)",
                  cases)


def _slope(lams, values, ses):
    """Weighted least-squares slope of ``values`` against ``lams`` and its standard error."""
    x, y, w = np.asarray(lams, float), np.asarray(values, float), 1.0 / np.square(np.maximum(ses, 1e-6))
    xm = np.sum(w * x) / w.sum()
    sxx = np.sum(w * (x - xm) ** 2)
    b = np.sum(w * (x - xm) * y) / sxx
    return float(b), float(np.sqrt(1.0 / sxx))


def claim_smaller_lambda_not_more_separation(ks):
    """App. E.2 (MNIST): a smaller λ does not lead to more separation.

    Per setting: the weighted least-squares slope of KS(LR) against λ over the deletion sets. The
    claim fails where the slope is negative beyond ``Z`` standard errors (a smaller λ, more
    deleted, separates better) and passes otherwise. Needs at least two λ.

    Examples
    --------
    >>> from gendel.gan.report import KSSummary
    >>> k = lambda lam, v: KSSummary("mnist", "even", lam, "lr", (0, 1, 2), 40, np.array([v] * 3),
    ...                              np.array([]), np.full(3, 0.02))
    >>> claim_smaller_lambda_not_more_separation([k(0.6, 0.9), k(0.7, 0.88), k(0.8, 0.9), k(0.9, 0.91)]).verdict
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
        lams = [k.lam for k in ks_]
        b, se = _slope(lams, [k.mean for k in ks_], [max(k.se, 1e-3) for k in ks_])
        noise = Z * se
        outcome = "fails" if b < -noise else "passes"
        text = ", ".join(f"λ = {k.lam:g}: {k.mean:.2f}" for k in ks_) + f"; slope {_signed(b, 2)} ± {noise:.2f} per unit λ"
        cases.append(Case(f"MNIST {setting}", b, noise, None, outcome, text))
    return _claim("smaller_lambda_not_more_separation", "App. E.2", "a smaller λ does not lead to more separation (MNIST)",
                  cases, "KS of LR by λ: ")


def claim_fashion_lambda(ks):
    """App. E.3 (Fashion-MNIST): the separation is good for λ = 0.6 but not obvious for λ = 0.9.

    Per setting: KS(LR) at λ = 0.6 must exceed KS(LR) at λ = 0.9 beyond noise, and exceed the KS
    test's 5 % critical value.

    Examples
    --------
    >>> from gendel.gan.report import KSSummary
    >>> k = lambda lam, v: KSSummary("fashion-mnist", "even", lam, "lr", (0, 1, 2), 40, np.array([v] * 3),
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
        noise = _pair_noise(lo, hi)
        diff = lo.mean - hi.mean
        outcome = ("passes" if diff > noise and lo.mean > ks_critical(lo.R) else
                   "fails" if diff < -noise else "within noise")
        cases.append(Case(f"Fashion-MNIST {setting}", diff, noise, None, outcome,
                          f"KS at λ = 0.6: {lo.mean:.2f}, at λ = 0.9: {hi.mean:.2f}, difference {_signed(diff, 2)} ± "
                          f"{noise:.2f}"))
    return _claim("fashion_lambda", "App. E.3", "on Fashion-MNIST the separation is good for λ = 0.6, not for λ = 0.9",
                  cases)


def claim_fashion_harder(ks):
    """App. E.3: the deletion test is harder on Fashion-MNIST than on MNIST (smaller KS of LR), per
    deletion set present on both.

    Examples
    --------
    >>> from gendel.gan.report import KSSummary
    >>> k = lambda d, v: KSSummary(d, "odd", 0.7, "lr", (0, 1, 2), 40, np.array([v] * 3), np.array([]), np.full(3, 0.03))
    >>> claim_fashion_harder([k("mnist", 0.95), k("fashion-mnist", 0.6)]).verdict
    'holds'
    """
    by = _ks_by(ks)
    cases = []
    for (dataset, setting, lam), m in sorted(by.items()):
        f = by.get(("fashion-mnist", setting, lam))
        if dataset != "mnist" or f is None:
            continue
        noise = _pair_noise(m, f)
        cases.append(_difference_case(f"{setting}-{lam:g}", m.mean - f.mean, noise,
                                      f"KS MNIST {m.mean:.2f}, Fashion-MNIST {f.mean:.2f}, difference "
                                      f"{_signed(m.mean - f.mean, 2)} ± {noise:.2f}"))
    return _claim("fashion_harder", "App. E.3", "the deletion test is harder on Fashion-MNIST than on MNIST", cases)


def claim_fast(cost_list, summaries=None):
    """§2 and §5.2 ("fast deletion"): fast deletion reaches its quality faster than re-training does.

    Per deletion set (seeds pooled): quality is the TV of the label distribution to the exact
    X \\ X'; fast deletion's cost is the VDM's training and Alg. 1's sampling of m points; re-
    training's cost the seconds its training needs to reach the same TV (from its per-epoch
    copies). A case passes when re-training needs more in every seed, fails when it needs less in
    every seed, and is within noise otherwise. The paper's fixed-epoch ratio is given beside it.

    With ``summaries`` (the :class:`~gendel.gan.report.LabelSummary` of the same results) doing
    nothing is the baseline: the pre-trained model costs 0 s. Where fast deletion's TV is not
    below the pre-trained model's by more than two standard errors (of the per-seed difference,
    never less than sampling alone gives), the measure does not see the deletion, and the case is
    "within noise" whatever re-training needs: a re-training that "never reaches" such a TV says
    nothing about speed.

    Examples
    --------
    >>> from gendel.gan.report import Cost
    >>> c = lambda seed, t: Cost("mnist", "even", 0.7, seed, "cpu", 100, np.array([[t, 0.3], [2 * t, 0.1]]),
    ...                          np.array([[1.0, 0.25], [2.0, 0.2]]), 0.5)
    >>> claim_fast([c(0, 10.0), c(1, 12.0)]).verdict, claim_fast([c(0, 0.5), c(1, 0.6)]).verdict
    ('holds', 'does not hold')
    """
    groups = defaultdict(list)
    for c in cost_list:
        groups[(c.dataset, c.setting, c.lam)].append(c)
    by_set = {(s.dataset, s.setting, s.lam): s for s in (summaries or [])}
    cases = []
    for (dataset, setting, lam), cs in groups.items():
        ratios = np.array([c.speedup_at_equal_quality for c in cs])
        outcome = "passes" if np.all(ratios > 1) else "fails" if np.all(ratios < 1) else "within noise"
        fixed = np.array([c.speedup_fixed_epochs for c in cs])
        median = np.median(ratios)
        text = (f"equal-quality speed-up {'∞ (re-training never reaches it)' if np.isposinf(median) else f'{median:.1f}×'} (seeds "
                f"{', '.join('never' if np.isposinf(r) else f'{r:.1f}' for r in ratios)}), "
                f"fixed epochs {np.median(fixed):.1f}×")
        s = by_set.get((dataset, setting, lam))
        if s is not None:
            pre = dict(zip(s.seeds, s.tv("pre", "kept")))
            gain = np.array([pre[c.seed] - c.fast_tv for c in cs if c.seed in pre])
            noise = Z * _se(gain, s.sampling("pre")[1]) if len(gain) else float("nan")
            if len(gain) and not gain.mean() > noise:
                outcome = "within noise"
                text += (f"; {DOING_NOTHING}: the pre-trained model's TV is "
                         f"{np.mean([pre[c.seed] for c in cs if c.seed in pre]):.3f} against fast deletion's "
                         f"{np.mean([c.fast_tv for c in cs]):.3f} (difference {_signed(gain.mean())} ± {noise:.3f})")
            elif len(gain):
                text += f"; better than doing nothing by {gain.mean():.3f} ± {noise:.3f} in TV"
        cases.append(Case(f"{_NAMES[dataset]} {setting}-{lam:g}", float(np.median(ratios)), float(np.ptp(ratios)), None,
                          outcome, text))
    return _claim("fast", "§2, §5.2", "fast deletion reaches its quality faster than re-training (cost at equal quality)",
                  cases)


def claims(results):
    """Every claim of §5.2 and Appendix E, checked on ``results``.

    Examples
    --------
    >>> from gendel.gan.results import stored_results
    >>> table = claims(stored_results("gpu"))
    >>> len(table), table[0].where
    (11, 'Fig. 7(a)(b), §5.2, App. E.2, E.3')
    """
    s = label_summary(results)
    ks = ks_summary(results)
    return [claim_fewer_deleted_labels(s), claim_close_to_retrained(s), claim_odd_variance_higher(s),
            claim_separation(ks), claim_odd_separates_better(ks), claim_lr_better_than_asc(ks),
            claim_no_lr_asc_difference(ks), claim_smaller_lambda_not_more_separation(ks), claim_fashion_lambda(ks),
            claim_fashion_harder(ks), claim_fast(costs(results), s)]


__all__ = ["CASE_HEADER", "DOING_NOTHING", "OUTCOMES", "Z", "Case", "case_rows", "case_verdict", "claims", "outcome_counts", "claim_close_to_retrained",
           "claim_fashion_harder", "claim_fashion_lambda", "claim_fast", "claim_fewer_deleted_labels",
           "claim_lr_better_than_asc", "claim_no_lr_asc_difference", "claim_odd_separates_better",
           "claim_odd_variance_higher", "claim_separation", "claim_smaller_lambda_not_more_separation",
           "training_noise_mass"]
