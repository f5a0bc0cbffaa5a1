"""Command line of the GAN experiments (§5.2, Appendix E): ``python -m gendel.gan``.

    python -m gendel.gan list --profile quick
    python -m gendel.gan run --profile quick --dataset mnist --setting even --lam 0.7 --seed 0
    python -m gendel.gan grid --profile paper --executor slurm --partition gpu --gpus 1

``grid`` runs every job of a profile whose result file is missing through submitit: its local
executor on one machine (jobs in waves of ``--parallel``), or SLURM on a cluster, with the same
code. Each job writes ``<results>/<job>.json`` (and ``.npz``) atomically; trainings checkpoint
every epoch under ``$GENDEL_CACHE_DIR/checkpoints``, so a killed grid is resumed by running the
same command again.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from . import protocol


def _job_from_args(args):
    if args.job:
        return protocol.find_job(args.profile, args.job)
    missing = [f"--{k}" for k in ("dataset", "setting", "lam", "seed") if getattr(args, k) is None]
    if missing:
        raise SystemExit(f"run needs a job name or all of --dataset --setting --lam --seed (missing {' '.join(missing)})")
    wanted = protocol.Job(protocol.get_profile(args.profile).name, args.dataset, args.setting, args.lam, args.seed)
    return protocol.find_job(args.profile, wanted.name)


def _run_one(job, results, device):
    """What a grid worker runs (a module-level function, so that submitit can pickle it)."""
    result = protocol.run_job(job, results, device=device, progress=False)
    return job.name, result["timings"]["job"]


def _grid(args, results):
    import submitit

    todo = [j for j in protocol.jobs(args.profile) if not protocol.result_path(j, results).exists()]
    print(f"{len(protocol.jobs(args.profile)) - len(todo)} job(s) done, {len(todo)} to run; results in {results}")
    if not todo:
        return 0
    logs = Path(args.logs or Path(results) / "logs")
    executor = submitit.AutoExecutor(folder=logs, cluster=args.executor)
    executor.update_parameters(timeout_min=args.timeout_min, name=f"gendel-{args.profile}")
    if args.executor == "slurm":
        extra = {"slurm_array_parallelism": args.parallel}
        if args.partition:
            extra["slurm_partition"] = args.partition
        if args.gpus:
            extra["gpus_per_node"] = args.gpus
        executor.update_parameters(cpus_per_task=args.cpus, **extra)
        waves = [todo]
    else:
        waves = [todo[i:i + args.parallel] for i in range(0, len(todo), args.parallel)]
    failed = 0
    for wave in waves:
        submitted = executor.map_array(_run_one, wave, [str(results)] * len(wave), [args.device] * len(wave))
        for job, sub in zip(wave, submitted):
            try:
                name, seconds = sub.result()
                print(f"done {name} in {seconds:.1f} s")
            except Exception as exc:  # report every failure, then exit non-zero
                failed += 1
                print(f"FAILED {job.name}: {exc}", file=sys.stderr)
    return 1 if failed else 0


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m gendel.gan", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    for name, text in (("list", "print the jobs of a profile, one per line"), ("run", "run one job"),
                       ("grid", "run every missing job of a profile through submitit")):
        p = sub.add_parser(name, help=text)
        p.add_argument("--profile", required=True, choices=sorted(protocol.PROFILES))
        if name == "list":
            continue
        p.add_argument("--results", help="folder of the result files (default: $GENDEL_CACHE_DIR/gan/<profile>-<hash>)")
        p.add_argument("--device", help="cuda or cpu (default: cuda when available)")
        if name == "run":
            p.add_argument("job", nargs="?", help="a job name as printed by `list`")
            p.add_argument("--dataset", choices=("mnist", "fashion-mnist"))
            p.add_argument("--setting", choices=("even", "odd"))
            p.add_argument("--lam", type=float)
            p.add_argument("--seed", type=int)
        else:
            p.add_argument("--executor", choices=("local", "slurm"), default="local")
            p.add_argument("--parallel", type=int, default=1, help="jobs at once (local: per wave; slurm: array parallelism)")
            p.add_argument("--timeout-min", type=int, default=24 * 60, help="time limit of one job in minutes")
            p.add_argument("--logs", help="submitit's log folder (default: <results>/logs)")
            p.add_argument("--partition", help="SLURM partition")
            p.add_argument("--gpus", type=int, default=0, help="GPUs per SLURM job")
            p.add_argument("--cpus", type=int, default=4, help="CPUs per SLURM job")
    args = parser.parse_args(argv)
    if args.command == "list":
        for job in protocol.jobs(args.profile):
            print(job.name)
        return 0
    results = Path(args.results) if args.results else protocol.default_results_dir(args.profile)
    if args.command == "run":
        job = _job_from_args(args)
        result = protocol.run_job(job, results, device=args.device)
        print(f"{job.name}: {protocol.result_path(job, results)} ({result['timings']['job']:.1f} s)")
        return 0
    return _grid(args, results)


if __name__ == "__main__":
    try:
        sys.exit(main())
    except ValueError as exc:  # a bad job, profile or setting: say what to do, without a traceback
        sys.exit(f"python -m gendel.gan: {exc}")
