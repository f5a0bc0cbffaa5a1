"""The settings and colours shared by the figures of the synthetic-data chapter.

The grids the pages sweep (``LAMBDAS``, ``SIGMA_C``, ``KNN_K``, ...) are constants of
:mod:`gendel.synthetic.experiments`; this module holds the single settings of the paper's §5.1 protocol
and the yardstick of the KS plots.
"""

from __future__ import annotations

from gendel.claims.base import ks_critical
from gendel.synthetic.sampling import PAPER
from gendel.plotting.common import COLORS

#: The paper's settings of §5.1 (:data:`gendel.synthetic.sampling.PAPER`): data set size N, samples per
#: repeat m, repeats R, KDE bandwidth sigma_A and the seed of the chapter.
N, M, R, SIGMA_A, SEED = PAPER.N, PAPER.m, PAPER.R, PAPER.sigma_a, PAPER.seed
#: Critical value of the two-sample KS test at level 5 % with R = 250 values on each side,
#: sqrt(2 / R) * K^{-1}(0.95) (K the Kolmogorov distribution): the yardstick of the chapter.
KS_CRITICAL_5 = ks_critical(R)



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


__all__ = ["KS_CRITICAL_5", "M", "N", "R", "SEED", "SIGMA_A",
           "sample_color"]
