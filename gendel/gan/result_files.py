"""The result files of the jobs of §5.2: where they live and how they are read.

A job (:class:`~gendel.gan.protocol.Job`) writes ``<results_dir>/<job name>.json`` (label counts,
statistics, timings, hardware) and an ``.npz`` beside it (sample grids, the pre-trained samples'
labels and log ratios). ``results_dir`` defaults to a folder of the cache named by the profile's
settings, so results of another sizing never mix. The results of the ``gpu`` profile, run on a GPU
the book's build does not have, ship with gendel in the folder :data:`STORED_RESULTS`.

Everything here is re-exported by :mod:`gendel.gan.protocol`, which runs the jobs.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

#: Result files shipped with gendel: profiles run on hardware the book's build does not have.
STORED_RESULTS = Path(__file__).parent / "results"


def default_results_dir(profile):
    """``$GENDEL_CACHE_DIR/gan/<profile>-<hash of its settings>``.

    Examples
    --------
    >>> from gendel.gan.protocol import get_profile
    >>> folder = default_results_dir("tiny")         # another sizing, another folder
    >>> folder.parent.name, folder.name == "tiny-" + get_profile("tiny").key()
    ('gan', True)
    """
    from ..cache import cache_dir
    from .protocol import get_profile

    p = get_profile(profile)
    return cache_dir() / "gan" / f"{p.name}-{p.key()}"


def result_path(job, results_dir):
    """The JSON result file of ``job`` in ``results_dir`` (its arrays: the same name with ``.npz``).

    Examples
    --------
    >>> from gendel.gan.protocol import jobs
    >>> result_path(jobs("tiny")[0], "results").as_posix()
    'results/mnist-even-0.7-seed0.json'
    """
    return Path(results_dir) / f"{job.name}.json"


def load_result(path):
    """A job's result dict, with its arrays (``result["arrays"]``) when the .npz is there.

    Examples
    --------
    One of the results shipped with gendel: 32 sample images of the pre-trained DCGAN among its arrays.

    >>> result = load_result(STORED_RESULTS / "gpu" / "mnist-even-0.7-seed0.json")
    >>> result["job"]["name"], result["arrays"]["grid_pre"].shape
    ('mnist-even-0.7-seed0', (32, 28, 28))
    """
    path = Path(path)
    result = json.loads(path.read_text())
    npz = path.with_suffix(".npz")
    if npz.exists():
        with np.load(npz) as f:
            result["arrays"] = {k: f[k] for k in f.files}
    return result


def load_results(profile, results_dir=None):
    """The stored results of a profile's jobs (missing jobs are left out), in job order.

    Examples
    --------
    >>> import tempfile
    >>> [r["job"]["name"] for r in load_results("gpu", STORED_RESULTS / "gpu")][:2]
    ['mnist-even-0.7-seed0', 'mnist-odd-0.7-seed0']
    >>> with tempfile.TemporaryDirectory() as empty:    # no job run yet: no results
    ...     load_results("tiny", empty)
    []
    """
    from .protocol import get_profile, jobs

    p = get_profile(profile)
    results_dir = Path(results_dir) if results_dir is not None else default_results_dir(p)
    return [load_result(result_path(j, results_dir)) for j in jobs(p) if result_path(j, results_dir).exists()]


def stored_results(profile):
    """The result files of ``profile`` shipped with gendel (``gpu``: one run on an NVIDIA H100).

    Examples
    --------
    >>> results = stored_results("gpu")
    >>> len(results), results[0]["profile"]["name"], results[0]["q3"]["R"]
    (4, 'gpu', 100)
    """
    from .protocol import get_profile

    folder = STORED_RESULTS / get_profile(profile).name
    if not folder.is_dir():
        raise ValueError(f"gendel ships no results for profile {get_profile(profile).name!r}; "
                         f"it has {sorted(p.name for p in STORED_RESULTS.iterdir() if p.is_dir())}")
    return load_results(profile, folder)
