"""The verdict of a claim and the Claim record every module of gendel.claims returns."""


from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from scipy.special import kolmogi

#: The verdict of a claim whose compared differences all lie inside their noise margins.
NOT_RESOLVED = "not resolved at this sample size"
#: The verdict of a claim whose effect is no larger than what another training run gives (GAN half).
NOT_DISTINGUISHABLE = "not distinguishable from training noise"
VERDICTS = ("holds", "partly", "does not hold", NOT_RESOLVED, NOT_DISTINGUISHABLE, "not tested")
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


# The claims of §5.1 and Appendix D (they use Claim and verdict above).
