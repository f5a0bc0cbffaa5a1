"""The on-disk result cache: where it lives and how a configuration becomes a key."""

from __future__ import annotations

import functools
import hashlib
import json
import os
from pathlib import Path

import numpy as np


def cache_dir():
    """Where expensive results are cached: ``$GENDEL_CACHE_DIR`` or ``~/.cache/gendel``."""
    return Path(os.environ.get("GENDEL_CACHE_DIR") or Path.home() / ".cache" / "gendel")


@functools.lru_cache(maxsize=1)
def _code_fingerprint():
    """A hash of the modules that determine the numbers, so a code change invalidates the cache."""
    import scipy
    import sklearn

    here = Path(__file__).parent
    h = hashlib.sha256()
    for name in ("_validation.py", "_kernels.py", "data.py", "models.py", "dre.py", "deletion.py", "stats.py",
                 "experiments.py", "cache.py"):
        h.update((here / name).read_bytes())
    # the numbers also depend on the libraries (random streams, estimator defaults hidden by repr)
    h.update(f"numpy {np.__version__} scipy {scipy.__version__} sklearn {sklearn.__version__}".encode())
    return h.hexdigest()[:16]


def cache_path(kind, config):
    """The file of one cached result: ``<cache_dir>/<kind>/<key>.npz``."""
    key = hashlib.sha256(json.dumps([kind, config, _code_fingerprint()], sort_keys=True).encode()).hexdigest()
    return cache_dir() / kind / f"{key[:24]}.npz"
