"""The on-disk result cache: where it lives, how a configuration becomes a key, and safe I/O.

An entry is one ``.npz`` file named by a hash of its configuration and of the code that computes
it (:func:`result_fingerprint`: what that code computes, wherever it lives, and the versions of
numpy, scipy and scikit-learn), written by
:func:`atomic_write` (concurrent writers never tear it), read by :func:`load_npz` (a damaged
entry is discarded with a :class:`CacheWarning`); :func:`usable_cache_dir` probes the folder
before any work. Not ``joblib.Memory``: it keys on pickled arguments, not ``get_params``; it logs
an unreadable entry without naming the file, never checks shapes, and finds an unwritable folder
only after computing.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import tempfile
import uuid
import warnings
from pathlib import Path

import numpy as np

from gendel.fingerprint import cached_code_hash


class CacheWarning(RuntimeWarning):
    """A cache entry or folder could not be used; the result was computed instead.

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("error", CacheWarning)  # e.g. make cache faults errors in a test
    ...     issubclass(CacheWarning, RuntimeWarning)
    True
    """


def cache_dir():
    """Where expensive results are cached: ``$GENDEL_CACHE_DIR`` or ``~/.cache/gendel``.

    Examples
    --------
    >>> from unittest import mock
    >>> with mock.patch.dict(os.environ, {"GENDEL_CACHE_DIR": "/tmp/gendel-example-cache"}):
    ...     str(cache_dir())
    '/tmp/gendel-example-cache'
    """
    return Path(os.environ.get("GENDEL_CACHE_DIR") or Path.home() / ".cache" / "gendel")


def result_fingerprint(roots, skip=()):
    """A hash of the code that computes a cached result and of the versions of the libraries it uses.

    The code part is ``gendel.fingerprint.cached_code_hash`` of ``roots`` (the functions and
    classes that compute the result; the gendel code they call is followed): it changes when that
    code changes what it computes, not when it moves, is renamed, or gains comments, docstrings
    or checks. numpy, scipy and scikit-learn compute inside it, so their versions count too.

    Examples
    --------
    >>> from gendel.core.models import KDE
    >>> fp = result_fingerprint((KDE,))
    >>> len(fp), fp == result_fingerprint((KDE,)), fp != result_fingerprint((KDE.sample,))
    (16, True, True)
    """
    import scipy
    import sklearn

    code = cached_code_hash(tuple(roots), tuple(skip))
    libraries = f"numpy {np.__version__} scipy {scipy.__version__} sklearn {sklearn.__version__}"
    return hashlib.sha256(f"{code} {libraries}".encode()).hexdigest()[:16]


def cache_path(kind, config, code=""):
    """The file of one cached result: ``<cache_dir>/<kind>/<key>.npz``.

    The key hashes ``kind``, the configuration ``config`` (JSON) and ``code``, the fingerprint of
    the code that computes the result (:func:`result_fingerprint`).

    Examples
    --------
    >>> p = cache_path("demo", {"N": 60}, code="0123")
    >>> p.parent.name, p.suffix, p == cache_path("demo", {"N": 60}, code="0123") != cache_path("demo", {"N": 61}, code="0123")
    ('demo', '.npz', True)
    >>> cache_path("demo", {"N": 60}, code="0123") != cache_path("demo", {"N": 60}, code="4567")   # other code
    True
    """
    key = hashlib.sha256(json.dumps([kind, config, code], sort_keys=True).encode()).hexdigest()
    return cache_dir() / kind / f"{key[:24]}.npz"


def estimator_config(estimator):
    """``{"class", "params"}`` of an estimator, from ``get_params(deep=False)``: a cache key.

    Nested estimators (e.g. a ``ClassifierDRE``'s scikit-learn classifier) become nested
    ``{"class", "params"}``. Raises TypeError for an estimator without ``get_params`` or a
    parameter that is not a number, string, None, list, tuple, dict or estimator.

    Examples
    --------
    >>> from sklearn.linear_model import LogisticRegression
    >>> estimator_config(LogisticRegression(C=2.0))["params"]["C"]
    2.0
    """
    return _jsonable(estimator, type(estimator).__name__, top=True)


def _jsonable(value, where, top=False):
    if hasattr(value, "get_params"):
        cls = type(value)
        params = value.get_params(deep=False)
        return {"class": f"{cls.__module__}.{cls.__qualname__}",
                "params": {k: _jsonable(v, f"{where}.{k}") for k, v in sorted(params.items())}}
    if top:
        raise TypeError(f"cannot build a cache key for {type(value).__name__}: it has no get_params(); give it "
                        "scikit-learn's (inherit sklearn.base.BaseEstimator) or compute with cache=False")
    if isinstance(value, np.generic) and value.dtype.kind in "biuf":  # before float: np.float64 is one
        return value.item()
    if value is None or isinstance(value, (bool, str, int, float)):
        return value
    if isinstance(value, (list, tuple)):
        return [_jsonable(v, f"{where}[{i}]") for i, v in enumerate(value)]
    if isinstance(value, dict) and all(isinstance(k, str) for k in value):
        return {k: _jsonable(v, f"{where}[{k!r}]") for k, v in value.items()}
    raise TypeError(f"cannot build a cache key from the parameter {where} = {value!r}: only numbers, strings, "
                    "None, lists, dicts and estimators with get_params() can be keyed; compute with cache=False")


def usable_cache_dir(folder=None):
    """``folder`` (default :func:`cache_dir`) if a file can be written there, else None with a warning.

    Creates the folder, then writes and removes a probe file. Call it *before* computing.

    Examples
    --------
    >>> import tempfile, warnings
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     usable_cache_dir(Path(tmp) / "sub").name
    'sub'
    >>> with tempfile.NamedTemporaryFile() as f, warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     usable_cache_dir(Path(f.name) / "sub"), "GENDEL_CACHE_DIR" in str(caught[0].message)
    (None, True)
    """
    folder = Path(cache_dir() if folder is None else folder)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd, probe = tempfile.mkstemp(prefix=".probe-", dir=folder)
        os.close(fd)
        os.unlink(probe)
    except OSError as exc:
        warnings.warn(f"cannot write to the cache folder {folder} ({exc.strerror or exc}); computing without the "
                      "cache, so the result is not stored: set GENDEL_CACHE_DIR to a writable folder", CacheWarning,
                      stacklevel=2)
        return None
    return folder


def atomic_write(path, write):
    """Call ``write(f)`` on a unique temporary file beside ``path``, then rename it into place.

    Readers see the old file or the new one, never a part; concurrent writers of one path each
    write their own temporary file. The file gets the umask's permissions, not mkstemp's 0600.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     atomic_write(Path(tmp) / "a.txt", lambda f: f.write(b"hello"))
    ...     (Path(tmp) / "a.txt").read_text(), [p.name for p in Path(tmp).iterdir()]
    ('hello', ['a.txt'])
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    # A name no other writer uses, created with mode 0o666 so that the kernel applies the umask
    # (reading the umask would need os.umask(0), which races with other threads creating files).
    tmp = path.parent / f".{path.name}.{os.getpid()}.{uuid.uuid4().hex}.tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    try:
        with os.fdopen(fd, "wb") as f:
            write(f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def remove_stale_temporaries(path):
    """Remove the temporary files that :func:`atomic_write` left beside ``path`` when its process
    was killed mid-write (their names carry the writer's process id; a living writer's are kept, and a
    name without a process id was not written by a living writer of gendel's). Returns the number
    removed.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     dead = Path(tmp) / ".run.pt.999999999.abc.tmp"        # no process has this id
    ...     alive = Path(tmp) / f".run.pt.{os.getpid()}.def.tmp"   # this process: still writing
    ...     _ = dead.write_bytes(b"half"), alive.write_bytes(b"half")
    ...     remove_stale_temporaries(Path(tmp) / "run.pt"), [p.name for p in Path(tmp).iterdir()] == [alive.name]
    (1, True)
    """
    path = Path(path)
    removed = 0
    for tmp in path.parent.glob(f".{path.name}.*.tmp"):
        pid = tmp.name[len(path.name) + 2:].split(".", 1)[0]
        if pid.isdigit() and _alive(int(pid)):  # a writer still at work (gendel's names carry a process id)
            continue
        with contextlib.suppress(OSError):
            tmp.unlink()
            removed += 1
    return removed


def _alive(pid):
    try:
        os.kill(pid, 0)
    except (ProcessLookupError, OverflowError):
        return False
    except PermissionError:  # another user's process
        return True
    return True


#: The array of a cache entry that holds the SHA-256 of the others (:func:`save_npz`).
CHECKSUM_ARRAY = "__checksum__"


def arrays_digest(arrays):
    """SHA-256 (hex) of named arrays: names, dtypes, shapes and bytes, in name order.

    Examples
    --------
    >>> a = {"x": np.arange(3)}
    >>> arrays_digest(a) == arrays_digest({"x": np.arange(3)}), arrays_digest(a) == arrays_digest({"x": np.arange(4)})
    (True, False)
    """
    h = hashlib.sha256()
    for name in sorted(arrays):
        a = np.ascontiguousarray(arrays[name])
        h.update(f"{name}|{a.dtype.str}|{a.shape}|".encode())
        h.update(a.tobytes())
    return h.hexdigest()


def save_npz(path, **arrays):
    """Write a cache entry atomically, with the checksum of its arrays (:func:`load_npz` checks it).

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     save_npz(Path(tmp) / "e.npz", x=np.zeros(3))
    ...     sorted(np.load(Path(tmp) / "e.npz").files)
    ['__checksum__', 'x']
    """
    digest = np.frombuffer(bytes.fromhex(arrays_digest(arrays)), dtype=np.uint8)
    atomic_write(path, lambda f: np.savez(f, **arrays, **{CHECKSUM_ARRAY: digest}))


def load_npz(path, expected):
    """The arrays of a cached ``.npz`` entry, or None when it is missing or damaged.

    ``expected`` maps each array name to its shape (None: any); each must be there, numeric, of
    that shape, and the entry's checksum (written by :func:`save_npz`) must match its arrays: an
    entry edited since, or written without one, is damaged. A damaged file is removed with a
    :class:`CacheWarning` naming it.

    Examples
    --------
    >>> import tempfile, warnings
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     p = Path(tmp) / "e.npz"
    ...     save_npz(p, x=np.zeros(3))
    ...     ok = load_npz(p, {"x": (3,)})
    ...     with warnings.catch_warnings(record=True):
    ...         warnings.simplefilter("always")
    ...         bad = load_npz(p, {"x": (5,)})
    ...     ok["x"].tolist(), bad, p.exists()
    ([0.0, 0.0, 0.0], None, False)
    """
    path = Path(path)
    try:
        with np.load(path, allow_pickle=False) as f:
            missing = sorted(set(expected) - set(f.files))
            if missing:
                raise KeyError(f"no array {', '.join(missing)}")
            stored = {name: f[name] for name in f.files}
        recorded = stored.pop(CHECKSUM_ARRAY, None)
        if recorded is None or recorded.tobytes().hex() != arrays_digest(stored):
            raise ValueError("its checksum does not match its arrays (edited, or written without one)")
        arrays = {name: stored[name] for name in expected}
        for name, shape in expected.items():
            a = arrays[name]
            if a.dtype.kind not in "biuf":
                raise ValueError(f"array {name} has dtype {a.dtype}, not a number")
            if shape is not None and a.shape != tuple(shape):
                raise ValueError(f"array {name} has shape {a.shape}, expected {tuple(shape)}")
    except (FileNotFoundError, NotADirectoryError):  # no entry (yet), or a folder that cannot hold one
        return None
    except PermissionError as exc:  # readable by someone else, not a damaged entry: leave it
        warnings.warn(f"cannot read the cache entry {path} ({exc}); computing the result instead. Set "
                      "GENDEL_CACHE_DIR to a folder you can read and write", CacheWarning, stacklevel=2)
        return None
    except Exception as exc:  # a torn, truncated or foreign file: BadZipFile, EOFError, ValueError, ...
        warnings.warn(f"discarding the damaged cache entry {path} ({type(exc).__name__}: {exc}); computing it "
                      "again", CacheWarning, stacklevel=2)
        with contextlib.suppress(OSError):  # a read-only cache: the new result is not stored either
            path.unlink(missing_ok=True)
        return None
    return arrays
