"""The claims of §5.2 and Appendix E on Q2 (fast deletion, read through labels), checked on GAN
results with their noise, and the estimates and power behind them.

Each ``claim_*`` function reads the summaries of :mod:`gendel.gan.summaries` and returns a
``gendel.claims.base.Claim`` whose ``details["cases"]`` holds one ``Case`` per deletion set it was
checked on, counted by the rules of ``gendel.claims.base`` (stated before any number):

- **One test per case, over the seeds.** A case's number is a mean over the seeds; its test is a
  one-sided Student t test with n − 1 degrees of freedom (n seeds) at level
  ``gendel.claims.base.CASE_LEVEL`` (5 %), its standard error never smaller than sampling alone
  gives; the "± noise" beside a number is the half-width of the 90 % t interval (it excludes a value
  exactly when the one-sided test rejects it). A case "passes" when the claim is shown, "fails" only
  when the opposite is shown beyond noise, and is "within noise" otherwise; a case of one seed is
  "one seed: not judged", as its claim is.
- **Chance is counted.** Each case's p-value is adjusted over the cases of its claim by Holm's method
  (``details["holm"]``: the cases still shown). The verdict counts cases: "holds"/"partly" only when the
  passing cases reach ``gendel.claims.base.binomial_critical`` (what chance gives with no effect
  at 5 % per case: 3 of 16, 3 of 8, 2 of 4, 2 of 2), "does not hold" when the failing cases reach it.
- **Controls on both sides.** The claims judge the re-trained model (the positive control) and the
  pre-trained one (doing nothing) by exactly the rule that judges fast deletion (``details["rows"]``).
- **The primary endpoint** is the deleted mass δ (the share of samples whose label is one X′ was drawn
  from) and its shift from the pre-trained model; β, the share of the exact data shift
  δ(X ∖ X′) − δ(X) a model moves, is its scale-free form. "Close to the re-trained model" is an
  equivalence test (two one-sided t tests) on δ(model) − δ(p̂′) with the margin
  :func:`training_sd_mass`, the standard deviation of δ from one training to the next.

The claims of Q3 are in :mod:`gendel.claims.gan_q3`; ``gendel.claims.gan.claims`` checks both on a list of
results.
"""

from __future__ import annotations

import dataclasses
from collections import defaultdict

import numpy as np
from scipy import stats as _st

from gendel.claims.base import (CASE_LEVEL, NOT_DISTINGUISHABLE, ONE_SEED, Case, case_claim, case_outcome, claim_row,
                                detectable_shift, plus_minus, seeds_needed, signed, t_halfwidth, t_test)
from gendel.gan.images import DATASET_NAMES

#: The least scatter of the log of one seed's speed-up (10 %: timings of one machine vary that much).
TIMING_SCATTER = 0.1

#: The override with which :func:`claim_fast` sets aside a case whose TV doing nothing matches (``Case.override``).
DOING_NOTHING = "doing nothing is as good or better"
#: The models the GAN claims judge by one rule: fast deletion, the positive control and doing nothing.
JUDGED = {"approx": "fast deletion (approximated ρ̂_ℰ·p̂)", "re": "re-trained p̂′ (positive control)",
          "pre": "pre-trained p̂ (doing nothing)", "control": "control GAN (another training on X, no deletion)"}


def _short(model):
    """A model of :data:`JUDGED` in a few words ("positive control"), for a claim's numbers."""
    return JUDGED[model].split(" (")[1].rstrip(")")


def _name(s):
    return f"{DATASET_NAMES.get(s.dataset, s.dataset)} {s.setting}-{s.lam:g}"


def _seeds(summaries):
    return max((len(s.seeds) for s in summaries), default=0)


# ---- Q2: estimation -------------------------------------------------------------------------------


def _floor_shift(s, model, other="pre"):
    """The standard deviation sampling alone gives one seed's δ(model) − δ(other) (two samples of m)."""
    a, b = float(s.mass(model).mean()), float(s.mass(other).mean())
    return float(np.sqrt(a * (1 - a) / s.m + b * (1 - b) / s.m))


def shift_values(s, model):
    """δ(model) − δ(p̂) per seed (for ``pre`` zeros: doing nothing moves nothing; its noise is sampling's).

    Examples
    --------
    >>> from gendel.gan.summaries import LabelSummary
    >>> row = lambda e: np.array([e, (1 - 5 * e) / 5] * 5)
    >>> s = LabelSummary("mnist", "even", 0.7, (0, 1), 5000, {"pre": np.array([row(0.1)] * 2),
    ...                  "approx": np.array([row(0.09), row(0.095)])}, row(0.1), row(0.08))
    >>> shift_values(s, "approx").round(3).tolist()
    [-0.05, -0.025]
    """
    return s.mass(model) - s.mass("pre")


@dataclasses.dataclass(frozen=True)
class Estimate:
    """The shift of δ of one model for one deletion set: mean over the seeds, its 90 % t interval, and β,
    the same as a share of the exact data shift (1: as far as deleting X′ moves the data, 0: nothing).

    Examples
    --------
    >>> e = Estimate("mnist", "even", 0.7, "approx", 3, -0.02, 0.01, -0.088)
    >>> round(e.beta, 3), [round(x, 3) for x in e.beta_interval]
    (0.227, [0.114, 0.341])
    """

    dataset: str
    setting: str
    lam: float
    model: str
    seeds: int
    shift: float
    halfwidth: float     # of the 90 % t interval; NaN for one seed
    exact: float         # δ(X ∖ X′) − δ(X)

    @property
    def beta(self):
        return self.shift / self.exact

    @property
    def beta_interval(self):
        lo, hi = (self.shift - self.halfwidth) / self.exact, (self.shift + self.halfwidth) / self.exact
        return (min(lo, hi), max(lo, hi))


def shift_estimates(summaries, models=("approx", "re", "control", "pre")):
    """One :class:`Estimate` per deletion set and model (models the summary lacks are left out): the
    numbers of the forest plot of Q2.

    Examples
    --------
    >>> from gendel.gan.summaries import label_summary
    >>> from gendel.gan.result_files import stored_results
    >>> e = shift_estimates(label_summary(stored_results("gpu")))[0]
    >>> e.model, e.seeds, np.isnan(e.halfwidth)           # one seed: no interval
    ('approx', 1, np.True_)
    """
    out = []
    for s in summaries:
        for model in models:
            if model not in s.dist:
                continue
            mean, se, df, _, _ = t_test(shift_values(s, model), floor=_floor_shift(s, model))
            out.append(Estimate(s.dataset, s.setting, s.lam, model, len(s.seeds), mean, t_halfwidth(se, df),
                                s.exact_shift))
    return out


def beta_fit(summaries, model="approx"):
    """β pooled over λ per data set and setting: per seed the least-squares slope (through 0) of
    δ(model) − δ(p̂) on the exact shift over the λ, then the mean over the seeds with its 90 % t
    interval (seed-clustered: each seed one observation). ``{(dataset, setting): (β, half-width, seeds)}``.

    Examples
    --------
    >>> from gendel.gan.summaries import LabelSummary
    >>> row = lambda e: np.array([e, (1 - 5 * e) / 5] * 5)
    >>> def s(lam, moved):     # a model that moves δ by ``moved`` of the exact shift, in two seeds
    ...     kept = row(0.1 * lam / (0.5 * lam + 0.5))
    ...     d = {"pre": np.array([row(0.1)] * 2), "approx": np.array([0.1 + moved * (kept - row(0.1)) + k * 1e-4 for k in (0, 1)])}
    ...     return LabelSummary("mnist", "even", lam, (0, 1), 5000, d, row(0.1), kept)
    >>> b, hw, n = beta_fit([s(0.6, 0.4), s(0.8, 0.4)])[("mnist", "even")]
    >>> round(b, 2), n
    (0.4, 2)
    """
    groups = defaultdict(list)
    for s in summaries:
        if model in s.dist:
            groups[(s.dataset, s.setting)].append(s)
    out = {}
    for key, ss in groups.items():
        seeds = sorted(set.intersection(*(set(s.seeds) for s in ss)))
        slopes = []
        for seed in seeds:
            x = np.array([s.exact_shift for s in ss])
            y = np.array([shift_values(s, model)[s.seeds.index(seed)] for s in ss])
            slopes.append(float(x @ y / (x @ x)))
        mean, se, df, _, _ = t_test(slopes)
        out[key] = (mean, t_halfwidth(se, df), len(slopes))
    return out


def training_sd_mass(summaries, pairs=("control", "re")):
    """The training noise of δ per data set: the standard deviation of δ from one training to the next,
    ``sqrt(mean(d²) / 2)`` over every pair of two trainings on the same data in ``summaries``: p̂ against
    its control (once per seed: the pre-trained models do not depend on the deletion set) and the
    re-trained models of two seeds of one deletion set (they saw the same X ∖ X′). It includes the
    sampling of m labels. NaN for a data set without a pair. ``{dataset: sd}``.

    Both kinds of pairs are pooled because both are what "another training" means (``pairs`` picks
    one kind, to show them apart: ``("control",)`` or ``("re",)``); with three seeds the re-trained
    pairs are the majority (three per deletion set, against one per seed for the pre-trained ones).

    Examples
    --------
    >>> from gendel.gan.summaries import LabelSummary
    >>> row = lambda e: np.array([e, (1 - 5 * e) / 5] * 5)
    >>> d = {"pre": np.array([row(0.1)] * 2), "control": np.array([row(0.1)] * 2),
    ...      "re": np.array([row(0.09), row(0.07)]), "approx": np.array([row(0.1)] * 2)}
    >>> s = LabelSummary("mnist", "even", 0.7, (0, 1), 5000, d, row(0.1), row(0.08))
    >>> round(training_sd_mass([s])["mnist"], 4)        # pairs 0, 0 (pre, control) and 0.1 (re, re)
    0.0408
    """
    pre_pairs, re_pairs = {}, defaultdict(list)
    unknown = set(pairs) - {"control", "re"}
    if unknown:
        raise ValueError(f"pairs must name 'control' and/or 're'; got {sorted(unknown)}")
    for s in summaries:
        if "control" in s.dist and "control" in pairs:
            for seed, d in zip(s.seeds, s.mass("pre") - s.mass("control")):
                pre_pairs.setdefault((s.dataset, seed), abs(float(d)))
        re = s.mass("re")
        if "re" in pairs:
            re_pairs[s.dataset] += [float(re[i] - re[j]) for i in range(len(re)) for j in range(i + 1, len(re))]
    out = {}
    for dataset in dict.fromkeys(s.dataset for s in summaries):
        d = [v for (ds, _), v in pre_pairs.items() if ds == dataset] + re_pairs[dataset]
        out[dataset] = float(np.sqrt(np.mean(np.square(d)) / 2)) if d else float("nan")
    return out


def training_noise_mass(summary):
    """The run-to-run control of the deleted mass δ of one deletion set: the root mean square of
    δ(p̂) − δ(control) over the seeds, with the differences δ(p̂′) − δ(p̂′) between the re-trained
    models of every two seeds pooled in. NaN without a control.

    Examples
    --------
    >>> from gendel.gan.summaries import LabelSummary
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


# ---- Q2: power ------------------------------------------------------------------------------------


def power_table(summaries, model="approx", *, power=0.8):
    """What these seeds and m can see, per λ, for the shift of δ of ``model`` (Q2's primary endpoint):
    the spread of one seed's shift (pooled over the deletion sets of that λ: the root mean of their
    variances over the seeds, each never below sampling's), the smallest shift this many seeds detect
    with ``power``, and for each deletion set the seeds that would detect its measured mean shift.
    ``{"by_lambda": {λ: (sd, seeds, detectable)}, "cases": {label: (shift, seeds needed)}}``.

    Examples
    --------
    >>> from gendel.gan.summaries import label_summary
    >>> from gendel.gan.result_files import stored_results
    >>> power_table(label_summary(stored_results("gpu")))["by_lambda"]      # one seed: no spread to measure
    {}
    """
    variances, seeds, cases = defaultdict(list), {}, {}
    for s in summaries:
        if model not in s.dist or len(s.seeds) < 2:
            continue
        values = shift_values(s, model)
        variances[s.lam].append(max(float(values.var(ddof=1)), _floor_shift(s, model) ** 2))
        seeds[s.lam] = min(seeds.get(s.lam, len(s.seeds)), len(s.seeds))
    by_lambda = {lam: (float(np.sqrt(np.mean(v))), seeds[lam], detectable_shift(np.sqrt(np.mean(v)), seeds[lam],
                                                                                power=power))
                 for lam, v in sorted(variances.items())}
    for s in summaries:
        if s.lam in by_lambda:
            shift = float(shift_values(s, model).mean())
            cases[_name(s)] = (shift, seeds_needed(shift, by_lambda[s.lam][0], power=power))
    return {"by_lambda": by_lambda, "cases": cases}


# ---- Q2: claims ----------------------------------------------------------------------------------


def _fewer_cases(summaries, model):
    cases = []
    for s in summaries:
        values = shift_values(s, model)
        mean, se, df, below, above = t_test(values, floor=_floor_shift(s, model))
        hw = t_halfwidth(se, df)
        outcome = case_outcome(df, below, above)
        pm, pa = float(s.mass("pre").mean()), float(s.mass(model).mean())
        text = (f"δ {pm:.3f} → {pa:.3f}: shift {signed(mean)}{plus_minus(hw)}, β = {signed(mean / s.exact_shift, 2)} of the "
                f"exact {signed(s.exact_shift)}")
        cases.append(Case(_name(s), mean, hw, s.exact_shift, outcome, text, below))
    return cases


def claim_fewer_deleted_labels(summaries, model="approx"):
    """Fig. 7(a)(b), §5.2, App. E.2/E.3: the approximated model generates fewer of the deleted labels.

    Per deletion set: the shift of the deleted mass δ(ρ̂_ℰ·p̂) − δ(p̂), paired by seed (Alg. 1 filters
    the same p̂; each seed has its own p̂ and DRE, so the spread over seeds holds both trainings'
    noise), must be negative by a one-sided t test over the seeds ("fails": positive by the same
    test). The same rule judges the re-trained model (the positive control: δ(p̂′) − δ(p̂)) and the
    pre-trained one (doing nothing) in ``details["rows"]``; ``model`` chooses the model judged.
    The control column holds the exact shift of the data.

    Where the results have a control GAN (a second pre-trained model on X: another training, no
    deletion), the rule judges it too (δ(control) − δ(p̂), a row of its own). A rule that credits it
    ("holds" or "partly") cannot tell deletion from a second training: the claim then reads "not
    distinguishable from training noise", whatever fast deletion's count, and so does its row of the
    re-trained model.

    Examples
    --------
    >>> from gendel.gan.summaries import LabelSummary
    >>> def summary(approx_even, spread=1e-3):
    ...     row = lambda e: np.array([e, (1 - 5 * e) / 5] * 5)
    ...     d = {"pre": np.array([row(0.1)] * 3), "re": np.array([row(0.08 + k * 1e-3) for k in range(3)]),
    ...          "approx": np.array([row(approx_even + k * spread) for k in range(3)])}
    ...     return LabelSummary("mnist", "even", 0.7, (0, 1, 2), 5000, d, row(0.1), row(0.08))
    >>> claim_fewer_deleted_labels([summary(0.09)]).verdict       # 5 points fewer in every seed
    'holds'
    >>> claim_fewer_deleted_labels([summary(0.11)]).verdict
    'does not hold'
    >>> claim_fewer_deleted_labels([summary(0.099, 0.01)]).verdict
    'not resolved at this sample size'
    """
    judged = ("re", "pre", "control") if summaries and all("control" in s.dist for s in summaries) else ("re", "pre")
    rows = ({m: claim_row(claim_fewer_deleted_labels(summaries, m), _short(m)) for m in judged}
            if model == "approx" else None)
    credits_control = bool(rows) and rows.get("control", {}).get("verdict") in ("holds", "partly")
    if credits_control:
        # the rule cannot tell deletion from a second training: not for fast deletion, not for re-training
        re = rows["re"]["claim"]
        rows["re"] = claim_row(dataclasses.replace(re, verdict=NOT_DISTINGUISHABLE), _short("re"))
    claim = case_claim("fewer_deleted_labels", "Fig. 7(a)(b), §5.2, App. E.2, E.3",
                       "the approximated model generates fewer of the deleted labels", _fewer_cases(summaries, model),
                       _seeds(summaries), rows)
    if credits_control:
        control = rows["control"]
        return dataclasses.replace(claim, verdict=NOT_DISTINGUISHABLE, numbers=(
            f"{claim.numbers}; the rule credits another training on X (the control, {control['passed']}/"
            f"{control['n']}), so it cannot tell deletion from training noise, for fast deletion or for "
            f"re-training"))
    return claim


def _close_values(s, model):
    """δ(model) − δ(p̂′) per seed; for ``re`` another re-training: δ(p̂′ of the next seed) − δ(p̂′)."""
    re = s.mass("re")
    if model == "re":
        return np.roll(re, -1) - re if len(re) > 1 else np.zeros(1)
    return s.mass(model) - re


def claim_close_to_retrained(summaries, model="approx"):
    """Fig. 7 caption: the approximated label distribution is close to the re-trained one.

    An equivalence test on the deleted mass, per deletion set: d = δ(ρ̂_ℰ·p̂) − δ(p̂′) per seed (same
    seed), margin M = :func:`training_sd_mass` of the data set (how far one training's δ falls from
    the next). The case passes ("close") when two one-sided t tests over the seeds put the mean of d
    inside (−M, M), and fails ("not close", the opposite shown) when a one-sided t test puts the absolute mean of d
    above M; otherwise it is within noise. The re-trained model is judged by the same rule against
    another re-training (p̂′ of the next seed), the pre-trained model (doing nothing) against p̂′ of
    its seed (``details["rows"]``). Without a margin (no control, one seed) the case is left out.

    Examples
    --------
    >>> from gendel.gan.summaries import LabelSummary
    >>> row = lambda e: np.array([e, (1 - 5 * e) / 5] * 5)
    >>> re = [0.07, 0.076, 0.064]                 # three re-trainings: δ 0.35, 0.38, 0.32
    >>> def summary(approx_even):                 # approx_even(e): the approximated model's even share, seed by seed
    ...     d = {"pre": np.array([row(0.1)] * 3), "approx": np.array([row(approx_even(e)) for e in re]),
    ...          "re": np.array([row(e) for e in re]), "control": np.array([row(0.1), row(0.102), row(0.099)])}
    ...     return LabelSummary("mnist", "even", 0.7, (0, 1, 2), 5000, d, row(0.1), row(0.07))
    >>> claim_close_to_retrained([summary(lambda e: e + 5e-4)]).verdict     # as p̂′ of its seed
    'holds'
    >>> claim_close_to_retrained([summary(lambda e: 0.095)]).verdict        # near p̂: doing nothing
    'does not hold'
    """
    margins = training_sd_mass(summaries)
    cases = []
    for s in summaries:
        margin = margins.get(s.dataset, float("nan"))
        if np.isnan(margin) or model not in s.dist:
            continue
        values = _close_values(s, model)
        floor = _floor_shift(s, model, "re")
        mean, se, df, far_below, far_above = t_test(values, floor=floor, margin=margin)
        hw = t_halfwidth(se, df)
        if df >= 1 and se > 0:
            p_close = max(float(_st.t.sf((mean + margin) / se, df)), float(_st.t.cdf((mean - margin) / se, df)))
        else:
            p_close = float("nan")
        p_far = min(far_below, far_above)
        outcome = case_outcome(df, p_close, p_far)
        verdict_words = {"passes": "close", "fails": "not close", "within noise": "open", ONE_SEED: "not judged"}[outcome]
        text = (f"δ − δ(p̂′) {signed(mean)}{plus_minus(hw)} against the margin ±{margin:.3f}: {verdict_words}; "
                f"δ: model {s.mass(model).mean():.3f}, p̂′ {s.mass('re').mean():.3f}, p̂ {s.mass('pre').mean():.3f}")
        cases.append(Case(_name(s), mean, hw, margin, outcome, text, p_close))
    rows = ({m: claim_row(claim_close_to_retrained(summaries, m), _short(m)) for m in ("re", "pre")}
            if model == "approx" else None)
    return case_claim("close_to_retrained", "Fig. 7 caption", "the approximated model's label distribution is close to "
                  "the re-trained one", cases, _seeds(summaries), rows, margins=margins)


def claim_odd_variance_higher(summaries, datasets=("mnist", "fashion-mnist")):
    """App. E.2 (MNIST), E.3 (Fashion-MNIST, "slightly"): the variance over seeds is higher when
    deleting odd labels than even ones.

    Compared per data set and λ: the variance over the seeds of the approximated label distribution,
    averaged over the ten labels, odd against even, by a one-sided F test with (n − 1, n − 1) degrees of
    freedom (the ten labels share the seeds, so they count as one variance). "fails": even higher by
    the same test. Needs at least two seeds.

    Examples
    --------
    >>> from gendel.gan.summaries import LabelSummary
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
        e = float(np.mean(s.dist["approx"].var(axis=0, ddof=1)))
        o = float(np.mean(odd.dist["approx"].var(axis=0, ddof=1)))
        de, do = len(s.seeds) - 1, len(odd.seeds) - 1
        ratio = o / e if e > 0 else float("inf")
        p_higher, p_lower = float(_st.f.sf(ratio, do, de)), float(_st.f.cdf(ratio, do, de))
        outcome = case_outcome(min(de, do), p_higher, p_lower)
        cases.append(Case(f"{DATASET_NAMES[dataset]} λ = {lam:g}", ratio, float("nan"), float(_st.f.ppf(1 - CASE_LEVEL, do, de)), outcome,
                          f"mean SE even {np.sqrt(e / (de + 1)):.4f}, odd {np.sqrt(o / (do + 1)):.4f}; variance ratio "
                          f"odd/even {ratio:.2f} (F test: above {_st.f.ppf(1 - CASE_LEVEL, do, de):.1f} to pass)", p_higher))
    return case_claim("odd_variance_higher", "App. E.2, E.3", "the variance over seeds is higher when deleting odd labels",
                  cases, _seeds([s for s in summaries if s.dataset in datasets]))


def claim_fast(cost_list, summaries=None):
    """§2 and §5.2 ("fast deletion"): fast deletion reaches its quality faster than re-training does.

    Per deletion set: quality is the TV of the label distribution to the exact X \\ X'; fast deletion's
    cost is the VDM's training and Alg. 1's sampling of m points; re-training's cost the seconds its
    training needs to reach the same TV (from its per-epoch copies). The case's number is the median
    over the seeds of that ratio; its test is a one-sided t test over the seeds on the log of the ratio
    (a seed whose re-training never reaches the TV counts with its whole training, a lower bound; the
    log of one seed's ratio is taken to scatter by at least :data:`TIMING_SCATTER`):
    "passes" when re-training needs more, "fails" when it needs less. The paper's fixed-epoch ratio is
    given beside it.

    With ``summaries`` (the :class:`~gendel.gan.summaries.LabelSummary` of the same results) doing
    nothing is the baseline: the pre-trained model costs 0 s. Where fast deletion's TV is not below
    the pre-trained model's by a one-sided t test over the seeds (its standard error never less than
    sampling alone gives), the measure does not see the deletion, and the case is "within noise"
    whatever re-training needs: a re-training that "never reaches" such a TV says nothing about speed.
    Such a case keeps the p-value of its speed test (and Holm's adjustment of it, monotone in the raw
    p-values over the claim's cases); the reason it is not counted is its ``override``,
    :data:`DOING_NOTHING`. A case of one seed is "one seed: not judged".

    Examples
    --------
    >>> from gendel.gan.summaries import Cost
    >>> c = lambda seed, t: Cost("mnist", "even", 0.7, seed, "cpu", 100, np.array([[t, 0.3], [2 * t, 0.1]]),
    ...                          np.array([[1.0, 0.25], [2.0, 0.2]]), 0.5)
    >>> claim_fast([c(0, 10.0), c(1, 12.0), c(2, 11.0)]).verdict, claim_fast([c(0, 0.5), c(1, 0.6), c(2, 0.55)]).verdict
    ('holds', 'does not hold')
    """
    groups = defaultdict(list)
    for c in cost_list:
        groups[(c.dataset, c.setting, c.lam)].append(c)
    by_set = {(s.dataset, s.setting, s.lam): s for s in (summaries or [])}
    cases = []
    for (dataset, setting, lam), cs in groups.items():
        ratios = np.array([c.speedup_at_equal_quality for c in cs])
        bounded = np.log([r if np.isfinite(r) else c.retrain_seconds / c.fast_seconds for r, c in zip(ratios, cs)])
        _, se, df, below, above = t_test(bounded, floor=TIMING_SCATTER)
        outcome = case_outcome(df, above, below)
        override = ""
        fixed = np.array([c.speedup_fixed_epochs for c in cs])
        median = np.median(ratios)
        text = (f"equal-quality speed-up {'∞ (re-training never reaches it)' if np.isposinf(median) else f'{median:.1f}×'} (seeds "
                f"{', '.join('never' if np.isposinf(r) else f'{r:.1f}' for r in ratios)}), "
                f"fixed epochs {np.median(fixed):.1f}×")
        s = by_set.get((dataset, setting, lam))
        if s is not None and outcome != ONE_SEED:
            pre = dict(zip(s.seeds, s.tv("pre", "kept")))
            gain = np.array([pre[c.seed] - c.fast_tv for c in cs if c.seed in pre])
            if len(gain):
                mean, gse, gdf, _, better = t_test(gain, floor=s.sampling("pre")[1])
                hw = t_halfwidth(gse, gdf)
                if not better < CASE_LEVEL:
                    outcome, override = "within noise", DOING_NOTHING
                    text += ("; the pre-trained model's TV is "
                             f"{np.mean([pre[c.seed] for c in cs if c.seed in pre]):.3f} against fast deletion's "
                             f"{np.mean([c.fast_tv for c in cs]):.3f} (difference {signed(mean)}{plus_minus(hw)})")
                else:
                    text += f"; better than doing nothing by {mean:.3f}{plus_minus(hw)} in TV"
        cases.append(Case(f"{DATASET_NAMES[dataset]} {setting}-{lam:g}", float(median), float("nan"), None, outcome, text, above,
                          override=override))
    return case_claim("fast", "§2, §5.2", "fast deletion reaches its quality faster than re-training (cost at equal quality)",
                  cases, max((len(v) for v in groups.values()), default=0))


__all__ = ["DOING_NOTHING", "JUDGED", "TIMING_SCATTER", "Estimate", "beta_fit", "claim_close_to_retrained", "claim_fast",
           "claim_fewer_deleted_labels", "claim_odd_variance_higher", "power_table", "shift_estimates", "shift_values",
           "training_noise_mass", "training_sd_mass"]
