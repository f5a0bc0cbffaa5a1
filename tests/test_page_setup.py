"""gendel.book: where a page runs (book build, live, Colab) and the %%build_only cell magic."""

import re
import sys
import types
from pathlib import Path

import plotly.io as pio
import pytest

import gendel.book as B

ROOT = Path(__file__).resolve().parents[1]
PAGES = sorted(p for p in (ROOT / "book").rglob("*.md") if not {"_vendor", ".ipynb_checkpoints"} & set(p.parts))


@pytest.fixture
def plotly_state():
    before = pio.templates.default, pio.renderers.default
    yield
    pio.templates.default, pio.renderers.default = before


@pytest.fixture
def shell(monkeypatch):
    """A fresh IPython shell, as a kernel has one."""
    from IPython.core.interactiveshell import InteractiveShell

    sh = InteractiveShell.instance()
    yield sh
    InteractiveShell.clear_instance()


@pytest.fixture
def fake_colab(monkeypatch):
    """A stand-in for Colab's ``google.colab.output`` that records its calls."""
    calls = []
    output = types.ModuleType("google.colab.output")
    output.enable_custom_widget_manager = lambda: calls.append("enable_custom_widget_manager")
    colab = types.ModuleType("google.colab")
    colab.output = output
    monkeypatch.setitem(sys.modules, "google.colab", colab)
    monkeypatch.setitem(sys.modules, "google.colab.output", output)
    return calls


@pytest.mark.parametrize("page", [p for p in PAGES if "```{code-cell}" in p.read_text()],
                         ids=lambda p: str(p.relative_to(ROOT / "book")))
def test_every_page_starts_with_setup_page(page):
    """The first code cell of every page is the one gendel.book.install renders from _config.yml:
    install gendel where it is missing, then setup_page()."""
    from gendel.book import install

    text = page.read_text()
    assert install.first_cell(text) == install.render_cell(ROOT / "_config.yml"), (
        f"{page.name}: the first code cell must be the install and setup_page cell (tagged remove-cell); "
        "write it into every page with `.venv/bin/python -m gendel.book.install`")
    assert "GENDEL_BOOK_BUILD" not in text.replace("`GENDEL_BOOK_BUILD=1`", ""), \
        f"{page.name} reads GENDEL_BOOK_BUILD itself; use gendel.book (setup_page, %%build_only)"


def test_live_outside_colab(monkeypatch, plotly_state):
    monkeypatch.delenv("GENDEL_BOOK_BUILD", raising=False)
    monkeypatch.setenv("GENDEL_COLAB", "0")
    page = B.setup_page()
    assert page.where == "live" and not page.colab_widgets and not page.magic
    assert pio.templates.default == "plotly_white"


def test_book_build_routes_widgets_nowhere(monkeypatch, plotly_state):
    import comm

    from gendel.plotting.common import BOOK_RENDERER

    monkeypatch.setenv("GENDEL_BOOK_BUILD", "1")
    monkeypatch.setattr(comm, "create_comm", comm.create_comm)  # undone after the test
    page = B.setup_page()
    assert page.where == "book" and page.renderer == BOOK_RENDERER == pio.renderers.default
    assert comm.create_comm is comm.DummyComm


def test_colab_forced_sets_renderer_and_widget_manager(monkeypatch, plotly_state, fake_colab):
    monkeypatch.delenv("GENDEL_BOOK_BUILD", raising=False)
    monkeypatch.setenv("GENDEL_COLAB", "1")
    page = B.setup_page()
    assert page.where == "colab" and page.colab_widgets
    assert pio.renderers.default == "colab"
    assert fake_colab == ["enable_custom_widget_manager"]


def test_colab_detected_from_its_module(monkeypatch, plotly_state, fake_colab):
    monkeypatch.delenv("GENDEL_BOOK_BUILD", raising=False)
    monkeypatch.delenv("GENDEL_COLAB", raising=False)
    assert B.in_colab()
    B.setup_page()
    assert fake_colab == ["enable_custom_widget_manager"]


def test_colab_forced_without_colab_says_what_to_do(monkeypatch, plotly_state):
    monkeypatch.delenv("GENDEL_BOOK_BUILD", raising=False)
    monkeypatch.setenv("GENDEL_COLAB", "1")
    monkeypatch.setitem(sys.modules, "google.colab", None)  # import fails
    with pytest.raises(RuntimeError, match="unset GENDEL_COLAB"):
        B.setup_page()


def test_bad_flag_value_is_refused(monkeypatch):
    monkeypatch.setenv("GENDEL_COLAB", "sometimes")
    with pytest.raises(ValueError, match="set it to 1 or 0"):
        B.in_colab()


def test_build_only_skips_live_and_runs_in_the_build(monkeypatch, shell, plotly_state):
    monkeypatch.delenv("GENDEL_BOOK_BUILD", raising=False)
    monkeypatch.setenv("GENDEL_COLAB", "0")
    shell.run_cell("from gendel.book import setup_page\npage = setup_page()").raise_error()
    assert shell.user_ns["page"].magic
    shell.run_cell("ran = []").raise_error()
    shell.run_cell("%%build_only\nran.append('live')").raise_error()
    assert shell.user_ns["ran"] == []
    monkeypatch.setenv("GENDEL_BOOK_BUILD", "1")
    shell.run_cell("%%build_only\nran.append('book')").raise_error()
    assert shell.user_ns["ran"] == ["book"]


def test_a_failing_build_only_cell_fails_the_build(monkeypatch, shell, plotly_state):
    monkeypatch.setenv("GENDEL_BOOK_BUILD", "1")
    import comm

    monkeypatch.setattr(comm, "create_comm", comm.create_comm)
    shell.run_cell("from gendel.book import setup_page\npage = setup_page()").raise_error()
    result = shell.run_cell("%%build_only\nassert 1 == 2, 'a claim no longer holds'")
    with pytest.raises(AssertionError, match="a claim no longer holds"):
        result.raise_error()


def test_pages_use_no_custom_tex_macros():
    """JupyterLab (jupyterlab-myst) and Colab render a page's math without the book's Sphinx
    configuration, so the pages use no macros of their own."""
    import yaml

    sphinx = yaml.safe_load((ROOT / "_config.yml").read_text())["sphinx"]["config"]
    assert "macros" not in sphinx.get("mathjax3_config", {}).get("tex", {})
    for page in PAGES:
        used = sorted(set(re.findall(r"\\(?:rhohat|phat|KL)(?![A-Za-z])", page.read_text())))
        assert not used, f"{page.name} uses {used}, which no live renderer defines; write them out"


def test_live_page_keeps_glued_values_and_says_why(monkeypatch, shell, plotly_state):
    monkeypatch.delenv("GENDEL_BOOK_BUILD", raising=False)
    monkeypatch.setenv("GENDEL_COLAB", "0")
    shown = []
    monkeypatch.setattr("IPython.display.display", lambda *objs, **kw: shown.extend(objs))
    shell.run_cell("from gendel.book import setup_page\npage = setup_page()").raise_error()
    assert any("Running this page live" in getattr(o, "data", "") for o in shown)
    shell.run_cell("from myst_nb import glue\nglue('explore_lam', 0.8, display=False)").raise_error()
    assert shell.user_ns["page"].glued == {"explore_lam": 0.8}
    shell.run_cell("page2 = setup_page()\nglue('x', 1, display=False)").raise_error()  # re-running the cell
    assert shell.user_ns["page2"].glued == {"x": 1}
    import myst_nb

    assert not hasattr(myst_nb.glue.__wrapped__, "__wrapped__"), "setup_page wrapped glue twice"


def test_chapter_page_lists_follow_the_toc():
    """The chapter pages list their sections by hand (JupyterLab does not know Sphinx's
    tableofcontents directive): same pages, same order and same titles as _toc.yml and the pages."""
    import yaml

    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    chapters = [c for part in toc["parts"] for c in part["chapters"] if c.get("sections")]
    assert chapters
    for chapter in chapters:
        page = ROOT / f"{chapter['file']}.md"
        listed = re.findall(r"^- \{doc\}`(.+) <([\w/]+)>`$", page.read_text().split("The pages of this chapter")[-1],
                            re.M)
        expected = []
        for section in chapter["sections"]:
            target = ROOT / f"{section['file']}.md"
            title = re.search(r"^# (.+)$", target.read_text(), re.M).group(1)
            expected.append((title, target.stem))
        if page.name == "index.md" and "theory" in chapter["file"]:
            continue  # theory/index introduces its sections in prose
        assert listed == expected, f"{page.relative_to(ROOT)} lists {listed}, _toc.yml says {expected}"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT / "book")))
def test_paired_notebooks_carry_no_outputs(page):
    """A page's .ipynb is opened fresh (Colab, JupyterLab): a stored widget output would show as
    "Loading widget..." until its cell runs again, so the pairs hold code and text only."""
    import json

    pair = page.with_suffix(".ipynb")
    if not pair.exists():
        pytest.skip(f"{pair.name} is not paired")
    nb = json.loads(pair.read_text())
    stored = [i for i, c in enumerate(nb["cells"]) if c["cell_type"] == "code" and c.get("outputs")]
    assert not stored, f"{pair.name}: cells {stored} store outputs; make it again with python -m gendel.book.colab"


# --- the install step of the first cell (gendel.book.install) ----------------------------------

def _config(tmp_path, url, branch="main"):
    path = tmp_path / "_config.yml"
    path.write_text(f"title: t\nrepository:\n  url: \"{url}\"\n  branch: {branch}\n")
    return path


@pytest.fixture
def run_cell(monkeypatch, plotly_state):
    """Run a rendered first cell as a kernel would, with gendel missing or present; pip is recorded,
    not run (the real install is tests/test_colab_start.py)."""
    import importlib.util
    import subprocess

    monkeypatch.delenv("GENDEL_BOOK_BUILD", raising=False)
    monkeypatch.delenv("GENDEL_PIP_SPEC", raising=False)
    monkeypatch.setenv("GENDEL_COLAB", "0")
    calls = []
    real_find_spec = importlib.util.find_spec

    def run(source, missing):
        monkeypatch.setattr(importlib.util, "find_spec",
                            lambda name, *a: None if missing and name == "gendel" else real_find_spec(name, *a))
        monkeypatch.setattr(subprocess, "run", lambda args, **kw: calls.append((args, kw)))
        namespace = {}
        exec(compile(source, "<first cell>", "exec"), namespace)
        return namespace

    run.calls = calls
    return run


def test_install_cell_does_nothing_where_gendel_is_present(run_cell, capfd):
    namespace = run_cell(B_install().render_cell(ROOT / "_config.yml"), missing=False)
    assert run_cell.calls == [] and namespace["page"].where == "live"
    assert capfd.readouterr() == ("", ""), "the first cell printed something where gendel is installed"


def test_install_cell_installs_from_the_repository(run_cell, tmp_path):
    cell = B_install().render_cell(_config(tmp_path, "https://github.com/someone/gendel", "dev"))
    run_cell(cell, missing=True)
    (args, kwargs), = run_cell.calls
    assert args == [sys.executable, "-m", "pip", "install", "--quiet",
                    "gendel[book] @ git+https://github.com/someone/gendel@dev"] and kwargs == {"check": True}


def test_install_cell_installs_what_gendel_pip_spec_says(run_cell, tmp_path, monkeypatch):
    cell = B_install().render_cell(_config(tmp_path, "https://github.com/someone/gendel"))
    monkeypatch.setenv("GENDEL_PIP_SPEC", "'torch>=2.2,<2.14' '/clone of/gendel[book]'")
    run_cell(cell, missing=True)
    (args, _), = run_cell.calls
    assert args[-2:] == ["torch>=2.2,<2.14", "/clone of/gendel[book]"]


def test_install_cell_without_an_address_says_what_to_do(run_cell, tmp_path):
    cell = B_install().render_cell(_config(tmp_path, ""))
    with pytest.raises(ModuleNotFoundError, match=r"GENDEL_PIP_SPEC=/path/to/gendel\[book\].*pip install -e"):
        run_cell(cell, missing=True)
    assert run_cell.calls == []


def test_install_settings_are_checked(tmp_path):
    with pytest.raises(ValueError, match="repository.branch is not"):
        B_install().read_repository(_config(tmp_path, "https://github.com/someone/gendel", '""'))
    with pytest.raises(FileNotFoundError, match="_config.yml"):
        B_install().read_repository(tmp_path / "missing" / "_config.yml")


def test_rewrite_puts_the_cell_first_and_refuses_other_pages(tmp_path):
    install = B_install()
    page = tmp_path / "p.md"
    page.write_text("# T\n\n```{code-cell} ipython3\n:tags: [remove-cell]\nfrom gendel.book import setup_page\n```\n\n"
                    "```{code-cell} ipython3\nx = 1\n```\n")
    assert install.rewrite_page(page, "CELL") and install.first_cell(page.read_text()) == "CELL"
    assert "x = 1" in page.read_text() and not install.rewrite_page(page, "CELL")
    page.write_text("# T\n\n```{code-cell} ipython3\nx = 1\n```\n")
    with pytest.raises(ValueError, match="tagged remove-cell"):
        install.rewrite_page(page, "CELL")


def B_install():
    from gendel.book import install

    return install


def _hosted_config(tmp_path, baseurl, url="https://github.com/someone/gendel"):
    path = tmp_path / "_config.yml"
    path.write_text(f"title: t\nhtml:\n  baseurl: \"{baseurl}\"\nrepository:\n  url: \"{url}\"\n  branch: main\n")
    return path


def test_install_cell_installs_the_wheel_published_with_the_book(run_cell, tmp_path):
    """With the book's address set, the wheel that the build publishes there wins over the repository."""
    from gendel.book.publish import version

    cell = B_install().render_cell(_hosted_config(tmp_path, "https://example.org/course/gendel/"))
    assert len(cell.splitlines()) <= 10, "the install cell is no longer short"
    run_cell(cell, missing=True)
    (args, _), = run_cell.calls
    assert args[-1] == (f"gendel[book] @ https://example.org/course/gendel/wheel/gendel-{version(ROOT)}"
                        "-py3-none-any.whl")


def test_install_cell_prefers_gendel_pip_spec_over_the_wheel(run_cell, tmp_path, monkeypatch):
    cell = B_install().render_cell(_hosted_config(tmp_path, "https://example.org/gendel"))
    monkeypatch.setenv("GENDEL_PIP_SPEC", "/clone/gendel[book]")
    run_cell(cell, missing=True)
    (args, _), = run_cell.calls
    assert args[-1] == "/clone/gendel[book]"


def test_a_book_address_that_is_no_address_is_refused(tmp_path):
    with pytest.raises(ValueError, match="html.baseurl"):
        B_install().render_cell(_hosted_config(tmp_path, "example.org/gendel"))


def test_a_paragraph_shown_before_its_number_is_filled_in_when_it_is_glued(monkeypatch, shell, plotly_state):
    """page.show displays a paragraph where the page has it; a value glued further down fills it in."""
    monkeypatch.delenv("GENDEL_BOOK_BUILD", raising=False)
    monkeypatch.setenv("GENDEL_COLAB", "0")
    shown, updates = [], []

    class Handle:
        def update(self, obj):
            updates.append(obj.data)

    def display(*objs, display_id=None, **kw):
        shown.extend(o.data for o in objs)
        return Handle() if display_id else None

    monkeypatch.setattr("IPython.display.display", display)
    shell.run_cell("from gendel.book import setup_page\npage = setup_page()\nfrom myst_nb import glue").raise_error()
    shell.run_cell("glue('n', 12, display=False)").raise_error()
    shell.run_cell('page.show("In {{n}} sets, a median {{share:.0%}}.")').raise_error()
    assert shown[-1] == "In 12 sets, a median …." and updates == []
    shell.run_cell("glue('share', 0.404, display=False)").raise_error()
    assert updates == ["In 12 sets, a median 40%."]
    shell.run_cell("glue('share', 0.5, display=False)").raise_error()
    assert len(updates) == 1, "a paragraph already complete was updated again"


def test_displayed_markdown_shows_roles_as_words_live(monkeypatch, shell, plotly_state):
    monkeypatch.delenv("GENDEL_BOOK_BUILD", raising=False)
    monkeypatch.setenv("GENDEL_COLAB", "0")
    shell.run_cell("from gendel.book import setup_page\npage = setup_page()").raise_error()
    from IPython.display import Markdown

    data, _ = shell.display_formatter.format(Markdown("| {ref}`Q1: claims <q1-claims>` | {doc}`theory/index` |"))
    assert data["text/markdown"] == "| Q1: claims | theory/index |"


def test_the_teacher_pages_words_name_the_source_the_install_cell_uses(tmp_path):
    """install_source_words and render_cell make one choice: the wheel, else the repository, else none."""
    install = B_install()
    hosted = _hosted_config(tmp_path, "https://example.org/gendel")
    assert install.install_source_words(hosted) == "from the wheel published with the book at https://example.org/gendel/wheel/"
    assert "wheel/gendel-" in install.render_cell(hosted)
    repo_only = tmp_path / "repo" / "_config.yml"
    repo_only.parent.mkdir()
    repo_only.write_text("title: t\nrepository:\n  url: https://github.com/someone/gendel\n  branch: main\n")
    assert install.install_source_words(repo_only) == "from the repository https://github.com/someone/gendel"
    assert "git+https://github.com/someone/gendel" in install.render_cell(repo_only)
    bare = tmp_path / "bare" / "_config.yml"
    bare.parent.mkdir()
    bare.write_text("title: t\n")
    assert install.install_source_words(bare).startswith("once the book names where to install it from")
