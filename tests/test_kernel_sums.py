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
    underflow = []
    for g, block in enumerate(blocks):
        expo = -((Y[:, None, :] - block[None]) ** 2).sum(-1) / (2 * bandwidth**2)
        want = logsumexp(expo, axis=1)
        np.testing.assert_allclose(got[:, g], want, rtol=1e-10, atol=1e-9)
        underflow.append((expo < -745).mean())
    if bandwidth == 0.01:
        # the case the exp floor is for: in every block most kernels underflow to 0 in float64
        assert min(underflow) > 0.5
