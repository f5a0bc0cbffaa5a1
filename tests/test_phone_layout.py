"""The built book on a phone (420 px): nothing sticks out of the article column.

A table or an inline formula wider than the column must sit in a box of its own that scrolls
sideways (a phone shows no scroll bar until the reader touches it, so a table's box also shows the
shadow cue of the display equations); otherwise its right part is cut off or the whole page
scrolls sideways. Display equations are checked in ``test_browser.py``.
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


# Playwright's sync API runs once per process, and test_browser.py holds it for the whole session:
# the pages are measured in a child process of their own.
_MEASURE = """
import json, sys
from urllib.parse import urlparse
from playwright.sync_api import sync_playwright
chromium, args, viewport, base, script, pages = json.loads(sys.stdin.read())
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
        out[name] = page.evaluate(script)
        context.close()
    browser.close()
print(json.dumps(out))
"""


@pytest.fixture(scope="module")
def phone_overflow(server):  # noqa: F811
    """For every page: the tables and inline formulas cut off at 420 px."""
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} not found: install Debian's chromium (`make browser-deps`)", pytrace=False)
    payload = json.dumps([CHROMIUM, CHROMIUM_ARGS, PHONE, server, OVERFLOW_JS, PAGES])
    result = subprocess.run([sys.executable, "-c", _MEASURE], input=payload, capture_output=True, text=True)
    if result.returncode != 0:
        pytest.fail("measuring the pages at 420 px failed:\n" + result.stderr[-3000:], pytrace=False)
    return json.loads(result.stdout)


@pytest.mark.parametrize("page_name", PAGES)
def test_tables_and_inline_math_fit_the_column_on_a_phone(phone_overflow, page_name):
    out = phone_overflow[page_name]
    assert not out, f"{page_name}: wider than a 420 px column and not in a scrolling box with a cue: " + "; ".join(
        f"{e['kind']} {e['text']!r}" for e in out)
