"""gendel: approximate data deletion in generative models.

A reference implementation of Kong & Alfeld, "Approximate Data Deletion in Generative
Models" (arXiv 2206.14439, ECAI 2023): density-ratio-based fast deletion (Alg. 1) and the
deletion test (LR, ASC, MMD).

Sub-packages, in the order of their layers (each may import only from those above it in this
list, counting what a package's ``__init__`` imports; ``tests/test_architecture.py`` checks it)::

    core           the learners (KDE), density ratio estimators (§3) and Alg. 1 (fast deletion)
    deletion_test  the statistics LR, ASC, MMD, KS (§4, App. C) and the deletion test as a decision
    synthetic      the 2-D experiments of §5.1 and App. D: data, the protocol, runs and sweeps
    gan            the image experiments of §5.2 and App. E: DCGAN, VDM DRE, jobs, stored results
    theory         numerical checks of the theorems
    claims         the paper's claims as tested rules (results in, verdicts out)
    plotting       plotly figures for the book
    panels         ipywidgets panels for a live kernel
    book           tooling of the book's pages (the library never imports it)

Helpers: ``_validation`` (checks at the boundary, the estimator base), ``_progress``,
``_kernels``, ``_environment`` (where the code runs: book build, Colab), ``cache`` (the on-disk
result cache), ``fingerprint`` (hashes of the code that computes a result).

torch is imported by seven modules of ``gan`` alone, those that train or run a network or keep
its checkpoints (``networks``, ``devices``, ``checkpoints``, ``training``, ``dcgan``, ``vdm``,
``classifier``); ``gendel.gan``'s ``__init__``
imports nothing, so the 2-D half, the claims, the figures and the stored GAN results load without
torch (a test imports every other module in a fresh process and checks it).
"""

from gendel._validation import NotFittedError

__version__ = "0.1.0"

__all__ = ["NotFittedError", "__version__"]
