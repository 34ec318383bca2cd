"""Geometry of the rating history chart (ladder.charts)."""

from ladder.charts import history_chart


def test_empty_history_gives_an_empty_chart():
    assert history_chart(1500, []).empty


def test_one_point_per_match_plus_the_start_and_higher_is_up():
    chart = history_chart(1500, [1510, 1490, 1530], ("1/1", "2/1"))
    points = [tuple(map(float, p.split(","))) for p in chart.points.split()]
    assert len(points) == 4
    xs = [x for x, _ in points]
    assert xs == sorted(xs) and xs[0] == chart.pad_left and xs[-1] < chart.width
    ys = {rating: y for rating, (_, y) in zip([1500, 1510, 1490, 1530], points, strict=True)}
    assert ys[1530] < ys[1510] < ys[1500] < ys[1490]  # SVG y grows downwards
    assert (chart.last_x, chart.last_y) == points[-1]
    assert chart.low == 1490 and chart.high == 1530
    ticks = [value for _, value in chart.gridlines]
    assert ticks[0] <= 1490 and ticks[-1] >= 1530
    assert all(0 <= y <= chart.height for y, _ in chart.gridlines)


def test_flat_history_still_has_a_visible_range():
    chart = history_chart(1500, [1500, 1500])
    ys = {float(p.split(",")[1]) for p in chart.points.split()}
    assert len(ys) == 1 and 0 < ys.pop() < chart.height
    assert len(chart.gridlines) >= 2


def test_the_axis_labels_are_readable_on_a_phone():
    # issue 43: a 390 px phone shows the chart about 358 px wide; its labels at least 16 px
    from ladder.charts import MIN_LABEL_PX, label_px

    chart = history_chart(1500, [1510, 1490, 1530], ("2026-01-01", "2026-12-05"))
    assert label_px(chart) >= MIN_LABEL_PX
    # the rating labels (four digits) fit left of the plot
    assert chart.pad_left >= 3 * 18
