"""A stored result is what its checksum and its schema say, of the job, data and code it claims.

Each case below was a silent wrong answer or a raw error before result files carried a checksum
and passed a declared schema (gendel.gan.schema): an edited number, another job's arrays, a result
of other data or other code reused as done, a file dropped into another profile's folder.
"""

from __future__ import annotations

import json
import linecache
import math
import shutil
import warnings
from pathlib import Path

import numpy as np
import pytest

from gendel.cache import CacheWarning, load_npz, save_npz
from gendel.gan import grid
from gendel.gan import run as run_module
from gendel.gan.profiles import Job, jobs
from gendel.gan.result_files import (STORED_RESULTS, DamagedResult, load_result, read_arrays, result_path,
                                     stored_results, write_record)
from gendel.gan.run import code_fingerprint, done

TINY = STORED_RESULTS / "tiny"
EVEN, ODD = jobs("tiny")


def copy(job, folder, source=TINY, name=None):
    for suffix in (".json", ".npz"):
        shutil.copy(Path(source) / f"{job.name}{suffix}", Path(folder) / f"{name or job.name}{suffix}")
    return Path(folder) / f"{name or job.name}.json"


def edit(path, change):
    """Change a number in a result file by hand (its checksum is left as it was)."""
    d = json.loads(path.read_text())
    change(d)
    path.write_text(json.dumps(d))


def rewrite(path, change):
    """Change a result and write it the way gendel writes results (a new checksum): the schema must see it."""
    d = json.loads(path.read_text())
    change(d)
    write_record(d, read_arrays(path, str(path)), path, arrays_written=True)


# -- 1. a result is what its checksum says ------------------------------------------------------

HAND_EDITS = {
    "labels.approx": lambda d: d["labels"].update(approx=[100, 0, 0, 100] + d["labels"]["approx"][4:]),
    "q3.ks": lambda d: d["q3"]["ks"]["lr"].update(h1=0.5),
    "a Q3 statistic": lambda d: d["q3"]["statistics"]["lr"]["h1"].__setitem__(0, 1.0),
    "test_accuracy": lambda d: d["classifier"].update(test_accuracy=1.5),
    "the checksum removed": lambda d: d.pop("checksum"),
}


@pytest.mark.parametrize("edit_name", list(HAND_EDITS))
def test_a_number_edited_by_hand_is_a_damaged_result(tmp_path, edit_name):
    path = copy(EVEN, tmp_path)
    assert load_result(path, EVEN).name == EVEN.name  # the copy as written reads
    edit(path, HAND_EDITS[edit_name])
    with pytest.raises(DamagedResult, match="changed after it was written|no checksum"):
        load_result(path, EVEN)
    with pytest.warns(CacheWarning, match="running the job"):
        assert done(path, EVEN) is None  # run and grid make it again


def test_another_jobs_arrays_file_is_found(tmp_path):
    path = copy(EVEN, tmp_path)
    shutil.copy(TINY / f"{ODD.name}.npz", path.with_suffix(".npz"))
    with pytest.raises(DamagedResult, match="arrays file is not the one written with it"):
        load_result(path)


def test_a_stored_result_edited_by_hand_is_refused_with_the_command_that_remakes_it(tmp_path, monkeypatch):
    shutil.copytree(TINY, tmp_path / "tiny")
    edit(tmp_path / "tiny" / f"{EVEN.name}.json", HAND_EDITS["labels.approx"])
    monkeypatch.setenv("GENDEL_STORED_RESULTS", str(tmp_path))
    with pytest.raises(DamagedResult, match=r"changed after it was written.*grid --profile tiny --store"):
        stored_results("tiny")


# -- 2. the schema ------------------------------------------------------------------------------

SCHEMA_BREAKS = {
    "a negative count": (lambda d: d["labels"]["approx"].__setitem__(0, -1), r"labels\.approx\.0"),
    "a fractional count": (lambda d: d["labels"]["approx"].__setitem__(0, 0.5), r"labels\.approx\.0"),
    "counts that do not add up": (lambda d: d["labels"]["pre"].__setitem__(0, d["labels"]["pre"][0] + 1),
                                  "add up to"),
    "a NaN statistic": (lambda d: d["q3"]["statistics"]["lr"]["h0"].__setitem__(0, math.nan), r"q3\.statistics"),
    "an infinite timing": (lambda d: d["timings"].update(pretrain=math.inf), r"timings\.pretrain"),
    "a negative timing": (lambda d: d["timings"].update(pretrain=-1.0), r"timings\.pretrain"),
    "a KS as text": (lambda d: d["q3"]["ks"]["lr"].update(h1="high"), r"q3\.ks\.lr\.h1"),
    "a seed as text": (lambda d: d["job"].update(seed="0"), r"job\.seed"),
    "a fractional seed": (lambda d: d["job"].update(seed=0.9), r"job\.seed"),
    "an accuracy above 1": (lambda d: d["classifier"].update(test_accuracy=1.5), r"classifier\.test_accuracy"),
    "a NaN count": (lambda d: d["labels"]["pre"].__setitem__(0, math.nan), r"labels\.pre\.0"),
    "1e400 as a count": (lambda d: d["labels"]["pre"].__setitem__(0, 1e400), r"labels\.pre\.0"),
    "a setting edited to the other parity": (lambda d: d["job"].update(setting="odd", name="mnist-odd-0.7-seed0"),
                                             "not what odd-0.7 keeps"),
    "a profile record of another profile": (lambda d: d["profile"].update(name="quick"), "of profile 'tiny'"),
}


@pytest.mark.parametrize("case", list(SCHEMA_BREAKS))
def test_a_result_that_breaks_the_schema_is_refused_naming_the_field(tmp_path, case):
    change, where = SCHEMA_BREAKS[case]
    path = copy(EVEN, tmp_path)
    rewrite(path, change)
    with pytest.raises(DamagedResult, match=r"breaks the result schema: .*" + where):
        load_result(path)


def test_an_even_result_renamed_and_edited_into_the_odd_job_is_refused(tmp_path):
    """The checksum is remade (as a writer would), the setting and name edited: the kept label
    counts still say even-0.7, so the schema refuses it."""
    path = copy(EVEN, tmp_path, name=ODD.name)
    rewrite(path, lambda d: d["job"].update(setting="odd", name=ODD.name))
    with pytest.raises(DamagedResult, match="not what odd-0.7 keeps"):
        load_result(path, ODD)


def test_a_json_nested_too_deeply_is_a_damaged_result_not_a_recursion_error(tmp_path):
    path = copy(EVEN, tmp_path)
    path.write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(DamagedResult, match="nested too deeply|cannot be read"):
        load_result(path)


# -- stored_results: one profile, named after their jobs ---------------------------------------

def test_stored_results_refuse_a_file_of_another_profile_or_a_renamed_copy(tmp_path, monkeypatch):
    monkeypatch.setenv("GENDEL_STORED_RESULTS", str(tmp_path))
    shutil.copytree(TINY, tmp_path / "tiny")
    assert [r.name for r in stored_results("tiny")] == [EVEN.name, ODD.name]
    quick = Job("quick", "mnist", "even", 0.6, 0)
    copy(quick, tmp_path / "tiny", source=STORED_RESULTS / "quick")
    with pytest.raises(DamagedResult, match="of profile 'quick', not of 'tiny'"):
        stored_results("tiny")
    (tmp_path / "tiny" / f"{quick.name}.json").unlink()
    copy(EVEN, tmp_path / "tiny", name="mnist-even-0.7-seed1")  # a second "seed"
    with pytest.raises(DamagedResult, match="named after its job"):
        stored_results("tiny")
    (tmp_path / "tiny" / "mnist-even-0.7-seed1.json").unlink()
    copy(Job("gpu", "mnist", "even", 0.7, 0), tmp_path / "tiny", source=STORED_RESULTS / "gpu",
         name="mnist-odd-0.7-seed1")  # a format-1 gpu result renamed into the folder
    with pytest.raises(DamagedResult, match="named after its job|of profile 'gpu'"):
        stored_results("tiny")


def test_a_missing_stored_results_folder_names_the_variable(tmp_path, monkeypatch):
    monkeypatch.setenv("GENDEL_STORED_RESULTS", str(tmp_path / "nowhere"))
    with pytest.raises(ValueError, match=r"\$GENDEL_STORED_RESULTS names the folder .*nowhere.*does not exist"):
        stored_results("tiny")


# -- 3. done means the same job, the same data, the same code -----------------------------------

def test_a_result_is_done_with_todays_data_and_not_done_with_permuted_data(tmp_path, monkeypatch):
    from gendel.gan.images import FILES, _find, read_idx, write_idx
    from gendel.gan.images import data_root as default_root

    path = copy(EVEN, tmp_path)
    assert done(path, EVEN) is not None  # the stored result is done here: same job, data and code
    data = tmp_path / "data" / "mnist"
    data.mkdir(parents=True)
    for split in ("train", "test"):
        images, labels = (read_idx(_find(default_root() / "mnist", f), m) for f, m in zip(FILES[split], (2051, 2049)))
        order = np.random.default_rng(0).permutation(len(labels)) if split == "train" else np.arange(len(labels))
        write_idx(data / FILES[split][0], images[order])
        write_idx(data / FILES[split][1], labels[order])
    monkeypatch.setenv("GENDEL_DATA_DIR", str(tmp_path / "data"))
    with pytest.warns(CacheWarning, match="made from other data"):
        assert done(path, EVEN) is None


def test_done_needs_a_job():
    with pytest.raises(TypeError, match="done needs the Job"):
        done(TINY / f"{EVEN.name}.json", job="mnist-even-0.7-seed0")


def test_a_lambda_that_prints_alike_is_told_apart(tmp_path):
    path = copy(EVEN, tmp_path)
    other = Job("tiny", "mnist", "even", 0.70000001, 0)
    with pytest.raises(DamagedResult, match=r"λ = 0\.7\).*λ = 0\.70000001"):
        load_result(path, other)


# -- the fingerprint covers every module of the computing code ----------------------------------

def _mutated_fingerprint(obj):
    """Today's fingerprint with one statement added in front of ``obj``'s first statement (through
    linecache, as if its file had been edited), computed afresh."""
    import ast
    import inspect
    import os

    from gendel.fingerprint import code_hash
    from gendel.gan.run import BOOKKEEPING_MODULES, bookkeeping, computing_roots

    from gendel.fingerprint import _unwrap as unwrap

    obj = unwrap(obj)
    file = inspect.getsourcefile(obj)
    lines, start = inspect.getsourcelines(obj)
    tree = ast.parse("".join(_dedent(lines)))
    simple = (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Return, ast.Raise, ast.Expr, ast.Pass)
    # the first simple statement in source order that is not a docstring: "_mutated = 1; " goes in
    # front of it, where it runs whenever that statement would (in front of a return, not after it)
    statements = [n for n in ast.walk(tree.body[0]) if isinstance(n, simple)]
    code = [n for n in statements if not (isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant))]
    first = min(code or statements, key=lambda n: (n.lineno, n.col_offset))  # a function of a docstring alone
    all_lines = list(linecache.getlines(file))  # a copy: the cached list itself must stay as it is
    indent = len(lines[0]) - len(lines[0].lstrip())
    lineno = start + first.lineno - 1
    line = all_lines[lineno - 1]
    cut = first.col_offset + indent
    all_lines[lineno - 1] = line[:cut] + "_mutated = 1; " + line[cut:]
    stat = os.stat(file)
    saved = linecache.cache.get(file)
    linecache.cache[file] = (stat.st_size, stat.st_mtime, all_lines, file)
    try:
        return code_hash(computing_roots(), skip=bookkeeping(), skip_modules=BOOKKEEPING_MODULES)
    finally:
        if saved is None:
            linecache.cache.pop(file, None)
        else:
            linecache.cache[file] = saved


def _dedent(lines):
    import textwrap

    return textwrap.dedent("".join(lines)).splitlines(keepends=True)


def _followed_objects():
    """``{qualified name: object}`` of everything the paper-protocol fingerprint follows."""
    import importlib

    from gendel.gan.run import fingerprinted_code

    found = {}
    for name in fingerprinted_code():
        parts = name.split(".")
        for cut in range(len(parts) - 1, 0, -1):
            try:
                obj = importlib.import_module(".".join(parts[:cut]))
            except ImportError:
                continue
            for attr in parts[cut:]:
                obj = getattr(obj, attr)
            found[name] = obj
            break
    return found


def _followed_by_module():
    """``{module: a followed function of it}`` (a class where the module holds no followed function)."""
    import importlib
    import inspect

    from gendel.gan.run import fingerprinted_code

    by_module = {}
    names = sorted(fingerprinted_code(), key=lambda n: n.split(".")[-1][:1].isupper())  # functions first
    for name in names:
        parts = name.split(".")
        for cut in range(len(parts) - 1, 0, -1):
            module = ".".join(parts[:cut])
            try:
                mod = importlib.import_module(module)
            except ImportError:
                continue
            obj = mod
            for attr in parts[cut:]:
                obj = getattr(obj, attr)
            if inspect.isfunction(_unwrap(obj)) or module not in by_module:
                by_module.setdefault(module, obj)
            break
    return by_module


#: Functions the fingerprint follows whose change does not change it, each with why. The fingerprint
#: drops statements that only check; a function such a statement names is followed (listed by
#: ``fingerprinted_code``) but does not reach the hash. (A class it names does: its methods compute
#: through instances, ``job.control_seed``, which went unseen before the scheme counted classes.)
NOT_FEEDING = {
    "gendel._validation.is_fitted": "named only in checks that raise",
    "gendel.core.deletion._below": "named only in a check that raises",
    "gendel.gan.experiment._models_of": "named only in checks that raise",
}


def test_a_change_to_any_function_the_fingerprint_follows_changes_it_or_is_listed_with_why():
    """Each followed function, changed by one statement (through linecache), changes the paper-protocol
    fingerprint, except the listed ones; a new gap, or a listed one that closes, fails here."""
    import inspect

    today = code_fingerprint()
    by_module = _followed_by_module()
    assert {"gendel._validation", "gendel.gan.experiment", "gendel.core.deletion", "gendel.deletion_test.stats",
            "gendel.gan.vdm", "gendel.gan.dcgan", "gendel.gan.images"} <= set(by_module)
    functions = {name: obj for name, obj in _followed_objects().items() if inspect.isfunction(_unwrap(obj))}
    assert len(functions) > 50 and set(NOT_FEEDING) <= set(functions)
    unchanged = sorted(name for name, obj in functions.items() if _mutated_fingerprint(obj) == today)
    assert unchanged == sorted(NOT_FEEDING)


@pytest.mark.parametrize("check", ["check_rng", "check_deletion"])
def test_a_changed_input_check_whose_value_is_used_changes_the_fingerprint(check):
    import gendel._validation as V

    assert _mutated_fingerprint(getattr(V, check)) != code_fingerprint()


def test_every_gendel_function_a_job_calls_is_followed_by_the_fingerprint(tmp_path, monkeypatch):
    """Run a whole tiny job (on made-up images) and record every gendel function it calls, the
    calls made through instances and registries included: each is covered by the fingerprint
    (:func:`gendel.gan.run.fingerprinted_code`), or belongs to bookkeeping (result files, records,
    caches, checkpoints, progress, the device). A gap here is computing code that could change
    and leave stored results looking current."""
    from gendel.gan.run import BOOKKEEPING_MODULES, fingerprinted_code

    data = _made_up_data(tmp_path, monkeypatch)
    called, gaps = _unfollowed_calls(
        lambda: run_module.run_job(EVEN, tmp_path / "results", device="cpu", progress=False, data_root=data),
        entry="gendel.gan.run.run_job", followed=set(fingerprinted_code()), skipped=run_module.bookkeeping(),
        modules=BOOKKEEPING_MODULES)
    assert "gendel.gan.experiment.make_result" in called and len(called) > 50, sorted(called)
    assert gaps == [], f"gendel code a job runs that the fingerprint does not follow: {gaps}"


def test_every_gendel_function_a_baselines_job_calls_is_followed_by_its_fingerprint(tmp_path, monkeypatch):
    """The same for the baselines grid (:func:`gendel.gan.baseline_results.baseline_fingerprint`),
    both kinds of its jobs: a label deletion (fine-tuning among its models) and a random deletion."""
    from gendel.gan import baseline_results as B
    from gendel.gan.baselines import baseline_jobs

    data = _made_up_data(tmp_path, monkeypatch)
    followed = set(B.baseline_fingerprinted_code())
    for job in baseline_jobs("tiny"):
        called, gaps = _unfollowed_calls(
            lambda: B.run_baseline_job(job, tmp_path / "results", device="cpu", progress=False, data_root=data),
            entry="gendel.gan.baseline_results.run_baseline_job", followed=followed, skipped=B._bookkeeping(),
            modules=B.BOOKKEEPING_MODULES)
        assert "gendel.gan.baselines.make_baseline_result" in called and len(called) > 40, sorted(called)
        assert gaps == [], f"gendel code the baselines job {job.name} runs that its fingerprint does not follow: {gaps}"


def _made_up_data(tmp_path, monkeypatch):
    import torch

    from test_gan_faults import write_made_up_data

    data = write_made_up_data(tmp_path / "data")
    monkeypatch.setenv("GENDEL_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("GENDEL_DATA_DIR", str(data))
    torch.set_num_threads(1)
    return data


def _unfollowed_calls(run, *, entry, followed, skipped, modules):
    """Call ``run()`` and record every gendel function called under ``entry`` (the bookkeeping
    that writes the result file) that is not itself bookkeeping nor called by bookkeeping: the
    functions called, and those of them that ``followed`` (a fingerprint's objects) does not cover."""
    import sys

    from gendel.fingerprint import BOOKKEEPING_MODULES as GENERAL

    called = set()
    skipped = {f"{o.__module__}.{o.__qualname__}" for o in map(_unwrap, skipped) if hasattr(o, "__qualname__")}
    bookkeeping = set(GENERAL) | set(modules)

    def name_of(frame):
        qualname = frame.f_code.co_qualname.split(".<locals>")[0]
        return f"{frame.f_globals.get('__name__', '')}.{qualname.split('.<')[0]}"

    def in_bookkeeping(name):
        return name != entry and (name in skipped or name in _CALLED_AS_CHECKS
                                  or any(name.startswith(m + ".") for m in bookkeeping))

    def record(frame, event, arg):
        if event != "call" or not frame.f_globals.get("__name__", "").startswith("gendel."):
            return
        f = frame.f_back
        while f is not None:  # what bookkeeping calls is bookkeeping (a device's name, a file's checksum)
            if f.f_globals.get("__name__", "").startswith("gendel.") and in_bookkeeping(name_of(f)):
                return
            f = f.f_back
        called.add(name_of(frame))

    sys.setprofile(record)
    try:
        run()
    finally:
        sys.setprofile(None)
    called.discard(entry)  # bookkeeping itself, but what it calls is judged one by one
    gaps = sorted(name for name in called
                  if name not in followed and not in_bookkeeping(name) and name not in _CALLED_AS_CHECKS
                  and not any(name.startswith(f + ".") for f in followed | skipped)  # methods of a followed class
                  and name.rsplit(".", 1)[-1] not in _PLUMBING)
    return called, gaps


def _unwrap(obj):
    from gendel.fingerprint import _unwrap as unwrap

    return unwrap(obj)


#: Input checks a job calls only as statements (their value unused: the fingerprint leaves them out).
_CALLED_AS_CHECKS = {"gendel._validation.check_fitted", "gendel._validation.check_memory"}
_PLUMBING = {"__create_fn__", "__repr__", "__str__", "__getattr__", "__dir__", "__sklearn_clone__", "__sklearn_is_fitted__",
             "__sklearn_tags__", "get_params", "set_params", "_check_fitted", "_config", "__init__",
             "__post_init__", "__hash__", "__eq__", "name", "control_seed"}


# -- 5. one profile's job never overwrites another's ----------------------------------------------

def test_a_job_refuses_to_overwrite_a_result_of_another_profile(tmp_path, monkeypatch):
    quick = Job("quick", "mnist", "even", 0.7, 0)
    copy(quick, tmp_path, source=STORED_RESULTS / "quick")

    def make_result(*args, **kwargs):
        raise AssertionError("trained")

    monkeypatch.setattr(run_module, "make_result", make_result)
    with pytest.raises(FileExistsError, match="holds a result of profile 'quick'"):
        run_module.run_job(EVEN, tmp_path)
    assert load_result(result_path(quick, tmp_path)).job.profile == "quick"  # kept


# -- the command line ------------------------------------------------------------------------------

def test_a_done_run_says_so_and_needs_no_writable_folder(tmp_path, monkeypatch, capsys):
    from gendel.gan import __main__ as cli
    from gendel.gan import result_files as results_module

    copy(EVEN, tmp_path)
    copy(ODD, tmp_path)

    def refuse(*args, **kwargs):
        raise AssertionError("the folder was probed although nothing is to be written")

    monkeypatch.setattr(results_module, "usable_results_dir", refuse)
    assert cli.main(["run", "--profile", "tiny", "--results", str(tmp_path), EVEN.name]) == 0
    assert "done already" in capsys.readouterr().out
    assert cli.main(["grid", "--profile", "tiny", "--results", str(tmp_path)]) == 0
    assert "2 job(s) done, 0 to run" in capsys.readouterr().out


def test_a_grid_worker_does_not_report_a_damaged_result_a_second_time(tmp_path, monkeypatch):
    path = copy(EVEN, tmp_path)
    edit(path, HAND_EDITS["labels.approx"])

    def make_result(*args, **kwargs):
        raise RuntimeError("trained")

    monkeypatch.setattr(run_module, "make_result", make_result)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(RuntimeError, match="trained"):
            grid._job_task(EVEN, str(tmp_path), "cpu", "a test")
    assert [str(w.message) for w in caught if issubclass(w.category, CacheWarning)] == []


# -- the §5.1 cache ---------------------------------------------------------------------------------

def test_a_cache_entry_edited_by_hand_is_discarded(tmp_path):
    path = tmp_path / "entry.npz"
    save_npz(path, values=np.arange(4.0))
    assert load_npz(path, {"values": (4,)})["values"].tolist() == [0, 1, 2, 3]
    with np.load(path) as f:
        arrays = {k: f[k] for k in f.files}
    arrays["values"] = arrays["values"] + 100
    np.savez(path, **arrays)  # the checksum array kept as it was
    with pytest.warns(CacheWarning, match="checksum does not match"):
        assert load_npz(path, {"values": (4,)}) is None


def test_a_temporary_file_without_a_process_id_is_removed(tmp_path):
    from gendel.cache import remove_stale_temporaries

    (tmp_path / ".run.json.abc.def.tmp").write_bytes(b"half")
    assert remove_stale_temporaries(tmp_path / "run.json") == 1
    assert list(tmp_path.iterdir()) == []


def test_a_stage_refuses_the_models_of_another_job():
    """Another deletion set, another seed (every seed deletes the same images) or another profile."""
    import dataclasses
    import types

    from gendel.gan.experiment import TrainedModels, curves, deletion_mask, deletion_test, fast_deletion
    from gendel.gan.profiles import get_profile

    labels = np.arange(200) % 10

    def models(job, seed=None, profile=None):
        pretrained = types.SimpleNamespace(seed=job.seed if seed is None else seed)
        return TrainedModels(pretrained, None, None, None, None, None, labels, deletion_mask(job, labels), None, None,
                             200, 0.0, profile or get_profile(job.profile))

    seed1 = dataclasses.replace(EVEN, seed=1)
    others = {"another deletion set": (ODD, models(EVEN)), "another seed": (seed1, models(EVEN)),
              "another profile": (EVEN, models(EVEN, profile=get_profile("quick")))}
    for case, (job, theirs) in others.items():
        for stage in (fast_deletion, deletion_test, lambda j, m: curves(j, m, None, None)):
            with pytest.raises(ValueError, match=f"not {job.name}'s"):
                stage(job, theirs)
    # and the check lets the job's own models through to the stage (which then fails on the stand-ins)
    with pytest.raises(AttributeError):
        deletion_test(EVEN, models(EVEN))


def test_run_job_writes_what_make_result_computed_with_its_provenance(tmp_path, monkeypatch):
    """run_job adds bookkeeping only: every field make_result returns is written as returned, and
    its hardware and seconds go into the provenance, beside today's fingerprint and the command."""
    import dataclasses

    stored = load_result(TINY / f"{EVEN.name}.json", EVEN)
    fields = {f.name: getattr(stored, f.name) for f in dataclasses.fields(stored) if f.name not in ("version", "provenance")}
    hardware, seconds = {"evaluation": {"device": "a stand-in"}}, {"job": 12.5, "train": 10.0}
    calls = []

    def make_result(job, **kwargs):
        calls.append((job, str(kwargs.get("device"))))
        return dict(fields) | {"hardware": hardware, "seconds": seconds}

    monkeypatch.setattr(run_module, "make_result", make_result)
    written = run_module.run_job(EVEN, tmp_path, device="cpu", progress=False, command="a test")
    assert calls == [(EVEN, "cpu")]
    again = load_result(result_path(EVEN, tmp_path), EVEN)    # its checksum holds
    for result in (written, again):
        assert result.provenance["hardware"] == hardware and result.provenance["seconds"] == seconds
        assert result.provenance["command"] == "a test" and result.fingerprint == run_module.code_fingerprint()
        for name, value in fields.items():
            assert same(getattr(result, name), value), name


def test_run_baseline_job_writes_what_make_baseline_result_computed_with_its_provenance(tmp_path, monkeypatch):
    """The same for the baselines grid: run_baseline_job writes the record and arrays
    make_baseline_result returns, its hardware and seconds in the provenance with the baselines
    fingerprint (not the paper grid's)."""
    from gendel.gan import baseline_results as B
    from gendel.gan.baselines import find_baseline_job

    job = find_baseline_job("quick", "mnist-even-0.7-seed0")
    stored = B.load_baseline_result(B.stored_dir("quick") / f"{job.name}.json", job)
    arrays = stored.pop("arrays")
    record = {k: v for k, v in stored.items() if k not in ("provenance", "checksum")}
    hardware, seconds = {"evaluation": {"device": "a stand-in"}}, {"job": 12.5, "train": 10.0}
    calls = []

    def make_baseline_result(job, **kwargs):
        calls.append((job, str(kwargs.get("device"))))
        return dict(record) | {"hardware": hardware, "seconds": seconds}, dict(arrays)

    monkeypatch.setattr(B, "make_baseline_result", make_baseline_result)
    written = B.run_baseline_job(job, tmp_path, device="cpu", progress=False, command="a test")
    assert calls == [(job, "cpu")]
    again = B.load_baseline_result(tmp_path / f"{job.name}.json", job)    # its checksum holds
    for result in (written, again):
        assert result["provenance"]["hardware"] == hardware and result["provenance"]["seconds"] == seconds
        assert result["provenance"]["command"] == "a test"
        assert result["provenance"]["fingerprint"] == B.baseline_fingerprint() != run_module.code_fingerprint()
        assert same({k: result[k] for k in record}, record) and same(result["arrays"], arrays)
    from_python = B.run_baseline_job(job, tmp_path / "from-python", device="cpu", progress=False)
    assert from_python["provenance"]["command"].startswith("a Python call (gendel.gan.baseline_results.run_baseline_job, ")


def same(a, b):
    """Whether two results' fields are equal: dicts key by key, arrays element by element (NaN equal to NaN)."""
    if isinstance(a, dict) or isinstance(b, dict):
        return isinstance(a, dict) and isinstance(b, dict) and a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, (np.ndarray, list, tuple)) or isinstance(b, (np.ndarray, list, tuple)):
        a, b = np.asarray(a), np.asarray(b)
        if a.dtype == object or b.dtype == object:
            return a.shape == b.shape and all(map(same, a.ravel(), b.ravel()))
        return a.shape == b.shape and np.array_equal(a, b, equal_nan=a.dtype.kind in "fc" and b.dtype.kind in "fc")
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return a == b
