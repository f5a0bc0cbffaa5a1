"""The times the teacher page quotes: one figure per task, from one benchmark, read from its JSON.

- ``book/course/course_times.json`` (written by ``benchmarks/bench_course_times.py``) holds every
  course task with its wall and CPU time, the load it was measured under, its date and the machine;
- the teacher page glues each task's figure from that file and types no duration of its own;
- the GAN lab's time has one source: the page-times benchmark leaves it to the course benchmark.
"""

from __future__ import annotations

import json
import re
import sys

import jupytext

from conftest import REPO

TEACHER = REPO / "book/course/teacher.md"
TIMES = REPO / "book/course/course_times.json"
sys.path.insert(0, str(REPO / "benchmarks"))


def _markdown(page):
    return "\n".join(c.source for c in jupytext.read(page).cells if c.cell_type == "markdown")


def test_every_course_task_is_measured_with_its_machine_and_load():
    import bench_course_times

    record = json.loads(TIMES.read_text())
    assert set(record["tasks"]) == set(bench_course_times.TASKS)
    assert {"cpu", "cores", "torch"} <= set(record["machine"])
    for name, task in record["tasks"].items():
        assert task["error"] is None, f"{name} failed when measured: {task['error']}"
        assert task["seconds"] > 0 and task["cpu_seconds"] > 0, name
        assert len(task["load_before"]) == 3 and len(task["load_after"]) == 3 and task["date"], name


def test_the_teacher_page_glues_every_task_and_types_no_duration():
    import bench_course_times

    source = TEACHER.read_text()
    text = _markdown(TEACHER)
    for task in bench_course_times.TASKS:
        assert f"t_{task}" in source, f"the teacher page does not quote the measured time of {task}"
    assert "course_times.json" in source
    typed = re.findall(r"\b\d+(?:\.\d+)? ?(?:s|sec|seconds)\b|a few seconds|seconds per job", text)
    assert not typed, f"durations typed into the teacher page instead of glued from a benchmark: {typed}"


def test_the_gan_lab_has_one_time_source():
    import bench_course_times
    import bench_page_times

    assert "book/course/gan_lab" in bench_page_times.COURSE_PAGES
    assert bench_course_times._training_cell() == "import numpy as np"


def test_the_teacher_pages_show_commands_not_the_repository_layout():
    for page in ("teacher", "key", "gan_lab", "lab", "notebooks"):
        text = _markdown(REPO / f"book/course/{page}.md")
        assert not re.findall(r"\btests/|\btest_\w+\.py", text), f"{page} names test files"
        for mention in re.finditer(r"benchmarks/\w+\.py", text):
            assert text[max(0, mention.start() - 7):mention.start()] == "python ", \
                f"{page}: {mention.group(0)} named without the command that runs it"
