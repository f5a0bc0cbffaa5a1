"""Sealing result files (gendel.gan.seal), again when the fingerprint's scheme changes: the check
accepts only the commit that made the files, and only when its code computes what today's does,
and leaves the numbers alone. The fingerprints of the commits are stood in for (monkeypatch):
the real ones need git and a checkout, and the seals of the stored results record them."""

from __future__ import annotations

import pytest

from gendel.gan import seal as S
from gendel.gan.baseline_results import STORED_RESULTS_DIR, baseline_fingerprint, load_baseline_result
from gendel.gan.result_files import STORED_RESULTS, load_result, read_arrays, read_record, write_record
from gendel.gan.run import code_fingerprint

EARLIER = {"command": "python -m gendel.gan seal ...", "created": "2026-01-01T00:00:00+00:00", "made_at": "abc1234",
           "fingerprint_then": "f00df00df00df00d", "checked": "then"}


def _copy(source, folder, fingerprint, sealed=None):
    """``source`` written into ``folder`` as an earlier scheme left it: ``fingerprint``, and ``sealed``."""
    record, arrays = read_record(source, "a stored result"), read_arrays(source, "a stored result")
    record["provenance"]["fingerprint"] = fingerprint
    record["provenance"].pop("sealed", None)
    if sealed:
        record["provenance"]["sealed"] = sealed
    folder.mkdir(exist_ok=True)
    write_record(record, arrays, folder / source.name)
    return folder / source.name


@pytest.fixture
def sealed_before(tmp_path):
    return _copy(STORED_RESULTS / "tiny" / "mnist-even-0.7-seed0.json", tmp_path / "tiny", "beefbeefbeefbeef",
                 EARLIER)


def _fingerprints(table, grid="paper"):
    def at(commit, repository, g="paper"):
        assert g == grid, f"the fingerprint of the {g} grid asked for, not of the {grid} grid"
        return table[commit]
    return at


@pytest.fixture(autouse=True)
def commits_as_given(monkeypatch):
    """Made-up commits stand for themselves (the real ones are resolved by git)."""
    monkeypatch.setattr(S, "_full_commit", lambda commit, repository: commit)


def test_a_file_sealed_before_is_sealed_again_by_the_commit_its_seal_names(sealed_before, monkeypatch):
    before_record = read_record(sealed_before, "x")
    before_arrays = {k: v.tobytes() for k, v in read_arrays(sealed_before, "x").items()}
    monkeypatch.setattr(S, "fingerprints_at", _fingerprints({"abc1234": ("f00df00df00df00d", code_fingerprint())}))
    assert S.seal(sealed_before.parent, made_at="abc1234", progress=lambda _: None) == [sealed_before.stem]
    after = load_result(sealed_before)                  # its checksum holds
    assert after.provenance["fingerprint"] == code_fingerprint()
    seal = after.provenance["sealed"]
    assert seal["fingerprint_then"] == "beefbeefbeefbeef" and seal["before"] == EARLIER
    # the numbers are left alone: the whole record but its provenance, and the arrays
    old, new = read_record(sealed_before, "x"), before_record
    assert {k: v for k, v in new.items() if k not in ("provenance", "checksum")} == \
        {k: v for k, v in old.items() if k not in ("provenance", "checksum")}
    assert {k: v.tobytes() for k, v in read_arrays(sealed_before, "x").items()} == before_arrays
    # sealed: a second call leaves it alone
    assert S.seal(sealed_before.parent, made_at="abc1234", progress=lambda _: None) == []


@pytest.mark.parametrize("table, commit, refusal", [
    ({"0000000": ("f00df00df00df00d", None)}, "0000000", "their seal names the commits abc1234"),  # another commit
    ({"abc1234": ("1111111111111111", None)}, "abc1234", "is not what it was"),  # not the fingerprint it had
    ({"abc1234": ("f00df00df00df00d", "2222222222222222")}, "abc1234", "computes other numbers"),
])
def test_a_commit_that_did_not_make_them_or_computes_otherwise_is_refused(sealed_before, monkeypatch, table,
                                                                          commit, refusal):
    table = {c: (then, now or code_fingerprint()) for c, (then, now) in table.items()}
    monkeypatch.setattr(S, "fingerprints_at", _fingerprints(table))
    with pytest.raises(ValueError, match=refusal):
        S.seal(sealed_before.parent, made_at=commit, progress=lambda _: None)
    assert read_record(sealed_before, "x")["provenance"]["fingerprint"] == "beefbeefbeefbeef"   # untouched


def test_baselines_results_are_sealed_only_when_every_commit_given_made_them(tmp_path, monkeypatch):
    source = sorted(STORED_RESULTS_DIR.glob("quick/*.json"))[0]
    path = _copy(source, tmp_path / "b", "beefbeefbeefbeef")
    today = baseline_fingerprint()
    table = {"aaa": ("beefbeefbeefbeef", today), "bbb": ("beefbeefbeefbeef", today), "ccc": ("0" * 16, today)}
    monkeypatch.setattr(S, "fingerprints_at", _fingerprints(table, grid="baselines"))
    with pytest.raises(ValueError, match="ccc has fingerprint"):
        S.seal(path.parent, made_at=["aaa", "ccc"], grid="baselines", progress=lambda _: None)
    assert S.seal(path.parent, made_at=["aaa", "bbb"], grid="baselines", progress=lambda _: None) == [path.stem]
    d = load_baseline_result(path)
    assert d["provenance"]["fingerprint"] == today and d["provenance"]["sealed"]["made_at"] == ["aaa", "bbb"]
    assert d["labels"] == read_record(source, "x")["labels"]


def test_a_second_scheme_change_seals_again_through_the_chain_of_seals(sealed_before, monkeypatch):
    """The seal records the commit's own fingerprint, so a later scheme change can check it again."""
    monkeypatch.setattr(S, "fingerprints_at", _fingerprints({"abc1234": ("f00df00df00df00d", code_fingerprint())}))
    S.seal(sealed_before.parent, made_at="abc1234", progress=lambda _: None)
    first = read_record(sealed_before, "x")["provenance"]["sealed"]
    assert first["made_at_fingerprint"] == "f00df00df00df00d" and first["fingerprint_then"] == "beefbeefbeefbeef"
    monkeypatch.setattr(S, "_today", lambda grid: "9999999999999999")    # the scheme changes once more
    monkeypatch.setattr(S, "fingerprints_at", _fingerprints({"abc1234": ("f00df00df00df00d", "9999999999999999")}))
    assert S.seal(sealed_before.parent, made_at="abc1234", progress=lambda _: None) == [sealed_before.stem]
    second = read_record(sealed_before, "x")["provenance"]["sealed"]
    assert second["before"] == first and first["before"] == EARLIER
    assert second["fingerprint_then"] == code_fingerprint()


def test_files_sealed_by_several_commits_are_sealed_again_only_with_all_of_them(tmp_path, monkeypatch):
    several = EARLIER | {"made_at": ["aaa", "bbb"]}
    path = _copy(STORED_RESULTS / "tiny" / "mnist-even-0.7-seed0.json", tmp_path / "t", "beefbeefbeefbeef", several)
    table = {c: ("f00df00df00df00d", code_fingerprint()) for c in ("aaa", "bbb")}
    monkeypatch.setattr(S, "fingerprints_at", _fingerprints(table))
    with pytest.raises(ValueError, match="give exactly those"):
        S.seal(path.parent, made_at=["aaa"], progress=lambda _: None)
    assert S.seal(path.parent, made_at=["bbb", "aaa"], progress=lambda _: None) == [path.stem]


def test_every_file_is_checked_before_any_is_written(tmp_path, monkeypatch):
    folder = tmp_path / "tiny"
    good = _copy(STORED_RESULTS / "tiny" / "mnist-even-0.7-seed0.json", folder, "beefbeefbeefbeef", EARLIER)
    source = STORED_RESULTS / "tiny" / "mnist-odd-0.7-seed0.json"
    record, arrays = read_record(source, "x"), read_arrays(source, "x")
    record["provenance"] |= {"fingerprint": "beefbeefbeefbeef", "sealed": EARLIER}
    record["labels"]["pre"][0] += 1          # counts that no longer add up: the schema refuses it
    write_record(record, arrays, folder / source.name)
    monkeypatch.setattr(S, "fingerprints_at", _fingerprints({"abc1234": ("f00df00df00df00d", code_fingerprint())}))
    with pytest.raises(Exception, match="schema|add up"):
        S.seal(folder, made_at="abc1234", progress=lambda _: None)
    assert read_record(good, "x")["provenance"]["fingerprint"] == "beefbeefbeefbeef"   # the good file untouched


def test_a_folder_of_files_made_by_different_code_is_refused_whole(tmp_path, monkeypatch):
    folder = tmp_path / "tiny"
    sealed = _copy(STORED_RESULTS / "tiny" / "mnist-even-0.7-seed0.json", folder, "beefbeefbeefbeef", EARLIER)
    never = _copy(STORED_RESULTS / "tiny" / "mnist-odd-0.7-seed0.json", folder, "cafecafecafecafe")
    table = {"abc1234": ("f00df00df00df00d", code_fingerprint())}
    monkeypatch.setattr(S, "fingerprints_at", _fingerprints(table))
    with pytest.raises(ValueError, match="made by different code, they cannot be sealed together"):
        S.seal(folder, made_at="abc1234", progress=lambda _: None)
    assert read_record(sealed, "x")["provenance"]["fingerprint"] == "beefbeefbeefbeef"
    assert read_record(never, "x")["provenance"]["fingerprint"] == "cafecafecafecafe"


def test_a_format_1_file_gets_its_checksum_only_and_its_neighbour_the_check(tmp_path, monkeypatch):
    """A file of format 1 records no fingerprint: it is sealed with its checksum and says so; a
    file of today's format beside it is sealed only once the commit is checked."""
    import json
    import shutil

    folder = tmp_path / "mixed"
    folder.mkdir()
    source = STORED_RESULTS / "gpu" / "mnist-even-0.7-seed0.json"
    old = json.loads(source.read_text())
    for key in ("checksum", "sealed"):       # as it was written, before checksums
        old.pop(key)
    (folder / source.name).write_text(json.dumps(old))
    shutil.copy(source.with_suffix(".npz"), folder / source.with_suffix(".npz").name)
    v2 = _copy(STORED_RESULTS / "tiny" / "mnist-odd-0.7-seed0.json", folder, "beefbeefbeefbeef")
    monkeypatch.setattr(S, "fingerprints_at", _fingerprints({"abc1234": ("0" * 16, code_fingerprint())}))
    with pytest.raises(ValueError, match="has fingerprint 0000000000000000"):   # another commit's code made v2
        S.seal(folder, made_at="abc1234", progress=lambda _: None)
    assert "checksum" not in json.loads((folder / source.name).read_text())  # nothing written
    monkeypatch.setattr(S, "fingerprints_at", _fingerprints({"abc1234": ("beefbeefbeefbeef", code_fingerprint())}))
    assert sorted(S.seal(folder, made_at="abc1234", progress=lambda _: None)) == sorted([source.stem, v2.stem])
    sealed_v1 = read_record(folder / source.name, "x")
    assert sealed_v1["sealed"]["checked"].startswith("format version 1 records no fingerprint")
    assert "fingerprint" not in sealed_v1 and "provenance" not in sealed_v1
    assert {k: v for k, v in sealed_v1.items() if k not in ("checksum", "sealed")} == old   # numbers untouched
    assert read_record(v2, "x")["provenance"]["fingerprint"] == code_fingerprint()
