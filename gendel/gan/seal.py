"""Sealing result files: ``python -m gendel.gan seal``.

A result file is read only with a checksum of its content (:mod:`gendel.gan.schema`) and counts as
current only with today's code fingerprint. Two kinds of file can be *sealed* instead of made
again, but only when it is shown that the code that made them computes what today's code computes:

- files written before results carried a checksum (and before :func:`gendel.gan.run.code_fingerprint`
  followed the input checks of ``gendel._validation``);
- files whose fingerprint is that of an earlier *scheme* of ``gendel.fingerprint`` (it now counts
  every class the code names, checks included), not of other code: *sealed again*.

The check, for the commits given with ``--made-at`` (the commit, or every commit, whose code made
the files; exported from the repository with ``git archive``):

1. a file never sealed: each commit's code has the fingerprint the files record, under the
   fingerprint of its day. (This shows that each commit could have made them; which commits did is
   the caller's word, so give every commit of the time they were made.) A file sealed before: the
   commits are exactly those its seal names, and each has the fingerprint that seal found for it
   (``made_at_fingerprint``; ``fingerprint_then`` in a first seal, where the two are one);
2. the same code, fingerprinted as today's code is (today's ``gendel/fingerprint.py`` put in place of
   its own), has today's fingerprint;
3. each file passes today's schema (all of them are checked before any is written).

Then each file gets today's fingerprint, a record ``sealed`` (the command, the time, the commits
and their fingerprint under the scheme of their day, the fingerprint the file had, what was
checked, and the seal before it, if any) and its checksum; its numbers are not touched, and its
arrays file is left as it is. A file of format version 1 (the stored gpu results: no fingerprint at
all) gets its checksum and the record, and keeps no fingerprint: the book says it was made by
earlier code. Anything else is refused, with what to do. ``grid="baselines"`` seals the baselines
grid's files again (they carried a checksum from the start), with its fingerprint
(:func:`gendel.gan.baseline_results.baseline_fingerprint`).
"""

from __future__ import annotations

import datetime
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

#: What prints a grid's fingerprint, for each grid.
_PRINT_FINGERPRINT = {
    "paper": "from gendel.gan.run import code_fingerprint; print(code_fingerprint())",
    "baselines": "from gendel.gan.baseline_results import baseline_fingerprint; print(baseline_fingerprint())",
}


def _fingerprint_of(tree, grid="paper"):
    """The fingerprint of ``grid`` of the gendel under ``tree``, in a fresh process."""
    out = subprocess.run([sys.executable, "-c", _PRINT_FINGERPRINT[grid]], cwd=tree, capture_output=True, text=True,
                         env={"PYTHONPATH": str(tree), "PATH": "/usr/bin:/bin", "OMP_WAIT_POLICY": "PASSIVE"})
    if out.returncode != 0:
        raise RuntimeError(f"cannot fingerprint the code at {tree}: {out.stderr.strip().splitlines()[-1:]}")
    return out.stdout.strip().splitlines()[-1]


def fingerprints_at(commit, repository, grid="paper"):
    """``(then, today's scheme)``: the fingerprint of ``grid`` (``"paper"`` or ``"baselines"``) of
    ``commit`` of ``repository`` as its own ``gendel/fingerprint.py`` computes it, and as today's
    computes it.

    Examples
    --------
    >>> fingerprints_at("HEAD", ".")        # needs git and a checkout # doctest: +SKIP
    ('ce1077ace3c5d82e', 'ce1077ace3c5d82e')
    """
    with tempfile.TemporaryDirectory() as tmp:
        archive = subprocess.run(["git", "-C", str(repository), "archive", "--format=tar", commit, "gendel"],
                                 capture_output=True)
        if archive.returncode != 0:
            raise ValueError(f"git cannot export commit {commit!r} of {repository}: "
                             f"{archive.stderr.decode().strip()}; give --made-at a commit of this repository")
        subprocess.run(["tar", "-x", "-C", tmp], input=archive.stdout, check=True)
        then = _fingerprint_of(tmp, grid)
        shutil.copy(Path(__file__).parents[1] / "fingerprint.py", Path(tmp) / "gendel" / "fingerprint.py")
        return then, _fingerprint_of(tmp, grid)


def seal(folder, *, made_at, repository=None, command=None, progress=print, grid="paper"):
    """Seal the result files in ``folder`` made by the code of commit ``made_at`` (a commit, or a
    list of commits that all made them: see the module text); files with a checksum and today's
    fingerprint are left alone. Returns the names of the files sealed.

    Examples
    --------
    >>> seal("gendel/gan/results/quick", made_at="d3b2ce1")     # needs git and a checkout # doctest: +SKIP
    """
    from gendel.gan.result_files import read_arrays, read_record, write_record
    from gendel.gan.schema import checksum_problem

    if grid not in _PRINT_FINGERPRINT:
        raise ValueError(f"grid must be one of {sorted(_PRINT_FINGERPRINT)}; got {grid!r}")
    commits = [made_at] if isinstance(made_at, str) else list(made_at)
    if not commits:
        raise ValueError("give the commit (or commits) whose code made the results: --made-at COMMIT ...")
    folder = Path(folder)
    repository = Path(repository) if repository else Path(__file__).parents[2]
    today = _today(grid)
    pending = []
    for path in sorted(folder.glob("*.json")):
        where = f"the result file {path}"
        record, arrays = read_record(path, where), read_arrays(path, where)
        if "checksum" in record:
            problem = checksum_problem(record, arrays)
            if problem is not None:
                raise ValueError(f"{where}: {problem}; it cannot be sealed again: make it again")
            if record.get("version") == 1 or record.get("provenance", {}).get("fingerprint") == today:
                continue
        pending.append((path, record, arrays))
    if not pending:
        progress(f"every result file in {folder} is sealed already")
        return []
    for path, record, arrays in pending:  # every file checked before any is written
        _valid(record, arrays, path, grid)
    fingerprinted = [r for _, r, _ in pending if r.get("version") != 1]
    checked, found = None, {}
    if fingerprinted:
        groups = {(r["provenance"].get("fingerprint"), _makers(r["provenance"].get("sealed"))) for r in fingerprinted}
        if len(groups) != 1:
            raise ValueError(f"the files in {folder} record different fingerprints or seals "
                             f"({sorted(map(str, groups))}): made by different code, they cannot be sealed together; "
                             "seal them folder by folder, or make them again")
        ((recorded, makers),) = groups
        previous = fingerprinted[0]["provenance"].get("sealed")
        full = {c: _full_commit(c, repository) for c in commits}
        if previous is not None:
            named = {_full_commit(c, repository) for c in makers[0]}
            if set(full.values()) != named:
                raise ValueError(f"their seal names the commits {', '.join(makers[0])}: give exactly those with "
                                 f"--made-at (given: {', '.join(commits)})")
        for commit in commits:
            then, now = fingerprints_at(commit, repository, grid)
            expected = recorded if previous is None else makers[1]
            if then != expected:
                raise ValueError(f"commit {commit} has fingerprint {then} under the scheme of its day, "
                                 + (f"the files record {recorded}: they were not made by that commit's code; give "
                                    "the commit that made them, or make them again" if previous is None else
                                    f"their seal found {expected} for it: the commit's code is not what it was; make "
                                    "them again"))
            if now != today:
                raise ValueError(f"the code of commit {commit} computes other numbers than today's (fingerprint {now} "
                                 f"under today's scheme, today's code {today}): make the results again with today's "
                                 "code")
            found[commit] = then
        which = f"commit {commits[0]}" if len(commits) == 1 else f"each of the {len(commits)} commits {', '.join(commits)}"
        if previous is None:
            checked = (f"the code of {which} has the fingerprint these results record ({recorded}) under the "
                       f"fingerprint of its day, and today's fingerprint ({today}) under today's")
        else:
            checked = (f"the code of {which}, named by their seal of {previous.get('created')}, has the fingerprint "
                       f"that seal found for it ({makers[1]}) under the fingerprint of its day, and today's "
                       f"fingerprint ({today}) under today's; they recorded {recorded}, the fingerprint of that seal")
        progress(checked)
    created = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
    sealed = []
    for path, record, arrays in pending:
        entry = {"command": command or "gendel.gan.seal.seal", "created": created,
                 "made_at": commits[0] if len(commits) == 1 else commits}
        if record.get("version") == 1:
            record["sealed"] = entry | {"checked": "format version 1 records no fingerprint: its checksum only"}
        else:
            (made_at_fingerprint,) = set(found.values())
            entry |= {"made_at_fingerprint": made_at_fingerprint, "fingerprint_then": record["provenance"]["fingerprint"],
                      "checked": checked}
            if record["provenance"].get("sealed"):
                entry["before"] = record["provenance"]["sealed"]
            record["provenance"]["fingerprint"] = today
            record["provenance"]["sealed"] = entry
        write_record(record, arrays, path, arrays_written=True)
        sealed.append(path.stem)
        progress(f"sealed {path.name}")
    return sealed


def seal_count(sealed):
    """How many times a result was sealed: ``sealed`` is its seal record (``provenance["sealed"]``,
    or None for a result never sealed), and each seal keeps the one before it (``before``).

    Examples
    --------
    >>> seal_count(None), seal_count({"made_at": "d3b2ce1"}), seal_count({"made_at": "x", "before": {"made_at": "y"}})
    (0, 1, 2)
    """
    return 0 if not sealed else 1 + seal_count(sealed.get("before"))


def _makers(sealed):
    """``(commits, their fingerprint under the scheme of their day)`` that a seal record names, or None."""
    if not sealed:
        return None
    commits = sealed.get("made_at")
    commits = (commits,) if isinstance(commits, str) else tuple(commits or ())
    return commits, sealed.get("made_at_fingerprint", sealed.get("fingerprint_then"))


def _full_commit(commit, repository):
    """The full hash of ``commit`` in ``repository`` (so that two spellings of one commit are one)."""
    out = subprocess.run(["git", "-C", str(repository), "rev-parse", "--verify", "--quiet", f"{commit}^{{commit}}"],
                         capture_output=True, text=True)
    if out.returncode != 0:
        raise ValueError(f"{commit!r} is not a commit of {repository}: give --made-at a commit of this repository")
    return out.stdout.strip()


def _today(grid):
    if grid == "baselines":
        from gendel.gan.baseline_results import baseline_fingerprint

        return baseline_fingerprint()
    from gendel.gan.run import code_fingerprint

    return code_fingerprint()


def _json_key(value):
    import json

    return json.dumps(value, sort_keys=True)


def _valid(record, arrays, path, grid):
    """Raise ``DamagedResult`` unless ``record`` passes today's schema of its grid."""
    from gendel.gan.result_files import DamagedResult, JobResult
    from gendel.gan.schema import validate

    if grid == "baselines":
        from gendel.gan.baseline_results import load_baseline_result

        load_baseline_result(path)  # the file as it is on disk: its checksum and its content
        return
    result = JobResult.from_dict(record, arrays, where=str(path))
    try:
        validate(record if result.version != 1 else result.to_dict())
    except ValueError as exc:
        raise DamagedResult(f"{path} breaks the result schema ({exc}): it cannot be sealed; make it again") from None
