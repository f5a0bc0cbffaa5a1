"""Time one run of the §5.1 protocol at the paper's settings (N = 400, m = 400, R = 250, sigma_A = 0.1).

Usage (from the repository root)::

    .venv/bin/python benchmarks/bench_synthetic.py              # MoG-8, lambda = 0.6, 5 runs
    .venv/bin/python benchmarks/bench_synthetic.py ckb8 0.8 7   # dataset, lambda, runs

Measured, as the median over runs (each run uses a new seed, so its first call is cold):

- KBC, first call for a seed: data, models, the shared sample sets Y_hat, Y_H0, Y_H1 and the
  exact ratio on them, plus the DRE, Alg. 1 and all statistics;
- KBC with another sigma_C on the same seed: reuses the shared part (as a sweep over DREs does);
- kNN on the same seed;
- one sweep cell from scratch (shared part cleared, empty disk cache: compute and store), and
  the same cell loaded back from the disk cache.

Besides wall-clock seconds it prints the process CPU seconds and the number of Gaussian kernel
evaluations (query points x centres) per call, which do not depend on the machine's load.
Prints numbers only; the target is under 2 s per call on 2 cores.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time

from gendel import _kernels
from gendel.synthetic import experiments
from gendel.synthetic.sampling import Protocol, shared
from gendel.core.dre import KernelClassifierDRE, KNNClassifierDRE

_counter = {"kernels": 0}
_original_call = _kernels.GaussianKernelSums.__call__


def _counting_call(self, Y):
    _counter["kernels"] += len(Y) * sum(self.sizes)
    return _original_call(self, Y)


_kernels.GaussianKernelSums.__call__ = _counting_call


def timed(fn):
    _counter["kernels"] = 0
    w, c = time.perf_counter(), time.process_time()
    fn()
    return time.perf_counter() - w, time.process_time() - c, _counter["kernels"]


def load():
    try:
        return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    except OSError:
        return f"load average {os.getloadavg()}"


def main(argv):
    dataset = argv[1] if len(argv) > 1 else "mog8"
    lam = float(argv[2]) if len(argv) > 2 else 0.6
    runs = int(argv[3]) if len(argv) > 3 else 5
    print(f"{dataset}, lambda={lam}, N=400, m=400, R=250, sigma_A=0.1; {runs} runs; {os.cpu_count()} cores, "
          f"{_kernels._THREADS} kernel threads")
    print(f"before: {load()}")

    # Warm-up (imports, thread pool) on a seed that is not measured.
    experiments.synthetic_statistics(Protocol(dataset, lam=lam, seed=10_000), KernelClassifierDRE(bandwidth=0.1))

    rows = {name: [] for name in ("KBC first", "KBC second", "kNN", "cell cold", "cell cached")}
    for run in range(runs):
        seed = run
        shared.cache_clear()
        rows["KBC first"].append(timed(lambda: experiments.synthetic_statistics(Protocol(dataset, lam=lam, seed=seed),
                                                                           KernelClassifierDRE(bandwidth=0.1))))
        rows["KBC second"].append(timed(lambda: experiments.synthetic_statistics(Protocol(dataset, lam=lam, seed=seed),
                                                                           KernelClassifierDRE(bandwidth=0.125))))
        rows["kNN"].append(timed(lambda: experiments.synthetic_statistics(Protocol(dataset, lam=lam, seed=seed),
                                                                           KNNClassifierDRE(k=10))))
        with tempfile.TemporaryDirectory(prefix="gendel-bench-") as cache:
            os.environ["GENDEL_CACHE_DIR"] = cache
            shared.cache_clear()

            def cell():
                return experiments.sweep(Protocol(dataset, lam=lam, seed=seed), [KernelClassifierDRE(bandwidth=0.1)], progress=False)

            rows["cell cold"].append(timed(cell))
            rows["cell cached"].append(timed(cell))

    print(f"after:  {load()}")
    print(f"{'call':<12} {'median wall s':>14} {'min wall s':>11} {'median CPU s':>13} {'kernel evals':>14}")
    for name, values in rows.items():
        wall = [v[0] for v in values]
        cpu = [v[1] for v in values]
        kern = [v[2] for v in values]
        print(f"{name:<12} {statistics.median(wall):14.3f} {min(wall):11.3f} {statistics.median(cpu):13.3f} "
              f"{statistics.median(kern):14.3g}")
    worst = max(statistics.median(v[0] for v in rows[k]) for k in ("KBC first", "KBC second", "kNN"))
    print(f"slowest median per call: {worst:.3f} s (target: under 2 s on 2 cores)")


if __name__ == "__main__":
    main(sys.argv)
