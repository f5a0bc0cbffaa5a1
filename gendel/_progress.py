"""Progress bars for long runs, hidden where nobody watches them.

tqdm reads ``$TQDM_DISABLE`` for its plain (terminal) bar, but its notebook bar, which
``tqdm.auto`` picks inside a Jupyter kernel, passes ``disable=False`` on and ignores the
variable. A page executed by the book build would then carry one ipywidget per bar. Every
bar in gendel therefore comes from :func:`progress_bar`, which reads the variable itself.
"""

from __future__ import annotations

import os


def progress_hidden(enabled=True):
    """Whether a bar is hidden: ``enabled`` is false or ``$TQDM_DISABLE`` is set to a true value."""
    return not enabled or os.environ.get("TQDM_DISABLE", "").strip().lower() not in ("", "0", "false")


def progress_bar(iterable=None, *, enabled=True, **kwargs):
    """A ``tqdm.auto`` bar, disabled when :func:`progress_hidden` says so."""
    from tqdm.auto import tqdm

    if progress_hidden(enabled):
        kwargs["disable"] = True
    return tqdm(iterable, **kwargs)


def duration_text(seconds):
    """A duration in seconds as a person reads it: milliseconds below a second, days and years beyond a day.

    Examples
    --------
    >>> duration_text(1.8e-4), duration_text(42.0), duration_text(5400.0), duration_text(3.2e9)
    ('0.18 ms', '42 s', '1.5 h', '101 years')
    """
    seconds = float(seconds)
    for unit, size in (("years", 365.25 * 86400), ("days", 86400.0), ("h", 3600.0), ("min", 60.0), ("s", 1.0)):
        if seconds >= size:
            return f"{seconds / size:.3g} {unit}"
    return f"{seconds * 1e3:.3g} ms"
