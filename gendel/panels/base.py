"""What every live panel of gendel shares: settings, ``set``, rollback, ``close`` and display.

A panel is a set of controls (ipywidgets with a ``value``), a status line and figures drawn from
the controls' values. :class:`Panel` holds the protocol that the panels of
:mod:`gendel.panels.explorer`, :mod:`gendel.panels.deletion_test` and :mod:`gendel.panels.gan` have in
common:

- :attr:`Panel.settings` reads the controls, :meth:`Panel.set` validates every new value first
  (nothing changes when one is bad), moves the controls without a redraw per control, then
  redraws once;
- a redraw that fails (in :meth:`Panel.set` or after a control moved in the browser) rolls the
  controls back to the last settings that drew, redraws those, and says on the status line what
  failed, so the next valid change works;
- :meth:`Panel.close` and ``_repr_mimebundle_`` (a panel displays as its widget).

This module imports neither ipywidgets nor plotly: the subclasses build the widgets.
"""

from __future__ import annotations

import contextlib
import html
import os
import sys
import threading
import time
from collections import OrderedDict
from concurrent.futures import Future, ThreadPoolExecutor


def _text(value):
    """``str(value)`` escaped for an HTML status line (quotes kept readable)."""
    return html.escape(str(value), quote=False)


class LRUCache(OrderedDict):
    """A small least-recently-used cache that several threads may fill at once.

    :meth:`get_or_compute` computes a missing value once: a second thread asking for a key that
    is being computed waits for that result (or its error) instead of computing it again. This
    lets a panel compute the settings a slider reaches next in a background thread while the
    foreground asks for whatever the reader picked.

    Examples
    --------
    >>> cache = LRUCache(2)
    >>> cache.get_or_compute("a", lambda: 1), cache.get_or_compute("b", lambda: 2)
    (1, 2)
    >>> cache.get_or_compute("a", lambda: 99)   # cached: not recomputed
    1
    >>> cache.get_or_compute("c", lambda: 3)    # evicts "b", the least recently used
    3
    >>> list(cache)
    ['a', 'c']
    """

    def __init__(self, maxsize):
        super().__init__()
        self.maxsize = maxsize
        self._lock = threading.Lock()
        self._running = {}  # key -> Future of a computation in progress

    def get_or_compute(self, key, compute):
        with self._lock:
            if key in self:
                self.move_to_end(key)
                return self[key]
            future = self._running.get(key)
            owner = future is None
            if owner:
                future = self._running[key] = Future()
        if not owner:
            return future.result()  # another thread is computing it: wait for its result or error
        try:
            value = compute()
        except BaseException as exc:
            with self._lock:
                del self._running[key]
            future.set_exception(exc)
            raise
        with self._lock:
            del self._running[key]
            self[key] = value
            if len(self) > self.maxsize:
                self.popitem(last=False)
        future.set_result(value)
        return value


class Panel:
    """Base of the live panels: settings, atomic ``set`` with rollback, ``close``, display.

    A subclass builds ``self.controls`` (setting name -> widget with a ``value``),
    ``self.status`` (a widget with an HTML ``value``) and ``self.widget`` (the whole panel),
    observes every control with :meth:`_on_change`, calls :meth:`_start` once at the end of its
    ``__init__``, and implements

    - ``_validate(settings)``: the checked values of a ``set(**settings)`` call, as a dict; it
      raises (``TypeError``/``ValueError``, saying what was wrong) before anything moves;
    - ``_refresh()``: bring the figures up to date with the controls; it may raise.

    It may override ``_read_controls``/``_write_controls`` when its settings are not one control
    each, and ``_closables`` to close more widgets.

    Attributes
    ----------
    last_valid_settings_ : dict
        The settings of the last redraw that succeeded: where a failed one rolls back to.

    Examples
    --------
    A panel with one control, drawn as its square root (plain objects stand in for widgets):

    >>> from types import SimpleNamespace
    >>> class Root(Panel):
    ...     def __init__(self):
    ...         self.controls = {"x": SimpleNamespace(value=4.0)}
    ...         self.status = self.widget = SimpleNamespace(value="")
    ...         self._start()
    ...     def _validate(self, settings):
    ...         return {k: float(v) for k, v in settings.items()}
    ...     def _refresh(self):
    ...         if self.controls["x"].value < 0:
    ...             raise ValueError("no square root of a negative number")
    ...         self.drawn = self.controls["x"].value ** 0.5
    >>> panel = Root()
    >>> panel.set(x=9).drawn, panel.settings
    (3.0, {'x': 9.0})
    >>> panel.set(x=-1)   # the redraw fails: the controls roll back to the last settings that drew
    Traceback (most recent call last):
    ValueError: no square root of a negative number
    >>> panel.settings, panel.drawn, "Error" in panel.status.value
    ({'x': 9.0}, 3.0, True)
    """

    _suspended = False

    # ------------------------------------------------------------------ public API

    @property
    def settings(self):
        """The current values of all controls, as a dict."""
        return self._read_controls()

    def set(self, **settings):
        """Change one or more settings and redraw once; returns self.

        A bad value (wrong type, outside its control's range, unknown name) raises before any
        control moves. If the redraw itself fails (e.g. a kNN with k larger than its training
        set), the controls roll back to :attr:`last_valid_settings_`, the status line says what
        failed, and the error is raised.
        """
        values = self._validate(settings)
        with self._no_redraw():
            self._write_controls(values)
        self._redraw(raise_errors=True)
        return self

    def close(self):
        """Close every widget of the panel (frees the front-end views)."""
        for w in [self.widget, *self._closables()]:
            w.close()

    def _repr_mimebundle_(self, **kwargs):
        return self.widget._repr_mimebundle_(**kwargs)

    # ------------------------------------------------------------------ for subclasses

    def _read_controls(self):
        return {name: control.value for name, control in self.controls.items()}

    def _write_controls(self, values):
        for name, value in values.items():
            self.controls[name].value = value

    def _closables(self):
        return [*self.controls.values(), self.status]

    def _start(self):
        """The first draw, at the end of ``__init__``; a failure here propagates (no state to go back to)."""
        self._refresh()
        self.last_valid_settings_ = self.settings

    @contextlib.contextmanager
    def _no_redraw(self):
        """Move controls without a redraw per control."""
        previous, self._suspended = self._suspended, True
        try:
            yield
        finally:
            self._suspended = previous

    def _on_change(self, change=None):
        """Observer of every control: redraw, rolling back (not raising) on failure."""
        if not self._suspended:
            self._redraw(raise_errors=False)

    def _show_error(self, text):
        self.status.value = f"<span style='font-size:0.9em'><b style='color:#B00020'>Error:</b> {text}</span>"

    # ------------------------------------------------------------------ redraw with rollback

    def _redraw(self, *, raise_errors):
        try:
            self._refresh()
        except Exception as exc:
            failed = self.settings
            self._roll_back()
            changed = ", ".join(f"{k} = {v!r}" for k, v in failed.items() if self.last_valid_settings_.get(k) != v)
            self._show_error(f"{_text(exc)}<br>(at {_text(changed or 'the same settings')}; "
                             "the controls are back at the last settings that worked)")
            if raise_errors:
                raise
        else:
            self.last_valid_settings_ = self.settings

    def _roll_back(self):
        with self._no_redraw():
            self._write_controls(self.last_valid_settings_)
        try:
            self._refresh()  # mostly from the caches: these settings drew before
        except Exception:  # pragma: no cover - the status line reports the first error
            pass


class ComputesAhead:
    """Mixin of a :class:`Panel` that computes, while it is idle, what the next control move reaches.

    The subclass implements ``_steps_ahead()``: zero-argument callables, each filling the panel's
    caches with one result and returning a key for it (None when it was cached already). Once the
    panel is shown, and after each control moved in the browser, they run one by one in a
    background thread at the lowest CPU priority, with gendel's kernel sums on that thread alone
    (:func:`gendel._kernels.serial_here`); a redraw stops them at the next step. ``set`` does not
    start them, nor does anything during the book build. The keys of the results computed ahead
    are in ``_ahead``.

    Examples
    --------
    A panel whose next steps square the next two values; its background thread fills the cache:

    >>> from types import SimpleNamespace
    >>> class Squares(ComputesAhead, Panel):
    ...     ahead_delay_s = 0.0
    ...     def __init__(self):
    ...         self.controls = {"x": SimpleNamespace(value=2)}
    ...         self.status = SimpleNamespace(value="")
    ...         self.widget = SimpleNamespace(close=lambda: None, _repr_mimebundle_=lambda **kw: {})
    ...         self.cache = {}
    ...         self._start()
    ...     def _validate(self, settings):
    ...         return settings
    ...     def _refresh(self):
    ...         self._refresh_started()
    ...     def _steps_ahead(self):
    ...         x = self.controls["x"].value
    ...         return [lambda v=v: self.cache.setdefault(v, v * v) and v for v in (x + 1, x + 2)]
    ...     def _closables(self):
    ...         return []
    >>> panel = Squares()
    >>> panel._run_ahead(panel._generation, panel._steps_ahead())   # what the background thread runs
    >>> sorted(panel.cache.items()), sorted(panel._ahead)
    ([(3, 9), (4, 16)], [3, 4])
    >>> panel.close()
    """

    #: Compute ahead at all (False keeps the background thread, and a second core, idle).
    prefetch = True
    #: Seconds to wait before computing ahead, so that the redraw's messages reach the browser and
    #: are drawn before the background work takes a core.
    ahead_delay_s = 0.5
    _generation, _prefetcher = 0, None

    @property
    def _ahead(self):
        if "_ahead_keys" not in self.__dict__:
            self._ahead_keys = set()
        return self._ahead_keys

    def _refresh_started(self):
        """Call at the start of each redraw: steps for earlier settings stop."""
        self._generation += 1

    def _repr_mimebundle_(self, **kwargs):
        self._compute_ahead()
        return super()._repr_mimebundle_(**kwargs)

    def _on_change(self, change=None):
        super()._on_change(change)
        if not self._suspended:
            self._compute_ahead()

    def _compute_ahead(self):
        from gendel._environment import in_book_build

        if not self.prefetch or in_book_build():
            return
        if self._prefetcher is None:
            self._prefetcher = ThreadPoolExecutor(max_workers=1, thread_name_prefix="gendel-ahead",
                                                  initializer=_lowest_priority)
        self._prefetcher.submit(self._run_ahead, self._generation, self._steps_ahead())

    def _run_ahead(self, generation, steps):
        from gendel._kernels import serial_here

        deadline = time.monotonic() + self.ahead_delay_s
        while time.monotonic() < deadline and generation == self._generation:
            time.sleep(0.05)
        for step in steps:
            if generation != self._generation:
                return  # the reader moved on: the foreground needs the cores
            try:
                with serial_here():
                    key = step()
            except Exception:  # the same error is reported if the reader goes there
                return
            if key is not None:
                self._ahead.add(key)

    def close(self):
        """Close every widget of the panel and stop computing ahead."""
        self._generation += 1
        if self._prefetcher is not None:
            self._prefetcher.shutdown(wait=False, cancel_futures=True)
        super().close()


def _lowest_priority():
    """Give the calling thread the lowest CPU priority (Linux, where priorities are per thread)."""
    if sys.platform.startswith("linux"):
        try:
            os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 19)
        except (AttributeError, OSError):  # pragma: no cover - not allowed or not supported
            pass
