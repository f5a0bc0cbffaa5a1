"""Gaussian kernel sums in log space, the work-horse of the KDE learner and the kernel DREs.

For query points y and centre blocks B_1, ..., B_G this computes, for every y and block g,

    log sum_{x in B_g} exp(-||y - x||^2 / (2 sigma^2)),

without the normalising constant of the Gaussian density. Each block gets its own
log-sum-exp shift, so a block whose kernels are all far smaller than another block's
does not underflow to -inf. Queries are processed in chunks (bounded memory) and the
chunks are spread over a few threads (NumPy releases the GIL in ``exp`` and BLAS).

The thread pool starts on first use. A forked child (multiprocessing's "fork" start method,
joblib, submitit) inherits the pool object but not its threads, so work sent to it would wait
forever: the child forgets the pool at the fork and starts its own when it needs one.
"""

from __future__ import annotations

import os
import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np

_CHUNK = 1024
_EXP_FLOOR = -700.0  # exp(-700) ~ 1e-304 is still a normal float64
_THREADS = max(1, min(4, os.cpu_count() or 1))
_POOL = None
_POOL_LOCK = threading.Lock()


def _pool():
    global _POOL
    with _POOL_LOCK:
        if _POOL is None:
            _POOL = ThreadPoolExecutor(max_workers=_THREADS, thread_name_prefix="gendel-kernel")
        return _POOL


def _forget_pool_after_fork():
    """In a forked child: the parent's pool has no threads here, and its lock may be held."""
    global _POOL, _POOL_LOCK
    _POOL, _POOL_LOCK = None, threading.Lock()


if hasattr(os, "register_at_fork"):  # POSIX; Windows has no fork
    os.register_at_fork(after_in_child=_forget_pool_after_fork)


class GaussianKernelSums:
    """Pre-processed centre blocks for repeated log kernel sums with one bandwidth.

    Parameters
    ----------
    blocks : sequence of ndarray of shape (n_g, d)
        Centre sets; each must be non-empty.
    bandwidth : float
        The Gaussian kernel bandwidth sigma.
    """

    def __init__(self, blocks, bandwidth):
        self.bandwidth = float(bandwidth)
        self.sizes = [len(b) for b in blocks]
        centres = np.concatenate(blocks, axis=0)
        # Centre the coordinates: the expansion ||y-x||^2 = ||y||^2 - 2 y.x + ||x||^2 loses
        # precision far from the origin, and translation changes nothing else.
        self.shift = centres.mean(axis=0)
        centres = centres - self.shift
        inv = 1.0 / self.bandwidth**2
        self._scaled_t = np.ascontiguousarray((centres * inv).T)  # (d, N)
        self._offset = -0.5 * inv * np.einsum("ij,ij->i", centres, centres)  # (N,)
        self._bounds = np.cumsum([0] + self.sizes)

    def _chunk(self, Y, out):
        Y = Y - self.shift
        A = Y @ self._scaled_t
        A += self._offset
        half_y2 = 0.5 * np.einsum("ij,ij->i", Y, Y) / self.bandwidth**2
        for g in range(len(self.sizes)):
            a, b = self._bounds[g], self._bounds[g + 1]
            block = A[:, a:b]
            top = block.max(axis=1)
            z = block - top[:, None]
            # exp(z) for z below about -708 is subnormal or 0: several times slower to compute
            # and invisible next to the largest term exp(0) = 1 of the same sum, so clip it.
            np.maximum(z, _EXP_FLOOR, out=z)
            s = np.exp(z, out=z).sum(axis=1)
            out[:, g] = np.log(s) + top - half_y2

    def __call__(self, Y):
        """Return the (n, G) array of log kernel sums for query points ``Y`` (n, d)."""
        n = len(Y)
        out = np.empty((n, len(self.sizes)))
        starts = range(0, n, _CHUNK)
        if n <= 2 * _CHUNK or _THREADS == 1:
            for a in starts:
                self._chunk(Y[a : a + _CHUNK], out[a : a + _CHUNK])
        else:
            list(_pool().map(lambda a: self._chunk(Y[a : a + _CHUNK], out[a : a + _CHUNK]), starts))
        return out


def log_normaliser(bandwidth, dim):
    """log of the Gaussian kernel constant (2 pi sigma^2)^(-d/2)."""
    return -0.5 * dim * np.log(2.0 * np.pi * bandwidth**2)
