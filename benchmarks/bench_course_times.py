"""How long the course's own tasks take, as a student meets them: the figures the teacher page quotes.

Usage (from the repository root)::

    .venv/bin/python benchmarks/bench_course_times.py              # every task, into book/course/course_times.json
    .venv/bin/python benchmarks/bench_course_times.py gan_lab      # one task; the others' figures are kept

Tasks (each in a fresh process or kernel, with an empty ``GENDEL_CACHE_DIR``, as a student starts):

- ``tiny_job``: one job of the tiny profile, ``run_job(find_job("tiny", "mnist-odd-0.7-seed0"))``,
  trained from nothing (what the teacher page's "train a job of your own" cell runs);
- ``gan_lab_cold``: the GAN lab (``book/course/gan_lab.ipynb``, the solutions filled in) run top to
  bottom in a fresh kernel: its first cell trains the lab's models;
- ``gan_lab_warm``: the same again in a fresh kernel, the models now in the checkpoint cache (what
  the session costs when the training cell ran while the teacher talked);
- ``gan_lab_training_60k``: the GAN lab's training cell alone (``train(lab_job(...))``), in a fresh
  process with an empty cache, on a training split of 60,000 images, the size of MNIST's: where
  torchvision or the IDX files give the whole split, the label classifier trains on all of it. The
  60,000 images are a same-size stand-in, the training digits of the data folder's MNIST repeated
  (a training run's time depends on the number of images and epochs, not on what they show); it
  says nothing about the classifier's accuracy on the real split.

Each task records its wall time, the CPU time of its process (all threads) and the load average
before and after; the file records the machine (processor, cores, Python, torch), one for all its
tasks: a run of some tasks on another machine than the kept ones' is refused. The page times of the book (``bench_page_times.py``,
``page_times.json``) are measured there, not here: one figure per task, one benchmark per figure.
``OMP_WAIT_POLICY=PASSIVE`` is set for every task, as gendel sets it for its users.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "book" / "course" / "course_times.json"
TINY_JOB = ("tiny", "mnist-odd-0.7-seed0")
TASKS = ("tiny_job", "gan_lab_cold", "gan_lab_warm", "gan_lab_training_60k")
FULL_SPLIT = 60_000

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_page_times import machine, run_page  # noqa: E402  (benchmarks/ is on sys.path)


def _load():
    return [round(x, 2) for x in os.getloadavg()]


def _timed(code, env):
    """Run ``code`` in a fresh Python process with ``env`` added: (wall seconds, CPU seconds, error)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), **env}
    before = os.times()
    start = time.perf_counter()
    result = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    wall = time.perf_counter() - start
    after = os.times()
    cpu = (after.children_user - before.children_user) + (after.children_system - before.children_system)
    error = None if result.returncode == 0 else (result.stderr.strip().splitlines() or ["failed"])[-1][:300]
    return wall, cpu, error


def tiny_job(cache):
    """One tiny job from nothing, in a fresh process: (wall seconds, CPU seconds, error)."""
    code = ("import tempfile\nfrom gendel.gan.profiles import find_job\nfrom gendel.gan.run import run_job\n"
            f"run_job(find_job{TINY_JOB!r}, results_dir=tempfile.mkdtemp(), progress=False)\n")
    return _timed(code, {"GENDEL_CACHE_DIR": str(cache)})


def training_60k(cache):
    """The GAN lab's training cell on a 60,000-image stand-in of MNIST's training split, in a fresh
    process: (wall seconds, CPU seconds, error)."""
    from gendel.gan.images import FILES, data_root, load_images, write_idx

    data = Path(tempfile.mkdtemp(prefix="gendel-course-60k-"))
    try:
        folder = data / "mnist"
        folder.mkdir()
        for split, n in (("train", FULL_SPLIT), ("test", None)):
            images, labels = load_images("mnist", split=split, root=data_root())
            take = np.resize(np.arange(len(labels)), n) if n else np.arange(len(labels))  # repeated to n
            pixels = np.rint((images[take, 0] + 1) * 127.5).astype(np.uint8)
            write_idx(folder / FILES[split][0], pixels)
            write_idx(folder / FILES[split][1], labels[take].astype(np.uint8))
        code = ("from gendel.book.gan_lab_checks import lab_job\nfrom gendel.gan.experiment import train\n"
                "models = train(lab_job(setting='odd', lam=0.7, seed=0), progress=False)\n"
                "assert len(models.test_X) > 0\n")
        return _timed(code, {"GENDEL_CACHE_DIR": str(cache), "GENDEL_DATA_DIR": str(data)})
    finally:
        shutil.rmtree(data, ignore_errors=True)


def measure(task, shared):
    load_before = _load()
    if task in ("tiny_job", "gan_lab_training_60k"):
        cache = Path(tempfile.mkdtemp(prefix="gendel-course-"))
        try:
            wall, cpu, error = (tiny_job if task == "tiny_job" else training_60k)(cache)
        finally:
            shutil.rmtree(cache, ignore_errors=True)
    else:  # the GAN lab, cold then warm in one cache folder
        row = run_page("book/course/gan_lab", shared, timeout=3600)
        wall, cpu, error = row["seconds"], row["cpu_seconds"], row["error"]
    out = {"task": task, "seconds": round(wall, 1), "cpu_seconds": None if cpu is None else round(cpu, 1),
           "load_before": load_before, "load_after": _load(), "error": error}
    if task == "gan_lab_cold" and row["slowest_cell"] == _training_cell():  # the cell that trains the models
        out["training_cell_seconds"] = row["slowest_cell_seconds"]
    return out


def _training_cell():
    """The first line of code of the GAN lab's cell that trains the models (``train(job)``)."""
    import jupytext

    from gendel.book.cells import first_code_line

    page = jupytext.read(ROOT / "book/course/gan_lab.md")
    return next(first_code_line(c.source) for c in page.cells if c.cell_type == "code" and "= train(job)" in c.source)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("tasks", nargs="*", help=f"tasks to measure, among {TASKS} and gan_lab (both of its); default all")
    parser.add_argument("--out", type=Path, default=OUT, help=f"JSON file (default {OUT.relative_to(ROOT)})")
    args = parser.parse_args(argv)
    unknown = [t for t in args.tasks if t not in (*TASKS, "gan_lab")]
    if unknown:
        sys.exit(f"unknown tasks {unknown}: choose among {TASKS} and gan_lab")
    wanted = [t for t in TASKS if not args.tasks or t in args.tasks
              or (t in ("gan_lab_cold", "gan_lab_warm") and "gan_lab" in args.tasks)]
    if "gan_lab_warm" in wanted and "gan_lab_cold" not in wanted:
        sys.exit("gan_lab_warm needs gan_lab_cold before it (the warm run reads the cold run's checkpoints)")
    os.environ.pop("GENDEL_BOOK_BUILD", None)  # a live run, as a student's
    os.environ["OMP_WAIT_POLICY"] = "PASSIVE"
    os.environ["TQDM_DISABLE"] = "1"
    record = json.loads(args.out.read_text()) if args.out.exists() else {"tasks": {}}
    here = machine()
    kept = sorted(set(record["tasks"]) - set(wanted))
    if kept and record.get("machine", here) != here:
        sys.exit(f"{args.out.name} keeps {kept} measured on another machine ({record['machine']}): run every task "
                 "here (no task names) so that the file names the machine of each figure")
    record["machine"] = here
    shared = Path(tempfile.mkdtemp(prefix="gendel-course-lab-"))
    try:
        for task in wanted:
            row = measure(task, shared)
            row["date"] = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
            record["tasks"][task] = row
            args.out.write_text(json.dumps(record, indent=1) + "\n")
            flag = f"  FAILED: {row['error']}" if row["error"] else ""
            print(f"{row['seconds']:8.1f} s wall  {row['cpu_seconds'] or 0:8.1f} s CPU  load {row['load_before'][0]:.2f}"
                  f" → {row['load_after'][0]:.2f}  {task}{flag}", flush=True)
    finally:
        shutil.rmtree(shared, ignore_errors=True)


if __name__ == "__main__":
    main()
