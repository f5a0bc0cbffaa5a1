"""The claims of §5.2 and Appendix E (the GAN half), checked on GAN results with their noise.

Each ``claim_*`` function reads the summaries of :mod:`gendel.gan.summaries` and returns a
``gendel.claims.base.Claim`` whose ``details["cases"]`` holds one :class:`Case` per deletion
set (or pair of them) it was checked on. The rules, stated before any number:

- **One test per case, over the seeds.** A case's number is a mean over the seeds; its test is a
  one-sided Student t test with n − 1 degrees of freedom (n seeds) at level
  ``gendel.claims.base.CASE_LEVEL`` (5 %), its standard error never smaller than sampling alone
  gives; the "± noise" beside a number is the half-width of the 90 % t interval (it excludes a value
  exactly when the one-sided test rejects it). A case "passes" when the claim is shown, "fails" only
  when the opposite is shown beyond noise, and is "within noise" otherwise ("training noise" where the
  comparison is with a second training and the effect is not beyond it).
- **Chance is counted.** Each case's p-value is adjusted over the cases of its claim by Holm's method
  (``details["holm"]``: the cases still shown). The verdict counts cases: "holds"/"partly" only when the
  passing cases reach ``gendel.claims.base.binomial_critical`` (what chance gives with no effect
  at 5 % per case: 3 of 16, 3 of 8, 2 of 4, 2 of 2), "does not hold" when the failing cases reach it.
  Results of one seed (the gpu profile) are "one seed: not judged": their numbers are shown, no verdict.
- **Controls on both sides.** The claims of Q2 judge the re-trained model (the positive control) and the
  pre-trained one (doing nothing) by exactly the rule that judges fast deletion
  (``details["rows"]``).
- **Q2's primary endpoint** is the deleted mass δ (the share of samples whose label is one X′ was drawn
  from) and its shift from the pre-trained model; β, the share of the exact data shift
  δ(X ∖ X′) − δ(X) a model moves, is its scale-free form. "Close to the re-trained model" is an
  equivalence test (two one-sided t tests) on δ(model) − δ(p̂′) with the margin
  :func:`training_sd_mass`, the standard deviation of δ from one training to the next.

Claims scoped to one data set by the paper are checked there only: Appendix E.2's statements on
MNIST, E.3's on Fashion-MNIST. :func:`claims` refuses results it cannot pool (``CannotPool``).
"""

from __future__ import annotations

import dataclasses
from collections import Counter, defaultdict

import numpy as np
from scipy import stats as _st

from gendel.claims.base import (CASE_LEVEL, NOT_DISTINGUISHABLE, NOT_RESOLVED, ONE_SEED, CannotPool, Claim,
                                binomial_critical, counted_verdict, detectable_shift, holm, ks_critical, seeds_needed,
                                t_halfwidth, t_test)
from gendel.deletion_test.stats import STATISTICS
from gendel.gan.images import DATASET_NAMES
from gendel.gan.summaries import costs, ks_summary, label_summary

#: The level of each case's one-sided test (5 %).
LEVEL = CASE_LEVEL
#: A KS difference smaller than this is "slight" (App. E.2's "slightly", E.3's "no significant difference").
SLIGHT_KS = 0.1

#: The least scatter of the log of one seed's speed-up (10 %: timings of one machine vary that much).
TIMING_SCATTER = 0.1

#: The override with which :func:`claim_fast` sets aside a case whose TV doing nothing matches (``Case.override``).
DOING_NOTHING = "doing nothing is as good or better"
#: The outcomes of a case; a case of one seed is "one seed: not judged" (no spread, no test), as its claim is.
OUTCOMES = ("passes", "fails", "within noise", "training noise", ONE_SEED)
#: What a claims table shows for a model that the results cannot judge because they hold no control GAN.
NO_CONTROL = "no control draws in this profile"
#: The models a Q2 claim judges by one rule: fast deletion, the positive control and doing nothing.
JUDGED = {"approx": "fast deletion (approximated ρ̂_ℰ·p̂)", "re": "re-trained p̂′ (positive control)",
          "pre": "pre-trained p̂ (doing nothing)", "control": "control GAN (doing nothing, another seed)"}


@dataclasses.dataclass(frozen=True)
class Case:
    """One case of a claim: a deletion set (or a pair), our number, its noise, the control, the outcome.

    ``p`` is the one-sided p-value of the claim's direction over the seeds, ``p_holm`` the same
    adjusted by Holm's method over the cases of the claim (NaN where there is none). ``override``
    says why a case whose own test passes is not counted as passing (empty when nothing overrides
    it): its ``p`` stays the test's, the override is a reason beside it.

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
    p: float = float("nan")
    p_holm: float = float("nan")
    override: str = ""

    def __post_init__(self):
        if self.outcome not in OUTCOMES:
            raise ValueError(f"outcome must be one of {OUTCOMES}; got {self.outcome!r}")


def case_verdict(outcomes, seeds=2):
    """The verdict of a claim from the outcomes of its cases (see the module text and
    ``gendel.claims.base.counted_verdict``): the passing cases must reach the binomial count.

    Examples
    --------
    >>> case_verdict(["passes", "passes"]), case_verdict(["passes"] * 3 + ["within noise"] * 13)
    ('holds', 'partly')
    >>> case_verdict(["passes"] + ["within noise"] * 15), case_verdict(["fails"] * 3 + ["within noise"] * 5)
    ('not resolved at this sample size', 'does not hold')
    >>> case_verdict(["training noise", "within noise"]), case_verdict(["passes"], seeds=1), case_verdict([])
    ('not distinguishable from training noise', 'one seed: not judged', 'not tested')
    """
    outcomes = list(outcomes)
    open_words = NOT_DISTINGUISHABLE if "training noise" in outcomes else NOT_RESOLVED
    return counted_verdict(outcomes.count("passes"), outcomes.count("fails"), len(outcomes), seeds=seeds,
                           open_words=open_words)


def _signed(x, digits=3):
    """``x`` with its sign and a true minus sign: +0.040, −0.090; a dash for NaN."""
    if x is None or not np.isfinite(x):
        return "–"
    return f"{x:+.{digits}f}".replace("-", "−")


def _measured(x, digits=3):
    """``x`` to ``digits`` places, or "not measured" for a NaN (a result without a control)."""
    return "not measured" if x is None or np.isnan(x) else f"{x:.{digits}f}"


def _pm(hw, digits=3):
    """`` ± 0.012`` for a half-width, nothing for one seed (NaN): never "± nan"."""
    return "" if hw is None or not np.isfinite(hw) else f" ± {hw:.{digits}f}"


def _name(s):
    return f"{DATASET_NAMES.get(s.dataset, s.dataset)} {s.setting}-{s.lam:g}"


def _outcome(df, p_pass, p_fail, open_words="within noise"):
    """A case's outcome from its one-sided p-values: "one seed: not judged" without degrees of freedom
    (one seed: no t test with df = 0), else passes / fails at :data:`LEVEL`, else ``open_words``."""
    if df < 1:
        return ONE_SEED
    return "passes" if p_pass < LEVEL else "fails" if p_fail < LEVEL else open_words


#: The columns of :func:`case_rows`.
CASE_HEADER = ("case", "our number", "± noise (90 % t)", "control / margin", "outcome", "Holm p", "overridden by",
               "details")


def case_rows(claim):
    """The rows of a table of a claim's cases (:data:`CASE_HEADER`), numbers formatted ("–": none).

    Examples
    --------
    >>> c = Claim("k", "text", "§5.2", "", "holds", {"cases": [Case("MNIST even-0.7", -0.03, 0.01, None, "passes", "δ ...")]})
    >>> case_rows(c)
    [['MNIST even-0.7', '−0.030', '0.010', '–', 'passes', '–', '–', 'δ ...']]
    """
    def number(x, signed=False):
        if x is not None and np.isposinf(x):
            return "∞"
        if x is None or not np.isfinite(x):
            return "–"
        return _signed(x) if signed else f"{x:.3f}".replace("-", "−")

    def pvalue(p):
        return "–" if p is None or not np.isfinite(p) else ("< 0.001" if p < 0.001 else f"{p:.3f}")

    return [[k.label, number(k.number, signed=True), number(k.noise), number(k.control), k.outcome, pvalue(k.p_holm),
             k.override or "–", k.text] for k in claim.details["cases"]]


def outcome_counts(cases, seeds=2):
    """The outcomes of a claim's cases in a few words, with k/n and the count chance explains:
    ``"3/16 pass (3 needed beyond chance); 13 within noise"``.

    Examples
    --------
    >>> outcome_counts([Case("a", 0, 0, None, "passes", ""), Case("b", 0, 0, None, "within noise", "")])
    '1/2 pass (2 needed beyond chance); 1 within noise'
    """
    n = len(cases)
    if not n:
        return "not tested on these results"
    if seeds < 2:
        return f"{n} case{'s' if n > 1 else ''} of one seed: not judged"
    passed = sum(c.outcome == "passes" for c in cases)
    others = [f"{k} {o}" for o in OUTCOMES[1:] for k in [sum(c.outcome == o for c in cases)] if k]
    return f"{passed}/{n} pass ({binomial_critical(n)} needed beyond chance)" + (f"; {', '.join(others)}" if others else "")


def _with_holm(cases):
    adjusted = holm([c.p for c in cases])
    return [dataclasses.replace(c, p_holm=float(a)) for c, a in zip(cases, adjusted)]


def _claim(key, where, text, cases, seeds, rows=None, **details):
    """A Claim whose ``numbers`` count the outcomes (k/n, the closing page's short form) and whose
    ``details`` hold every case (the chapter's tables), the counts, Holm's survivors and the rows of
    the controls judged by the same rule."""
    cases = _with_holm(list(cases))
    passed = sum(c.outcome == "passes" for c in cases)
    failed = sum(c.outcome == "fails" for c in cases)
    shown = sum(c.outcome == "passes" and c.p_holm < LEVEL for c in cases)
    numbers = outcome_counts(cases, seeds)
    if rows:
        numbers += "; " + "; ".join(f"{JUDGED[m].split(' (')[1].rstrip(')')}: {r['verdict']}"
                                    + (f", {r['passed']}/{r['n']}" if seeds >= 2 and r["n"] else "")
                                    for m, r in rows.items())
    return Claim(key, text, where, numbers, case_verdict((c.outcome for c in cases), seeds),
                 {"cases": cases, "passed": passed, "failed": failed, "n": len(cases), "seeds": seeds,
                  "critical": binomial_critical(len(cases)) if cases else 0, "holm": shown, "rows": rows or {},
                  **details})


def _seeds(summaries):
    return max((len(s.seeds) for s in summaries), default=0)


def _row(claim):
    d = claim.details
    return {"verdict": claim.verdict, "passed": d["passed"], "failed": d["failed"], "n": d["n"], "claim": claim}


# ---- checks at the boundary ---------------------------------------------------------------------


def check_poolable(results):
    """Refuse GAN results that one claim cannot pool, with one ``CannotPool`` naming them:
    not a list of ``JobResult``, mixed profiles, two results of one job (data set, setting, λ, seed),
    different numbers of labelled samples (``m_labels``) or of deletion-test draws (Q3's m, R), or
    controls in only some results. Returns the results as a list.

    Examples
    --------
    >>> check_poolable(None)
    Traceback (most recent call last):
    gendel.claims.base.CannotPool: the GAN claims need a list of JobResult (as gendel.gan.results.stored_results returns); got None
    """
    from gendel.gan.results import JobResult

    if results is None or isinstance(results, (str, bytes, dict)) or not hasattr(results, "__iter__"):
        raise CannotPool(f"the GAN claims need a list of JobResult (as gendel.gan.results.stored_results returns); got "
                         f"{results if results is None else type(results).__name__}")
    results = list(results)
    bad = [f"item {i} ({type(r).__name__})" for i, r in enumerate(results) if not isinstance(r, JobResult)]
    if bad:
        raise CannotPool(f"the GAN claims need JobResult objects; got {', '.join(bad[:5])}: pass what "
                         "gendel.gan.results.stored_results or load_results returns")

    def names(rs):
        rs = list(rs)
        return ", ".join(r.name for r in rs[:4]) + (f" and {len(rs) - 4} more" if len(rs) > 4 else "")

    def refuse_mixed(what, value, fix):
        groups = defaultdict(list)
        for r in results:
            groups[value(r)].append(r)
        if len(groups) > 1:
            parts = "; ".join(f"{what} {k}: {names(v)}" for k, v in groups.items())
            raise CannotPool(f"the GAN claims cannot pool results with different {what} ({parts}); {fix}")

    refuse_mixed("profiles", lambda r: r.profile.get("name"), "pass the results of one profile")
    jobs = Counter((r.dataset, r.setting, float(r.lam), r.seed) for r in results)
    twice = [r for r in results if jobs[(r.dataset, r.setting, float(r.lam), r.seed)] > 1]
    if twice:
        raise CannotPool(f"the GAN claims got the same job twice ({names(twice)}): pass each (data set, setting, "
                         "λ, seed) once")
    refuse_mixed("m_labels", lambda r: r.profile.get("m_labels"), "pass results made with one m_labels")
    refuse_mixed("Q3 (m, R)", lambda r: (r.q3.get("m"), r.q3.get("R")), "pass results made with one m and R")
    refuse_mixed("controls", lambda r: "with a control" if "control" in r.labels else "without a control",
                 "pass only results with a control, or only results without one")
    return results


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
    >>> from gendel.gan.results import stored_results
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
    >>> from gendel.gan.results import stored_results
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
        outcome = _outcome(df, below, above)
        pm, pa = float(s.mass("pre").mean()), float(s.mass(model).mean())
        text = (f"δ {pm:.3f} → {pa:.3f}: shift {_signed(mean)}{_pm(hw)}, β = {_signed(mean / s.exact_shift, 2)} of the "
                f"exact {_signed(s.exact_shift)}")
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
    rows = ({m: _row(claim_fewer_deleted_labels(summaries, m)) for m in ("re", "pre")}
            if model == "approx" else None)
    return _claim("fewer_deleted_labels", "Fig. 7(a)(b), §5.2, App. E.2, E.3",
                  "the approximated model generates fewer of the deleted labels", _fewer_cases(summaries, model),
                  _seeds(summaries), rows)


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
        outcome = _outcome(df, p_close, p_far)
        verdict_words = {"passes": "close", "fails": "not close", "within noise": "open", ONE_SEED: "not judged"}[outcome]
        text = (f"δ − δ(p̂′) {_signed(mean)}{_pm(hw)} against the margin ±{margin:.3f}: {verdict_words}; "
                f"δ: model {s.mass(model).mean():.3f}, p̂′ {s.mass('re').mean():.3f}, p̂ {s.mass('pre').mean():.3f}")
        cases.append(Case(_name(s), mean, hw, margin, outcome, text, p_close))
    rows = ({m: _row(claim_close_to_retrained(summaries, m)) for m in ("re", "pre")}
            if model == "approx" else None)
    return _claim("close_to_retrained", "Fig. 7 caption", "the approximated model's label distribution is close to "
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
        outcome = _outcome(min(de, do), p_higher, p_lower)
        cases.append(Case(f"{DATASET_NAMES[dataset]} λ = {lam:g}", ratio, float("nan"), float(_st.f.ppf(1 - LEVEL, do, de)), outcome,
                          f"mean SE even {np.sqrt(e / (de + 1)):.4f}, odd {np.sqrt(o / (do + 1)):.4f}; variance ratio "
                          f"odd/even {ratio:.2f} (F test: above {_st.f.ppf(1 - LEVEL, do, de):.1f} to pass)", p_higher))
    return _claim("odd_variance_higher", "App. E.2, E.3", "the variance over seeds is higher when deleting odd labels",
                  cases, _seeds([s for s in summaries if s.dataset in datasets]))


def _ks_by(ks, stat="lr"):
    return {(k.dataset, k.setting, k.lam): k for k in ks if k.stat == stat}


def _ks_seeds(ks):
    return max((len(k.seeds) for k in ks), default=0)


def one_sided_critical(R, level=LEVEL):
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
    >>> from gendel.gan.results import stored_results
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
        out[key] = (float(np.quantile(null, 1 - LEVEL)), null)
    return out


def control_rejection_rate(ks, stat="lr"):
    """How often the control, a second pre-trained GAN, "separates": the share of its jobs whose one-sided
    KS(H0, control) exceeds (a) the KS table's one-sided 5 % critical value and (b) the critical value
    calibrated on the other deletion sets' controls. ``(rate_table, rate_calibrated, jobs)``; NaNs
    without controls.

    Examples
    --------
    >>> from gendel.gan.summaries import ks_summary
    >>> from gendel.gan.results import stored_results
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
        single = float(np.quantile(pool, 1 - LEVEL))    # the critical value for one job
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
                outcome = _outcome(len(k.seeds) - 1, p, p_low, "training noise")
                out.append(Case(label, value, float("nan"), critical, outcome,
                                f"one-sided KS(H0, {'H1' if out is cases else 'control'}) {value:.2f} against the "
                                f"control's 95 % {critical:.2f} (the control's own mean {control:.2f})", p))
        else:
            critical = one_sided_critical(k.R)
            _, se, df, _, _ = t_test(up, floor=float(k.boot_se.mean()))
            p = float(_st.t.sf((mean - critical) / se, df)) if df >= 1 and se > 0 else float("nan")
            p_low = float(_st.t.cdf((mean - critical) / se, df)) if df >= 1 and se > 0 else float("nan")
            outcome = _outcome(df, p, p_low)
            cases.append(Case(label, mean, float("nan"), critical, outcome,
                              f"one-sided KS(H0, H1) {mean:.2f} against the KS table's one-sided {critical:.2f} "
                              "(no control)", p))
    rate_table, rate_calibrated, jobs = control_rejection_rate(ks, stat)
    seeds = _ks_seeds(ks)
    rows = {"control": _row(_claim("separation", "", "", control_cases, seeds))} if control_cases else None
    return _claim("separation", "Fig. 7(c), §5.2", "ρ̂_ℰ distinguishes samples of the pre-trained and the re-trained "
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
    outcome = _outcome(df, above, below)
    return Case(label, mean, hw, None, outcome, text.format(d=f"{_signed(mean, 2)}{_pm(hw, 2)}"), above)


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
    return _claim("odd_separates_better", "App. E.2", "the separation for odd-λ is better than for even-λ (MNIST)", cases,
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
        fails = any(t[3] < LEVEL for t, _ in tests)
        outcome = _outcome(min(t[2] for t, _ in tests), p, 0.0 if fails else 1.0)
        worst = min(tests, key=lambda ts: ts[0][0])[0]
        text = f"two-sided KS(LR) {k_lr.mean:.2f}; " + ", ".join(
            f"LR − {STATISTICS[s].label} {_signed(t[0], 2)}{_pm(t_halfwidth(t[1], t[2]), 2)}" for t, s in tests)
        cases.append(Case(label, worst[0], t_halfwidth(worst[1], worst[2]), None, outcome, text, p))
    return _claim("lr_better_than_asc", "App. E.2", "LR separates slightly better than ASC (MNIST)", cases, _ks_seeds(ks))


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
        outcome = _outcome(min(dfs), p, min(ps_far))
        biggest = max(parts, key=lambda t: abs(t[0]))
        text = f"two-sided KS(LR) {k_lr.mean:.2f}; " + ", ".join(
            f"LR − {STATISTICS[s].label} {_signed(m, 2)}{_pm(h, 2)}" for m, h, s in parts) + f" (margin ±{margin:.2f})"
        cases.append(Case(label, biggest[0], biggest[1], margin, outcome, text, p))
    return _claim("no_lr_asc_difference", "App. E.3", "no significant difference between LR and ASC (Fashion-MNIST)",
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
    return _claim("smaller_lambda_not_more_separation", "App. E.2", "a smaller λ does not lead to more separation (MNIST)",
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
    return _claim("fashion_lambda", "App. E.3", "on Fashion-MNIST the separation is good for λ = 0.6, not for λ = 0.9",
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
    return _claim("fashion_harder", "App. E.3", "the deletion test is harder on Fashion-MNIST than on MNIST", cases,
                  _ks_seeds(ks))


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
        outcome = _outcome(df, above, below)
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
                if not better < LEVEL:
                    outcome, override = "within noise", DOING_NOTHING
                    text += ("; the pre-trained model's TV is "
                             f"{np.mean([pre[c.seed] for c in cs if c.seed in pre]):.3f} against fast deletion's "
                             f"{np.mean([c.fast_tv for c in cs]):.3f} (difference {_signed(mean)}{_pm(hw)})")
                else:
                    text += f"; better than doing nothing by {mean:.3f}{_pm(hw)} in TV"
        cases.append(Case(f"{DATASET_NAMES[dataset]} {setting}-{lam:g}", float(median), float("nan"), None, outcome, text, above,
                          override=override))
    return _claim("fast", "§2, §5.2", "fast deletion reaches its quality faster than re-training (cost at equal quality)",
                  cases, max((len(v) for v in groups.values()), default=0))


def claims(results):
    """Every claim of §5.2 and Appendix E, checked on ``results``.

    Examples
    --------
    >>> from gendel.gan.results import stored_results
    >>> table = claims(stored_results("gpu"))
    >>> len(table), table[0].where
    (11, 'Fig. 7(a)(b), §5.2, App. E.2, E.3')
    """
    results = check_poolable(results)
    s = label_summary(results)
    ks = ks_summary(results)
    return [claim_fewer_deleted_labels(s), claim_close_to_retrained(s), claim_odd_variance_higher(s),
            claim_separation(ks), claim_odd_separates_better(ks), claim_lr_better_than_asc(ks),
            claim_no_lr_asc_difference(ks), claim_smaller_lambda_not_more_separation(ks), claim_fashion_lambda(ks),
            claim_fashion_harder(ks), claim_fast(costs(results), s)]


__all__ = ["CASE_HEADER", "DOING_NOTHING", "JUDGED", "LEVEL", "NO_CONTROL", "OUTCOMES", "SLIGHT_KS", "TIMING_SCATTER", "Case", "Estimate",
           "beta_fit", "case_rows", "case_verdict", "check_poolable", "claims", "control_calibration", "detectable_shift", "power_table", "seeds_needed",
           "control_rejection_rate", "one_sided_critical", "outcome_counts", "shift_estimates", "shift_values",
           "training_noise_mass", "training_sd_mass", "claim_close_to_retrained", "claim_fashion_harder",
           "claim_fashion_lambda", "claim_fast", "claim_fewer_deleted_labels", "claim_lr_better_than_asc",
           "claim_no_lr_asc_difference", "claim_odd_separates_better", "claim_odd_variance_higher",
           "claim_separation", "claim_smaller_lambda_not_more_separation"]
