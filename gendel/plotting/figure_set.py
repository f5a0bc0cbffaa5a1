"""The figure set: every reproduced figure of the paper as a PNG and an SVG file, for slides.

While the book is built, a page calls :func:`figure_downloads` under each figure that reproduces a
figure of the paper. It writes the figure as ``<name>.png`` (at twice its size in pixels) and
``<name>.svg`` into the built book's figure folder and shows a line "Download: PNG · SVG" that
links them. At the end of the build ``book/_ext/figure_set.py`` packs the folder into one zip,
:data:`ZIP_NAME`, which the teacher's page links.

Outside the book build (JupyterLab, Binder, Colab) :func:`figure_downloads` does nothing and shows
nothing: a reader who wants a file calls ``fig.write_image(...)`` or uses the camera button of
the figure's mode bar.

The static export is plotly's, through kaleido, which drives a Chromium-based browser found on
the ``PATH`` (Debian's ``chromium``) or named by ``$BROWSER_PATH``. Nothing is downloaded: without
such a browser the export stops with an error that says what to install. One browser is started
per kernel, at the first figure, and reused for every later one (a fresh browser per image costs
about 5 s; a reused one about 0.3 s per file).
"""

from __future__ import annotations

import base64
import html
import os
import re
import zipfile
from pathlib import Path

from gendel._environment import in_book_build
from gendel.plotting._still import still_figure
from gendel.plotting.common import readable_figure

#: Where the built book keeps the figure set (set by ``book/_ext/figure_set.py`` for the kernels
#: that execute the pages): a folder of the built HTML.
FOLDER_ENV = "GENDEL_FIGURE_SET_DIR"
#: The book's source folder (the folder of ``_config.yml``), to link the files from a page.
SOURCE_ENV = "GENDEL_FIGURE_SET_SOURCE"
#: The folder of the figure set inside the built HTML, and the name of the zip of the whole set.
FOLDER_NAME = "figure-set"
ZIP_NAME = "gendel-figures.zip"
#: Size in CSS pixels of a figure that does not set its own (the book's figures set a height and
#: take the page's width); the PNG has twice as many pixels each way.
DEFAULT_WIDTH, DEFAULT_HEIGHT = 1000, 500
PNG_SCALE = 2

#: A file name of the set: the paper's figure first (``fig4a``, ``fig7ab``, ``appD1``, ``appE``),
#: then lower-case words joined by ``_``.
NAME = re.compile(r"(fig[0-9]+[a-z]*|app[A-E][0-9]*)(_[a-z0-9]+)+")

_WRITTEN: set[str] = set()  # names written by this kernel: a name used twice on a page is a mistake


class FigureExportError(RuntimeError):
    """The static export of a figure is not possible here (no browser, kaleido missing).

    Examples
    --------
    >>> from gendel.plotting.figure_set import FigureExportError
    >>> issubclass(FigureExportError, RuntimeError)
    True
    """


def check_name(name):
    """``name`` if it is a valid file name of the figure set, else a ``ValueError`` that says why.

    Examples
    --------
    >>> from gendel.plotting.figure_set import check_name
    >>> check_name("fig4a_mog8_ks_lr")
    'fig4a_mog8_ks_lr'
    >>> check_name("Fig 4a.png")
    Traceback (most recent call last):
    ...
    ValueError: figure name 'Fig 4a.png' must start with the paper's figure (fig4a, fig7ab, appD1, appE) followed by lower-case words joined by '_', e.g. 'fig4a_mog8_ks_lr', without a file extension
    """
    if not isinstance(name, str) or not NAME.fullmatch(name):
        raise ValueError(f"figure name {name!r} must start with the paper's figure (fig4a, fig7ab, appD1, appE) "
                         "followed by lower-case words joined by '_', e.g. 'fig4a_mog8_ks_lr', without a file "
                         "extension")
    return name


def browser_path():
    """The Chromium-based browser kaleido would drive: ``$BROWSER_PATH`` or one on the ``PATH``,
    or ``None`` if there is none (kaleido's own download is not looked for: nothing is downloaded).

    Examples
    --------
    >>> from gendel.plotting.figure_set import browser_path
    >>> path = browser_path()
    >>> path is None or isinstance(path, str)
    True
    """
    if os.environ.get("BROWSER_PATH"):
        return os.environ["BROWSER_PATH"]
    try:
        from choreographer.browsers.chromium import Chromium
    except ImportError:
        return None
    return Chromium.find_browser(skip_local=True)


def _server():
    """kaleido's shared browser for this kernel, started at the first call."""
    try:
        import kaleido
    except ImportError as err:
        raise FigureExportError("the figure set needs kaleido (pip install 'kaleido>=1', part of gendel's book "
                                "extra)") from err
    if browser_path() is None:
        raise FigureExportError("the figure set needs a Chromium-based browser for plotly's static export, and none "
                                "was found: install one (on Debian: apt-get install chromium; `make book` does) or "
                                "set BROWSER_PATH to its executable")
    if not kaleido._global_server.is_running():
        # mathjax=False: the figures hold no TeX, and kaleido would fetch MathJax from a CDN
        kaleido.start_sync_server(n=1, timeout=120, mathjax=False, silence_warnings=True)
    return kaleido


def write_figure(fig, folder, name, *, width=None, height=None):
    """Write ``fig`` as ``<folder>/<name>.png`` (at :data:`PNG_SCALE` times its size) and
    ``<folder>/<name>.svg``; returns the two paths.

    The texts pass through :func:`!gendel.plotting.common.readable_figure`'s rewriting, as in the
    book, so the files read like the figure on the page. A figure with a slider or update-menu
    buttons is written in the state the page opens with, without the controls (on a slide they
    would be dead widgets): the active step's traces and layout changes are applied, its label
    (``"σ_C = 0.125"``) is written where the slider showed it, and the bottom margin the slider
    needed is given back (the image is that much shorter; the plots keep their size). The size is
    the figure's own, else ``width`` and ``height``, else :data:`DEFAULT_WIDTH` ×
    :data:`DEFAULT_HEIGHT`.

    Parameters
    ----------
    fig : plotly.graph_objects.Figure or dict
    folder : str or Path
        Created if missing.
    name : str
        See :func:`check_name`.
    width, height : int, optional
        CSS pixels where the figure sets none.

    Returns
    -------
    tuple of Path
        The PNG and the SVG file.

    Raises
    ------
    FigureExportError
        Where kaleido or a Chromium-based browser is missing.

    Examples
    --------
    >>> import tempfile
    >>> import plotly.graph_objects as go
    >>> from gendel.plotting.figure_set import browser_path, write_figure
    >>> fig = go.Figure(go.Scatter(x=[0, 1], y=[1, 0]), layout=dict(width=300, height=200))
    >>> if browser_path():                                # skipped where no browser is installed
    ...     png, svg = write_figure(fig, tempfile.mkdtemp(), "fig1_demo")
    ...     print(png.name, svg.name)
    ... else:
    ...     print("fig1_demo.png fig1_demo.svg")
    fig1_demo.png fig1_demo.svg
    """
    check_name(name)
    spec = fig if isinstance(fig, dict) else fig.to_dict()
    layout = spec.get("layout", {})
    width = layout.get("width") or width or DEFAULT_WIDTH
    spec, height = still_figure(spec, layout.get("height") or height or DEFAULT_HEIGHT)
    spec = _framed(readable_figure({k: v for k, v in spec.items() if k != "frames"}))
    data = {fmt: _export(spec, fmt, width, height, scale, name) for fmt, scale in (("png", PNG_SCALE), ("svg", 1))}
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    return tuple(_save(folder / f"{name}.{fmt}", data[fmt]) for fmt in ("png", "svg"))


def _framed(spec):
    """``spec`` with a title at the figure's top-left edge moved into the image.

    plotly.js places a title of several lines (``<br>``) with its first baseline at the top
    padding, so the first line sticks out above the figure: on a page the overflow shows, in an
    image it is cut off. The export moves such a title down by 0.7 of its font size (the shift a
    one-line title gets) and 10 px in from a left edge at ``x = 0``.
    """
    layout = dict(spec.get("layout", {}))
    title = dict(layout.get("title") or {})
    if "<br>" not in str(title.get("text", "")):
        return spec
    pad = dict(title.get("pad") or {})
    if title.get("yanchor") == "top" and title.get("yref", "container") == "container":
        size = (title.get("font") or {}).get("size") or 17
        pad["t"] = pad.get("t", 0) + round(0.7 * size)
    if title.get("x") == 0 and title.get("xanchor") == "left" and title.get("xref", "container") == "container":
        pad["l"] = pad.get("l", 0) + 10
    layout["title"] = {**title, "pad": pad}
    return {**spec, "layout": layout}


def _page_prefix():
    """The relative URL from the page being built to the root of the built HTML (``../../``)."""
    source = os.environ.get(SOURCE_ENV)
    if not source:
        raise FigureExportError(f"{SOURCE_ENV} is not set: the figure set is written only in a build of the book "
                                "with book/_ext/figure_set.py in _config.yml's local_extensions")
    try:
        depth = len(Path.cwd().resolve().relative_to(Path(source).resolve()).parts)
    except ValueError as err:
        raise FigureExportError(f"the page runs in {Path.cwd()}, outside the book's source folder {source}: cannot "
                                "link the figure files from it") from err
    return "../" * depth


def download_links(name, prefix=""):
    """The HTML line shown under a figure: "Download: PNG · SVG", linking ``<name>.png`` and
    ``<name>.svg`` of the figure set (``prefix`` leads from the page to the book's root).

    Examples
    --------
    >>> from gendel.plotting.figure_set import download_links
    >>> print(download_links("fig2_mog8_setup", "../../"))
    <p class="gendel-figure-downloads" style="font-size: 0.9em">Download: <a href="../../figure-set/fig2_mog8_setup.png" download title="fig2_mog8_setup.png">PNG</a> · <a href="../../figure-set/fig2_mog8_setup.svg" download title="fig2_mog8_setup.svg">SVG</a></p>
    """
    check_name(name)
    links = " · ".join(f'<a href="{html.escape(prefix)}{FOLDER_NAME}/{name}.{fmt}" download title="{name}.{fmt}">'
                       f'{fmt.upper()}</a>' for fmt in ("png", "svg"))
    return f'<p class="gendel-figure-downloads" style="font-size: 0.9em">Download: {links}</p>'


def figure_downloads(fig, name, **size):
    """Under a figure that reproduces one of the paper's: in the book build, write it to the figure
    set (:func:`write_figure`) and show the line that links the two files; elsewhere nothing.

    Call it after ``fig.show()``, in the same cell. Returns ``None`` (the line is displayed, so
    that two figures in one cell each get theirs).

    Parameters
    ----------
    fig : plotly.graph_objects.Figure
    name : str
        The files' name without extension, starting with the paper's figure: ``"fig4a_mog8_ks_lr"``.
    **size
        ``width`` or ``height`` for a figure that sets none (see :func:`write_figure`).

    Examples
    --------
    Outside the book build it writes nothing and shows nothing:

    >>> import os
    >>> import plotly.graph_objects as go
    >>> from gendel.plotting.figure_set import figure_downloads
    >>> os.environ.get("GENDEL_BOOK_BUILD") or figure_downloads(go.Figure(), "fig2_demo") is None
    True
    """
    _offer(name, lambda folder: write_figure(fig, folder, name, **size))


def svg_downloads(svg, name):
    """:func:`figure_downloads` for a figure the book draws as an SVG file (Fig. 1): in the book
    build, copy it to the figure set as ``<name>.svg``, render ``<name>.png`` from it (at
    :data:`PNG_SCALE` times the size of its ``viewBox``) and show the line that links both;
    elsewhere nothing.

    Examples
    --------
    >>> import os
    >>> from gendel.plotting.figure_set import svg_downloads
    >>> os.environ.get("GENDEL_BOOK_BUILD") or svg_downloads("figures/framework.svg", "fig1_framework") is None
    True
    """
    _offer(name, lambda folder: write_svg(svg, folder, name))


def write_svg(svg, folder, name):
    """Copy the SVG file ``svg`` to ``<folder>/<name>.svg`` and render ``<folder>/<name>.png`` from
    it (plotly's export of a figure that holds the SVG as its one image); returns the two paths.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from gendel.plotting.figure_set import browser_path, write_svg
    >>> svg = Path(tempfile.mkdtemp()) / "box.svg"
    >>> _ = svg.write_text('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 120 80">'
    ...                    '<rect width="120" height="80" fill="teal"/></svg>')
    >>> if browser_path():
    ...     print([p.name for p in write_svg(svg, svg.parent / "set", "fig1_box")])
    ... else:
    ...     print(['fig1_box.png', 'fig1_box.svg'])
    ['fig1_box.png', 'fig1_box.svg']
    """
    check_name(name)
    text = Path(svg).read_text()
    box = re.search(r'viewBox="\s*([-\d.]+)[\s,]+([-\d.]+)[\s,]+([\d.]+)[\s,]+([\d.]+)\s*"', text)
    if not box:
        raise ValueError(f"{svg} has no viewBox: give its <svg> element one, so that its PNG has a size")
    width, height = float(box.group(3)), float(box.group(4))
    source = "data:image/svg+xml;base64," + base64.b64encode(text.encode()).decode("ascii")
    hidden = {"visible": False, "range": [0, 1]}
    spec = {"data": [], "layout": {
        "width": width, "height": height, "margin": {"l": 0, "r": 0, "t": 0, "b": 0}, "xaxis": hidden,
        "yaxis": hidden, "paper_bgcolor": "white", "plot_bgcolor": "white",
        "images": [{"source": source, "xref": "paper", "yref": "paper", "x": 0, "y": 1, "sizex": 1, "sizey": 1,
                    "xanchor": "left", "yanchor": "top", "sizing": "stretch"}]}}
    png = _export(spec, "png", width, height, PNG_SCALE, name)
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    return _save(folder / f"{name}.png", png), _save(folder / f"{name}.svg", text.encode())


def _export(spec, fmt, width, height, scale, name):
    data = _server().calc_fig_sync(spec, opts=dict(format=fmt, width=width, height=height, scale=scale))
    if isinstance(data, Exception):
        raise FigureExportError(f"plotly's static export of {name}.{fmt} failed: {data}") from data
    return data


def _save(path, data):
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_bytes(data)
    tmp.replace(path)  # atomic: a zip made meanwhile never holds half a file
    return path


def _offer(name, write):
    """In the book build: ``write(folder)`` the files of ``name`` and display their links.

    Only a build that names the folder (``book/_ext/figure_set.py`` sets :data:`FOLDER_ENV`) gets a
    figure set: a page run with ``GENDEL_BOOK_BUILD=1`` outside Sphinx (the page benchmark) writes
    nothing and shows no links."""
    check_name(name)
    folder = os.environ.get(FOLDER_ENV)
    if not in_book_build() or not folder:
        return None
    if name in _WRITTEN:
        raise ValueError(f"figure name {name!r} is used twice in this page: give each figure its own name")
    prefix = _page_prefix()
    write(folder)
    _WRITTEN.add(name)
    from IPython.display import HTML, display

    display(HTML(download_links(name, prefix)))
    return None


def zip_figure_set(folder):
    """Pack every ``<name>.png`` and ``<name>.svg`` of ``folder`` into ``<folder>/`` :data:`ZIP_NAME`;
    returns the zip's path and the names packed.

    Raises a ``ValueError`` where a figure has one of its two files only (an export stopped half
    way) or a file's name is not a name of the set.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from gendel.plotting.figure_set import zip_figure_set
    >>> folder = Path(tempfile.mkdtemp())
    >>> for suffix in (".png", ".svg"):
    ...     _ = (folder / f"fig2_demo{suffix}").write_bytes(b"...")
    >>> path, names = zip_figure_set(folder)
    >>> path.name, names
    ('gendel-figures.zip', ['fig2_demo.png', 'fig2_demo.svg'])
    """
    folder = Path(folder)
    files = sorted(p for p in folder.glob("*") if p.suffix in (".png", ".svg"))
    stems = {p.stem for p in files}
    for stem in sorted(stems):
        check_name(stem)
        missing = [s for s in (".png", ".svg") if not (folder / f"{stem}{s}").is_file()]
        if missing:
            raise ValueError(f"the figure set has {stem} without its {missing[0]} file: rebuild the book "
                             "(an export stopped half way)")
    target = folder / ZIP_NAME
    tmp = folder / f".{ZIP_NAME}.tmp"
    with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as z:
        for p in files:
            z.write(p, f"gendel-figures/{p.name}")
    tmp.replace(target)
    return target, [p.name for p in files]


__all__ = ["DEFAULT_HEIGHT", "DEFAULT_WIDTH", "FOLDER_ENV", "FOLDER_NAME", "FigureExportError", "PNG_SCALE",
           "SOURCE_ENV", "ZIP_NAME", "browser_path", "check_name", "download_links", "figure_downloads",
           "svg_downloads", "write_figure", "write_svg", "zip_figure_set"]
