"""Fixtures and skips shared by the tests of the GAN half (import them into a test module)."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from gendel.gan import images  # noqa: E402

REAL = images.data_root()


def has_data(name):
    """Whether the real IDX files of ``name`` are in the data folder (see ``make data``)."""
    return all(images._find(REAL / name, f) for f in images.ALL_FILES)


def needs(name):
    """Skip a test when the real images of ``name`` are missing, saying how to get them."""
    return pytest.mark.skipif(not has_data(name), reason=f"{name} is not in {REAL}: run `make data` to import it")


@pytest.fixture(autouse=True, scope="module")
def one_torch_thread():
    """Small networks on a shared 2-core machine: one intra-op thread is as fast as two and never
    oversubscribes the cores (two spinning OpenMP threads beside another busy process can make
    a fit tens of times slower)."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    """Checkpoints and results of a test go to its own folder."""
    monkeypatch.setenv("GENDEL_CACHE_DIR", str(tmp_path / "cache"))
