"""Geometry of the server-rendered SVG rating history chart (no Django import).

:func:`history_chart` turns a rating history into the coordinates the template draws: one
point per rated match (the x axis counts matches, so busy weeks do not squash the line), the
starting rating as the first point, and a few round y-axis gridlines.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field


@dataclass
class Chart:
    """Everything the SVG template needs; coordinates are in the viewBox ``0 0 width height``."""

    width: int
    height: int
    pad_left: int = 0
    points: str = ""
    area: str = ""
    last_x: float = 0.0
    last_y: float = 0.0
    gridlines: list[tuple[float, int]] = field(default_factory=list)
    first_label: str = ""
    last_label: str = ""
    low: int = 0
    high: int = 0
    empty: bool = True


def _nice_step(span: float) -> int:
    raw = span / 4.0
    magnitude = 10 ** math.floor(math.log10(raw)) if raw > 0 else 1
    for factor in (1, 2, 5, 10):
        if factor * magnitude >= raw:
            return max(1, int(factor * magnitude))
    return max(1, int(10 * magnitude))


#: The axis labels' size in the chart's own units (static/css/site.css draws them so): at
#: :data:`PHONE_WIDTH` css px the chart of the default width shows them at least
#: :data:`MIN_LABEL_PX` px high, readable on a phone (issue 43).
LABEL_SIZE = 18
PHONE_WIDTH = 358
MIN_LABEL_PX = 16


def label_px(chart: Chart, shown_width: float = PHONE_WIDTH) -> float:
    """How high the axis labels are drawn when the chart is ``shown_width`` css px wide."""
    return LABEL_SIZE * shown_width / chart.width


def history_chart(
    start: float,
    afters: Sequence[float],
    labels: tuple[str, str] = ("", ""),
    width: int = 400,
    height: int = 230,
    pad_left: int = 62,
    pad: int = 14,
) -> Chart:
    """Chart a rating that started at ``start`` and was ``afters[i]`` after match ``i``.

    ``labels`` are the texts under the first and last point (e.g. dates). With no match the
    chart is ``empty``.
    """
    chart = Chart(
        width=width, height=height, pad_left=pad_left, first_label=labels[0], last_label=labels[1]
    )
    if not afters:
        return chart
    values = [float(start), *map(float, afters)]
    low, high = min(values), max(values)
    if high - low < 20:
        middle = (high + low) / 2
        low, high = middle - 10, middle + 10
    step = _nice_step(high - low)
    low_tick = math.floor(low / step) * step
    high_tick = math.ceil(high / step) * step
    span = high_tick - low_tick
    inner_w = width - pad_left - pad
    inner_h = height - 2 * pad - 20

    def x_of(i: int) -> float:
        return pad_left + inner_w * (i / (len(values) - 1))

    def y_of(v: float) -> float:
        return pad + inner_h * (1 - (v - low_tick) / span)

    coords = [(round(x_of(i), 1), round(y_of(v), 1)) for i, v in enumerate(values)]
    chart.points = " ".join(f"{x},{y}" for x, y in coords)
    base = round(pad + inner_h, 1)
    chart.area = f"{coords[0][0]},{base} {chart.points} {coords[-1][0]},{base}"
    chart.last_x, chart.last_y = coords[-1]
    chart.gridlines = [
        (round(y_of(tick), 1), tick) for tick in range(int(low_tick), int(high_tick) + 1, step)
    ]
    chart.low, chart.high = round(min(values)), round(max(values))
    chart.empty = False
    return chart
