"""CPU seconds of gendel's imports and of a page's start, each in a fresh Python process.

Usage (from the repository root)::

    .venv/bin/python benchmarks/bench_import.py             # 3 processes per case, the median
    .venv/bin/python benchmarks/bench_import.py 5           # 5 processes per case
    .venv/bin/python benchmarks/bench_import.py 3 book/theory/tests_mmd.md   # that page's start

Each case runs in a new interpreter (nothing imported yet, as in a fresh kernel) and reports the
process's CPU time (user + system, the interpreter's own start included) when the case is done,
and which heavy libraries it loaded. A page's start is its first two code cells (the install cell
with ``setup_page()``, and the imports), read from the MyST page with jupytext and run as plain
Python outside a kernel. CPU seconds depend less on the machine's load than wall seconds; compare
numbers of one run. Prints numbers only; no test asserts them.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PAGE = "book/synthetic/q1_approximation.md"
HEAVY = ("torch", "sklearn", "scipy.stats", "pandas", "nbformat", "jsonschema", "rfc3987_syntax", "ipywidgets",
         "plotly.io._renderers")

CASES = {
    "python alone": "pass",
    "import numpy": "import numpy",
    "import gendel.core.dre": "import gendel.core.dre",
    "import gendel.synthetic.experiments": "import gendel.synthetic.experiments",
    "import gendel.plotting": "import gendel.plotting",
    "both of the above": "import gendel.synthetic.experiments, gendel.plotting",
    "setup_page()": "from gendel.book import setup_page\npage = setup_page()",
}

_REPORT = """
import json, os, sys, time
_t = os.times()
print("@@" + json.dumps({"cpu": _t.user + _t.system, "loaded": [m for m in %r if m in sys.modules]}))
"""


def page_start(page):
    """The first two code cells of a MyST page, as one Python source."""
    import jupytext

    cells = [c.source for c in jupytext.read(REPO / page).cells if c.cell_type == "code"][:2]
    return "\n".join(line for cell in cells for line in cell.splitlines() if not line.lstrip().startswith(("%", "!")))


def measure(code):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]),
           "TQDM_DISABLE": "1"}
    done = subprocess.run([sys.executable, "-c", code + _REPORT % (HEAVY,)], cwd=REPO, env=env, capture_output=True,
                          text=True, timeout=600)
    if done.returncode:
        raise SystemExit(f"failed:\n{code}\n{done.stderr[-2000:]}")
    line = next(line for line in done.stdout.splitlines() if line.startswith("@@"))
    return json.loads(line[2:])


def main(argv):
    runs = int(argv[1]) if len(argv) > 1 else 3
    page = argv[2] if len(argv) > 2 else PAGE
    cases = dict(CASES)
    cases[f"first two cells of {page}"] = page_start(page)
    print(f"{runs} fresh processes per case; {os.cpu_count()} cores; load {os.getloadavg()[0]:.2f}")
    print(f"{'case':<58} {'median CPU s':>12} {'min':>6}  loaded")
    for name, code in cases.items():
        results = [measure(code) for _ in range(runs)]
        cpu = [r["cpu"] for r in results]
        print(f"{name:<58} {statistics.median(cpu):12.2f} {min(cpu):6.2f}  {', '.join(results[-1]['loaded']) or '-'}")


if __name__ == "__main__":
    main(sys.argv)
