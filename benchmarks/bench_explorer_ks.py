"""Timings of the explorer's KS update (gendel.panels.explorer_state.ExplorerState.statistics) after a slider move.

Prints, at the panel's default setting (MoG-8, lambda = 0.8, sigma_A = 0.1, KBC sigma_C = 0.1,
R = 100, m = N = 400), the median of 5 of

- the first ``statistics()`` of a setting (its sample sets drawn and evaluated; a new seed
  each time, so nothing comes from a cache),
- ``maps()`` and ``statistics()`` after a sigma_C move (KBC), a k move (kNN) and a lambda move,
  each to a value not seen before.

Last, a sigma_C step computed ahead on one thread (what the live panel does while idle) and the
key press after it. The issue's target: the KS part redraws within 0.5 s of a slider move. A sigma_C
or k move reuses Y_hat, Y_H0, Y_H1 and the first proposals of Alg. 1 with rho_hat on them
(:func:`gendel.synthetic.sampling.shared`, :func:`gendel.synthetic.sampling.proposals`); a lambda move draws
them anew.

Run from the repository root: ``.venv/bin/python benchmarks/bench_explorer_ks.py``. Wall-clock
times depend on the machine and its load; the load average is printed with them.
"""

from __future__ import annotations

import os
import statistics
import time

from gendel._kernels import serial_here
from gendel.panels.explorer_state import ExplorerState

REPEATS = 5


def timed(fn):
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def report(label, seconds):
    print(f"  {label:<44s} median {1e3 * statistics.median(seconds):7.0f} ms  "
          f"(min {1e3 * min(seconds):6.0f}, max {1e3 * max(seconds):6.0f}, n = {len(seconds)})")


def moves(state, name, values):
    """Time maps() then statistics() after setting ``name`` to each of ``values``."""
    maps, stats = [], []
    for value in values:
        state.set(**{name: value})
        maps.append(timed(state.maps))
        stats.append(timed(state.statistics))
    return maps, stats


def main():
    print(f"load average: {', '.join(f'{x:.2f}' for x in os.getloadavg())} on {os.cpu_count()} CPU(s)")
    state = ExplorerState()
    s = state.settings
    print(f"default setting: {state.describe()}, R = {s['R']}, m = {state.m}, N = {state.N}")

    first = []
    for seed in range(1, REPEATS + 1):
        fresh = ExplorerState(seed=seed)
        fresh.maps()
        first.append(timed(fresh.statistics))
    report("first statistics() of a setting", first)

    state.maps(), state.statistics()
    maps, stats = moves(state, "sigma_c", [0.1 + 0.005 * (i + 1) for i in range(REPEATS)])
    report("sigma_C move (KBC): maps()", maps)
    report("sigma_C move (KBC): statistics()", stats)

    state.set(sigma_c=0.1, dre="knn")
    state.maps(), state.statistics()
    maps, stats = moves(state, "k", [10 + i + 1 for i in range(REPEATS)])
    report("k move (kNN): maps()", maps)
    report("k move (kNN): statistics()", stats)

    state.set(dre="kbc", k=10)
    maps, stats = moves(state, "lam", [0.8 - 0.01 * (i + 1) for i in range(REPEATS)])
    report("lambda move (KBC): maps()", maps)
    report("lambda move (KBC): statistics()", stats)

    # What the live panel does while idle (gendel.panels.base.ComputesAhead): the next sigma_C step, on
    # one thread without the kernel pool; the key press then finds it cached.
    state.set(lam=0.8, sigma_c=0.2)
    state.maps(), state.statistics()
    ahead, hit = [], []
    for i in range(REPEATS):
        change = state.neighbours()[0]
        with serial_here():
            ahead.append(timed(lambda: state.prefetch(**change)))
        state.set(**change)
        hit.append(timed(lambda: (state.maps(), state.statistics())))
    report("sigma_C step computed ahead (one thread)", ahead)
    report("sigma_C key press after it: maps + statistics", hit)


if __name__ == "__main__":
    main()
