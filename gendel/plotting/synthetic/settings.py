"""The settings, labels and verdict rule shared by the pages of the synthetic-data chapter.

The grids the pages sweep (``LAMBDAS``, ``SIGMA_C``, ``KNN_K``, ...) are constants of
:mod:`gendel.synthetic.experiments`; this module holds the single settings of the paper's §5.1 protocol
and the yardstick of the KS plots.
"""

from __future__ import annotations

from gendel.claims.base import ks_critical, verdict
from gendel.synthetic.data import DATASETS
from gendel.core.dre import DRE_CHOICES
from gendel.synthetic.protocol import PAPER
from gendel.plotting.common import COLORS

#: The paper's settings of §5.1 (:data:`gendel.synthetic.protocol.PAPER`): data set size N, samples per
#: repeat m, repeats R, KDE bandwidth sigma_A and the seed of the chapter.
N, M, R, SIGMA_A, SEED = PAPER.N, PAPER.m, PAPER.R, PAPER.sigma_a, PAPER.seed
#: Critical value of the two-sample KS test at level 5 % with R = 250 values on each side,
#: sqrt(2 / R) * K^{-1}(0.95) (K the Kolmogorov distribution): the yardstick of the chapter.
KS_CRITICAL_5 = ks_critical(R)

DATASET_LABELS = DATASETS  # the same dict as gendel.synthetic.data.DATASETS
#: Short names of the two DRE families the chapter sweeps.
FAMILY_LABELS = {kind: DRE_CHOICES[kind].short for kind in ("kbc", "knn")}


def claim_verdict(passed, total):
    """The verdict of a claim checked on ``total`` cases: "holds", "partly" or "does not hold".

    :func:`gendel.claims.verdict`, except that a claim with no checked case is an error here
    (the chapter's pages always check at least one).

    Examples
    --------
    >>> claim_verdict(3, 3), claim_verdict(1, 3), claim_verdict(0, 3)
    ('holds', 'partly', 'does not hold')
    """
    if total <= 0:
        raise ValueError(f"a claim needs at least one checked case; got total={total}")
    return verdict(passed, total)


def sample_color(question, key):
    """The paper's colour of one side of a comparison (§5.1): orange H0, green H1, light blue D.

    Q1 compares one sample set under two ratios: the side with rho_hat_E gets a dark outline
    colour so the two stay apart.

    Examples
    --------
    >>> sample_color("Q3", ("H1", "dre")) == COLORS["H1"], sample_color("Q1", ("H0", "dre"))
    (True, '#7A4A00')
    """
    if question == "Q1" and key[1] == "dre":
        return "#7A4A00"
    return COLORS[key[0]]


__all__ = ["DATASET_LABELS", "FAMILY_LABELS", "KS_CRITICAL_5", "M", "N", "R", "SEED", "SIGMA_A",
           "claim_verdict", "sample_color"]
