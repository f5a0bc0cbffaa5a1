"""gendel travels with the book: its wheel, built with the book and published beside the HTML.

A page opened without gendel (Colab, a notebook downloaded from the book) installs it in its first
cell (:mod:`gendel.book.install`). So that a teacher who puts the built book on any static web host
needs nothing else, ``make book`` (the extension ``book/_ext/publish_wheel.py``) builds gendel's
wheel and writes it into the HTML folder::

    _build/html/wheel/gendel-<version>-py3-none-any.whl   # what the pages' install cell installs
    _build/html/wheel/index.html                          # a link page: pip install --find-links <it>

The wheel holds the package and the GAN results stored with it (``gendel/gan/results``), which the
GAN pages read. The install cell finds it at ``<html.baseurl>/wheel/<name>`` (:func:`wheel_url`), with
``html.baseurl`` the book's address set in ``_config.yml``.
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


def version(root=ROOT):
    """gendel's version, from ``pyproject.toml`` of the clone ``root``.

    Examples
    --------
    >>> from gendel.book.wheel import version
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
    >>> from gendel.book.wheel import wheel_name
    >>> wheel_name("0.1.0")
    'gendel-0.1.0-py3-none-any.whl'
    """
    return f"gendel-{release}-py3-none-any.whl"


def wheel_url(book_url, release):
    """Where the book published at ``book_url`` serves the wheel of version ``release``.

    Examples
    --------
    >>> from gendel.book.wheel import wheel_url
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

        python -c "from gendel.book.wheel import build_wheel; print(build_wheel('_build/html'))"
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
    >>> from gendel.book.wheel import check_wheel
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
