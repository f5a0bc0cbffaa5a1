"""What the book publishes beside its HTML: gendel's wheel, and (full edition) the book's source.

A page opened without gendel (Colab, a notebook downloaded from the book) installs it in its first
cell (:mod:`gendel.book.install`). So that a teacher who puts the built book on any static web host
needs nothing else, ``make book`` (the extension ``book/_ext/publish_package.py``) builds gendel's
wheel and writes it into the HTML folder::

    _build/html/wheel/gendel-<version>-py3-none-any.whl   # what the pages' install cell installs
    _build/html/wheel/index.html                          # a link page: pip install --find-links <it>

The wheel holds the package and the GAN results stored with it (``gendel/gan/results``), which the
GAN pages read. The install cell finds it at ``<html.baseurl>/wheel/<name>`` (:func:`wheel_url`), with
``html.baseurl`` the book's address set in ``_config.yml``.

The full edition also carries the book's source, the files the clone tracks as they were built
(``build_source``), so that a teacher who has only the hosted book can build the student edition
and host it for a course::

    _build/html/source/gendel-<version>-source.tar.gz       # tar xzf it; make book EDITION=student

The student edition carries no source: the source holds every solution and the teacher's key.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

#: The folder of the HTML output that holds the wheel.
FOLDER = "wheel"
#: What the wheel must hold besides the code: the stored GAN results the GAN pages read.
DATA = "gendel/gan/results"
#: The folder of the HTML output that holds the book's source (the full edition only).
SOURCE_FOLDER = "source"


def version(root=ROOT):
    """gendel's version, from ``pyproject.toml`` of the clone ``root``.

    Examples
    --------
    >>> from gendel.book.publish import version
    >>> bool(re.fullmatch(r"\\d+\\.\\d+\\.\\d+\\S*", version()))
    True
    """
    pyproject = Path(root) / "pyproject.toml"
    match = re.search(r'^version\s*=\s*"([^"]+)"', pyproject.read_text(), re.M) if pyproject.is_file() else None
    if match is None:
        raise ValueError(f"{pyproject}: no version = \"...\" line in [project]; the wheel's name needs it")
    return match.group(1)


def wheel_name(release):
    """The file name of gendel's wheel of version ``release`` (pure Python, any platform).

    Examples
    --------
    >>> from gendel.book.publish import wheel_name
    >>> wheel_name("0.1.0")
    'gendel-0.1.0-py3-none-any.whl'
    """
    return f"gendel-{release}-py3-none-any.whl"


def wheel_url(book_url, release):
    """Where the book published at ``book_url`` serves the wheel of version ``release``.

    Examples
    --------
    >>> from gendel.book.publish import wheel_url
    >>> wheel_url("https://example.org/gendel/", "0.1.0")
    'https://example.org/gendel/wheel/gendel-0.1.0-py3-none-any.whl'
    """
    return f"{book_url.rstrip('/')}/{FOLDER}/{wheel_name(release)}"


def _sources(root, target):
    """Copy what pip builds gendel from into ``target`` (pip writes build folders next to the sources)."""
    root = Path(root)
    for name in ("pyproject.toml", "README.md"):
        shutil.copyfile(root / name, target / name)
    shutil.copytree(root / "gendel", target / "gendel",
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc", ".ipynb_checkpoints"))
    return target


def build_wheel(outdir, root=ROOT):
    """Build gendel's wheel from the clone ``root`` into ``outdir/wheel/``, with a link page beside
    it; returns the wheel's path. Refuses a wheel that lacks a stored GAN result of the clone.

    Examples
    --------
    From the repository root (``make book`` does this for ``_build/html``)::

        python -c "from gendel.book.publish import build_wheel; print(build_wheel('_build/html'))"
    """
    root, folder = Path(root), Path(outdir) / FOLDER
    name = wheel_name(version(root))
    with tempfile.TemporaryDirectory(prefix="gendel-wheel-") as tmp:
        source = _sources(root, Path(tmp))
        dist = Path(tmp) / "dist"
        command = [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--wheel-dir", str(dist), str(source)]
        if _setuptools_major() >= 68:  # pyproject.toml's build requirement: build with it, offline
            command.insert(4, "--no-build-isolation")
        done = subprocess.run(command, capture_output=True, text=True)
        if done.returncode or not (dist / name).is_file():
            raise RuntimeError(f"pip could not build {name} from {root}: {(done.stderr or done.stdout)[-2000:]}")
        check_wheel(dist / name, root)
        folder.mkdir(parents=True, exist_ok=True)
        for old in folder.glob("gendel-*.whl"):
            old.unlink()
        shutil.copyfile(dist / name, folder / name)
    (folder / "index.html").write_text(
        f'<!DOCTYPE html>\n<html><head><meta charset="utf-8"><title>gendel</title></head>\n<body>\n'
        f'<p>gendel, the package of this book: <code>pip install "gendel[book] @ &lt;this folder&gt;/{name}"</code>'
        f' or <code>pip install --find-links &lt;this folder&gt; "gendel[book]"</code>.</p>\n'
        f'<a href="{name}">{name}</a>\n</body></html>\n')
    return folder / name


def source_name(release):
    """The file name of the book's source archive of version ``release``.

    Examples
    --------
    >>> source_name("0.1.0")
    'gendel-0.1.0-source.tar.gz'
    """
    return f"gendel-{release}-source.tar.gz"


def build_source(outdir, root=ROOT):
    """Write the book's source, the files git tracks in the clone ``root`` as they are on its disk,
    to ``outdir/source/gendel-<version>-source.tar.gz`` (one top folder, ``gendel-<version>/``),
    with a link page beside it; returns the archive's path.

    Raises ``ValueError`` where ``root`` is not a git checkout (the tracked files say what the
    source is; a folder's other files, a virtual environment or a build, are not source).

    Examples
    --------
    >>> import tarfile, tempfile
    >>> from gendel.book.publish import build_source
    >>> path = build_source(tempfile.mkdtemp())                       # doctest: +SKIP
    >>> "gendel-0.1.0/_toc.yml" in tarfile.open(path).getnames()     # doctest: +SKIP
    True
    """
    import tarfile

    root, folder = Path(root), Path(outdir) / SOURCE_FOLDER
    listed = subprocess.run(["git", "-C", str(root), "ls-files", "-z"], capture_output=True)
    if listed.returncode:
        raise ValueError(f"{root} is not a git checkout, so the book's source archive is not written: "
                         f"{listed.stderr.decode(errors='replace').strip()[-300:]}")
    files = [f for f in listed.stdout.decode().split("\0") if f and (root / f).is_file()]
    release = version(root)
    name, top = source_name(release), f"gendel-{release}"
    folder.mkdir(parents=True, exist_ok=True)
    for old in folder.glob("gendel-*-source.tar.gz"):
        old.unlink()
    with tarfile.open(folder / name, "w:gz") as archive:
        for f in sorted(files):
            archive.add(root / f, arcname=f"{top}/{f}", recursive=False)
    (folder / "index.html").write_text(
        f'<!DOCTYPE html>\n<html><head><meta charset="utf-8"><title>gendel: the book\'s source</title></head>\n'
        f'<body>\n<p>The source of this book: <code>tar xzf {name}; cd {top}; make book EDITION=student</code> '
        f'builds the student edition (without solutions, key or teacher pages) for a course site; '
        f'<code>make book</code> builds this one.</p>\n<a href="{name}">{name}</a>\n</body></html>\n')
    return folder / name


def publish_source(outdir, root=ROOT):
    """The book build's step: the source archive (:func:`build_source`) in the full edition, none in
    the student edition (the source holds the solutions and the key) or where ``root`` is not a git
    checkout. Returns ``(path, None)``, or ``(None, why)``.

    Examples
    --------
    >>> import os, tempfile
    >>> from gendel.book.publish import publish_source
    >>> os.environ["GENDEL_EDITION"] = "student"
    >>> publish_source(tempfile.mkdtemp())
    (None, 'the student edition carries no source: it holds the solutions and the key')
    >>> del os.environ["GENDEL_EDITION"]
    """
    from gendel.book.edition import edition

    if edition() == "student":
        return None, "the student edition carries no source: it holds the solutions and the key"
    try:
        return build_source(outdir, root), None
    except ValueError as err:
        return None, str(err)


def _setuptools_major():
    """The major version of the setuptools installed here (0 when there is none)."""
    try:
        from importlib.metadata import version as installed

        return int(installed("setuptools").split(".")[0])
    except (ImportError, LookupError, ValueError):
        return 0


def check_wheel(path, root=ROOT):
    """Check that the wheel at ``path`` holds gendel's code and every stored GAN result of ``root``.

    Examples
    --------
    >>> import tempfile, zipfile, pathlib
    >>> from gendel.book.publish import check_wheel
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "gendel-0.1.0-py3-none-any.whl"
    >>> with zipfile.ZipFile(path, "w") as z:
    ...     z.writestr("gendel/__init__.py", "")
    >>> check_wheel(path)
    Traceback (most recent call last):
    ...
    ValueError: ... lacks ... stored GAN results ...
    """
    with zipfile.ZipFile(path) as wheel:
        held = set(wheel.namelist())
    if "gendel/__init__.py" not in held:
        raise ValueError(f"{path} holds no gendel/__init__.py: it is not gendel's wheel")
    stored = sorted(p.relative_to(root).as_posix() for p in (Path(root) / DATA).rglob("*") if p.is_file())
    missing = [p for p in stored if p not in held]
    if missing:
        raise ValueError(f"{path} lacks {len(missing)} of the {len(stored)} stored GAN results ({missing[0]}, ...), "
                         "which the GAN pages read: list their file types under [tool.setuptools.package-data] "
                         "in pyproject.toml")
    return True
