"""The times the teacher page quotes: one figure per task, from one benchmark, read from its JSON.

- ``book/course/course_times.json`` (written by ``benchmarks/bench_course_times.py``) holds every
  course task with its wall and CPU time, the load it was measured under, its date and the machine;
- the teacher page glues each task's figure from that file and types no duration of its own;
- the GAN lab's time has one source: the page-times benchmark leaves it to the course benchmark.
"""

from __future__ import annotations

import json
import os
import re
import sys

import jupytext
import pytest

from conftest import REPO
from gendel.book import run_times

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


# --- which machine and load each figure was measured on -------------------------------------------------


def _figure(seconds, cpu, load_before, load_after, error=None, **extra):
    return {"seconds": seconds, "cpu_seconds": cpu, "load_before": [load_before, 1.0, 1.0],
            "load_after": [load_after, 1.0, 1.0], "error": error, **extra}


QUIET = {"cpu": "AMD EPYC", "cores": 2, "system": "Linux x86_64", "python": "3.11.7", "torch": "2.13.0+cpu"}
BUSY = {**QUIET, "cpu": "Intel(R) Xeon(R) Processor"}


def _records(page_machine=QUIET, course_machine=BUSY, runs=1):
    pages = {"date": "2026-11-28 06:57 UTC", "machine": page_machine, "runs": runs,
             "pages": [{"page": "book/a", **_figure(80.0, 95.0, 1.2, 1.3)},
                       {"page": "book/b", **_figure(20.0, 18.0, 1.3, 1.5)}]}
    course = {"machine": course_machine,
              "tasks": {"tiny_job": _figure(58.4, 21.4, 6.46, 5.44, date="2026-11-28 13:04 UTC"),
                        "gan_lab_cold": _figure(437.9, 137.8, 5.44, 9.3, date="2026-11-28 13:11 UTC")}}
    return pages, course


def test_every_figure_names_its_own_machine_and_load():
    measured = run_times.measurements(*_records())
    pages, tasks = measured["pages"], measured["course"]
    assert (pages.label, tasks.label) == ("machine A", "machine B")
    assert run_times.page_time(pages, ["book/a", "book/b"]).endswith("on machine A at load 1.2–1.5")
    assert run_times.page_time(pages, ["book/b"]).endswith("on machine A at load 1.3–1.5")
    assert run_times.task_time(tasks, "tiny_job").endswith("on machine B at load 5.4–6.5")
    assert run_times.task_time(tasks, "gan_lab_cold").endswith("on machine B at load 5.4–9.3")
    table = run_times.machines_table(measured)
    assert [row[0] for row in table] == ["machine A", "machine B"]
    assert "AMD EPYC" in table[0][1] and "Xeon" in table[1][1] and table[1][2] == "5.4–9.3"


def test_one_machine_for_both_files_is_named_once():
    measured = run_times.measurements(*_records(course_machine=QUIET))
    assert {m.label for m in measured.values()} == {"the stand-in"}
    (row,) = run_times.machines_table(measured)
    assert row[2] == "1.2–9.3" and row[3] == "2026-11-28 06:57 UTC" and ";" in row[4]


def test_the_load_reading_says_upper_bounds_exactly_when_the_load_exceeds_the_cores():
    measured = run_times.measurements(*_records())
    assert "upper bounds" in run_times.load_reading(measured["course"])
    assert "upper bounds" not in run_times.load_reading(measured["pages"])
    four_cores = run_times.measurements(*_records(course_machine={**BUSY, "cores": 16}))["course"]
    assert "upper bounds" not in run_times.load_reading(four_cores)


def test_a_failed_or_missing_figure_is_not_measured_yet():
    pages, course = _records()
    course["tasks"]["gan_lab_cold"]["error"] = "killed"
    measured = run_times.measurements(pages, course)
    assert run_times.task_time(measured["course"], "gan_lab_cold") == "not measured yet"
    assert run_times.laptop_time(measured["course"], "gan_lab_warm") == "not measured yet"
    assert run_times.page_time(measured["pages"], ["book/a", "book/c"]) == "not measured yet"


def test_a_record_without_its_machine_is_refused():
    pages, course = _records()
    del course["machine"]
    with pytest.raises(ValueError, match="course_times.json lacks.*bench_course_times.py"):
        run_times.measurements(pages, course)


def test_the_runs_sentence_is_a_sentence_for_one_run_and_for_several():
    # the page once glued the bare count into "the benchmark's runs (1) over different pages"
    assert run_times.runs_reading({"runs": 1}).startswith("The page times come from one run")
    assert "join 3 runs" in run_times.runs_reading({"runs": 3})


def test_a_background_task_finishes_in_the_half_of_the_block_its_seconds_say():
    block = (5, 25)  # minutes: the block ends at 1500 s, its first half at 900 s
    assert run_times.finish_reading(900, block).startswith("so in the first half")
    assert run_times.finish_reading(901, block) == "so within this block where it was measured"
    assert run_times.finish_reading(1500, block) == "so within this block where it was measured"
    assert run_times.finish_reading(1501, block).endswith("start it before the session")
    assert run_times.finish_reading(1501, (5, 55)).startswith("so in the first half")  # another block, another half


def test_one_machine_is_named_once_and_two_each_by_name():
    measured = run_times.measurements(*_records(course_machine=QUIET))
    assert run_times.machines_words(measured["pages"], measured["course"]).endswith("all on the stand-in")
    two = run_times.measurements(*_records())
    words = run_times.machines_words(two["pages"], two["course"])
    assert two["pages"].label in words and two["course"].label in words and "all on" not in words


def test_the_training_cell_time_is_the_cells_own_where_recorded_else_the_notebooks():
    pages, course = _records()
    course["tasks"]["gan_lab_cold"]["training_cell_seconds"] = 22.0
    cell = run_times.training_cell_time(run_times.measurements(pages, course)["course"])
    assert cell.startswith("22 s wall") and "CPU time was not recorded" in cell
    del course["tasks"]["gan_lab_cold"]["training_cell_seconds"]
    whole = run_times.training_cell_time(run_times.measurements(pages, course)["course"])
    assert whole.endswith("for the whole notebook, training included") and "CPU time," in whole


def test_the_teacher_page_names_the_machine_of_every_time_it_quotes():
    source = TEACHER.read_text()
    assert "measurements(times, course)" in source and "machines_table(measured_on)" in source
    assert "load_readings" in _markdown(TEACHER)
    # every glued time comes from run_times, which names the machine and the load
    for name in re.findall(r'glue\("(t_\w+)", ([^\n]+)', source):
        assert re.search(r"page_time\(|task_time\(|training_cell_time\(|where\(", name[1]), f"{name[0]} does not say where it was measured"
    measured = run_times.measurements(json.loads((REPO / "book/course/page_times.json").read_text()),
                                      json.loads(TIMES.read_text()))
    for task in measured["course"].figures:
        assert measured["course"].label in run_times.task_time(measured["course"], task)


def test_the_teacher_pages_show_commands_not_the_repository_layout():
    for page in ("teacher", "key", "gan_lab", "lab", "notebooks"):
        text = _markdown(REPO / f"book/course/{page}.md")
        assert not re.findall(r"\btests/|\btest_\w+\.py", text), f"{page} names test files"
        for mention in re.finditer(r"benchmarks/\w+\.py", text):
            assert text[max(0, mention.start() - 7):mention.start()] == "python ", \
                f"{page}: {mention.group(0)} named without the command that runs it"


def test_a_partial_run_on_another_machine_is_refused(tmp_path, monkeypatch):
    import bench_course_times

    out = tmp_path / "course_times.json"
    _, course = _records()
    out.write_text(json.dumps(course))
    monkeypatch.setattr(bench_course_times, "machine", lambda: QUIET)
    monkeypatch.setattr(bench_course_times, "measure", lambda *a: pytest.fail("measured before refusing"))
    for key in ("OMP_WAIT_POLICY", "TQDM_DISABLE", "GENDEL_BOOK_BUILD"):
        monkeypatch.setenv(key, os.environ.get(key, ""))
    with pytest.raises(SystemExit, match="measured on another machine"):
        bench_course_times.main(["tiny_job", "--out", str(out)])


# --- what a cold reader found: one figure read two ways, lab labels, the lab's own words ------------------


def _seconds(words):
    minutes = re.match(r"(?:(\d+) min )?(\d+) s$", words)
    assert minutes, f"{words!r} is not a duration to the second"
    return 60 * int(minutes.group(1) or 0) + int(minutes.group(2))


@pytest.mark.parametrize("seconds", [0.4, 42.4, 59.4, 60.0, 94.2, 137.8, 437.9, 3599.6])
def test_a_duration_in_words_gives_back_its_seconds(seconds):
    # "2 min" for 94.2 s read as 120 s beside the table's "1 min 34 s" of the same figure
    assert abs(_seconds(run_times.minutes(seconds)) - seconds) <= 0.5


def test_the_laptop_range_ends_at_the_cpu_time_the_page_states():
    measured = run_times.measurements(*_records())["course"]
    # "expect 69 s to 2 min" beside "2 min CPU time": half of 2 min is not 69 s, the rounding hid the figure
    lower, upper = run_times.laptop_time(measured, "gan_lab_cold").split(" to ")
    assert f"{upper} CPU time" in run_times.task_time(measured, "gan_lab_cold")
    assert abs(_seconds(lower) - _seconds(upper) / 2) <= 1


def test_the_teacher_page_names_the_gan_labs_discuss_items_by_their_labels():
    # the page once sent pairs to "questions 3 and 5 of the lab", whose Discuss items are labelled "Step 2:"…
    text = _markdown(TEACHER)
    assert not re.search(r"\bquestions? \d|\bfive questions\b", text), "the GAN lab numbers no questions"
    lab = (REPO / "book/course/gan_lab.md").read_text().split("## Discuss", 1)[1].split("\n## ", 1)[0]
    assert re.findall(r"^\d+\. (Step \d+):", lab, re.M), "the GAN lab's Discuss items lost their 'Step n:' labels"
    assert 'split("## Discuss"' in TEACHER.read_text(), "the teacher page should read the items from the lab"


def test_the_gan_labs_words_about_its_training_agree_with_the_measured_time():
    cold = json.loads(TIMES.read_text())["tasks"]["gan_lab_cold"]
    lab = _markdown(REPO / "book/course/gan_lab.md")
    if cold.get("training_cell_seconds", cold["seconds"]) >= 60:
        assert not re.search(r"\bseconds\b", lab), "the GAN lab speaks of seconds where its training takes minutes"
