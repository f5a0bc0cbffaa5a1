"""The MMD² statistic of the deletion test (Appendix C.3) for batches of sample sets.

:func:`gendel.deletion_test.stats.mmd2_unbiased` computes MMD²_u for one pair of sample sets with the RBF
kernel; the deletion test needs it for R pairs at once, with the Laplacian kernel or a user's
kernel too, its permutation null, and the median-heuristic bandwidth. Used by
:class:`gendel.deletion_test.decision.DeletionTest`.
"""

from __future__ import annotations

import numpy as np

from gendel.deletion_test.stats import _sqdist


def gram(A, B, kernel, bandwidth):
    """Kernel matrix between the rows of A (..., m, d) and B (..., n, d)."""
    if callable(kernel):
        if A.ndim == 2:
            return np.asarray(kernel(A, B), dtype=float)
        return np.stack([np.asarray(kernel(a, b), dtype=float) for a, b in zip(A, B)])
    d2 = _sqdist(A, B)
    if kernel == "rbf":
        return np.exp(-d2 / (2.0 * bandwidth**2))
    return np.exp(-np.sqrt(d2) / bandwidth)  # laplacian


def mmd2_batch(Y, Yhat, kernel, bandwidth):
    """MMD^2_u(Y[r], Yhat[r]) of Appendix C.3 for each r; Y, Yhat of shape (R, m, ...), points flattened."""
    (R, m), n = Y.shape[:2], Yhat.shape[1]
    Y, Yhat = Y.reshape(R, m, -1).astype(float), Yhat.reshape(R, n, -1).astype(float)
    kyy = gram(Y, Y, kernel, bandwidth)
    kxx = gram(Yhat, Yhat, kernel, bandwidth)
    kxy = gram(Y, Yhat, kernel, bandwidth)
    term_y = (kyy.sum((-2, -1)) - np.trace(kyy, axis1=-2, axis2=-1)) / (m * (m - 1))
    term_x = (kxx.sum((-2, -1)) - np.trace(kxx, axis1=-2, axis2=-1)) / (n * (n - 1))
    return term_y + term_x - 2.0 * kxy.mean((-2, -1))


def median_bandwidth(points, n_max=1000):
    """The median heuristic (Gretton et al., 2012): the median distance between pairs of points.

    Uses the first ``n_max`` of the ``points`` (n, ...), each flattened.
    """
    sub = np.asarray(points[:n_max]).reshape(min(n_max, len(points)), -1).astype(float)
    median = float(np.median(np.sqrt(_sqdist(sub, sub))[np.triu_indices(len(sub), 1)]))
    if not median > 0:
        raise ValueError("the median heuristic gave bandwidth 0 (the model's draws coincide); "
                         "pass bandwidth=... explicitly")
    return median


def permutation_mmd2(Y, Yhat, n_perm, kernel, bandwidth, rng):
    """MMD^2_u between the two halves of ``n_perm`` random splits of the pooled Y and Y_hat.

    The null sample of the two-sample permutation test (Gretton et al., 2012); Y and Y_hat hold
    m samples each. One Gram matrix of the pooled sample serves every split.
    """
    m = len(Y)
    pooled = np.concatenate([Y, Yhat]).reshape(2 * m, -1).astype(float)
    K = gram(pooled, pooled, kernel, bandwidth)
    diag = np.diag(K)
    first = np.zeros((n_perm, 2 * m))
    for i in range(n_perm):
        first[i, rng.permutation(2 * m)[:m]] = 1.0
    second = 1.0 - first
    KA = first @ K
    s_aa = (KA * first).sum(1) - first @ diag
    s_ab = (KA * second).sum(1)
    s_bb = (second @ K * second).sum(1) - second @ diag
    return s_aa / (m * (m - 1)) + s_bb / (m * (m - 1)) - 2.0 * s_ab / (m * m)
