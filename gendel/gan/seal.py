"""Sealing result files made before results carried a checksum: ``python -m gendel.gan seal``.

A result file is read only with a checksum of its content (:mod:`gendel.gan.schema`). Result
files written before that (and before :func:`gendel.gan.run.code_fingerprint` followed the input
checks of ``gendel._validation``) can be *sealed* instead of made again, but only when it is shown
that the code that made them computes what today's code computes:

1. the code of the commit that made them (``--made-at``, exported from the repository with
   ``git archive``) has the fingerprint the files record, under the fingerprint of its day;
2. the same code, fingerprinted as today's code is (today's ``gendel/fingerprint.py`` put in
   place of its own), has today's fingerprint;
3. each file passes today's schema.

Then each file gets today's fingerprint, a record ``sealed`` (the command, the time, the commit,
the fingerprint it had, what was checked) and its checksum; its numbers are not touched, and its
arrays file is left as it is. A file of format version 1 (the stored gpu results: no fingerprint
at all) gets its checksum and the record, and keeps no fingerprint: the book says it was made by
earlier code. Anything else is refused, with the command that makes the results again.
"""

from __future__ import annotations

import datetime
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

_PRINT_FINGERPRINT = "from gendel.gan.run import code_fingerprint; print(code_fingerprint())"


def _fingerprint_of(tree):
    """``code_fingerprint()`` of the gendel under ``tree``, in a fresh process."""
    out = subprocess.run([sys.executable, "-c", _PRINT_FINGERPRINT], cwd=tree, capture_output=True, text=True,
                         env={"PYTHONPATH": str(tree), "PATH": "/usr/bin:/bin", "OMP_WAIT_POLICY": "PASSIVE"})
    if out.returncode != 0:
        raise RuntimeError(f"cannot fingerprint the code at {tree}: {out.stderr.strip().splitlines()[-1:]}")
    return out.stdout.strip().splitlines()[-1]


def fingerprints_at(commit, repository):
    """``(then, today's scheme)``: the code fingerprint of ``commit`` of ``repository`` as its own
    ``gendel/fingerprint.py`` computes it, and as today's computes it.

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
        then = _fingerprint_of(tmp)
        shutil.copy(Path(__file__).parents[1] / "fingerprint.py", Path(tmp) / "gendel" / "fingerprint.py")
        return then, _fingerprint_of(tmp)


def seal(folder, *, made_at, repository=None, command=None, progress=print):
    """Seal the result files in ``folder`` made by the code of commit ``made_at`` (see the module
    text); files already sealed are left alone. Returns the names of the files sealed.

    Examples
    --------
    >>> seal("gendel/gan/results/quick", made_at="d3b2ce1")     # needs git and a checkout # doctest: +SKIP
    """
    from gendel.gan.result_files import DamagedResult, JobResult, read_arrays, read_record, write_record
    from gendel.gan.run import code_fingerprint
    from gendel.gan.schema import checksum_problem, validate

    folder = Path(folder)
    repository = Path(repository) if repository else Path(__file__).parents[2]
    today = code_fingerprint()
    pending = []
    for path in sorted(folder.glob("*.json")):
        where = f"the result file {path}"
        record, arrays = read_record(path, where), read_arrays(path, where)
        if "checksum" in record:
            problem = checksum_problem(record, arrays)
            if problem is not None:
                raise ValueError(f"{where}: {problem}; it cannot be sealed again: make it again")
            continue
        pending.append((path, record, arrays))
    if not pending:
        progress(f"every result file in {folder} is sealed already")
        return []
    recorded = {r.get("provenance", {}).get("fingerprint") for _, r, _ in pending if r.get("version") != 1}
    checked = None
    if recorded:
        if len(recorded) != 1:
            raise ValueError(f"the files in {folder} record fingerprints {sorted(map(str, recorded))}: made by different "
                             "code, they cannot be sealed together; make them again")
        (recorded,) = recorded
        then, now = fingerprints_at(made_at, repository)
        if then != recorded:
            raise ValueError(f"commit {made_at} has fingerprint {then}, the files record {recorded}: they were not made "
                             "by that commit's code; give the commit that made them, or make them again")
        if now != today:
            raise ValueError(f"the code of commit {made_at} computes other numbers than today's (fingerprint {now} under "
                             f"today's scheme, today's code {today}): make the results again with today's code")
        checked = (f"the code of commit {made_at} has the fingerprint these results record ({recorded}) under the "
                   f"fingerprint of its day, and today's fingerprint ({today}) under today's")
        progress(checked)
    created = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
    sealed = []
    for path, record, arrays in pending:
        result = JobResult.from_dict(record, arrays, where=str(path))
        try:
            validate(record if result.version != 1 else result.to_dict())
        except ValueError as exc:
            raise DamagedResult(f"{path} breaks the result schema ({exc}): it cannot be sealed; make it again") \
                from None
        entry = {"command": command or "gendel.gan.seal.seal", "created": created, "made_at": made_at}
        if record.get("version") == 1:
            record["sealed"] = entry | {"checked": "format version 1 records no fingerprint: its checksum only"}
        else:
            entry |= {"fingerprint_then": record["provenance"]["fingerprint"], "checked": checked}
            record["provenance"]["fingerprint"] = today
            record["provenance"]["sealed"] = entry
        write_record(record, arrays, path, arrays_written=True)
        sealed.append(path.stem)
        progress(f"sealed {path.name}")
    return sealed

