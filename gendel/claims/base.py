"""The verdict of a claim and the Claim record every module of gendel.claims returns."""


from __future__ import annotations

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


# The claims of §5.1 and Appendix D (they use Claim and verdict above).
