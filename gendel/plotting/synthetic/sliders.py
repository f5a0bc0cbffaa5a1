"""Static sliders: every state of a figure stored in ``layout.sliders``, no kernel needed.

A slider step of plotly carries the data it shows in ``steps[].args``. plotly.py encodes the
arrays of traces compactly but leaves arrays inside slider args as JSON lists of numbers, which
makes a figure with many states megabytes large. The helpers here store them as plotly.js
*typed-array specs* (base64 of float32, or of 8-bit colour codes for maps), which plotly.js
decodes in ``restyle`` as it does for trace data, so the figures stay interactive in the static
HTML of the book.
"""

from __future__ import annotations

import base64

import numpy as np

from gendel.plotting.maps import ratio_colorscale

#: Colour codes 0..LEVELS of the slider maps (8 bits).
LEVELS = 254


def typed_array(arr):
    """A float32 array as a plotly.js typed-array spec (base64), for data inside slider args.

    Examples
    --------
    >>> typed_array([1.0, 2.0])
    {'dtype': 'f4', 'bdata': 'AACAPwAAAEA='}
    >>> typed_array(np.zeros((2, 3)))["shape"]
    '2, 3'
    """
    a = np.ascontiguousarray(arr, dtype=np.float32)
    spec = {"dtype": "f4", "bdata": base64.b64encode(a.tobytes()).decode("ascii")}
    if a.ndim > 1:
        spec["shape"] = ", ".join(str(s) for s in a.shape)
    return spec


def color_codes(ratio, zmax):
    """Ratios on [0, zmax] as 8-bit colour codes 0..LEVELS (steps of zmax / 254, below what a colour shows).

    Slider maps carry many grids; as codes they take a quarter of the float32 size.

    Examples
    --------
    >>> color_codes([0.0, 1.0, 2.0, 5.0], 2.0)
    array([  0, 127, 254, 254], dtype=uint8)
    """
    return np.clip(np.rint(np.asarray(ratio) / zmax * LEVELS), 0, LEVELS).astype(np.uint8)


def typed_codes(codes):
    """8-bit colour codes (a 2-D map) as a plotly.js typed-array spec.

    Examples
    --------
    >>> typed_codes(color_codes(np.ones((2, 2)), 2.0))
    {'dtype': 'u1', 'bdata': 'f39/fw==', 'shape': '2, 2'}
    """
    a = np.ascontiguousarray(codes, dtype=np.uint8)
    return {"dtype": "u1", "bdata": base64.b64encode(a.tobytes()).decode("ascii"),
            "shape": ", ".join(str(s) for s in a.shape)}


def code_trace_style(zmax, *, showscale):
    """Heatmap style for colour codes: the ratio colour scale and a colour bar labelled in ratios.

    Examples
    --------
    >>> code_trace_style(2.0, showscale=True)["colorbar"]["ticktext"]
    ['0', '0.5', '1', '1.5', '2']
    """
    ticks = [t for t in (0.0, 0.5, 1.0, 1.5, 2.0) if t <= zmax + 1e-9]
    # zsmooth: the maps are coarse grids (a few pixels a cell) of smooth or piecewise-smooth
    # ratios; drawn interpolated they look as the fine grid did, at a fraction of the bytes.
    return dict(zmin=0, zmax=LEVELS, colorscale=ratio_colorscale(zmax), showscale=showscale, hoverinfo="skip",
                zsmooth="best",
                colorbar=dict(title=dict(text="ratio"), thickness=12, len=0.85,
                              tickvals=[t / zmax * LEVELS for t in ticks], ticktext=[f"{t:g}" for t in ticks]))


def slider(steps, prefix, active, *, y=0.0, pad_t=40):
    """A full-width slider under the plots, showing ``prefix`` and the current step's label.

    Examples
    --------
    >>> s = slider([dict(label="0.5"), dict(label="0.6")], "λ = ", 1)
    >>> s["active"], s["currentvalue"]["prefix"]
    (1, 'λ = ')
    """
    return dict(
        active=active,
        steps=steps,
        currentvalue=dict(prefix=prefix, font=dict(size=14)),
        pad=dict(t=pad_t, b=0),
        x=0.0,
        len=1.0,
        y=y,
        yanchor="top",
    )


def step_index(values, value, name):
    """The index of ``value`` among the slider's ``values`` (floats compared with a tolerance).

    Examples
    --------
    >>> step_index([0.5, 0.6, 0.7], 0.6, "initial_lam")
    1
    >>> step_index([0.5, 0.6], 0.8, "initial_lam")
    Traceback (most recent call last):
    ...
    ValueError: initial_lam=0.8 is not one of [0.5, 0.6]
    """
    values = [float(v) for v in values]
    matches = [i for i, v in enumerate(values) if np.isclose(v, float(value))]
    if not matches:
        raise ValueError(f"{name}={value!r} is not one of {values}")
    return matches[0]


__all__ = ["LEVELS", "code_trace_style", "color_codes", "slider", "step_index", "typed_array", "typed_codes"]
