"""The pages run live, as a student runs them: JupyterLab with a real kernel, in Chromium.

A JupyterLab server is started on 127.0.0.1 with a token, on a copy of ``book/`` (running a page
saves it), with the environment's own settings (``python -m gendel.book.lab``, written by
``make``): a page opened from its ``.md`` path must open as a notebook. Each test runs a page
with Run > Run All Cells and checks what a student then sees:

- every code cell ran, and no cell wrote an error or a warning;
- the rendered Markdown shows no raw TeX and no raw MyST markup (no undefined macro, no KaTeX
  error in the console);
- the live panel is present after Run All; a key press on a slider redraws its figures. On the
  explore page the time from the key press to the frame that shows the changed ratio maps and KS
  bars is measured in the page's clock and reported (printed; not asserted: the test is not a benchmark).

Screenshots go to ``$GENDEL_LIVE_SHOTS`` when it is set. The server is stopped by its process id.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from conftest import BROWSER_REPORT, CHROMIUM, REPO, myst_page  # noqa: F401 (browser: a fixture of conftest)

pytestmark = pytest.mark.browser

JUPYTER = Path(sys.executable).parent / "jupyter"
LAB_OVERRIDES = Path(sys.prefix) / "share" / "jupyter" / "lab" / "settings" / "overrides.json"
SHOTS = os.environ.get("GENDEL_LIVE_SHOTS")

#: User settings of the test's JupyterLab (a temporary settings folder): no news pop-up over the
#: page, and every cell kept in the page so that the test can read all prompts.
USER_SETTINGS = {
    "@jupyterlab/apputils-extension/notification.jupyterlab-settings": {"fetchNews": "false"},
    "@jupyterlab/notebook-extension/tracker.jupyterlab-settings": {"windowingMode": "none"},
}


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _cache_dir(tmp):
    """The book build's result cache when the tests run on a build (``make test``), else an empty one."""
    html = os.environ.get("GENDEL_BOOK_HTML")
    if html and (Path(html).parent / ".gendel-cache").is_dir():
        return Path(html).parent / ".gendel-cache"
    return tmp / "cache"


@pytest.fixture
def lab(tmp_path_factory):
    """A JupyterLab server of the test's own (a shared one reopens the previous test's pages)."""
    if not LAB_OVERRIDES.exists():
        pytest.fail(f"{LAB_OVERRIDES} is missing: run `python -m gendel.book.lab` (make does) so that "
                    "JupyterLab opens the pages as notebooks", pytrace=False)
    tmp = tmp_path_factory.mktemp("live")
    root = tmp / "root"
    shutil.copytree(REPO / "book", root / "book", ignore=shutil.ignore_patterns(".ipynb_checkpoints"))
    settings = tmp / "settings"
    for name, values in USER_SETTINGS.items():
        path = settings / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(values))
    env = {k: v for k, v in os.environ.items() if k not in ("GENDEL_BOOK_BUILD", "GENDEL_COLAB")}
    env.update(GENDEL_CACHE_DIR=str(_cache_dir(tmp)), TQDM_DISABLE="1", JUPYTERLAB_SETTINGS_DIR=str(settings),
               JUPYTERLAB_WORKSPACES_DIR=str(tmp / "workspaces"), JUPYTER_CONFIG_DIR=str(tmp / "config"),
               JUPYTER_RUNTIME_DIR=str(tmp / "runtime"))
    port, token = _free_port(), secrets.token_hex(16)
    command = [str(JUPYTER), "lab", "--no-browser", "--ip=127.0.0.1", f"--port={port}",
               f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={root}"]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        command.append("--allow-root")
    log = (tmp / "server.log").open("w")
    server = subprocess.Popen(command, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(240):
            if server.poll() is not None:
                pytest.fail(f"JupyterLab exited: {(tmp / 'server.log').read_text()[-2000:]}", pytrace=False)
            try:
                urllib.request.urlopen(f"{base}/api/status?token={token}", timeout=2)
                break
            except OSError:
                time.sleep(0.5)
        else:
            pytest.fail("JupyterLab did not answer within 120 s", pytrace=False)
        yield {"base": base, "token": token, "root": root}
    finally:
        # Stop the server, and its kernels with it, by its process id (the session's group).
        try:
            os.killpg(server.pid, signal.SIGTERM)
            server.wait(timeout=20)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            try:
                os.killpg(server.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            server.wait(timeout=10)
        log.close()


# ------------------------------------------------------------------------------------------
# Driving JupyterLab

PROMPTS_JS = """() => Array.from(document.querySelectorAll('.jp-Notebook .jp-CodeCell .jp-InputPrompt'))
  .map(p => p.textContent.trim())"""

# The text of the rendered Markdown with math (KaTeX) removed: what is left must hold no TeX and no
# MyST markup.
MARKDOWN_TEXT_JS = """() => Array.from(document.querySelectorAll('.jp-Notebook .jp-MarkdownCell .jp-RenderedMarkdown,'
  + ' .jp-Notebook .jp-MarkdownCell .myst')).map(el => {
    const copy = el.cloneNode(true);
    copy.querySelectorAll('.katex, .katex-display, code, pre').forEach(n => n.remove());
    return copy.textContent;
  }).join('\\n')"""

ERROR_OUTPUTS_JS = """() => Array.from(document.querySelectorAll(
  '.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stderr"]')).map(o => o.textContent.slice(0, 300))"""

# A signature of a plotly figure's data (sums of its numbers), to see that a figure was redrawn.
SIGNATURE_JS = """
window.__gendelFig = (snippet, i) => {
  const cell = Array.from(document.querySelectorAll('.jp-Notebook .jp-CodeCell'))
    .find(c => c.querySelector('.jp-InputArea-editor').textContent.includes(snippet));
  return cell ? cell.querySelectorAll('.jp-OutputArea .js-plotly-plot')[i] : null;
};
window.__gendelSig = (gd, traces) => {
  if (!gd) return 'missing';
  let s = 0, n = 0;
  const add = v => { if (Array.isArray(v) || ArrayBuffer.isView(v)) { for (const x of v) add(x); }
                     else if (typeof v === 'number' && isFinite(v)) { s += v * (1 + (n++ % 7)); }
                     // a typed-array spec ({dtype, bdata}: base64 of the numbers): a hash of its text
                     else if (v && typeof v.bdata === 'string') {
                       for (let i = 0; i < v.bdata.length; i += 7) s += v.bdata.charCodeAt(i) * (1 + (n++ % 7)); } };
  (gd.data || []).slice(0, traces || undefined).forEach(t => { add(t.x); add(t.y); add(t.z); });
  return n + ':' + s.toPrecision(12);
};"""


def open_page(browser, lab, path, width=1400):
    """Open ``path`` (relative to the served root) in JupyterLab; returns the page and its console log."""
    page = browser.new_page(viewport={"width": width, "height": 1000})
    console = []
    page.on("console", lambda m: console.append(f"{m.type}: {m.text}"))
    page.goto(f"{lab['base']}/lab/tree/{path}?token={lab['token']}")
    page.wait_for_selector(".jp-Notebook, .jp-FileEditor", timeout=120_000)
    assert page.locator(".jp-FileEditor").count() == 0 and page.locator(".jp-Notebook").count() == 1, \
        f"{path} opened in the text editor, not as a notebook: JupyterLab's default viewer for .md is not jupytext's"
    # the kernel is ready when the toolbar's indicator says idle
    page.wait_for_selector(".jp-Notebook-ExecutionIndicator[data-status='idle']", timeout=120_000)
    return page, console


def run_all(page, timeout_s):
    """Run > Run All Cells, then wait until every code cell has an execution count; returns seconds.

    The number of code cells is the most JupyterLab has shown: it may still be adding cells to the
    page when Run All starts (a count taken once then can stay short of the notebook's forever)."""
    n_cells = len(page.evaluate(PROMPTS_JS))
    t0 = time.perf_counter()
    for attempt in range(3):
        # A dialog JupyterLab opened meanwhile (a kernel that took long to start, on a loaded machine)
        # would catch the click: accept it, and keep its text for the report.
        dialog = page.locator(".jp-Dialog")
        if dialog.count() and dialog.first.is_visible():
            BROWSER_REPORT.append(f"a JupyterLab dialog before Run All, accepted: {dialog.first.inner_text()[:200]!r}")
            accept = page.locator(".jp-Dialog .jp-mod-accept")
            accept.first.click() if accept.count() else page.keyboard.press("Escape")
        # A click while the kernel is still connecting can be lost: try again if nothing started.
        page.locator(".lm-MenuBar-itemLabel", has_text="Run").first.click()
        page.locator(".lm-Menu-itemLabel", has_text="Run All Cells").first.click()
        started = time.perf_counter()
        while time.perf_counter() - started < 15:
            if any(p != "[ ]:" for p in page.evaluate(PROMPTS_JS)):
                break
            time.sleep(0.5)
        else:
            page.keyboard.press("Escape")
            continue
        break
    deadline = t0 + timeout_s
    while time.perf_counter() < deadline:
        prompts = page.evaluate(PROMPTS_JS)
        n_cells = max(n_cells, len(prompts))
        if len(prompts) == n_cells and all(p.startswith("[") and p[1:-2].isdigit() for p in prompts):
            return time.perf_counter() - t0
        time.sleep(1.0)
    pytest.fail(f"Run All did not finish in {timeout_s} s; prompts: {page.evaluate(PROMPTS_JS)}", pytrace=False)


def check_rendering(page, console, name):
    errors = page.evaluate(ERROR_OUTPUTS_JS)
    assert not errors, f"{name}: cells wrote errors or warnings: {errors[:3]}"
    text = page.evaluate(MARKDOWN_TEXT_JS)
    assert len(text) > 500, f"{name}: the Markdown did not render ({len(text)} characters)"
    raw_tex = sorted(set(re.findall(r"\\[A-Za-z]{2,}", text)))
    assert not raw_tex, f"{name}: raw TeX in the rendered Markdown: {raw_tex[:10]}"
    raw_myst = sorted(set(re.findall(r"```\{|\{(?:cite|doc|glue:text|glue:md|numref|prf:ref)\}|Unknown (?:Directive|Role)",
                                     text, re.I)))
    assert not raw_myst, f"{name}: raw MyST markup in the rendered Markdown: {raw_myst}"
    math = [m for m in console if re.search(r"KaTeX|Undefined control sequence|ParseError", m)]
    assert not math, f"{name}: math errors in the console: {math[:3]}"


def shot(page, name):
    if SHOTS:
        Path(SHOTS).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(SHOTS) / f"{name}.png"))


def panel_figures(page, snippet):
    """The number of plotly figures in the output of the cell whose code contains ``snippet``
    (the cell is scrolled into view)."""
    return page.evaluate("""(snippet) => {
      const cell = Array.from(document.querySelectorAll('.jp-Notebook .jp-CodeCell'))
        .find(c => c.querySelector('.jp-InputArea-editor').textContent.includes(snippet));
      if (!cell) return -1;
      cell.scrollIntoView();
      return cell.querySelectorAll('.jp-OutputArea .js-plotly-plot').length;
    }""", snippet)


def press_and_time(page, slider_label, key, snippet, figures, dropdown=False):
    """Press ``key`` on the slider (or, with ``dropdown``, the drop-down list) labelled
    ``slider_label``; return the seconds from the key press to the frame that shows the change of
    each figure of ``figures`` (``{name: (index of the figure in the output of the cell whose code
    contains snippet, number of traces to compare or 0 for all)}``).

    A figure counts as changed when its data differ from before the press (a redraw with the
    same data does not count). The check runs when plotly changes the figure's elements (a
    MutationObserver, called right after the change, within the task that made it); the time
    taken is that of the next animation frame, the frame that paints the change. A timer
    polling the figures would be starved: the browser runs the widget messages queued behind
    one another first, so a poll would see a figure change only once the last message is done.
    """
    page.evaluate(SIGNATURE_JS)
    page.evaluate("""([snippet, figs]) => {
      const sig = ([i, traces]) => window.__gendelSig(window.__gendelFig(snippet, i), traces);
      window.__lat = {key: null};
      const before = {}, observers = [];
      for (const [name, spec] of Object.entries(figs)) { before[name] = sig(spec); window.__lat[name] = null; }
      if (Object.values(before).includes('missing')) throw new Error('figure not found: ' + JSON.stringify(before));
      window.addEventListener('keydown', () => { if (window.__lat.key === null) window.__lat.key = performance.now(); },
                              {capture: true, once: true});
      const seen = {};
      const check = () => {
        if (window.__lat.key === null) return;
        for (const [name, spec] of Object.entries(figs)) {
          if (seen[name]) continue;
          const now_sig = sig(spec);
          if (now_sig !== before[name] && now_sig !== 'missing') {
            seen[name] = true;
            requestAnimationFrame(() => { window.__lat[name] = performance.now(); });
          }
        }
        if (Object.keys(figs).every(n => seen[n])) observers.forEach(o => o.disconnect());
      };
      for (const [name, [i]] of Object.entries(figs)) {
        const o = new MutationObserver(check);
        o.observe(window.__gendelFig(snippet, i), {subtree: true, childList: true, attributes: true});
        observers.push(o);
      }
    }""", [snippet, figures])
    kind, target = (".widget-dropdown", "select") if dropdown else (".widget-slider", ".noUi-handle")
    cell = page.locator(".jp-CodeCell", has=page.locator(".jp-InputArea-editor", has_text=snippet)).first
    control = cell.locator(kind, has=page.locator(".widget-label", has_text=slider_label)).first
    control.locator(target).first.focus()
    page.keyboard.press(key)
    page.wait_for_function("(names) => names.every(n => window.__lat[n] !== null)", arg=list(figures),
                           timeout=60_000)
    lat = page.evaluate("() => window.__lat")
    return {name: (lat[name] - lat["key"]) / 1000 for name in figures}


# ------------------------------------------------------------------------------------------
# The tests


def test_explore_runs_live_and_the_panel_answers(browser, lab):
    page, console = open_page(browser, lab, "book/synthetic/explore.md")
    seconds = run_all(page, timeout_s=900)
    check_rendering(page, console, "explore")
    n = panel_figures(page, "panel = explore(")
    assert n >= 2, f"the explore panel is not there after Run All ({n} figures in its cell)"
    assert page.locator(".jp-CodeCell .widget-slider .widget-label", has_text="σ_C").count() >= 1
    page.wait_for_timeout(1000)
    shot(page, "explore_after_run_all")
    # the panel's figures: the ratio maps, the KS bars (LR and the three ASC), the histograms
    figures = {"maps": (0, 0), "ks": (1, 0)}
    moves, kernel = [], []
    status = page.locator(".jp-CodeCell", has=page.locator(".jp-InputArea-editor", has_text="panel = explore(")).first
    for _ in range(3):
        moves.append(press_and_time(page, "σ_C", "ArrowRight", "panel = explore(", figures))
        page.wait_for_timeout(300)
        # the panel's status line says how long the kernel took for the statistics
        said = re.findall(r"ready \((in [0-9.]+ s|computed ahead|from the cache)",
                          " ".join(status.locator(".widget-html").all_inner_texts()))
        kernel.append(said[0] if said else "?")
    page.wait_for_timeout(500)
    shot(page, "explore_after_sigma_c_moves")
    for name in figures:
        assert all(m[name] > 0 for m in moves), f"the {name} figure did not change after a σ_C key press"
    line = ("live explore: Run All {:.0f} s; σ_C key press → maps redrawn {} s, KS bars redrawn {} s".format(
        seconds, ", ".join(f"{m['maps']:.2f}" for m in moves), ", ".join(f"{m['ks']:.2f}" for m in moves)))
    line += f" (the KS statistics: {', '.join(kernel)})"
    BROWSER_REPORT.append(line)
    print(line)
    # jupyterlab-myst reports each link to another page's anchor (the API reference: "#gendel.panels.explorer...")
    # as "No target for internal reference": such links resolve only in the book, as the page says.
    errors = [m for m in console if m.startswith("error") and "widget" in m.lower()
              and "No target for internal reference" not in m]
    assert not errors, f"widget errors in the console: {errors[:3]}"
    page.close()


def test_theory_page_runs_live(browser, lab):
    page, console = open_page(browser, lab, "book/theory/index.md")
    seconds = run_all(page, timeout_s=600)
    check_rendering(page, console, "theory/index")
    shot(page, "theory_index_after_run_all")
    BROWSER_REPORT.append(f"live theory/index: Run All {seconds:.0f} s, no errors, no raw TeX or MyST")
    page.close()


GAN_NOTEBOOK = myst_page("""\
# The GAN chapter's panel on the tiny profile

```{code-cell} ipython3
from gendel.book import setup_page

page = setup_page()
```

```{code-cell} ipython3
from gendel.gan.result_files import stored_results
from gendel.gan.run import run_profile
from gendel.panels.gan import label_panel

tiny = run_profile("tiny")
panel = label_panel(tiny, bound=10.0)
panel
```

```{code-cell} ipython3
stored = label_panel(stored_results("quick"), bound=10.0)
stored
```
""")


def test_gan_label_panel_runs_live_on_the_tiny_profile(browser, lab):
    path = lab["root"] / "book" / "gan" / "live_tiny.md"
    path.write_text(GAN_NOTEBOOK)
    page, console = open_page(browser, lab, "book/gan/live_tiny.md")
    run_all(page, timeout_s=900)
    errors = page.evaluate(ERROR_OUTPUTS_JS)
    assert not errors, f"cells wrote errors or warnings: {errors[:3]}"
    assert panel_figures(page, "label_panel(tiny") >= 1, "the GAN label panel is not there after Run All"
    # The tiny profile trains for seconds: its classifier puts every generated image in one class
    # and its VDM's ratios lie within 1e-3 of 1, so no control can change its bars. The controls
    # are exercised on the stored results of the quick profile, which ship with the package.
    assert panel_figures(page, "label_panel(stored_results") >= 1
    moved = press_and_time(page, "bound B", "Home", "label_panel(stored_results", {"bars": (0, 0)})
    shot(page, "gan_panel_after_bound_move")
    assert moved["bars"] > 0
    BROWSER_REPORT.append(f"live GAN label panel: tiny profile trained and shown; B key press on the quick "
                          f"results → bars redrawn {moved['bars']:.2f} s")
    page.close()
