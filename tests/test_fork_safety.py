"""Kernel sums work in forked children after the parent started the kernel thread pool.

A child of ``fork`` inherits the pool object but none of its threads; work sent to that pool
would wait forever (multiprocessing's "fork" start method, joblib, submitit all fork).
"""

from __future__ import annotations

import multiprocessing
import queue
import sys

import numpy as np
import pytest

from gendel import _kernels
from gendel.core.dre import KernelClassifierDRE
from gendel.core.models import KDE

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="no fork on Windows")

TIMEOUT = 60  # seconds; the evaluation itself takes well under one
N_QUERIES = 3 * _kernels._CHUNK  # more than 2 chunks: evaluated on the thread pool


@pytest.fixture(scope="module")
def models():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 2))
    deleted = np.zeros(len(X), bool)
    deleted[:60] = True
    kde = KDE(bandwidth=0.3).fit(X)
    dre = KernelClassifierDRE(bandwidth=0.3).fit(X, deleted)
    Y = rng.normal(size=(N_QUERIES, 2))
    return kde, dre, Y


def _evaluate(models):
    kde, dre, Y = models
    return kde.log_prob(Y), dre.log_ratio(Y)


def _child(models, out):
    out.put(_evaluate(models))


def test_a_forked_child_evaluates_after_the_parent_started_the_pool(models):
    if _kernels._THREADS == 1:
        pytest.skip("one CPU: the kernel sums run without a thread pool")
    expected = _evaluate(models)  # starts the pool in the parent
    assert _kernels._POOL is not None
    ctx = multiprocessing.get_context("fork")
    out = ctx.Queue()
    child = ctx.Process(target=_child, args=(models, out))
    child.start()
    try:
        got = out.get(timeout=TIMEOUT)
    except queue.Empty:
        pytest.fail(f"the forked child did not finish its kernel sums within {TIMEOUT} s")
    finally:
        child.join(5)
        if child.is_alive():
            child.kill()
    for a, b in zip(got, expected):
        np.testing.assert_array_equal(a, b)
    # the parent's pool is untouched by the fork and still works
    np.testing.assert_array_equal(_evaluate(models)[1], expected[1])


def test_joblib_multiprocessing_workers_evaluate_after_the_parent_started_the_pool(models):
    joblib = pytest.importorskip("joblib")
    if _kernels._THREADS == 1:
        pytest.skip("one CPU: the kernel sums run without a thread pool")
    _, dre, Y = models
    expected = dre.log_ratio(Y)  # starts the pool in the parent
    with joblib.Parallel(n_jobs=2, backend="multiprocessing", timeout=TIMEOUT) as parallel:
        got = parallel(joblib.delayed(dre.log_ratio)(Y) for _ in range(2))  # forked workers
    for g in got:
        np.testing.assert_array_equal(g, expected)
