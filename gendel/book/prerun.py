"""Execute the book's pages in parallel into the execution cache that the book build reads.

``jupyter-book build`` executes its pages one after the other. Each page runs in a fresh kernel,
so pages can run side by side instead: this module executes every page of a table of contents in
N processes and stores each executed notebook in the jupyter-cache folder of the build
(``_build/.jupyter_cache``). A build with ``execute_notebooks: cache`` then finds every page there
and executes none; a page that failed here (or whose code changed since) is executed by the build
as usual, which reports its error.

A page is read as the build reads it (myst-nb's reader of MyST notebooks, so the cache's hash of
its code cells and their metadata matches), and executed as the build executes it (jupyter-cache's
``single_nb_execution``, in the page's folder, with the notebook's own timeout and error settings
overriding the defaults). Run it with the environment of the build (the Makefile's ``BOOK_ENV``)::

    rm -rf _build/.jupyter_cache
    GENDEL_BOOK_BUILD=1 TQDM_DISABLE=1 GENDEL_CACHE_DIR=$PWD/_build/.gendel-cache \\
        .venv/bin/python -m gendel.book.prerun --jobs 2
    # then build with execute_notebooks: cache in _config.yml

The cache is keyed by the pages' code, not by gendel's: start from an empty cache folder for
every build, or a page keeps the outputs of older library code.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path


def toc_pages(toc, root="."):
    """The source files of the pages of a table of contents (a ``_toc.yml`` read as a dict), in order.

    Examples
    --------
    >>> toc = {"root": "intro", "parts": [{"chapters": [{"file": "a", "sections": [{"file": "b.md"}]}]}]}
    >>> [p.name for p in toc_pages(toc, root="book")]
    ['intro.md', 'a.md', 'b.md']
    """
    files = [toc["root"]]

    def walk(node):
        if isinstance(node, dict):
            if "file" in node:
                files.append(node["file"])
            for key, value in node.items():
                if key != "root":
                    walk(value)
        elif isinstance(node, list):
            for item in node:
                walk(item)

    walk(toc)
    return [Path(root) / (f if Path(f).suffix in (".md", ".ipynb") else f + ".md") for f in files]


def read_page(path):
    """The notebook of a page as the book build reads it (myst-nb's reader for MyST notebooks).

    Examples
    --------
    >>> import tempfile
    >>> page = Path(tempfile.mkdtemp()) / "p.md"
    >>> _ = page.write_text("---\\nkernelspec:\\n  name: python3\\n  display_name: Python 3\\n---\\n"
    ...                     "# A page\\n\\n```{code-cell} ipython3\\n:tags: [remove-cell]\\n1 + 1\\n```\\n")
    >>> nb = read_page(page)
    >>> [(c.cell_type, c.source, c.metadata.get("tags")) for c in nb.cells][1]
    ('code', '1 + 1', ['remove-cell'])
    """
    from myst_nb.core.read import read_myst_markdown_notebook
    import nbformat

    path = Path(path)
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".ipynb":
        return nbformat.reads(text, as_version=4)
    return read_myst_markdown_notebook(text, add_source_map=True, path=path)


def execute_page(path, timeout=3600, allow_errors=False):
    """Execute a page in a fresh kernel in its folder; returns ``(path, notebook, seconds, error)``,
    ``error`` None or the traceback of the cell that failed.

    Examples
    --------
    >>> import tempfile
    >>> page = Path(tempfile.mkdtemp()) / "p.md"
    >>> _ = page.write_text("---\\nkernelspec:\\n  name: python3\\n  display_name: Python 3\\n---\\n"
    ...                     "```{code-cell} ipython3\\n6 * 7\\n```\\n")
    >>> _, nb, seconds, error = execute_page(page, timeout=120)  # doctest: +SKIP
    >>> error, nb.cells[0].outputs[0]["data"]["text/plain"]  # doctest: +SKIP
    (None, '42')
    """
    from jupyter_cache.executors.utils import single_nb_execution

    path = Path(path).resolve()
    nb = read_page(path)
    result = single_nb_execution(nb, cwd=str(path.parent), timeout=timeout, allow_errors=allow_errors,
                                 meta_override=True)
    return str(path), nb, result.time, (result.exc_string if result.err is not None else None)


def execute_into_cache(pages, cache_path, *, jobs=None, timeout=3600, allow_errors=False, log=print):
    """Execute ``pages`` in ``jobs`` processes (default: the CPU count) and store each executed
    notebook in the jupyter-cache at ``cache_path``. Returns the pages that failed, with their errors.

    Examples
    --------
    >>> execute_into_cache([], "unused")  # doctest: +SKIP
    {}
    """
    from jupyter_cache import get_cache
    from jupyter_cache.base import CacheBundleIn

    cache = get_cache(str(cache_path))
    failed = {}
    jobs = jobs or os.cpu_count() or 1
    start = time.perf_counter()
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        futures = {pool.submit(execute_page, page, timeout, allow_errors): page for page in pages}
        for future in as_completed(futures):
            path, nb, seconds, error = future.result()
            if error is not None:
                failed[path] = error
                log(f"FAILED  {path} ({seconds:.0f} s): the build will execute it again and report the error")
                continue
            cache.cache_notebook_bundle(CacheBundleIn(nb, path, data={"execution_seconds": seconds}),
                                        check_validity=False, overwrite=True)
            log(f"cached  {path} ({seconds:.0f} s)")
    log(f"{len(pages) - len(failed)} of {len(pages)} pages executed into {cache_path} in "
        f"{time.perf_counter() - start:.0f} s with {jobs} processes")
    return failed


def main(argv=None):
    """The command line: ``python -m gendel.book.prerun [--toc _toc.yml] [--cache DIR] [--jobs N]``.

    Examples
    --------
    >>> main(["--help"])  # doctest: +SKIP
    """
    import yaml

    parser = argparse.ArgumentParser(prog="python -m gendel.book.prerun", description=__doc__.splitlines()[0])
    parser.add_argument("--toc", default="_toc.yml", help="the table of contents (default: _toc.yml)")
    parser.add_argument("--cache", default="_build/.jupyter_cache",
                        help="the build's execution cache (default: _build/.jupyter_cache, jupyter-book's)")
    parser.add_argument("--jobs", type=int, default=None, help="pages executed at once (default: the CPU count)")
    parser.add_argument("--timeout", type=int, default=3600, help="seconds per cell (default 3600, as _config.yml)")
    args = parser.parse_args(argv)
    toc = Path(args.toc)
    pages = toc_pages(yaml.safe_load(toc.read_text()), root=toc.parent)
    failed = execute_into_cache(pages, args.cache, jobs=args.jobs, timeout=args.timeout)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
