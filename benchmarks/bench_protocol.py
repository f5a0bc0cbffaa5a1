"""One configuration of the §5.1 protocol: ``synthetic_statistics`` against a naive per-repeat loop.

Usage (from the repository root)::

    .venv/bin/python benchmarks/bench_protocol.py                      # this checkout, 3 runs
    .venv/bin/python benchmarks/bench_protocol.py --runs 5 --naive-R 25
    .venv/bin/python benchmarks/bench_protocol.py --against /tmp/old   # and another checkout's gendel

The configuration is the paper's (MoG-8, lambda = 0.6, N = m = 400, R = 250, sigma_A = 0.1) with
a KBC DRE (sigma_C = 0.1). Each measurement runs in a fresh process, after a warm-up call on
another seed, and is *cold*: the shared part of the run (the m R samples of Y_hat, Y_H0, Y_H1, the
exact ratio on them, Alg. 1's first proposals) is computed in the call, as for the first DRE of a
sweep. ``--against DIR`` times the gendel of another checkout too (``git archive <commit> gendel |
tar -x -C DIR``; the layouts before and after the package's redesign are both understood), in the
same run, interleaved, so that the machine's load hits every version alike.

The naive loop does per repeat what the protocol describes: draw Y_hat, Y_H0, Y_H1 (m points each)
and Y_D (m points by Alg. 1, ``ApproximateDeletion.sample``), evaluate the exact and the fitted
ratio on them and compute the statistics, R times. With ``--naive-R r`` it runs r repeats and its
time is scaled to R (it grows linearly in the repeats); the ratio naive / ``synthetic_statistics``
is printed per version. The loop calls today's gendel in each repeat (its kernel sums, Alg. 1's
sampler with its batches of proposals), so the ratio measures what running the R repeats together
saves over running them one at a time with the same building blocks; a factor measured against
another naive loop, which this repository does not hold, is not comparable with it. Wall seconds and process CPU seconds (all threads) are both shown; the
kernel sums use up to 4 threads, so on a loaded machine compare CPU seconds, and ratios of one run.
Prints numbers only; no test asserts them.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SETTINGS = dict(dataset="mog8", lam=0.6, N=400, m=400, R=250, sigma_a=0.1)

_FAST = """
import json, time
try:
    from gendel.synthetic import experiments
    from gendel.synthetic.sampling import Protocol, shared, proposals
    from gendel.core.dre import KernelClassifierDRE
except ImportError:  # the layout before the redesign
    from gendel import experiments
    from gendel.protocol import Protocol, shared, proposals
    from gendel.dre import KernelClassifierDRE
s = {settings!r}
def call(seed):
    p = Protocol(s["dataset"], lam=s["lam"], N=s["N"], m=s["m"], R=s["R"], sigma_a=s["sigma_a"], seed=seed)
    return experiments.synthetic_statistics(p, KernelClassifierDRE(bandwidth=0.1))
call(10_000)  # warm-up: imports, the thread pool
shared.cache_clear(); proposals.cache_clear()
w, c = time.perf_counter(), time.process_time()
res = call({seed})
print("@@" + json.dumps({{"wall": time.perf_counter() - w, "cpu": time.process_time() - c,
                         "ks": float(res.ks["Q2", "lr"] if ("Q2", "lr") in res.ks else res.ks["Q2", "LR"])}}))
"""

_NAIVE = """
import json, time
import numpy as np
from gendel.core.deletion import ApproximateDeletion
from gendel.core.dre import KernelClassifierDRE
from gendel.deletion_test.stats import STATISTICS
from gendel.synthetic.sampling import RATIO_STATISTICS, Protocol, setup
s = {settings!r}
p = Protocol(s["dataset"], lam=s["lam"], N=s["N"], m=s["m"], R=s["R"], sigma_a=s["sigma_a"], seed={seed})
w, c = time.perf_counter(), time.process_time()
X, deleted, exact = setup(p)
dre = KernelClassifierDRE(bandwidth=0.1).fit(X, deleted)
sampler = ApproximateDeletion(exact.pretrained_, dre)
rng = np.random.default_rng({seed})
values = []
for r in range({repeats}):
    Yhat = exact.pretrained_.sample(p.m, rng=rng)
    sets = {{"H0": exact.pretrained_.sample(p.m, rng=rng), "H1": exact.retrained_.sample(p.m, rng=rng),
             "D": sampler.sample(p.m, rng=rng)}}
    yhat = {{"exact": exact.log_ratio(Yhat), "dre": dre.log_ratio(Yhat)}}
    log = {{(k, "exact"): exact.log_ratio(Y) for k, Y in sets.items()}}
    log.update({{(k, "dre"): dre.log_ratio(Y) for k, Y in sets.items() if k != "D"}})
    values.append({{(stat, k): STATISTICS[stat].of_log_ratios(yhat[k[1]], v) for stat in RATIO_STATISTICS
                    for k, v in log.items()}})
print("@@" + json.dumps({{"wall": time.perf_counter() - w, "cpu": time.process_time() - c}}))
"""


def run(code, tree):
    env = {**os.environ, "PYTHONPATH": str(tree), "TQDM_DISABLE": "1"}
    done = subprocess.run([sys.executable, "-c", code], cwd=tree, env=env, capture_output=True, text=True,
                          timeout=3600)
    if done.returncode:
        raise SystemExit(f"{tree}: {done.stderr[-3000:]}")
    return json.loads(next(line for line in done.stdout.splitlines() if line.startswith("@@"))[2:])


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="fresh processes per version (default 3)")
    parser.add_argument("--naive-R", type=int, default=SETTINGS["R"],
                        help="repeats of the naive loop, its time scaled to R (default: R itself)")
    parser.add_argument("--naive-runs", type=int, default=1, help="runs of the naive loop (default 1)")
    parser.add_argument("--against", action="append", default=[], metavar="DIR",
                        help="another checkout's root (with gendel/ in it) to time as well")
    args = parser.parse_args(argv)
    trees = {"this checkout": REPO} | {str(Path(d)): Path(d).resolve() for d in args.against}
    print(f"{SETTINGS}, KBC sigma_C = 0.1; {os.cpu_count()} cores, load {os.getloadavg()[0]:.2f}")
    fast = {name: [] for name in trees}
    for i in range(args.runs):
        for name, tree in trees.items():
            r = run(_FAST.format(settings=SETTINGS, seed=i), tree)
            fast[name].append(r)
            print(f"  synthetic_statistics, {name:<28} seed {i}: {r['wall']:6.2f} s wall {r['cpu']:6.2f} s CPU "
                  f"(KS Q2 LR {r['ks']:.4f})")
    scale = SETTINGS["R"] / args.naive_R
    naive = []
    for i in range(args.naive_runs):
        r = run(_NAIVE.format(settings=SETTINGS, seed=i, repeats=args.naive_R), REPO)
        naive.append({k: v * scale for k, v in r.items()})
        print(f"  naive loop, {args.naive_R} repeats: {r['wall']:.2f} s wall {r['cpu']:.2f} s CPU"
              + (f" (x {scale:g} for R = {SETTINGS['R']})" if scale != 1 else ""))
    nw, nc = statistics.median(r["wall"] for r in naive), statistics.median(r["cpu"] for r in naive)
    print(f"load after: {os.getloadavg()[0]:.2f}")
    print(f"naive loop at R = {SETTINGS['R']}: {nw:.1f} s wall, {nc:.1f} s CPU")
    for name, rs in fast.items():
        w, c = statistics.median(r["wall"] for r in rs), statistics.median(r["cpu"] for r in rs)
        print(f"synthetic_statistics, {name:<28} median {w:6.2f} s wall {c:6.2f} s CPU; "
              f"naive / this: {nw / w:5.1f}x wall, {nc / c:5.1f}x CPU")


if __name__ == "__main__":
    main()
