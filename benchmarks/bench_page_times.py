"""How long each page of the book takes to run top to bottom, as a student would run it.

Usage (from the repository root)::

    .venv/bin/python benchmarks/bench_page_times.py               # every page with code, see below
    .venv/bin/python benchmarks/bench_page_times.py synthetic     # pages whose path contains "synthetic"
    .venv/bin/python benchmarks/bench_page_times.py --out /tmp/t.json theory

    # on a busy machine, the GAN pages and the rest side by side, then one table:
    .venv/bin/python benchmarks/bench_page_times.py --only-gan --out /tmp/gan.json &
    .venv/bin/python benchmarks/bench_page_times.py --no-gan --out /tmp/rest.json
    .venv/bin/python benchmarks/bench_page_times.py --merge /tmp/gan.json /tmp/rest.json

Each page's paired ``.ipynb`` (the file a student opens in Colab) runs in a fresh kernel, in the
page's folder, as a live run (not the book build: ``GENDEL_BOOK_BUILD`` is unset, so
``%%build_only`` cells are skipped as they are in Colab). Each page gets its own empty
``GENDEL_CACHE_DIR``: a student starts with no cache. The GAN pages (``GAN_PAGES``) read the GAN
results stored with gendel, which need no cache; the chapter's first page also trains the tiny
profile.

It prints a table and writes it, with the date, the machine and the load average before and after
each page, to ``book/course/page_times.json`` (``--out`` to choose), after every page, so an
interrupted run keeps what it measured. Pages that fail are recorded with the error's last line.
The slowest cell of each page is recorded by its first line of code (``slowest_cell``) and the
title of the section of the page's ``.md`` that holds it (``slowest_cell_section``; sections joined
by "; " where several cells start alike): the teacher page finds the cell in today's page by the
first line, and ``tests/test_page_times.py`` fails when a page no longer has it.
Runs side by side slow each other down: the load average recorded with each page says how busy
the machine was.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import shutil
import sys
import tempfile
import time
from pathlib import Path

import nbclient
import nbformat

from gendel.book.cells import find_cells, first_code_line

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "book" / "course" / "page_times.json"
CPU_TAG = "GENDEL_BENCH_CPU_SECONDS"
# Pages that read the GAN results stored with gendel (gendel.gan.result_files.stored_results); the chapter's
# first page also trains the tiny profile.
# Pages whose run time benchmarks/bench_course_times.py measures (cold and warm): one figure per task.
COURSE_PAGES = ["book/course/gan_lab"]
GAN_PAGES = ["book/gan/index", "book/gan/vdm", "book/gan/q2_fast_deletion", "book/gan/q3_deletion_test",
             "book/deletion_test/gan", "book/building"]


def _notes():
    """Why a page takes long, for the pages that do (found by reading the slowest cell of each)."""
    from gendel.synthetic import experiments as grids
    from gendel.synthetic.sampling import PAPER

    cells = len(grids.LAMBDAS) * len(grids.SIGMA_C) + len(grids.KNN_LAMBDAS) * len(grids.KNN_K)
    sweeps = (f"computes the §5.1 sweeps: {cells} settings per data set (KBC: {len(grids.LAMBDAS)} λ × "
              f"{len(grids.SIGMA_C)} σ_C; kNN: {len(grids.KNN_LAMBDAS)} λ × {len(grids.KNN_K)} k) for MoG-8 and "
              f"CKB-8, R = {PAPER.R} repeats each")
    shared = "; the Q1, Q2 and Q3 pages share them through the cache, so in one runtime only the first computes them"
    return {
        "book/synthetic/q1_approximation": sweeps + ", and the Appendix D variations of m, N and R" + shared,
        "book/synthetic/q2_fast_deletion": sweeps + ", and the Appendix D variations" + shared,
        "book/synthetic/q3_deletion_test": sweeps + ", and the Appendix D variations" + shared,
        "book/theory/errata": sweeps + ", to check the paper's statements against them",
        "book/gan/index": "reads the stored GAN results and trains the tiny profile (a smoke test of the "
                          "pipeline: DCGANs, VDM and a label classifier at the smallest size)",
    }


NOTES = _notes()

# the pages of _toc.yml in reading order: the same walk as the book-pages benchmark
from bench_book_pages import toc_pages  # noqa: E402  (benchmarks/ is on sys.path when run as a script)


def machine():
    model = next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                  if line.startswith("model name")), platform.processor()) if Path("/proc/cpuinfo").exists() \
        else platform.processor()
    try:
        import torch
        torch_version = torch.__version__
    except ImportError:
        torch_version = None
    return {"cpu": model, "cores": os.cpu_count(), "system": f"{platform.system()} {platform.machine()}",
            "python": platform.python_version(), "torch": torch_version}


def cell_seconds(cell):
    """Wall time of one executed cell from nbclient's timing metadata, or None."""
    timing = cell.get("metadata", {}).get("execution", {})
    start, end = timing.get("iopub.execute_input"), timing.get("shell.execute_reply")
    if not (start and end):
        return None
    parse = lambda s: datetime.datetime.fromisoformat(s.replace("Z", "+00:00"))  # noqa: E731
    return (parse(end) - parse(start)).total_seconds()


def run_page(page, cache_dir, timeout):
    path = ROOT / f"{page}.ipynb"
    if not path.exists():
        raise FileNotFoundError(f"{path} is missing: make it with `.venv/bin/python -m gendel.book.colab {page}.md`")
    nb = nbformat.read(path, as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code"]
    # A last cell reports the kernel's CPU time (all its threads, and children it waited for): on a
    # busy machine wall time grows with the load, CPU time much less.
    nb.cells.append(nbformat.v4.new_code_cell(
        "import os as _os\n_t = _os.times()\n"
        f"print('{CPU_TAG}', _t.user + _t.system + _t.children_user + _t.children_system)"))
    os.environ["GENDEL_CACHE_DIR"] = str(cache_dir)
    load_before = os.getloadavg()
    start = time.perf_counter()
    error = None
    try:
        nbclient.NotebookClient(nb, timeout=timeout, kernel_name="python3", record_timing=True,
                                resources={"metadata": {"path": str(path.parent)}}).execute()
    except Exception as err:  # a failing page is recorded, not fatal
        error = (str(err).strip().splitlines() or [type(err).__name__])[-1][:300]
    seconds = time.perf_counter() - start
    cpu = None
    for out in nb.cells[-1].get("outputs", []):
        if out.get("name") == "stdout" and CPU_TAG in out.get("text", ""):
            cpu = float(out["text"].split(CPU_TAG)[1].split()[0])
    if cpu is not None:  # leave the CPU-time cell out of the per-cell timings
        cell_times = cell_seconds(nb.cells[-1])
        seconds -= cell_times or 0.0
    timed = [(cell_seconds(c), c.source) for c in code]
    timed = [(s, src) for s, src in timed if s is not None]
    slowest = max(timed, key=lambda t: t[0]) if timed else (None, "")
    # the section of the page's .md that holds the slowest cell, for the teacher page to name it by
    places = find_cells(ROOT / f"{page}.md", first_code_line(slowest[1])) if timed else []
    return {"page": page, "seconds": round(seconds, 1), "cpu_seconds": None if cpu is None else round(cpu, 1),
            "code_cells": len(code),
            "slowest_cell_seconds": None if slowest[0] is None else round(slowest[0], 1),
            "slowest_cell": first_code_line(slowest[1]),
            "slowest_cell_section": "; ".join(place.section for place in places) or None,
            "load_before": [round(x, 2) for x in load_before], "load_after": [round(x, 2) for x in os.getloadavg()],
            "error": error}


def merge(files, out, pages):
    """Merge the records of several runs into one file: pages in reading order, the earliest date,
    and each page's notes refreshed from NOTES. Two runs that measured the same page are refused."""
    records = [json.loads(Path(f).read_text()) for f in files]
    rows = [row for rec in records for row in rec["pages"]]
    seen = [row["page"] for row in rows]
    twice = sorted({p for p in seen if seen.count(p) > 1})
    if twice:
        sys.exit(f"{twice} measured in more than one of {[str(f) for f in files]}: merge runs of different pages")
    for row in rows:
        row["note"] = NOTES.get(row["page"], "")
    machines = {json.dumps(rec["machine"], sort_keys=True) for rec in records}
    if len(machines) > 1:
        sys.exit(f"the runs come from different machines ({sorted(machines)}): merge runs of one machine only")
    merged = {"date": min(rec["date"] for rec in records), "machine": records[0]["machine"],
              "runs": len(records), "load_start": max(rec["load_start"] for rec in records),
              "load_end": max(rec.get("load_end", rec["load_start"]) for rec in records),
              "pages": sorted(rows, key=lambda r: pages.index(r["page"]) if r["page"] in pages else len(pages))}
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(merged, indent=1) + "\n")
    print(f"{len(rows)} pages from {len(files)} runs written to {out}")
    return 0


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("pattern", nargs="?", default="", help="only pages whose path contains this")
    parser.add_argument("--out", type=Path, default=OUT, help=f"JSON file to write (default {OUT.relative_to(ROOT)})")
    parser.add_argument("--timeout", type=int, default=3600, help="seconds allowed per cell (default 3600)")
    parser.add_argument("--no-gan", action="store_true", help="leave out the GAN pages (GAN_PAGES)")
    parser.add_argument("--only-gan", action="store_true", help="run the GAN pages only")
    parser.add_argument("--merge", type=Path, nargs="+", metavar="JSON",
                        help="run nothing: merge these files of earlier runs (for example a --only-gan and a "
                             "--no-gan run made side by side) into --out, and refresh the notes from NOTES")
    args = parser.parse_args(argv)

    pages = toc_pages()
    if args.merge:
        return merge(args.merge, args.out, pages)
    unknown = [p for p in GAN_PAGES if p not in pages]
    if unknown:
        sys.exit(f"GAN_PAGES names pages that are not in _toc.yml: {unknown}; update GAN_PAGES in {__file__}")
    if args.no_gan and args.only_gan:
        sys.exit("--no-gan and --only-gan exclude each other; give one of them, or neither for every page")
    # GAN pages first (the long training starts at once), then the rest in reading order.
    order = ([] if args.no_gan else [p for p in GAN_PAGES if args.pattern in p]) + \
        ([] if args.only_gan else [p for p in pages if p not in GAN_PAGES and args.pattern in p])
    os.environ.pop("GENDEL_BOOK_BUILD", None)  # a live run, as in Colab
    record = {"date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
              "machine": machine(), "load_start": [round(x, 2) for x in os.getloadavg()], "pages": []}
    print(f"{record['machine']}, load average {record['load_start']}")
    print(f"{'seconds':>8}  {'CPU s':>8}  {'slowest cell':>12}  {'load 1 min':>10}  page")
    for page in order:
        if page in COURSE_PAGES:
            print(f"{page}: measured by benchmarks/bench_course_times.py")
            continue
        nb = nbformat.read(ROOT / f"{page}.ipynb", as_version=4) if (ROOT / f"{page}.ipynb").exists() else None
        if nb is not None and not any(c.cell_type == "code" and c.source.strip() for c in nb.cells):
            continue
        cache, cache_note = Path(tempfile.mkdtemp(prefix="gendel-bench-")), "empty cache"
        if page in GAN_PAGES:
            cache_note += "; reads the stored GAN results"
        try:
            row = run_page(page, cache, args.timeout)
        except FileNotFoundError as err:
            print(err)
            continue
        finally:
            shutil.rmtree(cache, ignore_errors=True)
        row["cache"] = cache_note
        row["note"] = NOTES.get(page, "")
        record["pages"].append(row)
        record["pages"].sort(key=lambda r: pages.index(r["page"]))
        record["load_end"] = [round(x, 2) for x in os.getloadavg()]
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(record, indent=1) + "\n")
        flag = f"  FAILED: {row['error']}" if row["error"] else ""
        print(f"{row['seconds']:8.1f}  {row['cpu_seconds'] or 0:8.1f}  {row['slowest_cell_seconds'] or 0:12.1f}  "
              f"{row['load_before'][0]:10.2f}  {page}{flag}", flush=True)
    total = sum(r["seconds"] for r in record["pages"])
    print(f"{total:8.1f}  total, load average at the end {record.get('load_end')}")


if __name__ == "__main__":
    main()
