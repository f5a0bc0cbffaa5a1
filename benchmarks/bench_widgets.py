"""Timings of the live panel (gendel.panels.explorer.ExplorerPanel): how long one redraw takes.

Prints
- one ratio-map redraw (150 x 150 grid, N = 400) for KBC and kNN: the DRE evaluated on the grid
  alone, and the panel's whole redraw after moving sigma_C or k (fit, grid, figure update),
  median of several (the target is < 100 ms);
- one KS update at the panel's default R: the first one for a data set (draws the sample sets)
  and the following ones (only the DRE changes), median of several.

Run from the repository root: ``.venv/bin/python benchmarks/bench_widgets.py``. Wall-clock times
depend on the machine and its load; the load average is printed with them.
"""

from __future__ import annotations

import os
import statistics
import time

from gendel.synthetic import experiments
from gendel.synthetic.sampling import Protocol, setup
from gendel.core.dre import KernelClassifierDRE, KNNClassifierDRE
from gendel.plotting.maps import ratio_grid
from gendel.panels.explorer import DEFAULTS, ExplorerPanel

REPEATS = 7


def median_ms(fn, args_list):
    times = []
    for args in args_list:
        t0 = time.perf_counter()
        fn(*args)
        times.append(1e3 * (time.perf_counter() - t0))
    return statistics.median(times), min(times), max(times)


def report(label, stats):
    med, lo, hi = stats
    print(f"  {label:<58s} median {med:7.1f} ms  (min {lo:6.1f}, max {hi:6.1f}, n = {REPEATS})")


def main():
    print(f"load average: {', '.join(f'{x:.2f}' for x in os.getloadavg())} on {os.cpu_count()} CPU(s)")
    X, deleted, _ = setup(Protocol("mog8", lam=DEFAULTS["lam"], N=400, sigma_a=DEFAULTS["sigma_a"], seed=0))
    n_kept, n_del = int((~deleted).sum()), int(deleted.sum())
    grid = 150 * 150
    print(f"\nratio map: {grid} grid points, N = 400 (N' = {n_del}); a KBC map costs "
          f"{grid * 400:,} kernel evaluations ({grid} x {n_del} + {grid} x {n_kept})")

    kbc = [KernelClassifierDRE(bandwidth=0.1).fit(X, deleted)] * REPEATS
    knn = [KNNClassifierDRE(k=10).fit(X, deleted)] * REPEATS
    report("KBC: rho_hat_E on the grid (ratio_grid)", median_ms(lambda d: ratio_grid(d, "mog8", 150), [(d,) for d in kbc]))
    report("kNN (k = 10): rho_hat_E on the grid (ratio_grid)",
           median_ms(lambda d: ratio_grid(d, "mog8", 150), [(d,) for d in knn]))

    panel = ExplorerPanel(live_ks=False)
    sigmas = [0.05 + 0.01 * i for i in range(REPEATS)]  # new values: nothing comes from the cache
    report("panel redraw after moving sigma_C (KBC fit + map + figure)",
           median_ms(lambda v: panel.set(sigma_c=v), [(v,) for v in sigmas]))
    panel.set(dre="knn")
    ks = [11 + i for i in range(REPEATS)]
    report("panel redraw after moving k (kNN fit + map + figure)", median_ms(lambda v: panel.set(k=v), [(v,) for v in ks]))
    panel.close()

    R = DEFAULTS["R"]
    print(f"\nKS update at the panel's default R = {R} (m = 400; 4 sample sets of m * R = {400 * R:,} points)")
    seeds = [100 + i for i in range(3)]  # a new seed draws new sample sets
    cold = median_ms(lambda s: experiments.synthetic_statistics(Protocol("mog8", lam=0.8, R=R, seed=s), KernelClassifierDRE(bandwidth=0.1)),
                     [(s,) for s in seeds])
    print(f"  {'first update for a data set (samples drawn)':<58s} median {cold[0]:7.1f} ms  "
          f"(min {cold[1]:6.1f}, max {cold[2]:6.1f}, n = {len(seeds)})")
    report("next updates (a new sigma_C: DRE refitted, samples reused)",
           median_ms(lambda v: experiments.synthetic_statistics(Protocol("mog8", lam=0.8, R=R, seed=seeds[0]), KernelClassifierDRE(bandwidth=v)),
                     [(v,) for v in sigmas]))
    panel = ExplorerPanel()
    report("panel update after moving sigma_C (map + KS + figures)",
           median_ms(lambda v: panel.set(sigma_c=v), [(v + 0.001,) for v in sigmas]))
    panel.close()


if __name__ == "__main__":
    main()
