"""Log kernel sums (gendel._kernels) against a direct log-sum-exp, where most kernels underflow.

Far from the centres exp(-||y - x||^2 / (2 sigma^2)) is below the smallest float64 for most
centres; the sums must still equal scipy's logsumexp of the exponents, block by block.
"""

import numpy as np
import pytest
from scipy.special import logsumexp

from gendel._kernels import GaussianKernelSums


@pytest.mark.parametrize("bandwidth", [0.01, 0.05, 0.3])
def test_log_kernel_sums_equal_direct_logsumexp(bandwidth):
    rng = np.random.default_rng(0)
    blocks = [rng.normal(size=(40, 2)), rng.normal(loc=3.0, size=(70, 2))]
    Y = rng.uniform(-6, 9, size=(3000, 2))  # > 2 chunks: the threaded path too
    got = GaussianKernelSums(blocks, bandwidth)(Y)
    for g, block in enumerate(blocks):
        expo = -((Y[:, None, :] - block[None]) ** 2).sum(-1) / (2 * bandwidth**2)
        # most of these exponents are far below -745: their kernels underflow to 0
        want = logsumexp(expo, axis=1)
        np.testing.assert_allclose(got[:, g], want, rtol=1e-10, atol=1e-9)
    assert (expo < -745).mean() > 0.5 if bandwidth == 0.01 else True
