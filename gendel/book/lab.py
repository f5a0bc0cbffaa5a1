"""JupyterLab settings that open the book's MyST pages as notebooks.

JupyterLab opens a ``.md`` file in its text editor unless told otherwise. The book's pages are
MyST notebooks (jupytext's ``myst`` format), so this writes JupyterLab's settings overrides in an
environment (``<prefix>/share/jupyter/lab/settings/overrides.json``) to make jupytext's notebook
the default viewer of Markdown files. A double click on ``book/synthetic/explore.md``, or the
address ``/lab/tree/book/synthetic/explore.md``, then opens the page as a notebook, with a kernel.
Other settings in an existing ``overrides.json`` are kept.

Run it once per environment (``make book`` and ``make test`` do, and so does Binder's
``postBuild``)::

    python -m gendel.book.lab            # this Python's environment
    python -m gendel.book.lab --prefix /some/env
"""
import argparse
import json
import sys
from pathlib import Path

#: The settings written: jupytext's notebook view is the default for Markdown and MyST files.
OVERRIDES = {
    "@jupyterlab/docmanager-extension:plugin": {
        "defaultViewers": {"markdown": "Jupytext Notebook", "myst": "Jupytext Notebook"},
    },
}


def overrides_path(prefix=None):
    """Where JupyterLab reads settings overrides in the environment ``prefix`` (default: this one).

    Examples
    --------
    >>> from gendel.book.lab import overrides_path
    >>> overrides_path("/env").as_posix()
    '/env/share/jupyter/lab/settings/overrides.json'
    """
    return Path(sys.prefix if prefix is None else prefix) / "share" / "jupyter" / "lab" / "settings" / "overrides.json"


def merged(existing, overrides=OVERRIDES):
    """``existing`` settings with ``overrides`` written over them, one plugin and key at a time.

    Examples
    --------
    >>> from gendel.book.lab import merged
    >>> old = {"@jupyterlab/docmanager-extension:plugin": {"autosave": False}, "other": {"a": 1}}
    >>> new = merged(old)
    >>> new["other"], new["@jupyterlab/docmanager-extension:plugin"]["autosave"]
    ({'a': 1}, False)
    >>> new["@jupyterlab/docmanager-extension:plugin"]["defaultViewers"]["markdown"]
    'Jupytext Notebook'
    """
    out = {plugin: dict(values) for plugin, values in existing.items()}
    for plugin, values in overrides.items():
        out.setdefault(plugin, {}).update(values)
    return out


def write_overrides(prefix=None):
    """Write :data:`OVERRIDES` into the environment's ``overrides.json``; returns its path.

    Examples
    --------
    >>> import json, tempfile
    >>> from gendel.book.lab import write_overrides
    >>> with tempfile.TemporaryDirectory() as env:
    ...     path = write_overrides(env)
    ...     json.loads(path.read_text())["@jupyterlab/docmanager-extension:plugin"]["defaultViewers"]["myst"]
    'Jupytext Notebook'
    """
    path = overrides_path(prefix)
    existing = {}
    if path.exists():
        try:
            existing = json.loads(path.read_text() or "{}")
        except json.JSONDecodeError as err:
            raise ValueError(f"{path} is not valid JSON ({err}); fix or delete it and run again") from err
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(merged(existing), indent=2) + "\n")
    return path


def main(argv=None):
    """The command line: ``python -m gendel.book.lab [--prefix ENV]``.

    Examples
    --------
    >>> import tempfile
    >>> from gendel.book.lab import main
    >>> with tempfile.TemporaryDirectory() as env:
    ...     main(["--prefix", env])          # doctest: +ELLIPSIS
    JupyterLab opens Markdown pages as notebooks: wrote .../share/jupyter/lab/settings/overrides.json
    """
    parser = argparse.ArgumentParser(prog="python -m gendel.book.lab", description=__doc__.splitlines()[0])
    parser.add_argument("--prefix", help="the environment to configure (default: this Python's, sys.prefix)")
    args = parser.parse_args(argv)
    print(f"JupyterLab opens Markdown pages as notebooks: wrote {write_overrides(args.prefix)}")


if __name__ == "__main__":
    main()
