"""Where a GAN result comes from: the fingerprint of the code that made it, the command, the
hardware of every training, the library versions and the time of each stage.

:func:`code_fingerprint` hashes what computes a result (:mod:`gendel.fingerprint`): the stages of
:mod:`gendel.gan.experiment`, the DCGAN, the VDM DRE, the label classifier, the networks and training
loops, the data subsets and deletion sets, Alg. 1 and the statistics, following every gendel
function they use. Moving or renaming code, comments, docstrings and input checks leave it
unchanged; a change to any of those computations changes it. Result files, provenance records,
cache keys and checkpoint files are bookkeeping and do not enter it.
"""

from __future__ import annotations

import datetime
import platform
import sys

#: Modules of bookkeeping for the fingerprint: result files and these records.
BOOKKEEPING_MODULES = ("gendel.gan.results", "gendel.gan.provenance", "gendel.gan.__main__")


def computing_roots():
    """The functions and classes :func:`code_fingerprint` starts from.

    Examples
    --------
    >>> names = [getattr(r, "__name__", "") for r in computing_roots()]
    >>> "fast_deletion" in names, "DCGAN" in names, "ApproximateDeletion" in names
    (True, True, True)
    """
    from ..deletion import ApproximateDeletion
    from ..stats import Statistic, asc, ks_statistic, likelihood_ratio, psi
    from .classifier import LabelClassifier
    from .dcgan import DCGAN
    from .experiment import STAGES
    from .vdm import VDMDRE

    return (*STAGES, DCGAN, VDMDRE, LabelClassifier, ApproximateDeletion, Statistic, likelihood_ratio, asc, psi,
            ks_statistic)


def _bookkeeping():
    from ..images import _download, _find, data_root
    from .training import BOOKKEEPING

    return (*BOOKKEEPING, _download, _find, data_root)  # where the data files are, not what they hold


def code_fingerprint():
    """The fingerprint (16 hex digits) of the code that decides the numbers of a GAN result.

    Every result file records the fingerprint of the code that made it
    (``result.provenance["fingerprint"]``); a stored result whose fingerprint differs from
    today's was made by other code and is remade by its profile's command
    (:func:`gendel.gan.results.remake_command`).

    Examples
    --------
    >>> fp = code_fingerprint()
    >>> len(fp), fp == code_fingerprint()
    (16, True)
    """
    from ..fingerprint import cached_code_hash

    return cached_code_hash(computing_roots(), _bookkeeping(), BOOKKEEPING_MODULES)


def fingerprinted_code():
    """What :func:`code_fingerprint` covers: ``{qualified name: hash}`` of every function and class.

    Examples
    --------
    >>> table = fingerprinted_code()
    >>> "gendel.gan.networks.Generator" in table, "gendel.gan.results.write_result" in table
    (True, False)
    """
    from ..fingerprint import hashed_objects

    return hashed_objects(computing_roots(), skip=_bookkeeping(), skip_modules=BOOKKEEPING_MODULES)


def python_call():
    """The command recorded for a result made from Python rather than the command line.

    Examples
    --------
    >>> python_call().startswith("a Python call")
    True
    """
    where = sys.argv[0] if sys.argv and sys.argv[0] else "an interactive session"
    return f"a Python call (gendel.gan.run_job, from {where})"


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

    from .. import __version__

    return {"fingerprint": code_fingerprint(), "command": command or python_call(), "hardware": hardware,
            "torch": str(torch.__version__), "numpy": numpy.__version__, "python": platform.python_version(),
            "gendel": __version__, "created": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            "seconds": seconds}
