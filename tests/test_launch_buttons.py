"""Launch buttons and the page's ``.ipynb`` download (book/_ext/launch.py), on a two-page test book.

The book's own settings are used (``_config.yml``'s ``launch_buttons:`` block, through Jupyter Book's
conversion to Sphinx settings), with the repository's address left empty (as it is today) or set.
The test book is built with ``-W -n`` like the book: no warning is allowed in either case.
"""

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "book" / "_ext"))

import launch  # noqa: E402  (book/_ext/launch.py)
from conftest import myst_page  # noqa: E402

PAGE = myst_page("""\
# A notebook page

```{code-cell} ipython3
x = 1 + 1
```
""")

PAIR = """{"cells": [{"cell_type": "code", "execution_count": null, "id": "a1", "metadata": {}, "outputs": [],
 "source": ["x = 1 + 1"]}], "metadata": {"kernelspec": {"display_name": "Python 3", "language": "python",
 "name": "python3"}}, "nbformat": 4, "nbformat_minor": 5}
"""


def theme_options(url):
    """sphinx-book-theme's options as Jupyter Book makes them from _config.yml, with ``url`` as the address."""
    import yaml
    from jupyter_book.config import yaml_to_sphinx

    config = yaml.safe_load((ROOT / "_config.yml").read_text())
    config["repository"]["url"] = url
    return yaml_to_sphinx(config)[0]["html_theme_options"]


def build(tmp_path, url):
    src = tmp_path / "src"
    (src / "sub").mkdir(parents=True)
    (src / "index.md").write_text("# Test book\n\n```{toctree}\nsub/page\n```\n")
    (src / "sub" / "page.md").write_text(PAGE)
    (src / "sub" / "page.ipynb").write_text(PAIR)
    (src / "conf.py").write_text(
        f"import sys\nsys.path.insert(0, {str(ROOT / 'book' / '_ext')!r})\n"
        "extensions = ['myst_nb', 'launch']\nhtml_theme = 'sphinx_book_theme'\n"
        "exclude_patterns = ['**.ipynb', '_build']\nnb_execution_mode = 'off'\n"
        f"html_theme_options = {theme_options(url)!r}\n")
    out = tmp_path / "html"
    result = subprocess.run([sys.executable, "-m", "sphinx", "-W", "-n", "--keep-going", "-q", "-b", "html",
                             str(src), str(out)], capture_output=True, text=True)
    assert result.returncode == 0, f"the test book did not build cleanly:\n{result.stderr[-3000:]}"
    return src, out, (out / "sub" / "page.html").read_text()


def test_no_launch_buttons_while_the_address_is_unset(tmp_path):
    assert theme_options("")["launch_buttons"]["colab_url"], "_config.yml names no Colab service"
    src, out, html = build(tmp_path, "")
    assert "launch-buttons" not in html and "colab.research.google.com" not in html and "mybinder.org" not in html
    # the download menu still offers the page's .ipynb pair
    assert 'href="../_sources/sub/page.ipynb"' in html
    assert (out / "_sources" / "sub" / "page.ipynb").read_text() == PAIR


def test_launch_buttons_open_the_pair_once_the_address_is_set(tmp_path):
    src, out, html = build(tmp_path, "https://github.com/someone/gendel")
    branch = theme_options("x")["repository_branch"]
    assert f'href="https://colab.research.google.com/github/someone/gendel/blob/{branch}/sub/page.ipynb"' in html
    assert f'href="https://mybinder.org/v2/gh/someone/gendel/{branch}?urlpath=lab/tree/sub/page.ipynb"' in html
    # the download is the pair (code and text), not the build's executed copy
    assert html.count("download-notebook-button") == 1 and 'href="../_sources/sub/page.ipynb"' in html
    assert (out / "_sources" / "sub" / "page.ipynb").read_text() == PAIR


def test_launch_buttons_follow_the_address():
    assert launch.launch_buttons({"repository_url": "", "launch_buttons": {"colab_url": "c"}}) == {}
    assert launch.launch_buttons({"repository_url": "https://github.com/o/r/",
                                  "launch_buttons": {"colab_url": "c"}}) == {"colab_url": "c"}
    from sphinx.errors import ConfigError

    with pytest.raises(ConfigError, match="https://github.com/<owner>/<repository>"):
        launch.launch_buttons({"repository_url": "https://gitlab.com/o/r", "launch_buttons": {"colab_url": "c"}})
