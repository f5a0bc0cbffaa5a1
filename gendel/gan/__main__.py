"""Command line of the GAN experiments (§5.2, Appendix E): ``python -m gendel.gan``.

    python -m gendel.gan list --profile quick
    python -m gendel.gan run --profile quick mnist-even-0.7-seed0
    python -m gendel.gan grid --profile quick --store --parallel 2
    python -m gendel.gan grid --profile paper --executor slurm --partition gpu --gpus 1

``grid`` runs every job of a profile that is not done (see :func:`gendel.gan.results.done`):
first the models that jobs share (the pre-trained GANs of each data set and seed, the label
classifiers), then the jobs. With ``--executor local`` (the default) it runs ``--parallel N``
processes on this machine and splits its cores between them (``--threads``: cores / N each);
on a CPU, N processes of one thread are faster than one process of N threads for these small
networks. With ``--executor slurm`` it submits the jobs to a SLURM cluster through submitit.
Each job writes ``<results>/<job>.json`` (and ``.npz``) atomically; trainings checkpoint every
epoch under ``$GENDEL_CACHE_DIR/checkpoints``, so an interrupted grid resumes when the same
command runs again. ``--store`` writes into the results stored with gendel
(``gendel/gan/results/<profile>/``), which the book reads.

A mistake in the arguments is reported in one line, with exit status 2, before any work.
"""

from __future__ import annotations

import argparse
import shlex
import shutil
import sys
from pathlib import Path

from gendel.gan import grid
from gendel.gan import profiles as J
from gendel.gan.run import run_job


class UsageError(Exception):
    """A mistake of the caller: reported in one line, without a traceback."""


def _positive(text):
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a whole number; got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1; got {value}")
    return value


def _device(text):
    from gendel.gan.training import pick_device

    try:
        return str(pick_device(text, name="--device")) if text.lower() != "cuda" else "cuda"
    except (ValueError, TypeError) as exc:
        raise argparse.ArgumentTypeError(str(exc).replace("--device must", "must")) from None


def _job_from_args(args):
    if args.job:
        if any(getattr(args, k) is not None for k in ("dataset", "setting", "lam", "seed")):
            raise UsageError("give either a job name or --dataset --setting --lam --seed, not both")
        return J.find_job(args.profile, args.job)
    missing = [f"--{k}" for k in ("dataset", "setting", "lam", "seed") if getattr(args, k) is None]
    if missing:
        raise UsageError(f"run needs a job name or all of --dataset --setting --lam --seed (missing {' '.join(missing)});"
                         f" `python -m gendel.gan list --profile {args.profile}` lists the jobs")
    wanted = J.Job(J.get_profile(args.profile).name, args.dataset, args.setting, args.lam, args.seed)
    return J.find_job(args.profile, wanted.name)


def _results_folder(args):
    from gendel.gan.results import STORED_RESULTS, default_results_dir, usable_results_dir

    if args.store and args.results:
        raise UsageError("give --store (the results stored with gendel) or --results FOLDER, not both")
    results = STORED_RESULTS / J.get_profile(args.profile).name if args.store else \
        Path(args.results) if args.results else default_results_dir(args.profile)
    try:
        if not usable_results_dir(results):
            raise UsageError(f"cannot write result files to {results}; give a writable folder with --results")
    except NotADirectoryError as exc:
        raise UsageError(str(exc)) from None
    return results


def build_parser():
    parser = argparse.ArgumentParser(prog="python -m gendel.gan", description=__doc__.split("\n\n")[0],
                                     epilog="See the module text (python -m pydoc gendel.gan.__main__) for the details.")
    sub = parser.add_subparsers(dest="command", required=True)
    texts = {"list": "print the jobs of a profile, one per line", "run": "run one job",
             "grid": "run every job of a profile that is not done: N processes on this machine, or SLURM"}
    for name, text in texts.items():
        p = sub.add_parser(name, help=text, description=text)
        p.add_argument("--profile", required=True, choices=sorted(J.PROFILES))
        if name == "list":
            continue
        p.add_argument("--results", help="folder of the result files (default: $GENDEL_CACHE_DIR/gan/<profile>-<hash>)")
        p.add_argument("--store", action="store_true",
                       help="write into the results stored with gendel (gendel/gan/results/<profile>/), read by the book")
        p.add_argument("--device", type=_device, help="cpu, cuda or cuda:N (default: cuda when available)")
        if name == "run":
            p.add_argument("job", nargs="?", help="a job name as printed by `list`")
            p.add_argument("--dataset", choices=("mnist", "fashion-mnist"))
            p.add_argument("--setting", choices=("even", "odd"))
            p.add_argument("--lam", type=float)
            p.add_argument("--seed", type=int)
        else:
            p.add_argument("--executor", choices=("local", "slurm"), default="local",
                           help="local: processes on this machine (default); slurm: a SLURM cluster through submitit")
            p.add_argument("--parallel", type=_positive, default=1,
                           help="local: jobs at once, each in its own process with cores/N threads; "
                                "slurm: array parallelism")
            p.add_argument("--threads", type=_positive,
                           help="local: torch threads per process (default: the machine's cores / --parallel)")
            p.add_argument("--timeout-min", type=_positive, default=24 * 60, help="slurm: time limit of one job in minutes")
            p.add_argument("--logs", help="slurm: submitit's log folder (default: <results>/logs)")
            p.add_argument("--partition", help="slurm: partition")
            p.add_argument("--gpus", type=int, default=0, help="slurm: GPUs per job")
            p.add_argument("--cpus", type=_positive, default=4, help="slurm: CPUs per job")
    return parser


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        if args.command == "list":
            for job in J.jobs(args.profile):
                print(job.name)
            return 0
        command = "python -m gendel.gan " + " ".join(shlex.quote(a) for a in argv)
        results = _results_folder(args)
        if args.command == "run":
            job = _job_from_args(args)
            result = run_job(job, results, device=args.device, command=command)
            from gendel.gan.results import result_path

            print(f"{job.name}: {result_path(job, results)} ({result.provenance['seconds']['job']:.1f} s)")
            return 0
        if args.executor == "slurm" and shutil.which("sbatch") is None:
            raise UsageError("--executor slurm needs a SLURM cluster (no sbatch command here); use --executor local")
        todo = grid.todo(args.profile, results)
        print(f"{len(J.jobs(args.profile)) - len(todo)} job(s) done, {len(todo)} to run; results in {results}")
        if not todo:
            return 0
        return (grid.slurm_grid if args.executor == "slurm" else grid.local_grid)(args, results, todo, command)
    except (UsageError, ValueError, FileNotFoundError) as exc:  # a bad job, profile, setting or missing data
        parser.exit(2, f"python -m gendel.gan {args.command}: error: {exc}\n")


if __name__ == "__main__":
    sys.exit(main())
