"""The deletion test (§4, Appendix C): does a model have the points X' deleted?

Modules
-------
stats        the statistics (LR, ASC with its three φ, MMD, KS) and ``STATISTICS``, their one registry
calibration  Monte-Carlo p-values, critical values, binomial intervals of a rejection rate
mmd          batched MMD² and its permutation test
decision     ``DeletionTest``: the test as a decision, with p-values, type-I error and power
"""
