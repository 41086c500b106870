"""The duration chart's coordinates: inside the box, oldest run leftmost, highest run on top."""

from __future__ import annotations

from astest_tasks.output.html.charts import HEIGHT, WIDTH, duration_chart


def test_one_run_makes_no_chart() -> None:
    assert duration_chart([]) is None
    assert duration_chart([0.5]) is None


def test_the_runs_are_drawn_left_to_right_and_the_slowest_highest() -> None:
    chart = duration_chart([1.0, 2.0, 0.5])
    assert chart is not None
    points = [tuple(map(float, pair.split(","))) for pair in chart.points.split()]
    xs = [x for x, _ in points]
    ys = [y for _, y in points]
    assert xs == sorted(xs)
    assert xs[0] >= 0 and xs[-1] <= WIDTH
    assert all(0 <= y <= HEIGHT for y in ys)
    assert ys[1] == min(ys), "the slowest run is the highest point (SVG's y grows downwards)"
    assert (chart.last_x, chart.last_y) == points[-1]
    assert chart.runs == 3


def test_runs_that_all_took_no_time_are_a_flat_line() -> None:
    chart = duration_chart([0.0, 0.0])
    assert chart is not None
    assert len({pair.split(",")[1] for pair in chart.points.split()}) == 1
