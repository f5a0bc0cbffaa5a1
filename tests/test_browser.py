"""The built book in a real browser: Debian's Chromium driven by Playwright.

For every page of the toc: no JavaScript error (uncaught exceptions and console errors), no
request leaves the local server (the book must work offline), every plotly figure has rendered
with data and fits its column, and every figure with a slider changes when the slider is moved
with the mouse, and no page's HTML is over 1 MiB.

Chromium is Debian's (``/usr/bin/chromium``, installed by ``make browser-deps``; another
binary can be named with ``$GENDEL_CHROMIUM``). Never run ``playwright install``: it downloads
a browser.
"""

from __future__ import annotations

import functools
import http.server
import os
import re
import threading
from pathlib import Path
from urllib.parse import urlparse

import pytest

from conftest import BROWSER_REPORT, CHROMIUM, CHROMIUM_ARGS, PAGES  # noqa: F401 (re-exported)

pytestmark = pytest.mark.browser

VIEWPORT = {"width": 1400, "height": 1000}

#: The most bytes of HTML a page may have (1 MiB): the figures' data is inline, and a reader on a
#: phone downloads all of it before the page is usable.
MAX_PAGE_BYTES = 1_048_576


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def do_GET(self):
        if self.path == "/favicon.ico":  # the browser asks for it on its own; the book has none
            self.send_response(204)
            self.end_headers()
            return
        super().do_GET()


@pytest.fixture(scope="session")
def server(book_html):
    handler = functools.partial(_QuietHandler, directory=str(book_html))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


# ------------------------------------------------------------------------------------------
# JavaScript run in the page

FIGURES_JS = """() => Array.from(document.querySelectorAll('.plotly-graph-div')).map((gd, i) => {
  if (!gd.id) gd.id = 'gendel-figure-' + i;
  const r = gd.getBoundingClientRect();
  const count = v => (v && typeof v.length === 'number') ? v.length : 0;
  const points = (gd._fullData || []).reduce((n, t) =>
    n + count(t.x) + count(t.y) + count(t.z) + count(t.values) + count(t.lat) + count(t.r), 0);
  const title = gd.layout && gd.layout.title ? (gd.layout.title.text || gd.layout.title || '') : '';
  return {id: gd.id, rendered: gd.classList.contains('js-plotly-plot') && !!gd.querySelector('svg.main-svg'),
          traces: (gd.data || []).length, points: points, title: String(title).replace(/<[^>]*>/g, ' ').slice(0, 90),
          sliders: gd.layout && gd.layout.sliders ? gd.layout.sliders.length : 0,
          visible: r.width > 0 && r.height > 0 && gd.offsetParent !== null,
          width: gd._fullLayout ? Math.round(gd._fullLayout.width) : 0,
          column: gd.parentElement ? Math.round(gd.parentElement.clientWidth) : 0};
})"""

# The text a reader sees in each figure (titles, legend, axes, ticks, annotations, slider labels).
TEXT_JS = """() => Array.from(document.querySelectorAll('.js-plotly-plot')).map(gd => ({
  id: gd.id,
  texts: Array.from(gd.querySelectorAll('svg text')).map(t => t.textContent),
  ticks: Array.from(gd.querySelectorAll('g.xtick text, g.ytick text, g.x2tick text, g.y2tick text'))
              .map(t => t.textContent),
}))"""


#: An unbraced subscript shown as text: a letter (or ρ̂, σ) directly followed by "_" and a letter,
#: digit or script capital, as in "σ_C", "Y_H0", "ρ̂_ℰ" (plotly_text turns these into <sub> tags).
UNBRACED_SUBSCRIPT = re.compile(r"(?<![A-Za-z0-9])[A-Za-z\u0370-\u03ff][\u0302\u0303\u0304]?'?_[A-Za-z0-9\u2100-\u214f]")


def raw_markup(texts, ticks):
    """TeX a reader should not see in a figure: braced sub/superscripts, unbraced subscripts
    ("σ_C"), backslashes, SI-prefix ticks such as "100µ" (read as a unit, not as 1e-4)."""
    bad = [t for t in texts if "_{" in t or "^{" in t or "\\" in t or UNBRACED_SUBSCRIPT.search(t)]
    bad += [t for t in ticks if t.rstrip().endswith(("µ", "μ"))]
    return list(dict.fromkeys(bad))


# Display equations wider than the box that shows them (cut off, or hidden behind a scroll bar).
EQUATIONS_JS = """async () => {
  if (window.MathJax && MathJax.startup && MathJax.startup.promise) await MathJax.startup.promise;
  return Array.from(document.querySelectorAll('div.math')).filter(div => div.offsetParent !== null)
    .map(div => {
      const eq = div.querySelector('mjx-container') || div;
      return {text: div.textContent.trim().slice(0, 60), width: Math.round(eq.scrollWidth),
              box: Math.round(div.clientWidth)};
    })
    .filter(e => e.width > e.box + 1);
}"""


# A hash of what a figure shows: its traces, and its layout without the sliders' own state.
SIGNATURE_JS = """id => {
  const gd = document.getElementById(id);
  const plain = v => (ArrayBuffer.isView(v) ? Array.from(v) : v);
  const layout = Object.assign({}, gd.layout); delete layout.sliders;
  const text = JSON.stringify([gd.data, layout], (k, v) => plain(v));
  let h = 0;
  for (let i = 0; i < text.length; i++) { h = (h * 31 + text.charCodeAt(i)) | 0; }
  return h + ':' + text.length;
}"""

REVEAL_JS = """id => {
  // Open the collapsed containers (dropdowns, <details>) that hide a figure, then let plotly resize.
  let el = document.getElementById(id);
  while (el) {
    if (el.tagName === 'DETAILS') el.open = true;
    if (el.classList && el.classList.contains('toggle-hidden')) {
      const button = el.querySelector('.toggle-button') || el.previousElementSibling;
      if (button) button.click();
    }
    el = el.parentElement;
  }
  window.dispatchEvent(new Event('resize'));
}"""


def _block_external(context, problems, base):
    host = urlparse(base).netloc

    def handle(route):
        url = route.request.url
        if urlparse(url).netloc == host or url.startswith(("data:", "blob:", "about:")):
            route.continue_()
        else:
            problems.append(f"request to the internet (fails offline): {url}")
            route.abort()

    context.route("**/*", handle)


def _move_slider(page, figure_id, index):
    """Click with the mouse on a step of slider ``index`` other than the active one.

    Returns (step clicked, active step after the click)."""
    container = page.locator(f"[id=\"{figure_id}\"] g.slider-container").nth(index)
    container.scroll_into_view_if_needed()
    ticks = container.locator("rect.slider-tick-rect")
    rail = container.locator("rect.slider-rail-touch-rect").bounding_box()
    n = ticks.count()
    active = page.evaluate("([id, k]) => document.getElementById(id).layout.sliders[k].active || 0", [figure_id, index])
    target = n - 1 if active < n / 2 else 0
    tick = ticks.nth(target).bounding_box()
    x, y = tick["x"] + tick["width"] / 2, rail["y"] + rail["height"] / 2
    page.mouse.move(x, y)
    page.mouse.down()
    page.mouse.up()
    try:  # wait for the slider to arrive rather than for a fixed time
        page.wait_for_function("([id, k, t]) => document.getElementById(id).layout.sliders[k].active === t",
                               arg=[figure_id, index, target], timeout=10_000)
    except Exception:
        pass  # the caller reports a slider that did not move
    after = page.evaluate("([id, k]) => document.getElementById(id).layout.sliders[k].active", [figure_id, index])
    return target, after


@pytest.mark.parametrize("page_name", PAGES)
def test_page_in_chromium(browser, server, page_name):
    context = browser.new_context(viewport=VIEWPORT)
    problems = []
    _block_external(context, problems, server)
    page = context.new_page()
    page.on("pageerror", lambda exc: problems.append(f"JavaScript error: {exc}"))
    page.on("console", lambda msg: problems.append(f"console error: {msg.text}") if msg.type == "error" else None)
    page.on("requestfailed", lambda req: problems.append(f"failed request: {req.url} ({req.failure})")
            if urlparse(req.url).netloc == urlparse(server).netloc else None)
    page.on("response", lambda res: problems.append(f"HTTP {res.status}: {res.url}") if res.status >= 400 else None)
    try:
        page.goto(f"{server}/{page_name}.html", wait_until="load")
        if page.locator(".plotly-graph-div").count():
            try:
                page.wait_for_function(
                    "() => Array.from(document.querySelectorAll('.plotly-graph-div'))"
                    ".every(gd => gd.classList.contains('js-plotly-plot'))", timeout=30_000)
            except Exception:
                pass  # reported below, figure by figure
        # the figures are resized once the page has loaded (gendel.plotting.common.FIT_TO_COLUMN_JS):
        # wait until every figure fits its column, or report the ones that do not below
        try:
            page.wait_for_function(
                "() => Array.from(document.querySelectorAll('.js-plotly-plot')).every(gd =>"
                " !gd._fullLayout || !gd.parentElement || gd.offsetParent === null"
                " || gd._fullLayout.width <= gd.parentElement.clientWidth + 1)",
                timeout=10_000)
        except Exception:
            pass  # reported below, figure by figure
        figures = page.evaluate(FIGURES_JS)
        markup = {f["id"]: raw_markup(f["texts"], f["ticks"]) for f in page.evaluate(TEXT_JS)}
        markup = {k: v for k, v in markup.items() if v}
        wide_equations = page.evaluate(EQUATIONS_JS)
        not_rendered = [f for f in figures if not f["rendered"] or not f["traces"] or not f["points"]]
        too_wide = [f for f in figures if f["visible"] and f["rendered"] and f["width"] > f["column"] + 1]
        moved, unchanged = [], []
        for fig in figures:
            if not fig["sliders"] or fig in not_rendered:
                continue
            if not fig["visible"]:
                page.evaluate(REVEAL_JS, fig["id"])
                page.wait_for_timeout(500)
            for k in range(fig["sliders"]):
                before = page.evaluate(SIGNATURE_JS, fig["id"])
                target, active = _move_slider(page, fig["id"], k)
                changed = False
                for _ in range(20):  # animated steps take a moment
                    if page.evaluate(SIGNATURE_JS, fig["id"]) != before:
                        changed = True
                        break
                    page.wait_for_timeout(150)
                label = f"{fig['title'] or fig['id']} (slider {k + 1}: to step {target})"
                (moved if changed and active == target else unchanged).append(label)
        summary = (f"{page_name}: {len(figures)} figure(s) rendered"
                   + (f"; sliders moved: {', '.join(moved)}" if moved else ""))
        BROWSER_REPORT.append(summary)
    finally:
        context.close()

    messages = []
    if problems:
        messages.append("browser problems:\n  " + "\n  ".join(dict.fromkeys(problems)))
    if not_rendered:
        messages.append("figures not rendered or empty: " + ", ".join(f"{f['id']} {f['title']!r}" for f in not_rendered))
    if too_wide:
        messages.append("figures wider than the column (cut off): " + ", ".join(
            f"{f['title'] or f['id']!r} {f['width']} px in {f['column']} px" for f in too_wide))
    if unchanged:
        messages.append("moving the slider with the mouse did not change the figure: " + "; ".join(unchanged))
    if wide_equations:
        messages.append("display equations wider than their box at 1400 px (break them with aligned): " + "; ".join(
            f"{e['text']!r} {e['width']} px in {e['box']} px" for e in wide_equations))
    if markup:
        messages.append("raw TeX or SI-prefix ticks in figure text (use gendel.plotting.common.plotly_text and "
                        "exponentformat='e'): " + "; ".join(f"{k}: {v[:4]}" for k, v in markup.items()))
    assert not messages, f"{page_name}:\n" + "\n".join(messages)


@pytest.mark.parametrize("page_name", PAGES)
def test_page_html_at_most_1_mib(book_html, page_name):
    path = Path(book_html) / f"{page_name}.html"
    assert path.exists(), f"{page_name}.html is not in the built book {book_html}"
    size = path.stat().st_size
    assert size <= MAX_PAGE_BYTES, (
        f"{page_name}.html is {size:,} bytes, over {MAX_PAGE_BYTES:,}: thin the figures' grids, store their "
        f"data compactly (gendel.plotting.synthetic.sliders) or share it between slider steps")


# On a phone a display equation may be wider than the column; then it must scroll sideways and say
# so (the shadow of book/_static/gendel.css), never be cut off.
PHONE = {"width": 420, "height": 900}
PHONE_EQUATIONS_JS = """async () => {
  if (window.MathJax && MathJax.startup && MathJax.startup.promise) await MathJax.startup.promise;
  return Array.from(document.querySelectorAll('div.math')).filter(div => div.offsetParent !== null)
    .map(div => {
      const eq = div.querySelector('mjx-container') || div, cs = getComputedStyle(eq);
      return {text: div.textContent.trim().slice(0, 40), wide: eq.scrollWidth > eq.clientWidth + 1,
              scrolls: ['auto', 'scroll'].includes(cs.overflowX), cue: cs.backgroundImage.includes('gradient')};
    })
    .filter(e => e.wide && !(e.scrolls && e.cue));
}"""


@pytest.mark.parametrize("page_name", PAGES)
def test_wide_equations_scroll_with_a_cue_on_a_phone(browser, server, page_name):
    context = browser.new_context(viewport=PHONE)
    _block_external(context, [], server)
    page = context.new_page()
    try:
        page.goto(f"{server}/{page_name}.html", wait_until="load")
        cut = page.evaluate(PHONE_EQUATIONS_JS)
    finally:
        context.close()
    assert not cut, f"{page_name}: display equations wider than a 420 px column without a scroll cue: " + "; ".join(
        repr(e["text"]) for e in cut)
