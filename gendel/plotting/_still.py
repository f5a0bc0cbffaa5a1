"""A figure with a slider or buttons as a still image: the controls' active state, no controls.

On a page a plotly slider (or an update menu) is a control; in a PNG or SVG it would be a dead
widget. :func:`still_figure` applies the active step of each slider and the active button of each
update menu to the figure (as plotly.js would: ``restyle``, ``relayout``, ``update``, ``animate``),
removes the controls, writes the active step's label (``"σ_C = 0.125"``: the slider's
current-value prefix, the step's label and suffix) as a small annotation where the slider showed
it, and gives back the bottom margin a slider below the plots needed: the figure becomes shorter by
that much, its plots keep their size on the page.

Slider geometry follows plotly.js (``src/components/sliders``): a slider with ``yanchor="top"``
at paper height ``y <= 0`` starts ``-y`` plot heights below the plots, then its ``pad.t``; its
body (current value, rail, ticks, tick labels, ``pad.b``) pushes the bottom margin to fit.
"""

from __future__ import annotations

import copy
import math
import re

#: plotly.js's slider constants (tickOffset + labelOffset) and defaults (pad.t, ticklen, currentvalue.offset).
_RAIL_AND_LABELS, _PAD_T, _TICKLEN, _VALUE_OFFSET = 25 + 8, 20, 7, 10
_LINE = 1.3  # a text line's height per pixel of font size
_GAP = 8  # px kept under the label


def still_figure(spec, height):
    """``(spec, height)`` of a figure dict without its sliders and update menus, in their active state.

    ``height`` is the figure's height in pixels; the returned height is smaller where a slider
    below the plots is removed. A figure without controls comes back as it is.
    """
    layout = spec.get("layout") or {}
    sliders = [s for s in layout.get("sliders") or [] if s.get("visible", True) and len(s.get("steps") or []) > 1]
    menus = [m for m in layout.get("updatemenus") or [] if m.get("visible", True) and m.get("buttons")]
    if not (layout.get("sliders") or layout.get("updatemenus")):
        return spec, height
    spec = copy.deepcopy({**spec, "layout": {k: v for k, v in layout.items() if k not in ("sliders", "updatemenus")}})
    frames = {f.get("name"): f for f in spec.pop("frames", None) or []}
    labels = []
    for menu in menus:
        active = menu.get("active", 0)
        if 0 <= active < len(menu["buttons"]):
            button = menu["buttons"][active]
            _apply(spec, button.get("method", "restyle"), button.get("args") or [], frames)
            labels.append((str(button.get("label", "")), {"x": -0.05, "y": 1, "xanchor": "right", **menu}, {}, 0))
    margin = dict(spec["layout"].get("margin") or {})
    top, bottom = margin.get("t", 100), margin.get("b", 80)
    freed = []
    for s in sliders:
        active = s.get("active", 0)
        step = s["steps"][active if 0 <= active < len(s["steps"]) else 0]
        _apply(spec, step.get("method", "restyle"), step.get("args") or [], frames)
        value = s.get("currentvalue") or {}
        font = {**(s.get("font") or {}), **(value.get("font") or {})}
        base = (s.get("font") or {}).get("size") or (spec["layout"].get("font") or {}).get("size") or 12
        size = font.get("size") or base
        pad_t = (s.get("pad") or {}).get("t", _PAD_T)
        labels.append((f"{value.get('prefix', '')}{step.get('label', '')}{value.get('suffix', '')}", s, font, pad_t))
        y = s.get("y", 0)
        if s.get("yanchor", "top") == "top" and y <= 0:  # below the plots, in the bottom margin
            body = math.ceil(_LINE * size) + value.get("offset", _VALUE_OFFSET) if value.get("visible", True) else 0
            body += _RAIL_AND_LABELS + s.get("ticklen", _TICKLEN) + math.ceil(_LINE * base)  # rail, ticks, labels
            body += pad_t + (s.get("pad") or {}).get("b", 0)
            # plotly.js pushes the margin until the slider fits: b = -y * (height - t - b) + body
            pushed = (-y * (height - top) + body) / (1 - y)
            keep = -y * (height - top - max(bottom, pushed)) + pad_t + math.ceil(_LINE * size) + _GAP
            freed.append((max(bottom, pushed), keep))
    if freed:
        page_b = max(b for b, _ in freed)
        new_b = math.ceil(max(keep for _, keep in freed))
        if new_b < page_b:
            spec["layout"]["margin"] = {**margin, "b": new_b}
            height = round(height - (page_b - new_b))
            spec["layout"]["height"] = height
    spec["layout"]["annotations"] = list(spec["layout"].get("annotations") or []) + [
        _label(text, control, font, pad_t) for text, control, font, pad_t in labels if text]
    return spec, height


def _label(text, control, font, pad_t):
    """The annotation that says which step or button the image shows, where the control showed it."""
    return dict(text=text, showarrow=False, xref="paper", yref="paper", x=control.get("x", 0),
                y=control.get("y", 0), xanchor=control.get("xanchor", "left"), yanchor=control.get("yanchor", "top"),
                yshift=-pad_t, align="left", font=font)


def _apply(spec, method, args, frames):
    """Apply a slider step's or a button's plotly.js command to the figure dict ``spec``."""
    args = list(args) + [None] * 3
    if method in ("restyle", "update"):
        _restyle(spec["data"], args[0] or {}, args[2 if method == "update" else 1])
    if method in ("relayout", "update"):
        for path, value in (args[1 if method == "update" else 0] or {}).items():
            _set(spec["layout"], path, value)
    if method == "animate":
        names = args[0] if isinstance(args[0], (list, tuple)) else [args[0]] if args[0] is not None else list(frames)
        if names and names[-1] in frames:
            frame = frames[names[-1]]
            traces = frame.get("traces") or range(len(frame.get("data") or []))
            for i, data in zip(traces, frame.get("data") or []):
                _merge(spec["data"][i], data)
            _merge(spec["layout"], frame.get("layout") or {})


def _restyle(traces, update, indexes):
    """plotly.js's ``restyle``: a list value gives the traces their values in turn."""
    indexes = range(len(traces)) if indexes is None else [indexes] if isinstance(indexes, int) else indexes
    for k, i in enumerate(indexes):
        for path, value in update.items():
            _set(traces[i], path, value[k % len(value)] if isinstance(value, (list, tuple)) and value else value)


def _set(obj, path, value):
    """Set ``obj`` at a plotly attribute path (``"annotations[2].text"``); ``None`` removes it."""
    keys = [int(k) if k.isdigit() else k for k in re.findall(r"[^.\[\]]+", path)]
    for key, nxt in zip(keys, keys[1:]):
        if isinstance(obj, list):
            obj.extend({} for _ in range(key + 1 - len(obj)))
        elif not isinstance(obj.get(key), (dict, list)):
            obj[key] = [] if isinstance(nxt, int) else {"text": obj[key]} if isinstance(obj.get(key), str) else {}
        obj = obj[key]
    if isinstance(obj, list):
        obj.extend({} for _ in range(keys[-1] + 1 - len(obj)))
        obj[keys[-1]] = value
    elif value is None:
        obj.pop(keys[-1], None)
    else:
        obj[keys[-1]] = value


def _merge(target, update):
    for key, value in update.items():
        if isinstance(value, dict) and isinstance(target.get(key), dict):
            _merge(target[key], value)
        else:
            target[key] = copy.deepcopy(value)
