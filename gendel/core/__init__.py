"""The core of the framework (§2, §3): learners, density ratio estimators and Alg. 1.

    models     generative learners with an explicit density (:class:`~gendel.core.models.KDE`) and the
               empirical model (the training set itself)
    dre        density ratio estimators between X and X \\ X' and the registry of DRE families
    deletion   :class:`~gendel.core.deletion.ApproximateDeletion`: the approximated model ρ̂_ℰ·p̂ and
               its rejection sampler (Alg. 1)
"""
