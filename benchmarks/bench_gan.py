"""Speed of the GAN half (§5.2) on this machine.

Usage (from the repository root)::

    .venv/bin/python benchmarks/bench_gan.py steps            # DCGAN step: gendel vs plain PyTorch
    .venv/bin/python benchmarks/bench_gan.py stages [quick]   # per-stage wall time of a profile's results

``steps`` times one DCGAN training step (a discriminator and a generator update on a batch of
128) at several widths, as images per second, through :class:`gendel.gan.dcgan.DCGAN` and through a
minimal plain-PyTorch loop of the same architecture and optimiser (torch's DCGAN example). Each
is the median over 5 repeats of 2 epochs of 2,048 random images after one warm-up; gendel's
loop must not be more than 10 % slower.

``stages`` prints the wall time per stage (pre-train, re-train, VDM, label classifier, sampling,
Q3) of each job whose result file exists for the profile (run the profile first, e.g. by
building the book), and the ratio re-training / fast deletion.
"""

from __future__ import annotations

import statistics
import sys
import time

import numpy as np
import torch
from torch import nn


def plain_loop_seconds(images, width, epochs, batch_size=128, latent_dim=100, seed=0):
    from gendel.gan.networks import Discriminator, Generator

    torch.manual_seed(seed)
    G, D = Generator(latent_dim, width), Discriminator(width)
    opt_g = torch.optim.Adam(G.parameters(), lr=2e-4, betas=(0.5, 0.999))
    opt_d = torch.optim.Adam(D.parameters(), lr=2e-4, betas=(0.5, 0.999))
    loss = nn.BCEWithLogitsLoss()
    data = torch.as_tensor(images)
    t0 = time.perf_counter()
    for _ in range(epochs):
        perm = torch.randperm(len(data))
        for i in range(0, len(data) - batch_size + 1, batch_size):
            real = data[perm[i:i + batch_size]]
            ones, zeros = torch.ones(batch_size), torch.zeros(batch_size)
            fake = G(torch.randn(batch_size, latent_dim))
            opt_d.zero_grad()
            (loss(D(real), ones) + loss(D(fake.detach()), zeros)).backward()
            opt_d.step()
            opt_g.zero_grad()
            loss(D(fake), ones).backward()
            opt_g.step()
    return time.perf_counter() - t0


def gendel_seconds(images, width, epochs):
    from gendel.gan.dcgan import DCGAN

    gan = DCGAN(epochs=epochs, width=width, checkpoint_dir=False, progress=False).fit(images)
    return gan.fit_seconds_


def steps(widths=(16, 32, 64), n=2048, epochs=2, repeats=5):
    images = np.random.default_rng(0).uniform(-1, 1, (n, 1, 28, 28)).astype(np.float32)
    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads; {n} images x {epochs} epochs, batch 128")
    print(f"{'width':>5} {'plain img/s':>12} {'gendel img/s':>13} {'ms/step plain':>14} {'ms/step gendel':>15} {'gendel/plain':>13}")
    for w in widths:
        plain_loop_seconds(images[:256], w, 1)
        gendel_seconds(images[:256], w, 1)
        p, g = [], []
        for _ in range(repeats):  # interleaved, so drift in the machine's speed hits both
            p.append(plain_loop_seconds(images, w, epochs))
            g.append(gendel_seconds(images, w, epochs))
        n_img, n_steps = n * epochs, (n // 128) * epochs
        mp, mg = statistics.median(p), statistics.median(g)
        print(f"{w:>5} {n_img / mp:>12.0f} {n_img / mg:>13.0f} {1000 * mp / n_steps:>14.1f} {1000 * mg / n_steps:>15.1f} "
              f"{mg / mp:>13.3f}")


def stages(profile="quick"):
    """Wall and CPU seconds of each stage and training of a profile's stored results (or, for a
    profile with none stored, of its results in the cache)."""
    from gendel.gan import summaries
    from gendel.gan.result_files import load_results, provenance_summary, stored_results

    try:
        results = stored_results(profile)
    except ValueError:
        results = load_results(profile)
    if not results:
        sys.exit(f"no results for profile {profile!r}; run it first (python -m gendel.gan grid --profile {profile})")
    p = provenance_summary(profile, results)
    print(f"profile {profile}: {p.jobs} job(s) on {', '.join(map(str, p.devices))}, {', '.join(map(str, p.threads))} "
          f"torch thread(s); median wall seconds per job and stage: "
          + ", ".join(f"{k} {v:.1f}" for k, v in p.stage_seconds.items()))
    if p.train_cpu_seconds:
        print("median CPU seconds per training: " + ", ".join(f"{k} {v:.1f}" for k, v in p.train_cpu_seconds.items()))
    for c in summaries.costs(results):
        print(f"{c.dataset} {c.setting}-{c.lam:g} seed {c.seed}: fast deletion {c.fast_seconds:.1f} s (TV {c.fast_tv:.3f}), "
              f"re-training to that TV {c.retrain_seconds_to_reach(c.fast_tv):.1f} s, whole re-training "
              f"{c.retrain_seconds:.1f} s; at equal quality {c.speedup_at_equal_quality:.1f}x, fixed epochs "
              f"{c.speedup_fixed_epochs:.1f}x")


if __name__ == "__main__":
    what = sys.argv[1] if len(sys.argv) > 1 else "steps"
    if what == "steps":
        steps()
    elif what == "stages":
        stages(*sys.argv[2:3])
    else:
        sys.exit(__doc__)
