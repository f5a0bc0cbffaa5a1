"""Command line of the GAN experiments (§5.2, Appendix E): ``python -m gendel.gan``.

    python -m gendel.gan list --profile quick
    python -m gendel.gan run --profile quick mnist-even-0.7-seed0
    python -m gendel.gan grid --profile quick --store --parallel 2
    python -m gendel.gan grid --profile paper --executor slurm --partition gpu --gpus 1
    python -m gendel.gan seal --profile quick --store --made-at d3b2ce1
    python -m gendel.gan seal --profile quick --store --grid baselines --made-at bb4a361 29d98c3 ...
    python -m gendel.gan baselines --profile quick --store --parallel 2 --seeds 0 1 2

``grid`` runs every job of a profile that is not done (see :func:`gendel.gan.run.done`):
first the models that jobs share (the pre-trained GANs of each data set and seed, the label
classifiers), then the jobs. With ``--executor local`` (the default) it runs ``--parallel N``
processes on this machine and splits its cores between them (``--threads``: cores / N each);
on a CPU, N processes of one thread are faster than one process of N threads for these small
networks. With ``--executor slurm`` it submits the jobs to a SLURM cluster through submitit.
Each job writes ``<results>/<job>.json`` (and ``.npz``) atomically; trainings checkpoint every
epoch under ``$GENDEL_CACHE_DIR/checkpoints``, so an interrupted grid resumes when the same
command runs again. ``--store`` writes into the results stored with gendel
(``gendel/gan/results/<profile>/``), which the book reads.

A mistake in the arguments is reported in one line, with exit status 2, before any work: an
option of the wrong kind, a device this machine does not have, a results folder that cannot be
written, a SLURM option without ``--executor slurm``, data files that are missing (both splits of
every data set the jobs need are read first). An interruption (Ctrl-C) is one line too, exit
status 130: the epochs trained so far are in the checkpoints, and the same command resumes.

``baselines`` runs the jobs of the baselines grid (:mod:`gendel.gan.baselines`: fine-tuning, the
label oracle, random deletion, independent controls, every method audited by the deletion test)
that are not done, seed by seed (``--seeds``: only these), the same way; ``--store`` writes into
``gendel/gan/results/baselines/<profile>/``; ``--list`` prints its jobs.

``seal`` gives result files written before results carried a checksum, or fingerprinted under an
earlier scheme of ``gendel.fingerprint``, their checksum and today's fingerprint, once it has
shown that the commits that made them (``--made-at``) compute what today's code does
(:mod:`gendel.gan.seal`; ``--grid baselines`` for the baselines grid's results); a result that
fails the check is refused.
"""

from __future__ import annotations

import argparse
import shlex
import shutil
import sys
import warnings
from pathlib import Path

from gendel.gan import grid
from gendel.gan import profiles as J
from gendel.gan.run import run_job


class UsageError(Exception):
    """A mistake of the caller: reported in one line, without a traceback."""


#: The options of ``grid`` that only SLURM reads, with their defaults there.
SLURM_OPTIONS = {"timeout_min": 24 * 60, "logs": None, "partition": None, "gpus": 0, "cpus": 4}


class _Parser(argparse.ArgumentParser):
    """argparse's parser with its errors in one line (the usage is one ``--help`` away)."""

    def error(self, message):
        self.exit(2, f"{self.prog}: error: {message} (see `{self.prog} --help`)\n")


def _at_least(minimum):
    def count(text):
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be a whole number; got {text!r}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be at least {minimum}; got {value}")
        return value

    return count


_positive = _at_least(1)


def _device(text):
    """A device name: ``cpu``, ``cuda`` or ``cuda:N`` (whether this machine has it is checked later:
    the jobs of a SLURM grid run on other machines)."""
    from gendel.gan.devices import pick_device

    name = text.strip().lower()
    if name == "cuda" or (name.startswith("cuda:") and name[5:].isdigit()):
        return name
    try:
        return str(pick_device(text, name="--device"))
    except (ValueError, TypeError) as exc:
        raise argparse.ArgumentTypeError(str(exc).replace("--device must", "must")) from None


def _check_device_here(device, command):
    """Refuse a CUDA device that this machine does not have (for ``run`` and a local grid)."""
    import torch

    if device is None or not device.startswith("cuda"):
        return
    count = torch.cuda.device_count() if torch.cuda.is_available() else 0
    index = int(device[5:]) if device.startswith("cuda:") else 0
    if index >= count:
        seen = "no CUDA GPU" if count == 0 else f"{count} CUDA GPU(s), cuda:0 to cuda:{count - 1},"
        raise UsageError(f"--device {device} was asked for but torch sees {seen} here; use --device cpu or leave "
                         "--device out" + (" (or --executor slurm to run the grid on a cluster's GPUs)"
                                           if command == "grid" else ""))


def _check_data(datasets):
    """Read both splits of every data set the jobs need, before any training (a missing file is a
    FileNotFoundError that says how to get it)."""
    from gendel.gan.images import SPLITS, load_images

    for dataset in datasets:
        for split in SPLITS:
            load_images(dataset, split=split)


def _check_executor(args):
    """Refuse SLURM options without SLURM, and SLURM without what it needs; fill SLURM's defaults."""
    given = [name for name in SLURM_OPTIONS if getattr(args, name) is not None]
    if args.executor == "local":
        if given:
            options = " ".join("--" + name.replace("_", "-") for name in given)
            raise UsageError(f"{options} {'is' if len(given) == 1 else 'are'} for --executor slurm; add --executor "
                             f"slurm or leave {'it' if len(given) == 1 else 'them'} out")
        return
    for name, default in SLURM_OPTIONS.items():
        if getattr(args, name) is None:
            setattr(args, name, default)
    if shutil.which("sbatch") is None:
        raise UsageError("--executor slurm needs a SLURM cluster (no sbatch command here); use --executor local")
    try:
        import submitit  # noqa: F401
    except ImportError:
        raise UsageError("--executor slurm needs submitit: pip install submitit (or use --executor local)") from None
    if args.logs is not None and Path(args.logs).exists() and not Path(args.logs).is_dir():
        raise UsageError(f"--logs {args.logs} is a file; give a folder for submitit's logs (or leave --logs out)")


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
    """The results folder the arguments name (not checked: see :func:`_check_writable`)."""
    from gendel.gan.result_files import STORED_RESULTS, default_results_dir

    if args.store and args.results:
        raise UsageError("give --store (the results stored with gendel) or --results FOLDER, not both")
    results = STORED_RESULTS / J.get_profile(args.profile).name if args.store else \
        Path(args.results) if args.results else default_results_dir(args.profile)
    if results.exists() and not results.is_dir():
        raise UsageError(f"the results folder {results} is a file; give a folder (or leave --results out for the "
                         "default)")
    return results


def _check_writable(args, results):
    """Refuse a results folder that cannot be written (only when there is a job to run)."""
    from gendel.gan.result_files import usable_results_dir

    try:
        with warnings.catch_warnings():  # its warning becomes the one line below
            warnings.simplefilter("ignore")
            writable = usable_results_dir(results)
    except NotADirectoryError as exc:
        raise UsageError(str(exc)) from None
    if not writable:
        where = "" if args.results or args.store else \
            " or set GENDEL_CACHE_DIR to a writable folder (the default results folder is under it)"
        raise UsageError(f"cannot write result files to {results}; give a writable folder with --results{where}")


def _baselines(args, command):
    """``python -m gendel.gan baselines``: the jobs of the baselines grid not done yet."""
    from gendel.gan import baseline_results as B
    from gendel.gan.baselines import baseline_jobs, get_baseline_profile

    bp = get_baseline_profile(args.profile)
    if args.executor != "local":
        raise UsageError("the baselines grid runs on this machine (--executor local); SLURM is not wired for it yet")
    jobs = baseline_jobs(bp, args.seeds)
    if args.list:
        for job in jobs:
            print(job.name)
        return 0
    if args.store and args.results:
        raise UsageError("give --store (the results stored with gendel) or --results FOLDER, not both")
    results = B.STORED_RESULTS_DIR / bp.name if args.store else Path(args.results) if args.results else \
        B.default_dir(bp)
    todo = B.todo(bp, results, args.seeds)
    if todo:
        _check_writable(args, results)
        _check_data(bp.datasets)
    print(f"{len(jobs) - len(todo)} job(s) done, {len(todo)} to run; results in {results}")
    if not todo:
        return 0
    return grid.local_grid(args, results, todo, command, shared=grid.baseline_shared_models(bp, args.seeds),
                           runner=grid.baseline_task)


def build_parser():
    parser = _Parser(prog="python -m gendel.gan", description=__doc__.split("\n\n")[0],
                                     epilog="See the module text (python -m pydoc gendel.gan.__main__) for the details.")
    sub = parser.add_subparsers(dest="command", required=True)
    texts = {"list": "print the jobs of a profile, one per line", "run": "run one job",
             "grid": "run every job of a profile that is not done: N processes on this machine, or SLURM",
             "baselines": "run the jobs of the baselines grid that are not done (fine-tuning, the label oracle, "
                          "random deletion, independent controls), seed by seed",
             "seal": "give result files made before results carried checksums, or under an earlier fingerprint "
                     "scheme, their checksum and today's fingerprint, once it is shown that the commits that made "
                     "them compute what today's code does"}
    for name, text in texts.items():
        p = sub.add_parser(name, help=text, description=text)
        p.add_argument("--profile", required=True, choices=sorted(J.PROFILES))
        if name == "list":
            continue
        if name == "baselines":
            p.add_argument("--list", action="store_true", help="print the jobs of the baselines grid and stop")
            p.add_argument("--seeds", type=_at_least(0), nargs="+", help="run only the jobs of these seeds")
        p.add_argument("--results", help="folder of the result files (default: $GENDEL_CACHE_DIR/gan/<profile>-<hash>)")
        folder = "gendel/gan/results/baselines/<profile>/" if name == "baselines" else "gendel/gan/results/<profile>/"
        p.add_argument("--store", action="store_true",
                       help=f"write into the results stored with gendel ({folder}), read by the book")
        if name == "seal":
            p.add_argument("--made-at", required=True, nargs="+",
                           help="the git commit whose code made the results (several: every one of them made them)")
            p.add_argument("--grid", choices=("paper", "baselines"), default="paper",
                           help="the paper-protocol grid's results (default) or the baselines grid's")
            continue
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
            p.add_argument("--timeout-min", type=_positive, help="slurm: time limit of one job in minutes (default: "
                                                                   f"{SLURM_OPTIONS['timeout_min']})")
            p.add_argument("--logs", help="slurm: submitit's log folder (default: <results>/logs)")
            p.add_argument("--partition", help="slurm: partition")
            p.add_argument("--gpus", type=_at_least(0), help="slurm: GPUs per job (default: 0)")
            p.add_argument("--cpus", type=_positive, help=f"slurm: CPUs per job (default: {SLURM_OPTIONS['cpus']})")
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
        if args.command == "grid":
            _check_executor(args)
        if args.command == "run" or getattr(args, "executor", None) == "local":
            _check_device_here(args.device, args.command)
        results = _results_folder(args)
        if args.command == "run":
            from gendel.gan.result_files import result_path
            from gendel.gan.run import done

            job = _job_from_args(args)
            path = result_path(job, results)
            with warnings.catch_warnings():  # run_job reports a damaged or outdated result itself
                warnings.simplefilter("ignore")
                finished = done(path, job)
            if finished is not None:
                made = finished.provenance
                print(f"{job.name}: done already, {path} (made {made.get('created', 'earlier')} in "
                      f"{made['seconds']['job']:.1f} s)")
                return 0
            _check_writable(args, results)
            _check_data([job.dataset])
            result = run_job(job, results, device=args.device, command=command)
            print(f"{job.name}: {path} ({result.provenance['seconds']['job']:.1f} s)")
            return 0
        if args.command == "baselines":
            return _baselines(args, command)
        if args.command == "seal":
            from gendel.gan.seal import seal

            if args.grid == "baselines":
                from gendel.gan import baseline_results as B

                if not args.store:
                    raise UsageError("seal --grid baselines seals the stored results: give --store")
                results = B.STORED_RESULTS_DIR / B.get_baseline_profile(args.profile).name
            seal(results, made_at=args.made_at, command=command, grid=args.grid)
            return 0
        todo = grid.todo(args.profile, results)
        if todo:
            _check_writable(args, results)
            _check_data(J.get_profile(args.profile).datasets)
        print(f"{len(J.jobs(args.profile)) - len(todo)} job(s) done, {len(todo)} to run; results in {results}")
        if not todo:
            return 0
        return (grid.slurm_grid if args.executor == "slurm" else grid.local_grid)(args, results, todo, command)
    except (UsageError, ValueError, FileNotFoundError) as exc:  # a bad job, profile, setting or missing data
        parser.exit(2, f"python -m gendel.gan {args.command}: error: {exc}\n")
    except KeyboardInterrupt:
        parser.exit(130, f"python -m gendel.gan {args.command}: interrupted; the epochs trained so far are kept in "
                         "the checkpoints: run the same command again to resume\n")


if __name__ == "__main__":
    sys.exit(main())
