"""The result files of the GAN jobs: what a result holds, where it lives, and when it is done.
(The folder ``gendel/gan/results/`` beside this module holds the stored result files themselves.)

A job (:class:`~gendel.gan.profiles.Job`) writes ``<results_dir>/<job name>.json`` (label counts,
statistics, curves, timings, provenance) and an ``.npz`` beside it (sample grids, the pre-trained
samples' labels and log ratios, the log ratios of every Q3 sample at half precision). Both are
written atomically with a checksum of their content (:mod:`gendel.gan.schema`). :class:`JobResult`
is one result with named fields; :class:`Provenance` summarises where a profile's results come from.

``results_dir`` defaults to a folder of the cache named by the profile's settings, so results of
another sizing never mix. The results of the profiles too slow for a build of the book are
stored with gendel in :data:`STORED_RESULTS` (``<profile>/``), made by
``python -m gendel.gan grid --profile <name> --store`` (:func:`remake_command`).

:func:`load_result` reads a result and checks that it is complete (every field and array there,
the right shapes and counts, of the job asked for), that its checksum matches and that it passes
the schema; :func:`gendel.gan.run.done` adds today's data and code fingerprints, the one rule for
"done" of ``run`` and ``grid``.
"""

from __future__ import annotations

import dataclasses
import json
import os
from collections import defaultdict
from pathlib import Path

import numpy as np

from gendel.deletion_test.stats import PAPER_STATISTICS
from gendel.gan.profiles import RESULT_VERSION, Job, get_profile, jobs

#: Result files stored with gendel, one folder per profile.
STORED_RESULTS = Path(__file__).parent / "results"
#: An environment variable naming another folder of stored results (``<folder>/<profile>/``) to read
#: instead (the tests run the GAN pages on results of other seeds this way).
STORED_RESULTS_ENV = "GENDEL_STORED_RESULTS"


def stored_results_dir():
    """The folder of stored results: ``$GENDEL_STORED_RESULTS`` if set, else :data:`STORED_RESULTS`.

    Examples
    --------
    >>> stored_results_dir() == STORED_RESULTS or "GENDEL_STORED_RESULTS" in os.environ
    True
    """
    return Path(os.environ.get(STORED_RESULTS_ENV) or STORED_RESULTS)

#: Stored results made before result files had a code fingerprint (format version 1): the
#: profile, and what made them.
LEGACY = {"gpu": {"commit": "e576ba2", "date": "2026-11-26",
                  "made_by": "gendel at commit e576ba2 (2026-11-26), before result files recorded a code "
                             "fingerprint: one run on an NVIDIA H100 of the gpu profile of then (even-0.7 and "
                             "odd-0.7, seed 0, 40 GAN epochs, 20 VDM epochs, width 64)"}}

#: The statistics of format version 1 under their registry keys.
_V1_STATISTICS = {"LR": "lr", "ASC log": "asc-log", "ASC tlogt": "asc-tlogt"}

_REQUIRED = ("version", "job", "profile", "provenance", "data", "classifier", "labels", "sampling", "reweighted",
             "q3", "curves", "timings", "losses")
_ARRAYS = ("grid_pre", "grid_re", "grid_approx", "pre_labels", "pre_log_ratio", "scores_yhat", "scores_h0",
           "scores_h1", "scores_control")
_MODELS = ("pre", "re", "approx", "control")
#: The sections of a result that are records (dicts); ``reweighted`` and ``curves`` may also be None.
_RECORDS = ("profile", "provenance", "data", "classifier", "labels", "sampling", "q3", "timings", "losses")
#: The entries every reader of a section may rely on (format version 2).
_ENTRIES = {"data": ("n_train", "n_deleted", "n_test", "label_counts_X", "label_counts_kept", "label_counts_test"),
            "classifier": ("test_accuracy", "n_test", "confidence"),
            "sampling": ("bound", "acceptance_rate", "bound_exceeded", "n_proposals"),
            "q3": ("m", "R", "statistics", "ks"),
            "curves": ("retrained", "pretrained", "vdm"),
            "losses": ("pretrain", "retrain", "control", "vdm")}


class DamagedResult(ValueError):
    """A result file that cannot be read as the result of its job.

    :func:`load_result` raises it, naming the file and what is wrong; :func:`gendel.gan.run.done`
    reports it with a warning, and the job runs again.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     torn = Path(tmp) / "mnist-even-0.7-seed0.json"
    ...     _ = torn.write_text('{"version": 2, "job"')
    ...     try:
    ...         load_result(torn)
    ...     except DamagedResult as exc:
    ...         print("truncated" in str(exc), str(torn) in str(exc))
    True True
    """


def _arrays(value):
    """Lists of numbers (from JSON) as numpy arrays, nested dicts and lists of them too."""
    if isinstance(value, dict):
        return {k: _arrays(v) for k, v in value.items()}
    if isinstance(value, list) and value and all(isinstance(v, (int, float)) for v in value):
        return np.asarray(value)
    if isinstance(value, list) and value and all(isinstance(v, list) for v in value):
        try:
            return np.asarray(value, dtype=float) if not all(isinstance(x, int) for v in value for x in v) \
                else np.asarray(value)
        except ValueError:
            return [_arrays(v) for v in value]
    return value


def jsonable(value):
    """``value`` as JSON can hold it: dicts with string keys, lists for tuples, numbers and lists of
    numbers for numpy's scalars and arrays (nested ones too).

    Examples
    --------
    >>> jsonable({1: np.arange(3), "pair": (np.float64(0.5), None)})
    {'1': [0, 1, 2], 'pair': [0.5, None]}
    """
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    return value


@dataclasses.dataclass
class JobResult:
    """The result of one GAN job, with named fields (the sections of its JSON file).

    Attributes
    ----------
    version : int
        The result format (2; 1 for stored results made before fingerprints, see ``LEGACY``).
    job : Job
    profile : dict
        Every setting of the profile that ran it.
    provenance : dict
        ``fingerprint`` (of the code that made it), ``command``, ``hardware`` (of each training and
        of the evaluation), ``torch``, ``numpy``, ``python``, ``gendel``, ``created``, ``seconds``
        per stage (train, fast_deletion, deletion_test, curves, job).
    data : dict
        ``n_train``, ``n_split`` (images in the training split), ``n_deleted``, ``n_test``,
        fingerprints of the images and of X', label counts of X, of X \\ X' and of the test split.
    classifier : dict
        ``test_accuracy``, ``n_test``, ``confidence_real``, ``confidence`` (per model).
    labels : dict
        model (``pre``, ``re``, ``approx``, ``control``) -> 10 label counts of ``m_labels`` samples.
    sampling : dict
        Alg. 1's bound, acceptance rate, proposals, share above B; mean and largest ρ̂_ℰ.
    reweighted : dict
        pool (``train``, ``test``, ``pretrained``) -> ``weights`` and ``counts`` per label
        (``gendel.gan.experiment.reweighted``), or None.
    q3 : dict
        ``m``, ``R``, ``statistics`` (key -> ``h0``, ``h1``, ``control``: R values each), ``ks``
        (key -> ``h1``, ``control``).
    curves : dict or None
        ``retrained``, ``pretrained``, ``vdm``: per kept epoch (``gendel.gan.experiment.curves``).
    timings : dict
        Seconds of each training and sampling; ``alg1_per_accepted``, ``sample_per_image``.
    losses : dict
        The loss history of each training.
    arrays : dict
        From the ``.npz``: ``grid_*`` (32 samples, uint8), ``pre_labels``, ``pre_log_ratio``,
        ``scores_yhat``/``h0``/``h1``/``control`` (log ρ̂_ℰ of the Q3 samples, (R, m), float16).

    Examples
    --------
    >>> (r,) = [r for r in stored_results("gpu") if r.name == "mnist-even-0.7-seed0"]
    >>> r.dataset, r.seed, r.labels["approx"].sum() == r.profile["m_labels"]
    ('mnist', 0, np.True_)
    >>> r.statistic("lr")["h1"].shape, r.legacy
    ((100,), True)
    """

    version: int
    job: Job
    profile: dict
    provenance: dict
    data: dict
    classifier: dict
    labels: dict
    sampling: dict
    reweighted: dict | None
    q3: dict
    curves: dict | None
    timings: dict
    losses: dict
    arrays: dict

    @property
    def name(self):
        return self.job.name

    @property
    def dataset(self):
        return self.job.dataset

    @property
    def setting(self):
        return self.job.setting

    @property
    def lam(self):
        return self.job.lam

    @property
    def seed(self):
        return self.job.seed

    @property
    def fingerprint(self):
        """The code fingerprint recorded with the result (None for ``LEGACY`` results)."""
        return self.provenance.get("fingerprint")

    @property
    def legacy(self):
        """Whether the result was made before results recorded a fingerprint (format version 1)."""
        return self.version == 1

    def distribution(self, model):
        """The label distribution (10 proportions) of ``model``'s samples.

        Examples
        --------
        >>> r = stored_results("gpu")[0]
        >>> round(float(r.distribution("pre").sum()), 12)
        1.0
        """
        counts = np.asarray(self.labels[model], float)
        return counts / counts.sum()

    def statistic(self, key):
        """``{"h0", "h1", "control"}`` -> the R values of statistic ``key`` (no control in legacy results).

        Examples
        --------
        >>> sorted(stored_results("gpu")[0].statistic("asc-log"))
        ['h0', 'h1']
        """
        return self.q3["statistics"][key]

    def scores(self, which):
        """log ρ̂_ℰ of the Q3 samples ``which`` (``yhat``, ``h0``, ``h1``, ``control``), flat, float64.

        Examples
        --------
        >>> stored_results("gpu")[0].scores("h0")
        Traceback (most recent call last):
        ValueError: the result mnist-even-0.7-seed0 (gpu) holds no Q3 scores (a result of format version 1)
        """
        key = f"scores_{which}"
        if key not in self.arrays:
            raise ValueError(f"the result {self.name} ({self.profile['name']}) holds no Q3 scores"
                             + (" (a result of format version 1)" if self.legacy else ""))
        return np.asarray(self.arrays[key], float).ravel()

    def to_dict(self):
        """The JSON part (everything but the arrays), in plain Python types."""
        d = {f.name: getattr(self, f.name) for f in dataclasses.fields(self) if f.name != "arrays"}
        d["job"] = dataclasses.asdict(self.job) | {"name": self.job.name}
        return jsonable(d)

    @classmethod
    def from_dict(cls, d, arrays=None, *, where="a result"):
        """A result from its JSON part (format version 1 or 2) and its arrays."""
        version = d.get("version")
        if version == 1:
            return cls._from_v1(d, arrays or {}, where)
        if version != RESULT_VERSION:
            raise DamagedResult(f"{where} has format version {version!r}; this gendel reads 1 and {RESULT_VERSION}")
        missing = [k for k in _REQUIRED if k not in d]
        if missing:
            raise DamagedResult(f"{where} lacks {', '.join(missing)}")
        for k in _RECORDS + ("reweighted", "curves"):
            if not isinstance(d[k], dict) and not (d[k] is None and k in ("reweighted", "curves")):
                raise DamagedResult(f"{where}: its {k} is a {type(d[k]).__name__}, not a record")
        job = d["job"]
        try:
            job = Job(job["profile"], job["dataset"], job["setting"], float(job["lam"]), int(job["seed"]))
        except (KeyError, TypeError, ValueError) as exc:
            raise DamagedResult(f"{where} has no readable job ({exc})") from exc
        fields = {k: _arrays(d[k]) for k in _REQUIRED if k not in ("version", "job", "profile", "provenance")}
        return cls(version=version, job=job, profile=d["profile"], provenance=d["provenance"], arrays=arrays or {},
                   **fields)

    @classmethod
    def _from_v1(cls, d, arrays, where):
        try:
            job = d["job"]
            job = Job(job["profile"], job["dataset"], job["setting"], float(job["lam"]), int(job["seed"]))
            q3 = d["q3"]
            values = {_V1_STATISTICS[k]: {"h0": np.asarray(v["H0"]), "h1": np.asarray(v["H1"])}
                      for k, v in q3["values"].items()}
            ks = {_V1_STATISTICS[k]: {"h1": v} for k, v in q3["ks"].items()}
            t = d["timings"]
            m = d["profile"]["m_labels"]
            timings = {"pretrain": t["pretrain"], "retrain": t["retrain"], "vdm": t["vdm"],
                       "classifier": t["classifier"], "sample_pre": t["sample_pretrained"],
                       "sample_re": t["sample_retrained"], "sample_approx": t["sample_approximated"],
                       "alg1_per_accepted": t["sample_approximated"] / m, "sample_per_image": t["sample_retrained"] / m}
            legacy = LEGACY.get(d["profile"]["name"], {})
            provenance = {"fingerprint": None, "command": f"python -m gendel.gan grid --profile {d['profile']['name']} "
                          f"(gendel at commit {legacy.get('commit', 'unknown')})",
                          "hardware": {"job": d["hardware"]}, "torch": d["hardware"]["torch"],
                          "made_by": legacy.get("made_by", "an earlier version of gendel"),
                          "seconds": {"job": t["job"]}}
            return cls(version=1, job=job, profile=d["profile"], provenance=provenance,
                       data=_arrays(d["data"]), classifier=d["classifier"], labels=_arrays(d["labels"]),
                       sampling=d["sampling"], reweighted=None, q3={"m": q3["m"], "R": q3["R"], "statistics": values,
                                                                     "ks": ks},
                       curves=None, timings=timings, losses=d["losses"], arrays=arrays)
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise DamagedResult(f"{where} (format version 1) lacks {exc}") from exc


def default_results_dir(profile):
    """``$GENDEL_CACHE_DIR/gan/<profile>-<hash of its settings>``.

    Examples
    --------
    >>> folder = default_results_dir("tiny")         # another sizing, another folder
    >>> folder.parent.name, folder.name == "tiny-" + get_profile("tiny").key()
    ('gan', True)
    """
    from gendel.cache import cache_dir

    p = get_profile(profile)
    return cache_dir() / "gan" / f"{p.name}-{p.key()}"


def result_path(job, results_dir):
    """The JSON result file of ``job`` in ``results_dir`` (its arrays: the same name with ``.npz``).

    Examples
    --------
    >>> result_path(jobs("tiny")[0], "results").as_posix()
    'results/mnist-even-0.7-seed0.json'
    """
    return Path(results_dir) / f"{job.name}.json"


def usable_results_dir(results_dir):
    """Whether result files can be written to ``results_dir`` (False with a warning); an existing
    file in its place is refused with a clear error, before any work.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.NamedTemporaryFile() as f:
    ...     usable_results_dir(f.name)
    Traceback (most recent call last):
    NotADirectoryError: the results folder ... is a file; give a folder (or leave --results out for the default)
    """
    from gendel.cache import usable_cache_dir

    folder = Path(results_dir)
    if folder.exists() and not folder.is_dir():
        raise NotADirectoryError(f"the results folder {folder} is a file; give a folder (or leave --results out for the "
                                 "default)")
    return usable_cache_dir(folder) is not None


def read_record(path, where):
    """The JSON part of the result file ``path`` (a Path) as a dict, unchecked; ``DamagedResult``
    (its message naming the file as ``where``) for a file that cannot be read or holds no dict, and
    ``FileNotFoundError`` for a missing one.

    Examples
    --------
    >>> import tempfile
    >>> read_record(STORED_RESULTS / "tiny" / "mnist-even-0.7-seed0.json", "a stored result")["job"]["name"]
    'mnist-even-0.7-seed0'
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     torn = Path(tmp) / "torn.json"
    ...     _ = torn.write_text('{"version": 2')
    ...     try:
    ...         read_record(torn, "the file torn.json")
    ...     except DamagedResult as exc:
    ...         print(exc)
    the file torn.json cannot be read (JSONDecodeError: ...): it is truncated or not a result; delete it and ...
    """
    try:
        d = json.loads(path.read_text())
    except FileNotFoundError:
        raise
    except RecursionError:
        raise DamagedResult(f"{where} is nested too deeply to be a result; delete it and run the job again") from None
    except (OSError, UnicodeDecodeError, ValueError) as exc:  # json.JSONDecodeError is a ValueError
        raise DamagedResult(f"{where} cannot be read ({type(exc).__name__}: {exc}): it is truncated or not a result; "
                            "delete it and run the job again") from exc
    if not isinstance(d, dict):
        raise DamagedResult(f"{where} holds a {type(d).__name__}, not a result")
    return d


def read_arrays(path, where):
    """The arrays of the result file ``path`` (a Path; its ``.npz`` file beside it), by name, unchecked;
    ``DamagedResult`` (its message naming the file as ``where``) when they are missing or cannot
    be read.

    Examples
    --------
    >>> arrays = read_arrays(STORED_RESULTS / "tiny" / "mnist-even-0.7-seed0.json", "a stored result")
    >>> arrays["grid_pre"].shape, arrays["scores_h0"].shape
    ((32, 28, 28), (4, 50))
    """
    npz = path.with_suffix(".npz")
    try:
        with open(npz, "rb") as handle, np.load(handle, allow_pickle=False) as f:
            return {k: f[k] for k in f.files}
    except FileNotFoundError as exc:
        raise DamagedResult(f"{where} has no arrays file {npz.name} beside it") from exc
    except Exception as exc:  # noqa: BLE001 - a torn zip, a foreign file
        raise DamagedResult(f"the arrays file {npz} cannot be read ({type(exc).__name__}: {exc})") from exc


def load_result(path, job=None):
    """The :class:`JobResult` in ``path`` (with its arrays), checked: a file that is not a complete,
    unchanged result (of ``job``, when given) raises ``DamagedResult`` naming the file.

    Checked, in this order: the file and its arrays can be read; the checksum recorded with them
    matches their content (:func:`gendel.gan.schema.checksum_problem`: an edited number, another
    job's arrays); the content passes the declared schema (:mod:`gendel.gan.schema`: types,
    ranges, sums, the job consistent with its profile and deletion set); the file is named after
    its job; and, with ``job``, it is that job's result, of that profile's settings.

    Examples
    --------
    One of the results stored with gendel: 32 sample images of the pre-trained DCGAN among its arrays.

    >>> result = load_result(STORED_RESULTS / "gpu" / "mnist-even-0.7-seed0.json")
    >>> result.name, result.arrays["grid_pre"].shape
    ('mnist-even-0.7-seed0', (32, 28, 28))
    """
    from gendel.gan.schema import checksum_problem, validate

    path = Path(path)
    where = f"the result file {path}"
    d = read_record(path, where)
    arrays = read_arrays(path, where)
    problem = checksum_problem(d, arrays)
    if problem is not None:
        raise DamagedResult(f"{where}: {problem}; a result is only read as written by gendel: delete it and run its "
                            "job again")
    result = JobResult.from_dict(d, arrays, where=where)
    try:
        validate(d if result.version == RESULT_VERSION else result.to_dict())
    except ValueError as exc:
        raise DamagedResult(f"{where} breaks the result schema: {exc}") from None
    if path.stem != result.name:
        raise DamagedResult(f"{where} holds the result of {result.name}: a result file is named after its job "
                            f"({result.name}.json)")
    _check(result, job, where)
    return result


def _count(value, minimum=1):
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool) and value >= minimum


def _check_sections(result, where):
    """Raise ``DamagedResult`` unless the sections of a result of format version 2 hold what
    their readers rely on: the entries of :data:`_ENTRIES`, and R values of each statistic."""
    for section, entries in _ENTRIES.items():
        record = getattr(result, section)
        if record is None and section == "curves":
            continue
        missing = [e for e in entries if e not in record]
        if missing:
            raise DamagedResult(f"{where}: its {section} lacks {', '.join(missing)}")
    q3 = result.q3
    if not _count(q3["m"]) or not _count(q3["R"]):
        raise DamagedResult(f"{where}: its Q3 sizes m = {q3['m']!r}, R = {q3['R']!r} are not counts")
    for part in ("statistics", "ks"):
        if not isinstance(q3[part], dict) or any(not isinstance(q3[part].get(k), dict) for k in PAPER_STATISTICS):
            raise DamagedResult(f"{where}: its Q3 {part} are not there for each of {', '.join(PAPER_STATISTICS)}")
    for key in PAPER_STATISTICS:
        values = q3["statistics"][key]
        if any(np.shape(values.get(w)) != (q3["R"],) for w in ("h0", "h1", "control")):
            raise DamagedResult(f"{where}: the Q3 values of {key!r} are not R = {q3['R']} values for each of h0, h1 "
                                "and control")
    if not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in result.timings.values()):
        raise DamagedResult(f"{where}: its timings are not all numbers of seconds")


def _check(result, job, where):
    """Raise ``DamagedResult`` unless ``result`` is a complete result (of ``job``)."""
    if not isinstance(result.profile, dict) or not _count(result.profile.get("m_labels")):
        raise DamagedResult(f"{where}: its profile has no count m_labels")
    if not isinstance(result.labels, dict):
        raise DamagedResult(f"{where}: its label counts are a {type(result.labels).__name__}, not a record")
    if result.version == RESULT_VERSION:
        _check_sections(result, where)
    if job is not None:
        if (result.job.dataset, result.job.setting, result.job.lam, result.job.seed) != \
                (job.dataset, job.setting, job.lam, job.seed):
            theirs, ours = result.name, job.name
            if theirs == ours:  # a λ that prints alike: show both in full
                theirs, ours = f"{theirs} (λ = {result.job.lam!r})", f"{ours} (λ = {job.lam!r})"
            raise DamagedResult(f"{where} is the result of {theirs}, not of {ours}")
        if result.version == RESULT_VERSION and \
                {k: v for k, v in result.profile.items() if k not in ("name", "datasets", "deletions", "seeds")} != \
                jsonable(get_profile(job.profile).settings()):
            raise DamagedResult(f"{where} was made with other settings than profile {job.profile!r}'s "
                                f"({result.profile.get('name')!r})")
    m = result.profile["m_labels"]
    models = _MODELS if result.version == RESULT_VERSION else _MODELS[:3]
    for model in models:
        counts = result.labels.get(model)
        if counts is None or np.shape(counts) != (10,) or int(np.sum(counts)) != m:
            raise DamagedResult(f"{where}: the label counts of {model!r} are not 10 counts summing to m = {m}")
    arrays = _ARRAYS if result.version == RESULT_VERSION else _ARRAYS[:5]
    missing = [a for a in arrays if a not in result.arrays]
    if missing:
        raise DamagedResult(f"{where}: its arrays file lacks {', '.join(missing)}")
    a = result.arrays
    numbers = [k for k in arrays if a[k].dtype.kind not in "biuf"]
    if numbers:
        raise DamagedResult(f"{where}: its arrays {', '.join(numbers)} do not hold numbers")
    grid = (min(32, m), 28, 28)
    expected = {"pre_labels": (m,), "pre_log_ratio": (m,)} | {k: grid for k in ("grid_pre", "grid_re", "grid_approx")}
    if result.version == RESULT_VERSION:
        expected |= {k: (result.q3["R"], result.q3["m"]) for k in _ARRAYS[5:]}
    bad = [k for k, shape in expected.items() if a[k].shape != shape]
    if bad or a["pre_labels"].dtype.kind not in "iu":
        raise DamagedResult(f"{where}: its arrays have other shapes than its profile's ({', '.join(bad) or 'pre_labels'})")


def write_result(result, path):
    """Write a result's JSON and arrays atomically (the arrays first: a JSON file is only there
    with its arrays). The JSON records a checksum of its content and of the arrays
    (:func:`load_result` checks it).

    Examples
    --------
    >>> import tempfile
    >>> r = stored_results("gpu")[0]
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     write_result(r, Path(tmp) / "copy.json")
    ...     sorted(p.name for p in Path(tmp).iterdir())
    ['copy.json', 'copy.npz']
    """
    path = Path(path)
    record = result.to_dict()
    write_record(record, result.arrays, path)


def write_record(record, arrays, path, *, arrays_written=False):
    """Write a result's JSON part ``record`` (a dict) with its checksum, and its arrays, atomically
    (the arrays first: a JSON file is only there with its arrays; ``arrays_written``: they are
    there already, as ``arrays``).

    Examples
    --------
    >>> import tempfile
    >>> record = json.loads((STORED_RESULTS / "tiny" / "mnist-even-0.7-seed0.json").read_text())
    >>> arrays = read_arrays(STORED_RESULTS / "tiny" / "mnist-even-0.7-seed0.json", "a stored result")
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     write_record(record, arrays, Path(tmp) / "mnist-even-0.7-seed0.json")
    ...     load_result(Path(tmp) / "mnist-even-0.7-seed0.json").name
    'mnist-even-0.7-seed0'
    """
    from gendel.cache import atomic_write
    from gendel.gan.schema import content_checksum

    path = Path(path)
    record = {k: v for k, v in record.items() if k not in ("checksum", "arrays_checksum")}
    record["checksum"] = content_checksum(record, arrays)
    if not arrays_written:
        atomic_write(path.with_suffix(".npz"), lambda f: np.savez_compressed(f, **arrays))
    atomic_write(path, lambda f: f.write(json.dumps(record, indent=1).encode()))


def load_results(profile, results_dir=None):
    """The results of a profile's jobs in ``results_dir`` (missing jobs are left out), in job order.
    A file that is there but damaged raises ``DamagedResult``.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as empty:    # no job run yet: no results
    ...     load_results("tiny", empty)
    []
    """
    p = get_profile(profile)
    results_dir = Path(results_dir) if results_dir is not None else default_results_dir(p)
    return [load_result(result_path(j, results_dir), j) for j in jobs(p) if result_path(j, results_dir).exists()]


def stored_results(profile):
    """The results of ``profile`` stored with gendel (``stored_results_dir``), in job order.

    Every file of the profile's folder must be a checked result (:func:`load_result`) of that
    profile, named after its job; anything else is refused with the command that remakes the
    results (a quick result dropped into the tiny folder, a renamed file, a second copy of a job).

    Examples
    --------
    >>> results = stored_results("gpu")
    >>> len(results), results[0].profile["name"], results[0].q3["R"]
    (4, 'gpu', 100)
    """
    name = get_profile(profile).name
    root = stored_results_dir()
    folder = root / name
    if not folder.is_dir():
        if STORED_RESULTS_ENV in os.environ and not root.is_dir():
            raise ValueError(f"${STORED_RESULTS_ENV} names the folder {root}, which does not exist; point it at a "
                             f"folder that holds {name}/ or unset it to read the results stored with gendel")
        have = sorted(p.name for p in root.iterdir() if p.is_dir()) if root.is_dir() else []
        where = f" (${STORED_RESULTS_ENV} = {root})" if STORED_RESULTS_ENV in os.environ else ""
        raise ValueError(f"no stored results of profile {name!r} in {root}{where}; it has {have}. Make them with "
                         f"`{remake_command(name)}`" + (f" and copy {STORED_RESULTS / name} there" if where else ""))
    results = []
    for path in sorted(folder.glob("*.json")):
        try:
            result = load_result(path)
        except DamagedResult as exc:
            raise DamagedResult(f"{exc}. The stored results of {name!r} are remade by `{remake_command(name)}`") \
                from None
        if result.job.profile != name:
            raise DamagedResult(f"{path} is a result of profile {result.job.profile!r}, not of {name!r}; remove it "
                                f"from {folder} (the stored results of {name!r} are remade by "
                                f"`{remake_command(name)}`)")
        results.append(result)
    order = {(j.dataset, j.setting, j.lam, j.seed): i for i, j in enumerate(jobs(name))}
    return sorted(results, key=lambda r: (order.get((r.dataset, r.setting, r.lam, r.seed), len(order)), r.name))


#: The flags a profile's grid is made with besides its name, for both grids' remake commands: two
#: jobs at a time on the 2 cores of the quick profile's machine, a GPU for the larger profiles.
REMAKE_FLAGS = {"quick": " --parallel 2", "gpu": " --device cuda", "paper": " --device cuda"}


def remake_command(profile):
    """The command that makes a profile's stored results with today's code.

    Examples
    --------
    >>> remake_command("quick")
    'python -m gendel.gan grid --profile quick --store --parallel 2'
    """
    name = get_profile(profile).name
    return f"python -m gendel.gan grid --profile {name} --store{REMAKE_FLAGS.get(name, '')}"


@dataclasses.dataclass(frozen=True)
class Provenance:
    """Where the results of a profile come from, summarised over its jobs.

    Examples
    --------
    >>> p = provenance_summary("gpu", stored_results("gpu"))
    >>> p.jobs, p.fingerprints, p.devices
    (4, (None,), ('NVIDIA H100 80GB HBM3',))
    """

    profile: str
    jobs: int
    seeds: tuple
    datasets: tuple
    deletions: tuple
    commands: tuple
    fingerprints: tuple
    devices: tuple
    threads: tuple
    torch: tuple
    n_train: tuple
    n_split: tuple
    created: tuple
    made_by: str | None
    train_cpu_seconds: dict     # per training kind: median CPU seconds (None for legacy results)
    stage_seconds: dict         # per stage: median wall seconds per job
    total_seconds: float        # wall seconds of all jobs together (what a grid of one process would take)


def provenance_summary(profile, results):
    """A :class:`Provenance` of ``results`` (the results of ``profile``).

    Examples
    --------
    >>> provenance_summary("gpu", stored_results("gpu")).made_by.startswith("gendel at commit")
    True
    """
    def hw(r):
        h = r.provenance["hardware"]
        return h.get("evaluation") or h.get("job") or {}

    def uniq(values):
        return tuple(sorted({v for v in values}, key=str))

    if not len(results):
        raise ValueError(f"there are no results of profile {profile!r} to summarise: make them with "
                         f"python -m gendel.gan grid --profile {profile}, or pass the results to summarise")

    train = {}
    if all(not r.legacy for r in results):
        for kind in ("pretrain", "retrain", "control", "vdm", "classifier"):
            train[kind] = float(np.median([r.timings[f"{kind}_cpu"] for r in results]))
    stages = defaultdict(list)
    for r in results:
        for k, v in r.provenance.get("seconds", {}).items():
            stages[k].append(v)
    return Provenance(
        profile=profile, jobs=len(results), seeds=uniq(r.seed for r in results),
        datasets=uniq(r.dataset for r in results), deletions=uniq((r.setting, r.lam) for r in results),
        commands=uniq(r.provenance.get("command") for r in results),
        fingerprints=uniq(r.fingerprint for r in results), devices=uniq(hw(r).get("device") for r in results),
        threads=uniq(hw(r).get("torch_threads") for r in results), torch=uniq(r.provenance.get("torch") for r in results),
        n_train=uniq(r.data.get("n_train") for r in results), n_split=uniq(r.data.get("n_split") for r in results),
        created=uniq((r.provenance.get("created") or "")[:10] for r in results), made_by=results[0].provenance.get("made_by"),
        train_cpu_seconds=train, stage_seconds={k: float(np.median(v)) for k, v in stages.items()},
        total_seconds=float(sum(r.provenance.get("seconds", {}).get("job", 0.0) for r in results)))
