"""gendel: approximate data deletion in generative models.

A reference implementation of Kong & Alfeld, "Approximate Data Deletion in Generative
Models" (arXiv 2206.14439, ECAI 2023): density-ratio-based fast deletion (Alg. 1) and the
deletion test (LR, ASC, MMD).

Modules::

    data         the synthetic data sets MoG-8 and CKB-8 and their deletion sets (§5.1, App. D)
    models       generative learners with explicit densities (KDE)
    dre          density ratio estimators between X and X \\ X' (§3)
    deletion     the approximated model and its rejection sampler (Alg. 1)
    stats        LR, ASC, MMD and KS statistics (§4, App. C)
    deletion_test  the deletion test as a decision: p-values, type-I error, power (§4, App. C)
    protocol     the §5.1 protocol: one settings object (Protocol) and the shared sample sets
    experiments  runs of the protocol, sweeps and the chapter's grids
    claims       the paper's claims as tested rules (sweeps in, verdicts out)
    cache        the on-disk result cache
    plotting     plotly figures for the book (depends on the rest)
    widgets      ipywidgets panels for a live kernel (depends on the rest)
"""

from . import data, deletion, deletion_test, dre, experiments, models, protocol, stats
from ._validation import NotFittedError

__version__ = "0.1.0"

__all__ = ["NotFittedError", "data", "deletion", "deletion_test", "dre", "experiments", "models", "protocol", "stats",
           "__version__"]
