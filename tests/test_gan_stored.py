"""The GAN results stored with gendel: made by today's code (or declared as made by an earlier
version), complete, covering Appendix E, and reproducible where a build can check it."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from gan_fixtures import needs, one_torch_thread, private_cache  # noqa: E402,F401 (autouse fixtures)

from gendel.gan.labels import tv_distance  # noqa: E402
from gendel.gan.profiles import PROFILES, find_job, jobs  # noqa: E402
from gendel.gan.result_files import remake_command  # noqa: E402
from gendel.gan.run import code_fingerprint, run_job  # noqa: E402
from gendel.gan.result_files import LEGACY, STORED_RESULTS, stored_results  # noqa: E402

STORED = sorted(p.name for p in STORED_RESULTS.iterdir() if p.is_dir() and p.name != "baselines")  # baselines: its own grid


def test_every_stored_profile_is_known_and_holds_its_profiles_jobs():
    assert set(STORED) >= {"quick", "tiny", "gpu"}
    for name in STORED:
        results = stored_results(name)
        assert results, name
        known = {j.name for j in jobs(name)}
        assert {r.name for r in results} <= known, f"{name}: stored jobs its profile does not have"
        assert all(r.profile["name"] == name for r in results)


@pytest.mark.parametrize("name", [n for n in STORED if n not in LEGACY])
def test_stored_results_were_made_by_todays_code(name):
    today = code_fingerprint()
    stale = sorted(r.name for r in stored_results(name) if r.fingerprint != today)
    assert not stale, (f"the stored {name} results {stale[:3]}{' ...' if len(stale) > 3 else ''} were made by other "
                       f"code (fingerprint {stored_results(name)[0].fingerprint}, today's {today}): remake them with "
                       f"`{remake_command(name)}` (and commit gendel/gan/results/{name}/)")


def test_legacy_results_are_declared():
    for name in STORED:
        versions = {r.version for r in stored_results(name)}
        assert (versions == {1}) == (name in LEGACY), f"{name}: format versions {versions}, LEGACY {sorted(LEGACY)}"


def test_the_quick_results_cover_appendix_e_with_at_least_three_seeds():
    results = stored_results("quick")
    cells = {(r.dataset, r.setting, r.lam) for r in results}
    assert cells == {(d, s, lam) for d in ("mnist", "fashion-mnist") for s in ("even", "odd") for lam in (0.6, 0.7, 0.8, 0.9)}
    seeds = {cell: {r.seed for r in results if (r.dataset, r.setting, r.lam) == cell} for cell in cells}
    assert min(len(s) for s in seeds.values()) >= 3
    assert {r.name for r in results} == {j.name for j in jobs("quick")}
    # the control and the curves are there for every job
    assert all("control" in r.labels and r.curves is not None and r.reweighted is not None for r in results)
    assert all(r.data["n_train"] == PROFILES["quick"].n_train for r in results)


@needs("mnist")
def test_a_tiny_job_run_afresh_agrees_with_its_stored_result(tmp_path):
    """CPU training is not bit-identical across processors and thread counts; the tolerances are far
    above the differences of a run with another thread count (about 1e-6 in the statistics here)."""
    stored = {r.name: r for r in stored_results("tiny")}
    job = find_job("tiny", "mnist-even-0.7-seed0")
    fresh = run_job(job, tmp_path / "results", progress=False)
    old = stored[job.name]
    assert fresh.fingerprint == old.fingerprint
    for model in ("pre", "re", "approx", "control"):
        assert tv_distance(fresh.distribution(model), old.distribution(model)) <= 0.05, model
    for stat in ("lr", "asc-log", "asc-tlogt"):
        for side in ("h0", "h1", "control"):
            np.testing.assert_allclose(fresh.statistic(stat)[side], old.statistic(stat)[side], atol=1e-3, rtol=0)
    assert abs(fresh.classifier["test_accuracy"] - old.classifier["test_accuracy"]) <= 0.02
    np.testing.assert_allclose(fresh.scores("h0"), old.scores("h0"), atol=1e-2)
