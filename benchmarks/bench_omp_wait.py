"""A tiny DCGAN training with torch's OpenMP threads spinning (the default) and waiting passively
(what ``gendel.gan`` sets, ``OMP_WAIT_POLICY=PASSIVE``), each in fresh processes.

Usage (from the repository root)::

    .venv/bin/python benchmarks/bench_omp_wait.py            # 3 processes per case
    .venv/bin/python benchmarks/bench_omp_wait.py 5 32       # processes per case, DCGAN width

Both cases start with ``OMP_WAIT_POLICY`` removed from the environment and train the same DCGAN
(width 16 by default, 1,024 random images, 2 epochs, batch 128, torch's default thread count):

- *spinning*: the process imports torch before gendel, so gendel's default comes too late and
  OpenMP keeps its own (threads spin at barriers before they sleep);
- *passive*: the process imports ``gendel.gan.dcgan`` first; ``gendel.gan`` sets the variable
  before torch is imported.

The process's wall and CPU seconds of the training are printed per process, and their medians. The
difference shows most on a machine whose cores are busy with other work (spinning threads take
cores that the work, or other programs, need); on an idle machine the two are close. Compare the
cases of one run, not numbers across runs. Prints numbers only.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

_TRAIN = """
import json, os, sys, time
{first}
policy = os.environ.get("OMP_WAIT_POLICY")  # what OpenMP read when torch was imported
import numpy as np
from gendel.gan.dcgan import DCGAN
images = np.random.default_rng(0).uniform(-1, 1, (1024, 1, 28, 28)).astype(np.float32)
DCGAN(epochs=1, width={width}, checkpoint_dir=False, progress=False).fit(images[:256])  # warm-up
w, c = time.perf_counter(), time.process_time()
DCGAN(epochs=2, width={width}, checkpoint_dir=False, progress=False).fit(images)
print("@@" + json.dumps({{"wall": time.perf_counter() - w, "cpu": time.process_time() - c,
                         "policy": policy, "threads": torch.get_num_threads()}}))
"""

CASES = {"spinning": "import torch", "passive": "import gendel.gan.dcgan\nimport torch"}


def run(first, width):
    env = {k: v for k, v in os.environ.items() if k != "OMP_WAIT_POLICY"}
    env["PYTHONPATH"] = os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])
    done = subprocess.run([sys.executable, "-c", _TRAIN.format(first=first, width=width)], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=1800)
    if done.returncode:
        raise SystemExit(done.stderr[-2000:])
    return json.loads(next(line for line in done.stdout.splitlines() if line.startswith("@@"))[2:])


def main(argv):
    runs = int(argv[1]) if len(argv) > 1 else 3
    width = int(argv[2]) if len(argv) > 2 else 16
    print(f"DCGAN width {width}, 1,024 images x 2 epochs, batch 128; {runs} processes per case, interleaved; "
          f"{os.cpu_count()} cores, load {os.getloadavg()[0]:.2f}")
    results = {name: [] for name in CASES}
    for _ in range(runs):
        for name, first in CASES.items():
            r = run(first, width)
            results[name].append(r)
            print(f"  {name:<9} OMP_WAIT_POLICY at torch's import: {r['policy']!s:<8} {r['threads']} threads: "
                  f"{r['wall']:6.2f} s wall, {r['cpu']:6.2f} s CPU")
    print(f"load after: {os.getloadavg()[0]:.2f}")
    for name, rs in results.items():
        print(f"{name:<9} median {statistics.median(r['wall'] for r in rs):6.2f} s wall, "
              f"{statistics.median(r['cpu'] for r in rs):6.2f} s CPU")


if __name__ == "__main__":
    main(sys.argv)
