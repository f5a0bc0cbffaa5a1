"""Shared style and the plotly renderer of the executed book."""

from __future__ import annotations

import base64
import os
import re
import sys

import numpy as np

import plotly.io as pio
from plotly.io._base_renderers import MimetypeRenderer

from gendel._environment import in_colab
from gendel.deletion_test.stats import STATISTICS

#: The paper's colour code (§5.1): light blue for the approximated model, orange for the
#: pre-trained model (H0), green for the re-trained model (H1).
COLORS = {
    "D": "#56B4E9",  # approximated model rho_hat_E * p_hat
    "H0": "#E69F00",  # pre-trained p_hat
    "H1": "#009E73",  # re-trained p_hat'
    "deleted": "#D62728",  # X'
    "kept": "#1F4E9C",  # X \ X'
}

def rgba(colour, alpha):
    """A ``'#RRGGBB'`` colour as a plotly ``rgba(...)`` string with opacity ``alpha``.

    Examples
    --------
    >>> rgba("#E69F00", 0.2)
    'rgba(230, 159, 0, 0.2)'
    """
    h = colour.lstrip("#")
    r, g, b = (int(h[i:i + 2], 16) for i in (0, 2, 4))
    return f"rgba({r}, {g}, {b}, {alpha})"


#: One colour per statistic of the registry :data:`gendel.deletion_test.stats.STATISTICS`, in its
#: order (LR dark grey, ASC log t purple, t log t pink, Hellinger dark red, MMD² dark blue); names
#: and axis titles are the registry's own.
STAT_COLORS = dict(zip(STATISTICS, ("#3B3B3B", "#7B4F9D", "#CC79A7", "#B2182B", "#1F4E9C")))

#: Colours for every curve that is none of the three models: greys, purples, dark red and dark
#: blue, far from the paper's orange, green and light blue (and from their near shades: gold,
#: yellow, teal, sky blue), so that those three keep one meaning on every page.
NEUTRALS = ("#3B3B3B", "#7B4F9D", "#B2182B", "#1F4E9C", "#8C8C8C", "#CC79A7", "#5E3C99", "#6B4423")

#: The colours the paper's code reserves for the three models, and their near shades; no other
#: curve may use them (checked by ``tests/test_palette.py``).
RESERVED = {COLORS["D"], COLORS["H0"], COLORS["H1"], "#F0E442", "#C7B200", "#5DC863", "#21908C", "#2CA02C",
            "#FFD700", "#E6AB02"}

#: A colour per lambda value of the experiments, light to dark (purples: no model colour among them).
LAMBDA_COLORS = {0.5: "#B8A8D6", 0.6: "#9A84C4", 0.7: "#7B5FAF", 0.8: "#5B3C96", 0.9: "#3A1F6E"}

#: Plotly config of every figure: no logo, static image export in the mode bar.
CONFIG = {"displaylogo": False, "responsive": True}

BOOK_RENDERER = "gendel_book"

#: Run after each figure of the book is drawn: hand it to the page's ``gendelFigure``
#: (``book/_static/gendel-layout.js``, loaded on every page by ``book/_ext/plotly_js.py``). It sizes
#: the figure again once the page is laid out (the figure's inline script runs while the page is
#: still being parsed, before the theme's right-hand sidebar exists, so plotly would size it for a
#: wider column than it ends up in), follows its column's width, and in a column under 600 px (a
#: phone) stacks side-by-side panels into one column, each panel the column's width.
FIT_TO_COLUMN_JS = "if (window.gendelFigure) { window.gendelFigure('{plot_id}'); }"


#: float64 arrays whose finite non-zero magnitudes lie in this range are stored as float32 in the
#: book's HTML (outside it float32 would round to 0 or inf; those arrays stay float64).
_F4_RANGE = (1e-30, 1e30)


def compact_figure(obj):
    """A copy of a figure dict with its float64 typed arrays stored as float32.

    plotly.py writes numpy arrays as base64 typed arrays (``{"dtype": "f8", "bdata": ...}``).
    float32 keeps 7 significant digits, more than any axis, colour or hover label shows (hover
    templates print 3 or 4), and halves the bytes of every array. Arrays with magnitudes outside
    :data:`_F4_RANGE` stay float64. Everything else is returned unchanged, so a figure looks and
    hovers in the book as it does in a live kernel.

    Examples
    --------
    >>> import numpy as np
    >>> import plotly.graph_objects as go
    >>> d = go.Figure(go.Scatter(x=np.linspace(0.0, 1.0, 4), y=np.array([1e-40, 1.0]))).to_dict()
    >>> c = compact_figure(d)
    >>> c["data"][0]["x"]["dtype"], c["data"][0]["y"]["dtype"], d["data"][0]["x"]["dtype"]
    ('f4', 'f8', 'f8')
    >>> np.frombuffer(base64.b64decode(c["data"][0]["x"]["bdata"]), np.float32).tolist()
    [0.0, 0.3333333432674408, 0.6666666865348816, 1.0]
    """
    if isinstance(obj, dict):
        if obj.get("dtype") == "f8" and isinstance(obj.get("bdata"), str):
            values = np.frombuffer(base64.b64decode(obj["bdata"]), dtype="<f8")
            mags = np.abs(values[np.isfinite(values) & (values != 0)])
            if mags.size and (mags.min() < _F4_RANGE[0] or mags.max() > _F4_RANGE[1]):
                return obj
            return {**obj, "dtype": "f4", "bdata": base64.b64encode(values.astype("<f4").tobytes()).decode("ascii")}
        return {k: compact_figure(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [compact_figure(v) for v in obj]
    return obj


class _BookRenderer(MimetypeRenderer):
    """Render a figure as an HTML fragment that relies on a page-level plotly.js.

    The book loads plotly.js once per page (see ``book/_ext/plotly_js.py``) instead of inlining
    4.6 MB of JavaScript into every page, and the figure's float64 arrays are written as float32
    (:func:`compact_figure`). Every text a reader sees passes through :func:`plotly_text`
    (:func:`readable_figure`), so no ``σ_C`` or ``c_{N}`` reaches a page.
    """

    def to_mimebundle(self, fig_dict):
        html = pio.to_html(compact_figure(_readable(fig_dict)), include_plotlyjs=False, full_html=False, config=CONFIG, validate=False,
                           post_script=FIT_TO_COLUMN_JS)
        return {"text/html": _unescape_base64(html)}


#: A base64 typed array in plotly's JSON.
_BDATA = re.compile(r'"bdata":"[A-Za-z0-9+=\\]*"')


def _unescape_base64(html):
    r"""``html`` with the ``/`` of base64 typed arrays written as ``/``.

    plotly writes every ``/`` of its JSON as ``\u002f`` (and ``<``, ``>`` as ``\u003c``,
    ``\u003e``, so that no ``</script>`` can end the figure's script early). In base64 data that
    costs up to a third of a figure's bytes (float32 values near 1 put many ``/`` in their
    base64); base64 holds no ``<``, so its ``/`` is safe as it is. Other text keeps its escapes.

    Examples
    --------
    >>> print(_unescape_base64(r'{"bdata":"P\u002fAA","text":"a\u002fb"}'))
    {"bdata":"P/AA","text":"a\u002fb"}
    """
    return _BDATA.sub(lambda m: m.group(0).replace("\\u002f", "/"), html)


def _renderers():
    """plotly's renderer registry (``plotly.io.renderers``), imported without the IRI grammar of
    ``rfc3987_syntax``.

    plotly's renderers import nbformat, nbformat imports jsonschema, and jsonschema imports
    ``rfc3987_syntax`` where it is installed (Jupyter's server pulls it in), for its optional
    "iri" format checks, which neither plotly nor nbformat uses. ``rfc3987_syntax`` builds an
    Earley parser of RFC 3987 when it is imported: about 1.5 s of CPU, which every page paid at its
    start. So while the renderers are imported for the first time, ``rfc3987_syntax`` reads as not
    installed, and jsonschema leaves out the "iri" checks as it does where that package is missing.
    Nothing else changes: a later ``import rfc3987_syntax`` works as usual.
    """
    if "plotly.io._renderers" in sys.modules or "jsonschema" in sys.modules or "rfc3987_syntax" in sys.modules:
        return pio.renderers
    sys.modules["rfc3987_syntax"] = None  # import rfc3987_syntax now raises ImportError
    try:
        return pio.renderers
    finally:
        if sys.modules.get("rfc3987_syntax", False) is None:
            del sys.modules["rfc3987_syntax"]


_renderers()[BOOK_RENDERER] = _BookRenderer()


_BRACED = re.compile(r"([_^])\{([^{}]*)\}")
#: An unbraced subscript: one letter (Latin or Greek, possibly with a combining hat/tilde/bar, a
#: prime and a ²) that does not end a longer word, or one of the names ASC, MMD, Var, KL, LR; then
#: ``_`` and a token of at most four letters/digits (Latin, Greek, or a script capital of Unicode's
#: letterlike symbols such as the ℰ of the DRE's ratio ρ̂_ℰ) or ``*``.
_UNBRACED = re.compile(r"(?<![A-Za-z0-9_])((?:ASC|MMD|Var|KL|LR)²?|[A-Za-z\u0370-\u03ff][\u0302\u0303\u0304]?'?²?)_([A-Za-z0-9\u0370-\u03ff\u2100-\u214f]{1,4}|\*)(?![A-Za-z0-9_{])")
#: What plotly_text leaves alone: hover-template variables (``%{customdata[0]}``) and HTML tags.
_VERBATIM = re.compile(r"(%\{[^}]*\}|<[^>]*>)")


def plotly_text(text):
    """Text for a plotly title, legend entry or axis title with TeX-like marks made readable.

    Plotly shows text, not TeX: ``c_{N−N'}`` would appear with its braces, ``σ_C`` with its
    underscore. Braced sub- and superscripts, and an unbraced ``_`` after a single letter followed
    by a short token (``σ_C``, ``Y_H0``, ``ρ̂_ℰ``), become plotly's ``<sub>``/``<sup>`` tags, and a
    set difference written ``X \\ X'`` becomes ``X ∖ X'``. A line of smaller text under a title,
    written ``<br><sup>…</sup>``, is set at :data:`SUBTITLE_SIZE` px (plotly draws ``<sup>`` at 70 %
    of the title's size, about 8 to 10 px, too small to read). Hover-template variables
    (``%{customdata[0]}``) and other HTML tags (``<extra>``) are left as they are; ``None`` passes
    through.

    Examples
    --------
    >>> plotly_text("4(c_N + c_{N−N'} − 2)")
    "4(c<sub>N</sub> + c<sub>N−N'</sub> − 2)"
    >>> plotly_text("‖ρ̂_ℰ p̂ − p̂'‖_{1,p̂} on X \\\\ X'")
    "‖ρ̂<sub>ℰ</sub> p̂ − p̂'‖<sub>1,p̂</sub> on X ∖ X'"
    >>> plotly_text("σ_C = 0.1, Y_H0 vs Y_D")
    'σ<sub>C</sub> = 0.1, Y<sub>H0</sub> vs Y<sub>D</sub>'
    >>> plotly_text("ρ_* = p_*'/p_*, ASC_φ, MMD²_u")
    "ρ<sub>*</sub> = p<sub>*</sub>'/p<sub>*</sub>, ASC<sub>φ</sub>, MMD²<sub>u</sub>"
    >>> plotly_text("x_i = %{customdata[0]}<extra>max_k</extra>")
    'x<sub>i</sub> = %{customdata[0]}<extra>max_k</extra>'
    >>> plotly_text("Label bars<br><sup>gpu profile, N = 10<sup>4</sup></sup>; MMD<sup>2</sup>")
    "Label bars<br><span style='font-size:12px'>gpu profile, N = 10<sup>4</sup></span>; MMD<sup>2</sup>"
    """
    if text is None:
        return None
    def tag(match):
        kind = "sub" if match.group(1) == "_" else "sup"
        return f"<{kind}>{match.group(2)}</{kind}>"

    parts = _VERBATIM.split(str(text))
    for i in range(0, len(parts), 2):  # even entries: text outside templates and tags
        parts[i] = _UNBRACED.sub(r"\1<sub>\2</sub>", _BRACED.sub(tag, parts[i]))
    return _subtitles("".join(parts).replace(" \\ ", " ∖ "))


#: The font size (px) of the line of settings under a figure's title (see :func:`plotly_text`).
SUBTITLE_SIZE = 12
_SUP = re.compile(r"<(/?)sup>")


def _subtitles(text):
    """``text`` with each ``<br><sup>…</sup>`` (to its matching ``</sup>``) set at SUBTITLE_SIZE px."""
    out, i, opening = [], 0, "<br><sup>"
    while True:
        j = text.find(opening, i)
        if j < 0:
            return "".join(out) + text[i:]
        depth, k = 1, j + len(opening)
        while depth:
            match = _SUP.search(text, k)
            if match is None:  # no matching </sup>: leave the rest as it is
                return "".join(out) + text[i:]
            depth += -1 if match.group(1) else 1
            k = match.end()
        inner = text[j + len(opening):k - len("</sup>")]
        out.append(f"{text[i:j]}<br><span style='font-size:{SUBTITLE_SIZE}px'>{inner}</span>")
        i = k


#: Keys whose string values a reader sees (titles, names, labels, annotation and tick texts).
_TEXT_KEYS = {"text", "name", "label", "prefix", "suffix", "ticktext", "title", "title.text", "title_text"}
#: Keys never rewritten: hover templates, data, and the HTML of a figure's template.
_SKIP_KEYS = {"hovertemplate", "texttemplate", "customdata", "x", "y", "z", "template", "meta", "uirevision"}


def _is_text_key(key):
    """A key whose value a reader sees, also as a path that a slider step or a button sets
    (``"xaxis.title.text"``, ``"annotations[0].text"``, ``"xaxis_title_text"``)."""
    return key in _TEXT_KEYS or re.split(r"[._\]]", key)[-1] in {"text", "title", "ticktext", "prefix", "suffix"}


def _readable(obj, key=None):
    """``obj`` (plotly JSON) with :func:`plotly_text` applied to every reader-visible string."""
    if isinstance(obj, dict):
        out = {}
        for k, v in obj.items():
            if k in _SKIP_KEYS:
                out[k] = v
            elif _is_text_key(k) and isinstance(v, str):
                out[k] = plotly_text(v)
            elif (_is_text_key(k) or (k == "values" and key in ("header", "cells"))) and isinstance(v, (list, tuple)):
                out[k] = [plotly_text(e) if isinstance(e, str) else
                          [plotly_text(c) if isinstance(c, str) else c for c in e] if isinstance(e, (list, tuple)) else e
                          for e in v]
            else:
                out[k] = _readable(v, k)
        return out
    if isinstance(obj, (list, tuple)):
        return [_readable(v, key) for v in obj]
    return obj


def readable_figure(fig):
    """``fig`` with :func:`plotly_text` applied to every text a reader sees, returned.

    Covers figure, axis, legend and colour-bar titles, trace names and legend-group titles,
    annotation texts, slider step labels and current-value prefix, update-menu labels (and what
    their buttons set), tick texts, and table headers and cells, in the layout and in every
    animation frame. Hover templates are left as they are. A ``go.Figure`` or ``FigureWidget`` is
    changed in place; a figure dict is returned rewritten.

    Examples
    --------
    >>> import plotly.graph_objects as go
    >>> fig = go.Figure(go.Scatter(x=[0, 1], y=[0, 1], name="σ_C = 0.1", hovertemplate="%{x}<extra></extra>"))
    >>> fig = readable_figure(fig.update_layout(title="Y_H0 vs Y_D", xaxis_title="c_{N−N'}"))
    >>> fig.data[0].name, fig.layout.title.text, fig.layout.xaxis.title.text
    ('σ<sub>C</sub> = 0.1', 'Y<sub>H0</sub> vs Y<sub>D</sub>', "c<sub>N−N'</sub>")
    >>> fig.data[0].hovertemplate
    '%{x}<extra></extra>'
    """
    if isinstance(fig, dict):
        return _readable(fig)
    keep = ("name", "legendgrouptitle", "header", "cells", "colorbar", "dimensions")
    for trace in fig.data:  # trace by trace: a FigureWidget's batch_update would null untouched keys
        raw = {k: trace[k] for k in keep if k in trace and trace[k] is not None}
        new = _readable({k: v.to_plotly_json() if hasattr(v, "to_plotly_json") else v for k, v in raw.items()})
        changed = {k: v for k, v in new.items() if v != (raw[k].to_plotly_json() if hasattr(raw[k], "to_plotly_json")
                                                          else raw[k])}
        if changed:
            trace.update(changed)
    layout = fig.layout.to_plotly_json()
    layout.pop("template", None)
    fig.layout.update(_readable(layout))
    if fig.frames:
        fig.frames = [_readable(f.to_plotly_json()) for f in fig.frames]
    return fig


def configure_renderer():
    """Choose the plotly renderer for where a page runs.

    - During the book build (``GENDEL_BOOK_BUILD=1``): HTML fragments using the page's plotly.js.
    - In Google Colab: plotly's ``colab`` renderer.
    - Elsewhere (Jupyter, VS Code, Binder): plotly's automatic choice.

    Examples
    --------
    >>> import plotly.io as pio
    >>> from gendel.plotting.common import configure_renderer
    >>> before = pio.templates.default, pio.renderers.default
    >>> renderer = configure_renderer()
    >>> pio.templates.default, renderer == pio.renderers.default
    ('plotly_white', True)
    >>> pio.templates.default, pio.renderers.default = before      # undo, for the examples after this one
    """
    pio.templates.default = "plotly_white"
    if os.environ.get("GENDEL_BOOK_BUILD"):
        pio.renderers.default = BOOK_RENDERER
    elif in_colab():
        pio.renderers.default = "colab"
    return pio.renderers.default


def step_outline(edges, heights):
    """The path ``(x, y)`` of a histogram's outline: up from 0 at the first edge, along every bin,
    down to 0 at the last edge. Drawn as a line, it shows a histogram without a fill, so two
    overlapping histograms (one as bars, one as an outline) keep their own colours.

    Examples
    --------
    >>> from gendel.plotting.common import step_outline
    >>> x, y = step_outline([0.0, 1.0, 2.0], [3, 5])
    >>> x.tolist(), y.tolist()
    ([0.0, 0.0, 1.0, 1.0, 2.0, 2.0], [0.0, 3.0, 3.0, 5.0, 5.0, 0.0])
    """
    edges, heights = np.asarray(edges, dtype=float), np.asarray(heights, dtype=float)
    if edges.size != heights.size + 1:
        raise ValueError(f"need one more edge than heights; got {edges.size} edges and {heights.size} heights")
    return np.repeat(edges, 2), np.concatenate([[0.0], np.repeat(heights, 2), [0.0]])


#: What markdown_text leaves alone: code spans, inline and display math, HTML tags.
_MARKDOWN_VERBATIM = re.compile(r"(`[^`]*`|\$\$.*?\$\$|\$[^$]*\$|<[^>]*>)", re.S)


def markdown_text(text):
    """Markdown text with the subscripts of :func:`plotly_text` written as HTML ``<sub>`` tags.

    A table printed by a page's code is Markdown, not TeX: ``ρ̂_ℰ`` would show its underscore.
    Code spans (`` `n_null` ``) and math (``$\\hat\\rho_{\\mathcal E}$``) are left as they are.

    Examples
    --------
    >>> from gendel.plotting.common import markdown_text
    >>> markdown_text("KS of ρ̂_ℰ at σ_C = 0.1; `n_null` and $Y_{H0}$ unchanged")
    'KS of ρ̂<sub>ℰ</sub> at σ<sub>C</sub> = 0.1; `n_null` and $Y_{H0}$ unchanged'
    """
    parts = _MARKDOWN_VERBATIM.split(str(text))
    for i in range(0, len(parts), 2):  # even entries: plain Markdown text
        parts[i] = plotly_text(parts[i])
    return "".join(parts)


def _is_nan(value):
    return isinstance(value, (float, np.floating)) and bool(np.isnan(value))


def markdown_table(header, rows, formats=None):
    """A Markdown table of computed values, for ``IPython.display.Markdown`` in a page.

    Header and cells go through :func:`!markdown_text`, so ``σ_C`` reads as σ<sub>C</sub>.

    Parameters
    ----------
    header : sequence of str
        Column titles.
    rows : sequence of sequences
        One sequence of cell values per row, as many as ``header``.
    formats : sequence of str or None, optional
        A format spec per column (e.g. ``".3f"``); None or ``""`` uses ``str``. A NaN (a number
        that was not measured) reads as "–".

    Returns
    -------
    str

    Examples
    --------
    >>> from gendel.plotting.common import markdown_table
    >>> print(markdown_table(["λ", "KS"], [(0.5, 0.9123), (0.9, 0.5)], formats=["", ".2f"]))
    | λ | KS |
    |---|---|
    | 0.5 | 0.91 |
    | 0.9 | 0.50 |
    """
    header = [markdown_text(h).replace("|", "\\|") for h in header]
    formats = list(formats) if formats is not None else [None] * len(header)
    if len(formats) != len(header):
        raise ValueError(f"got {len(formats)} formats for {len(header)} columns")
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join(["---"] * len(header)) + "|"]
    for row in rows:
        row = list(row)
        if len(row) != len(header):
            raise ValueError(f"every row needs {len(header)} cells; got {len(row)}: {row!r}")
        cells = ["–" if _is_nan(v) else markdown_text(format(v, f) if f else str(v)) for v, f in zip(row, formats)]
        lines.append("| " + " | ".join(c.replace("|", "\\|").replace("\n", " ") for c in cells) + " |")
    return "\n".join(lines)
