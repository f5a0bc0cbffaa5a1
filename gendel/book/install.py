"""The first cell of every page: install gendel where it is missing, then set the page up.

A page's ``.ipynb`` opened in Colab (or downloaded from the book into a Jupyter without gendel)
runs in a kernel without gendel. Its first cell, short and visible, therefore installs gendel
first, and does nothing where gendel is already importable (a clone after ``make lab``, Binder, the
book build), so it costs nothing there and prints nothing. What it installs, the first that applies:

- ``$GENDEL_PIP_SPEC`` if set: the arguments given to ``pip install`` (shell-quoted, so several may
  be given, e.g. ``"torch>=2.2,<2.14" "/path/to/gendel[book]"``); a test points it at a local
  checkout;
- the wheel published with the book (:mod:`gendel.book.publish`), ``gendel[book] @
  <html.baseurl>/wheel/gendel-<version>-py3-none-any.whl``, where ``_config.yml`` sets the book's
  address ``html.baseurl``: the package of the very build the reader sees, from any static host,
  with no public repository needed;
- else ``gendel[book] @ git+<url>@<branch>`` with the repository's public address and branch from
  the ``repository:`` block of ``_config.yml`` (the setting that the launch buttons read too);
- while neither is set, nothing: the cell stops with an error that says what to do.

Every page installs the ``book`` extra: every page glues its numbers into the text with
``myst_nb.glue`` (myst-nb comes with jupyter-book), the live panels need ipywidgets and anywidget,
and the GAN pages need torch (preinstalled in Colab, so the ``gan`` extra costs Colab nothing).
One extra for all pages keeps the first cell identical on every page.

The cell is rendered from ``_config.yml`` by :func:`render_cell`; ``python -m gendel.book.install``
writes it into every page (``book/**/*.md``) and their ``.ipynb`` pairs (:mod:`gendel.book.colab`), and
``tests/test_page_setup.py`` checks that every page starts with it.
"""
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CONFIG = ROOT / "_config.yml"
PIP_SPEC_ENV = "GENDEL_PIP_SPEC"
EXTRAS = "book"

SETUP = ("from gendel.book import setup_page\n\n"
         "page = setup_page()  # plotly and widgets for where this page runs: book build, JupyterLab or Colab")

_HEAD = '''\
# Install gendel where it is missing (Colab): $GENDEL_PIP_SPEC if set, else {source}.
import importlib.util, os, shlex, subprocess, sys
if importlib.util.find_spec("gendel") is None:
    _pip = shlex.split(os.environ.get("GENDEL_PIP_SPEC", ""))'''

_FROM_ADDRESS = ''' or [{requirement!r}]'''

_NO_REPOSITORY = '''
    if not _pip:
        raise ModuleNotFoundError("gendel is missing and the book names no address to install it from: run %env "
                                  "GENDEL_PIP_SPEC=/path/to/gendel[book] above, or pip install -e '.[book]' in a clone")'''

_TAIL = '''
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", *_pip], check=True)
    importlib.invalidate_caches()
'''


def read_repository(config=CONFIG):
    """The repository's public address and branch from ``_config.yml``'s ``repository:`` block:
    ``(url, branch)``; ``url`` is ``""`` while it is unset.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from gendel.book.install import read_repository
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "_config.yml"
    >>> _ = path.write_text("repository:\\n  url: https://github.com/o/gendel\\n  branch: main\\n")
    >>> read_repository(path)
    ('https://github.com/o/gendel', 'main')
    """
    import yaml

    config = Path(config)
    if not config.is_file():
        raise FileNotFoundError(f"{config} not found: the install cell is rendered from the book's _config.yml "
                                "in a clone of gendel (pass its path)")
    repository = (yaml.safe_load(config.read_text()) or {}).get("repository") or {}
    url = (repository.get("url") or "").strip().rstrip("/")
    branch = str(repository.get("branch") or "").strip()
    if url and not branch:
        raise ValueError(f"{config}: repository.url is set but repository.branch is not; name the branch that "
                         "readers install from (e.g. main)")
    return url, branch


def read_baseurl(config=CONFIG):
    """The book's address, ``html.baseurl`` of ``_config.yml`` (``""`` while it is unset).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from gendel.book.install import read_baseurl
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "_config.yml"
    >>> _ = path.write_text("html:\\n  baseurl: https://example.org/gendel/\\n")
    >>> read_baseurl(path)
    'https://example.org/gendel'
    """
    import yaml

    config = Path(config)
    if not config.is_file():
        raise FileNotFoundError(f"{config} not found: the install cell is rendered from the book's _config.yml "
                                "in a clone of gendel (pass its path)")
    html = (yaml.safe_load(config.read_text()) or {}).get("html") or {}
    base = str(html.get("baseurl") or "").strip().rstrip("/")
    if base and not re.match(r"(https?|file)://", base):
        raise ValueError(f"{config}: html.baseurl is {base!r}; set it to the address the built book is served "
                         "from (https://...), or leave it empty")
    return base


def requirement(url, branch, extras=EXTRAS):
    """The pip requirement that installs gendel from its repository.

    Examples
    --------
    >>> from gendel.book.install import requirement
    >>> requirement("https://github.com/o/gendel", "main")
    'gendel[book] @ git+https://github.com/o/gendel@main'
    """
    return f"gendel[{extras}] @ git+{url}@{branch}"


def wheel_requirement(baseurl, root=ROOT, extras=EXTRAS):
    """The pip requirement that installs the wheel published with the book at ``baseurl``.

    Examples
    --------
    >>> from gendel.book.install import wheel_requirement
    >>> wheel_requirement("https://example.org/gendel")  # doctest: +ELLIPSIS
    'gendel[book] @ https://example.org/gendel/wheel/gendel-...-py3-none-any.whl'
    """
    from gendel.book.publish import version, wheel_url

    return f"gendel[{extras}] @ {wheel_url(baseurl, version(root))}"


def render_cell(config=CONFIG):
    """The source of every page's first code cell, from ``html.baseurl`` and the ``repository:``
    block of ``config`` (see the module docstring for what it installs).

    Examples
    --------
    >>> from gendel.book.install import render_cell
    >>> print(render_cell().splitlines()[-1])
    page = setup_page()  # plotly and widgets for where this page runs: book build, JupyterLab or Colab
    """
    config = Path(config)
    baseurl, (url, branch) = read_baseurl(config), read_repository(config)
    if baseurl:
        source, middle = "the wheel published with the book", _FROM_ADDRESS.format(
            requirement=wheel_requirement(baseurl, config.parent if (config.parent / "pyproject.toml").is_file()
                                          else ROOT))
    elif url:
        source, middle = "gendel from its repository", _FROM_ADDRESS.format(requirement=requirement(url, branch))
    else:
        source, middle = "an error that says how", _NO_REPOSITORY
    return _HEAD.format(source=source) + middle + _TAIL + SETUP


FIRST_CELL = re.compile(r"(```\{code-cell\} ipython3\n:tags: \[remove-cell\]\n)(.*?)(\n```\n)", re.S)


def install_source_words(config=CONFIG):
    r"""Where the first cell of every page installs gendel from, in words for the teacher page: the
    same choice as :func:`render_cell` (the wheel at ``html.baseurl``, else the repository, else
    nowhere yet, with what to do).

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     config = Path(tmp) / "_config.yml"
    ...     _ = config.write_text("repository:\n  url: https://github.com/o/gendel\n  branch: main\n")
    ...     install_source_words(config)
    'from the repository https://github.com/o/gendel'
    """
    config = Path(config)
    baseurl, (url, _) = read_baseurl(config), read_repository(config)
    if baseurl:
        return f"from the wheel published with the book at {baseurl}/wheel/"
    if url:
        return f"from the repository {url}"
    return ("once the book names where to install it from, and this copy names no address yet (neither html.baseurl "
            "nor repository.url in _config.yml): until it does, the first cell stops with an error. Host the book as "
            "described under “Hosting the book” below, or have each notebook set GENDEL_PIP_SPEC to a copy of gendel "
            "(for example the wheel that make book writes into _build/html/wheel/)")


def pages(root=ROOT):
    """The book's MyST notebook pages (``book/**/*.md`` with code cells; a page of text alone, such
    as the API reference, runs nothing and needs no install cell).

    Examples
    --------
    >>> from gendel.book.install import pages
    >>> any(p.name == "framework.md" for p in pages())
    True
    """
    return sorted(p for p in (Path(root) / "book").rglob("*.md")
                  if not {"_vendor", ".ipynb_checkpoints", "_build"} & set(p.parts) and "```{code-cell}" in p.read_text())


def first_cell(text):
    """The source of the first code cell of a MyST page (``None`` if it has none or it is not
    tagged ``remove-cell``).

    Examples
    --------
    >>> from gendel.book.install import first_cell
    >>> first_cell("# T\\n\\n```{code-cell} ipython3\\n:tags: [remove-cell]\\nx = 1\\n```\\n")
    'x = 1'
    """
    start = text.find("```{code-cell}")
    match = FIRST_CELL.match(text, start) if start >= 0 else None
    return match.group(2) if match else None


def rewrite_page(path, cell):
    """Make ``cell`` the source of the page's first code cell (a ``remove-cell`` cell); returns
    whether the page changed. A page whose first code cell is not a ``remove-cell`` cell is refused.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from gendel.book.install import first_cell, rewrite_page
    >>> page = pathlib.Path(tempfile.mkdtemp()) / "page.md"
    >>> _ = page.write_text("# T\\n\\n```{code-cell} ipython3\\n:tags: [remove-cell]\\nold\\n```\\n")
    >>> rewrite_page(page, "new"), first_cell(page.read_text())
    (True, 'new')
    """
    path = Path(path)
    text = path.read_text()
    start = text.find("```{code-cell}")
    match = FIRST_CELL.match(text, start) if start >= 0 else None
    if match is None:
        raise ValueError(f"{path}: the first code cell must be tagged remove-cell (```{{code-cell}} ipython3 then "
                         ":tags: [remove-cell]); fix the page, then run python -m gendel.book.install again")
    new = text[:match.start(2)] + cell + text[match.end(2):]
    if new != text:
        path.write_text(new)
    return new != text


def main(argv=None):
    """``python -m gendel.book.install``: write the install cell into every page and its ``.ipynb`` pair.

    Examples
    --------
    After setting ``repository.url`` in ``_config.yml``, from the repository root::

        .venv/bin/python -m gendel.book.install
    """
    import argparse

    parser = argparse.ArgumentParser(prog="python -m gendel.book.install",
                                     description=main.__doc__.split("\n\n")[0])
    parser.add_argument("--root", type=Path, default=ROOT, help="the clone's root (holds _config.yml and book/)")
    args = parser.parse_args(argv)
    cell = render_cell(args.root / "_config.yml")
    changed = [p for p in pages(args.root) if rewrite_page(p, cell)]
    print(f"{len(changed)} page(s) rewritten")
    if changed:  # their notebooks, made again from them (gendel.book.colab builds on this module)
        import subprocess

        subprocess.run([sys.executable, "-m", "gendel.book.colab", "--root", str(args.root), *map(str, changed)],
                       check=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
