"""Gaussian kernel sums in log space, the work-horse of the KDE learner and the kernel DREs.

For query points y and centre blocks B_1, ..., B_G this computes, for every y and block g,

    log sum_{x in B_g} exp(-||y - x||^2 / (2 sigma^2)),

without the normalising constant of the Gaussian density. Where a query is far from a
block (its largest term there below exp(-600)), the block gets its own log-sum-exp shift, so
a block whose kernels are all far smaller than another block's does not underflow to -inf.
Queries are processed in chunks (bounded memory) and the chunks are spread over a few threads
(NumPy releases the GIL in ``exp`` and BLAS): the calling thread and the pool's threads take
the chunks from one queue.

``exp`` costs far more than the rest, so it is evaluated only where a term can count: the
queries are ordered along a space-filling curve (:func:`spatial_order`) so that each chunk
covers a small box, and a centre is left out of a chunk's sums when its distance to the box
shows that each of its terms is below exp(-T) times the largest term of its block, with
T = log(n_g) + 37. The terms left out add up to less than 1e-16 of the sum, below its
rounding error: the result is the full sum up to rounding (the ratios of §5.1 agree with a
dense evaluation to about 1e-13).

The thread pool starts on first use. A forked child (multiprocessing's "fork" start method,
joblib, submitit) inherits the pool object but not its threads, so work sent to it would wait
forever: the child forgets the pool at the fork and starts its own when it needs one.

The dense kernel matrices of the MMD statistics and of the theory checks share
:func:`sqdist` (squared distances between two sets of points) and :func:`rbf_gram`.
"""

from __future__ import annotations

import contextlib
import os
import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np

_CHUNK = 256
_NEGLIGIBLE = 37.0  # a term below exp(-37) / n_g of its block's largest: < 1e-16 in all
_EXP_FLOOR = -700.0  # exp(-700) ~ 1e-304 is still a normal float64
_THREADS = max(1, min(4, os.cpu_count() or 1))
_POOL = None
_POOL_LOCK = threading.Lock()
_LOCAL = threading.local()  # .serial: this thread's sums run without the pool (see serial_here)


@contextlib.contextmanager
def serial_here():
    """Within this block, the kernel sums of the calling thread run in that thread alone.

    For background work (a panel computing ahead at low priority): it then takes one core and
    leaves the pool, and the other core, to the foreground.
    """
    previous, _LOCAL.serial = getattr(_LOCAL, "serial", False), True
    try:
        yield
    finally:
        _LOCAL.serial = previous


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


class _Chunks:
    """The chunk numbers 0, 1, ..., n - 1, handed out one at a time to the threads that iterate over it."""

    def __init__(self, n):
        self._next, self._n, self._lock = 0, n, threading.Lock()

    def __iter__(self):
        return self

    def __next__(self):
        with self._lock:
            if self._next >= self._n:
                raise StopIteration
            self._next += 1
            return self._next - 1

    def close(self):
        """Hand out no more chunks (after an error: the other threads finish soon)."""
        with self._lock:
            self._next = self._n


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
        self._centres = centres
        # [y, 1, -||y||^2 / (2 sigma^2)] @ _coef = -||y - x||^2 / (2 sigma^2): the exponents in one product.
        self._coef = np.vstack([self._scaled_t, self._offset[None], np.ones((1, len(centres)))])
        # A centre c with d(y, c)^2 >= d_min(y)^2 + reach^2 has a term below exp(-T) times the
        # largest term of its block (exp(-reach^2 / (2 sigma^2)) = exp(-T)).
        self._cutoff = _NEGLIGIBLE + np.log(self.sizes)  # T of each block
        self._reach = self.bandwidth * np.sqrt(2.0 * self._cutoff)

    def _columns(self, lo, hi):
        """Which centres can count for the queries of each box [lo_k, hi_k] (shifted coordinates).

        Returns ``(keep, underflow, near)``: ``keep[k, j]`` is False when every term of centre j
        is negligible for every query in box k, ``underflow[k]`` is False when every kept
        exponent of box k is above -600 (so ``exp`` needs no floor there), and ``near[k]`` is
        True when every query of box k has in each block a term above exp(-600) (so the sums
        need no log-sum-exp shift).
        """
        # Squared distances from each box to each centre: the nearest and the farthest point.
        near2 = np.zeros((len(lo), len(self._centres)))
        far2 = np.zeros_like(near2)
        for j in range(lo.shape[1]):
            c = self._centres[:, j]
            below, above = lo[:, j, None] - c, c - hi[:, j, None]  # > 0: the centre is outside the box
            far = np.maximum(-below, -above)
            near = np.maximum(np.maximum(below, above, out=below), 0.0, out=below)
            near2 += near * near
            far2 += far * far
        keep = np.empty(near2.shape, bool)
        u2 = np.empty((len(near2), len(self.sizes)))
        for g in range(len(self.sizes)):
            a, b = self._bounds[g], self._bounds[g + 1]
            # Every query of the box has a centre of the block within sqrt(min far2) = u: a
            # centre c with near(c)^2 >= u^2 + reach^2 has d(y, c)^2 - d_min(y)^2 >= reach^2.
            u2[:, g] = far2[:, a:b].min(axis=1)
            keep[:, a:b] = near2[:, a:b] < (u2[:, g] + self._reach[g] ** 2)[:, None]
        # Each exponent is -(d^2 - d_min^2) / (2 sigma^2) >= -far^2 / (2 sigma^2); 100: room for rounding.
        scale = 0.5 / self.bandwidth**2
        underflow = np.where(keep, far2, 0.0).max(axis=1) * scale > -_EXP_FLOOR - 100.0
        near = u2.max(axis=1) * scale < -_EXP_FLOOR - 100.0
        return keep, underflow, near

    def _chunk(self, Y, out, keep=None, underflow=True, near=False):
        """Log sums for the shifted queries ``Y`` with the centres ``keep`` (a mask; None: all)."""
        cols = None if keep is None or keep.all() else np.flatnonzero(keep)
        bounds = self._bounds if cols is None else np.searchsorted(cols, self._bounds)
        half_y2 = 0.5 * np.einsum("ij,ij->i", Y, Y) / self.bandwidth**2
        if near:
            # Each query has a term above exp(-600) in every block: the exponents
            # -||y - x||^2 / (2 sigma^2) need no shift, and come from one matrix product.
            Ya = np.empty((len(Y), Y.shape[1] + 2))
            Ya[:, :-2], Ya[:, -2], Ya[:, -1] = Y, 1.0, -half_y2
            Z = Ya @ (self._coef if cols is None else self._coef[:, cols])
            if underflow:
                np.maximum(Z, _EXP_FLOOR, out=Z)
            np.exp(Z, out=Z)
            for g in range(len(self.sizes)):
                out[:, g] = np.log(Z[:, bounds[g] : bounds[g + 1]].sum(axis=1))
            return
        A = Y @ (self._scaled_t if cols is None else self._scaled_t[:, cols])
        A += self._offset if cols is None else self._offset[cols]
        for g in range(len(self.sizes)):
            block = A[:, bounds[g] : bounds[g + 1]]
            top = block.max(axis=1)
            z = np.subtract(block, top[:, None], out=block)
            # exp(z) for z below about -708 is subnormal or 0: several times slower to compute
            # and invisible next to the largest term exp(0) = 1 of the same sum, so clip it.
            if underflow:
                np.maximum(z, _EXP_FLOOR, out=z)
            s = np.exp(z, out=z).sum(axis=1)
            out[:, g] = np.log(s) + top - half_y2

    def __call__(self, Y):
        """Return the (n, G) array of log kernel sums for query points ``Y`` (n, d)."""
        n = len(Y)
        out = np.empty((n, len(self.sizes)))
        if n == 0:
            return out
        order = spatial_order(Y, none_if_ordered=True) if n > _CHUNK else None
        Ys = (Y if order is None else Y[order]) - self.shift
        starts = np.arange(0, n, _CHUNK)
        keep, underflow, near = [None] * len(starts), [True] * len(starts), [False] * len(starts)
        if Y.shape[1] <= 3:  # in more dimensions a box rarely excludes a centre
            lo, hi = np.minimum.reduceat(Ys, starts, axis=0), np.maximum.reduceat(Ys, starts, axis=0)
            step = max(1, 2**20 // (len(self._centres) * Y.shape[1]))  # bounded memory
            parts = [self._columns(lo[k : k + step], hi[k : k + step]) for k in range(0, len(starts), step)]
            keep, underflow, near = (np.concatenate([q[i] for q in parts]) for i in range(3))

        def work(chunks):
            for k in chunks:
                a = starts[k]
                self._chunk(Ys[a : a + _CHUNK], out[a : a + _CHUNK], keep[k], underflow[k], near[k])

        if n <= 2 * _CHUNK or _THREADS == 1 or getattr(_LOCAL, "serial", False):
            work(range(len(starts)))
        else:
            # The calling thread and _THREADS - 1 pool threads take the chunks one by one from a
            # shared queue until none is left: one hand-over per helper thread, and a thread that
            # the machine holds back leaves its chunks to the others. (One pool task per chunk,
            # 1,600 for the 400,000 points of a §5.1 run, cost a hand-over between threads each.)
            queue = _Chunks(len(starts))
            helpers = [_pool().submit(work, queue) for _ in range(min(_THREADS, len(starts)) - 1)]
            try:
                work(queue)
            except BaseException:
                queue.close()
                raise
            finally:
                for helper in helpers:
                    helper.result()
        if order is not None:
            out[order] = out.copy()
        return out


def _spread_bits(v):
    """The 16 low bits of each uint64 of ``v`` moved to the even bit positions."""
    v = (v | (v << 8)) & 0x00FF00FF
    v = (v | (v << 4)) & 0x0F0F0F0F
    v = (v | (v << 2)) & 0x33333333
    return (v | (v << 1)) & 0x55555555


def _curve_key(Y):
    """The position of each point of ``Y`` (n, d) on a Z curve of its first two coordinates."""
    P = Y[:, :2]
    lo, hi = P.min(axis=0), P.max(axis=0)
    span = hi - lo
    scale = np.where(span > 0, 65535.0 / np.where(span > 0, span, 1.0), 0.0)
    with np.errstate(invalid="ignore"):  # a non-finite point only moves in the order
        cells = np.nan_to_num((P - lo) * scale, nan=0.0, posinf=65535.0, neginf=0.0)
    cells = np.clip(cells, 0, 65535).astype(np.uint64)
    key = _spread_bits(cells[:, 0])
    if P.shape[1] > 1:
        key |= _spread_bits(cells[:, 1]) << np.uint64(1)
    return key


def spatial_order(Y, *, none_if_ordered=False):
    """An order of the points ``Y`` (n, d) along a Z curve of the first two coordinates.

    Consecutive points of the order lie close together, so a chunk of them covers a small box.
    With ``none_if_ordered``, None when ``Y`` is in that order already.

    Examples
    --------
    >>> Y = np.array([[1.0, 1.0], [0.0, 0.0], [1.0, 0.0]])
    >>> spatial_order(Y), spatial_order(Y[spatial_order(Y)], none_if_ordered=True)
    (array([1, 2, 0]), None)
    """
    key = _curve_key(np.asarray(Y, dtype=np.float64))
    if none_if_ordered and np.all(key[:-1] <= key[1:]):
        return None
    return np.argsort(key, kind="stable")


def log_normaliser(bandwidth, dim):
    """log of the Gaussian kernel constant (2 pi sigma^2)^(-d/2)."""
    return -0.5 * dim * np.log(2.0 * np.pi * bandwidth**2)


def sqdist(A, B):
    """Squared distances between the rows of A (..., m, d) and B (..., n, d): shape (..., m, n)."""
    d2 = (A * A).sum(-1)[..., :, None] + (B * B).sum(-1)[..., None, :] - 2.0 * A @ np.swapaxes(B, -1, -2)
    return np.maximum(d2, 0.0)


def rbf_gram(A, B, bandwidth):
    """RBF Gram matrix exp(-||a - b||^2 / (2 bandwidth^2)), batched over leading axes like :func:`sqdist`."""
    return np.exp(-sqdist(A, B) / (2.0 * bandwidth**2))
