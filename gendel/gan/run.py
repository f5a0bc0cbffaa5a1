"""Running a GAN job: its result file, and where the result comes from.

:func:`run_job` has a job's result computed (:func:`gendel.gan.experiment.make_result`, the stages of
:mod:`gendel.gan.experiment`) unless it is done already, and writes the result file
(:mod:`gendel.gan.result_files`) with its *provenance*: the fingerprint of the code that made it, the
command, the hardware of every training, the library versions and the time of each stage. What it
adds to the result computes nothing, so it is not in the fingerprint.

:func:`code_fingerprint` hashes what computes a result (:mod:`gendel.fingerprint`): the stages, the
DCGAN, the VDM DRE, the label classifier, the networks and training loops, the data subsets and
deletion sets, Alg. 1 and the statistics, following every gendel function they use. Moving or
renaming code, comments, docstrings and input checks leave it unchanged; a change to any of those
computations changes it. Result files, provenance records, cache keys and checkpoint files are
bookkeeping and do not enter it.
"""

from __future__ import annotations

import datetime
import platform
import sys
import warnings
from pathlib import Path

from gendel.cache import CacheWarning
from gendel.gan.experiment import check_job, make_result
from gendel.gan.profiles import RESULT_VERSION, jobs
from gendel.gan.result_files import DamagedResult, load_result

#: Modules of bookkeeping for the fingerprint: result files and this module's records.
BOOKKEEPING_MODULES = ("gendel.gan.result_files", "gendel.gan.__main__", "gendel.gan.grid")


def done(path, job, *, data_root=None):
    """The result in ``path`` if it is *done*, else None. Done means the same job, the same data
    and the same code: it reads as a complete, unchanged result of this job and profile
    (:func:`gendel.gan.result_files.load_result`: its checksum, the schema, the job); it was made from
    today's training images and deletion set (the fingerprints of both recorded in its ``data``
    equal those of the images this machine has, :func:`data_fingerprints`); and its code
    fingerprint is today's (:func:`code_fingerprint`). A file that is there but not done is
    reported with a warning (and its job then runs again). ``run`` and ``grid`` both decide by
    this rule.

    The temporary files that a writer of this result left when it was killed midway (see
    :func:`gendel.cache.atomic_write`) are removed first.

    Examples
    --------
    >>> import tempfile, warnings
    >>> from pathlib import Path
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     torn = Path(tmp) / "mnist-even-0.7-seed0.json"
    ...     _ = torn.write_text('{"version": 2, "job"')                  # a truncated file
    ...     with warnings.catch_warnings(record=True) as caught:
    ...         warnings.simplefilter("always")
    ...         done(torn, jobs("tiny")[0]), "truncated" in str(caught[0].message)
    (None, True)
    """
    from gendel.cache import remove_stale_temporaries
    from gendel.gan.profiles import Job

    if not isinstance(job, Job):
        raise TypeError(f"done needs the Job of the result (e.g. gendel.gan.profiles.find_job('quick', "
                        f"'mnist-even-0.7-seed0')); got {type(job).__name__} {job!r}")
    path = Path(path)
    for written in (path, path.with_suffix(".npz")):
        remove_stale_temporaries(written)
    if not path.exists():
        return None
    try:
        result = load_result(path, job)
    except DamagedResult as exc:
        warnings.warn(f"{exc}; running the job {job.name} again", CacheWarning, stacklevel=2)
        return None
    if result.fingerprint != code_fingerprint():
        warnings.warn(f"the result file {path} was made by other code (fingerprint {result.fingerprint}, today's "
                      f"{code_fingerprint()}); running the job {job.name} again", CacheWarning, stacklevel=2)
        return None
    try:
        images, deleted = data_fingerprints(job, data_root=data_root)
    except FileNotFoundError as exc:
        warnings.warn(f"the training images of {path} cannot be checked ({exc}); running the job {job.name} again",
                      CacheWarning, stacklevel=2)
        return None
    if (result.data.get("images"), result.data.get("deleted")) != (images, deleted):
        warnings.warn(f"the result file {path} was made from other data (training images {result.data.get('images')}, "
                      f"deletion set {result.data.get('deleted')}; today's {images}, {deleted}); running the job "
                      f"{job.name} again", CacheWarning, stacklevel=2)
        return None
    return result


def data_fingerprints(job, *, data_root=None):
    """``(images, deleted)``: the fingerprints of the training images ``job`` uses on this machine and
    of its deletion set X', as a result records them in its ``data``.

    Examples
    --------
    >>> images, deleted = data_fingerprints(jobs("tiny")[0])      # needs MNIST # doctest: +SKIP
    >>> len(images), len(deleted)                                 # doctest: +SKIP
    (24, 24)
    """
    from gendel.gan.experiment import deletion_mask, training_images
    from gendel.gan.checkpoints import data_fingerprint

    X, labels = training_images(job.dataset, check_job(job).n_train, root=data_root)
    return data_fingerprint(X), data_fingerprint(deletion_mask(job, labels))


def _refuse_other_profile(path, job):
    """Refuse to overwrite a result of another profile that sits at ``path`` (a shared --results folder)."""
    import json

    try:
        theirs = json.loads(Path(path).read_text())["job"]["profile"]
    except (OSError, ValueError, KeyError, TypeError, RecursionError):
        return  # no file, or not a readable result: nothing of value to keep
    if theirs != job.profile:
        raise FileExistsError(f"{path} holds a result of profile {theirs!r}; a job of {job.profile!r} would overwrite "
                              f"it: give each profile its own results folder (--results), or leave --results out")


def run_job(job, results_dir=None, *, device=None, progress=True, data_root=None, command=None):
    """Have one job computed (:func:`gendel.gan.experiment.make_result`) and write its result file;
    return its :class:`~gendel.gan.result_files.JobResult`.

    A result file that is already there is returned instead when it is *done* (``done``:
    readable, of this job and profile, made by today's code); otherwise it is reported and the
    job runs again.

    Parameters
    ----------
    job : Job
    results_dir : path, optional
        Default: ``gendel.gan.result_files.default_results_dir`` (the cache, by profile).
    device : str, optional
        ``"cpu"``, ``"cuda"``; default CUDA when available.
    command : str, optional
        What made the result, for its provenance (the command line; by default a Python call).

    Examples
    --------
    >>> from gendel.gan.profiles import find_job
    >>> result = run_job(find_job("tiny", "mnist-odd-0.7-seed0"))   # needs MNIST # doctest: +SKIP
    >>> result.data["n_train"]                                      # doctest: +SKIP
    256
    """
    from gendel.gan.result_files import JobResult, default_results_dir, result_path, usable_results_dir, write_result

    from gendel.gan.devices import pick_device

    p = check_job(job)
    device = pick_device(device)  # a bad device is refused even when the job is done
    results_dir = default_results_dir(p) if results_dir is None else results_dir
    path = result_path(job, results_dir)
    _refuse_other_profile(path, job)
    existing = done(path, job, data_root=data_root)
    if existing is not None:
        return existing
    writable = usable_results_dir(results_dir)  # says so before hours of training, not after
    fields = make_result(job, device=device, progress=progress, data_root=data_root)
    hw, seconds = fields.pop("hardware"), fields.pop("seconds")
    result = JobResult(version=RESULT_VERSION, provenance=provenance(command=command, hardware=hw, seconds=seconds),
                       **fields)
    if writable:
        write_result(result, path)
    return result


def run_profile(profile, results_dir=None, **kwargs):
    """Run every job of a profile in this process, one after the other, skipping done ones.

    Examples
    --------
    >>> results = run_profile("tiny")       # needs MNIST; trains # doctest: +SKIP
    """
    return [run_job(job, results_dir, **kwargs) for job in jobs(profile)]


def computing_roots():
    """The functions and classes :func:`code_fingerprint` starts from.

    Examples
    --------
    >>> names = [getattr(r, "__name__", "") for r in computing_roots()]
    >>> "fast_deletion" in names, "DCGAN" in names, "ApproximateDeletion" in names
    (True, True, True)
    """
    from gendel.gan.experiment import STAGES

    return (*STAGES, *model_roots())


def model_roots():
    """The models, Alg. 1 and the statistics that every GAN grid's fingerprint follows (this
    module's :func:`code_fingerprint` and the baselines grid's
    :func:`gendel.gan.baseline_results.baseline_fingerprint`), besides each grid's own stages.

    Examples
    --------
    >>> [getattr(r, "__name__", "") for r in model_roots()][:3]
    ['DCGAN', 'VDMDRE', 'LabelClassifier']
    """
    from gendel.core.deletion import ApproximateDeletion
    from gendel.deletion_test.stats import Statistic, asc, ks_statistic, likelihood_ratio, psi
    from gendel.gan.classifier import LabelClassifier
    from gendel.gan.dcgan import DCGAN
    from gendel.gan.vdm import VDMDRE

    return (DCGAN, VDMDRE, LabelClassifier, ApproximateDeletion, Statistic, likelihood_ratio, asc, psi, ks_statistic)


def bookkeeping():
    """The functions :func:`code_fingerprint` does not follow (besides its modules of bookkeeping):
    those of training (checkpoints, devices, progress), where the data files are (not what they
    hold), and this module's records and checks (whether a job is done, its provenance). The
    baselines grid's fingerprint skips them too. :func:`run_job`, the bookkeeping around
    :func:`gendel.gan.experiment.make_result`, needs no place here: no fingerprint root calls it.

    Examples
    --------
    >>> names = [f.__name__ for f in bookkeeping()]
    >>> "load_checkpoint" in names, "data_root" in names, "provenance" in names, "make_result" in names
    (True, True, True, False)
    """
    from gendel.gan.images import BOOKKEEPING as DATA_FILES
    from gendel.gan.training import BOOKKEEPING

    return (*BOOKKEEPING, *DATA_FILES, done, data_fingerprints, _refuse_other_profile,
            provenance, code_fingerprint, python_call)


def code_fingerprint():
    """The fingerprint (16 hex digits) of the code that decides the numbers of a GAN result.

    Every result file records the fingerprint of the code that made it
    (``result.provenance["fingerprint"]``); a stored result whose fingerprint differs from
    today's was made by other code and is remade by its profile's command
    (:func:`gendel.gan.result_files.remake_command`).

    Examples
    --------
    >>> fp = code_fingerprint()
    >>> len(fp), fp == code_fingerprint()
    (16, True)
    """
    from gendel.fingerprint import cached_code_hash

    return cached_code_hash(computing_roots(), bookkeeping(), BOOKKEEPING_MODULES)


def fingerprinted_code():
    """What :func:`code_fingerprint` covers: ``{qualified name: hash}`` of every function and class.

    Examples
    --------
    >>> table = fingerprinted_code()
    >>> "gendel.gan.networks.Generator" in table, "gendel.gan.result_files.write_result" in table
    (True, False)
    """
    from gendel.fingerprint import hashed_objects

    return hashed_objects(computing_roots(), skip=bookkeeping(), skip_modules=BOOKKEEPING_MODULES)


def python_call(function="gendel.gan.run.run_job"):
    """The command recorded for a result made from Python (by ``function``) rather than the command line.

    Examples
    --------
    >>> python_call().startswith("a Python call (gendel.gan.run.run_job, from ")
    True
    >>> python_call("gendel.gan.baseline_results.run_baseline_job").startswith("a Python call (gendel.gan.baseline_results")
    True
    """
    where = sys.argv[0] if sys.argv and sys.argv[0] else "an interactive session"
    return f"a Python call ({function}, from {where})"


def provenance(*, command, hardware, seconds):
    """The provenance record of a result: ``fingerprint``, ``command``, ``hardware`` (per
    training and of the evaluation), ``torch``, ``numpy``, ``python``, ``gendel``, ``created``
    and ``seconds`` (per stage).

    Examples
    --------
    >>> record = provenance(command="python -m gendel.gan run ...", hardware={}, seconds={"train": 1.0})
    >>> sorted(record)
    ['command', 'created', 'fingerprint', 'gendel', 'hardware', 'numpy', 'python', 'seconds', 'torch']
    """
    import numpy
    import torch

    from importlib.metadata import PackageNotFoundError, version

    try:
        __version__ = version("gendel")
    except PackageNotFoundError:  # run from a copy of the source that is not installed
        __version__ = "unknown (not installed)"

    return {"fingerprint": code_fingerprint(), "command": command or python_call(), "hardware": hardware,
            "torch": str(torch.__version__), "numpy": numpy.__version__, "python": platform.python_version(),
            "gendel": __version__, "created": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            "seconds": seconds}
