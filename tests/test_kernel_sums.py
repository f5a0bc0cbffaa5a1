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


class _CountingPool:
    """A stand-in for the kernel thread pool that runs each task at once and counts them."""

    def __init__(self):
        self.tasks = 0

    def submit(self, fn, *args):
        from concurrent.futures import Future

        self.tasks += 1
        future = Future()
        future.set_result(fn(*args))
        return future

    def map(self, fn, items):
        return [self.submit(fn, item).result() for item in items]


@pytest.mark.parametrize("n", [513, 3000, 40_001])
def test_the_threaded_sums_equal_the_serial_ones_bit_for_bit(n, monkeypatch):
    """The threads split the chunks among a few tasks; each chunk's sums are those of the serial
    loop, to the last bit (the §5.1 results do not depend on the threads)."""
    from gendel import _kernels

    rng = np.random.default_rng(1)
    blocks = [rng.normal(size=(300, 2)), rng.normal(loc=1.0, size=(500, 2))]
    Y = rng.normal(scale=1.5, size=(n, 2))
    sums = GaussianKernelSums(blocks, 0.1)
    with _kernels.serial_here():
        serial = sums(Y)
    monkeypatch.setattr(_kernels, "_THREADS", 2)
    threaded = sums(Y)
    assert np.array_equal(threaded, serial)
    pool = _CountingPool()
    monkeypatch.setattr(_kernels, "_pool", lambda: pool)
    assert np.array_equal(sums(Y), serial)
    # One hand-over per helper thread (the calling thread works too), not one per chunk of 256
    # queries (157 chunks here for n = 40,001; 1,600 for a §5.1 run's 400,000 points).
    assert pool.tasks <= 1


def test_an_error_in_a_threaded_chunk_reaches_the_caller(monkeypatch):
    from gendel import _kernels

    monkeypatch.setattr(_kernels, "_THREADS", 2)
    sums = GaussianKernelSums([np.zeros((5, 2))], 0.1)

    def failing(*args, **kwargs):
        raise FloatingPointError("a chunk failed")

    sums._chunk = failing
    with pytest.raises(FloatingPointError, match="a chunk failed"):
        sums(np.random.default_rng(0).normal(size=(3000, 2)))
