"""The paper's claims as tested rules: sweeps and tables in, verdicts out.

Every chapter that checks a claim of the paper states it, computes the quantities it is about,
and calls one function of this package to turn them into a :class:`Claim`: the claim, where the
paper makes it, our numbers and a verdict. A page shows the claims as a table (:func:`rows`)
and reads the numbers its prose needs from :func:`glue_values`; no page decides a verdict or
chooses a sentence in a cell of its own: where its prose depends on the numbers, the rule that
picks the words is a tested function of :mod:`gendel.claims.readings`.

The verdict of a claim checked on several cases is :func:`verdict`, the one verdict helper of
the book (the 2-D chapter, the GAN chapter and the theory pages). The claims of §5.1 and
Appendix D on the synthetic data are in :mod:`!gendel.claims.synthetic`.
"""

from gendel.claims.base import (HEADER, NOT_DISTINGUISHABLE, NOT_RESOLVED, ONE_SEED, VERDICTS, Claim, glue_values,  # noqa: F401
                                ks_critical, rows, verdict)
from gendel.claims.synthetic_q1 import (q1_ckb_exception, q1_ckb_harder, q1_knn, q1_lambda,
                            q1_larger_sigma, q1_monotone, q1_phi_order)
from gendel.claims.synthetic_q3 import q3_ckb_harder, q3_kbc_knn, q3_lambda, q3_lr_asc, q3_wide
from gendel.claims.synthetic_q2 import (q2_ckb_harder, q2_kbc_knn, q2_lambda, q2_lr_asc,
                            q2_moderate_k, q2_wide)
from gendel.claims.synthetic import ckb_harder_questions, q1, q2, q3

__all__ = [
    "Claim", "HEADER", "NOT_RESOLVED", "ONE_SEED", "VERDICTS", "ckb_harder_questions", "glue_values", "ks_critical", "rows", "verdict",
    "q1", "q1_ckb_exception", "q1_ckb_harder", "q1_knn", "q1_lambda", "q1_larger_sigma", "q1_monotone",
    "q1_phi_order",
    "q2", "q2_ckb_harder", "q2_kbc_knn", "q2_lambda", "q2_lr_asc", "q2_moderate_k", "q2_wide",
    "q3", "q3_ckb_harder", "q3_kbc_knn", "q3_lambda", "q3_lr_asc", "q3_wide",
]
