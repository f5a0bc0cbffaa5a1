"""The result files of the baselines grid (:mod:`gendel.gan.baselines`): writing, checking, reading.

A job writes ``<results_dir>/<job name>.json`` (label counts, sampling and training seconds,
the deletion test's statistics of every method, provenance) and an ``.npz`` beside it (32 samples
of each method), atomically, with a checksum of their content. The results of the quick grid
are stored with gendel in ``gendel/gan/results/baselines/<profile>/``, made by
``python -m gendel.gan baselines --profile quick --store --parallel 2`` (``remake_command``);
a grid stopped midway leaves whole seeds, and the next run of the command adds the rest.

:func:`load_baseline_result` refuses a file that is not a complete, unchanged result of its job
(edited numbers, another job's arrays, a renamed file, a count that does not add up);
``done`` adds today's data and code fingerprints (:func:`baseline_fingerprint`).
"""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np

from gendel.deletion_test.stats import PAPER_STATISTICS
from gendel.gan.baselines import (BASELINE_VERSION, baseline_jobs, check_baseline_job, get_baseline_profile,
                                  make_baseline_result)
from gendel.gan.profiles import Job
from gendel.gan.result_files import (REMAKE_FLAGS, DamagedResult, jsonable, read_arrays, read_record,
                                     stored_results_dir, write_record)

#: Modules that only keep records of the baselines grid (not followed by the fingerprint).
BOOKKEEPING_MODULES = ("gendel.gan.result_files", "gendel.gan.baseline_results", "gendel.gan.__main__", "gendel.gan.grid")
#: The folder, under the stored results, of the baselines grid's results (one folder per profile).
FOLDER = "baselines"
#: Where ``--store`` writes the baselines grid's results (one folder per profile).
STORED_RESULTS_DIR = Path(__file__).parent / "results" / FOLDER


def baseline_fingerprint():
    """The fingerprint (16 hex digits) of the code that decides the numbers of a result of the
    baselines grid (``gendel.fingerprint``, from ``gendel.gan.baselines.STAGES`` and the
    models, Alg. 1 and the statistics they use).

    Examples
    --------
    >>> fp = baseline_fingerprint()
    >>> len(fp), fp == baseline_fingerprint()
    (16, True)
    """
    from gendel.fingerprint import cached_code_hash

    return cached_code_hash(_roots(), _bookkeeping(), BOOKKEEPING_MODULES)


def baseline_fingerprinted_code():
    """What :func:`baseline_fingerprint` covers: ``{qualified name: hash}`` of every function and class.

    Examples
    --------
    >>> table = baseline_fingerprinted_code()
    >>> "gendel.gan.baselines.LabelRatio.fit" in table, "gendel.gan.baseline_results.run_baseline_job" in table
    (True, False)
    """
    from gendel.fingerprint import hashed_objects

    return hashed_objects(_roots(), skip=_bookkeeping(), skip_modules=BOOKKEEPING_MODULES)


def _roots():
    from gendel.gan.baselines import STAGES
    from gendel.gan.dcgan import FineTunedDCGAN
    from gendel.gan.run import model_roots

    return (*STAGES, FineTunedDCGAN, *model_roots())


def _bookkeeping():
    from gendel.gan.run import bookkeeping

    return bookkeeping()


def stored_dir(profile):
    """Where the stored results of the baselines grid ``profile`` are.

    Examples
    --------
    >>> stored_dir("quick").as_posix().endswith("results/baselines/quick")
    True
    """
    return stored_results_dir() / FOLDER / get_baseline_profile(profile).name


def default_dir(profile):
    """``$GENDEL_CACHE_DIR/gan/baselines-<profile>``: where results go without ``--results`` or ``--store``.

    Examples
    --------
    >>> default_dir("tiny").name
    'baselines-tiny'
    """
    from gendel.cache import cache_dir

    return cache_dir() / "gan" / f"baselines-{get_baseline_profile(profile).name}"


def result_path(job, results_dir):
    """``<results_dir>/<job name>.json``.

    Examples
    --------
    >>> from gendel.gan.baselines import find_baseline_job
    >>> result_path(find_baseline_job("tiny", "mnist-random-0.7-seed0"), "r").as_posix()
    'r/mnist-random-0.7-seed0.json'
    """
    return Path(results_dir) / f"{job.name}.json"


def remake_command(profile, seeds=None):
    """The command that makes (or completes) the stored results of the baselines grid ``profile``.

    Examples
    --------
    >>> remake_command("quick")
    'python -m gendel.gan baselines --profile quick --store --parallel 2'
    """
    name = get_baseline_profile(profile).name
    more = "" if seeds is None else " --seeds " + " ".join(str(s) for s in seeds)
    return f"python -m gendel.gan baselines --profile {name} --store{REMAKE_FLAGS.get(name, '')}{more}"


def _fail(where, text):
    raise DamagedResult(f"{where}: {text}; a result is only read as written by gendel: delete it and run its job again "
                        f"(`python -m gendel.gan baselines ...`)")


def _check(d, arrays, where):
    """The job of a result's JSON part ``d``, once its content is checked to add up."""
    from gendel.gan.schema import kept_counts

    if d.get("version") != BASELINE_VERSION or d.get("kind") != "baselines":
        _fail(where, f"it is not a result of the baselines grid (format {BASELINE_VERSION}); got version "
                     f"{d.get('version')!r}, kind {d.get('kind')!r}")
    try:
        j = d["job"]
        job = Job(j["profile"], j["dataset"], j["setting"], float(j["lam"]), int(j["seed"]))
        bp = check_baseline_job(job)
    except (KeyError, TypeError, ValueError) as exc:
        _fail(where, f"its job is not one of the baselines grid ({exc})")
    if job.name != j.get("name"):
        _fail(where, f"its job is named {j.get('name')!r}, not {job.name!r}")
    p = bp.sizes
    if d.get("profile") != bp.record():
        _fail(where, f"it was made with other settings than today's baselines profile {bp.name!r}")
    methods = list(bp.methods())
    if d.get("methods") != methods:
        _fail(where, f"its methods {d.get('methods')} are not the profile's {methods}")
    try:
        for m in methods:
            counts = np.asarray(d["labels"][m])
            if counts.shape != (10,) or counts.min() < 0 or counts.sum() != p.m_labels:
                _fail(where, f"the label counts of {m} do not add up to m_labels = {p.m_labels}")
            if arrays.get(f"grid_{m}") is None or arrays[f"grid_{m}"].shape != (32, 28, 28):
                _fail(where, f"its arrays lack the 32 samples of {m}")
            for key in PAPER_STATISTICS:
                values = np.asarray(d["q3"]["statistics"][key][m], float)
                if values.shape != (bp.test_repeats,) or not np.isfinite(values).all():
                    _fail(where, f"the {key} values of {m} are not {bp.test_repeats} finite numbers")
                if m != "pre" and not 0 <= d["q3"]["ks"][key][m] <= 1:
                    _fail(where, f"the KS distance of {m} ({key}) is not in [0, 1]")
            if not d["sampling"][m]["seconds_per_sample"] >= 0 or not d["training"][m]["seconds"] >= 0:
                _fail(where, f"the seconds of {m} are missing or negative")
        weights = np.asarray(d["oracle_weights"], float)
        if weights.shape != (10,) or not np.isfinite(weights).all() or weights.min() < 0:
            _fail(where, "its oracle weights are not 10 finite non-negative numbers")
        if not 0 <= d["classifier"]["test_accuracy"] <= 1:
            _fail(where, "its classifier's test accuracy is not in [0, 1]")
        data = d["data"]
        counts_X, kept = list(data["label_counts_X"]), list(data["label_counts_kept"])
        if sum(counts_X) != data["n_train"] or sum(counts_X) - sum(kept) != data["n_deleted"]:
            _fail(where, "its data counts do not add up")
        if job.setting != "random" and kept != kept_counts(counts_X, job.setting, job.lam):
            _fail(where, f"X ∖ X′ is not what {job.setting}-{job.lam:g} keeps of X")
        if job.setting == "random" and data["n_deleted"] != sum(counts_X) - sum(kept_counts(counts_X, "even", job.lam)):
            _fail(where, f"N′ is not the even setting's at λ = {job.lam:g}")
        prov = d["provenance"]
        if not (isinstance(prov["fingerprint"], str) and prov["command"] and prov["created"] and prov["hardware"]):
            _fail(where, "its provenance is incomplete")
    except (KeyError, TypeError) as exc:
        _fail(where, f"it lacks {exc}")
    return job


def load_baseline_result(path, job=None):
    """The JSON part of a result file of the baselines grid as a dict (its arrays under
    ``"arrays"``), checked: its checksum, that its content adds up, that it is named after its
    job, and (with ``job``) that it is that job's. Anything else raises ``DamagedResult``.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     _ = (Path(tmp) / "mnist-even-0.7-seed0.json").write_text('{"version": 3}')
    ...     load_baseline_result(Path(tmp) / "mnist-even-0.7-seed0.json")
    Traceback (most recent call last):
    gendel.gan.result_files.DamagedResult: ... has no arrays file mnist-even-0.7-seed0.npz beside it
    """
    from gendel.gan.schema import checksum_problem

    path = Path(path)
    where = f"the result file {path}"
    d = read_record(path, where)
    arrays = read_arrays(path, where)
    problem = checksum_problem(d, arrays)
    if problem is not None:
        _fail(where, problem)
    found = _check(d, arrays, where)
    if path.stem != found.name:
        _fail(where, f"it holds the result of {found.name} (a result file is named after its job)")
    if job is not None and found != job:
        _fail(where, f"it is the result of {found.profile} {found.name}, not of {job.profile} {job.name}")
    return d | {"arrays": arrays}


def done(path, job, *, data_root=None):
    """The result in ``path`` if it is done (a checked result of ``job``, made from today's
    training images and deletion set by today's code), else None (a file that is there but not
    done is reported with a warning, and its job then runs again).

    Examples
    --------
    >>> import tempfile
    >>> from gendel.gan.baselines import find_baseline_job
    >>> with tempfile.TemporaryDirectory() as tmp:                    # nothing there yet: not done
    ...     done(Path(tmp) / "mnist-even-0.7-seed0.json", find_baseline_job("tiny", "mnist-even-0.7-seed0")) is None
    True
    """
    from gendel.cache import CacheWarning, remove_stale_temporaries
    from gendel.gan.baselines import baseline_deletion_mask
    from gendel.gan.checkpoints import data_fingerprint
    from gendel.gan.experiment import training_images

    path = Path(path)
    for written in (path, path.with_suffix(".npz")):
        remove_stale_temporaries(written)
    if not path.exists():
        return None
    try:
        result = load_baseline_result(path, job)
    except DamagedResult as exc:
        warnings.warn(f"{exc}; running the job {job.name} again", CacheWarning, stacklevel=2)
        return None
    today = baseline_fingerprint()
    if result["provenance"]["fingerprint"] != today:
        warnings.warn(f"the result file {path} was made by other code (fingerprint "
                      f"{result['provenance']['fingerprint']}, today's {today}); running the job {job.name} again",
                      CacheWarning, stacklevel=2)
        return None
    X, labels = training_images(job.dataset, get_baseline_profile(job.profile).sizes.n_train, root=data_root)
    if (result["data"]["images"], result["data"]["deleted"]) != (
            data_fingerprint(X), data_fingerprint(baseline_deletion_mask(job, labels))):
        warnings.warn(f"the result file {path} was made from other data; running the job {job.name} again",
                      CacheWarning, stacklevel=2)
        return None
    return result


def run_baseline_job(job, results_dir=None, *, device=None, progress=True, data_root=None, command=None):
    """Run one job of the baselines grid and write its result file (or return it when done).

    Examples
    --------
    >>> from gendel.gan.baselines import find_baseline_job
    >>> r = run_baseline_job(find_baseline_job("tiny", "mnist-random-0.7-seed0"), "results")  # needs MNIST # doctest: +SKIP
    >>> r["methods"]                                                                          # doctest: +SKIP
    ['pre', 're', 'approx', 'oracle', 'finetune-1', 'control']
    """
    from gendel.gan.run import provenance, python_call

    from gendel.gan.devices import pick_device

    check_baseline_job(job)
    device = pick_device(device)  # a bad device is refused even when the job is done
    results_dir = default_dir(job.profile) if results_dir is None else results_dir
    path = result_path(job, results_dir)
    existing = done(path, job, data_root=data_root)
    if existing is not None:
        return existing
    record, arrays = make_baseline_result(job, device=device, progress=progress, data_root=data_root)
    seconds, hw = record.pop("seconds"), record.pop("hardware")
    prov = provenance(command=command or python_call("gendel.gan.baseline_results.run_baseline_job"), hardware=hw, seconds=seconds)
    prov["fingerprint"] = baseline_fingerprint()
    record["provenance"] = prov
    record = jsonable(record)
    path.parent.mkdir(parents=True, exist_ok=True)
    write_record(record, arrays, path)
    return load_baseline_result(path, job)


def todo(profile, results, seeds=None):
    """The jobs of the baselines grid ``profile`` (of ``seeds``) whose result in ``results`` is not done.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     [job.name for job in todo("tiny", tmp)]
    ['mnist-even-0.7-seed0', 'mnist-random-0.7-seed0']
    """
    return [j for j in baseline_jobs(profile, seeds) if done(result_path(j, results), j) is None]


def stored_baseline_results(profile="quick"):
    """The stored results of the baselines grid ``profile``, in job order (seed by seed): whatever
    is stored (a grid made seed by seed may hold fewer seeds than its profile). Every file of the
    folder must be a checked result of that profile, named after its job.

    Examples
    --------
    >>> results = stored_baseline_results("quick")
    >>> sorted({r["job"]["seed"] for r in results})[:1]
    [0]
    """
    bp = get_baseline_profile(profile)
    folder = stored_dir(bp)
    if not folder.is_dir():
        raise ValueError(f"no stored results of the baselines grid {bp.name!r} in {folder}; make them with "
                         f"`{remake_command(bp.name)}`")
    order = {j.name: i for i, j in enumerate(baseline_jobs(bp))}
    results = []
    for path in sorted(folder.glob("*.json")):
        try:
            results.append(load_baseline_result(path))
        except DamagedResult as exc:
            raise DamagedResult(f"{exc}. The stored results of the baselines grid {bp.name!r} are remade by "
                                f"`{remake_command(bp.name)}`") from None
        if results[-1]["job"]["profile"] != bp.name:
            raise DamagedResult(f"{path} is a result of the baselines profile {results[-1]['job']['profile']!r}, "
                                f"not of {bp.name!r}; remove it from {folder}")
    stray = sorted(p.name for p in folder.iterdir() if p.suffix not in (".json", ".npz"))
    if stray:
        raise DamagedResult(f"{folder} holds files that are not results: {stray}; remove them")
    return sorted(results, key=lambda r: order.get(r["job"]["name"], len(order)))


#: The models of a baselines result that the paper-protocol claims read (:func:`as_job_results`).
_PROTOCOL_MODELS = ("pre", "re", "approx", "control")


def as_job_results(results):
    """The even and odd results of the baselines grid as :class:`~gendel.gan.result_files.JobResult`, so
    that the paper-protocol claims (:func:`gendel.claims.gan.claims`) judge them by the same rules:
    five seeds, and controls that share no model (the control of seed s has seed 1000 + s).

    Each keeps the models ``pre``, ``re``, ``approx`` (Alg. 1 with the VDM ratio, B = 10) and
    ``control``, and Q3's statistics with ``h0`` the pre-trained model's test sets, ``h1`` the
    re-trained model's and ``control`` the control's (``R`` = the grid's test sets, 20 in quick).
    Random-deletion jobs and the other methods are left out; there are no per-epoch curves and no
    re-weighted pools (``curves`` and ``reweighted`` are None), so the claim on Alg. 1's speed is not
    judged on them. The profile is named ``"<profile>-baselines"`` so that the claims refuse to pool
    these with the paper-protocol grid's results.

    Examples
    --------
    >>> view = as_job_results(stored_baseline_results("quick"))
    >>> sorted(view[0].labels), sorted(view[0].statistic("lr")), view[0].profile["name"]
    (['approx', 'control', 'pre', 're'], ['control', 'h0', 'h1'], 'quick-baselines')
    """
    from gendel.gan.result_files import JobResult

    out = []
    for r in results:
        j = r["job"]
        if j["setting"] == "random":
            continue
        q3 = r["q3"]
        sides = {"h0": "pre", "h1": "re", "control": "control"}
        statistics = {k: {side: np.asarray(v[m], float) for side, m in sides.items()}
                      for k, v in q3["statistics"].items()}
        ks = {k: {"h1": float(v["re"]), "control": float(v["control"])} for k, v in q3["ks"].items()}
        profile = dict(r["profile"]["sizes"]) | {"name": f"{j['profile']}-baselines", "seeds": r["profile"]["seeds"]}
        out.append(JobResult(
            version=r["version"], job=Job(j["profile"], j["dataset"], j["setting"], j["lam"], j["seed"]),
            profile=profile, provenance=r["provenance"], data=r["data"], classifier=r["classifier"],
            labels={m: np.asarray(r["labels"][m]) for m in _PROTOCOL_MODELS}, sampling=r["sampling"],
            reweighted=None, q3={"m": q3["m"], "R": q3["R"], "statistics": statistics, "ks": ks}, curves=None,
            timings={}, losses={}, arrays={}))
    return out


__all__ = ["as_job_results", "baseline_fingerprint", "baseline_fingerprinted_code", "load_baseline_result", "run_baseline_job",
           "stored_baseline_results"]
