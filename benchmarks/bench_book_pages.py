"""Time the execution of the book's pages, one kernel per page, in table-of-contents order.

Usage (from the repository root)::

    .venv/bin/python benchmarks/bench_book_pages.py            # every page of _toc.yml
    .venv/bin/python benchmarks/bench_book_pages.py synthetic  # pages whose path contains "synthetic"

Pages run as in the book build (GENDEL_BOOK_BUILD=1, TQDM_DISABLE=1) with a fresh, empty result
cache, so the numbers are those of a cold build. Prints seconds per page and per group.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

import jupytext
import nbclient
import yaml

ROOT = Path(__file__).resolve().parents[1]


def toc_pages():
    from gendel.book.prerun import toc_pages as pages_of

    return [str(p.with_suffix("")) for p in pages_of(yaml.safe_load((ROOT / "_toc.yml").read_text()))]


def main(argv):
    pattern = argv[1] if len(argv) > 1 else ""
    cache = tempfile.mkdtemp(prefix="gendel-bench-cache-")
    os.environ.update(GENDEL_BOOK_BUILD="1", TQDM_DISABLE="1", GENDEL_CACHE_DIR=cache)
    print(f"cores: {os.cpu_count()}, load average: {os.getloadavg()}, cold cache: {cache}")
    total = 0.0
    for page in toc_pages():
        if pattern not in page:
            continue
        path = ROOT / f"{page}.md"
        nb = jupytext.read(path)
        if not any(c.cell_type == "code" for c in nb.cells):
            continue
        start = time.perf_counter()
        nbclient.NotebookClient(nb, timeout=1800, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}}).execute()
        elapsed = time.perf_counter() - start
        total += elapsed
        print(f"{elapsed:8.1f} s  {page}")
    print(f"{total:8.1f} s  total ({pattern or 'all pages'})")


if __name__ == "__main__":
    main(sys.argv)
