"""Where gendel runs: in a build of the book, or in Google Colab.

The library reads these flags (plotting writes figures for the book build, the panels send no
widget messages there); the book's page tooling (:mod:`gendel.book`) sets a page up from them.
"""

import os
import sys

BUILD_ENV = "GENDEL_BOOK_BUILD"
COLAB_ENV = "GENDEL_COLAB"


def _flag(name):
    """``True``/``False`` for an environment flag set to 1/0 (also true/false, yes/no), ``None`` if unset."""
    value = os.environ.get(name, "").strip().lower()
    if value in ("", "auto"):
        return None
    if value in ("1", "true", "yes"):
        return True
    if value in ("0", "false", "no"):
        return False
    raise ValueError(f"{name}={os.environ[name]!r} is not understood; set it to 1 or 0, or unset it")


def in_book_build():
    """Whether this kernel is building the book (``GENDEL_BOOK_BUILD=1``).

    Examples
    --------
    >>> import os
    >>> from gendel._environment import in_book_build
    >>> before = os.environ.pop("GENDEL_BOOK_BUILD", None)
    >>> in_book_build()
    False
    >>> os.environ["GENDEL_BOOK_BUILD"] = "1"; in_book_build()
    True
    >>> os.environ["GENDEL_BOOK_BUILD"] = "maybe"; in_book_build()
    Traceback (most recent call last):
    ...
    ValueError: GENDEL_BOOK_BUILD='maybe' is not understood; set it to 1 or 0, or unset it
    >>> _ = os.environ.pop("GENDEL_BOOK_BUILD") if before is None else os.environ.update(GENDEL_BOOK_BUILD=before)
    """
    return bool(_flag(BUILD_ENV))


def in_colab():
    """Whether this kernel runs in Google Colab (``GENDEL_COLAB`` overrides the detection).

    Examples
    --------
    >>> import os
    >>> from gendel._environment import in_colab
    >>> before = os.environ.pop("GENDEL_COLAB", None)
    >>> os.environ["GENDEL_COLAB"] = "0"; in_colab()
    False
    >>> os.environ["GENDEL_COLAB"] = "1"; in_colab()
    True
    >>> _ = os.environ.pop("GENDEL_COLAB") if before is None else os.environ.update(GENDEL_COLAB=before)
    """
    forced = _flag(COLAB_ENV)
    return forced if forced is not None else "google.colab" in sys.modules


def enable_colab_widgets():
    """Turn on Colab's custom widget manager (plotly's ``FigureWidget`` and ipywidgets need it).

    Raises a ``RuntimeError`` that says what to do when ``google.colab`` cannot be imported (Colab
    forced with ``GENDEL_COLAB=1`` outside Colab).

    Examples
    --------
    >>> import sys
    >>> from gendel._environment import enable_colab_widgets
    >>> if "google.colab" not in sys.modules:
    ...     try:
    ...         enable_colab_widgets()
    ...     except RuntimeError as err:
    ...         print(str(err)[:45])
    the page was told it runs in Colab (GENDEL_CO
    """
    try:
        from google.colab import output
    except ImportError as err:
        raise RuntimeError("the page was told it runs in Colab (GENDEL_COLAB=1) but google.colab cannot be "
                           "imported; unset GENDEL_COLAB outside Colab") from err
    output.enable_custom_widget_manager()
