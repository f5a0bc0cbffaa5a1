"""What a grid of the GAN experiment costs, from the stage times the stored results record.

Every stored result records the seconds of each stage of its job (training, fast deletion, the
deletion test, the per-epoch curves) and of each training. This script prints them per profile
(median and total over the jobs), the seconds of one GAN epoch and one VDM epoch, and the cost of a
planned grid from those numbers: ``--seeds``, ``--deletion-sets`` per data set and
``--extra-gan-epochs`` per job (for example fine-tuning the pre-trained GAN for 1 and 3 epochs:
4), ``--extra-pretrained`` shared trainings per data set and seed (for example independent
control GANs: 1), on ``--parallel`` processes.

    python benchmarks/bench_grid_cost.py --profile quick --seeds 5 --deletion-sets 10 \\
        --extra-gan-epochs 4 --extra-pretrained 1 --parallel 2

The numbers are the stored jobs' own: machine and load of that run (the provenance says which).
"""

from __future__ import annotations

import argparse

import numpy as np

from gendel.gan.profiles import get_profile
from gendel.gan.result_files import stored_results


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--profile", default="quick")
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--deletion-sets", type=int, default=10, help="per data set (Appendix E: 8; random: +2)")
    parser.add_argument("--extra-gan-epochs", type=int, default=4)
    parser.add_argument("--extra-pretrained", type=int, default=1)
    parser.add_argument("--parallel", type=int, default=2)
    args = parser.parse_args(argv)

    p = get_profile(args.profile)
    results = stored_results(args.profile)
    stages = {k: np.array([r.provenance["seconds"][k] for r in results]) for k in results[0].provenance["seconds"]}
    print(f"{len(results)} stored {p.name} jobs (made on {results[0].provenance['hardware']['evaluation']['device']}, "
          f"{results[0].provenance['hardware']['evaluation']['cpu_count']} cores, --parallel as recorded)")
    for k, v in stages.items():
        print(f"  {k:15s} median {np.median(v):7.1f} s   total {v.sum() / 3600:5.2f} h")
    retrain = np.median([r.timings["retrain"] for r in results])
    pretrain = np.median([r.timings["pretrain"] for r in results])
    vdm = np.median([r.timings["vdm"] for r in results])
    gan_epoch = retrain / p.gan_epochs
    print(f"  one GAN epoch (re-training, median) {gan_epoch:.1f} s; a pre-training {pretrain:.0f} s; "
          f"one VDM epoch {vdm / p.vdm_epochs:.1f} s")

    jobs = len(p.datasets) * args.deletion_sets * args.seeds
    per_job = np.median(stages["job"]) + args.extra_gan_epochs * gan_epoch
    shared = len(p.datasets) * args.seeds * (1 + args.extra_pretrained) * pretrain
    total = jobs * per_job + shared
    print(f"planned grid: {jobs} jobs x {per_job:.0f} s + {shared / 3600:.2f} h of shared trainings = "
          f"{total / 3600:.1f} h of job time, about {total / 3600 / args.parallel:.1f} h of wall time on "
          f"{args.parallel} processes")


if __name__ == "__main__":
    main()
