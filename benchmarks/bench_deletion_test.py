"""Time one decision of the deletion test (gendel.deletion_test.decision) at m = 400, n_null = 1000.

Usage (from the repository root)::

    .venv/bin/python benchmarks/bench_deletion_test.py          # 3 repeats of the reused case
    .venv/bin/python benchmarks/bench_deletion_test.py 5        # repeats

Setting: MoG-8, lambda = 0.7, N = 400, sigma_A = 0.1 (``gendel.synthetic.sampling.setup``); the tested Y are
400 draws of the re-trained KDE. For each statistic and each DRE (KBC with sigma_C = 0.1, kNN
with k = 10) it measures ``DeletionTest(...).test(Y)``:

- first call: a new test object, so the time includes the pilot (n_pilot = 10,000 model draws:
  direction, moments, MMD bandwidth by the median heuristic) and the simulation of the null
  (1000 sets of m draws, with as many Y_hat sets for ASC and MMD);
- reused: further calls on the same object with a new Y; the null of this m is cached, so only
  Y_hat and the observed statistic are computed. Best of the repeats.

MMD does not use the DRE: its two columns time the same computation twice. Prints wall-clock
seconds (and the first call's process CPU seconds); they depend on the machine and its load,
printed before and after. Asserts nothing.
"""

from __future__ import annotations

import os
import sys
import time

import numpy as np

from gendel.deletion_test.decision import STATISTIC_LABELS, STATISTICS, DeletionTest
from gendel.core.dre import KernelClassifierDRE, KNNClassifierDRE
from gendel.synthetic.sampling import Protocol, setup

M, N_NULL = 400, 1000


def load():
    return "load average " + ", ".join(f"{x:.2f}" for x in os.getloadavg())


def timed(fn):
    wall, cpu = time.perf_counter(), time.process_time()
    fn()
    return time.perf_counter() - wall, time.process_time() - cpu


def main(argv):
    repeats = int(argv[1]) if len(argv) > 1 else 3
    X, deleted, exact = setup(Protocol("mog8", lam=0.7))
    dres = {"KBC (σ_C = 0.1)": KernelClassifierDRE(bandwidth=0.1).fit(X, deleted),
            "kNN (k = 10)": KNNClassifierDRE(k=10).fit(X, deleted)}
    g = np.random.default_rng(1)
    samples = [exact.retrained_.sample(M, rng=g) for _ in range(repeats + 1)]
    print(f"MoG-8, lambda = 0.7, N = 400, m = {M}, n_null = {N_NULL}, n_pilot = 10000; {os.cpu_count()} cores; "
          f"reused: best of {repeats}")
    print(f"before: {load()}")

    # Warm-up (imports, kernel thread pool) on a small test that is not measured.
    DeletionTest(exact.pretrained_, dres["KBC (σ_C = 0.1)"], n_null=19, n_pilot=100, rng=0).test(samples[0][:10])

    rows = {}
    for statistic in STATISTICS:
        for name, dre in dres.items():
            test = DeletionTest(exact.pretrained_, dre, statistic=statistic, n_null=N_NULL, rng=2)
            first = timed(lambda: test.test(samples[0]))
            reused = min(timed(lambda Y=Y: test.test(Y))[0] for Y in samples[1:])
            rows[statistic, name] = (*first, reused)

    print(f"after:  {load()}")
    header = f"{'statistic':<16}" + "".join(f"{name + ' first':>22}{'reused':>10}" for name in dres)
    print(header)
    print(f"{'':<16}" + "".join(f"{'wall s (CPU s)':>22}{'wall s':>10}" for _ in dres))
    for statistic in STATISTICS:
        cells = ""
        for name in dres:
            wall, cpu, reused = rows[statistic, name]
            cells += f"{wall:>13.2f} ({cpu:6.2f}){reused:>10.4f}"
        print(f"{STATISTIC_LABELS[statistic]:<16}{cells}")


if __name__ == "__main__":
    main(sys.argv)
