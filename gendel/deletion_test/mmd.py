"""The MMD² statistic of the deletion test (Appendix C.3) for batches of sample sets.

:func:`gendel.deletion_test.stats.mmd2_unbiased` computes MMD²_u for one pair of sample sets with the RBF
kernel; the deletion test needs it for R pairs at once, with the Laplacian kernel or a user's
kernel too, its permutation null, and the median-heuristic bandwidth. Used by
:class:`gendel.deletion_test.decision.DeletionTest`.
"""

from __future__ import annotations

import numpy as np

from gendel._kernels import sqdist


def gram(A, B, kernel, bandwidth):
    """Kernel matrix between the rows of A (..., m, d) and B (..., n, d).

    ``kernel`` is ``"rbf"`` (exp(-||a - b||² / (2 h²))), ``"laplacian"`` (exp(-||a - b|| / h)) or a
    callable ``kernel(A2, B2)`` on two 2-D arrays (applied to each leading index of 3-D input);
    h is ``bandwidth``.

    Examples
    --------
    >>> import numpy as np
    >>> A, B = np.array([[0.0, 0.0], [1.0, 0.0]]), np.array([[0.0, 1.0]])
    >>> gram(A, B, "rbf", 1.0).round(4).tolist()         # distances 1 and sqrt 2
    [[0.6065], [0.3679]]
    >>> gram(A, B, "laplacian", 1.0).round(4).tolist()
    [[0.3679], [0.2431]]
    """
    if callable(kernel):
        if A.ndim == 2:
            return np.asarray(kernel(A, B), dtype=float)
        return np.stack([np.asarray(kernel(a, b), dtype=float) for a, b in zip(A, B)])
    d2 = sqdist(A, B)
    if kernel == "rbf":
        return np.exp(-d2 / (2.0 * bandwidth**2))
    return np.exp(-np.sqrt(d2) / bandwidth)  # laplacian


def mmd2_batch(Y, Yhat, kernel, bandwidth):
    """MMD^2_u(Y[r], Yhat[r]) of Appendix C.3 for each r; Y, Yhat of shape (R, m, ...), points flattened.

    Examples
    --------
    R = 3 pairs of sample sets at once; each value is :func:`gendel.deletion_test.stats.mmd2_unbiased`
    of one pair:

    >>> import numpy as np
    >>> from gendel.deletion_test.stats import mmd2_unbiased
    >>> rng = np.random.default_rng(0)
    >>> Y, Yhat = rng.normal(size=(3, 40, 2)), rng.normal(size=(3, 40, 2))
    >>> batch = mmd2_batch(Y, Yhat, "rbf", 1.0)
    >>> batch.shape, bool(np.allclose(batch, [mmd2_unbiased(y, yh) for y, yh in zip(Y, Yhat)]))
    ((3,), True)
    """
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

    Examples
    --------
    >>> import numpy as np
    >>> median_bandwidth(np.array([[0.0], [1.0], [3.0]]))   # distances 1, 2 and 3
    2.0
    """
    sub = np.asarray(points[:n_max]).reshape(min(n_max, len(points)), -1).astype(float)
    if not np.isfinite(sub).all():
        bad = int((~np.isfinite(sub).all(axis=1)).sum())
        raise ValueError(f"the median heuristic gave NaN: {bad} of the {len(sub)} points it uses hold NaN or infinite "
                         "values; a model's samples are finite numbers: check the model, or pass bandwidth=... "
                         "explicitly")
    median = float(np.median(np.sqrt(sqdist(sub, sub))[np.triu_indices(len(sub), 1)]))
    if not median > 0:
        raise ValueError("the median heuristic gave bandwidth 0 (the model's draws coincide); "
                         "pass bandwidth=... explicitly")
    return median


def permutation_mmd2(Y, Yhat, n_perm, kernel, bandwidth, rng):
    """MMD^2_u between the two halves of ``n_perm`` random splits of the pooled Y and Y_hat.

    The null sample of the two-sample permutation test (Gretton et al., 2012); Y and Y_hat hold
    m samples each. One Gram matrix of the pooled sample serves every split.

    Examples
    --------
    Two samples of the same law: the statistics of the splits centre on 0, and the observed
    MMD²_u is one of them in law.

    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> Y, Yhat = rng.normal(size=(30, 2)), rng.normal(size=(30, 2))
    >>> null = permutation_mmd2(Y, Yhat, 200, "rbf", 1.0, np.random.default_rng(1))
    >>> null.shape, bool(abs(null.mean()) < 0.01)
    ((200,), True)
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
