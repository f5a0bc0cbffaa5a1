"""The run times the teacher page quotes, each with the machine and the load it was measured on.

Two benchmarks measure what a course needs to know: ``benchmarks/bench_page_times.py`` the book's
pages (``book/course/page_times.json``) and ``benchmarks/bench_course_times.py`` the course's own
tasks, a tiny GAN job and the GAN lab (``book/course/course_times.json``). Each file records its
machine (processor, cores, Python, torch) and, with every figure, the load average before and after
it. The two may come from different machines under different loads, so every figure the page
quotes names its machine and the load it was measured under: :func:`measurements` reads both
files into :class:`Measurements`, :func:`page_time` and :func:`task_time` write a figure in words,
:func:`load_reading` says what the load means for the wall times, :func:`runs_reading` how the
pages were run, :func:`machines_words` which machine the figures come from, :func:`finish_reading`
when a task started at 0:00 ends and :func:`training_cell_time` what the GAN lab's training takes.
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

#: The two benchmark files, by what they measure.
SOURCES = {"pages": "page_times.json", "course": "course_times.json"}


def minutes(seconds):
    """A duration in words, to the second: "42 s" below a minute, "7 min 18 s" above.

    One format for every time the teacher page quotes, in its text and in its tables, so that the
    same figure never reads two ways (76 s of CPU time rounded to "2 min" in one place and written
    "1 min 34 s" in another).

    Examples
    --------
    >>> minutes(42.4), minutes(94.2), minutes(437.9)
    ('42 s', '1 min 34 s', '7 min 18 s')
    """
    seconds = round(seconds)
    return f"{seconds} s" if seconds < 60 else f"{seconds // 60} min {seconds % 60:02d} s"


@dataclasses.dataclass(frozen=True)
class Measurements:
    """One benchmark's figures with the machine and the loads they were measured on.

    Attributes
    ----------
    label : str
        How the page names the machine ("machine A"; "the stand-in" when both files share one).
    machine : dict
        ``cpu``, ``cores``, ``system``, ``python``, ``torch`` as the benchmark recorded them.
    figures : dict
        Name (a page such as ``"book/lab"`` or a task such as ``"tiny_job"``) → its record:
        ``seconds``, ``cpu_seconds``, ``load_before``, ``load_after`` (1, 5 and 15-minute load
        averages) and ``error``.
    date : str
        When the first figure was measured.

    Examples
    --------
    >>> m = Measurements("machine A", {"cpu": "AMD EPYC", "cores": 2}, {"p": {
    ...     "seconds": 80.0, "cpu_seconds": 95.0, "load_before": [1.2, 1.0, 1.0],
    ...     "load_after": [1.5, 1.1, 1.0], "error": None}}, "2026-11-28 06:57 UTC")
    >>> m.loads()
    (1.2, 1.5)
    """

    label: str
    machine: dict
    figures: dict
    date: str

    def loads(self, names=None):
        """The lowest and highest 1-minute load average, before or after, over the figures ``names`` (all by default)."""
        names = list(self.figures) if names is None else list(names)
        values = [self.figures[n][key][0] for n in names for key in ("load_before", "load_after")]
        return min(values), max(values)

    def describe(self):
        """The machine in words: cores, processor, system, Python and torch.

        The processor is named as the machine reports it (``model name`` in ``/proc/cpuinfo``);
        virtual machines often report a family without its model number, and then the words say so,
        since a family name ("AMD EPYC") does not tell how fast a core is.

        >>> Measurements("machine A", {"cpu": "AMD EPYC", "cores": 2}, {}, "").describe()
        '2 cores of an AMD EPYC; the machine reports no model number'
        >>> Measurements("machine A", {"cpu": "AMD EPYC 7B13", "cores": 2}, {}, "").describe()
        '2 cores of an AMD EPYC 7B13'
        """
        m = self.machine
        words = f"{m['cores']} cores of an {m['cpu']}"
        names = {"system": "", "python": "Python ", "torch": "torch "}
        extra = [names[k] + m[k] for k in names if m.get(k)]
        words += f" ({', '.join(extra)})" if extra else ""
        if not any(ch.isdigit() for ch in m["cpu"]):
            words += "; the machine reports no model number"
        return words


def measurements(page_times, course_times):
    """The page times and the course tasks' times as :class:`Measurements`, their machines labelled.

    Parameters
    ----------
    page_times, course_times : dict
        The contents of ``page_times.json`` and ``course_times.json``.

    Returns
    -------
    dict
        ``{"pages": Measurements, "course": Measurements}``; the labels are "machine A" and
        "machine B" when the two files name different machines, "the stand-in" for both when
        they name the same one.

    Examples
    --------
    >>> quiet = {"cpu": "AMD EPYC", "cores": 2}
    >>> pages = {"date": "d1", "machine": quiet, "pages": []}
    >>> course = {"machine": {"cpu": "Intel Xeon", "cores": 2}, "tasks": {}}
    >>> {k: m.label for k, m in measurements(pages, course).items()}
    {'pages': 'machine A', 'course': 'machine B'}
    >>> measurements(pages, {**course, "machine": quiet})["course"].label
    'the stand-in'
    """
    for name, record, key in (("page_times.json", page_times, "pages"), ("course_times.json", course_times, "tasks")):
        missing = {"machine", key} - set(record)
        if missing:
            raise ValueError(f"{name} lacks {sorted(missing)}: write it again with its benchmark "
                             f"(python benchmarks/bench_{name.split('.')[0]}.py)")
    same = page_times["machine"] == course_times["machine"]
    tasks = course_times["tasks"]
    return {
        "pages": Measurements("the stand-in" if same else "machine A", page_times["machine"],
                              {r["page"]: r for r in page_times["pages"]}, page_times.get("date", "")),
        "course": Measurements("the stand-in" if same else "machine B", course_times["machine"], tasks,
                               min((t["date"] for t in tasks.values()), default="")),
    }


def _load_range(low, high):
    return f"{low:.1f}" if f"{low:.1f}" == f"{high:.1f}" else f"{low:.1f}–{high:.1f}"


def where(measured, names):
    """Where the figures ``names`` were measured: the machine's label and the 1-minute load range.

    Examples
    --------
    >>> m = Measurements("machine B", {"cpu": "Intel Xeon", "cores": 2}, {"t": {
    ...     "seconds": 1.0, "cpu_seconds": 1.0, "load_before": [5.44, 7.1, 5.9], "load_after": [9.3, 9.0, 7.3],
    ...     "error": None}}, "")
    >>> where(m, ["t"])
    'on machine B at load 5.4–9.3'
    """
    return f"on {measured.label} at load {_load_range(*measured.loads(names))}"


def page_time(measured, pages):
    """The wall and kernel CPU time of a group of pages, with the machine and the load they ran under.

    "not measured yet" when a page has no figure or failed.

    Examples
    --------
    >>> m = Measurements("machine A", {"cpu": "AMD EPYC", "cores": 2}, {
    ...     "a": {"seconds": 60.0, "cpu_seconds": 70.0, "load_before": [1.2], "load_after": [1.3], "error": None},
    ...     "b": {"seconds": 50.0, "cpu_seconds": 60.0, "load_before": [1.3], "load_after": [1.5], "error": None}}, "")
    >>> page_time(m, ["a", "b"])
    '1 min 50 s wall, 2 min 10 s CPU time, on machine A at load 1.2–1.5'
    >>> page_time(m, ["a", "c"])
    'not measured yet'
    """
    if any(p not in measured.figures or measured.figures[p]["error"] for p in pages):
        return "not measured yet"
    wall = sum(measured.figures[p]["seconds"] for p in pages)
    cpu = [measured.figures[p].get("cpu_seconds") for p in pages]
    cpu_words = "" if None in cpu else f", {minutes(sum(cpu))} CPU time"
    return f"{minutes(wall)} wall{cpu_words}, {where(measured, pages)}"


def task_time(measured, name):
    """The wall and CPU time of one course task, with the machine and the load it ran under.

    Examples
    --------
    >>> m = Measurements("machine B", {"cpu": "Intel Xeon", "cores": 2}, {"tiny_job": {
    ...     "seconds": 58.4, "cpu_seconds": 21.4, "load_before": [6.46], "load_after": [5.44], "error": None}}, "")
    >>> task_time(m, "tiny_job")
    '58 s wall, 21 s CPU time, on machine B at load 5.4–6.5'
    >>> task_time(m, "gan_lab_cold")
    'not measured yet'
    """
    t = _measured_task(measured, name)
    return t if isinstance(t, str) else \
        f"{minutes(t['seconds'])} wall, {minutes(t['cpu_seconds'])} CPU time, {where(measured, [name])}"


def laptop_time(measured, name):
    """What a course task takes on a laptop with two cores at least as fast and nothing else running:
    between half its CPU time (both cores busy all the time) and its CPU time (one core busy).

    Examples
    --------
    >>> m = Measurements("machine B", {"cpu": "Intel Xeon", "cores": 2}, {"gan_lab_cold": {
    ...     "seconds": 437.9, "cpu_seconds": 137.8, "load_before": [5.4], "load_after": [9.3], "error": None}}, "")
    >>> laptop_time(m, "gan_lab_cold")
    '1 min 09 s to 2 min 18 s'
    """
    t = _measured_task(measured, name)
    return t if isinstance(t, str) else f"{minutes(t['cpu_seconds'] / 2)} to {minutes(t['cpu_seconds'])}"


def _measured_task(measured, name):
    """The record of task ``name``, or the words for a task without a figure ("not measured yet")."""
    t = measured.figures.get(name)
    return "not measured yet" if t is None or t["error"] else t


def load_reading(measured):
    """What the load a benchmark ran under means for its wall times, in one sentence.

    Above the number of cores, other work shared the machine and the wall times are upper bounds
    of what a task needs alone; at or below it the machine ran little besides the measured kernel.

    Examples
    --------
    >>> busy = Measurements("machine B", {"cpu": "Intel Xeon", "cores": 2}, {"t": {
    ...     "seconds": 1.0, "cpu_seconds": 1.0, "load_before": [5.44], "load_after": [9.3], "error": None}}, "")
    >>> load_reading(busy)  # doctest: +ELLIPSIS
    'On machine B other work ran beside the measurements: its load average was 5.4–9.3 on 2 cores, ...'
    """
    low, high = measured.loads()
    cores = measured.machine["cores"]
    if high > cores:
        return (f"On {measured.label} other work ran beside the measurements: its load average was "
                f"{_load_range(low, high)} on {cores} cores, so its wall times are upper bounds of what a task "
                "needs alone; its CPU times grow much less with the load.")
    return (f"On {measured.label} the load average was {_load_range(low, high)} on {cores} cores, the measured "
            "kernel included: little else ran, and its wall times are close to what a task needs alone.")


def runs_reading(page_times):
    """How the page times were run, in one sentence: one run of the benchmark, or several joined.

    Examples
    --------
    >>> runs_reading({"runs": 1})
    'The page times come from one run of the benchmark, one page after the other.'
    >>> runs_reading({"runs": 2})  # doctest: +ELLIPSIS
    'The page times join 2 runs of the benchmark over different pages; the load average beside each ...'
    """
    runs = page_times.get("runs", 1)
    if runs == 1:
        return "The page times come from one run of the benchmark, one page after the other."
    return (f"The page times join {runs} runs of the benchmark over different pages; the load average beside "
            "each page says how busy the machine was while it ran.")


def finish_reading(seconds, block=(5, 25)):
    """When a task started in the background at 0:00 ends, against the block it runs into
    (``block``: its start and end, in minutes of the session).

    Examples
    --------
    >>> finish_reading(76), finish_reading(20 * 60), finish_reading(26 * 60)  # doctest: +NORMALIZE_WHITESPACE
    ('so in the first half of this block where it was measured', 'so within this block where it was measured',
     'so after this block where it was measured: start it before the session')
    """
    start, end = block
    if seconds <= (start + end) * 60 / 2:
        return "so in the first half of this block where it was measured"
    if seconds <= end * 60:
        return "so within this block where it was measured"
    return "so after this block where it was measured: start it before the session"


def training_cell_time(measured, name="gan_lab_cold"):
    """The GAN lab's training cell in words: its own wall time where the benchmark recorded it,
    else the whole notebook's time (the training is in it).

    Examples
    --------
    >>> m = Measurements("machine B", {"cpu": "Intel Xeon", "cores": 2}, {"gan_lab_cold": {
    ...     "seconds": 57.0, "cpu_seconds": 80.0, "training_cell_seconds": 22.0, "load_before": [0.3],
    ...     "load_after": [1.1], "error": None}}, "")
    >>> training_cell_time(m)
    '22 s wall, on machine B at load 0.3–1.1 (its CPU time was not recorded)'
    >>> del m.figures["gan_lab_cold"]["training_cell_seconds"]
    >>> training_cell_time(m)
    '57 s wall, 1 min 20 s CPU time, on machine B at load 0.3–1.1 for the whole notebook, training included'
    """
    cell = (measured.figures.get(name) or {}).get("training_cell_seconds")
    if cell:
        return f"{minutes(cell)} wall, {where(measured, [name])} (its CPU time was not recorded)"
    return task_time(measured, name) + " for the whole notebook, training included"


def machines_words(pages, tasks):
    """Which machine the page times and the course tasks' times come from: named once when it is
    one machine (``pages`` and ``tasks``: the two :class:`Measurements`).

    Examples
    --------
    >>> a, b = (Measurements(label, {"cpu": "x", "cores": 2}, {}, "") for label in ("machine A", "machine B"))
    >>> machines_words(a, a)
    'the times of the pages and of the course tasks all on machine A'
    >>> machines_words(a, b)
    'the times of the pages on machine A, those of the GAN lab and the tiny job on machine B'
    """
    if pages.label == tasks.label:
        return f"the times of the pages and of the course tasks all on {pages.label}"
    return f"the times of the pages on {pages.label}, those of the GAN lab and the tiny job on {tasks.label}"


def _section(place):
    """A cell's section: a link where its heading has a label (its title's math as plain text there)."""
    if not place.label:
        return f"“{place.section}”"
    plain = re.sub(r"\\[,;:! ]", " ", place.section).replace("$", "").replace("\\", "")
    return f"{{ref}}`{plain} <{place.label}>`"


def slowest_cell_words(root, record, first_line):
    """Where a page's slowest cell is, found in today's page source by the first line of code the
    page-times benchmark stored for it (``record``: the page's record; ``first_line``: that of every
    page's first cell, which loads gendel).

    Examples
    --------
    >>> slowest_cell_words(".", {"page": "book/no-such-page", "slowest_cell": "x = 1",
    ...                          "slowest_cell_section": "Setup"}, "import gendel")
    'cell not found in the current page (it was in “Setup”)'
    """
    from gendel.book.cells import find_cells

    places = find_cells(Path(root) / f"{record['page']}.md", record["slowest_cell"]) \
        if (Path(root) / f"{record['page']}.md").exists() else []
    if not places:  # the page changed since the run; a newer run also stored the section it measured
        stored = record.get("slowest_cell_section")
        return "cell not found in the current page" + (f" (it was in “{stored}”)" if stored else "")
    if len(places) > 1:
        return f"one of {len(places)} cells that start alike, in the sections " + " and ".join(map(_section, places))
    place = places[0]
    if place.index == 0 and record["slowest_cell"] == first_line:
        return "the first cell (loads gendel and its libraries)"
    # no cell numbers: the page hides some cells that the notebook counts
    if place.level == 1:
        return "a cell under the page's title (before any section)"
    return f"a cell of the section {_section(place)}"


def page_times_table(page_times, root, *, first_line=None, skip=("book/course/gan_lab",)):
    r"""The teacher page's table of run times, in markdown: one row per page with code, in the order
    of the table of contents (wall time, CPU time, the slowest cell and where it is, the load before
    and after), then the notes that say why some pages take long.

    ``page_times``: the benchmark's record (``book/course/page_times.json``); ``root``: the
    repository; ``first_line``: the first line of code of every page's first cell, which loads
    gendel (by default that of the cell :func:`gendel.book.install.render_cell` writes for the
    repository's ``_config.yml``); ``skip``: pages whose times are stated elsewhere (the GAN lab's
    are course tasks).

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:      # a book of one page, never measured
    ...     _ = (Path(tmp) / "_toc.yml").write_text("root: intro\n")
    ...     _ = (Path(tmp) / "intro.md").write_text("# Intro\n\n```{code-cell} ipython3\nx = 1\n```\n")
    ...     print(page_times_table({"pages": []}, tmp, first_line="x = 1").splitlines()[-1])
    | Intro | not measured yet |  |  |  |
    """
    import yaml

    from gendel.book.cells import first_code_line, page_title
    from gendel.book.install import render_cell
    from gendel.book.prerun import toc_pages
    from gendel.plotting import markdown_table
    from gendel.plotting.common import markdown_text

    root = Path(root)
    if first_line is None:
        first_line = first_code_line(render_cell(root / "_config.yml"))
    rows = {r["page"]: r for r in page_times["pages"]}

    def row(r):
        wall = minutes(r["seconds"]) + (f" (failed: {r['error']})" if r["error"] else "")
        cpu = minutes(r["cpu_seconds"]) if r.get("cpu_seconds") is not None else "not recorded"
        slowest = (f"{minutes(r['slowest_cell_seconds'])}: {slowest_cell_words(root, r, first_line)}"
                   if r["slowest_cell_seconds"] else "")
        if r["cache"] != "empty cache":  # the run order is in the text above the table
            wall += "; " + re.sub(r" \(run after book/[\w/]+\)", "", r["cache"])
        return [page_title(root, r["page"]), wall, cpu, slowest,
                f"{r['load_before'][0]:.1f} → {r['load_after'][0]:.1f}"]

    toc_file = root / "_toc.yml"
    listed = [str(p.with_suffix("")) for p in toc_pages(yaml.safe_load(toc_file.read_text()))] if toc_file.exists() else []
    with_code = [p for p in listed if (root / f"{p}.md").exists() and "```{code-cell}" in (root / f"{p}.md").read_text()]
    order = [p for p in with_code if p not in skip and (p != "book/course/teacher" or p in rows)]
    order += [p for p in rows if p not in order]
    table = [row(rows[p]) if p in rows else [page_title(root, p), "not measured yet", "", "", ""] for p in order]
    why = {}
    for p in order:
        if p in rows and rows[p]["note"]:
            why.setdefault(rows[p]["note"], []).append(page_title(root, p))
    notes = "\n".join(f"- {'; '.join(pages)} — {markdown_text(note)}." for note, pages in why.items())
    return (markdown_table(["page", "wall time", "CPU time", "slowest cell", "load average, before → after"], table)
            + ("\n\n**Why some pages take long**\n\n" + notes if notes else ""))


def machines_table(measured):
    """Rows of a table of the machines: label, machine, load average, first date, what it measured.

    Parameters
    ----------
    measured : dict
        :func:`measurements`' result.

    Examples
    --------
    >>> pages = {"date": "d1", "machine": {"cpu": "AMD EPYC", "cores": 2}, "pages": [{"page": "book/intro",
    ...     "seconds": 8.6, "cpu_seconds": 7.3, "load_before": [1.15], "load_after": [1.2], "error": None}]}
    >>> course = {"machine": {"cpu": "Intel Xeon", "cores": 2}, "tasks": {"tiny_job": {"seconds": 58.4,
    ...     "cpu_seconds": 21.4, "load_before": [6.46], "load_after": [5.44], "error": None, "date": "d2"}}}
    >>> machines_table(measurements(pages, course))[1]
    ['machine B', '2 cores of an Intel Xeon; the machine reports no model number', '5.4–6.5', 'd2', 'the tiny job and the GAN lab']
    """
    what = {"pages": "every page of the table below", "course": "the tiny job and the GAN lab"}
    groups = {}
    for key, m in measured.items():
        if m.figures:
            groups.setdefault(m.label, []).append(key)
    rows = []
    for label, keys in groups.items():
        low, high = zip(*(measured[k].loads() for k in keys))
        rows.append([label, measured[keys[0]].describe(), _load_range(min(low), max(high)),
                     min(measured[k].date for k in keys), "; ".join(what[k] for k in keys)])
    return rows
