"""The verdict of a claim and the Claim record every module of gendel.claims returns.

Below them, the counting of cases that the GAN claims (:mod:`gendel.claims.gan_q2`,
:mod:`gendel.claims.gan_q3`) share: a :class:`Case` per deletion set with its one-sided p-value
over the seeds (:func:`t_test`), its outcome (:func:`case_outcome`), Holm's adjustment over the
cases of a claim (:func:`holm`), and a verdict only when the passing cases reach what chance does
not explain (:func:`binomial_critical`, :func:`counted_verdict`); :func:`case_claim` makes the
``Claim`` of such cases.
"""


from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

import numpy as np
from scipy import stats
from scipy.special import kolmogi

#: The verdict of a claim whose compared differences all lie inside their noise margins.
NOT_RESOLVED = "not resolved at this sample size"
#: The verdict of a claim whose effect is no larger than what another training run gives (GAN half).
NOT_DISTINGUISHABLE = "not distinguishable from training noise"
#: The verdict of a claim checked on results of one seed: no spread over seeds to judge it by (GAN half).
ONE_SEED = "one seed: not judged"
VERDICTS = ("holds", "partly", "does not hold", NOT_RESOLVED, NOT_DISTINGUISHABLE, ONE_SEED, "not tested")
#: The level of each case's one-sided test (a case "passes" or "fails" at this level).
CASE_LEVEL = 0.05
#: The columns of a claims table, in the order of :func:`rows`.
HEADER = ("claim", "where", "our numbers", "verdict")


def verdict(passed, total):
    """The verdict of a claim checked on ``total`` cases of which ``passed`` pass.

    "holds" when every case passes, "partly" when some do, "does not hold" when none does and
    "not tested" when there is no case.

    Examples
    --------
    >>> verdict(3, 3), verdict(1, 3), verdict(0, 3), verdict(0, 0)
    ('holds', 'partly', 'does not hold', 'not tested')
    """
    passed, total = int(passed), int(total)
    if total < 0 or not 0 <= passed <= total:
        raise ValueError(f"need 0 <= passed <= total; got passed={passed}, total={total}")
    if total == 0:
        return "not tested"
    return "holds" if passed == total else ("partly" if passed > 0 else "does not hold")


@dataclass(frozen=True)
class Claim:
    """A claim of the paper, checked: one row of a claims table.

    Parameters
    ----------
    key : str
        Short name of the claim (``"monotone"``); the glue key of its verdict is
        ``f"{prefix}_v_{key}"`` (see :func:`glue_values`).
    text : str
        The claim, in a few words.
    where : str
        Where the paper makes it (``"§5.1, Fig. 4(a)"``).
    numbers : str
        Our numbers behind the verdict, short.
    verdict : str
        One of :data:`VERDICTS`.
    details : dict
        The numbers the page's prose reads (counts, means), by name.

    Examples
    --------
    >>> c = Claim("lambda", "larger λ gives better estimation", "§5.1", "τ < 0 for 7/8 σ_C",
    ...           verdict(7, 8), {"lambda_neg": 7})
    >>> c.verdict, c.details["lambda_neg"]
    ('partly', 7)
    """

    key: str
    text: str
    where: str
    numbers: str
    verdict: str
    details: dict = field(default_factory=dict)

    def __post_init__(self):
        if self.verdict not in VERDICTS:
            raise ValueError(f"verdict must be one of {VERDICTS}; got {self.verdict!r}")


def rows(claims):
    """The rows of a claims table, numbered: ``[f"{i}. {text}", where, numbers, verdict]``.

    Pass them with :data:`HEADER` to ``gendel.plotting.markdown_table``.

    Examples
    --------
    >>> rows([Claim("a", "KS grows", "Fig. 4(a)", "9/10 curves", "partly")])
    [['1. KS grows', 'Fig. 4(a)', '9/10 curves', 'partly']]
    """
    return [[f"{i}. {c.text}", c.where, c.numbers, c.verdict] for i, c in enumerate(claims, 1)]


def glue_values(claims, prefix):
    """The values a page glues: ``{prefix}_v_{key}`` (verdicts) and ``{prefix}_{name}`` (details).

    Two claims may share a detail (e.g. the number of cases) only with the same value.

    Examples
    --------
    >>> c = Claim("lambda", "larger λ, better", "§5.1", "", "holds", {"lambda_neg": 8})
    >>> glue_values([c], "q1")
    {'q1_v_lambda': 'holds', 'q1_lambda_neg': 8}
    """
    values = {}
    for c in claims:
        for key, value in [(f"v_{c.key}", c.verdict)] + list(c.details.items()):
            key = f"{prefix}_{key}"
            if key in values and values[key] != value:
                raise ValueError(f"two claims glue different values under {key!r}: {values[key]!r} and {value!r}; "
                                 "give one of the details another name")
            values[key] = value
    return values


def ks_critical(R, level=0.05):
    """Critical value of the two-sample KS test with ``R`` values on each side (asymptotic).

    ``sqrt(2 / R) * K^{-1}(1 - level)`` with K the Kolmogorov distribution: the test rejects at
    ``level`` when the KS statistic exceeds it.

    Examples
    --------
    >>> round(ks_critical(250), 3)
    0.121
    """
    if not 0 < level < 1:
        raise ValueError(f"level must be in (0, 1); got {level}")
    if int(R) < 1:
        raise ValueError(f"R must be a positive number of repeats; got {R}")
    return float(kolmogi(level) * np.sqrt(2.0 / int(R)))


class CannotPool(ValueError):
    """Results a claim cannot pool into one verdict (mixed profiles, duplicate jobs, different sample
    sizes, controls in only some of them); the message names the offending results.

    Examples
    --------
    >>> isinstance(CannotPool("two profiles"), ValueError)
    True
    """


def t_test(values, *, floor=0.0, margin=0.0):
    """The mean of per-seed ``values``, its standard error and one-sided t-test p-values over the seeds.

    The standard error is the spread over the seeds divided by √n, never less than ``floor / √n``
    (``floor``: the standard deviation that sampling alone gives one seed's value); the tests use
    Student's t with n − 1 degrees of freedom. Returns ``(mean, se, df, p_below, p_above)``: the
    p-values of "the mean is below −``margin``" and "the mean is above +``margin``" (``margin = 0``:
    the sign of the mean). With one value there is no spread: se comes from ``floor`` alone, df is 0 and
    both p-values are NaN (nothing is judged on one seed).

    Examples
    --------
    >>> mean, se, df, below, above = t_test([-0.05, -0.04, -0.06])
    >>> round(mean, 3), round(se, 4), df, below < 0.01, above > 0.99
    (-0.05, 0.0058, 2, True, True)
    """
    values = np.asarray(values, float).ravel()
    n = len(values)
    if n == 0:
        raise ValueError("t_test needs at least one value")
    mean = float(values.mean())
    spread = float(values.std(ddof=1)) if n > 1 else 0.0
    se = float(max(spread, float(floor)) / np.sqrt(n))
    if n < 2 or se == 0:
        return mean, se, n - 1, float("nan"), float("nan")
    df = n - 1
    below = float(stats.t.cdf((mean + margin) / se, df))
    above = float(stats.t.sf((mean - margin) / se, df))
    return mean, se, df, below, above


def t_halfwidth(se, df, level=1 - 2 * CASE_LEVEL):
    """Half the width of the two-sided ``level`` t interval: ``t_{(1+level)/2, df} · se`` (NaN for df < 1).

    At the default 90 % the interval lies on one side of a value exactly when the one-sided test at
    :data:`CASE_LEVEL` rejects it.

    Examples
    --------
    >>> round(t_halfwidth(1.0, 2), 2), round(t_halfwidth(1.0, 2, 0.95), 2)
    (2.92, 4.3)
    """
    if df < 1:
        return float("nan")
    return float(stats.t.ppf(0.5 + level / 2, df) * se)


def holm(pvalues):
    """Holm's step-down adjustment of p-values (family-wise error over the cases of one claim); NaN
    stays NaN and is not counted in the family.

    Examples
    --------
    >>> holm([0.01, 0.04, 0.03]).round(3).tolist()
    [0.03, 0.06, 0.06]
    """
    p = np.asarray(pvalues, float)
    out = np.full(p.shape, np.nan)
    ok = np.flatnonzero(~np.isnan(p))
    order = ok[np.argsort(p[ok], kind="stable")]
    k = len(order)
    running = 0.0
    for i, j in enumerate(order):
        running = max(running, min(1.0, (k - i) * p[j]))
        out[j] = running
    return out


def binomial_critical(n, level=CASE_LEVEL, alpha=0.05):
    """The fewest passing cases of ``n`` that chance does not explain: the smallest k with
    P(Binomial(n, ``level``) ≥ k) ≤ ``alpha``. Under no effect each case passes with probability at
    most ``level``; a claim with fewer passing cases than this says nothing.

    Examples
    --------
    >>> [binomial_critical(n) for n in (1, 2, 4, 8, 16)]
    [1, 2, 2, 3, 3]
    """
    n = int(n)
    if n < 0:
        raise ValueError(f"n must be a number of cases >= 0; got {n}")
    for k in range(n + 1):
        if stats.binom.sf(k - 1, n, level) <= alpha:
            return k
    return n + 1


def counted_verdict(passed, failed, total, *, seeds=2, open_words=NOT_RESOLVED):
    """The verdict of a claim from the counts of its cases, each tested at :data:`CASE_LEVEL`.

    "holds" when every case passes, "partly" when some do, both only when the passing cases reach
    :func:`binomial_critical` (fewer is what chance gives with no effect at all); "does not hold" when
    the failing cases (the opposite of the claim shown beyond noise) reach it; otherwise
    ``open_words`` (:data:`NOT_RESOLVED` or :data:`NOT_DISTINGUISHABLE`). Results of one seed are
    :data:`ONE_SEED`; no case is "not tested".

    Examples
    --------
    >>> counted_verdict(16, 0, 16), counted_verdict(3, 0, 16), counted_verdict(2, 0, 16)
    ('holds', 'partly', 'not resolved at this sample size')
    >>> counted_verdict(0, 5, 16), counted_verdict(1, 0, 1, seeds=1), counted_verdict(0, 0, 0)
    ('does not hold', 'one seed: not judged', 'not tested')
    """
    passed, failed, total = int(passed), int(failed), int(total)
    if total < 0 or not 0 <= passed + failed <= total or passed < 0 or failed < 0:
        raise ValueError(f"need 0 <= passed + failed <= total; got passed={passed}, failed={failed}, total={total}")
    if total == 0:
        return "not tested"
    if seeds < 2:
        return ONE_SEED
    critical = binomial_critical(total)
    if passed >= critical:
        return "holds" if passed == total else "partly"
    if failed >= critical:
        return "does not hold"
    return open_words


def detectable_shift(sd, seeds, *, power=0.8, level=CASE_LEVEL):
    """The smallest mean shift a one-sided t test over ``seeds`` seeds detects with probability
    ``power`` when one seed's value scatters by ``sd``: ``(t_{1−level, n−1} + t_{power, n−1}) · sd / √n``
    (the usual approximation to the non-central t). Infinite for fewer than two seeds.

    Examples
    --------
    >>> round(detectable_shift(0.01, 3), 4), round(detectable_shift(0.01, 10), 4)
    (0.023, 0.0086)
    """
    n = int(seeds)
    if n < 2:
        return float("inf")
    return float((stats.t.ppf(1 - level, n - 1) + stats.t.ppf(power, n - 1)) * sd / np.sqrt(n))


def seeds_needed(shift, sd, *, power=0.8, level=CASE_LEVEL, most=1000):
    """The fewest seeds whose :func:`detectable_shift` is at most ``|shift|`` (inf beyond ``most``).

    Examples
    --------
    >>> seeds_needed(0.03, 0.01), seeds_needed(0.0, 0.01)
    (3, inf)
    """
    shift = abs(float(shift))
    for n in range(2, int(most) + 1):
        if detectable_shift(sd, n, power=power, level=level) <= shift:
            return n
    return float("inf")


# ---- cases over seeds: the counting the GAN claims share ---------------------------------------

#: The outcomes of a case; a case of one seed is :data:`ONE_SEED` (no spread, no test), as its claim is.
OUTCOMES = ("passes", "fails", "within noise", "training noise", ONE_SEED)


@dataclass(frozen=True)
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


def case_outcome(df, p_pass, p_fail, open_words="within noise"):
    """A case's outcome from its one-sided p-values: :data:`ONE_SEED` without degrees of freedom (one
    seed: no t test with df = 0), else "passes" or "fails" at :data:`CASE_LEVEL`, else ``open_words``.

    Examples
    --------
    >>> case_outcome(2, 0.01, 0.99), case_outcome(2, 0.5, 0.5), case_outcome(0, 0.01, 0.99)
    ('passes', 'within noise', 'one seed: not judged')
    """
    if df < 1:
        return ONE_SEED
    return "passes" if p_pass < CASE_LEVEL else "fails" if p_fail < CASE_LEVEL else open_words


def case_verdict(outcomes, seeds=2):
    """The verdict of a claim from the outcomes of its cases (:func:`counted_verdict`): the passing
    cases must reach the binomial count; "training noise" among them makes an open claim
    :data:`NOT_DISTINGUISHABLE`.

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


def signed(x, digits=3):
    """``x`` with its sign and a true minus sign, for a case's text; a dash for NaN or None.

    Examples
    --------
    >>> signed(0.04), signed(-0.09, 2), signed(float("nan"))
    ('+0.040', '−0.09', '–')
    """
    if x is None or not np.isfinite(x):
        return "–"
    return f"{x:+.{digits}f}".replace("-", "−")


def plus_minus(halfwidth, digits=3):
    """`` ± 0.012`` for an interval's half-width, nothing for one seed (NaN): never "± nan".

    Examples
    --------
    >>> plus_minus(0.0123), plus_minus(float("nan"))
    (' ± 0.012', '')
    """
    return "" if halfwidth is None or not np.isfinite(halfwidth) else f" ± {halfwidth:.{digits}f}"


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
    def number(x, sign=False):
        if x is not None and np.isposinf(x):
            return "∞"
        if x is None or not np.isfinite(x):
            return "–"
        return signed(x) if sign else f"{x:.3f}".replace("-", "−")

    def pvalue(p):
        return "–" if p is None or not np.isfinite(p) else ("< 0.001" if p < 0.001 else f"{p:.3f}")

    return [[k.label, number(k.number, sign=True), number(k.noise), number(k.control), k.outcome, pvalue(k.p_holm),
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


def claim_row(claim, short):
    """A claim judged on another model, as a row of the claim that judges the main one (its
    ``details["rows"]``): verdict, counts, the claim itself and ``short``, the model in a few words.

    Examples
    --------
    >>> row = claim_row(Claim("k", "t", "§5.2", "", "holds", {"passed": 2, "failed": 0, "n": 2}), "doing nothing")
    >>> row["verdict"], row["passed"], row["short"]
    ('holds', 2, 'doing nothing')
    """
    d = claim.details
    return {"verdict": claim.verdict, "passed": d["passed"], "failed": d["failed"], "n": d["n"], "claim": claim,
            "short": short}


def case_claim(key, where, text, cases, seeds, rows=None, **details):
    """A ``Claim`` of cases: Holm's adjustment over them, the verdict counted by :func:`case_verdict`,
    ``numbers`` that count the outcomes (k/n, the closing page's short form) and the verdicts of
    ``rows`` (other models judged by the same rule, :func:`claim_row`), and ``details`` that hold every
    case (the chapter's tables), the counts, the cases Holm still shows (``"holm"``) and the rows.

    Examples
    --------
    >>> cases = [Case("a", -0.1, 0.01, None, "passes", "", p=0.001), Case("b", -0.1, 0.01, None, "passes", "", p=0.03)]
    >>> c = case_claim("fewer", "§5.2", "fewer deleted labels", cases, seeds=3)
    >>> c.verdict, c.numbers, c.details["holm"], [round(k.p_holm, 3) for k in c.details["cases"]]
    ('holds', '2/2 pass (2 needed beyond chance)', 2, [0.002, 0.03])
    """
    cases = list(cases)
    adjusted = holm([c.p for c in cases])
    cases = [dataclasses.replace(c, p_holm=float(a)) for c, a in zip(cases, adjusted)]
    passed = sum(c.outcome == "passes" for c in cases)
    failed = sum(c.outcome == "fails" for c in cases)
    shown = sum(c.outcome == "passes" and c.p_holm < CASE_LEVEL for c in cases)
    numbers = outcome_counts(cases, seeds)
    if rows:
        numbers += "; " + "; ".join(f"{r['short']}: {r['verdict']}" + (f", {r['passed']}/{r['n']}" if seeds >= 2 and r["n"] else "")
                                    for r in rows.values())
    return Claim(key, text, where, numbers, case_verdict((c.outcome for c in cases), seeds),
                 {"cases": cases, "passed": passed, "failed": failed, "n": len(cases), "seeds": seeds,
                  "critical": binomial_critical(len(cases)) if cases else 0, "holm": shown, "rows": rows or {},
                  **details})
