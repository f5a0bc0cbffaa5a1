"""Running the jobs of a profile as a grid: the models jobs share first, then the jobs; on this
machine as N processes that split its cores, or on a SLURM cluster through submitit.

``python -m gendel.gan grid`` calls :func:`local_grid` or :func:`slurm_grid`; their workers are
the module-level functions here (a worker process imports them by name).
"""

from __future__ import annotations

import os
import re
import sys
import time
import warnings
from pathlib import Path

from gendel.gan import experiment as J
from gendel.gan import profiles as P
from gendel.gan.run import done, run_job


def _set_threads(threads, grid_pid=None):
    """A worker's start: its share of the cores (set before torch starts its thread pools), and a
    watch on the grid process ``grid_pid`` (default: this process's parent): a worker whose grid is
    gone (killed) stops instead of finishing its job alone."""
    os.environ["OMP_NUM_THREADS"] = str(threads)
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    import threading

    import torch

    torch.set_num_threads(threads)
    parent = os.getppid() if grid_pid is None else grid_pid

    def watch():
        while True:
            if os.getppid() != parent:   # re-parented: the grid process died
                os._exit(1)
            time.sleep(2.0)

    threading.Thread(target=watch, daemon=True, name="gendel-grid-watch").start()


def _shared_task(task, profile, device):
    """Train one model that several jobs share (a worker's task; module-level, so it pickles)."""
    kind, dataset, seed = task
    if kind == "pretrained":
        J.pretrained_model(dataset, seed, profile, device=device, progress=False)
    else:
        J.label_classifier(dataset, profile, device=device, progress=False)
    return f"{kind} {dataset}" + (f" seed {seed}" if seed is not None else "")


def baseline_task(job, results, device, command):
    """What a grid worker runs for a job of the baselines grid: the job, into the folder
    ``results``, on ``device``, recorded as made by ``command``; ``(job name, seconds)``.
    ``python -m gendel.gan baselines`` passes it to :func:`local_grid` as the runner.

    Examples
    --------
    It is a module-level function, so that it pickles (a worker process imports it by name):

    >>> import pickle
    >>> pickle.loads(pickle.dumps(baseline_task)) is baseline_task
    True
    """
    from gendel.gan.baseline_results import run_baseline_job

    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=f".*; running the job {re.escape(job.name)} again")
        run_baseline_job(job, results, device=device, progress=False, command=command)
    return job.name, time.perf_counter() - t0


def baseline_shared_models(profile, seeds=None):
    """The models the jobs of a baselines grid share: the classifiers, the pre-trained GANs of
    its seeds and of their control seeds.

    Examples
    --------
    >>> baseline_shared_models("tiny")
    [('classifier', 'mnist', None), ('pretrained', 'mnist', 0), ('pretrained', 'mnist', 1000)]
    """
    from gendel.gan.baselines import control_seed, get_baseline_profile

    p = get_baseline_profile(profile)
    seeds = [s for s in p.seeds if seeds is None or s in seeds]
    every = [s for seed in seeds for s in (seed, control_seed(seed))]
    return [("classifier", d, None) for d in p.datasets] + [("pretrained", d, s) for d in p.datasets for s in every]


def _job_task(job, results, device, command):
    """What a grid worker runs for a job (module-level, so that it pickles)."""
    t0 = time.perf_counter()
    with warnings.catch_warnings():  # the grid has reported a result that is not done; once is enough
        warnings.filterwarnings("ignore", message=f".*; running the job {re.escape(job.name)} again")
        run_job(job, results, device=device, progress=False, command=command)
    return job.name, time.perf_counter() - t0


def shared_models(profile):
    """The models the jobs of a profile share: ``("pretrained", data set, seed)`` for every seed
    and control seed, ``("classifier", data set, None)``.

    Examples
    --------
    >>> shared_models("tiny")
    [('classifier', 'mnist', None), ('pretrained', 'mnist', 0), ('pretrained', 'mnist', 1)]
    """
    p = P.get_profile(profile)
    seeds = sorted(set(p.seeds) | {j.control_seed for j in P.jobs(p)})
    return [("classifier", d, None) for d in p.datasets] + [("pretrained", d, s) for d in p.datasets for s in seeds]


def todo(profile, results):
    """The jobs of ``profile`` whose result in ``results`` is not done (:func:`gendel.gan.run.done`,
    the rule ``run`` follows too: a damaged result, or one of other code, is reported and not done).

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as results:          # nothing run yet: every job to do
    ...     [job.name for job in todo("tiny", results)]
    ['mnist-even-0.7-seed0', 'mnist-odd-0.7-seed0']
    """
    from gendel.gan.result_files import result_path

    return [j for j in P.jobs(profile) if done(result_path(j, results), j) is None]


def local_grid(args, results, todo, command, *, shared=None, runner=None):
    """Run the shared models, then the jobs ``todo``, in ``args.parallel`` processes here; return the
    exit status (1 when a task failed: every failure is reported on stderr).

    ``args`` are the parsed options of ``python -m gendel.gan grid`` (``profile``, ``device``,
    ``parallel``, ``threads``), checked by the command line before any work. ``shared`` and
    ``runner`` (the baselines grid's) default to the paper-protocol grid's shared models and job task.

    Examples
    --------
    >>> import argparse
    >>> args = argparse.Namespace(profile="tiny", device="cpu", parallel=2, threads=1)
    >>> local_grid(args, "results", todo("tiny", "results"), "a Python call")  # needs MNIST; trains # doctest: +SKIP
    2 process(es) of 1 thread(s) each
    [1/3] done shared model classifier mnist
    ...
    0
    """
    import concurrent.futures as cf
    import multiprocessing

    threads = args.threads or max(1, (os.cpu_count() or 1) // args.parallel)
    print(f"{args.parallel} process(es) of {threads} thread(s) each")
    context = multiprocessing.get_context("spawn")
    failed = 0
    with cf.ProcessPoolExecutor(args.parallel, mp_context=context, initializer=_set_threads,
                                initargs=(threads, os.getpid())) as pool:
        shared = shared_models(args.profile) if shared is None else shared
        for stage, tasks, run in (("shared model", shared, _shared_task), ("job", todo, runner or _job_task)):
            if stage == "shared model":
                futures = {pool.submit(run, t, args.profile, args.device): t for t in tasks}
            else:
                futures = {pool.submit(run, j, str(results), args.device, command): j for j in tasks}
            for n, future in enumerate(cf.as_completed(futures), 1):
                task = futures[future]
                try:
                    out = future.result()
                    text = out if stage == "shared model" else f"{out[0]} in {out[1]:.0f} s"
                    print(f"[{n}/{len(futures)}] done {stage} {text}", flush=True)
                except Exception as exc:  # report every failure, then exit non-zero
                    failed += 1
                    name = getattr(task, "name", task)
                    print(f"[{n}/{len(futures)}] FAILED {stage} {name}: {type(exc).__name__}: {exc}", file=sys.stderr,
                          flush=True)
            if failed:
                break
    return 1 if failed else 0


def slurm_grid(args, results, todo, command):
    """Submit the shared models, then the jobs ``todo``, to SLURM (submitit), and wait for them;
    return the exit status (1 when a task failed).

    ``args`` are the parsed options of ``python -m gendel.gan grid --executor slurm``
    (``timeout_min``, ``logs``, ``partition``, ``gpus``, ``cpus``, ``parallel``), checked and
    completed with their defaults by the command line before any work.

    Examples
    --------
    >>> import argparse
    >>> args = argparse.Namespace(profile="paper", device="cuda", parallel=8, timeout_min=1440, logs=None,
    ...                           partition="gpu", gpus=1, cpus=4)
    >>> slurm_grid(args, "results", todo("paper", "results"), "a Python call")  # on a SLURM cluster # doctest: +SKIP
    done shared model classifier mnist
    ...
    0
    """
    import submitit

    logs = Path(args.logs or Path(results) / "logs")
    executor = submitit.AutoExecutor(folder=logs, cluster="slurm")
    executor.update_parameters(timeout_min=args.timeout_min, name=f"gendel-{args.profile}",
                               slurm_array_parallelism=args.parallel, cpus_per_task=args.cpus,
                               **({"slurm_partition": args.partition} if args.partition else {}),
                               **({"gpus_per_node": args.gpus} if args.gpus else {}))
    tasks = shared_models(args.profile)
    shared = executor.map_array(_shared_task, tasks, [args.profile] * len(tasks), [args.device] * len(tasks))
    failed = 0
    for sub in shared:
        try:
            print(f"done shared model {sub.result()}")
        except Exception as exc:
            failed += 1
            print(f"FAILED shared model: {exc}", file=sys.stderr)
    if failed:
        return 1
    submitted = executor.map_array(_job_task, todo, [str(results)] * len(todo), [args.device] * len(todo),
                                   [command] * len(todo))
    for job, sub in zip(todo, submitted):
        try:
            name, seconds = sub.result()
            print(f"done {name} in {seconds:.0f} s")
        except Exception as exc:
            failed += 1
            print(f"FAILED {job.name}: {exc}", file=sys.stderr)
    return 1 if failed else 0


