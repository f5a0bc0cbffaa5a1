"""The built book on a phone (420 px): nothing a reader needs is wider than the screen.

- No figure (a plotly figure, an image, an SVG), table or block of code is wider than the
  viewport or reaches past its edge, with every dropdown of the page open: figures of several
  panels stack them (``book/_static/gendel-layout.js``), tables too wide for the column show one
  card per row, code wraps. In a figure, the title, legends, sliders, menus and colour bars do not
  overlap one another or a panel's plot area.
- An inline formula wider than the column sits in a box of its own that scrolls sideways, with the
  shadow cue of the display equations (a phone shows no scroll bar until the reader touches it);
  so does a table that is not stacked. Display equations are checked in ``test_browser.py``.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import PAGES
from test_browser import CHROMIUM, CHROMIUM_ARGS, PHONE, server  # noqa: F401 (server is a fixture)

pytestmark = pytest.mark.browser

# Each visible table and inline formula that reaches outside the article column without a
# scrolling box inside the column (the element itself or an ancestor below the article, with
# overflow-x auto or scroll), and each table whose box must scroll but shows no shadow cue.
OVERFLOW_JS = """async () => {
  if (window.MathJax && MathJax.startup && MathJax.startup.promise) await MathJax.startup.promise;
  const article = document.querySelector('article.bd-article') || document.querySelector('main');
  const col = article.getBoundingClientRect();
  const inside = r => r.left >= col.left - 1 && r.right <= col.right + 1;
  const scroller = el => {
    for (let a = el; a && a !== article; a = a.parentElement) {
      const cs = getComputedStyle(a);
      if (['auto', 'scroll'].includes(cs.overflowX) && inside(a.getBoundingClientRect())) return a;
    }
    return null;
  };
  const items = [
    ...Array.from(article.querySelectorAll('table')).map(el => ({el, kind: 'table'})),
    ...Array.from(article.querySelectorAll('mjx-container:not([display="true"])')).map(el => ({el, kind: 'inline math'})),
  ];
  return items.filter(({el}) => el.getClientRects().length > 0)
    .map(({el, kind}) => {
      const box = scroller(el);
      const wide = !!box && box.scrollWidth > box.clientWidth + 1;
      const cue = !!box && getComputedStyle(box).backgroundImage.includes('gradient');
      return {kind, text: el.textContent.trim().replace(/\\s+/g, ' ').slice(0, 50),
              cut: (!inside(el.getBoundingClientRect()) && !box) || (kind === 'table' && wide && !cue)};
    })
    .filter(e => e.cut);
}"""


# Every dropdown open (a reader may open any), then each visible figure, image, SVG, table and code
# block that is wider than the viewport or reaches past its left or right edge, and whether the
# page itself scrolls sideways.
OPEN_ALL_JS = """() => {
  document.querySelectorAll('details').forEach(d => { d.open = true; });
  document.querySelectorAll('.toggle-hidden').forEach(el => {
    const button = el.querySelector('.toggle-button') || el.previousElementSibling;
    if (button && button.click) button.click();
  });
  window.dispatchEvent(new Event('resize'));
}"""

# The sizes of the figures, to wait until they stop changing (they are laid out again after load).
SIZES_JS = """() => Array.from(document.querySelectorAll('.js-plotly-plot, table')).map(el => {
  const r = el.getBoundingClientRect(); return Math.round(r.width) + 'x' + Math.round(r.height);
}).join(',')"""

WIDER_THAN_SCREEN_JS = """async () => {
  if (window.MathJax && MathJax.startup && MathJax.startup.promise) await MathJax.startup.promise;
  const vw = document.documentElement.clientWidth;
  const article = document.querySelector('article.bd-article') || document.querySelector('main');
  const shown = el => el.getClientRects().length > 0 && getComputedStyle(el).visibility !== 'hidden';
  const name = el => (el.closest('.js-plotly-plot') && el.closest('.js-plotly-plot').layout
      && el.closest('.js-plotly-plot').layout.title
      ? String(el.closest('.js-plotly-plot').layout.title.text || el.closest('.js-plotly-plot').layout.title)
      : el.textContent || el.getAttribute('alt') || el.getAttribute('src') || '')
    .replace(/<[^>]*>/g, ' ').trim().replace(/\\s+/g, ' ').slice(0, 60);
  const items = [
    ...Array.from(article.querySelectorAll('.js-plotly-plot')).map(el => ['figure', el]),
    ...Array.from(article.querySelectorAll('img')).map(el => ['image', el]),
    ...Array.from(article.querySelectorAll('svg')).filter(el => !el.closest('.js-plotly-plot, mjx-container, button'))
      .map(el => ['svg', el]),
    ...Array.from(article.querySelectorAll('table')).filter(el => !el.closest('.js-plotly-plot')).map(el => ['table', el]),
  ];
  const out = items.filter(([, el]) => shown(el)).map(([kind, el]) => {
    const r = el.getBoundingClientRect();
    return {kind, text: name(el), width: Math.round(r.width), left: Math.round(r.left), right: Math.round(r.right)};
  }).filter(e => e.width > vw + 1 || e.right > vw + 1 || e.left < -1);
  Array.from(article.querySelectorAll('pre')).filter(shown).forEach(el => {
    const r = el.getBoundingClientRect();
    if (el.scrollWidth > el.clientWidth + 1 || r.right > vw + 1)
      out.push({kind: 'code', text: name(el), width: el.scrollWidth, left: Math.round(r.left), right: Math.round(r.right)});
  });
  if (document.documentElement.scrollWidth > vw + 1)
    out.push({kind: 'page', text: 'the page scrolls sideways', width: document.documentElement.scrollWidth, left: 0, right: 0});
  return {viewport: vw, wide: out};
}"""

# Pairs of parts of a figure that overlap: the title, each legend, slider, menu and colour bar, the
# axis titles, and the plot area of each panel (a panel's plot area may hold its own legend or annotations; two
# parts of the frame around the panels may not cover each other or a panel).
FIGURE_OVERLAP_JS = """() => {
  const out = [];
  document.querySelectorAll('article .js-plotly-plot').forEach(gd => {
    if (!gd.getClientRects().length || !gd._fullLayout) return;
    const boxes = [];
    const add = (kind, el) => {
      if (!el) return;
      const r = el.getBoundingClientRect();
      if (r.width > 0 && r.height > 0) boxes.push({kind, r});
    };
    add('title', gd.querySelector('g.g-gtitle text'));
    gd.querySelectorAll('g.infolayer > g').forEach(el => {
      if (/^legend\\d*$/.test(el.getAttribute('class') || '')) add('legend', el.querySelector('rect.bg') || el);
    });
    gd.querySelectorAll('g.slider-container').forEach(el => add('slider', el));
    gd.querySelectorAll('g.updatemenu-container').forEach(el => add('menu', el));
    gd.querySelectorAll('g.colorbar').forEach(el => add('colour bar', el));
    gd.querySelectorAll('g.draglayer rect.nsewdrag').forEach(el => add('panel', el));
    gd.querySelectorAll('g.infolayer g[class^="g-"][class$="title"] text').forEach(el => {
      if (/^g-[xy]\\d*title$/.test(el.parentNode.getAttribute('class') || '')) add('axis title', el);
    });
    const cut = (a, b) => Math.max(0, Math.min(a.right, b.right) - Math.max(a.left, b.left))
                        * Math.max(0, Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top));
    const title = String((gd.layout.title && (gd.layout.title.text || gd.layout.title)) || gd.id)
      .replace(/<[^>]*>/g, ' ').trim().slice(0, 60);
    for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++) {
      const a = boxes[i], b = boxes[j];
      if (a.kind === 'panel' && b.kind === 'panel') continue;   // panels sharing a frame (insets) are a design
      if ((a.kind === 'legend' || b.kind === 'legend') && (a.kind === 'panel' || b.kind === 'panel')) continue;
      if (a.kind === 'axis title' && b.kind === 'axis title') continue;   // x and y titles of one corner
      if ((a.kind === 'axis title' || b.kind === 'axis title') && (a.kind === 'panel' || b.kind === 'panel')) continue;
      if (cut(a.r, b.r) > 4) out.push({figure: title, parts: a.kind + ' and ' + b.kind});
    }
  });
  return out;
}"""


# Playwright's sync API runs once per process, and test_browser.py holds it for the whole session:
# the pages are measured in a child process of their own.
_MEASURE = """
import json, sys
from urllib.parse import urlparse
from playwright.sync_api import sync_playwright
chromium, args, viewport, base, scripts, pages = json.loads(sys.stdin.read())
host = urlparse(base).netloc
out = {}
with sync_playwright() as p:
    browser = p.chromium.launch(executable_path=chromium, args=args)
    for name in pages:
        context = browser.new_context(viewport=viewport)
        context.route("**/*", lambda route: route.continue_() if urlparse(route.request.url).netloc == host
                      or route.request.url.startswith(("data:", "blob:", "about:")) else route.abort())
        page = context.new_page()
        page.goto(f"{base}/{name}.html", wait_until="load")
        page.evaluate(scripts["open"])
        last, still = None, 0
        for _ in range(60):  # until the figures and tables keep their sizes for half a second
            page.wait_for_timeout(250)
            now = page.evaluate(scripts["sizes"])
            still = still + 1 if now == last else 0
            if still >= 2:
                break
            last = now
        out[name] = {key: page.evaluate(script) for key, script in scripts["measure"].items()}
        context.close()
    browser.close()
print(json.dumps(out))
"""


@pytest.fixture(scope="module")
def phone(server):  # noqa: F811
    """For every page at 420 px: what is wider than the screen, the tables and inline formulas cut
    off, and the parts of figures that overlap."""
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} not found: install Debian's chromium (`make browser-deps`)", pytrace=False)
    scripts = {"open": OPEN_ALL_JS, "sizes": SIZES_JS,
               "measure": {"wide": WIDER_THAN_SCREEN_JS, "cut": OVERFLOW_JS, "overlap": FIGURE_OVERLAP_JS}}
    payload = json.dumps([CHROMIUM, CHROMIUM_ARGS, PHONE, server, scripts, PAGES])
    result = subprocess.run([sys.executable, "-c", _MEASURE], input=payload, capture_output=True, text=True)
    if result.returncode != 0:
        pytest.fail("measuring the pages at 420 px failed:\n" + result.stderr[-3000:], pytrace=False)
    return json.loads(result.stdout)


@pytest.mark.parametrize("page_name", PAGES)
def test_nothing_is_wider_than_a_phone_screen(phone, page_name):
    out = phone[page_name]["wide"]
    assert not out["wide"], f"{page_name}: wider than the {out['viewport']} px screen or past its edge: " + "; ".join(
        f"{e['kind']} {e['text']!r} ({e['width']} px, from {e['left']} to {e['right']})" for e in out["wide"])


@pytest.mark.parametrize("page_name", PAGES)
def test_parts_of_a_figure_do_not_overlap_on_a_phone(phone, page_name):
    out = phone[page_name]["overlap"]
    assert not out, f"{page_name}: parts of figures overlap at 420 px: " + "; ".join(
        f"{e['figure']!r}: {e['parts']}" for e in out)


@pytest.mark.parametrize("page_name", PAGES)
def test_tables_and_inline_math_fit_the_column_on_a_phone(phone, page_name):
    out = phone[page_name]["cut"]
    assert not out, f"{page_name}: wider than a 420 px column and not in a scrolling box with a cue: " + "; ".join(
        f"{e['kind']} {e['text']!r}" for e in out)


# ------------------------------------------------------------------------------------------
# The stacking of gendel-layout.js on its own, without a built book: figures of several kinds of
# side-by-side panels, rendered as the book renders them, in a page of their own.

LAYOUT_JS = Path(__file__).resolve().parents[1] / "book" / "_static" / "gendel-layout.js"


def _panel_figures():
    import numpy as np
    import plotly.graph_objects as go
    from plotly.subplots import make_subplots

    rng = np.random.default_rng(0)
    maps = make_subplots(rows=1, cols=5, subplot_titles=[f"λ = {lam}" for lam in (0.5, 0.6, 0.7, 0.8, 0.9)],
                         horizontal_spacing=0.03)
    for j in range(5):
        maps.add_trace(go.Heatmap(z=rng.random((20, 20)), coloraxis="coloraxis"), 1, j + 1)
        maps.update_yaxes(scaleanchor=f"x{j + 1 if j else ''}", row=1, col=j + 1)
    maps.update_layout(title="five maps, one colour axis, a slider", height=330,
                       coloraxis=dict(colorbar=dict(title="ρ̂")),
                       sliders=[dict(steps=[dict(label=str(s), method="restyle", args=[{}]) for s in (0.05, 0.1)],
                                     y=-0.15)])
    grid = make_subplots(rows=2, cols=3, shared_yaxes=True, subplot_titles=[f"panel {i}" for i in range(6)])
    for i in range(6):
        grid.add_trace(go.Scatter(x=np.arange(10), y=rng.random(10), name="curve", showlegend=i == 0),
                       i // 3 + 1, i % 3 + 1)
    grid.update_xaxes(title_text="σ_C", row=2)
    grid.add_annotation(text="a note under the figure", x=0, y=-0.25, xref="paper", yref="paper",
                        showarrow=False, xanchor="left")
    grid.update_layout(title="a 2 × 3 grid, a legend above it", height=520, margin=dict(t=130, b=90),
                       legend=dict(orientation="h", y=1.15, yanchor="bottom", x=0))
    bars = make_subplots(rows=1, cols=2, subplot_titles=["(a) density", "(b) ratio"], horizontal_spacing=0.15)
    bars.add_trace(go.Heatmap(z=rng.random((10, 10)), colorbar=dict(x=0.42, len=0.9, title="p")), 1, 1)
    bars.add_trace(go.Heatmap(z=rng.random((10, 10)), colorbar=dict(x=1.02, len=0.9, title="ρ")), 1, 2)
    bars.update_layout(title="a colour bar beside each panel", height=360)
    return [maps, grid, bars]


# Per figure: the boxes (viewport px) of its panels, annotations and colour bars, its own box and
# the x domains of its axes.
PARTS_JS = """() => Array.from(document.querySelectorAll('.js-plotly-plot')).map(gd => {
  const box = el => { const r = el.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; };
  return {
    figure: box(gd), wrapper: box(gd.parentElement),
    svg: box(gd.querySelector('.main-svg')),
    panels: Array.from(gd.querySelectorAll('g.draglayer rect.nsewdrag')).map(box),
    annotations: Array.from(gd.querySelectorAll('g.annotation')).map(box),
    colorbars: Array.from(gd.querySelectorAll('g.colorbar')).map(box),
    domains: Object.keys(gd.layout).filter(k => /^[xy]axis\\d*$/.test(k)).sort()
      .map(k => [k, (gd.layout[k].domain || []).map(v => Math.round(v * 1000) / 1000)]),
  };
})"""


def _overlap(a, b, slack=2):
    return min(a[2], b[2]) - max(a[0], b[0]) > slack and min(a[3], b[3]) - max(a[1], b[1]) > slack


def _figure_page(folder, figures):
    """A page of ``figures`` rendered as the book renders them, with plotly.js and gendel-layout.js."""
    import shutil

    import plotly

    from gendel.plotting.common import _BookRenderer

    shutil.copy(Path(plotly.__file__).parent / "package_data" / "plotly.min.js", folder / "plotly.min.js")
    shutil.copy(LAYOUT_JS, folder / "gendel-layout.js")
    body = "\n".join(f"<div class='cell_output'>{_BookRenderer().to_mimebundle(f.to_dict())['text/html']}</div>"
                     for f in figures)
    (folder / "index.html").write_text(
        "<!doctype html><html><head><meta charset='utf-8'><script src='plotly.min.js'></script>"
        "<script src='gendel-layout.js'></script></head><body style='margin:0'>"
        f"<article class='bd-article' style='padding:0 12px'>{body}</article></body></html>")
    return (folder / "index.html").as_uri()


def test_side_by_side_panels_stack_on_a_phone_and_come_back_on_a_desktop(browser, tmp_path):
    url = _figure_page(tmp_path, _panel_figures())
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))

    def settle():
        last = None
        for _ in range(40):
            page.wait_for_timeout(250)
            now = page.evaluate(PARTS_JS)
            if now == last:
                return now
            last = now
        return last

    try:
        page.goto(url, wait_until="load")
        wide = settle()
        page.set_viewport_size({"width": 420, "height": 900})
        narrow = settle()
        page.set_viewport_size({"width": 1400, "height": 900})
        back = settle()
    finally:
        context.close()
    assert not errors, errors
    assert [f["domains"] for f in back] == [f["domains"] for f in wide], "the desktop layout did not come back"
    assert [round(f["svg"][2] - f["svg"][0]) for f in back] == [1376] * len(back), "not the column's width again"
    for fig, name in zip(wide, ("maps", "grid", "bars")):  # side by side as made
        assert any(abs(a[1] - b[1]) < 2 and a[0] != b[0] for a in fig["panels"] for b in fig["panels"]), name
    previous_bottom = 0
    for fig, name in zip(narrow, ("maps", "grid", "bars")):
        panels = fig["panels"]
        assert len(panels) in (5, 6, 2), name
        # one column: no two panels share a row, each is most of the column's width
        assert all(not (min(a[3], b[3]) > max(a[1], b[1])) for i, a in enumerate(panels) for b in panels[i + 1:]), name
        assert fig["figure"][2] <= 421 and all(p[2] <= 421 and p[0] >= 0 for p in panels), name
        # labels and colour bars stay on the screen and off the panels
        for part in fig["annotations"] + fig["colorbars"]:
            assert part[0] >= -1 and part[2] <= 421, (name, part)
            assert not any(_overlap(part, p) for p in panels), (name, part)
        # the figure's box grows with it: the next figure starts below it
        assert fig["wrapper"][3] >= fig["svg"][3] - 1 and fig["figure"][1] >= previous_bottom - 1, name
        previous_bottom = fig["wrapper"][3]


# The title of the one figure of the page: its text, how far its box reaches (px from the figure's
# left edge), the figure's width and its top margin.
TITLE_JS = """() => {
  const gd = document.querySelector('.js-plotly-plot'), g = gd.getBoundingClientRect();
  const t = gd.querySelector('g.g-gtitle text').getBoundingClientRect();
  const l = gd.querySelector('g.infolayer > g.legend rect.bg').getBoundingClientRect();
  return {text: gd.layout.title.text, right: t.right - g.left, width: g.width, top: gd._fullLayout.margin.t,
          gap: l.top - t.bottom};
}"""


def test_a_title_wider_than_a_phone_breaks_into_lines_also_after_a_slider_step(browser, tmp_path):
    import plotly.graph_objects as go

    from gendel.plotting.common import plotly_text

    def title(b):
        return (f"Alg. 1 as the bound B moves<br><sup>MNIST even-0.7, 2 seeds; largest ratio on the samples 3.2"
                f"<br>B = {b}: acceptance rate 41.2 % of the proposals, and more words that do not fit</sup>")

    fig = go.Figure([go.Bar(x=list("abcdefghij"), y=list(range(10)), name=f"the model number {k}") for k in range(3)])
    fig.update_layout(title=title(10), height=450, margin=dict(t=130), legend=dict(orientation="h", y=1.02, yanchor="bottom"),
                      sliders=[dict(active=1, steps=[dict(method="update", label=str(b), args=[{}, {"title.text": title(b)}])
                                                     for b in (1, 10)])])
    url = _figure_page(tmp_path, [fig])
    context = browser.new_context(viewport={"width": 420, "height": 900})
    page = context.new_page()
    try:
        page.goto(url, wait_until="load")
        page.wait_for_timeout(1500)
        narrow = page.evaluate(TITLE_JS)
        page.evaluate("() => { const gd = document.querySelector('.js-plotly-plot');"
                      " return Plotly.update(gd, {}, gd.layout.sliders[0].steps[0].args[1]); }")
        page.wait_for_timeout(1000)
        stepped = page.evaluate(TITLE_JS)
        page.set_viewport_size({"width": 1400, "height": 900})
        page.wait_for_timeout(1500)
        wide = page.evaluate(TITLE_JS)
    finally:
        context.close()
    for state in (narrow, stepped):   # broken into more lines, inside the figure, with room above the plot
        assert state["right"] <= state["width"] and state["text"].count("<br>") > 2 and state["top"] > 130, state
        assert state["gap"] >= 0, state   # the legend (two rows on a phone) under the title, not over it
    assert "B = 1:" in stepped["text"]
    # back on a desktop: the step's own title, as the book renders it, in the lines it was written in
    assert wide["text"] == plotly_text(title(1)) and wide["right"] <= wide["width"] and wide["gap"] >= 0, wide
